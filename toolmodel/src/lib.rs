//! # toolmodel
//!
//! The canonical data model for [Model Context Protocol](https://modelcontextprotocol.io) tools,
//! exact to MCP 2025-11-25, with a fast JSON Schema validator that never touches the network or
//! the filesystem.
//!
//! - [`Tool`]: the MCP `Tool` (name, title, description, `inputSchema`, `outputSchema`,
//!   [`ToolAnnotations`], [`Icon`]s, [`ToolExecution`], `_meta`) plus the extensions
//!   `namespace`, `version`, `tags` and [`Backend`] bindings; [`Tool::validate`] checks every MCP
//!   rule and reports every violation.
//! - JSON: [`Tool::to_mcp_json`] / [`Tool::from_mcp_json`] for the wire, [`Tool::to_json`] /
//!   [`Tool::from_json`] for everything; unknown keys are kept, `null`s read as absent.
//! - [`ToolId`] (`namespace:name`), [`normalize_tags`], [`catalog::tool_values`] (find tools in a
//!   `tools/list` result, a JSON-RPC response, a capture, ...).
//! - [`SchemaValidator`] and [`DefaultValidator`]: arguments against `inputSchema`, results
//!   against `outputSchema`, compiled once and cached.
//! - `adapters` (feature `adapters`, on by default): tools to and from OpenAI, Anthropic and
//!   Gemini formats, with every change reported as a warning, and strict-mode transforms.
//!
//! ```
//! use serde_json::json;
//! use toolmodel::{DefaultValidator, SchemaValidator, Tool};
//!
//! let tool = Tool::from_mcp_json(&json!({
//!     "name": "get_weather",
//!     "description": "Current weather for a city",
//!     "inputSchema": {
//!         "type": "object",
//!         "properties": {"city": {"type": "string"}},
//!         "required": ["city"]
//!     },
//!     "annotations": null
//! }))?;
//! tool.validate()?;
//!
//! let validator = DefaultValidator::new();
//! assert!(validator.validate_arguments(&tool, &json!({"city": "Paris"})).is_ok());
//! assert!(validator.validate_arguments(&tool, &json!({"town": "Paris"})).is_err());
//! # Ok::<(), toolmodel::Error>(())
//! ```
//!
//! # Why not `rmcp`'s types
//!
//! `rmcp` is the official Rust MCP SDK. `toolmodel` mirrors the specification instead of
//! embedding `rmcp::model::Tool`: `rmcp` always compiles `tokio` (even with default features
//! off), and its `Tool` (3.9) has no `execution` field, so a gateway built on it would drop
//! `execution.taskSupport` from every tool it passes on. `toolmodel` depends on no async
//! runtime and no networking crate.
//!
//! The cargo feature `rmcp` (off by default) adds conversions both ways between [`Tool`] and
//! `rmcp::model::Tool` (and their annotations and icons) in the module `toolmodel::rmcp`. They
//! never drop anything silently: converting a tool with `execution` or unknown keys to `rmcp`
//! fails with [`Error::Lossy`] naming each value, unless you ask for the lossy form. The
//! feature brings `rmcp`, `tokio` and about 30 crates more into the build.

#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "adapters")]
#[cfg_attr(docsrs, doc(cfg(feature = "adapters")))]
pub mod adapters;
mod backend;
pub mod catalog;
mod dialect;
mod error;
mod expansion;
mod id;
mod json;
pub mod limits;
pub mod name;
#[cfg(feature = "rmcp")]
#[cfg_attr(docsrs, doc(cfg(feature = "rmcp")))]
pub mod rmcp;
mod schema;
pub mod tags;
mod tool;
mod unique_keys;
mod validator;
mod violation;

pub use backend::{Backend, LocalBackend, McpBackend, ProviderBackend};
pub use dialect::{DIALECT_2020_12, DIALECT_DRAFT_07, Dialect};
pub use error::Error;
pub use id::{ToolId, ToolIdProblem, parse_tool_id};
pub use json::McpTool;
pub use limits::Limits;
pub use schema::ToolSchema;
pub use tags::normalize_tags;
pub use tool::{Icon, IconTheme, TaskSupport, Tool, ToolAnnotations, ToolExecution};
pub use validator::{
    CompiledSchema, DefaultValidator, InstanceError, SchemaIssue, SchemaValidator,
};
pub use violation::{ICON_SCHEMES, SchemaSlot, Violation};

/// The MCP protocol version this crate models.
pub const MCP_VERSION: &str = "2025-11-25";
