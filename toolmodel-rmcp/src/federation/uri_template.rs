//! Whether a URI is one of a resource template's (RFC 6570 URI Template, read backwards): the
//! gateway routes `resources/read` of a URI no server lists to the server whose template it
//! matches.
//!
//! A template is literal text and `{...}` expressions. An expression without an operator, or
//! with `.` or `;`, stands for a run of characters without `/`, `?` or `#` (RFC 6570 §3.2.2:
//! simple expansion percent-encodes those); one with `+`, `#`, `/`, `?` or `&` for any run of
//! characters (reserved expansion, fragments, path segments, queries). Literal text matches
//! itself. A template with an unclosed `{`, or longer than [`MAX_TEMPLATE_BYTES`], matches
//! nothing.
//!
//! **Time.** The URI comes from a client, the template from an upstream. The matcher never
//! backtracks: it keeps the set of URI positions the template's pieces so far can end at, and
//! moves it across one piece at a time, an expression by one sweep over the URI, a literal by
//! finding all its occurrences (Knuth–Morris–Pratt). That is `O(pieces × URI)` steps, each a
//! few instructions, whatever the text: a backtracking matcher took 2 s on a 40,000-byte URI,
//! and `regex`'s automata, tried first, cost up to 6 µs a byte on a long template (their
//! states are made of the template's bytes). The URI is bounded too ([`MAX_URI_BYTES`]: the
//! gateway refuses a longer one with a typed error before matching), so a match holds a
//! runtime worker for at most a few milliseconds; the fuzz target `uri_template` checks that
//! no input takes 10 ms.

/// The longest template matched, in bytes; a longer one matches nothing. Real templates are
/// tens of bytes.
pub(crate) const MAX_TEMPLATE_BYTES: usize = 512;

/// The longest URI matched against templates, in bytes (RFC 9110 §4.1 asks for at least
/// 8,000 octets); [`matches()`] is `false` for a longer one, which the gateway refuses first.
pub(crate) const MAX_URI_BYTES: usize = 16 * 1024;

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

/// Whether `uri` is an expansion of `template` (see the [module docs](self)); `false` for a
/// template over [`MAX_TEMPLATE_BYTES`] or a URI over [`MAX_URI_BYTES`].
///
/// The URI is read as bytes: `/`, `?` and `#` are ASCII, never part of another character's
/// UTF-8, and a literal starts with a character's first byte, so a piece ends only between
/// characters; byte by byte is the same as character by character.
pub(crate) fn matches(template: &str, uri: &str) -> bool {
    if template.len() > MAX_TEMPLATE_BYTES || uri.len() > MAX_URI_BYTES {
        return false;
    }
    let Some(pieces) = pieces(template) else {
        return false;
    };
    let uri = uri.as_bytes();
    // `ends[i]`: the pieces so far match `uri[..i]`.
    let mut ends = vec![false; uri.len() + 1];
    let mut next = vec![false; uri.len() + 1];
    if let Some(first) = ends.first_mut() {
        *first = true;
    }
    for piece in &pieces {
        match piece {
            Piece::Expression(any) => {
                // An expression ending at `i` can take `uri[i]` too (unless it is a separator
                // and the expression may not hold one).
                let mut extending = false;
                for (end, byte) in ends.iter_mut().zip(uri.iter().map(Some).chain([None])) {
                    extending |= *end;
                    *end = extending;
                    extending &=
                        byte.is_some_and(|byte| *any || !matches!(byte, b'/' | b'?' | b'#'));
                }
            }
            Piece::Literal(literal) => {
                next.fill(false);
                let literal = literal.as_bytes();
                for start in occurrences(literal, uri) {
                    if ends.get(start).copied().unwrap_or(false)
                        && let Some(end) = next.get_mut(start + literal.len())
                    {
                        *end = true;
                    }
                }
                std::mem::swap(&mut ends, &mut next);
            }
        }
        if !ends.contains(&true) {
            return false;
        }
    }
    ends.last().copied().unwrap_or(false)
}

/// Where `needle` (not empty) starts in `haystack`, overlapping occurrences included, in
/// `O(needle + haystack)` (Knuth–Morris–Pratt).
fn occurrences<'a>(needle: &'a [u8], haystack: &'a [u8]) -> impl Iterator<Item = usize> + 'a {
    // `border[i]`: the length of the longest proper border of `needle[..=i]`.
    let mut border = vec![0usize; needle.len()];
    let mut length = 0;
    for (i, byte) in needle.iter().enumerate().skip(1) {
        while length > 0 && needle.get(length) != Some(byte) {
            length = border.get(length - 1).copied().unwrap_or(0);
        }
        if needle.get(length) == Some(byte) {
            length += 1;
        }
        if let Some(slot) = border.get_mut(i) {
            *slot = length;
        }
    }
    let mut matched = 0;
    haystack.iter().enumerate().filter_map(move |(i, byte)| {
        while matched > 0 && needle.get(matched) != Some(byte) {
            matched = border.get(matched - 1).copied().unwrap_or(0);
        }
        if needle.get(matched) == Some(byte) {
            matched += 1;
        }
        (matched == needle.len()).then(|| {
            matched = border.get(matched - 1).copied().unwrap_or(0);
            i + 1 - needle.len()
        })
    })
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, Instant};

    use super::*;

    #[test]
    fn a_simple_expression_stands_for_one_path_segment() {
        let template = "test://template/{id}/data";
        assert!(matches(template, "test://template/123/data"));
        assert!(matches(template, "test://template//data"));
        assert!(!matches(template, "test://template/1/2/data"));
        assert!(!matches(template, "test://other/123/data"));
        assert!(!matches(template, "test://template/123/data/more"));
        assert!(!matches(template, "test://template/1?2/data"));
        assert!(!matches(template, "test://template/1#2/data"));
    }

    #[test]
    fn reserved_and_path_expressions_stand_for_any_text() {
        assert!(matches("file:///{+path}", "file:///a/b/c.txt"));
        assert!(matches("file:///{+path}", "file:///a\nb"));
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
    fn literal_text_is_matched_as_written_not_as_a_pattern() {
        assert!(matches("a.b://{x}(1)", "a.b://y(1)"));
        assert!(!matches("a.b://{x}(1)", "aXb://y(1)"));
        assert!(matches("weird://[x]*+?^$|\\{id}", "weird://[x]*+?^$|\\7"));
        assert!(matches("é://{x}ü", "é://ñü"));
        assert!(!matches("é://{x}ü", "é://ñ/ü"));
    }

    #[test]
    fn a_later_literal_is_found_past_an_earlier_false_start() {
        // A greedy matcher that takes the first "b" fails here.
        assert!(matches("t://{+p}b{q}X", "t://b/bX"));
        assert!(matches("t://{a}-{b}", "t://x-y-z"));
        assert!(!matches("t://{a}-{b}", "t://x/y-z"));
        // Overlapping occurrences of a literal.
        assert!(matches("t://{+a}aab", "t://aaab"));
        assert!(matches("t://{+a}abab{b}", "t://abababx"));
    }

    #[test]
    fn occurrences_overlap_and_are_all_found() {
        let found: Vec<usize> = occurrences(b"aa", b"aaaa").collect();
        assert_eq!(found, [0, 1, 2]);
        let found: Vec<usize> = occurrences(b"abab", b"abababab").collect();
        assert_eq!(found, [0, 2, 4]);
        assert_eq!(occurrences(b"x", b"abc").count(), 0);
    }

    #[test]
    fn a_template_without_expressions_matches_itself_only() {
        assert!(matches("test://static", "test://static"));
        assert!(!matches("test://static", "test://static2"));
        assert!(matches("", ""));
        assert!(!matches("", "x"));
    }

    #[test]
    fn an_unclosed_or_oversized_template_matches_nothing() {
        assert!(!matches("test://{id", "test://{id"));
        assert!(!matches("test://{id", "test://1"));
        let long = format!("t://{}", "x".repeat(MAX_TEMPLATE_BYTES));
        assert!(!matches(&long, &long));
    }

    #[test]
    fn a_uri_over_the_bound_matches_no_template() {
        let uri = format!("file:///{}", "a".repeat(MAX_URI_BYTES));
        assert!(!matches("file:///{+path}", &uri));
        assert!(matches("file:///{+path}", &uri[..MAX_URI_BYTES]));
    }

    /// The security review's inputs: `weather://` + `-` × N + `/` against
    /// `weather://{city}-{date}` took 3.65 s at N = 40,000 with the backtracking matcher;
    /// adjacent `{+a}{+b}` were worse; a template of many expressions and literals cost the
    /// `regex` crate's automata milliseconds a kilobyte. Each is now matched up to
    /// [`MAX_URI_BYTES`] in well under a second even in a debug build.
    #[test]
    fn hostile_uris_take_linear_time() {
        let n = MAX_URI_BYTES - 12;
        let many = "{+a}-{b}é{;c}".repeat(MAX_TEMPLATE_BYTES / 16);
        let cases = [
            (
                "weather://{city}-{date}".to_owned(),
                format!("weather://{}/", "-".repeat(n)),
            ),
            (
                "t://{+a}{+b}{+c}x".to_owned(),
                format!("t://{}", "y".repeat(n)),
            ),
            (
                format!("t://{many}!"),
                format!("t://{}", "-é".repeat(n / 3)),
            ),
        ];
        for (template, uri) in &cases {
            assert!(template.len() <= MAX_TEMPLATE_BYTES && uri.len() <= MAX_URI_BYTES);
            let started = Instant::now();
            assert!(!matches(template, uri), "{template}");
            let took = started.elapsed();
            assert!(
                took < Duration::from_secs(1),
                "{template} against {} bytes took {took:?}",
                uri.len()
            );
        }
    }
}
