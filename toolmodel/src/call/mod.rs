//! Calling tools: results, handlers, the call context and its peer, asking the client for
//! input, `tools/list` results, and the [`Toolbox`](crate::Toolbox) of local backends.

pub(crate) mod caller;
pub(crate) mod cancellation;
pub mod content;
pub(crate) mod context;
pub(crate) mod handler;
pub mod input;
pub mod list;
pub mod peer;
pub(crate) mod pipeline;
#[cfg(feature = "inventory")]
pub(crate) mod registered;
pub(crate) mod result;
pub(crate) mod timeout;
pub(crate) mod tool_error;
pub(crate) mod toolbox;
