//! The tool model: [`Tool`](struct@crate::Tool) and what it is made of (MCP `Tool`, every protocol version),
//! plus the `toolmodel` extensions (namespace, tags, backends) and the [`ToolId`](crate::ToolId).

pub(crate) mod backend;
pub(crate) mod id;
pub mod name;
pub(crate) mod protocol;
pub(crate) mod schema;
pub mod tags;
pub(crate) mod tool;
