//! [`ServeAdmin`]: what [`Admin::serve`](super::Admin::serve) returns, a future to await,
//! with a graceful shutdown to add first; and its connections: HTTP/1.1 on hyper, a header
//! read timeout, hyper's smallest header buffer, request bodies never read, a connection
//! limit.

use std::{
    convert::Infallible,
    fmt,
    future::{Future, IntoFuture},
    pin::Pin,
    sync::Arc,
    time::Duration,
};

use hyper::{server::conn::http1, service::service_fn};
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::{net::TcpListener, sync::Semaphore};

use super::{Admin, routes::respond};
use crate::error::Error;

/// The most connections an admin listener serves at once; one beyond is closed at once.
pub const MAX_CONNECTIONS: usize = 64;

/// How long a connection of the admin listener may take to send a request's header (and
/// sit idle between two requests).
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(5);

/// The largest request header read: hyper's smallest read buffer.
const MAX_HEADER_BYTES: usize = 8 * 1024;

/// How long a shutdown waits for the requests in flight before it closes their connections.
const DRAIN_LIMIT: Duration = Duration::from_secs(5);

/// Serving an [`Admin`] on a TCP listener: from [`Admin::serve`]. Await it to serve
/// (forever, or until the shutdown signal of
/// [`with_graceful_shutdown`](Self::with_graceful_shutdown)).
#[must_use = "ServeAdmin does nothing until it is awaited"]
pub struct ServeAdmin<F = std::future::Pending<()>> {
    admin: Admin,
    listener: TcpListener,
    shutdown: F,
}

impl ServeAdmin {
    pub(crate) fn new(admin: Admin, listener: TcpListener) -> Self {
        Self {
            admin,
            listener,
            shutdown: std::future::pending(),
        }
    }
}

impl<F> ServeAdmin<F> {
    /// Serves until `signal` completes, then stops accepting (the listener is closed), lets
    /// the requests in flight finish (for at most 5 s) and closes every connection before
    /// the future returns.
    pub fn with_graceful_shutdown<F2>(self, signal: F2) -> ServeAdmin<F2>
    where
        F2: Future<Output = ()> + Send + 'static,
    {
        ServeAdmin {
            admin: self.admin,
            listener: self.listener,
            shutdown: signal,
        }
    }
}

impl<F> fmt::Debug for ServeAdmin<F> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ServeAdmin")
            .field("admin", &self.admin)
            .field("listener", &self.listener)
            .finish_non_exhaustive()
    }
}

impl<F> IntoFuture for ServeAdmin<F>
where
    F: Future<Output = ()> + Send + 'static,
{
    type Output = Result<(), Error>;
    type IntoFuture = Pin<Box<dyn Future<Output = Result<(), Error>> + Send>>;

    /// # Errors
    ///
    /// None in practice: a failed `accept` (out of file descriptors, a connection reset
    /// before it was accepted) is retried shortly. The `Result` leaves room for a shutdown
    /// that reports.
    fn into_future(self) -> Self::IntoFuture {
        let Self {
            admin,
            listener,
            shutdown,
        } = self;
        Box::pin(async move {
            serve(Arc::new(admin), listener, shutdown).await;
            Ok(())
        })
    }
}

/// Accepts and serves connections until `shutdown` completes.
async fn serve(admin: Arc<Admin>, listener: TcpListener, shutdown: impl Future<Output = ()>) {
    let slots = Arc::new(Semaphore::new(MAX_CONNECTIONS));
    let (stop, stopping) = tokio::sync::watch::channel(false);
    let mut tasks = tokio::task::JoinSet::new();
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        while tasks.try_join_next().is_some() {}
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let Ok((stream, _peer)) = accepted else {
            tokio::time::sleep(Duration::from_millis(5)).await;
            continue;
        };
        let Ok(slot) = Arc::clone(&slots).try_acquire_owned() else {
            tracing::warn!(
                target: "toolmodel_rmcp::admin",
                limit = MAX_CONNECTIONS,
                "admin connection refused: the connection limit is reached"
            );
            drop(stream);
            continue;
        };
        let _ = stream.set_nodelay(true);
        let admin = Arc::clone(&admin);
        let mut stopping = stopping.clone();
        tasks.spawn(async move {
            let service = service_fn(move |request: http::Request<hyper::body::Incoming>| {
                let admin = Arc::clone(&admin);
                async move {
                    // The body is never read: the routes take none.
                    let (parts, _body) = request.into_parts();
                    let response = respond(&admin, &parts.method, parts.uri.path()).await;
                    Ok::<_, Infallible>(response)
                }
            });
            let connection = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(HEADER_READ_TIMEOUT)
                .max_buf_size(MAX_HEADER_BYTES)
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service);
            let mut connection = std::pin::pin!(connection);
            tokio::select! {
                _ = connection.as_mut() => {}
                _ = async { let _ = stopping.wait_for(|stopping| *stopping).await; } => {
                    // Idle: closed at once; busy: once its response is written.
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
            drop(slot);
        });
    }
    drop(listener);
    let _ = stop.send(true);
    let drained = async { while tasks.join_next().await.is_some() {} };
    if tokio::time::timeout(DRAIN_LIMIT, drained).await.is_err() {
        tasks.shutdown().await;
    }
}
