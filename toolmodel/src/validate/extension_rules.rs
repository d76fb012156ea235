//! The rules of the `toolmodel` extensions a registry and a server read: `category`,
//! `requiredScopes` (RFC 6749 §3.3 `scope-token`) and `timeoutMs`.

use std::time::Duration;

use crate::validate::violation::{CategoryProblem, MAX_CATEGORY_LEN, ScopeProblem};

/// Whether `ch` may appear in an RFC 6749 §3.3 `scope-token`: `%x21 / %x23-5B / %x5D-7E`,
/// printable ASCII except space, `"` and `\`.
const fn is_scope_char(ch: char) -> bool {
    matches!(ch, '\x21' | '\x23'..='\x5B' | '\x5D'..='\x7E')
}

/// The first rule a scope breaks on its own (RFC 6749 §3.3 `1*( %x21 / %x23-5B / %x5D-7E )`),
/// or `None` for a valid `scope-token`.
pub(crate) fn scope_token_problem(scope: &str) -> Option<ScopeProblem> {
    if scope.is_empty() {
        return Some(ScopeProblem::Empty);
    }
    let (position, ch) = scope
        .chars()
        .enumerate()
        .find(|(_, ch)| !is_scope_char(*ch))?;
    Some(ScopeProblem::Character { ch, position })
}

/// Every problem of a list of scopes, with the scope's index: each a `scope-token`, none
/// repeating an earlier one (compared exactly: RFC 6749 scopes are case-sensitive).
pub(crate) fn scope_problems(scopes: &[String]) -> Vec<(usize, ScopeProblem)> {
    let mut problems = Vec::new();
    for (index, scope) in scopes.iter().enumerate() {
        let repeat = scopes
            .iter()
            .take(index)
            .position(|earlier| earlier == scope)
            .map(|first| ScopeProblem::Duplicate { first });
        if let Some(problem) = scope_token_problem(scope).or(repeat) {
            problems.push((index, problem));
        }
    }
    problems
}

/// The first rule a category breaks (not empty, trimmed, no control character, at most
/// [`MAX_CATEGORY_LEN`] characters), or `None`.
pub(crate) fn category_problem(category: &str) -> Option<CategoryProblem> {
    if category.is_empty() {
        return Some(CategoryProblem::Empty);
    }
    if category.trim() != category {
        return Some(CategoryProblem::Untrimmed);
    }
    if let Some((position, ch)) = category.chars().enumerate().find(|(_, ch)| ch.is_control()) {
        return Some(CategoryProblem::ControlChar { ch, position });
    }
    let length = category.chars().count();
    (length > MAX_CATEGORY_LEN).then_some(CategoryProblem::TooLong { length })
}

/// Whether a timeout can be a tool's: not zero, a whole number of milliseconds (what
/// `timeoutMs` writes).
pub(crate) fn timeout_allowed(timeout: Duration) -> bool {
    !timeout.is_zero() && timeout.subsec_nanos().is_multiple_of(1_000_000)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scope_tokens_follow_rfc_6749_section_3_3() {
        for good in [
            "notes:write",
            "read",
            "https://api.example.com/x",
            "a!#[]^~",
        ] {
            assert_eq!(scope_token_problem(good), None, "{good}");
        }
        let bad = [
            ("", ScopeProblem::Empty),
            (
                "notes write",
                ScopeProblem::Character {
                    ch: ' ',
                    position: 5,
                },
            ),
            (
                "a\"b",
                ScopeProblem::Character {
                    ch: '"',
                    position: 1,
                },
            ),
            (
                "a\\b",
                ScopeProblem::Character {
                    ch: '\\',
                    position: 1,
                },
            ),
            (
                "é",
                ScopeProblem::Character {
                    ch: 'é',
                    position: 0,
                },
            ),
            (
                "\t",
                ScopeProblem::Character {
                    ch: '\t',
                    position: 0,
                },
            ),
        ];
        for (scope, problem) in bad {
            assert_eq!(scope_token_problem(scope), Some(problem), "{scope:?}");
        }
    }

    #[test]
    fn a_repeated_scope_names_the_first() {
        let scopes = [
            "a".to_owned(),
            "b".to_owned(),
            "a".to_owned(),
            "A".to_owned(),
        ];
        assert_eq!(
            scope_problems(&scopes),
            [(2, ScopeProblem::Duplicate { first: 0 })]
        );
    }

    #[test]
    fn categories_are_trimmed_printable_and_short() {
        assert_eq!(category_problem("Productivity / Notes"), None);
        assert_eq!(category_problem(""), Some(CategoryProblem::Empty));
        assert_eq!(category_problem(" notes"), Some(CategoryProblem::Untrimmed));
        assert_eq!(
            category_problem("a\u{7}b"),
            Some(CategoryProblem::ControlChar {
                ch: '\u{7}',
                position: 1
            })
        );
        assert_eq!(
            category_problem(&"x".repeat(65)),
            Some(CategoryProblem::TooLong { length: 65 })
        );
        assert_eq!(category_problem(&"é".repeat(64)), None);
    }

    #[test]
    fn timeouts_are_whole_non_zero_milliseconds() {
        assert!(timeout_allowed(Duration::from_millis(1)));
        assert!(!timeout_allowed(Duration::ZERO));
        assert!(!timeout_allowed(Duration::from_micros(1500)));
    }
}
