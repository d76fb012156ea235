//! [`McpHttpService`]: the front, a `tower` service that runs each request through the
//! stages of the [`http`](super) module in their order, `rmcp`'s service among them.

use std::{
    convert::Infallible,
    fmt,
    future::Future,
    pin::Pin,
    sync::Arc,
    task::{Context, Poll},
    time::Duration,
};

use bytes::Bytes;
use http::{Method, Request, Response};
use http_body_util::Full;
use rmcp::transport::streamable_http_server::{
    StreamableHttpService, session::local::LocalSessionManager,
};
use tracing::Instrument as _;

#[cfg(feature = "auth")]
use super::gate::Gate;
use super::{
    admission::{self, SESSION_ID},
    body::{self, BoxError},
    callers::CallerTable,
    cors::Cors,
    host_origin::AllowList,
    message::Envelope,
    path,
    refusal::Refusal,
    response::{Body, McpHttpBody},
    sessions::SessionTable,
    shared_sessions,
};
#[cfg(feature = "auth")]
use crate::{auth::Verifier, server::tool_call::ScopesCheckedOn};
use crate::{
    server::{ToolboxServer, compat, rate_limits::Counted},
    sessions::{
        manager::{ReplicaSessions, StoreAdapter},
        relay::Relay,
    },
};

/// A [`ToolboxServer`] over MCP's Streamable HTTP transport, as a [`tower_service::Service`]
/// to mount in a server or router of your own (`hyper`, `axum`, a `tower` stack), with
/// everything [`serve_http`](ToolboxServer::serve_http) enforces but the TCP connections:
/// the `Host` and `Origin` rules, CORS for browser clients on the allowed origins, the
/// [`HttpLimits`](super::HttpLimits) on bodies, sessions and calls in flight, and the answers
/// fixed in front of `rmcp`. Get one from [`ToolboxServer::http_service`]; `serve_http`
/// serves the same service at [`MCP_PATH`](super::MCP_PATH).
///
/// It takes any request body (`hyper`'s `Incoming`, `axum`'s `Body`, `Full<Bytes>`...): an
/// [`http_body::Body`] whose errors convert into a boxed error. It never fails
/// (`Error = Infallible`): every refusal is a response. Cloning is cheap; clones share the
/// sessions.
///
/// With authorization, a `GET` of a Protected Resource Metadata URI (RFC 9728:
/// `/.well-known/oauth-protected-resource` and its path-inserted form) is answered first,
/// after the `Host` and `Origin` checks and with no token; mounted in a router, route those
/// paths to the service too.
///
/// Each request goes through these stages in order; the first five read only the head, so a
/// request they refuse or answer costs no body read and no session (and a refusal, which
/// carries `Connection: close`, no connection):
///
/// 1. the path, when set with [`with_path`](Self::with_path) (404 otherwise);
/// 2. `Host` and `Origin`: one `Host` among the host names the server answers to, every
///    `Origin` an allowed one ([`ToolboxServer::with_allowed_hosts`],
///    [`ToolboxServer::with_allowed_origins`]; 400 or 403);
/// 3. a CORS preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`), which
///    passed stage 2, so from an allowed origin: answered here, 204 with
///    `Access-Control-Allow-Origin` (that origin), `-Allow-Methods` (`GET, POST, DELETE`),
///    `-Allow-Headers` (the headers MCP clients send, and the `Mcp-Param-{Name}` ones asked
///    for) and `-Max-Age`;
/// 4. after [`close_sessions`](Self::close_sessions), a refusal: 404 to a request that
///    names a session, 503 to any other;
/// 5. the gate, which admits or refuses a request on its head alone: open, or with
///    [`ToolboxServer::with_authorization`] the bearer token (401 with `WWW-Authenticate`,
///    503 when the issuer cannot be reached) and the scopes the server and, under MCP
///    2026-07-28, the `Mcp-Name` tool need (403 `insufficient_scope`);
/// 6. the body, whole, within [`max_body_bytes`](super::HttpLimits::max_body_bytes) and
///    [`body_read_timeout`](super::HttpLimits::body_read_timeout) (413, 408 and the
///    connection closed), then the scopes of each tool a `tools/call` in it names (403),
///    against the toolbox served once the body is in, which the call then runs on (a tool
///    whose scopes change meanwhile never runs under its old ones);
/// 7. for a body that holds a JSON-RPC request, the request rules of the server's
///    [`RateLimits`](crate::server::RateLimits) (per user, or one bucket for everyone): 429
///    Too Many Requests with `Retry-After` (the whole seconds until a token) over the limit;
///    then the session: with a shared session store
///    ([`ToolboxServer::with_session_store`](crate::ToolboxServer::with_session_store)), one
///    this replica does not hold is read from the store (404, 503) and a `DELETE` ends it
///    everywhere (202); room for an `initialize`
///    ([`max_sessions`](super::HttpLimits::max_sessions), 503), a place among its session's
///    requests in flight
///    ([`max_calls_per_session`](super::HttpLimits::max_calls_per_session), 429), or for a
///    request that names no session among its caller's
///    ([`max_calls_per_caller`](super::HttpLimits::max_calls_per_caller), 429); with a shared
///    store, the client's answer to another replica's request is sent there (202, 400);
/// 8. `rmcp`'s `StreamableHttpService`, which checks `Host` and `Origin` again with the same
///    lists, and serves MCP;
/// 9. the fixes to what `rmcp` answers; with a shared store, a new session recorded there
///    (503 when it cannot be) and a log level passed to every replica.
///
/// Every response carries `Vary: Origin`; one to a request from an allowed origin, a refusal
/// of any stage included, carries `Access-Control-Allow-Origin` with that origin and
/// `Access-Control-Expose-Headers: Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate`,
/// so a page can read it. None carries `Access-Control-Allow-Credentials`: clients send a
/// bearer token in `Authorization`, not cookies (the [`http` guide](crate::guide::http),
/// "Browser clients (CORS)").
///
/// # Answers fixed in front of `rmcp`
///
/// `rmcp` 3.11's `StreamableHttpService` answers these wrong (upstream behaviour, fixed here
/// until an `rmcp` release changes it):
///
/// | request | `rmcp` 3.11 | here |
/// |---|---|---|
/// | a body that is not JSON, with `Content-Type: application/json` | 415 Unsupported Media Type, a text body | 400 with a JSON-RPC `-32700` Parse error (JSON-RPC 2.0, 5.1) |
/// | JSON that is no JSON-RPC message | 415, a text body | 400 with a JSON-RPC `-32600` Invalid Request, with the message's `id` when it has one |
/// | `DELETE` of a session the server does not hold | 202 Accepted | 404 Not Found (MCP, Streamable HTTP, "Session Management") |
/// | two `Host` headers | served with the first | 400 Bad Request (RFC 9112, 3.2) |
/// | a body slower than [`body_read_timeout`](super::HttpLimits::body_read_timeout) | waits | 408 Request Timeout |
///
/// # Mounting it
///
/// With `hyper` alone (`serve_http` does this, and more: `TCP_NODELAY`, the connection limit,
/// graceful shutdown). In `axum`, `Router::new().route_service(MCP_PATH, service)` mounts it
/// (the router picks the path, so leave [`with_path`](Self::with_path) unset).
///
/// ```no_run
/// use hyper::{server::conn::http1, service::service_fn};
/// use hyper_util::rt::TokioIo;
/// use tower_service::Service as _;
/// use toolmodel::Toolbox;
/// use toolmodel_rmcp::{ToolboxServer, server::MCP_PATH};
///
/// # async fn run(toolbox: Toolbox) -> Result<(), Box<dyn std::error::Error>> {
/// let mcp = ToolboxServer::new(toolbox).http_service().with_path(MCP_PATH);
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
/// loop {
///     let (stream, _) = listener.accept().await?;
///     let mcp = mcp.clone();
///     tokio::spawn(async move {
///         let service = service_fn(move |request| mcp.clone().call(request));
///         let _ = http1::Builder::new()
///             .serve_connection(TokioIo::new(stream), service)
///             .await;
///     });
/// }
/// # }
/// ```
///
/// When your server stops, [`close_sessions`](Self::close_sessions) ends the sessions and
/// their open event streams.
#[derive(Clone)]
pub struct McpHttpService {
    front: Arc<Front>,
    /// The only path served; `None`: any (a router chose it).
    path: Option<Arc<str>>,
}

/// What the stages hold, shared by every clone.
struct Front {
    allow: AllowList,
    #[cfg(feature = "auth")]
    gate: Gate,
    /// The server, for the tools' scopes the gate checks and the rate limits in force.
    server: ToolboxServer,
    max_body_bytes: usize,
    body_read_timeout: Duration,
    sessions: Arc<SessionTable>,
    callers: Arc<CallerTable>,
    /// With a shared session store: this replica's side of it.
    relay: Option<Arc<Relay>>,
    rmcp: StreamableHttpService<ToolboxServer, ReplicaSessions>,
}

impl fmt::Debug for McpHttpService {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("McpHttpService")
            .field("path", &self.path)
            .finish_non_exhaustive()
    }
}

impl McpHttpService {
    /// The front of `server`, with the limits, hosts and origins it was given.
    pub(crate) fn new(server: ToolboxServer) -> Self {
        let settings = server.http.clone();
        let mut manager = LocalSessionManager::default();
        manager.session_config.keep_alive = Some(settings.limits.session_idle_timeout);
        let manager = Arc::new(manager);
        let relay = settings
            .session_store
            .clone()
            .filter(|store| store.is_shared())
            .map(|store| {
                Relay::new(
                    store,
                    Arc::clone(&manager),
                    settings.limits.session_idle_timeout,
                )
            });
        let allow = AllowList::new(&settings.allowed_hosts, &settings.allowed_origins);
        #[cfg(feature = "auth")]
        let gate = settings.authorization.map_or(Gate::Open, |auth| {
            Gate::Bearer(Arc::new(Verifier::new(auth)))
        });
        let session_server = server.clone();
        let mut config = allow.rmcp_config(settings.limits.max_body_bytes);
        if let Some(relay) = &relay {
            config.session_store = Some(Arc::new(StoreAdapter(Arc::clone(relay))));
        }
        let rmcp = StreamableHttpService::new(
            move || Ok(session_server.session("tcp")),
            Arc::new(ReplicaSessions::new(Arc::clone(&manager), relay.clone())),
            config,
        );
        let front = Front {
            allow,
            #[cfg(feature = "auth")]
            gate,
            server,
            max_body_bytes: settings.limits.max_body_bytes,
            body_read_timeout: settings.limits.body_read_timeout,
            sessions: Arc::new(SessionTable::new(manager, &settings.limits)),
            callers: Arc::new(CallerTable::new(&settings.limits)),
            relay,
            rmcp,
        };
        Self {
            front: Arc::new(front),
            path: None,
        }
    }

    /// Serves only requests for `path` (a request for any other is 404 Not Found, before
    /// anything else is read). Without it, every path is served: the router that mounts the
    /// service chose it.
    #[must_use]
    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(Arc::from(path.into()));
        self
    }

    /// Ends every session and its open event streams (`rmcp`'s cancellation token), for a
    /// graceful shutdown: call it once your server stops accepting requests, then wait for
    /// the requests in flight. From then on, a request that names a session gets 404 Not
    /// Found (the session ended: MCP, Streamable HTTP, "Session Management"; a client starts
    /// a new one, on the restarted server or another replica) and any other 503 Service
    /// Unavailable with `Retry-After: 1`; both close their connection.
    pub fn close_sessions(&self) {
        self.front.rmcp.config.cancellation_token.cancel();
    }

    /// Answers `request` (the stages of the [type docs](Self), in order).
    pub(super) async fn respond<B>(&self, request: Request<B>) -> Response<Body>
    where
        B: http_body::Body,
        B::Error: Into<BoxError>,
    {
        // One span per HTTP request, at DEBUG (a log line's context with
        // `RUST_LOG=toolmodel_rmcp::http=debug`; not exported: the MCP spans are, parented by
        // `params._meta`, not by the HTTP request that carried them).
        let span = tracing::debug_span!(
            target: "toolmodel_rmcp::http",
            "http.request",
            http.request.method = %request.method(),
            url.path = request.uri().path(),
            http.response.status_code = tracing::field::Empty,
        );
        let cors = Cors::of(&self.front.allow, request.method(), request.headers());
        let response = self
            .stages(request, &cors)
            .instrument(span.clone())
            .await
            .unwrap_or_else(|refusal| span.in_scope(|| refusal.response()));
        span.record("http.response.status_code", response.status().as_u16());
        cors.finish(response)
    }

    async fn stages<B>(&self, request: Request<B>, cors: &Cors) -> Result<Response<Body>, Refusal>
    where
        B: http_body::Body,
        B::Error: Into<BoxError>,
    {
        let front = &*self.front;
        let (mut head, body) = request.into_parts();
        #[cfg(feature = "auth")]
        if front.gate.serves_metadata(head.uri.path()) {
            front.allow.check(&head)?;
            if cors.answers_preflight() {
                return Ok(Cors::preflight(&head.headers));
            }
            return Ok(front.gate.metadata(&head.method, &front.server.toolbox()));
        }
        #[cfg(feature = "federation")]
        if let Some(callbacks) = &front.server.redirect
            && callbacks.serves(head.uri.path())
        {
            front.allow.check(&head)?;
            if head.method != Method::GET {
                return Ok(super::response::plain(
                    http::StatusCode::METHOD_NOT_ALLOWED,
                    "the OAuth redirect endpoint takes GET only",
                ));
            }
            let page = callbacks.answer(head.uri.query()).await;
            let status =
                http::StatusCode::from_u16(page.status).unwrap_or(http::StatusCode::BAD_REQUEST);
            return Ok(super::response::page(status, page.html));
        }
        path::check(self.path.as_deref(), &head.uri)?;
        front.allow.check(&head)?;
        if cors.answers_preflight() {
            return Ok(Cors::preflight(&head.headers));
        }
        if front.rmcp.config.cancellation_token.is_cancelled() {
            let session = head.headers.contains_key(SESSION_ID);
            return Err(Refusal::ShuttingDown { session });
        }
        #[cfg(feature = "auth")]
        front
            .gate
            .admit(&mut head, &front.server.toolbox(), &|caller, name| {
                front.server.sees(caller, name)
            })
            .await?;
        let body = if head.method == Method::POST {
            body::read(body, front.max_body_bytes, front.body_read_timeout).await?
        } else {
            Bytes::new()
        };
        // The body's messages are read once, here, and carried with the request.
        let envelope = (head.method == Method::POST).then(|| Envelope::read(&body));
        #[cfg(feature = "auth")]
        if front.gate.checks_scopes() {
            // The scopes of the body's calls are checked against the toolbox served once the
            // body is in (it may have changed while the body arrived), and a call runs on
            // that same toolbox: the request carries it to the handler.
            let toolbox = front.server.toolbox();
            if let Some(envelope) = &envelope {
                front
                    .gate
                    .admit_body(&head, envelope, &toolbox, &|caller, name| {
                        front.server.sees(caller, name)
                    })?;
            }
            head.extensions.insert(ScopesCheckedOn(toolbox));
        }
        // The limits in force when the request came (a reconfiguration may replace them).
        let limits = front.server.rate_limits.get();
        if let Some(limits) = Option::as_ref(&limits).filter(|limits| limits.has_request_rules())
            && envelope.as_ref().is_some_and(Envelope::has_request)
        {
            let caller = head.extensions.get::<Arc<toolmodel::Caller>>();
            limits
                .check(caller.map(Arc::as_ref), Counted::Request)
                .await
                .map_err(Refusal::RateLimited)?;
        }
        let initialize = envelope.as_ref().is_some_and(Envelope::is_initialize);
        let session = admission::session_id(&head.headers);
        let shared = match (&front.relay, &session) {
            (Some(relay), Some(id)) => Some((relay, id)),
            _ => None,
        };
        if let Some((relay, id)) = shared
            && let Some(deleted) = shared_sessions::admit(relay, &front.sessions, id, &head).await?
        {
            return Ok(deleted);
        }
        let ticket = admission::admit(&front.sessions, &front.callers, &head, initialize)
            .await
            .inspect_err(|_| {
                if let Some((relay, id)) = shared {
                    relay.restored(id);
                }
            })?;
        let mut asked_level = None;
        if let Some((relay, id)) = shared {
            if let Some(answered) =
                shared_sessions::across(relay, id, envelope.as_ref(), &body).await
            {
                relay.restored(id);
                return answered;
            }
            asked_level = shared_sessions::asked_level(envelope.as_ref(), &body);
        }
        let json_body = head.method == Method::POST && compat::json_errors::is_json(&head.headers);
        if let Some(envelope) = &envelope {
            head.extensions.insert(envelope.clone());
        }
        let response = front
            .rmcp
            .handle(Request::from_parts(head, Full::new(body)))
            .await;
        let response = match &envelope {
            Some(envelope) => compat::json_errors::json_body(response, json_body, envelope),
            None => response,
        };
        if let Some(relay) = &front.relay {
            shared_sessions::after(relay, &ticket, session.as_ref(), &response, asked_level)
                .await?;
        }
        Ok(ticket.after(&front.sessions, response))
    }
}

/// The future of [`McpHttpService`]'s responses.
type ResponseFuture =
    Pin<Box<dyn Future<Output = Result<Response<McpHttpBody>, Infallible>> + Send>>;

impl<B> tower_service::Service<Request<B>> for McpHttpService
where
    B: http_body::Body + Send + 'static,
    B::Data: Send,
    B::Error: Into<BoxError>,
{
    type Response = Response<McpHttpBody>;
    type Error = Infallible;
    type Future = ResponseFuture;

    /// Always ready: the limits answer with refusals instead of back-pressure.
    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: Request<B>) -> ResponseFuture {
        let service = self.clone();
        Box::pin(async move { Ok(service.respond(request).await.map(McpHttpBody::new)) })
    }
}

#[cfg(test)]
mod tests {
    use http::{StatusCode, header};
    use http_body_util::BodyExt as _;
    use tower_service::Service as _;

    use super::{super::body::tests::Missing, *};

    fn service() -> McpHttpService {
        let toolbox = toolmodel::Toolbox::builder().build().unwrap();
        ToolboxServer::new(toolbox).http_service()
    }

    const INITIALIZE: &str = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}"#;

    fn initialize(origin: Option<&str>) -> http::request::Builder {
        let mut request = Request::post("/mcp")
            .header(header::HOST, "localhost")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream");
        if let Some(origin) = origin {
            request = request.header(header::ORIGIN, origin);
        }
        request
    }

    /// A body of any type is served: here `String`, through `tower`'s `Service`.
    #[tokio::test]
    async fn an_initialize_of_any_body_type_makes_a_session() {
        let mut service = service();
        let request = initialize(None).body(INITIALIZE.to_owned()).unwrap();
        let response = service.call(request).await.unwrap();
        assert_eq!(response.status(), StatusCode::OK);
        assert!(response.headers().contains_key("mcp-session-id"));
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        assert!(String::from_utf8_lossy(&bytes).contains("serverInfo"));
    }

    /// The `Origin` stage answers before the body is read: a body that never arrives does
    /// not hold the refusal up.
    #[tokio::test]
    async fn a_foreign_origin_is_refused_before_the_body_is_read() {
        let request = initialize(Some("http://evil.example"))
            .body(Missing::Stalled)
            .unwrap();
        let response = tokio::time::timeout(Duration::from_secs(5), service().respond(request))
            .await
            .expect("answered without the body");
        assert_eq!(response.status(), StatusCode::FORBIDDEN);
        assert_eq!(response.headers()[header::CONNECTION], "close");
    }

    /// A preflight from an allowed origin is answered from its head (a body that never
    /// arrives does not hold it up), and every response to that origin names it.
    #[tokio::test]
    async fn a_preflight_is_answered_before_the_body_is_read() {
        let request = Request::options("/mcp")
            .header(header::HOST, "localhost")
            .header(header::ORIGIN, "http://localhost:6274")
            .header(header::ACCESS_CONTROL_REQUEST_METHOD, "POST")
            .body(Missing::Stalled)
            .unwrap();
        let response = tokio::time::timeout(Duration::from_secs(5), service().respond(request))
            .await
            .expect("answered without the body");
        assert_eq!(response.status(), StatusCode::NO_CONTENT);
        assert_eq!(
            response.headers()[header::ACCESS_CONTROL_ALLOW_ORIGIN],
            "http://localhost:6274"
        );
        let request = initialize(Some("http://localhost:6274"))
            .body(INITIALIZE.to_owned())
            .unwrap();
        let response = service().respond(request).await;
        assert_eq!(response.status(), StatusCode::OK);
        assert_eq!(
            response.headers()[header::ACCESS_CONTROL_ALLOW_ORIGIN],
            "http://localhost:6274"
        );
    }

    /// The path is checked first, when one is set, and not otherwise.
    #[tokio::test]
    async fn the_path_comes_first_when_set() {
        let request = || {
            Request::post("/elsewhere")
                .header(header::HOST, "evil.example")
                .body(Missing::Stalled)
                .unwrap()
        };
        let served = service().with_path("/mcp");
        assert_eq!(
            served.respond(request()).await.status(),
            StatusCode::NOT_FOUND
        );
        assert_eq!(
            service().respond(request()).await.status(),
            StatusCode::FORBIDDEN
        );
    }

    /// Once the sessions are closed, a request naming one learns that it ended (404, so a
    /// client starts a new session) and any other that the server is going away (503); both
    /// close the connection, and neither reaches `rmcp`, whose sessions are gone (it answered
    /// 500).
    #[tokio::test]
    async fn after_close_sessions_a_session_gets_404_and_a_new_client_503() {
        let service = service();
        let response = service
            .respond(initialize(None).body(INITIALIZE.to_owned()).unwrap())
            .await;
        let session = response.headers()["mcp-session-id"].clone();
        service.close_sessions();
        let request = Request::post("/mcp")
            .header(header::HOST, "localhost")
            .header(header::CONTENT_TYPE, "application/json")
            .header(header::ACCEPT, "application/json, text/event-stream")
            .header("mcp-session-id", session)
            .body(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#.to_owned())
            .unwrap();
        let response = service.respond(request).await;
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        assert_eq!(response.headers()[header::CONNECTION], "close");
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        assert!(String::from_utf8_lossy(&bytes).contains("shutting down"));
        let response = service
            .respond(initialize(None).body(INITIALIZE.to_owned()).unwrap())
            .await;
        assert_eq!(response.status(), StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(response.headers()[header::RETRY_AFTER], "1");
        assert_eq!(response.headers()[header::CONNECTION], "close");
    }

    /// A JSON body `rmcp` cannot read gets the JSON-RPC error, through the whole front.
    #[tokio::test]
    async fn the_fixes_apply_after_rmcp() {
        let request = initialize(None).body(Full::new(Bytes::from("{"))).unwrap();
        let response = service().respond(request).await;
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        assert!(String::from_utf8_lossy(&bytes).contains("-32700"));
    }
}
