//! [`HttpSettings`]: what a [`ToolboxServer`](crate::ToolboxServer) carries for its
//! Streamable HTTP front, set with its `with_limits`, `with_allowed_hosts` and
//! `with_allowed_origins`, and (feature `auth`) the `ResourceServer` of `with_authorization`.

use super::limits::HttpLimits;
#[cfg(feature = "auth")]
use crate::auth::ResourceServer;

/// What [`ToolboxServer::serve_http`](crate::ToolboxServer::serve_http) and
/// [`ToolboxServer::http_service`](crate::ToolboxServer::http_service) enforce.
#[derive(Clone, Debug, Default)]
pub(crate) struct HttpSettings {
    pub(crate) limits: HttpLimits,
    /// Empty: loopback.
    pub(crate) allowed_hosts: Vec<String>,
    /// Besides loopback and the server's own, each with its port (`:*` for any).
    pub(crate) allowed_origins: Vec<String>,
    /// Where sessions live; `None`: in `rmcp`'s memory only.
    pub(crate) session_store: Option<std::sync::Arc<dyn crate::sessions::SessionStore>>,
    /// `None`: the gate is open.
    #[cfg(feature = "auth")]
    pub(crate) authorization: Option<ResourceServer>,
}
