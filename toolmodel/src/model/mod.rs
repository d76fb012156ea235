//! What a [`Tool`](struct@crate::Tool) is made of, beyond the everyday types at the crate root
//! ([`Tool`](struct@crate::Tool), [`ToolAnnotations`](crate::ToolAnnotations),
//! [`ToolSchema`](crate::ToolSchema), [`ToolId`](crate::ToolId),
//! [`Backend`](crate::Backend), [`ProtocolVersion`](crate::ProtocolVersion)): the MCP
//! `Icon` and `ToolExecution` ([`Icon`], [`IconTheme`], [`ToolExecution`], [`TaskSupport`]),
//! the bodies of the [`Backend`](crate::Backend) bindings ([`McpBackend`],
//! [`ProviderBackend`], [`LocalBackend`]), tool IDs read from text ([`parse_tool_id`],
//! [`ToolIdProblem`]), and the rules of tool [`name`]s and [`tags`].
//!
//! ```
//! use toolmodel::{
//!     Tool, ToolSchema,
//!     model::{Icon, IconTheme, TaskSupport, ToolExecution, parse_tool_id, tags::normalize_tags},
//! };
//!
//! let mut tool = Tool::new("search", ToolSchema::empty_object());
//! let mut icon = Icon::new("https://example.com/search.png");
//! icon.theme = Some(IconTheme::Dark);
//! tool.icons = Some(vec![icon]);
//! let mut execution = ToolExecution::default();
//! execution.task_support = Some(TaskSupport::Optional);
//! tool.execution = Some(execution);
//! tool.tags = normalize_tags(["Web Search", "web-search"]);
//! assert_eq!(tool.tags, ["web-search"]);
//! assert_eq!(parse_tool_id("github:search")?.name(), "search");
//! # Ok::<(), toolmodel::Error>(())
//! ```

pub(crate) mod backend;
pub(crate) mod id;
pub mod name;
pub(crate) mod protocol;
pub(crate) mod schema;
pub mod tags;
pub(crate) mod tool;

pub use backend::{LocalBackend, McpBackend, ProviderBackend};
pub use id::{ToolIdProblem, parse_tool_id};
pub use tool::{Icon, IconTheme, TaskSupport, ToolExecution};
