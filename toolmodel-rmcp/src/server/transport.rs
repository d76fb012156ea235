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
    connections, http_front::HttpFront, origin, sessions::SessionTable, stdio::StdioTransport,
    toolbox_server::ToolboxServer,
};
use crate::error::Error;

impl ToolboxServer {
    /// Serves one client over stdio (MCP "stdio" transport: newline-delimited JSON-RPC on
    /// stdin and stdout) until it closes stdin or the connection fails. Write logs to stderr:
    /// stdout is the protocol's.
    ///
    /// What this transport does that `rmcp` 3.11's does not (upstream behaviour, worked around
    /// here until an `rmcp` release changes it):
    ///
    /// | line from the client | `rmcp` 3.11 | here |
    /// |---|---|---|
    /// | not JSON | ignored, so a request with an id waits forever | a JSON-RPC `-32700` Parse error, `id` null (JSON-RPC 2.0, 5.1) |
    /// | JSON but no JSON-RPC message | `-32600` without the id | `-32600` with the line's `id` when it has one |
    /// | a notification, response or error before `initialize` | the server exits (`ExpectedInitializeRequest`) | dropped: the server survives any first line and waits for `initialize` |
    /// | `tools/call` whose `arguments` is not an object, or with no `name` | `-32601` Method not found | `-32602` Invalid params naming `/params/arguments` or `/params/name` (also over HTTP) |
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
    /// `rmcp`'s service alone: the [`Limits`](super::Limits), the `Origin` default and the
    /// fixes of [`serve_http`](Self::serve_http) are not in it.
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

    /// Serves clients over Streamable HTTP at [`MCP_PATH`](super::MCP_PATH) (`/mcp`) on
    /// `listener`, forever. Bind the listener yourself (`TcpListener::bind("127.0.0.1:0")`
    /// picks a free port; `listener.local_addr()` tells which).
    ///
    /// - Every accepted socket has `TCP_NODELAY` (without it, each response waited about
    ///   40 ms for the client's delayed ACK).
    /// - `Host` must be a loopback name (`localhost`, `127.0.0.1`, `::1`) or one of
    ///   [`with_allowed_hosts`](Self::with_allowed_hosts), else 403 (against DNS rebinding).
    /// - `Origin`, when present, must be a loopback origin (`http` or `https`, any port), the
    ///   server's own (`http` or `https` on an allowed host) or one of
    ///   [`with_allowed_origins`](Self::with_allowed_origins), else 403 (MCP 2025-11-25 and
    ///   2026-07-28, Streamable HTTP, "Security Warning": servers MUST validate `Origin`).
    ///   `Origin: null` is 403 unless allowed. `rmcp` checks both with the lists built here.
    /// - The [`Limits`](super::Limits) of [`with_limits`](Self::with_limits) bound sessions,
    ///   connections, reads and calls in flight; each refusal names its limit.
    ///
    /// Answers `rmcp` 3.11's service gets wrong, fixed in front of it (upstream behaviour):
    ///
    /// | request | `rmcp` 3.11 | here |
    /// |---|---|---|
    /// | a body that is not JSON, with `Content-Type: application/json` | 415, a text body | 400 with a JSON-RPC `-32700` Parse error |
    /// | JSON that is no JSON-RPC message | 415, a text body | 400 with `-32600` Invalid Request (with the `id` when it has one) |
    /// | `DELETE` of a session the server does not hold | 202 | 404 (MCP, Streamable HTTP, "Session Management") |
    /// | two `Host` headers | served with the first | 400 (RFC 9112, 3.2) |
    /// | `tools/call` whose `arguments` is not an object, or with no `name` | `-32601` | `-32602` naming `/params/arguments` or `/params/name` |
    ///
    /// # Errors
    ///
    /// None in practice: a failed `accept` (say, out of file descriptors) closes the
    /// longest idle connection and accepts again. The `Result` leaves room for a shutdown
    /// that reports.
    pub async fn serve_http(self, listener: TcpListener) -> Result<(), Error> {
        self.serve_http_until(listener, std::future::pending())
            .await
    }

    /// [`serve_http`](Self::serve_http) until `shutdown` completes (a signal, a channel),
    /// then a graceful shutdown: no new connection is accepted (the listener is closed),
    /// every session and its open event streams end, the requests in flight are answered
    /// (for at most 30 s) and every connection is closed before this returns.
    ///
    /// ```no_run
    /// # async fn run(server: toolmodel_rmcp::ToolboxServer) -> Result<(), toolmodel_rmcp::Error> {
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080")
    ///     .await
    ///     .map_err(toolmodel_rmcp::Error::Io)?;
    /// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    /// # drop(stop);
    /// server
    ///     .serve_http_until(listener, async move {
    ///         let _ = stopped.await; // e.g. sent from a Ctrl-C handler
    ///     })
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// As [`serve_http`](Self::serve_http).
    pub async fn serve_http_until(
        self,
        listener: TcpListener,
        shutdown: impl Future<Output = ()> + Send,
    ) -> Result<(), Error> {
        let settings = self.http.clone();
        let mut manager = LocalSessionManager::default();
        manager.session_config.keep_alive = Some(settings.limits.session_idle_timeout);
        let manager = Arc::new(manager);
        let config = origin::http_config(
            &settings.allowed_hosts,
            &settings.allowed_origins,
            settings.limits.max_body_bytes,
        );
        let stop_sessions = config.cancellation_token.clone();
        let service =
            StreamableHttpService::new(move || Ok(self.session()), Arc::clone(&manager), config);
        let sessions = SessionTable::new(manager, &settings.limits);
        let front = Arc::new(HttpFront::new(service, sessions, &settings.limits));
        let shutdown = async move {
            shutdown.await;
            stop_sessions.cancel();
        };
        connections::serve(listener, front, &settings.limits, shutdown).await;
        Ok(())
    }
}
