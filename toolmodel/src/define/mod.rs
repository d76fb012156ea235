//! Tools defined by Rust types: [`ToolDefinition`](crate::ToolDefinition) (what
//! `#[derive(Tool)]` implements), the schema profile, and the `#[tool(register)]` registry.

pub(crate) mod definition;
pub(crate) mod integer_valued;
pub mod profile;
#[cfg(feature = "inventory")]
pub(crate) mod registry;
pub(crate) mod type_problem;
