//! JSON on the wire, beyond [`Tool::to_mcp_json`](crate::Tool::to_mcp_json) and
//! [`Tool::from_mcp_json`](crate::Tool::from_mcp_json): finding the tools in any document
//! ([`catalog`]); a tool serialized as MCP `Tool` JSON without a copy ([`McpTool`]) and the
//! keys that form has ([`MCP_TOOL_KEYS`]); and what writing a tool or a result for one
//! protocol version gives ([`Written`]: the JSON and every [`Loss`] of a [`LossKind`]), with
//! the `resultType` of a complete result ([`RESULT_COMPLETE`]).
//!
//! ```
//! use serde_json::json;
//! use toolmodel::{
//!     ProtocolVersion, Tool,
//!     wire::{LossKind, catalog::tool_values},
//! };
//!
//! let capture = json!({"result": {"tools": [
//!     {"name": "a", "inputSchema": {"type": "object"}, "execution": {"taskSupport": "optional"}}
//! ]}});
//! let found = tool_values(&capture)?;
//! assert_eq!(found[0].0, "/result/tools/0");
//! let tool = Tool::from_mcp_json(found[0].1)?;
//! let written = tool.to_mcp_json_for(ProtocolVersion::V2026_07_28)?;
//! assert_eq!(written.losses[0].pointer, "/execution");
//! assert_eq!(written.losses[0].kind, LossKind::Omitted);
//! # Ok::<(), toolmodel::Error>(())
//! ```

pub mod catalog;
pub(crate) mod json;
pub(crate) mod keys;
pub(crate) mod unique_keys;
pub(crate) mod versioned;

pub use json::McpTool;
pub use keys::MCP_KEYS as MCP_TOOL_KEYS;
pub use versioned::{Loss, LossKind, RESULT_COMPLETE, Written};
