//! Validation: JSON Schema dialects, the network-free validator, resource bounds, and the MCP
//! rules a tool must follow.

pub(crate) mod compiled;
pub(crate) mod content_cache;
pub(crate) mod dialect;
pub(crate) mod expansion;
pub(crate) mod extension_rules;
pub(crate) mod feedback;
pub(crate) mod issue;
pub mod limits;
pub(crate) mod mcp_header;
pub(crate) mod meta_keys;
pub(crate) mod tool_rules;
pub(crate) mod validator;
pub(crate) mod violation;
