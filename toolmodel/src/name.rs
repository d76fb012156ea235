//! Tool name rules (MCP 2025-11-25, "Tool Names").
//!
//! The specification says a tool name SHOULD be 1 to 128 characters long and SHOULD contain only
//! ASCII letters, digits, underscore (`_`), hyphen (`-`) and dot (`.`). `toolmodel` applies the
//! same rules to the `namespace` extension and to each side of a [`ToolId`](crate::ToolId).

use std::fmt;

use crate::Error;

/// The longest valid tool name, in characters (MCP 2025-11-25, "Tool Names").
pub const MAX_NAME_LEN: usize = 128;

/// Returns `true` for a character allowed in a tool name: `[A-Za-z0-9_.-]`.
#[must_use]
pub const fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.')
}

/// Checks a tool name (or namespace) against the MCP "Tool Names" rules.
///
/// Takes the name as written. Returns `Ok(())` when it is 1 to [`MAX_NAME_LEN`] characters of
/// `[A-Za-z0-9_.-]`.
///
/// # Errors
///
/// [`Error::InvalidName`] carrying a [`NameError`] that lists every problem at once:
/// [`NameProblem::Empty`], [`NameProblem::TooLong`], and one [`NameProblem::InvalidChar`] per
/// offending character with its position.
///
/// # Examples
///
/// ```
/// use toolmodel::name::{check_name, NameProblem};
/// use toolmodel::Error;
///
/// assert!(check_name("get_weather.v2").is_ok());
/// let Err(Error::InvalidName(err)) = check_name("get weather!") else { panic!() };
/// assert_eq!(
///     err.problems,
///     vec![
///         NameProblem::InvalidChar { ch: ' ', position: 3 },
///         NameProblem::InvalidChar { ch: '!', position: 11 },
///     ]
/// );
/// ```
pub fn check_name(name: &str) -> Result<(), Error> {
    name_problems(name).map_err(Error::InvalidName)
}

/// The same check as [`check_name`], returning the bare [`NameError`] (used where a name is one
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
