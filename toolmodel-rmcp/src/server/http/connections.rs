//! The TCP connections of [`ToolboxServer::serve_http`](crate::ToolboxServer::serve_http):
//! accepted with `TCP_NODELAY`, served with `hyper` (HTTP/1.1, keep-alive,
//! [`HttpLimits::header_read_timeout`]), each request answered by the
//! [`McpHttpService`](super::McpHttpService), and at most [`HttpLimits::max_connections`] at once.
//!
//! - **`TCP_NODELAY`.** A response leaves in two writes (head, then body); with Nagle's
//!   algorithm on, the second waits for the client's delayed ACK, about 40 ms on Linux, and
//!   every call of a keep-alive client took 44 ms. Every accepted socket has it off.
//! - **The connection limit.** A new connection beyond the limit closes the connection that
//!   has been idle (no request in flight) the longest, so that idle or slow clients (a
//!   slowloris attack, a pool of keep-alive sockets) never lock a fresh one out; when every
//!   connection has a request in flight, the new one gets `503 Service Unavailable` with
//!   `Retry-After` and is closed. When accepting fails (the process is out of file
//!   descriptors), the longest idle connection is closed too. A connection whose request
//!   was refused before its body was read is closed once the response is written (the
//!   response says `Connection: close`), so refused clients free their slots at once.
//! - **Shutdown.** The listener is closed; each idle connection is closed at once, each busy
//!   one once its requests are answered (at most [`DRAIN_LIMIT`]); a request that arrives
//!   on a kept-alive connection meanwhile is refused by the front (404 for a session, which
//!   ended; 503 otherwise) with `Connection: close`.

use std::{
    collections::HashMap,
    convert::Infallible,
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use hyper::{server::conn::http1, service::service_fn};

use crate::telemetry::server_operation::ClientAddress;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::{
    io::AsyncWriteExt as _,
    net::{TcpListener, TcpStream},
    sync::Notify,
};

use bytes::Bytes;
use http::{Request, Response, StatusCode};
use http_body_util::{BodyExt as _, combinators::UnsyncBoxBody};
use hyper::body::Incoming;
use tower_service::Service;

use super::{
    body::BoxError,
    limits::HttpLimits,
    response::{Held, hold, plain},
};
use crate::lock::lock;

/// One connection's state, seen by the others.
#[derive(Debug)]
struct Connection {
    in_flight: AtomicUsize,
    idle_since: Mutex<Instant>,
    /// Being closed (to make room, or by a shutdown): no longer a candidate.
    closing: AtomicBool,
    close: Notify,
}

impl Connection {
    fn idle_since(&self) -> Instant {
        *lock(&self.idle_since)
    }

    /// Closes the connection (dropping it closes the socket), once.
    fn shut(&self) {
        if !self.closing.swap(true, Ordering::AcqRel) {
            self.close.notify_one();
        }
    }
}

/// A request in flight on a connection; dropping it (with the response's body) ends it.
struct InFlight(Arc<Connection>);

impl InFlight {
    fn start(connection: &Arc<Connection>) -> Self {
        connection.in_flight.fetch_add(1, Ordering::AcqRel);
        Self(Arc::clone(connection))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.0.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 {
            *lock(&self.0.idle_since) = Instant::now();
        }
    }
}

/// Every open connection, by a number of its own.
#[derive(Default)]
struct Connections {
    open: Mutex<HashMap<u64, Arc<Connection>>>,
}

impl Connections {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Connection>>> {
        lock(&self.open)
    }

    /// Closes the connection idle the longest; `false` when every one is busy.
    fn close_longest_idle(&self) -> bool {
        let open = self.lock();
        let idle = open
            .iter()
            .filter(|(_, connection)| {
                connection.in_flight.load(Ordering::Acquire) == 0
                    && !connection.closing.load(Ordering::Acquire)
            })
            .min_by_key(|(_, connection)| connection.idle_since());
        match idle {
            Some((_, connection)) => {
                connection.shut();
                true
            }
            None => false,
        }
    }
}

/// How long a shutdown waits for the requests in flight before it closes their connections.
const DRAIN_LIMIT: Duration = Duration::from_secs(30);

/// Accepts and serves connections on `listener` until `shutdown` completes; then stops
/// accepting (the listener is closed), waits for the requests in flight (at most
/// [`DRAIN_LIMIT`]) and closes every connection.
///
/// `service` is the [`McpHttpService`](super::McpHttpService), or the service a user's
/// `tower` layer made of it ([`ServeHttp::with_layer`](super::ServeHttp::with_layer)); an
/// error it returns is answered with 500 Internal Server Error.
pub(crate) async fn serve<S, B>(
    listener: TcpListener,
    service: S,
    limits: &HttpLimits,
    shutdown: impl Future<Output = ()>,
) where
    S: Service<Request<Incoming>, Response = Response<B>> + Clone + Send + 'static,
    S::Error: Into<BoxError>,
    S::Future: Send + 'static,
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
{
    let connections = Arc::new(Connections::default());
    // Every connection's task (and every refusal's), owned here: none outlives `serve`.
    let mut tasks = tokio::task::JoinSet::new();
    let mut next_id: u64 = 0;
    let mut shutdown = std::pin::pin!(shutdown);
    loop {
        // Finished connections' results, dropped (a panic was reported by the runtime).
        while tasks.try_join_next().is_some() {}
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => break,
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => accepted,
            Err(_) => {
                // Out of file descriptors (EMFILE, ENFILE) or a connection reset before it
                // was accepted: make room and try again shortly.
                connections.close_longest_idle();
                tokio::time::sleep(Duration::from_millis(5)).await;
                continue;
            }
        };
        // Without it, every response waits for the client's delayed ACK (see the module docs).
        let _ = stream.set_nodelay(true);
        let open = connections
            .lock()
            .values()
            .filter(|connection| !connection.closing.load(Ordering::Acquire))
            .count();
        if open >= limits.max_connections && !connections.close_longest_idle() {
            tasks.spawn(refuse(stream, limits.max_connections));
            continue;
        }
        next_id = next_id.wrapping_add(1);
        let id = next_id;
        let connection = Arc::new(Connection {
            in_flight: AtomicUsize::new(0),
            idle_since: Mutex::new(Instant::now()),
            closing: AtomicBool::new(false),
            close: Notify::new(),
        });
        connections.lock().insert(id, Arc::clone(&connection));
        let connections = Arc::clone(&connections);
        let service = service.clone();
        let header_read_timeout = limits.header_read_timeout;
        tasks.spawn(async move {
            let hyper_service = {
                let connection = Arc::clone(&connection);
                service_fn(move |mut request: http::Request<hyper::body::Incoming>| {
                    // The peer's address, for the spans' `client.address` and `client.port`.
                    request.extensions_mut().insert(ClientAddress(peer));
                    let in_flight = InFlight::start(&connection);
                    let mut service = service.clone();
                    async move {
                        let ready = std::future::poll_fn(|cx| service.poll_ready(cx)).await;
                        let response = match ready.map_err(Into::into) {
                            Ok(()) => service.call(request).await.map_err(Into::into),
                            Err(err) => Err(err),
                        };
                        Ok::<_, Infallible>(held(response, in_flight))
                    }
                })
            };
            let served = http1::Builder::new()
                .timer(TokioTimer::new())
                .header_read_timeout(header_read_timeout)
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), hyper_service);
            tokio::select! {
                served = served => {
                    // A header that did not arrive within `header_read_timeout` (slowloris):
                    // hyper closed the connection; counted as a refusal.
                    if served.is_err_and(|err| err.is_timeout()) {
                        crate::telemetry::metrics::refused("header_timeout");
                    }
                }
                // Closed to make room: dropping the connection closes the socket.
                () = connection.close.notified() => {
                    crate::telemetry::metrics::refused("connections");
                }
            }
            connections.lock().remove(&id);
        });
    }
    drop(listener);
    drain(&connections, DRAIN_LIMIT).await;
    // What the drain left (a connection that would not close in time) ends here.
    tasks.shutdown().await;
}

/// `response` with `guard` kept until its body has been sent (or dropped), its body boxed
/// once (a layer's body need not be `Unpin`) so that it and the 500 Internal Server Error a
/// service error becomes have one type.
fn held<B, E, G>(
    response: Result<Response<B>, E>,
    guard: G,
) -> Response<Held<UnsyncBoxBody<Bytes, BoxError>, G>>
where
    B: http_body::Body<Data = Bytes> + Send + 'static,
    B::Error: Into<BoxError>,
    E: Into<BoxError>,
    G: Send + Unpin + 'static,
{
    let response = match response {
        Ok(response) => response.map(|body| body.map_err(Into::into).boxed_unsync()),
        Err(err) => {
            let message = format!("Internal Server Error: {}", err.into());
            plain(StatusCode::INTERNAL_SERVER_ERROR, message)
                .map(|body| body.map_err(|never| match never {}).boxed_unsync())
        }
    };
    hold(response, guard)
}

/// After a shutdown: closes every idle connection at once, and each busy one as soon as its
/// requests are answered, for at most `limit`; then closes them all, and returns once their
/// sockets are closed (at most [`CLOSE_LIMIT`] later). A request that arrives meanwhile on a
/// kept-alive connection is refused by the front, which closes it.
async fn drain(connections: &Connections, limit: Duration) {
    let deadline = Instant::now() + limit;
    loop {
        let mut busy = false;
        for connection in connections.lock().values() {
            if connection.in_flight.load(Ordering::Acquire) > 0 {
                busy = true;
            } else {
                connection.shut();
            }
        }
        if !busy || Instant::now() >= deadline {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    for connection in connections.lock().values() {
        connection.shut();
    }
    // Each connection's task drops its socket, then leaves the table.
    let closed_by = Instant::now() + CLOSE_LIMIT;
    while !connections.lock().is_empty() && Instant::now() < closed_by {
        tokio::time::sleep(Duration::from_millis(1)).await;
    }
}

/// How long a shutdown waits for the connections it closed to drop their sockets.
const CLOSE_LIMIT: Duration = Duration::from_secs(1);

/// Answers a connection beyond the limit, when every other one is busy, and closes it.
async fn refuse(mut stream: TcpStream, max_connections: usize) {
    crate::telemetry::metrics::refused("connections");
    static REFUSED: crate::server::log_throttle::LogThrottle =
        crate::server::log_throttle::LogThrottle::new();
    tracing::debug!(
        target: "toolmodel_rmcp::limits",
        limit = "max_connections",
        value = max_connections,
        "limit reached: connection refused"
    );
    if let Some(suppressed) = REFUSED.admit() {
        tracing::warn!(
            target: "toolmodel_rmcp::limits",
            limit = "max_connections",
            value = max_connections,
            suppressed,
            "limit reached: connection refused"
        );
    }
    let message = format!(
        "Service Unavailable: all {max_connections} connections (max_connections) have a request in flight"
    );
    let response = format!(
        "HTTP/1.1 503 Service Unavailable\r\nRetry-After: 1\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{message}",
        message.len()
    );
    let write = async {
        stream.write_all(response.as_bytes()).await?;
        stream.shutdown().await
    };
    let _ = tokio::time::timeout(Duration::from_secs(1), write).await;
}
