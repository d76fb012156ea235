//! Tool name rules (MCP 2025-11-25, "Tool Names").
//!
//! The specification says a tool name SHOULD be 1 to 128 characters long and SHOULD contain only
//! ASCII letters, digits, underscore (`_`), hyphen (`-`) and dot (`.`). `toolmodel` applies the
//! same rules to the `namespace` extension and to each side of a [`ToolId`](crate::ToolId).

pub(crate) mod nearest;
pub(crate) mod rules;

use crate::error::Error;

pub(crate) use rules::name_problems;
pub use rules::{MAX_NAME_LEN, NameError, NameProblem, is_name_char};

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
/// use toolmodel::model::name::{NameProblem, check_name};
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
