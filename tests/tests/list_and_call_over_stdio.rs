//! End to end: the example servers (`examples/server.rs`, `examples/conformance_server.rs`)
//! started over stdio as child processes, driven by `rmcp`'s client. Every tool is listed and
//! called; results, `isError` results for bad arguments (each violation with its pointer),
//! the `-32602` errors, progress, logging, sampling and elicitation are checked.
//!
//! It runs the example programs this package builds (`CARGO_BIN_EXE_*`): `cargo test -p
//! toolmodel-tests --test integration list_and_call_over_stdio::`.

// Sampling and logging are deprecated by SEP-2577 (MCP 2026-07-28); these servers speak
// 2025-11-25, which has them.
#![allow(deprecated)]

use std::sync::{Arc, Mutex};

use rmcp::{
    ClientHandler, RoleClient, ServiceError, ServiceExt as _,
    model::{
        CallToolRequestParams, CallToolResult, ClientConfig, CreateMessageRequestParams,
        CreateMessageResult, ElicitRequestParams, ElicitResult, ErrorCode, PaginatedRequestParams,
        ProgressNotificationParam,
    },
    service::{NotificationContext, RequestContext, RunningService},
    transport::TokioChildProcess,
};
use serde_json::{Value, json};
use toolmodel::CallContext;

use crate::support::quickstart;

/// What the server sent the client besides responses.
#[derive(Clone, Default)]
struct Client {
    logs: Arc<Mutex<Vec<Value>>>,
    progress: Arc<Mutex<Vec<Value>>>,
    sampled: Arc<Mutex<Vec<Value>>>,
    elicited: Arc<Mutex<Vec<Value>>>,
}

/// What `store` holds once it holds `count` values, or after 5 s. `rmcp`'s client handles
/// each notification in a task of its own, so the response to a call can be seen before the
/// notifications the server sent ahead of it are stored.
async fn settled(store: &Mutex<Vec<Value>>, count: usize) -> Vec<Value> {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(5);
    loop {
        let held = store.lock().unwrap().clone();
        if held.len() >= count || std::time::Instant::now() >= deadline {
            return held;
        }
        tokio::time::sleep(std::time::Duration::from_millis(5)).await;
    }
}

fn wire<T: serde::Serialize>(value: &T) -> Value {
    serde_json::to_value(value).expect("serializes")
}

fn read<T: serde::de::DeserializeOwned>(value: Value) -> T {
    serde_json::from_value(value).expect("reads")
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        read(json!({
            "protocolVersion": "2025-11-25",
            "capabilities": {"sampling": {}, "elicitation": {}},
            "clientInfo": {"name": "toolmodel-e2e", "version": "0.1.0"}
        }))
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, rmcp::ErrorData> {
        self.sampled.lock().unwrap().push(wire(&params));
        Ok(read(json!({
            "role": "assistant",
            "content": {"type": "text", "text": "four"},
            "model": "test-model",
            "stopReason": "endTurn"
        })))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, rmcp::ErrorData> {
        self.elicited.lock().unwrap().push(wire(&request));
        Ok(read(json!({
            "action": "accept",
            "content": {"username": "ada", "email": "ada@example.com"}
        })))
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.progress.lock().unwrap().push(wire(&params));
    }

    async fn on_logging_message(
        &self,
        params: rmcp::model::LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.logs.lock().unwrap().push(wire(&params));
    }
}

/// Starts an example server as a child process and initializes a session with it; also
/// returns the server's stderr.
async fn start<C: ClientHandler>(
    program: &str,
    client: C,
) -> (RunningService<RoleClient, C>, tokio::process::ChildStderr) {
    let (transport, stderr) = TokioChildProcess::builder(tokio::process::Command::new(program))
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("the example server starts");
    let service = client.serve(transport).await.expect("initialize");
    (service, stderr.expect("piped stderr"))
}

/// Everything the server wrote on stderr, once it has exited.
async fn read_all(mut stderr: tokio::process::ChildStderr) -> String {
    let mut text = String::new();
    tokio::io::AsyncReadExt::read_to_string(&mut stderr, &mut text)
        .await
        .expect("stderr is UTF-8");
    text
}

async fn call<C: ClientHandler>(
    service: &RunningService<RoleClient, C>,
    request: Value,
) -> Result<Value, ServiceError> {
    let params: CallToolRequestParams = read(request);
    let result: CallToolResult = service.call_tool(params).await?;
    Ok(wire(&result))
}

/// The JSON-RPC error code of a failed request.
fn error_code(result: Result<Value, ServiceError>) -> ErrorCode {
    match result {
        Err(ServiceError::McpError(error)) => error.code,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

fn texts(result: &Value) -> Vec<&str> {
    result["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter_map(|block| block["text"].as_str())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn quickstart_server_lists_and_calls_every_tool_over_stdio() {
    let (service, stderr) = start(env!("CARGO_BIN_EXE_example-server"), Client::default()).await;
    let info = service.peer_info().expect("initialized");
    assert_eq!(
        info.server_info.as_ref().map(|server| server.name.as_str()),
        Some("toolmodel-quickstart")
    );
    assert!(info.capabilities.tools.is_some());

    // tools/list: exactly the toolbox's MCP JSON, one page.
    let listed = service.list_tools(None).await.expect("tools/list");
    assert_eq!(listed.next_cursor, None);
    let toolbox = quickstart::toolbox().expect("toolbox");
    let local = toolbox.list(None).expect("first page");
    assert_eq!(wire(&listed.tools), Value::Array(local.tools().to_vec()));
    let names: Vec<&str> = listed.tools.iter().map(|tool| &*tool.name).collect();
    assert_eq!(names, ["docs.search_docs", "ping", "weather.get_weather"]);

    // A cursor the server never gave.
    let bad_cursor = service
        .list_tools(Some(
            PaginatedRequestParams::default().with_cursor(Some("7".into())),
        ))
        .await;
    match bad_cursor {
        Err(ServiceError::McpError(error)) => assert_eq!(error.code, ErrorCode::INVALID_PARAMS),
        other => panic!("expected -32602, got {other:?}"),
    }

    // Each tool, as the in-process toolbox answers.
    let calls = [
        json!({"name": "weather.get_weather", "arguments": {"city": "Paris", "days": 2, "unit": "fahrenheit"}}),
        json!({"name": "docs.search_docs", "arguments": {"query": "tool", "limit": 1}}),
        json!({"name": "ping"}),
    ];
    for request in calls {
        let remote = call(&service, request.clone()).await.expect("tools/call");
        let arguments = request.get("arguments").and_then(Value::as_object).cloned();
        let name = request["name"].as_str().expect("name");
        let local = pollster::block_on(toolbox.call(name, arguments, &CallContext::new()))
            .expect("local call");
        assert_eq!(remote, wire(&local), "{request}");
        assert_eq!(remote.get("isError"), None, "{request}");
    }
    let weather = call(
        &service,
        json!({"name": "weather.get_weather", "arguments": {"city": "Paris", "days": 2, "unit": "fahrenheit"}}),
    )
    .await
    .expect("tools/call");
    assert_eq!(texts(&weather), ["Paris in 2 days: 21 degrees Fahrenheit"]);
    let search = call(
        &service,
        json!({"name": "docs.search_docs", "arguments": {"query": "tool"}}),
    )
    .await
    .expect("tools/call");
    assert_eq!(search["structuredContent"]["total"], 2);
    assert_eq!(
        search["structuredContent"]["hits"][0]["title"], "Tools",
        "{search}"
    );
    let ping = call(&service, json!({"name": "ping"})).await.expect("ping");
    assert_eq!(texts(&ping), ["pong"]);

    // Bad arguments: an isError result naming every violation by its pointer.
    let bad = call(
        &service,
        json!({"name": "weather.get_weather", "arguments": {"days": 9, "unit": "kelvin", "country": "FR"}}),
    )
    .await
    .expect("an isError result, not a JSON-RPC error");
    assert_eq!(bad["isError"], true);
    let message = texts(&bad).join("\n");
    assert!(
        message.starts_with("invalid arguments for tool \"weather.get_weather\": 4 violations"),
        "{message}"
    );
    for pointer in [
        "(root): \"city\" is a required property",
        "/country: unexpected property \"country\"; expected one of",
        "/days: 9 is greater than the maximum of 7",
        "/unit: \"kelvin\"",
    ] {
        assert!(message.contains(pointer), "{pointer} not in {message}");
    }

    // An unknown tool: JSON-RPC -32602.
    let unknown = call(&service, json!({"name": "get_forecast", "arguments": {}})).await;
    assert_eq!(error_code(unknown), ErrorCode::INVALID_PARAMS);

    service.cancel().await.expect("the client closes");
    // Started by hand, the server says how to connect a client: a configuration snippet that
    // starts this very program.
    let help = read_all(stderr).await;
    let program = env!("CARGO_BIN_EXE_example-server");
    let snippet: Value = serde_json::from_str(
        &help[help.find('{').expect("a JSON snippet")..=help.rfind('}').expect("its end")],
    )
    .expect("the snippet is JSON");
    assert_eq!(
        snippet,
        json!({"mcpServers": {"toolmodel-quickstart": {"command": program}}}),
        "{help}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn conformance_server_tools_reach_the_client_over_stdio() {
    let client = Client::default();
    let (service, _stderr) = start(
        env!("CARGO_BIN_EXE_example-conformance-server"),
        client.clone(),
    )
    .await;

    let listed = service.list_tools(None).await.expect("tools/list");
    let mut names: Vec<&str> = listed.tools.iter().map(|tool| &*tool.name).collect();
    names.sort_unstable();
    assert_eq!(
        names,
        [
            "confirm_delete",
            "echo",
            "failing_job",
            "greet",
            "json_schema_2020_12_tool",
            "multi_input",
            "protocol_error_job",
            "slow_compute",
            "test_audio_content",
            "test_custom_header",
            "test_elicitation",
            "test_embedded_resource",
            "test_error_handling",
            "test_image_content",
            "test_input_required_result_capabilities",
            "test_input_required_result_elicitation",
            "test_input_required_result_list_roots",
            "test_input_required_result_multi_round",
            "test_input_required_result_multiple_inputs",
            "test_input_required_result_request_state",
            "test_input_required_result_sampling",
            "test_input_required_result_tampered_state",
            "test_logging_tool",
            "test_missing_capability",
            "test_multiple_content_types",
            "test_sampling",
            "test_simple_text",
            "test_streaming_elicitation",
            "test_tool_with_logging",
            "test_tool_with_progress",
            "test_tool_with_task",
            "test_trigger_tool_change",
        ]
    );
    for tool in &listed.tools {
        assert!(
            tool.description.as_deref().is_some_and(|d| !d.is_empty()),
            "{}",
            tool.name
        );
    }
    let schema_tool = listed
        .tools
        .iter()
        .find(|tool| tool.name == "json_schema_2020_12_tool")
        .expect("listed");
    let schema = Value::Object((*schema_tool.input_schema).clone());
    assert_eq!(
        schema["$schema"],
        "https://json-schema.org/draft/2020-12/schema"
    );
    assert_eq!(schema["$defs"]["address"]["$anchor"], "addressDef");
    assert_eq!(schema["additionalProperties"], false);
    assert_eq!(schema["then"], json!({"required": ["phone"]}));

    let simple = call(&service, json!({"name": "test_simple_text"}))
        .await
        .expect("call");
    assert_eq!(
        texts(&simple),
        ["This is a simple text response for testing."]
    );

    let image = call(
        &service,
        json!({"name": "test_image_content", "arguments": {}}),
    )
    .await
    .expect("call");
    assert_eq!(image["content"][0]["type"], "image");
    assert_eq!(image["content"][0]["mimeType"], "image/png");
    assert!(
        image["content"][0]["data"]
            .as_str()
            .is_some_and(|data| data.starts_with("iVBORw0KGgo")),
        "a PNG signature: {image}"
    );

    let audio = call(
        &service,
        json!({"name": "test_audio_content", "arguments": {}}),
    )
    .await
    .expect("call");
    assert_eq!(audio["content"][0]["mimeType"], "audio/wav");
    let block: toolmodel::content::ContentBlock = read(audio["content"][0].clone());
    let toolmodel::content::ContentBlock::Audio(sound) = block else {
        panic!("not audio: {audio}")
    };
    let bytes = sound.bytes().expect("base64");
    assert_eq!(&bytes[..4], b"RIFF");
    assert_eq!(&bytes[8..12], b"WAVE");
    assert_eq!(bytes.len(), 46);

    let embedded = call(&service, json!({"name": "test_embedded_resource"}))
        .await
        .expect("call");
    assert_eq!(
        embedded["content"][0],
        json!({"type": "resource", "resource": {
            "uri": "test://embedded-resource",
            "mimeType": "text/plain",
            "text": "This is an embedded resource content."
        }})
    );

    let mixed = call(&service, json!({"name": "test_multiple_content_types"}))
        .await
        .expect("call");
    let kinds: Vec<&str> = mixed["content"]
        .as_array()
        .expect("content")
        .iter()
        .filter_map(|block| block["type"].as_str())
        .collect();
    assert_eq!(kinds, ["text", "image", "resource"]);
    assert_eq!(
        mixed["content"][2]["resource"]["text"],
        r#"{"test":"data","value":123}"#
    );

    let error = call(&service, json!({"name": "test_error_handling"}))
        .await
        .expect("an isError result");
    assert_eq!(error["isError"], true);
    assert_eq!(
        texts(&error),
        ["This tool intentionally returns an error for testing"]
    );

    // Logging: three messages, in order, named by the tool; none once the level is raised.
    let logged = call(&service, json!({"name": "test_tool_with_logging"}))
        .await
        .expect("call");
    assert_eq!(logged.get("isError"), None);
    let logs = settled(&client.logs, 3).await;
    assert_eq!(
        logs,
        [
            "Tool execution started",
            "Tool processing data",
            "Tool execution completed"
        ]
        .map(|data| json!({"level": "info", "logger": "test_tool_with_logging", "data": data}))
    );
    service
        .set_level(read(json!({"level": "warning"})))
        .await
        .expect("logging/setLevel");
    call(&service, json!({"name": "test_tool_with_logging"}))
        .await
        .expect("call");
    assert_eq!(
        client.logs.lock().unwrap().len(),
        3,
        "info is below warning"
    );

    // Progress: 0, 50 and 100 of 100 for the request's token.
    call(
        &service,
        json!({"name": "test_tool_with_progress", "_meta": {"progressToken": "p-1"}}),
    )
    .await
    .expect("call");
    // rmcp's client puts its own token in every request, so the one to expect is whatever
    // the first notification carries: the same in all three.
    let progress = settled(&client.progress, 3).await;
    let token = progress[0]["progressToken"].clone();
    assert!(token.is_string() || token.is_number(), "{token}");
    let steps: Vec<_> = progress
        .iter()
        .map(|n| {
            (
                n["progressToken"].clone(),
                n["progress"].as_f64(),
                n["total"].as_f64(),
            )
        })
        .collect();
    assert_eq!(
        steps,
        [0.0, 50.0, 100.0].map(|n| (token.clone(), Some(n), Some(100.0)))
    );

    // Sampling and elicitation go to the client and come back in the result.
    let sampled = call(
        &service,
        json!({"name": "test_sampling", "arguments": {"prompt": "2 + 2?"}}),
    )
    .await
    .expect("call");
    assert_eq!(texts(&sampled), ["LLM response: four"]);
    let request = client.sampled.lock().unwrap()[0].clone();
    assert_eq!(
        request["messages"],
        json!([{"role": "user", "content": {"type": "text", "text": "2 + 2?"}}])
    );
    assert_eq!(request["maxTokens"], 100);

    let elicited = call(
        &service,
        json!({"name": "test_elicitation", "arguments": {"message": "Who are you?"}}),
    )
    .await
    .expect("call");
    assert_eq!(
        texts(&elicited),
        [r#"User response: action=accept, content={"email":"ada@example.com","username":"ada"}"#]
    );
    assert_eq!(
        client.elicited.lock().unwrap()[0]["message"],
        "Who are you?"
    );

    // The hand-built schema is enforced: every violation with its pointer.
    let bad = call(
        &service,
        json!({"name": "json_schema_2020_12_tool", "arguments": {
            "name": 7, "contactMethod": "phone", "fax": "1"
        }}),
    )
    .await
    .expect("an isError result");
    assert_eq!(bad["isError"], true);
    let message = texts(&bad).join("\n");
    for expected in [
        "/name: 7 is not of type \"string\"",
        "/fax: unexpected property \"fax\"",
        "\"phone\" is a required property",
    ] {
        assert!(message.contains(expected), "{expected} not in {message}");
    }
    let good = call(
        &service,
        json!({"name": "json_schema_2020_12_tool", "arguments": {
            "name": "Ada", "contactMethod": "email", "email": "ada@example.com"
        }}),
    )
    .await
    .expect("call");
    assert_eq!(good.get("isError"), None, "{good}");

    // Arguments a derived tool refuses, and an unknown tool.
    let missing = call(&service, json!({"name": "test_sampling", "arguments": {}}))
        .await
        .expect("an isError result");
    assert_eq!(missing["isError"], true);
    assert!(
        texts(&missing)
            .join("\n")
            .contains("(root): \"prompt\" is a required property"),
        "{missing}"
    );
    let unknown = call(&service, json!({"name": "test_nothing"})).await;
    assert_eq!(error_code(unknown), ErrorCode::INVALID_PARAMS);

    service.cancel().await.expect("the client closes");
}

/// The client's `sampling` capability is required before the server asks it for a message:
/// without it the call fails with MCP's `MissingRequiredClientCapability` (`-32021`), naming
/// the capability in `data.requiredCapabilities`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sampling_without_the_client_capability_is_missing_required_client_capability() {
    let (service, _stderr) = start(env!("CARGO_BIN_EXE_example-conformance-server"), ()).await;
    let result = call(
        &service,
        json!({"name": "test_sampling", "arguments": {"prompt": "hi"}}),
    )
    .await;
    match result {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode(-32021));
            assert_eq!(
                error.data,
                Some(json!({"requiredCapabilities": {"sampling": {}}}))
            );
            assert!(error.message.contains("sampling"), "{}", error.message);
        }
        other => panic!("expected -32021, got {other:?}"),
    }
    service.cancel().await.expect("closes");
}
