//! Whether a URI is one of a resource template's (RFC 6570 URI Template, read backwards): the
//! gateway routes `resources/read` of a URI no server lists to the server whose template it
//! matches.
//!
//! A template is literal text and `{...}` expressions. An expression without an operator, or
//! with `.` or `;`, stands for a run of characters without `/`, `?` or `#` (RFC 6570 §3.2.2:
//! simple expansion percent-encodes those); one with `+`, `#`, `/`, `?` or `&` for any run of
//! characters (reserved expansion, fragments, path segments, queries). Literal text matches
//! itself. A template with an unclosed `{` matches nothing.

/// One piece of a template.
#[derive(Debug, PartialEq, Eq)]
enum Piece<'a> {
    Literal(&'a str),
    /// An expression; `true` when its value may hold `/`, `?` and `#`.
    Expression(bool),
}

/// The pieces of `template`, or `None` when a `{` is not closed.
fn pieces(template: &str) -> Option<Vec<Piece<'_>>> {
    let mut pieces = Vec::new();
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        let (literal, expression) = rest.split_at(open);
        if !literal.is_empty() {
            pieces.push(Piece::Literal(literal));
        }
        let close = expression.find('}')?;
        let operator = expression.get(1..2).unwrap_or("");
        pieces.push(Piece::Expression(matches!(
            operator,
            "+" | "#" | "/" | "?" | "&"
        )));
        rest = expression.get(close + 1..).unwrap_or("");
    }
    if !rest.is_empty() {
        pieces.push(Piece::Literal(rest));
    }
    Some(pieces)
}

/// Whether `uri` is an expansion of `template` (see the [module docs](self)).
pub(crate) fn matches(template: &str, uri: &str) -> bool {
    pieces(template).is_some_and(|pieces| matches_from(&pieces, uri))
}

fn matches_from(pieces: &[Piece<'_>], uri: &str) -> bool {
    let Some((first, rest)) = pieces.split_first() else {
        return uri.is_empty();
    };
    match first {
        Piece::Literal(text) => uri
            .strip_prefix(text)
            .is_some_and(|after| matches_from(rest, after)),
        Piece::Expression(any) => {
            for (at, c) in uri.char_indices() {
                if matches_from(rest, uri.get(at..).unwrap_or("")) {
                    return true;
                }
                if !any && matches!(c, '/' | '?' | '#') {
                    return false;
                }
            }
            matches_from(rest, "")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_simple_expression_stands_for_one_path_segment() {
        let template = "test://template/{id}/data";
        assert!(matches(template, "test://template/123/data"));
        assert!(!matches(template, "test://template/1/2/data"));
        assert!(!matches(template, "test://other/123/data"));
        assert!(!matches(template, "test://template/123/data/more"));
    }

    #[test]
    fn reserved_and_path_expressions_stand_for_any_text() {
        assert!(matches("file:///{+path}", "file:///a/b/c.txt"));
        assert!(matches(
            "demo://resource/dynamic/text{/index}",
            "demo://resource/dynamic/text/7"
        ));
        assert!(matches(
            "search://items{?q,limit}",
            "search://items?q=x&limit=2"
        ));
        assert!(!matches("search://items{?q}", "other://items?q=x"));
    }

    #[test]
    fn a_template_without_expressions_matches_itself_only() {
        assert!(matches("test://static", "test://static"));
        assert!(!matches("test://static", "test://static2"));
    }

    #[test]
    fn an_unclosed_expression_matches_nothing() {
        assert!(!matches("test://{id", "test://{id"));
        assert!(!matches("test://{id", "test://1"));
    }
}
