//! [`ServeHttp`]: what [`ToolboxServer::serve_http`](crate::ToolboxServer::serve_http)
//! returns, a future to await, with a user's `tower` layer and a graceful shutdown to add
//! first (as `axum::serve` does).

use std::{
    fmt,
    future::{Future, IntoFuture},
    pin::Pin,
};

use bytes::Bytes;
use http::{Request, Response};
use hyper::body::Incoming;
use tokio::net::TcpListener;
use tower_layer::{Identity, Layer, Stack};
use tower_service::Service;

use super::{MCP_PATH, McpHttpService, body::BoxError, connections};
use crate::{error::Error, server::ToolboxServer};

/// Serving a [`ToolboxServer`] over Streamable HTTP on a TCP listener: from
/// [`ToolboxServer::serve_http`]. Await it to serve (forever, or until the shutdown signal);
/// before that, [`with_layer`](Self::with_layer) wraps the [`McpHttpService`] in a `tower`
/// layer of yours and [`with_graceful_shutdown`](Self::with_graceful_shutdown) sets when to
/// stop.
///
/// ```no_run
/// # async fn run(server: toolmodel_rmcp::ToolboxServer) -> Result<(), toolmodel_rmcp::Error> {
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080")
///     .await
///     .map_err(toolmodel_rmcp::Error::Io)?;
/// let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
/// # drop(stop);
/// server
///     .serve_http(listener)
///     .with_graceful_shutdown(async move {
///         let _ = stopped.await; // e.g. sent from a Ctrl-C handler
///     })
///     .await?;
/// # Ok(())
/// # }
/// ```
#[must_use = "ServeHttp does nothing until it is awaited"]
pub struct ServeHttp<L = Identity, F = std::future::Pending<()>> {
    server: ToolboxServer,
    listener: TcpListener,
    layer: L,
    shutdown: F,
}

impl ServeHttp {
    pub(crate) fn new(server: ToolboxServer, listener: TcpListener) -> Self {
        Self {
            server,
            listener,
            layer: Identity::new(),
            shutdown: std::future::pending(),
        }
    }
}

impl<L, F> ServeHttp<L, F> {
    /// Wraps the [`McpHttpService`] in `layer` (a `tower` layer: tower-http's `TraceLayer`,
    /// `SetResponseHeaderLayer`, your own middleware). A second call wraps the service the first
    /// one made (as axum's `Router::layer` does): the layer given last sees a request first.
    ///
    /// Every request reaches the layer, refusals included (the connection limit's 503 is
    /// written before any request is read, so it does not): what it sees is what the client
    /// sent, and the service it wraps answers with the [`McpHttpService`]'s responses. An
    /// error the layered service returns is answered with 500 Internal Server Error.
    pub fn with_layer<L2>(self, layer: L2) -> ServeHttp<Stack<L, L2>, F> {
        ServeHttp {
            server: self.server,
            listener: self.listener,
            layer: Stack::new(self.layer, layer),
            shutdown: self.shutdown,
        }
    }

    /// Serves until `signal` completes (a signal, a channel), then shuts down gracefully: no
    /// new connection is accepted (the listener is closed), every session and its open event
    /// streams end, idle connections are closed at once, the requests in flight are answered
    /// (for at most 30 s) and every connection is closed before the future returns. A request
    /// that arrives meanwhile on a kept-alive connection is refused and its connection closed:
    /// 404 Not Found when it names a session (which has ended; MCP, Streamable HTTP, "Session
    /// Management"), 503 Service Unavailable otherwise.
    pub fn with_graceful_shutdown<F2>(self, signal: F2) -> ServeHttp<L, F2>
    where
        F2: Future<Output = ()> + Send + 'static,
    {
        ServeHttp {
            server: self.server,
            listener: self.listener,
            layer: self.layer,
            shutdown: signal,
        }
    }
}

impl<L, F> fmt::Debug for ServeHttp<L, F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServeHttp")
            .field("listener", &self.listener)
            .finish_non_exhaustive()
    }
}

impl<L, F, B> IntoFuture for ServeHttp<L, F>
where
    L: Layer<McpHttpService>,
    L::Service: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    <L::Service as Service<Request<Incoming>>>::Error: Into<BoxError>,
    <L::Service as Service<Request<Incoming>>>::Future: Send + 'static,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
    F: Future<Output = ()> + Send + 'static,
{
    type Output = Result<(), Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<(), Error>> + Send>>;

    /// # Errors
    ///
    /// None in practice: a failed `accept` (say, out of file descriptors) closes the longest
    /// idle connection and accepts again. The `Result` leaves room for a shutdown that
    /// reports.
    fn into_future(self) -> Self::IntoFuture {
        let Self {
            server,
            listener,
            layer,
            shutdown,
        } = self;
        let limits = server.http.limits.clone();
        let service = server.http_service().with_path(MCP_PATH);
        let sessions = service.clone();
        let service = layer.layer(service);
        Box::pin(async move {
            let shutdown = async move {
                shutdown.await;
                sessions.close_sessions();
            };
            connections::serve(listener, service, &limits, shutdown).await;
            Ok(())
        })
    }
}
