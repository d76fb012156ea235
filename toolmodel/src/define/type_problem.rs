//! [`TypeProblem`]: a Rust type whose schema cannot be a tool schema (a leaf module the crate's
//! error carries).

use std::fmt;

use crate::validate::violation::SchemaSlot;

/// A Rust type whose schema cannot be a tool schema; see [`Error::ToolType`](crate::Error::ToolType).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TypeProblem {
    /// Where the type is used: `inputSchema` or `outputSchema`.
    pub slot: SchemaSlot,
    /// The Rust type, as [`std::any::type_name`] spells it.
    pub type_name: &'static str,
    /// The root `type` of its schema, as JSON text, or `None` when it has none (an enum's
    /// `oneOf`, say).
    pub found: Option<String>,
}

impl fmt::Display for TypeProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (role, what) = match self.slot {
            SchemaSlot::Input => ("input", "arguments"),
            SchemaSlot::Output => ("output", "structured output"),
        };
        write!(
            f,
            "the {role} type `{}` has a schema whose root ",
            self.type_name
        )?;
        match &self.found {
            Some(found) => write!(f, "is \"type\": {found}")?,
            None => f.write_str("has no \"type\"")?,
        }
        write!(
            f,
            ", but MCP requires {} to be \"type\": \"object\": make the {what} a struct with named fields",
            self.slot
        )
    }
}
