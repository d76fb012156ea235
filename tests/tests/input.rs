//! Handler input (`CallContext::input`) end to end: the elicitation tools of
//! `examples/conformance_server.rs`, started as a child process, over stdio and over
//! Streamable HTTP, driven to completion by `rmcp`'s client in MCP 2026-07-28 mode (multi
//! round-trip requests: `InputRequiredResult`, then retries with `inputResponses` and the
//! sealed `requestState`) and in 2025-11-25 mode (server-to-client `elicitation/create`);
//! and the tasks that ask for input (`confirm_delete`, `test_tool_with_task`: the tasks
//! extension, `tasks/get` in `input_required`, `tasks/update`).

use std::{
    process::Stdio,
    sync::{Arc, Mutex},
    time::Duration,
};

use rmcp::{
    ClientHandler, RoleClient,
    model::{
        CallToolRequestParams, CallToolResponse, ClientConfig, ElicitRequestParams, ElicitResult,
        GetTaskParams, InputResponses, ProtocolVersion, TaskPayload, TaskStatus, UpdateTaskParams,
    },
    service::{ClientLifecycleMode, ClientServiceExt, RequestContext, RunningService},
    transport::{StreamableHttpClientTransport, TokioChildProcess},
};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, BufReader};

const SERVER: &str = env!("CARGO_BIN_EXE_example-conformance-server");

/// A client that answers every form: `name` "Ada", `color` "green", `username`/`email`.
#[derive(Clone, Default)]
struct Answering {
    version: &'static str,
    asked: Arc<Mutex<Vec<Value>>>,
}

impl ClientHandler for Answering {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": self.version,
            "capabilities": {
                "elicitation": {},
                "extensions": {"io.modelcontextprotocol/tasks": {}}
            },
            "clientInfo": {"name": "toolmodel-input-e2e", "version": "0.1.0"}
        }))
        .expect("a client config")
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        let request = serde_json::to_value(&request).expect("serializes");
        self.asked.lock().unwrap().push(request.clone());
        let fields = request["requestedSchema"]["properties"]
            .as_object()
            .cloned()
            .unwrap_or_default();
        let content: serde_json::Map<String, Value> = fields
            .keys()
            .map(|field| {
                let value = match field.as_str() {
                    "name" => "Ada",
                    "color" => "green",
                    "email" => "ada@example.com",
                    _ => "ada",
                };
                (field.clone(), json!(value))
            })
            .collect();
        Ok(serde_json::from_value(json!({"action": "accept", "content": content})).unwrap())
    }
}

#[derive(Clone, Copy, Debug)]
enum Mode {
    /// `server/discover` and per-request `_meta`: input by `InputRequiredResult`.
    Rounds,
    /// `initialize` at 2025-11-25: input by server-to-client requests.
    Legacy,
}

#[derive(Clone, Copy, Debug)]
enum Wire {
    Stdio,
    Http,
}

/// What [`connect`] returns: the session, the client's record, the HTTP server's process
/// (killed on drop) and URL.
type Connected = (
    RunningService<RoleClient, Answering>,
    Answering,
    Option<tokio::process::Child>,
    Option<String>,
);

/// Starts the conformance server and connects a client in `mode` over `wire`.
async fn connect(wire: Wire, mode: Mode) -> Connected {
    let client = Answering {
        version: match mode {
            Mode::Rounds => "2026-07-28",
            Mode::Legacy => "2025-11-25",
        },
        asked: Arc::default(),
    };
    let lifecycle = match mode {
        Mode::Rounds => ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        },
        Mode::Legacy => ClientLifecycleMode::Initialize,
    };
    match wire {
        Wire::Stdio => {
            let (transport, _stderr) =
                TokioChildProcess::builder(tokio::process::Command::new(SERVER))
                    .stderr(Stdio::null())
                    .spawn()
                    .expect("the conformance server starts");
            let service = client
                .clone()
                .serve_with_lifecycle(transport, lifecycle)
                .await
                .expect("the session starts");
            (service, client, None, None)
        }
        Wire::Http => {
            let mut child = tokio::process::Command::new(SERVER)
                .args(["--http", "127.0.0.1:0"])
                .stderr(Stdio::piped())
                .stdout(Stdio::null())
                .kill_on_drop(true)
                .spawn()
                .expect("the conformance server starts");
            let mut lines = BufReader::new(child.stderr.take().expect("piped")).lines();
            let url = tokio::time::timeout(Duration::from_secs(30), async {
                while let Some(line) = lines.next_line().await.expect("stderr") {
                    if let Some(start) = line.find("http://127.0.0.1:") {
                        let url: String = line[start..]
                            .chars()
                            .take_while(|c| !c.is_whitespace() && *c != '"')
                            .collect();
                        if url.ends_with("/mcp") {
                            return url;
                        }
                    }
                }
                panic!("the server printed no URL")
            })
            .await
            .expect("the server prints its URL in time");
            // Keep reading, so that the server never writes to a closed pipe.
            tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
            let transport = StreamableHttpClientTransport::from_uri(url.clone());
            let service = client
                .clone()
                .serve_with_lifecycle(transport, lifecycle)
                .await
                .expect("the session starts");
            (service, client, Some(child), Some(url))
        }
    }
}

fn params(name: &str, arguments: Value) -> CallToolRequestParams {
    serde_json::from_value(json!({"name": name, "arguments": arguments})).expect("params")
}

fn text(result: &rmcp::model::CallToolResult) -> String {
    let json = serde_json::to_value(result).expect("serializes");
    json["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// `test_elicitation` (one round) and `test_input_required_result_multi_round` (two) run to
/// completion, and what went over the wire is the era's: an `InputRequiredResult` first under
/// 2026-07-28, a complete result at once (after a server-to-client request) before.
async fn drive(wire: Wire, mode: Mode) {
    let (service, client, _child, _url) = connect(wire, mode).await;
    let elicitation = params("test_elicitation", json!({"message": "Who are you?"}));
    let first = service
        .call_tool_once(elicitation.clone())
        .await
        .expect("the first call answers");
    match (mode, first) {
        (Mode::Rounds, CallToolResponse::InputRequired(required)) => {
            let requests = serde_json::to_value(&required.input_requests).unwrap();
            assert_eq!(
                requests["user"]["method"], "elicitation/create",
                "{requests}"
            );
            assert_eq!(requests["user"]["params"]["message"], "Who are you?");
            assert!(required.request_state.is_some(), "a sealed requestState");
        }
        (Mode::Legacy, CallToolResponse::Complete(result)) => {
            assert!(text(&result).contains("ada@example.com"), "{result:?}");
        }
        (mode, other) => panic!("{mode:?} over {wire:?}: unexpected first answer {other:?}"),
    }
    let result = service
        .call_tool(elicitation)
        .await
        .unwrap_or_else(|err| panic!("{mode:?} over {wire:?}: {err}"));
    assert_eq!(
        text(&result),
        r#"User response: action=accept, content={"email":"ada@example.com","username":"ada"}"#
    );
    let result = service
        .call_tool(params("test_input_required_result_multi_round", json!({})))
        .await
        .unwrap_or_else(|err| panic!("{mode:?} over {wire:?}: {err}"));
    assert_eq!(text(&result), "Ada likes green");
    let asked: Vec<String> = client
        .asked
        .lock()
        .unwrap()
        .iter()
        .map(|request| request["message"].as_str().unwrap_or_default().to_owned())
        .collect();
    // Legacy: the first call_tool_once already asked once.
    let expected: &[&str] = match mode {
        Mode::Rounds => &[
            "Who are you?",
            "Step 1: What is your name?",
            "Step 2: What is your favorite color?",
        ],
        Mode::Legacy => &[
            "Who are you?",
            "Who are you?",
            "Step 1: What is your name?",
            "Step 2: What is your favorite color?",
        ],
    };
    assert_eq!(asked, expected, "{mode:?} over {wire:?}");
    service.cancel().await.expect("the client closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_completes_over_stdio_in_2026_07_28_mode() {
    drive(Wire::Stdio, Mode::Rounds).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_completes_over_stdio_in_2025_11_25_mode() {
    drive(Wire::Stdio, Mode::Legacy).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_completes_over_http_in_2026_07_28_mode() {
    drive(Wire::Http, Mode::Rounds).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn elicitation_completes_over_http_in_2025_11_25_mode() {
    drive(Wire::Http, Mode::Legacy).await;
}

/// Polls `tasks/get` until the task leaves `working` (at most 10 s).
async fn poll(service: &RunningService<RoleClient, Answering>, task_id: &str) -> TaskPayload {
    for _ in 0..200 {
        let got = service
            .get_task(GetTaskParams::new(task_id))
            .await
            .expect("tasks/get");
        if got.task.task.status != TaskStatus::Working {
            return got.task.payload;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {task_id} stayed working");
}

fn task_id(response: CallToolResponse) -> String {
    match response {
        CallToolResponse::Task(created) => created.task.task_id,
        other => panic!("expected a task, got {other:?}"),
    }
}

fn completed_text(payload: &TaskPayload) -> String {
    match payload {
        TaskPayload::Completed { result } => result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        other => panic!("expected completed, got {other:?}"),
    }
}

/// `confirm_delete` as a task waits in `input_required` and completes after `tasks/update`;
/// `test_tool_with_task` asks by an input round first, then becomes a task with the answer.
async fn drive_tasks(wire: Wire) {
    let (service, _client, _child, _url) = connect(wire, Mode::Rounds).await;
    let created = service
        .call_tool_once(params("confirm_delete", json!({"filename": "notes.txt"})))
        .await
        .expect("tools/call");
    let task = task_id(created);
    let TaskPayload::InputRequired { input_requests } = poll(&service, &task).await else {
        panic!("{wire:?}: expected input_required");
    };
    let requests = serde_json::to_value(&input_requests).unwrap();
    assert_eq!(requests["confirm"]["method"], "elicitation/create");
    assert_eq!(
        requests["confirm"]["params"]["message"],
        "Delete notes.txt?"
    );
    let answer = InputResponses::from([(
        "confirm".to_owned(),
        json!({"action": "accept", "content": {"confirm": true}}),
    )]);
    service
        .update_task(UpdateTaskParams::new(task.clone(), answer))
        .await
        .expect("tasks/update");
    let done = loop {
        let payload = poll(&service, &task).await;
        if !matches!(payload, TaskPayload::InputRequired { .. }) {
            break payload;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(completed_text(&done), "Deleted notes.txt", "{wire:?}");

    let first = service
        .call_tool_once(params("test_tool_with_task", json!({})))
        .await
        .expect("tools/call");
    let CallToolResponse::InputRequired(required) = first else {
        panic!("{wire:?}: expected an InputRequiredResult, got {first:?}");
    };
    let answer = InputResponses::from([(
        "user_name".to_owned(),
        json!({"action": "accept", "content": {"name": "Alice"}}),
    )]);
    let retry = params("test_tool_with_task", json!({}))
        .with_input_responses(answer)
        .with_request_state(required.request_state.expect("a requestState"));
    let task = task_id(service.call_tool_once(retry).await.expect("tools/call"));
    let done = poll(&service, &task).await;
    assert_eq!(
        completed_text(&done),
        "Hello, Alice! (from the task)",
        "{wire:?}"
    );
    service.cancel().await.expect("the client closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_that_ask_for_input_complete_over_stdio() {
    drive_tasks(Wire::Stdio).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tasks_that_ask_for_input_complete_over_http() {
    drive_tasks(Wire::Http).await;
}

/// A 2026-07-28 retry with a tampered `requestState` is refused with `-32602`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tampered_request_state_is_invalid_params() {
    let (service, _client, _child, _url) = connect(Wire::Stdio, Mode::Rounds).await;
    let call = params("test_input_required_result_tampered_state", json!({}));
    let CallToolResponse::InputRequired(required) =
        service.call_tool_once(call.clone()).await.expect("answers")
    else {
        panic!("an InputRequiredResult")
    };
    let state = required.request_state.expect("a requestState");
    let retry = call
        .with_input_responses(
            [(
                "confirm".to_owned(),
                json!({"action": "accept", "content": {"ok": true}}),
            )]
            .into_iter()
            .collect(),
        )
        .with_request_state(format!("{state}-TAMPERED"));
    match service.call_tool_once(retry).await {
        Err(rmcp::service::ServiceError::McpError(error)) => {
            assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
            assert!(error.message.contains("requestState"), "{}", error.message);
        }
        other => panic!("expected -32602, got {other:?}"),
    }
    service.cancel().await.expect("the client closes");
}

/// POSTs one stateless 2026-07-28 `tools/call` with `headers`; the HTTP status and the
/// JSON-RPC response (the first `data:` of an event stream, or the JSON body).
async fn post(url: &str, body: Value, headers: &[(&str, &str)]) -> (u16, Value) {
    let mut request = reqwest::Client::new()
        .post(url)
        .header("Content-Type", "application/json")
        .header("Accept", "application/json, text/event-stream")
        .header("MCP-Protocol-Version", "2026-07-28")
        .header("Mcp-Method", "tools/call");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request
        .body(body.to_string())
        .send()
        .await
        .expect("the server answers");
    let status = response.status().as_u16();
    let text = response.text().await.expect("a body");
    let json = text
        .lines()
        .find_map(|line| line.strip_prefix("data:"))
        .map_or(text.as_str(), str::trim);
    (status, serde_json::from_str(json).unwrap_or(Value::Null))
}

fn stateless_call(name: &str, arguments: Value, capabilities: Value) -> Value {
    json!({
        "jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {
            "name": name, "arguments": arguments,
            "_meta": {
                "io.modelcontextprotocol/protocolVersion": "2026-07-28",
                "io.modelcontextprotocol/clientInfo": {"name": "raw", "version": "0"},
                "io.modelcontextprotocol/clientCapabilities": capabilities
            }
        }
    })
}

/// Over HTTP, the per-request rules of 2026-07-28: `rmcp` checks `Mcp-Name` and the
/// `x-mcp-header` parameter's `Mcp-Param-Region` (plain or base64) against the body (`-32020`,
/// HTTP 400) from the `inputSchema` the server gives it; an undeclared capability is `-32021`
/// with HTTP 400.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn headers_and_capabilities_are_checked_per_request_over_http() {
    let (service, _client, _child, url) = connect(Wire::Http, Mode::Rounds).await;
    let url = url.expect("an HTTP server");
    let body = stateless_call(
        "test_custom_header",
        json!({"region": "eu-west"}),
        json!({}),
    );
    let name = ("Mcp-Name", "test_custom_header");
    let (status, ok) = post(&url, body.clone(), &[name, ("Mcp-Param-Region", "eu-west")]).await;
    assert_eq!(
        (status, ok["result"]["content"][0]["text"].clone()),
        (200, json!("Region: \"eu-west\"")),
        "{ok}"
    );
    let (status, ok) = post(
        &url,
        body.clone(),
        &[name, ("Mcp-Param-Region", "=?base64?ZXUtd2VzdA==?=")],
    )
    .await;
    assert_eq!(status, 200, "{ok}");
    for headers in [
        vec![name, ("Mcp-Param-Region", "us-east")],
        vec![name],
        vec![
            ("Mcp-Name", "another_tool"),
            ("Mcp-Param-Region", "eu-west"),
        ],
        vec![name, ("Mcp-Param-Region", "=?base64?not*base64?=")],
    ] {
        let (status, refused) = post(&url, body.clone(), &headers).await;
        assert_eq!(
            (status, refused["error"]["code"].clone()),
            (400, json!(-32020)),
            "{headers:?}: {refused}"
        );
    }
    let missing = stateless_call(
        "test_missing_capability",
        json!({}),
        json!({"elicitation": {}}),
    );
    let (status, refused) = post(&url, missing, &[("Mcp-Name", "test_missing_capability")]).await;
    assert_eq!(
        (status, refused["error"]["code"].clone()),
        (400, json!(-32021)),
        "{refused}"
    );
    assert_eq!(
        refused["error"]["data"]["requiredCapabilities"],
        json!({"sampling": {}})
    );
    service.cancel().await.expect("the client closes");
}
