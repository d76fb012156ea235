//! The `_meta` key name format (MCP "General fields: `_meta`", from 2025-06-18; the same rules
//! in 2025-11-25 and 2026-07-28, where `_meta` is a `MetaObject`).

use crate::validate::violation::MetaKeyProblem;

/// Whether `text` is non-empty, begins with a byte `first` accepts, ends with one `last`
/// accepts, and holds only bytes `inner` accepts.
fn shaped(
    text: &str,
    first: fn(&u8) -> bool,
    last: fn(&u8) -> bool,
    inner: fn(&u8) -> bool,
) -> bool {
    let bytes = text.as_bytes();
    bytes.first().is_some_and(first) && bytes.last().is_some_and(last) && bytes.iter().all(inner)
}

/// A prefix label: starts with a letter, ends with a letter or digit, letters, digits and
/// hyphens between.
fn is_label(label: &str) -> bool {
    shaped(
        label,
        u8::is_ascii_alphabetic,
        u8::is_ascii_alphanumeric,
        |b| b.is_ascii_alphanumeric() || *b == b'-',
    )
}

/// The name: empty, or begins and ends with `[A-Za-z0-9]`, with `[A-Za-z0-9._-]` between.
fn is_name(name: &str) -> bool {
    name.is_empty()
        || shaped(
            name,
            u8::is_ascii_alphanumeric,
            u8::is_ascii_alphanumeric,
            |b| b.is_ascii_alphanumeric() || b"-_.".contains(b),
        )
}

/// What is wrong with a `_meta` key, if anything: `[prefix "/"] name`, the prefix a series of
/// dot-separated labels.
pub(crate) fn meta_key_problem(key: &str) -> Option<MetaKeyProblem> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(label) = prefix.and_then(|p| p.split('.').find(|label| !is_label(label))) {
        return Some(MetaKeyProblem::PrefixLabel(label.to_owned()));
    }
    (!is_name(name)).then(|| MetaKeyProblem::Name(name.to_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_spec_examples_and_more() {
        for good in [
            "progressToken",
            "io.modelcontextprotocol/protocolVersion",
            "com.example/x",
            "com.example.mcp/a-b_c.d",
            "dev.mcp/",
            "a/",
            "x1",
            "",
            "traceparent",
        ] {
            assert_eq!(meta_key_problem(good), None, "{good}");
        }
        let cases = [
            ("1com.example/x", MetaKeyProblem::PrefixLabel("1com".into())),
            ("com-.example/x", MetaKeyProblem::PrefixLabel("com-".into())),
            ("com..example/x", MetaKeyProblem::PrefixLabel(String::new())),
            ("/x", MetaKeyProblem::PrefixLabel(String::new())),
            (
                "com_example/x",
                MetaKeyProblem::PrefixLabel("com_example".into()),
            ),
            ("-x", MetaKeyProblem::Name("-x".into())),
            ("x.", MetaKeyProblem::Name("x.".into())),
            ("a b", MetaKeyProblem::Name("a b".into())),
            ("com.example/a/b", MetaKeyProblem::Name("a/b".into())),
            ("é", MetaKeyProblem::Name("é".into())),
        ];
        for (key, problem) in cases {
            assert_eq!(meta_key_problem(key), Some(problem), "{key}");
        }
    }
}
