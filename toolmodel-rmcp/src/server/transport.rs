//! Running a [`ToolboxServer`]: stdio, and Streamable HTTP on a TCP listener (`rmcp`'s
//! transports, with the connection handling, limits and fixes of this crate in front).

use std::sync::Arc;

use rmcp::{
    ServiceExt as _,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};
use tokio::net::TcpListener;

use super::{
    ToolboxServer, connections, http_front::HttpFront, limits::Limits, origin,
    sessions::SessionTable, stdio::StdioTransport,
};
use crate::Error;

/// The path [`ToolboxServer::serve_http`] serves MCP on.
pub const MCP_PATH: &str = "/mcp";

/// What [`ToolboxServer::serve_http`] enforces: set with [`ToolboxServer::with_limits`],
/// [`ToolboxServer::with_allowed_hosts`] and [`ToolboxServer::with_allowed_origins`].
#[derive(Clone, Debug, Default)]
pub(super) struct HttpSettings {
    pub(super) limits: Limits,
    /// Empty: loopback.
    pub(super) allowed_hosts: Vec<String>,
    pub(super) allowed_origins: Vec<String>,
}

impl ToolboxServer {
    /// Serves one client over stdio (MCP "stdio" transport: newline-delimited JSON-RPC on
    /// stdin and stdout) until it closes stdin or the connection fails. Write logs to stderr:
    /// stdout is the protocol's.
    ///
    /// A line that is not JSON gets a JSON-RPC `-32700` Parse error, one that is no JSON-RPC
    /// message `-32600`, and a notification before `initialize` is dropped: the server
    /// survives any first line (`rmcp` 3.11 ignores the first and exits on the last; see
    /// the [module docs](crate::server#upstream-behaviour-worked-around)).
    ///
    /// # Errors
    ///
    /// [`Error::Initialize`] when the client's `initialize` handshake fails (stdin closes
    /// first);
    /// [`Error::Join`] when the session task panicked.
    pub async fn serve_stdio(self) -> Result<(), Error> {
        let running = self
            .serve(StdioTransport::new(tokio::io::stdin(), tokio::io::stdout()))
            .await
            .map_err(|err| Error::Initialize(Box::new(err)))?;
        running.waiting().await?;
        Ok(())
    }

    /// `rmcp`'s Streamable HTTP service for this server (MCP "Streamable HTTP" transport),
    /// one session per client (each with its own `logging/setLevel` level), for mounting in
    /// your own `axum` router or `tower` stack. `config` is `rmcp`'s: it accepts only
    /// loopback `Host` headers by default (against DNS rebinding) and checks no `Origin`
    /// unless told to, so a public server lists its host names and origins there. This is
    /// `rmcp`'s service alone: the [`Limits`], the `Origin` default and the fixes of
    /// [`serve_http`](Self::serve_http) are not in it.
    #[must_use]
    pub fn http_service(
        self,
        config: StreamableHttpServerConfig,
    ) -> StreamableHttpService<Self, LocalSessionManager> {
        StreamableHttpService::new(
            move || Ok(self.session()),
            Arc::new(LocalSessionManager::default()),
            config,
        )
    }

    /// Serves clients over Streamable HTTP at [`MCP_PATH`] (`/mcp`) on `listener`, forever.
    /// Bind the listener yourself (`TcpListener::bind("127.0.0.1:0")` picks a free port;
    /// `listener.local_addr()` tells which).
    ///
    /// - Every accepted socket has `TCP_NODELAY` (without it, each response waited about
    ///   40 ms for the client's delayed ACK).
    /// - `Host` must be a loopback name or one of
    ///   [`with_allowed_hosts`](Self::with_allowed_hosts) (else 403); `Origin`, when
    ///   present, a loopback origin, the server's own or one of
    ///   [`with_allowed_origins`](Self::with_allowed_origins) (else 403); see
    ///   [`origin`](crate::server#origin-and-host).
    /// - The [`Limits`] of [`with_limits`](Self::with_limits) bound sessions, connections,
    ///   reads and calls in flight; each refusal names its limit.
    ///
    /// # Errors
    ///
    /// None in practice: a failed `accept` (say, out of file descriptors) closes the
    /// longest idle connection and accepts again. The `Result` leaves room for a shutdown
    /// that reports.
    pub async fn serve_http(self, listener: TcpListener) -> Result<(), Error> {
        let settings = self.http.clone();
        let mut manager = LocalSessionManager::default();
        manager.session_config.keep_alive = Some(settings.limits.session_idle_timeout);
        let manager = Arc::new(manager);
        let config = origin::http_config(
            &settings.allowed_hosts,
            &settings.allowed_origins,
            settings.limits.max_body_bytes,
        );
        let service =
            StreamableHttpService::new(move || Ok(self.session()), Arc::clone(&manager), config);
        let sessions = SessionTable::new(manager, &settings.limits);
        let front = Arc::new(HttpFront::new(service, sessions, &settings.limits));
        connections::serve(listener, front, &settings.limits).await;
        Ok(())
    }
}
