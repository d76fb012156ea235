//! Running a [`ToolboxServer`]: stdio, and Streamable HTTP on a TCP listener or in a server
//! of your own (`rmcp`'s transports, with the connection handling, limits and fixes of this
//! crate in front).

use std::sync::Arc;

use rmcp::{
    ServiceExt as _,
    transport::streamable_http_server::{
        StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
    },
};
use tokio::net::TcpListener;

use super::{
    compat::stdio::StdioTransport,
    http::{McpHttpService, ServeHttp},
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
            .session("pipe")
            .serve(StdioTransport::new(tokio::io::stdin(), tokio::io::stdout()))
            .await
            .map_err(|err| Error::Initialize(Box::new(err)))?;
        running.waiting().await?;
        Ok(())
    }

    /// This server over Streamable HTTP (MCP "Streamable HTTP" transport) as a `tower`
    /// service, to mount in a server or router of your own: one session per client (each
    /// with its own `logging/setLevel` level), with the `Host` and `Origin` rules of
    /// [`with_allowed_hosts`](Self::with_allowed_hosts) and
    /// [`with_allowed_origins`](Self::with_allowed_origins), the
    /// [`HttpLimits`](super::HttpLimits) of [`with_limits`](Self::with_limits) but the
    /// connection ones, and the answers fixed in front of `rmcp`: see [`McpHttpService`] (how
    /// to mount it, and the order in which a request is checked).
    /// [`serve_http`](Self::serve_http) serves the same service.
    #[must_use]
    pub fn http_service(self) -> McpHttpService {
        McpHttpService::new(self)
    }

    /// `rmcp`'s own `StreamableHttpService` for this server, with `config` as it is: the raw
    /// path, for an `rmcp` setting [`http_service`](Self::http_service) does not expose
    /// (a session manager, stateless mode, SSE keep-alive). None of the front is in it: no
    /// [`HttpLimits`](super::HttpLimits), no `Origin` check unless `config` asks for one
    /// (`rmcp` checks only loopback `Host` headers by default), none of the fixes
    /// [`McpHttpService`] lists.
    #[must_use]
    pub fn rmcp_http_service(
        self,
        config: StreamableHttpServerConfig,
    ) -> StreamableHttpService<Self, LocalSessionManager> {
        StreamableHttpService::new(
            move || Ok(self.session("tcp")),
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
    /// - Each request is answered by the [`McpHttpService`] of
    ///   [`http_service`](Self::http_service), served at [`MCP_PATH`](super::MCP_PATH) only: `Host` must be a
    ///   loopback name (`localhost`, `127.0.0.1`, `::1`) or one of
    ///   [`with_allowed_hosts`](Self::with_allowed_hosts), else 403 (against DNS rebinding);
    ///   `Origin`, when present, must be a loopback origin (`http` or `https`, any port), the
    ///   server's own (`http` or `https` on an allowed host) or one of
    ///   [`with_allowed_origins`](Self::with_allowed_origins), else 403 (MCP 2025-11-25 and
    ///   2026-07-28, Streamable HTTP, "Security Warning": servers MUST validate `Origin`);
    ///   `Origin: null` is 403 unless allowed. Both are checked before the body is read or a
    ///   session admitted, and the refusal closes the connection.
    /// - The [`HttpLimits`](super::HttpLimits) of [`with_limits`](Self::with_limits) bound
    ///   sessions, connections, reads and calls in flight; each refusal names its limit.
    /// - The answers `rmcp` 3.11's service gets wrong are fixed as
    ///   [`McpHttpService`](McpHttpService#answers-fixed-in-front-of-rmcp) lists; a
    ///   `tools/call` whose `arguments` is not an object, or with no `name`, is `-32602`
    ///   naming `/params/arguments` or `/params/name` on every transport (`rmcp` 3.11:
    ///   `-32601`).
    ///
    /// Await the [`ServeHttp`] it returns; add your own `tower` layer around the
    /// [`McpHttpService`] with [`ServeHttp::with_layer`] and a graceful shutdown with
    /// [`ServeHttp::with_graceful_shutdown`] first.
    ///
    /// # Errors
    ///
    /// None in practice: a failed `accept` (say, out of file descriptors) closes the
    /// longest idle connection and accepts again. The `Result` leaves room for a shutdown
    /// that reports.
    pub fn serve_http(self, listener: TcpListener) -> ServeHttp {
        ServeHttp::new(self, listener)
    }
}
