//! Running a [`ToolboxServer`]: stdio, and Streamable HTTP on a TCP listener (`rmcp`'s
//! transports).

use std::sync::Arc;

use rmcp::{
    ServiceExt as _,
    transport::{
        stdio,
        streamable_http_server::{
            StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
        },
    },
};
use tokio::net::TcpListener;

use super::ToolboxServer;
use crate::Error;

/// The path [`ToolboxServer::serve_http`] serves MCP on.
pub const MCP_PATH: &str = "/mcp";

impl ToolboxServer {
    /// Serves one client over stdio (MCP "stdio" transport: newline-delimited JSON-RPC on
    /// stdin and stdout) until it closes stdin or the connection fails. Write logs to stderr:
    /// stdout is the protocol's.
    ///
    /// # Errors
    ///
    /// [`Error::Initialize`] when the client's `initialize` handshake fails;
    /// [`Error::Join`] when the session task panicked.
    pub async fn serve_stdio(self) -> Result<(), Error> {
        let running = self
            .serve(stdio())
            .await
            .map_err(|err| Error::Initialize(Box::new(err)))?;
        running.waiting().await?;
        Ok(())
    }

    /// `rmcp`'s Streamable HTTP service for this server (MCP "Streamable HTTP" transport),
    /// one session per client (each with its own `logging/setLevel` level), for mounting in
    /// your own `axum` router or `tower` stack. `config` is `rmcp`'s: it accepts only
    /// loopback `Host` headers by default (against DNS rebinding), so a public server lists
    /// its host names there.
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

    /// Serves clients over Streamable HTTP at [`MCP_PATH`] (`/mcp`) on `listener`, with
    /// `rmcp`'s default configuration (loopback `Host` headers only), until the listener
    /// fails. Bind the listener yourself (`TcpListener::bind("127.0.0.1:0")` picks a free
    /// port; `listener.local_addr()` tells which).
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when accepting connections fails.
    pub async fn serve_http(self, listener: TcpListener) -> Result<(), Error> {
        let service = self.http_service(StreamableHttpServerConfig::default());
        let router = axum::Router::new().route_service(MCP_PATH, service);
        axum::serve(listener, router).await.map_err(Error::Io)
    }

    /// Serves clients over Streamable HTTP at [`MCP_PATH`] on `listener` with `config`, until
    /// `shutdown` completes, then shuts down gracefully: no new connection is accepted, the
    /// config's `cancellation_token` is cancelled (ending every session and its open event
    /// streams), and the requests in flight are answered before this returns.
    ///
    /// `config` is `rmcp`'s `StreamableHttpServerConfig` (re-exported as
    /// `toolmodel_rmcp::rmcp::transport::streamable_http_server::StreamableHttpServerConfig`).
    /// Its default accepts only loopback `Host` headers (`localhost`, `127.0.0.1`, `::1`),
    /// against DNS rebinding; a server reached by another name answers `403 Forbidden` (`Host
    /// header is not allowed`) until that name is listed with `with_allowed_hosts`.
    ///
    /// # Errors
    ///
    /// [`Error::Io`] when accepting connections fails.
    pub async fn serve_http_with(
        self,
        listener: TcpListener,
        config: StreamableHttpServerConfig,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), Error> {
        let sessions = config.cancellation_token.clone();
        let service = self.http_service(config);
        let router = axum::Router::new().route_service(MCP_PATH, service);
        axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                shutdown.await;
                sessions.cancel();
            })
            .await
            .map_err(Error::Io)
    }
}
