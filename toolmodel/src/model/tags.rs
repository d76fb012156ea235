//! Tag normalization (a `toolmodel` extension: tags are not part of MCP).
//!
//! Tags let a registry group and search tools. They are stored in one normal form so that
//! `"Web Search"`, `" web-search "` and `"WEB-SEARCH"` are one tag.

/// The longest normalized tag, in characters.
pub const MAX_TAG_LEN: usize = 64;
/// The most tags a tool keeps.
pub const MAX_TAGS: usize = 20;

/// Normalizes one tag; `None` when nothing is left of it.
///
/// The rules, in order: trim; lowercase; every run of inner whitespace becomes one `-`; only
/// `[a-z0-9-_.]` is kept (other characters are dropped); at most [`MAX_TAG_LEN`] characters are
/// kept.
///
/// # Examples
///
/// ```
/// use toolmodel::model::tags::normalize_tag;
///
/// assert_eq!(normalize_tag("  Web  Search "), Some("web-search".to_owned()));
/// assert_eq!(normalize_tag("C++ / Rust!"), Some("c--rust".to_owned()));
/// assert_eq!(normalize_tag(" ?! "), None);
/// ```
#[must_use]
pub fn normalize_tag(tag: &str) -> Option<String> {
    let mut out = String::with_capacity(tag.len().min(MAX_TAG_LEN));
    let mut pending_dash = false;
    for ch in tag.trim().chars().flat_map(char::to_lowercase) {
        if ch.is_whitespace() {
            pending_dash = true;
            continue;
        }
        if pending_dash {
            out.push('-');
            pending_dash = false;
        }
        if ch.is_ascii_lowercase() || ch.is_ascii_digit() || matches!(ch, '-' | '_' | '.') {
            out.push(ch);
        }
    }
    // Every kept character is ASCII, so bytes are characters.
    out.truncate(MAX_TAG_LEN);
    (!out.is_empty()).then_some(out)
}

/// Normalizes a list of tags.
///
/// Each tag goes through [`normalize_tag`]; empty results are dropped; duplicates (after
/// normalization) are removed, keeping the first in order; at most [`MAX_TAGS`] tags are kept.
/// The result is a fixed point: normalizing it again gives it back.
///
/// # Examples
///
/// ```
/// use toolmodel::model::tags::normalize_tags;
///
/// let tags = normalize_tags(["Web Search", "web-search", "", "  GitHub "]);
/// assert_eq!(tags, ["web-search", "github"]);
/// ```
#[must_use]
pub fn normalize_tags<I>(tags: I) -> Vec<String>
where
    I: IntoIterator,
    I::Item: AsRef<str>,
{
    let mut out: Vec<String> = Vec::new();
    for tag in tags {
        if out.len() == MAX_TAGS {
            break;
        }
        if let Some(tag) = normalize_tag(tag.as_ref())
            && !out.contains(&tag)
        {
            out.push(tag);
        }
    }
    out
}

/// Returns `true` when `tags` is already in normal form (`normalize_tags(tags) == tags`).
#[must_use]
pub fn is_normalized<S: AsRef<str>>(tags: &[S]) -> bool {
    let normal = normalize_tags(tags);
    normal.len() == tags.len() && normal.iter().zip(tags).all(|(a, b)| a == b.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn examples() {
        assert_eq!(
            normalize_tags(["  Data\tScience  ", "ML", "ml", "données"]),
            ["data-science", "ml", "donnes"]
        );
        assert_eq!(normalize_tag(&"x".repeat(70)).map(|t| t.len()), Some(64));
        assert_eq!(normalize_tags((0..30).map(|i| format!("t{i}"))).len(), 20);
        assert!(is_normalized(&["a", "b"]));
        assert!(!is_normalized(&["A"]));
        assert!(!is_normalized(&["a", "a"]));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]

        #[test]
        fn idempotent(tags in proptest::collection::vec(".{0,80}", 0..30)) {
            let once = normalize_tags(&tags);
            prop_assert_eq!(normalize_tags(&once), once.clone());
            prop_assert!(is_normalized(&once));
        }

        #[test]
        fn only_allowed_characters(tags in proptest::collection::vec(".{0,80}", 0..30)) {
            for tag in normalize_tags(&tags) {
                prop_assert!(tag.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c)), "{}", tag);
            }
        }

        #[test]
        fn bounded_and_non_empty(tags in proptest::collection::vec(".{0,200}", 0..60)) {
            let out = normalize_tags(&tags);
            prop_assert!(out.len() <= MAX_TAGS);
            for tag in &out {
                prop_assert!(!tag.is_empty() && tag.len() <= MAX_TAG_LEN);
            }
        }

        #[test]
        fn no_duplicates_and_order_kept(tags in proptest::collection::vec("[a-cA-C ]{1,3}", 0..40)) {
            let out = normalize_tags(&tags);
            let mut seen = std::collections::HashSet::new();
            for tag in &out {
                prop_assert!(seen.insert(tag.clone()), "duplicate {}", tag);
            }
            // The output is the subsequence of first occurrences of the normalized inputs.
            let firsts: Vec<String> = {
                let mut firsts = Vec::new();
                for tag in tags.iter().filter_map(|t| normalize_tag(t)) {
                    if !firsts.contains(&tag) { firsts.push(tag); }
                }
                firsts.truncate(MAX_TAGS);
                firsts
            };
            prop_assert_eq!(out, firsts);
        }

        #[test]
        fn whitespace_becomes_one_dash(a in "[a-z]{1,5}", ws in "[ \t\n]{1,4}", b in "[a-z]{1,5}") {
            prop_assert_eq!(normalize_tag(&format!(" {a}{ws}{b} ")), Some(format!("{a}-{b}")));
        }

        #[test]
        fn lowercases_ascii(s in "[A-Za-z0-9]{1,64}") {
            prop_assert_eq!(normalize_tag(&s), Some(s.to_ascii_lowercase()));
        }
    }
}
