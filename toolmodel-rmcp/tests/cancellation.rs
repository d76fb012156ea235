//! Cancellation: `notifications/cancelled` from the client reaches the handler of the
//! `tools/call` it names; and what becomes of the requests a `tools/call` sends to the client
//! (`sampling/createMessage`, `elicitation/create`, `roots/list`, MCP 2025-11-25) when nobody
//! answers them: cancelled with `notifications/cancelled` when the call is cancelled, when the
//! client's connection ends, when [`HttpLimits::client_request_timeout`] passes, and when the
//! handler stops waiting; and a tool's `timeout`, which the server enforces with tokio's timer
//! (an `isError` result naming the limit, the call's cancellation set).
//!
//! The first test drives the server with `rmcp`'s client; the others with a raw JSON-RPC peer
//! over an in-memory pipe, so every line the server writes is seen as it is.

use std::{sync::Arc, time::Duration};

use rmcp::{
    ServiceExt as _,
    model::{CallToolRequestParams, ErrorCode},
    service::ServiceError,
};
use serde::Deserialize;
use serde_json::{Map, Value, json};
use tokio::{
    io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, DuplexStream, Lines, ReadHalf},
    io::{WriteHalf, split},
    sync::{Notify, mpsc},
};
use toolmodel::{
    CallContext, CallToolResult, Tool, ToolError, ToolHandler, ToolSchema, Toolbox,
    input::{ElicitRequest, InputRequest, InputRequests},
    schemars::{self, JsonSchema},
};
use toolmodel_rmcp::{ToolboxServer, server::HttpLimits};

use crate::support::pipe::connect;

#[derive(Deserialize, JsonSchema)]
struct WaitArgs {}

/// Waits until its call is cancelled, then says so.
#[derive(toolmodel::Tool)]
#[tool(input = WaitArgs)]
struct Wait {
    started: Arc<Notify>,
    stopped: Arc<Notify>,
}

impl ToolHandler for Wait {
    type Reply = &'static str;
    async fn call(&self, _: WaitArgs, cx: &CallContext) -> Result<&'static str, ToolError> {
        self.started.notify_one();
        cx.cancelled().await;
        self.stopped.notify_one();
        Err(ToolError::Cancelled)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_cancelled_reaches_the_handler() {
    let started = Arc::new(Notify::new());
    let stopped = Arc::new(Notify::new());
    let toolbox = Toolbox::builder()
        .with(Wait {
            started: Arc::clone(&started),
            stopped: Arc::clone(&stopped),
        })
        .build()
        .expect("toolbox");
    let service = connect(ToolboxServer::new(toolbox), ()).await;

    // rmcp's client sends notifications/cancelled for a tools/call it abandons.
    let call = service.call_tool(CallToolRequestParams::new("wait"));
    let abandoned = tokio::time::timeout(Duration::from_secs(5), async {
        tokio::select! {
            _ = call => panic!("the call finished without being cancelled"),
            () = started.notified() => {}
        }
    })
    .await;
    assert!(abandoned.is_ok(), "the handler started");
    tokio::time::timeout(Duration::from_secs(5), stopped.notified())
        .await
        .expect("the handler saw the cancellation");

    let unknown = service
        .call_tool(
            CallToolRequestParams::new("nothing")
                .with_arguments(json!({}).as_object().cloned().unwrap_or_default()),
        )
        .await;
    match unknown {
        Err(ServiceError::McpError(error)) => assert_eq!(error.code, ErrorCode::INVALID_PARAMS),
        other => panic!("expected -32602, got {other:?}"),
    }
    service.cancel().await.expect("closes");
}

/// How long a test waits for a line the server should write.
const WAIT: Duration = Duration::from_secs(5);

/// The request `kind` asks the client for.
fn request_of(kind: &str) -> InputRequest {
    match kind {
        "elicitation" => InputRequest::Elicit(ElicitRequest::form(
            "Your name?",
            json!({"type": "object", "properties": {"name": {"type": "string"}}}),
        )),
        "roots" => InputRequest::ListRoots,
        _ => InputRequest::sample_text("never answered", 10),
    }
}

/// A server with two tools: `ask` asks the client for `kind` (sampling, elicitation, roots)
/// and reports how its wait ended on `outcomes`; `ask_briefly` stops waiting after 100 ms.
fn server(
    limits: HttpLimits,
    outcomes: mpsc::UnboundedSender<Result<(), ToolError>>,
) -> ToolboxServer {
    let Value::Object(kind_schema) = json!({
        "type": "object",
        "properties": {"kind": {"enum": ["sampling", "elicitation", "roots"]}},
        "required": ["kind"]
    }) else {
        unreachable!("an object")
    };
    let kind_schema = ToolSchema::new(kind_schema);
    let toolbox = Toolbox::builder()
        .with_tool(
            Tool::new("ask", kind_schema.clone()),
            move |args: Map<String, Value>, cx: CallContext| {
                let outcomes = outcomes.clone();
                async move {
                    let kind = args["kind"].as_str().unwrap_or_default().to_owned();
                    let asked = cx
                        .input(InputRequests::new().with("answer", request_of(&kind)))
                        .await;
                    let _ = outcomes.send(asked.as_ref().map(|_| ()).map_err(Clone::clone));
                    asked?;
                    Ok(CallToolResult::text("answered"))
                }
            },
        )
        .with_tool(
            Tool::new("ask_briefly", kind_schema),
            |args: Map<String, Value>, cx: CallContext| async move {
                let kind = args["kind"].as_str().unwrap_or_default().to_owned();
                let asked = cx.input(InputRequests::new().with("answer", request_of(&kind)));
                match tokio::time::timeout(Duration::from_millis(100), asked).await {
                    Ok(answer) => answer.map(|_| CallToolResult::text("answered")),
                    Err(_) => Ok(CallToolResult::text("gave up waiting")),
                }
            },
        )
        .build()
        .expect("toolbox");
    ToolboxServer::new(toolbox).with_limits(limits)
}

/// A client that writes and reads JSON-RPC lines itself.
struct RawClient {
    lines: Lines<BufReader<ReadHalf<DuplexStream>>>,
    writer: WriteHalf<DuplexStream>,
    /// Messages read while waiting for another, in order.
    backlog: Vec<Value>,
}

impl RawClient {
    /// Serves `server` on a pipe and goes through `initialize` declaring every capability a
    /// tool may ask for.
    async fn start(server: ToolboxServer) -> Self {
        let (client_io, server_io) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        let (reader, writer) = split(client_io);
        let mut client = Self {
            lines: BufReader::new(reader).lines(),
            writer,
            backlog: Vec::new(),
        };
        client
            .send(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25",
                "capabilities": {"sampling": {}, "elicitation": {"form": {}}, "roots": {}},
                "clientInfo": {"name": "raw", "version": "0"}}}),
            )
            .await;
        let initialized = client.next_where(|m| m["id"] == 0).await;
        assert!(initialized["result"].is_object(), "{initialized}");
        client
            .send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        client
    }

    async fn send(&mut self, message: Value) {
        let mut line = message.to_string();
        line.push('\n');
        self.writer.write_all(line.as_bytes()).await.expect("write");
    }

    /// The first message the server wrote that `wanted` accepts (others are kept for later
    /// calls: the server may write a call's response and its cancellations in either order).
    async fn next_where(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        if let Some(at) = self.backlog.iter().position(&wanted) {
            return self.backlog.remove(at);
        }
        tokio::time::timeout(WAIT, async {
            loop {
                let line = self.lines.next_line().await.expect("read").expect("a line");
                let message: Value = serde_json::from_str(&line).expect("JSON");
                if wanted(&message) {
                    return message;
                }
                self.backlog.push(message);
            }
        })
        .await
        .expect("the server wrote the message in time")
    }

    /// Calls `tool` asking for `kind` and returns the id of the request the server sends the
    /// client for it (checking its method).
    async fn call_and_get_asked(&mut self, id: u64, tool: &str, kind: &str) -> Value {
        self.send(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": tool, "arguments": {"kind": kind}}}))
            .await;
        let method = match kind {
            "elicitation" => "elicitation/create",
            "roots" => "roots/list",
            _ => "sampling/createMessage",
        };
        let request = self.next_where(|m| m["method"] == method).await;
        assert!(request["id"].is_number() || request["id"].is_string());
        request["id"].clone()
    }

    /// The `notifications/cancelled` the server sends for its request `id`.
    async fn cancelled(&mut self, id: &Value) -> Value {
        let id = id.clone();
        self.next_where(move |m| {
            m["method"] == "notifications/cancelled" && m["params"]["requestId"] == id
        })
        .await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cancelled_call_cancels_its_requests_to_the_client() {
    for kind in ["sampling", "elicitation", "roots"] {
        let (outcomes, mut outcome) = mpsc::unbounded_channel();
        let mut client = RawClient::start(server(HttpLimits::default(), outcomes)).await;
        let asked = client.call_and_get_asked(1, "ask", kind).await;
        client
            .send(
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": 1, "reason": "changed my mind"}}),
            )
            .await;
        let cancelled = client.cancelled(&asked).await;
        let reason = cancelled["params"]["reason"].as_str().unwrap_or_default();
        assert!(reason.contains("tools/call"), "{kind}: {cancelled}");
        // The handler's wait ended (as an error: the call is gone).
        let ended = tokio::time::timeout(WAIT, outcome.recv()).await;
        assert!(
            matches!(ended, Ok(Some(Err(_)))),
            "{kind}: the handler stopped waiting: {ended:?}"
        );
        // The server goes on serving: a later answer to the cancelled request is ignored, a
        // new call gets its own request.
        client
            .send(json!({"jsonrpc": "2.0", "id": asked, "result": {}}))
            .await;
        let again = client.call_and_get_asked(2, "ask", kind).await;
        assert_ne!(again, asked);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unanswered_request_to_the_client_times_out() {
    let (outcomes, mut outcome) = mpsc::unbounded_channel();
    let limits = HttpLimits::default().with_client_request_timeout(Duration::from_millis(300));
    let mut client = RawClient::start(server(limits, outcomes)).await;
    let started = std::time::Instant::now();
    let asked = client.call_and_get_asked(7, "ask", "sampling").await;
    client.cancelled(&asked).await;
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(300),
        "cancelled after {waited:?}, before the timeout"
    );
    // The call ends with the handler's error, which names the limit.
    let response = client.next_where(|m| m["id"] == 7).await;
    let message = response["error"]["message"].as_str().unwrap_or_default();
    assert_eq!(response["error"]["code"], -32603, "{response}");
    assert!(message.contains("client_request_timeout"), "{response}");
    let ended = tokio::time::timeout(WAIT, outcome.recv()).await;
    assert!(matches!(ended, Ok(Some(Err(_)))), "{ended:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_the_handler_stops_waiting_for_is_cancelled() {
    let (outcomes, _outcome) = mpsc::unbounded_channel();
    let mut client = RawClient::start(server(HttpLimits::default(), outcomes)).await;
    let asked = client
        .call_and_get_asked(3, "ask_briefly", "elicitation")
        .await;
    client.cancelled(&asked).await;
    let response = client.next_where(|m| m["id"] == 3).await;
    assert_eq!(
        response["result"]["content"][0]["text"], "gave up waiting",
        "{response}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_default_timeout_is_documented_and_settable() {
    assert_eq!(
        HttpLimits::default().client_request_timeout,
        HttpLimits::DEFAULT_CLIENT_REQUEST_TIMEOUT
    );
    let limits = HttpLimits::default().with_client_request_timeout(Duration::from_secs(5));
    assert_eq!(limits.client_request_timeout, Duration::from_secs(5));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_cancelled_calls_leave_no_request_pending() {
    // The rounds, in small: calls whose sampling request is never answered, each
    // cancelled; every one of the server's requests is cancelled in turn.
    let (outcomes, mut outcome) = mpsc::unbounded_channel();
    let mut client = RawClient::start(server(HttpLimits::default(), outcomes)).await;
    for id in 1..=200_u64 {
        let asked = client.call_and_get_asked(id, "ask", "sampling").await;
        client
            .send(
                json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": id}}),
            )
            .await;
        client.cancelled(&asked).await;
        let ended = tokio::time::timeout(WAIT, outcome.recv()).await;
        assert!(matches!(ended, Ok(Some(Err(_)))), "round {id}: {ended:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_closed_connection_ends_the_calls_waiting_on_the_client() {
    let (outcomes, mut outcome) = mpsc::unbounded_channel();
    let mut client = RawClient::start(server(HttpLimits::default(), outcomes)).await;
    client.call_and_get_asked(1, "ask", "roots").await;
    drop(client);
    // `rmcp` gives the calls in flight 5 s to answer a closed stdin, then cancels them; the
    // handler's wait for the client ends with it.
    let ended = tokio::time::timeout(Duration::from_secs(15), outcome.recv()).await;
    assert!(matches!(ended, Ok(Some(Err(_)))), "{ended:?}");
}

/// Never answers; its tool allows 100 ms. Keeps its call's cancellation flag in `seen`.
#[derive(toolmodel::Tool)]
#[tool(input = WaitArgs, timeout = "100ms")]
struct Stall {
    seen: Arc<std::sync::Mutex<Option<toolmodel::Cancellation>>>,
}

impl ToolHandler for Stall {
    type Reply = &'static str;
    async fn call(&self, _: WaitArgs, cx: &CallContext) -> Result<&'static str, ToolError> {
        if let Ok(mut seen) = self.seen.lock() {
            *seen = Some(cx.cancellation().clone());
        }
        std::future::pending().await
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_server_enforces_a_tool_s_timeout_with_tokio_s_timer() {
    let seen = Arc::new(std::sync::Mutex::new(None));
    let toolbox = Toolbox::builder()
        .with(Stall {
            seen: Arc::clone(&seen),
        })
        .build()
        .expect("toolbox");
    let service = connect(ToolboxServer::new(toolbox), ()).await;
    let result = tokio::time::timeout(WAIT, service.call_tool(CallToolRequestParams::new("stall")))
        .await
        .expect("the call ends by its timeout")
        .expect("a result, not an error");
    assert_eq!(result.is_error, Some(true));
    let text = serde_json::to_value(&result.content).expect("content");
    assert_eq!(
        text[0]["text"],
        "tool \"stall\" did not finish within its timeout of 100ms (timeoutMs 100); the call was cancelled"
    );
    let flag = seen.lock().expect("lock").clone().expect("the handler ran");
    assert!(flag.is_cancelled(), "the handler's cancellation is set");
    service.cancel().await.expect("closes");
}
