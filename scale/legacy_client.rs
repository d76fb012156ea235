//! The client side of `scale/run.sh`'s legacy phase (issue 43): MCP 2025-11-25 sessions
//! (`initialize` → `Mcp-Session-Id`, a GET stream for notifications, `DELETE`) through a
//! round-robin load balancer (nginx, no stickiness, no routing by header) in front of three
//! replicas of `examples/conformance_server` sharing one Redis session store
//! (`MCP_SESSION_STORE`), with `rmcp`'s client. Its last line is
//! `legacy: replicas=3 sessions=<n> calls=<c> cross_replica_answers=<a> lost=<l> reinitialized=<r>`.
//!
//! `legacy_client BALANCER_URL KILL_ADDRESS KILL_PID` runs the check; `KILL_ADDRESS` is the
//! `host:port` of the replica to kill mid-run (as nginx names it in `X-Upstream`), `KILL_PID`
//! its process.
//!
//! `legacy_client gateway BALANCER_URL` runs the same client against the gateway phase's two
//! `toolmodel gateway` replicas (one Redis session store), each in front of its own
//! `conformance_server` (stdio): the gateway passes the upstream's `elicitation/create` and
//! `sampling/createMessage` on to the client, and the client's answer, POSTed to either gateway,
//! back to the upstream session of the gateway that asked. A gateway in front of one server
//! keeps that server's tool names (no `conformance__` prefix). Its last line is
//! `legacy-gateway: replicas=2 sessions=<n> calls=<c> cross_replica_answers=<a> lost=<l> reinitialized=<r>`
//! and every line on stderr starts with `legacy-gateway:`. What differs from the run below
//! ([`Mode::gateway`]): no step 1 (nothing here changes a tool list) and no step 3 (nothing is
//! killed, so nothing should be re-issued: a call re-issued still counts, only its loss would
//! fail the run); step 2 is 4 sessions of 8 rounds of `test_simple_text`, `test_elicitation` and
//! `test_sampling`; a cross-replica answer is one POSTed through the other gateway than the
//! call; step 4 wants the 404 from both gateways; the run gives up after 60 s.
//!
//! **Which replica served what**: the balancer adds `X-Upstream: $upstream_addr` to every
//! response. [`Recorder`] is the HTTP client under `rmcp`'s transport (its
//! `StreamableHttpClient` trait, on `reqwest`): it sends each POST, GET and DELETE as `rmcp`'s own
//! `reqwest` client does and notes, per session, the upstream that served the last `tools/call`
//! POST, the last POST answering a server request (an `elicitation/create` or
//! `sampling/createMessage` the server sent on that call's event stream), the last GET stream,
//! every `initialize` and every 404. A session runs one call at a time, so the answer noted
//! during a call is that call's (the call's result may come before the answer's 202: the client
//! waits for the 202, at most 2 s). `sessions` counts every session opened: the watcher, the
//! sessions of step 2 and the probe session.
//!
//! The run, every request through the balancer:
//! 1. A watcher session opens its GET stream, then calls `test_trigger_tool_change` until that
//!    POST is served by another replica than the GET stream (at most 5 times; a trigger on the
//!    GET stream's own replica is let pass, its notification drained): the GET stream must then
//!    receive `notifications/tools/list_changed` within 5 s (relayed between replicas).
//! 2. 6 sessions at once ([`Mode::replicas`]), each: `initialize`, `notifications/initialized`,
//!    its GET stream (`rmcp` opens it after the handshake), then 8 rounds of `test_simple_text`
//!    (its text checked), `scale_replica` (200 ms in flight; it must name a replica),
//!    `test_elicitation` (answered with a form matching the requested schema; the result must
//!    echo it) and `test_sampling` (answered with a model's text; the result must quote it).
//! 3. Once a third of those calls ended, a probe session starts [`PROBES`] `scale_replica`
//!    calls at once (1.5 s in flight, spread over the replicas by round-robin) and 300 ms later
//!    the client kills `KILL_PID` (SIGKILL). The calls in flight on it end (nginx answers 502 or
//!    ends the event stream) and are re-issued; GET streams it held end and `rmcp` opens them
//!    again (the balancer picks a live replica). Every session goes on.
//! 4. Each session ends with `DELETE` (`rmcp` sends it when the service is cancelled); then
//!    `ping`s with each deleted session id (round-robin) must get 404, until every live replica
//!    (by `X-Upstream`) answered one (at most 3 pings per replica).
//!
//! `calls` counts the calls of steps 2 and 3 that ended with their expected result;
//! `cross_replica_answers` the elicitation and sampling answers whose POST was served by
//! another upstream than the POST of the call that asked; `lost` the calls that ended without
//! their expected result; `reinitialized` the `initialize` requests a session sent again after
//! a 404 (`rmcp` re-initializes a session the server reports gone: every one is a session the
//! replicas lost).
//!
//! **What is re-issued** (the rules of `scale/scale_client.rs`): a call that got no JSON-RPC
//! response (the connection failed, the balancer answered 502, 503 or 504, the event stream
//! ended before the response, which `rmcp` reports as an internal error marked
//! `io.modelcontextprotocol/transportClosed`, or no answer within 8 s) is sent again with a new
//! JSON-RPC id when running it twice cannot hurt: the tool says so (`readOnlyHint` or
//! `idempotentHint` in `tools/list`: `scale_replica`), or it is one of the fixtures
//! `test_simple_text`, `test_elicitation` and `test_sampling`, which change nothing on the
//! server (each returns a text built from its arguments and the client's answers; asking the
//! client again is the only effect of a second run). `test_trigger_tool_change` is never
//! re-issued (it changes the tool list). A JSON-RPC error is an answer and is never re-issued.
//! Each call is tried at most 5 times.
//!
//! Exit status: 0 when `lost` and `reinitialized` are 0, `cross_replica_answers` is above 0, the
//! watcher got its `tools/list_changed` from another replica, the replica was killed with at
//! least one call re-issued, no request was served by it after the kill, and every deleted
//! session got 404 from every live replica; 1 otherwise (the reasons on stderr); 2 for a bad
//! command line. The whole run gives up after 100 s (stderr says why, and no `legacy:` line).
//! The gateway mode exits the same way, without the watcher's and the kill's conditions, and
//! gives up after 60 s (no `legacy-gateway:` line then).

// Sampling is deprecated by SEP-2577 (MCP 2026-07-28); the 2025-11-25 sessions this client
// opens still use it.
#![allow(deprecated)]

use std::{
    borrow::Cow,
    collections::HashMap,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use futures::StreamExt;
use reqwest::{
    StatusCode,
    header::{ACCEPT, CONTENT_TYPE, HeaderMap, HeaderName, HeaderValue},
};
use rmcp::{
    ClientHandler, ErrorData, RoleClient,
    model::{
        CallToolRequestParams, CallToolResult, ClientConfig, ClientJsonRpcMessage, ClientRequest,
        CreateMessageRequestParams, CreateMessageResult, ElicitRequestParams, ElicitResult,
        ServerJsonRpcMessage,
    },
    service::{
        ClientLifecycleMode, ClientServiceExt, NotificationContext, RequestContext, RunningService,
        ServiceError,
    },
    transport::{
        StreamableHttpClientTransport,
        common::{
            client_side_sse::BoxedSseResponse,
            http_header::{
                EVENT_STREAM_MIME_TYPE, HEADER_LAST_EVENT_ID, HEADER_MCP_PROTOCOL_VERSION,
                HEADER_SESSION_ID, JSON_MIME_TYPE,
            },
        },
        streamable_http_client::{
            StreamableHttpClient, StreamableHttpClientTransportConfig, StreamableHttpError,
            StreamableHttpPostResponse,
        },
    },
};
use serde_json::{Value, json};
use sse_stream::SseStream;

const PROTOCOL: &str = "2025-11-25";
/// `scale_replica`'s wait in the sessions' rounds.
const DELAY_MS: u64 = 200;
/// The slow calls started just before the kill, and their wait.
const PROBES: usize = 9;
const PROBE_DELAY_MS: u64 = 1_500;
const ATTEMPTS: usize = 5;
const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(8);
/// The fixtures that change nothing on the server, re-issued like read-only tools.
const SIDE_EFFECT_FREE: [&str; 3] = ["test_simple_text", "test_elicitation", "test_sampling"];
/// The `_meta` key of `scale_replica`'s results (`examples/conformance_server.rs`).
const REPLICA_META: &str = "toolmodel.example/replica";
/// How `rmcp` marks the error it gives a call whose response stream ended before its response.
const TRANSPORT_CLOSED: &str = "io.modelcontextprotocol/transportClosed";
/// The text `test_sampling`'s answers carry.
const MODEL_TEXT: &str = "Hello from the legacy client";

/// The replica step 3 kills: its address as nginx names it in `X-Upstream`, and its process.
struct Kill {
    address: String,
    pid: u32,
}

/// What a run checks (module docs): the legacy phase's or the gateway's.
struct Mode {
    /// The summary line's first word, also the prefix of every line on stderr.
    label: &'static str,
    /// The servers behind the balancer.
    replicas: usize,
    /// Step 2's sessions, their rounds, and the calls of a round.
    sessions: usize,
    rounds: usize,
    round: &'static [&'static str],
    /// Whether step 1 runs (`tools/list_changed` across replicas).
    list_changed: bool,
    /// The replica step 3 kills; no step 3 without one.
    kill: Option<Kill>,
    /// The whole run gives up after this.
    limit: Duration,
}

impl Mode {
    /// `legacy_client BALANCER_URL KILL_ADDRESS KILL_PID`: three `conformance_server` replicas.
    fn replicas(kill: Kill) -> Self {
        Self {
            label: "legacy",
            replicas: 3,
            sessions: 6,
            rounds: 8,
            round: &[
                "test_simple_text",
                "scale_replica",
                "test_elicitation",
                "test_sampling",
            ],
            list_changed: true,
            kill: Some(kill),
            limit: Duration::from_secs(100),
        }
    }

    /// `legacy_client gateway BALANCER_URL`: two `toolmodel gateway` replicas.
    fn gateway() -> Self {
        Self {
            label: "legacy-gateway",
            replicas: 2,
            sessions: 4,
            rounds: 8,
            round: &["test_simple_text", "test_elicitation", "test_sampling"],
            list_changed: false,
            kill: None,
            limit: Duration::from_secs(60),
        }
    }

    /// The replicas serving at the end: all but the killed one.
    fn live(&self) -> usize {
        self.replicas - usize::from(self.kill.is_some())
    }
}

/// The label of [`Mode`] every line on stderr starts with, set once in `main`.
static LABEL: std::sync::OnceLock<&'static str> = std::sync::OnceLock::new();

/// `eprintln!` with the mode's label in front.
#[path = "replies.rs"]
mod replies;
#[path = "within_limit.rs"]
mod within_limit;

use replies::{form_content, text};
use within_limit::within_limit;

macro_rules! say {
    ($($arg:tt)*) => {
        eprintln!("{}: {}", LABEL.get().copied().unwrap_or("legacy"), format_args!($($arg)*))
    };
}

/// What one session's HTTP exchanges showed (see the module docs).
#[derive(Default)]
struct Trail {
    session_id: Option<String>,
    /// `initialize` requests sent: the first opens the session, any other re-initializes it.
    initializes: usize,
    /// Responses 404 to requests that carried the session id.
    not_found: usize,
    /// The upstream that served the last `tools/call` POST.
    call: Option<String>,
    /// The upstream that served the last POST answering a server request.
    answer: Option<String>,
    /// The upstream that served the last GET stream, and how many were opened.
    get: Option<String>,
    gets: usize,
    /// Every upstream that served a request, with the time it answered.
    served: Vec<(Instant, String)>,
}

/// The HTTP client under `rmcp`'s transport: `reqwest`, noting in its session's [`Trail`]
/// which upstream served each request.
#[derive(Clone)]
struct Recorder {
    http: reqwest::Client,
    trail: Arc<Mutex<Trail>>,
}

/// The upstream that served a response: the last address of nginx's `X-Upstream` (the one
/// before it, if any, refused the connection).
fn upstream(headers: &HeaderMap) -> Option<String> {
    let value = headers.get("x-upstream")?.to_str().ok()?;
    // nginx separates the servers it tried with ", ", internal redirects with " : ".
    let last = value.rsplit(", ").next()?.rsplit(" : ").next()?.trim();
    (!last.is_empty()).then(|| last.to_owned())
}

impl Recorder {
    fn note(&self, headers: &HeaderMap, status: StatusCode, with_session: bool) -> Option<String> {
        let served = upstream(headers);
        let mut trail = self.trail.lock().unwrap_or_else(|err| err.into_inner());
        if status == StatusCode::NOT_FOUND && with_session {
            trail.not_found += 1;
        }
        if let Some(served) = &served
            && status.is_success()
        {
            trail.served.push((Instant::now(), served.clone()));
        }
        served
    }

    /// Sends `builder`'s request with the session's id, the token and the custom headers
    /// (as `rmcp`'s own `reqwest` client does) and notes its answer ([`Recorder::note`]): the
    /// response and the upstream that served it.
    async fn send(
        &self,
        builder: reqwest::RequestBuilder,
        session_id: Option<&str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(reqwest::Response, Option<String>), reqwest::Error> {
        let mut builder = builder.headers(custom_headers.into_iter().collect());
        if let Some(session_id) = session_id {
            builder = builder.header(HEADER_SESSION_ID, session_id);
        }
        if let Some(token) = auth_header {
            builder = builder.bearer_auth(token);
        }
        let response = builder.send().await?;
        let served = self.note(response.headers(), response.status(), session_id.is_some());
        Ok((response, served))
    }
}

fn unexpected(text: String) -> StreamableHttpError<reqwest::Error> {
    StreamableHttpError::UnexpectedServerResponse(Cow::Owned(text))
}

fn is_media_type(headers: &HeaderMap, media_type: &str) -> bool {
    headers
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.split(';').next())
        .is_some_and(|value| value.trim().eq_ignore_ascii_case(media_type))
}

impl StreamableHttpClient for Recorder {
    type Error = reqwest::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<reqwest::Error>> {
        let (is_initialize, is_call, is_request) = match &message {
            ClientJsonRpcMessage::Request(request) => (
                matches!(request.request, ClientRequest::InitializeRequest(_)),
                matches!(request.request, ClientRequest::CallToolRequest(_)),
                true,
            ),
            _ => (false, false, false),
        };
        let is_answer = matches!(
            message,
            ClientJsonRpcMessage::Response(_) | ClientJsonRpcMessage::Error(_)
        );
        if is_initialize {
            self.trail
                .lock()
                .unwrap_or_else(|err| err.into_inner())
                .initializes += 1;
        }
        let builder = self
            .http
            .post(uri.as_ref())
            .header(
                ACCEPT,
                format!("{JSON_MIME_TYPE}, {EVENT_STREAM_MIME_TYPE}"),
            )
            .json(&message);
        let (response, served) = self
            .send(builder, session_id.as_deref(), auth_header, custom_headers)
            .await?;
        let status = response.status();
        {
            let mut trail = self.trail.lock().unwrap_or_else(|err| err.into_inner());
            if is_call {
                trail.call = served.clone();
            }
            if is_answer {
                trail.answer = served;
            }
        }
        if matches!(status, StatusCode::ACCEPTED | StatusCode::NO_CONTENT) {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        if status == StatusCode::NOT_FOUND && session_id.is_some() {
            return Err(StreamableHttpError::SessionExpired);
        }
        let new_session = response
            .headers()
            .get(HEADER_SESSION_ID)
            .and_then(|value| value.to_str().ok())
            .map(str::to_owned);
        if is_initialize && let Some(id) = &new_session {
            self.trail
                .lock()
                .unwrap_or_else(|err| err.into_inner())
                .session_id = Some(id.clone());
        }
        if is_media_type(response.headers(), EVENT_STREAM_MIME_TYPE) && status.is_success() {
            let events = SseStream::from_bytes_stream(response.bytes_stream()).boxed();
            return Ok(StreamableHttpPostResponse::Sse(events, new_session));
        }
        if is_media_type(response.headers(), JSON_MIME_TYPE) {
            let body = response.bytes().await?;
            return match serde_json::from_slice::<ServerJsonRpcMessage>(&body) {
                // A JSON-RPC error (with any status) is an answer.
                Ok(message @ ServerJsonRpcMessage::Error(_)) => {
                    Ok(StreamableHttpPostResponse::Json(message, new_session))
                }
                Ok(message) if status.is_success() => {
                    Ok(StreamableHttpPostResponse::Json(message, new_session))
                }
                _ => Err(unexpected(format!(
                    "HTTP {status}: {}",
                    String::from_utf8_lossy(&body)
                ))),
            };
        }
        if status.is_success() && !is_request {
            return Ok(StreamableHttpPostResponse::Accepted);
        }
        Err(unexpected(format!("HTTP {status} from the balancer")))
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<reqwest::Error>> {
        let builder = self.http.delete(uri.as_ref());
        let (response, _) = self
            .send(builder, Some(&session_id), auth_header, custom_headers)
            .await?;
        let status = response.status();
        if !status.is_success() {
            return Err(unexpected(format!("DELETE: HTTP {status}")));
        }
        Ok(())
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<BoxedSseResponse, StreamableHttpError<reqwest::Error>> {
        let mut builder = self
            .http
            .get(uri.as_ref())
            .header(ACCEPT, EVENT_STREAM_MIME_TYPE);
        if let Some(last_event_id) = last_event_id {
            builder = builder.header(HEADER_LAST_EVENT_ID, last_event_id);
        }
        let (response, served) = self
            .send(builder, session_id.as_deref(), auth_header, custom_headers)
            .await?;
        let status = response.status();
        if status == StatusCode::METHOD_NOT_ALLOWED {
            return Err(StreamableHttpError::ServerDoesNotSupportSse);
        }
        if status == StatusCode::NOT_FOUND && session_id.is_some() {
            return Err(StreamableHttpError::SessionExpired);
        }
        if !status.is_success() || !is_media_type(response.headers(), EVENT_STREAM_MIME_TYPE) {
            return Err(unexpected(format!("GET: HTTP {status}")));
        }
        {
            let mut trail = self.trail.lock().unwrap_or_else(|err| err.into_inner());
            trail.get = served;
            trail.gets += 1;
        }
        Ok(SseStream::from_bytes_stream(response.bytes_stream()).boxed())
    }
}

/// The client: declares form elicitation and sampling and answers both; counts the
/// `notifications/tools/list_changed` it gets.
#[derive(Clone, Default)]
struct LegacyClient {
    list_changed: Arc<AtomicUsize>,
}

fn internal(err: serde_json::Error) -> ErrorData {
    ErrorData::internal_error(err.to_string(), None)
}

impl ClientHandler for LegacyClient {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": PROTOCOL,
            "capabilities": {"elicitation": {"form": {}}, "sampling": {}},
            "clientInfo": {"name": "toolmodel-legacy-client", "version": env!("CARGO_PKG_VERSION")}
        }))
        .expect("a client configuration")
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _cx: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let request = serde_json::to_value(&request).map_err(internal)?;
        let content = form_content(&request["requestedSchema"]);
        serde_json::from_value(json!({"action": "accept", "content": content})).map_err(internal)
    }

    async fn create_message(
        &self,
        _params: CreateMessageRequestParams,
        _cx: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        serde_json::from_value(json!({
            "role": "assistant",
            "content": {"type": "text", "text": MODEL_TEXT},
            "model": "legacy-client",
            "stopReason": "endTurn"
        }))
        .map_err(internal)
    }

    async fn on_tool_list_changed(&self, _cx: NotificationContext<RoleClient>) {
        self.list_changed.fetch_add(1, Ordering::SeqCst);
    }
}

/// One MCP session through the balancer.
struct Session {
    service: RunningService<RoleClient, LegacyClient>,
    trail: Arc<Mutex<Trail>>,
    list_changed: Arc<AtomicUsize>,
}

impl Session {
    fn trail(&self) -> std::sync::MutexGuard<'_, Trail> {
        self.trail.lock().unwrap_or_else(|err| err.into_inner())
    }
}

/// What the run counts.
#[derive(Default)]
struct Tally {
    calls: AtomicUsize,
    cross_replica_answers: AtomicUsize,
    lost: AtomicUsize,
    reissued: AtomicUsize,
    /// Calls of step 2 that ended (either way): the kill waits for a third of them.
    ended: AtomicUsize,
    problems: Mutex<Vec<String>>,
}

impl Tally {
    fn problem(&self, text: String) {
        say!("{text}");
        self.problems
            .lock()
            .unwrap_or_else(|err| err.into_inner())
            .push(text);
    }
}

struct Run {
    url: String,
    http: reqwest::Client,
    tally: Tally,
    mode: Mode,
    killed_at: Mutex<Option<Instant>>,
    /// Every session opened, its trail kept for the checks at the end.
    trails: Mutex<Vec<Arc<Mutex<Trail>>>>,
}

fn params(name: &str, arguments: Value) -> CallToolRequestParams {
    serde_json::from_value(json!({"name": name, "arguments": arguments}))
        .expect("tools/call params")
}

/// A call's result with the upstream that served its POST.
struct Served {
    result: CallToolResult,
    call: Option<String>,
}

impl Run {
    async fn open(&self) -> Result<Session, String> {
        let trail = Arc::new(Mutex::new(Trail::default()));
        self.trails
            .lock()
            .unwrap_or_else(|err| err.into_inner())
            .push(Arc::clone(&trail));
        let recorder = Recorder {
            http: self.http.clone(),
            trail: Arc::clone(&trail),
        };
        let transport = StreamableHttpClientTransport::with_client(
            recorder,
            StreamableHttpClientTransportConfig::with_uri(self.url.clone()),
        );
        let client = LegacyClient::default();
        let list_changed = Arc::clone(&client.list_changed);
        let service = tokio::time::timeout(
            ATTEMPT_TIMEOUT,
            client.serve_with_lifecycle(transport, ClientLifecycleMode::Initialize),
        )
        .await
        .map_err(|_| format!("initialize: no answer in {ATTEMPT_TIMEOUT:?}"))?
        .map_err(|err| format!("initialize: {err}"))?;
        let version = service
            .peer_info()
            .map(|info| info.protocol_version.to_string());
        if version.as_deref() != Some(PROTOCOL) {
            return Err(format!("initialize: protocol version {version:?}"));
        }
        Ok(Session {
            service,
            trail,
            list_changed,
        })
    }

    /// Runs one call, re-issuing it when it got no response and that is safe (module docs).
    async fn call(
        &self,
        session: &Session,
        name: &str,
        arguments: Value,
    ) -> Result<Served, String> {
        let reissuable = name == "scale_replica" || SIDE_EFFECT_FREE.contains(&name);
        let params = params(name, arguments);
        for attempt in 1..=ATTEMPTS {
            {
                let mut trail = session.trail();
                trail.call = None;
                trail.answer = None;
            }
            let why = match tokio::time::timeout(
                ATTEMPT_TIMEOUT,
                session.service.call_tool(params.clone()),
            )
            .await
            {
                Ok(Ok(result)) if result.is_error == Some(true) => {
                    return Err(format!("a tool error: {}", text(&result)));
                }
                Ok(Ok(result)) => {
                    let call = session.trail().call.clone();
                    return Ok(Served { result, call });
                }
                Ok(Err(ServiceError::McpError(error)))
                    if error
                        .data
                        .as_ref()
                        .is_none_or(|data| data.get(TRANSPORT_CLOSED).is_none()) =>
                {
                    return Err(format!(
                        "JSON-RPC error {}: {}",
                        error.code.0, error.message
                    ));
                }
                Ok(Err(other)) => other.to_string(),
                Err(_) => format!("no answer in {ATTEMPT_TIMEOUT:?}"),
            };
            if !reissuable {
                return Err(format!("no response, not re-issued: {why}"));
            }
            if attempt == ATTEMPTS {
                return Err(format!("no response in {ATTEMPTS} tries: {why}"));
            }
            say!("{name}: no response ({why}), re-issued");
            self.tally.reissued.fetch_add(1, Ordering::Relaxed);
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        unreachable!("the loop returns")
    }

    fn lose(&self, why: String) {
        self.tally.lost.fetch_add(1, Ordering::Relaxed);
        self.tally.problem(format!("lost: {why}"));
    }

    /// Counts an answer POSTed to another upstream than the call's. The server may send the
    /// call's result before the answer's POST has its response (202): waits up to 2 s for it.
    async fn note_answer(&self, session: &Session, name: &str, served: &Served) {
        let deadline = Instant::now() + Duration::from_secs(2);
        let answer = loop {
            let answer = session.trail().answer.clone();
            if answer.is_some() || Instant::now() > deadline {
                break answer;
            }
            tokio::time::sleep(Duration::from_millis(5)).await;
        };
        match (&served.call, &answer) {
            (Some(call), Some(answer)) if call != answer => {
                self.tally
                    .cross_replica_answers
                    .fetch_add(1, Ordering::Relaxed);
            }
            (Some(_), Some(_)) => {}
            (call, answer) => self.tally.problem(format!(
                "{name}: no upstream noted (call {call:?}, answer {answer:?})"
            )),
        }
    }

    /// One call of a session's round, its result checked.
    async fn step(&self, session: &Session, name: &str, round: usize) {
        let arguments = match name {
            "scale_replica" => json!({"delay_ms": DELAY_MS}),
            "test_elicitation" => json!({"message": format!("Who are you? (round {round})")}),
            "test_sampling" => json!({"prompt": format!("Say hello (round {round})")}),
            _ => json!({}),
        };
        let outcome = match self.call(session, name, arguments).await {
            Ok(served) => self.check(session, name, served).await,
            Err(why) => Err(why),
        };
        match outcome {
            Ok(()) => {
                self.tally.calls.fetch_add(1, Ordering::Relaxed);
            }
            Err(why) => self.lose(format!("{name}: {why}")),
        }
    }

    /// Checks a result of [`Self::step`]; notes where the answer went.
    async fn check(&self, session: &Session, name: &str, served: Served) -> Result<(), String> {
        let text = text(&served.result);
        let ok = match name {
            "test_simple_text" => text == "This is a simple text response for testing.",
            "scale_replica" => served
                .result
                .meta
                .as_ref()
                .and_then(|meta| meta.get(REPLICA_META))
                .is_some_and(|meta| meta["answeredBy"].is_string()),
            "test_elicitation" => text
                .strip_prefix("User response: action=accept, content=")
                .and_then(|content| serde_json::from_str::<Value>(content).ok())
                .is_some_and(|content| content == json!({"username": "Ada", "email": "Ada"})),
            _ => text == format!("LLM response: {MODEL_TEXT}"),
        };
        if !ok {
            return Err(format!("unexpected result {:?}", served.result));
        }
        if matches!(name, "test_elicitation" | "test_sampling") {
            self.note_answer(session, name, &served).await;
        }
        Ok(())
    }

    /// Step 2: one session's rounds; the session, for its `DELETE` at the end.
    async fn session(&self, index: usize) -> Option<Session> {
        let session = match self.open().await {
            Ok(session) => session,
            Err(why) => {
                self.tally
                    .lost
                    .fetch_add(self.mode.rounds * self.mode.round.len(), Ordering::Relaxed);
                self.tally.problem(format!("session {index}: {why}"));
                return None;
            }
        };
        for round in 0..self.mode.rounds {
            for name in self.mode.round {
                self.step(&session, name, round).await;
                self.tally.ended.fetch_add(1, Ordering::Relaxed);
            }
        }
        Some(session)
    }

    /// Step 3: waits for a third of step 2's calls, starts [`PROBES`] slow calls on a probe
    /// session, and kills the replica with them in flight.
    async fn kill_midway(self: &Arc<Self>, kill: &Kill) -> Option<Session> {
        let total = self.mode.sessions * self.mode.rounds * self.mode.round.len();
        while self.tally.ended.load(Ordering::Relaxed) < total / 3 {
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        let session = match self.open().await {
            Ok(session) => Arc::new(session),
            Err(why) => {
                self.tally.problem(format!("the probe session: {why}"));
                return None;
            }
        };
        let probes: Vec<_> = (0..PROBES)
            .map(|_| {
                let (run, session) = (Arc::clone(self), Arc::clone(&session));
                tokio::spawn(async move {
                    let arguments = json!({"delay_ms": PROBE_DELAY_MS});
                    match run.call(&session, "scale_replica", arguments).await {
                        Ok(_) => {
                            run.tally.calls.fetch_add(1, Ordering::Relaxed);
                        }
                        Err(why) => run.lose(format!("scale_replica (probe): {why}")),
                    }
                })
            })
            .collect();
        tokio::time::sleep(Duration::from_millis(300)).await;
        let status = std::process::Command::new("kill")
            .args(["-KILL", &kill.pid.to_string()])
            .status();
        *self.killed_at.lock().unwrap_or_else(|err| err.into_inner()) = Some(Instant::now());
        match status {
            Ok(status) if status.success() => say!(
                "killed the replica at {} (pid {}) after {} calls, {PROBES} slow calls in flight",
                kill.address,
                kill.pid,
                self.tally.ended.load(Ordering::Relaxed)
            ),
            other => self
                .tally
                .problem(format!("could not kill pid {}: {other:?}", kill.pid)),
        }
        for probe in probes {
            if let Err(err) = probe.await {
                self.tally.problem(format!("a probe failed: {err}"));
            }
        }
        Arc::into_inner(session)
    }

    /// Step 1: `tools/list_changed` raised on one replica, received on a GET stream another
    /// holds.
    async fn list_changed(&self) -> Result<(), String> {
        let session = self.open().await?;
        let deadline = Instant::now() + Duration::from_secs(5);
        let get = loop {
            if let Some(get) = session.trail().get.clone() {
                break get;
            }
            if Instant::now() > deadline {
                return Err("the watcher's GET stream did not open in 5 s".to_owned());
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        };
        for attempt in 1..=5 {
            let before = session.list_changed.load(Ordering::SeqCst);
            let served = self
                .call(&session, "test_trigger_tool_change", json!({}))
                .await
                .map_err(|why| format!("test_trigger_tool_change: {why}"))?;
            let received = async {
                while session.list_changed.load(Ordering::SeqCst) == before {
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            };
            let arrived = tokio::time::timeout(Duration::from_secs(5), received).await;
            let trigger = served.call.unwrap_or_default();
            let get_now = session.trail().get.clone().unwrap_or_default();
            if trigger == get_now {
                say!("trigger {attempt} served by the GET stream's own replica {trigger}, again");
                continue;
            }
            if arrived.is_err() {
                return Err(format!(
                    "no notifications/tools/list_changed in 5 s on the GET stream of {get_now} (first {get}) after the trigger on {trigger}"
                ));
            }
            say!("tools/list_changed raised on {trigger}, received on the GET stream of {get_now}");
            let _ = session.service.cancel().await;
            return Ok(());
        }
        Err("5 triggers, all served by the GET stream's replica".to_owned())
    }

    /// Step 4: `DELETE` for each session, then a `ping` with each deleted id must get 404 from
    /// every live replica: pings (round-robin) until each of them answered one, at most three
    /// per replica.
    async fn delete(&self, sessions: Vec<Session>) -> Result<(), String> {
        let mut ids = Vec::new();
        for session in sessions {
            let id = session.trail().session_id.clone();
            match session.service.cancel().await {
                Ok(_) => ids.extend(id),
                Err(err) => return Err(format!("closing a session: {err}")),
            }
        }
        let live = self.mode.live();
        let mut pings = 0;
        for id in &ids {
            let mut answered = std::collections::BTreeSet::new();
            for _ in 0..3 * self.mode.replicas {
                if answered.len() == live {
                    break;
                }
                let response = self
                    .http
                    .post(&self.url)
                    .header(
                        ACCEPT,
                        format!("{JSON_MIME_TYPE}, {EVENT_STREAM_MIME_TYPE}"),
                    )
                    .header(HEADER_SESSION_ID, id)
                    .header(HEADER_MCP_PROTOCOL_VERSION, PROTOCOL)
                    .json(&json!({"jsonrpc": "2.0", "id": 1, "method": "ping"}))
                    .send()
                    .await
                    .map_err(|err| format!("ping after DELETE: {err}"))?;
                pings += 1;
                let served = upstream(response.headers());
                if response.status() != StatusCode::NOT_FOUND {
                    return Err(format!(
                        "ping with the deleted session {id}: HTTP {} from {served:?}, not 404",
                        response.status()
                    ));
                }
                answered.extend(served);
            }
            if answered.len() != live {
                return Err(format!(
                    "ping with the deleted session {id}: 404 from {answered:?} only, not from {live} replicas"
                ));
            }
        }
        say!(
            "{} sessions deleted; a ping with each id got 404 from each of the {live} live replicas ({pings} pings)",
            ids.len()
        );
        Ok(())
    }
}

/// What the run ends with.
struct Outcome {
    sessions: usize,
    reinitialized: usize,
}

/// Sums `count` over every session's trail.
fn sum_trails(run: &Run, count: impl Fn(&Trail) -> usize) -> usize {
    run.trails
        .lock()
        .unwrap_or_else(|err| err.into_inner())
        .iter()
        .map(|trail| count(&trail.lock().unwrap_or_else(|err| err.into_inner())))
        .sum()
}

/// Requests served by the killed replica well after its kill (none may be).
fn served_after_kill(run: &Run) -> usize {
    let killed_at = *run.killed_at.lock().unwrap_or_else(|err| err.into_inner());
    let (Some(killed_at), Some(kill)) = (killed_at, &run.mode.kill) else {
        return 0;
    };
    sum_trails(run, |trail| {
        trail
            .served
            .iter()
            .filter(|(at, by)| *at > killed_at + Duration::from_millis(200) && *by == kill.address)
            .count()
    })
}

async fn legacy(run: Arc<Run>) -> Result<Outcome, String> {
    let started = Instant::now();
    if run.mode.list_changed {
        run.list_changed().await?;
    }
    let killer = run.mode.kill.is_some().then(|| {
        let run = Arc::clone(&run);
        tokio::spawn(async move {
            let kill = run.mode.kill.as_ref().expect("a replica to kill");
            run.kill_midway(kill).await
        })
    });
    let workers: Vec<_> = (0..run.mode.sessions)
        .map(|index| {
            let run = Arc::clone(&run);
            tokio::spawn(async move { run.session(index).await })
        })
        .collect();
    let mut sessions = Vec::new();
    for worker in workers {
        sessions.extend(
            worker
                .await
                .map_err(|err| format!("a session failed: {err}"))?,
        );
    }
    if let Some(killer) = killer {
        sessions.extend(
            killer
                .await
                .map_err(|err| format!("the killer failed: {err}"))?,
        );
    }
    let opened = run
        .trails
        .lock()
        .unwrap_or_else(|err| err.into_inner())
        .len();
    let count = sessions.len();
    let not_found = sum_trails(&run, |trail| trail.not_found);
    run.delete(sessions).await?;
    let reinitialized = sum_trails(&run, |trail| trail.initializes.saturating_sub(1));
    let gets = sum_trails(&run, |trail| trail.gets);
    let late = served_after_kill(&run);
    if late > 0 {
        run.tally.problem(format!(
            "{late} requests served by the killed replica after its kill"
        ));
    }
    say!(
        "{opened} sessions opened ({count} of them deleted at the end{}), {gets} GET streams, {not_found} responses 404 before the DELETEs, {} calls re-issued; {:.1} s",
        if run.mode.list_changed {
            ", the watcher before"
        } else {
            ""
        },
        run.tally.reissued.load(Ordering::Relaxed),
        started.elapsed().as_secs_f64()
    );
    Ok(Outcome {
        sessions: opened,
        reinitialized,
    })
}

/// The command line: the balancer's URL and the mode; exits 2 when it is not one.
fn command_line() -> (String, Mode) {
    let usage = "usage: legacy_client BALANCER_URL KILL_ADDRESS KILL_PID | legacy_client gateway BALANCER_URL";
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.as_slice() {
        [command, url] if command == "gateway" => (url.clone(), Mode::gateway()),
        [url, address, pid] => {
            let Ok(pid) = pid.parse() else {
                eprintln!("legacy: KILL_PID {pid:?} is not a process id");
                std::process::exit(2);
            };
            let kill = Kill {
                address: address.clone(),
                pid,
            };
            (url.clone(), Mode::replicas(kill))
        }
        _ => {
            eprintln!("{usage}");
            std::process::exit(2);
        }
    }
}

#[tokio::main]
async fn main() {
    let (url, mode) = command_line();
    let _ = LABEL.set(mode.label);
    let limit = mode.limit;
    let http = reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(2))
        .build()
        .unwrap_or_else(|err| {
            say!("no HTTP client: {err}");
            std::process::exit(1);
        });
    let run = Arc::new(Run {
        url,
        http,
        tally: Tally::default(),
        mode,
        killed_at: Mutex::new(None),
        trails: Mutex::new(Vec::new()),
    });
    let label = LABEL.get().copied().unwrap_or("legacy");
    let outcome = within_limit(label, limit, legacy(Arc::clone(&run))).await;
    let tally = &run.tally;
    let (calls, cross, lost) = (
        tally.calls.load(Ordering::Relaxed),
        tally.cross_replica_answers.load(Ordering::Relaxed),
        tally.lost.load(Ordering::Relaxed),
    );
    let mut failed = !tally
        .problems
        .lock()
        .unwrap_or_else(|err| err.into_inner())
        .is_empty();
    if cross == 0 {
        say!("no elicitation or sampling answer landed on another replica");
        failed = true;
    }
    if run.mode.kill.is_some() && tally.reissued.load(Ordering::Relaxed) == 0 {
        say!("no call was in flight on the killed replica (nothing re-issued)");
        failed = true;
    }
    println!(
        "{}: replicas={} sessions={} calls={calls} cross_replica_answers={cross} lost={lost} reinitialized={}",
        run.mode.label, run.mode.replicas, outcome.sessions, outcome.reinitialized
    );
    if failed || lost > 0 || outcome.reinitialized > 0 {
        std::process::exit(1);
    }
}
