//! Tool IDs: `namespace:name`, or `name` alone.
//!
//! A tool ID names a tool across servers. Its canonical text is the namespace and the name joined
//! by one `:`, or the name alone when the tool has no namespace. Each side follows the MCP "Tool
//! Names" rules ([`check_name`](crate::model::name::check_name)), so neither side can contain `:`.

use std::{fmt, str::FromStr};

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use crate::error::Error;
use crate::model::name::rules::name_problems;
use crate::model::tool::Tool;

pub(crate) mod problem;

pub use problem::ToolIdProblem;

/// A validated tool ID: `namespace:name` or `name`.
///
/// Built with [`str::parse`] / [`FromStr`], [`ToolId::new`] or [`parse_tool_id`]; shown with
/// [`Display`](fmt::Display), which gives back the canonical text; serialized by serde as that
/// string.
///
/// # Examples
///
/// ```
/// use toolmodel::ToolId;
///
/// let id: ToolId = "github:get_issue".parse()?;
/// assert_eq!(id.namespace(), Some("github"));
/// assert_eq!(id.name(), "get_issue");
/// assert_eq!(id.to_string(), "github:get_issue");
/// assert!("a:b:c".parse::<ToolId>().is_err());
/// # Ok::<(), toolmodel::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ToolId {
    text: Box<str>,
    /// Byte offset of the `:` in `text`, when there is a namespace.
    colon: Option<usize>,
}

/// Parses a tool ID; the same as `text.parse::<ToolId>()`.
///
/// # Errors
///
/// [`Error::InvalidToolId`] naming the input and every [`ToolIdProblem`] found.
pub fn parse_tool_id(text: &str) -> Result<ToolId, Error> {
    text.parse()
}

impl ToolId {
    /// Builds an ID from an optional namespace and a name.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidToolId`] when the namespace (if any) or the name breaks the name rules,
    /// with every problem found.
    pub fn new(namespace: Option<&str>, name: &str) -> Result<Self, Error> {
        match namespace {
            Some(namespace) => format!("{namespace}:{name}").parse(),
            None => {
                let mut problems = Vec::new();
                // A `:` inside a bare name is one of the characters the name rules reject.
                check_side(name, Side::Name, &mut problems);
                finish(name, None, problems)
            }
        }
    }

    /// The namespace, when the ID has one.
    #[must_use]
    pub fn namespace(&self) -> Option<&str> {
        self.colon.and_then(|colon| self.text.get(..colon))
    }

    /// The tool name (the part after the `:`, or the whole ID).
    #[must_use]
    pub fn name(&self) -> &str {
        match self.colon {
            Some(colon) => self.text.get(colon + 1..).unwrap_or_default(),
            None => &self.text,
        }
    }

    /// The canonical text, `namespace:name` or `name`.
    #[must_use]
    pub fn as_str(&self) -> &str {
        &self.text
    }
}

impl Tool {
    /// The tool's ID: `namespace:name`, or `name` when it has no namespace.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidToolId`] when the name or namespace breaks the name rules.
    pub fn id(&self) -> Result<ToolId, Error> {
        ToolId::new(self.namespace.as_deref(), &self.name)
    }
}

#[derive(Clone, Copy)]
enum Side {
    Namespace,
    Name,
}

fn check_side(text: &str, side: Side, problems: &mut Vec<ToolIdProblem>) {
    if let Err(err) = name_problems(text) {
        problems.push(match side {
            Side::Namespace => ToolIdProblem::Namespace(err),
            Side::Name => ToolIdProblem::Name(err),
        });
    }
}

fn finish(text: &str, colon: Option<usize>, problems: Vec<ToolIdProblem>) -> Result<ToolId, Error> {
    if problems.is_empty() {
        Ok(ToolId {
            text: text.into(),
            colon,
        })
    } else {
        Err(Error::InvalidToolId {
            input: text.to_owned(),
            problems,
        })
    }
}

impl FromStr for ToolId {
    type Err = Error;

    fn from_str(text: &str) -> Result<Self, Error> {
        if text.is_empty() {
            return finish(text, None, vec![ToolIdProblem::Empty]);
        }
        let mut colons = text.match_indices(':').map(|(offset, _)| offset);
        let Some(colon) = colons.next() else {
            let mut problems = Vec::new();
            check_side(text, Side::Name, &mut problems);
            return finish(text, None, problems);
        };
        let mut problems: Vec<ToolIdProblem> = colons
            .map(|offset| ToolIdProblem::ExtraColon { offset })
            .collect();
        if !problems.is_empty() {
            return finish(text, None, problems);
        }
        let (namespace, name) = (
            text.get(..colon).unwrap_or_default(),
            text.get(colon + 1..).unwrap_or_default(),
        );
        if namespace.is_empty() {
            problems.push(ToolIdProblem::EmptyNamespace);
        } else {
            check_side(namespace, Side::Namespace, &mut problems);
        }
        if name.is_empty() {
            problems.push(ToolIdProblem::EmptyName);
        } else {
            check_side(name, Side::Name, &mut problems);
        }
        finish(text, Some(colon), problems)
    }
}

impl TryFrom<&str> for ToolId {
    type Error = Error;

    fn try_from(text: &str) -> Result<Self, Error> {
        text.parse()
    }
}

impl TryFrom<String> for ToolId {
    type Error = Error;

    fn try_from(text: String) -> Result<Self, Error> {
        text.parse()
    }
}

impl From<ToolId> for String {
    fn from(id: ToolId) -> Self {
        id.text.into()
    }
}

impl AsRef<str> for ToolId {
    fn as_ref(&self) -> &str {
        &self.text
    }
}

impl fmt::Display for ToolId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

impl fmt::Debug for ToolId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ToolId({:?})", &*self.text)
    }
}

impl Serialize for ToolId {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.text)
    }
}

impl<'de> Deserialize<'de> for ToolId {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = std::borrow::Cow::<'de, str>::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn problems(text: &str) -> Vec<ToolIdProblem> {
        match text.parse::<ToolId>() {
            Err(Error::InvalidToolId { problems, .. }) => problems,
            other => panic!("{text:?} gave {other:?}"),
        }
    }

    #[test]
    fn the_issue_examples_are_errors() {
        assert_eq!(
            problems("a::b"),
            vec![ToolIdProblem::ExtraColon { offset: 2 }]
        );
        assert_eq!(problems(":x"), vec![ToolIdProblem::EmptyNamespace]);
        assert_eq!(problems("x:"), vec![ToolIdProblem::EmptyName]);
        assert_eq!(
            problems("a:b:c"),
            vec![ToolIdProblem::ExtraColon { offset: 3 }]
        );
        assert_eq!(problems(""), vec![ToolIdProblem::Empty]);
        assert_eq!(
            problems(":"),
            vec![ToolIdProblem::EmptyNamespace, ToolIdProblem::EmptyName]
        );
    }

    #[test]
    fn sides_follow_the_name_rules() {
        let found = problems("git hub:get/issue");
        assert!(matches!(
            found.as_slice(),
            [ToolIdProblem::Namespace(_), ToolIdProblem::Name(_)]
        ));
        assert!(ToolId::new(Some("a b"), "c").is_err());
        assert!(ToolId::new(None, "a:b").is_err());
    }

    #[test]
    fn parts_and_serde() {
        let id = ToolId::new(Some("fs"), "read_file").unwrap();
        assert_eq!(
            (id.namespace(), id.name(), id.as_str()),
            (Some("fs"), "read_file", "fs:read_file")
        );
        let bare: ToolId = "read_file".parse().unwrap();
        assert_eq!((bare.namespace(), bare.name()), (None, "read_file"));
        assert_eq!(serde_json::to_string(&id).unwrap(), "\"fs:read_file\"");
        let back: ToolId = serde_json::from_str("\"fs:read_file\"").unwrap();
        assert_eq!(back, id);
        let err = serde_json::from_str::<ToolId>("\"a:b:c\"")
            .unwrap_err()
            .to_string();
        assert!(err.contains("a:b:c"), "{err}");
    }
}
