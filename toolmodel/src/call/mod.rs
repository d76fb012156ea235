//! Calling tools: results, handlers, the call context, and the [`Toolbox`](crate::Toolbox) of
//! local backends.

pub(crate) mod cancellation;
pub(crate) mod content;
pub(crate) mod context;
pub(crate) mod handler;
pub(crate) mod input;
pub(crate) mod list_result;
pub(crate) mod pipeline;
#[cfg(feature = "inventory")]
pub(crate) mod registered;
pub(crate) mod result;
pub(crate) mod timeout;
pub(crate) mod tool_error;
pub(crate) mod toolbox;
pub(crate) mod tools_page;
