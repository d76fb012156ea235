//! [`ToolIdProblem`]: why a text is not a tool ID (a leaf module the crate's error can carry).

use std::fmt;

use crate::model::name::rules::NameError;

/// One reason a text is not a valid [`ToolId`](crate::ToolId).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ToolIdProblem {
    /// The text is empty.
    Empty,
    /// A second (or later) `:`; an ID has at most one.
    ExtraColon {
        /// Byte offset of the extra `:` in the text.
        offset: usize,
    },
    /// Nothing before the `:`.
    EmptyNamespace,
    /// Nothing after the `:`.
    EmptyName,
    /// The namespace breaks the name rules.
    Namespace(NameError),
    /// The name breaks the name rules.
    Name(NameError),
}

impl fmt::Display for ToolIdProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Empty => f.write_str("it is empty"),
            Self::ExtraColon { offset } => {
                write!(f, "extra ':' at byte {offset} (an ID has at most one)")
            }
            Self::EmptyNamespace => f.write_str("the namespace before ':' is empty"),
            Self::EmptyName => f.write_str("the name after ':' is empty"),
            Self::Namespace(err) => write!(f, "namespace {err}"),
            Self::Name(err) => write!(f, "name {err}"),
        }
    }
}
