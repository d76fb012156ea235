//! The name rules themselves, and the [`NameError`] they report: a leaf module, so that the
//! crate's [`Error`](crate::Error) can carry a [`NameError`] without a circle.

use std::fmt;

/// The longest valid tool name, in characters (MCP 2025-11-25, "Tool Names").
pub const MAX_NAME_LEN: usize = 128;

/// Returns `true` for a character allowed in a tool name: `[A-Za-z0-9_.-]`.
#[must_use]
pub const fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// The same check as [`check_name`](super::check_name), returning the bare [`NameError`] (used where a name is one
/// part of a larger error).
pub(crate) fn name_problems(name: &str) -> Result<(), NameError> {
    let mut problems = Vec::new();
    let mut length = 0usize;
    for (position, ch) in name.chars().enumerate() {
        length += 1;
        if !is_name_char(ch) {
            problems.push(NameProblem::InvalidChar { ch, position });
        }
    }
    if length == 0 {
        problems.push(NameProblem::Empty);
    } else if length > MAX_NAME_LEN {
        problems.insert(0, NameProblem::TooLong { length });
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(NameError {
            name: name.to_owned(),
            problems,
        })
    }
}

/// A name that breaks the MCP "Tool Names" rules, with every problem found.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NameError {
    /// The name as given.
    pub name: String,
    /// Every problem, in order of position (a length problem first).
    pub problems: Vec<NameProblem>,
}

/// One way a name breaks the MCP "Tool Names" rules.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum NameProblem {
    /// The name is the empty string.
    Empty,
    /// The name is longer than [`MAX_NAME_LEN`] characters.
    TooLong {
        /// Its length in characters.
        length: usize,
    },
    /// A character outside `[A-Za-z0-9_.-]`.
    InvalidChar {
        /// The character.
        ch: char,
        /// Its position, counted in characters from 0.
        position: usize,
    },
}

impl fmt::Display for NameProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("it is empty"),
            Self::TooLong { length } => {
                write!(f, "it is {length} characters long (at most {MAX_NAME_LEN})")
            }
            Self::InvalidChar { ch, position } => {
                write!(
                    f,
                    "character {ch:?} (U+{:04X}) at position {position} is not one of [A-Za-z0-9_.-]",
                    u32::from(*ch)
                )
            }
        }
    }
}

impl fmt::Display for NameError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not a valid name: ", self.name)?;
        for (i, problem) in self.problems.iter().enumerate() {
            if i > 0 {
                f.write_str("; ")?;
            }
            write!(f, "{problem}")?;
        }
        Ok(())
    }
}

impl std::error::Error for NameError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_the_spec_examples() {
        for name in [
            "getUser",
            "DATA_EXPORT_v2",
            "admin.tools.list",
            "a",
            &"x".repeat(128),
        ] {
            assert_eq!(name_problems(name), Ok(()), "{name}");
        }
    }

    #[test]
    fn reports_every_problem() {
        let err = name_problems(&format!("{} é", "a".repeat(130))).unwrap_err();
        assert_eq!(
            err.problems,
            vec![
                NameProblem::TooLong { length: 132 },
                NameProblem::InvalidChar {
                    ch: ' ',
                    position: 130
                },
                NameProblem::InvalidChar {
                    ch: 'é',
                    position: 131
                },
            ]
        );
        assert_eq!(
            name_problems("").unwrap_err().problems,
            vec![NameProblem::Empty]
        );
    }

    #[test]
    fn display_names_the_character_and_position() {
        let text = name_problems("a:b").unwrap_err().to_string();
        assert_eq!(
            text,
            "\"a:b\" is not a valid name: character ':' (U+003A) at position 1 is not one of [A-Za-z0-9_.-]"
        );
    }
}
