//! Progressive disclosure (`ToolboxServer::with_tool_search`): a catalog served as
//! `search_tools` and `call_tool`, with FastMCP's names, schemas and result shapes
//! (`BM25SearchTransform`, FastMCP 4.2: what its server lists and answers is written out
//! below). Driven by `rmcp`'s client over an in-memory pipe and Streamable HTTP, through a
//! gateway over `@modelcontextprotocol/server-everything` and a server of our own, and by the
//! official Python SDK (`mcp`, from the upstreams' virtual environment).

use std::time::Duration;

use rmcp::{
    ClientHandler,
    model::{
        CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, GetTaskParams,
        Implementation, InputResponses, TaskPayload, TaskStatus,
    },
    service::{RoleClient, RunningService, ServiceError},
};
use serde_json::{Map, Value, json};
use toolmodel::{
    CallContext, CallToolResult, NoArguments, ProtocolVersion, Tool, ToolError, ToolHandler,
    Toolbox,
    input::{ElicitRequest, InputRequest, InputRequests},
};
use toolmodel_rmcp::{ToolboxServer, server::ToolSearch};

use crate::support::{add::Add, pipe, task_tools::Wait};

/// What FastMCP's `BM25SearchTransform` lists for its two tools (`inputSchema` and
/// `outputSchema` as FastMCP 4.2.3 writes them; its `_meta.fastmcp.tags` left out).
fn fastmcp_tools() -> Value {
    json!([
        {
            "name": "search_tools",
            "title": "Search Tools",
            "description": "Search for tools using natural language.\n\nReturns matching tool definitions ranked by relevance,\nin the same format as list_tools.",
            "inputSchema": {
                "type": "object",
                "additionalProperties": false,
                "properties": {"query": {"description": "Natural language query to search for tools", "type": "string"}},
                "required": ["query"]
            },
            "outputSchema": {
                "properties": {"result": {"anyOf": [
                    {"type": "string"},
                    {"items": {"additionalProperties": true, "type": "object"}, "type": "array"}
                ]}},
                "required": ["result"],
                "type": "object",
                "x-fastmcp-wrap-result": true
            }
        },
        {
            "name": "call_tool",
            "title": "Call Tool",
            "description": "Call a tool by name with the given arguments.\n\nUse this to execute tools discovered via search_tools.",
            "inputSchema": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "name": {"description": "The name of the tool to call", "type": "string"},
                    "arguments": {
                        "anyOf": [{"additionalProperties": true, "type": "object"}, {"type": "null"}],
                        "default": null,
                        "description": "Arguments to pass to the tool"
                    }
                },
                "required": ["name"]
            }
        }
    ])
}

/// A tool from its MCP JSON, answering `answer`.
fn tool(definition: Value) -> Tool {
    Tool::from_mcp_json(&definition).expect("a tool")
}

/// The catalog of the tests: `add` (Adds two integers), `get_weather`, `create_issue`,
/// `get_time`, and `more`.
fn catalog(more: impl IntoIterator<Item = Tool>) -> Toolbox {
    let mut builder = Toolbox::builder().with(Add::default());
    let tools = [
        tool(
            json!({"name": "get_weather", "description": "Get the weather forecast for a city.",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}),
        ),
        tool(
            json!({"name": "create_issue", "description": "Open an issue in a repository.",
            "inputSchema": {"type": "object", "properties": {"title": {"type": "string"}}}}),
        ),
        tool(
            json!({"name": "get_time", "description": "The current time in a timezone.",
            "inputSchema": {"type": "object"}}),
        ),
    ];
    for tool in tools.into_iter().chain(more) {
        let answer = format!("{} ran", tool.name);
        builder = builder.with_tool(tool, move |_, _| {
            let answer = answer.clone();
            async move { Ok(CallToolResult::text(answer)) }
        });
    }
    builder.build().expect("toolbox")
}

/// The catalog served with search on (threshold 2), `get_time` always visible.
fn server() -> ToolboxServer {
    ToolboxServer::new(catalog([])).with_tool_search(
        ToolSearch::new()
            .with_threshold(2)
            .with_always_visible(["get_time"]),
    )
}

async fn names<C: ClientHandler>(client: &RunningService<RoleClient, C>) -> Vec<String> {
    let tools = client.list_all_tools().await.expect("tools/list");
    tools.iter().map(|tool| tool.name.to_string()).collect()
}

fn object(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

/// The JSON of the result of calling `name` with `arguments`.
async fn call<C: ClientHandler>(
    client: &RunningService<RoleClient, C>,
    name: &str,
    arguments: Value,
) -> Value {
    let request = CallToolRequestParams::new(name.to_owned()).with_arguments(object(arguments));
    let result = client.call_tool(request).await.expect("tools/call");
    serde_json::to_value(result).expect("JSON")
}

/// The names `search_tools` finds for `query`.
async fn found<C: ClientHandler>(
    client: &RunningService<RoleClient, C>,
    query: &str,
) -> Vec<String> {
    let result = call(client, "search_tools", json!({ "query": query })).await;
    assert_ne!(result["isError"], json!(true), "{result}");
    result["structuredContent"]["result"]
        .as_array()
        .expect("a result array")
        .iter()
        .map(|tool| tool["name"].as_str().unwrap_or_default().to_owned())
        .collect()
}

fn text(result: &Value) -> &str {
    result["content"][0]["text"].as_str().unwrap_or_default()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_with_search_lists_the_two_tools_and_the_always_visible_ones() {
    let client = pipe::connect(server(), ()).await;
    // Listed by name, as a toolbox lists its tools.
    assert_eq!(
        names(&client).await,
        ["call_tool", "get_time", "search_tools"]
    );
    let listed = client.list_all_tools().await.expect("tools/list");
    let listed = |name: &str| {
        let tool = listed.iter().find(|tool| tool.name == name).expect(name);
        serde_json::to_value(tool).expect("JSON")
    };
    let fastmcp = fastmcp_tools();
    assert_eq!(listed("search_tools"), fastmcp[0]);
    assert_eq!(listed("call_tool"), fastmcp[1]);
    client.cancel().await.expect("closes");

    // At or below the threshold the whole toolbox is listed, and the two names are no tools.
    let small =
        ToolboxServer::new(catalog([])).with_tool_search(ToolSearch::new().with_threshold(4));
    let client = pipe::connect(small, ()).await;
    assert_eq!(
        names(&client).await,
        ["add", "create_issue", "get_time", "get_weather"]
    );
    let unknown = client
        .call_tool(CallToolRequestParams::new("search_tools"))
        .await;
    assert!(
        matches!(&unknown, Err(ServiceError::McpError(error)) if error.code == rmcp::model::ErrorCode::INVALID_PARAMS),
        "{unknown:?}"
    );
    client.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn search_tools_finds_a_tool_by_a_word_of_its_description_as_tools_list_writes_it() {
    let client = pipe::connect(server(), ()).await;
    let result = call(
        &client,
        "search_tools",
        json!({"query": "weather forecast"}),
    )
    .await;
    let expected = catalog([])
        .get("get_weather")
        .expect("get_weather")
        .to_mcp_json_for(ProtocolVersion::LATEST)
        .expect("written")
        .json;
    let first = &result["structuredContent"]["result"][0];
    // As FastMCP: the definitions under `result`, their JSON in one text block, and the mark
    // that tells a FastMCP client to unwrap `result`.
    assert_eq!(first, &expected);
    let written: Value = serde_json::from_str(text(&result)).expect("the text is JSON");
    assert_eq!(written, result["structuredContent"]["result"]);
    assert_eq!(result["_meta"]["fastmcp"], json!({"wrap_result": true}));

    assert_eq!(found(&client, "sum two integers").await[0], "add");
    // Always visible tools are listed, not searched.
    assert!(
        !found(&client, "current time timezone")
            .await
            .contains(&"get_time".to_owned())
    );
    // Nothing matches: an empty list.
    assert!(found(&client, "zzzz").await.is_empty());
    // An empty query is an error the model can read.
    let empty = call(&client, "search_tools", json!({"query": "  "})).await;
    assert_eq!(empty["isError"], json!(true), "{empty}");
    // So are arguments that are not FastMCP's.
    let bad = call(&client, "search_tools", json!({"q": "weather"})).await;
    assert_eq!(bad["isError"], json!(true), "{bad}");
    assert!(text(&bad).contains("2 violations"), "{bad}");
    client.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn call_tool_calls_the_tool_and_bad_arguments_name_every_violation() {
    let client = pipe::connect(server(), ()).await;
    let sum = call(
        &client,
        "call_tool",
        json!({"name": "add", "arguments": {"a": 2, "b": 3}}),
    )
    .await;
    assert_eq!(text(&sum), "5", "{sum}");
    assert_ne!(sum["isError"], json!(true));

    let bad = call(
        &client,
        "call_tool",
        json!({"name": "add", "arguments": {"a": "2"}}),
    )
    .await;
    assert_eq!(bad["isError"], json!(true), "{bad}");
    assert_eq!(
        text(&bad),
        "invalid arguments for tool \"add\": 2 violations\n\
         (root): \"b\" is a required property (schema /required)\n\
         /a: \"2\" is not of type \"integer\" (schema /properties/a/type)"
    );
    // No `arguments` (or null) is a call with none.
    let none = call(
        &client,
        "call_tool",
        json!({"name": "get_time", "arguments": null}),
    )
    .await;
    assert_eq!(text(&none), "get_time ran", "{none}");
    // call_tool's own arguments are checked as well.
    let bad = call(&client, "call_tool", json!({"tool": "add"})).await;
    assert_eq!(bad["isError"], json!(true), "{bad}");
    assert!(
        text(&bad).starts_with("invalid arguments for tool \"call_tool\""),
        "{bad}"
    );
    // The tools not listed are still served by their own name.
    let direct = call(&client, "get_weather", json!({"city": "Paris"})).await;
    assert_eq!(text(&direct), "get_weather ran");
    client.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_name_or_one_of_the_two_answers_as_unknown() {
    let client = pipe::connect(server(), ()).await;
    let unknown = call(
        &client,
        "call_tool",
        json!({"name": "nope", "arguments": {}}),
    )
    .await;
    assert_eq!(unknown["isError"], json!(true), "{unknown}");
    assert_eq!(text(&unknown), "Unknown tool: 'nope'");
    let itself = call(
        &client,
        "call_tool",
        json!({"name": "search_tools", "arguments": {"query": "x"}}),
    )
    .await;
    assert_eq!(itself["isError"], json!(true), "{itself}");
    assert!(text(&itself).contains("synthetic search tool"), "{itself}");
    client.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_tool_added_by_set_toolbox_is_found_at_once() {
    let server = server();
    let client = pipe::connect(server.clone(), ()).await;
    assert!(found(&client, "translate text").await.is_empty());
    server.set_toolbox(catalog([tool(json!({
        "name": "translate", "description": "Translate text into another language.",
        "inputSchema": {"type": "object"}
    }))]));
    assert_eq!(found(&client, "translate text").await, ["translate"]);
    let ran = call(&client, "call_tool", json!({"name": "translate"})).await;
    assert_eq!(text(&ran), "translate ran");
    // A tool removed is no longer found.
    server.set_toolbox(catalog([]));
    assert!(found(&client, "translate text").await.is_empty());
    client.cancel().await.expect("closes");
}

/// Asks for a name before it answers (MCP 2026-07-28: by input rounds).
#[derive(Default, toolmodel::Tool)]
struct Greet;

impl ToolHandler for Greet {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        let ask = InputRequest::Elicit(ElicitRequest::form(
            "Your name?",
            json!({"type": "object", "properties": {"name": {"type": "string"}}}),
        ));
        let answers = cx.input(InputRequests::new().with("who", ask)).await?;
        let name = answers
            .elicit("who")
            .and_then(|reply| reply.field("name"))
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned();
        Ok(format!("hello {name}"))
    }
}

/// A client that declares elicitation and the tasks extension.
#[derive(Clone, Default)]
struct Declaring;

impl ClientHandler for Declaring {
    fn get_info(&self) -> ClientConfig {
        let capabilities = ClientCapabilities::builder()
            .enable_elicitation()
            .enable_tasks()
            .build();
        ClientConfig::new(capabilities, Implementation::new("tool-search-test", "0"))
    }
}

/// Calls `name` (the support's `wait`) through `call_tool` for 10 ms, which must start a
/// task, and polls it to its end: its ID and result.
async fn waited_as_a_task(
    client: &RunningService<RoleClient, Declaring>,
    name: &str,
) -> (Value, String) {
    let wait = CallToolRequestParams::new("call_tool")
        .with_arguments(object(json!({"name": name, "arguments": {"millis": 10}})));
    let response = client.call_tool_once(wait).await.expect("tools/call");
    let CallToolResponse::Task(created) = response else {
        panic!("expected a task, got {response:?}");
    };
    let task_id = created.task.task_id;
    for _ in 0..250 {
        let got = client
            .get_task(GetTaskParams::new(task_id.clone()))
            .await
            .expect("tasks/get");
        if let TaskPayload::Completed { result } = got.task.payload {
            assert_eq!(got.task.task.status, TaskStatus::Completed);
            return (Value::Object(result), task_id);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {task_id} did not complete");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn call_tool_runs_input_rounds_and_tasks_as_a_direct_call_would() {
    let toolbox = Toolbox::builder()
        .with(Greet)
        .with(Wait::default())
        .build()
        .expect("toolbox");
    let server = ToolboxServer::new(toolbox).with_tool_search(ToolSearch::new());
    let client = pipe::connect_2026_07_28(server, Declaring).await;
    let greet =
        CallToolRequestParams::new("call_tool").with_arguments(object(json!({"name": "greet"})));
    let first = client
        .call_tool_once(greet.clone())
        .await
        .expect("tools/call");
    let CallToolResponse::InputRequired(required) = first else {
        panic!("expected an InputRequiredResult, got {first:?}");
    };
    let state = required.request_state.expect("a requestState");
    let answer = InputResponses::from([(
        "who".to_owned(),
        json!({"action": "accept", "content": {"name": "Ada"}}),
    )]);
    let second = client
        .call_tool_once(greet.with_input_responses(answer).with_request_state(state))
        .await
        .expect("tools/call");
    let CallToolResponse::Complete(done) = second else {
        panic!("expected a result, got {second:?}");
    };
    assert_eq!(
        serde_json::to_value(&done).expect("JSON")["content"][0]["text"],
        "hello Ada"
    );

    // A tool that may run as a task runs as one for a client that declares the extension.
    let waited = waited_as_a_task(&client, "wait").await;
    assert_eq!(waited.0["content"][0]["text"], "waited 10");
    client.cancel().await.expect("closes");
}

#[cfg(feature = "federation")]
mod gateway {
    use std::sync::Arc;
    use toolmodel_rmcp::federation::{
        Federation, FederationConfig, HttpTransport, StdioTransport, UpstreamConfig,
    };

    use rmcp::service::NotificationContext;
    use tokio::sync::Notify;
    use toolmodel_test_support::upstreams::upstreams;

    use super::*;

    /// How long a test waits for what a server should send.
    const WAIT: Duration = Duration::from_secs(10);

    /// A client that is told of `notifications/tools/list_changed`.
    #[derive(Clone, Default)]
    struct Changes(Arc<Notify>);

    impl ClientHandler for Changes {
        async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
            self.0.notify_one();
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_tool_of_an_upstream_is_found_and_called_through_the_gateway() {
        let Some(mut up) = upstreams() else { return };
        let everything = up.remove("EVERYTHING").expect("server-everything");
        let config = FederationConfig::builder()
            .with_upstream(UpstreamConfig::stdio(
                "demo",
                StdioTransport::new(everything),
            ))
            .build()
            .expect("config");
        let federation = Federation::start(config).await.expect("federation");
        let gateway = ToolboxServer::gateway(&federation)
            .with_tool_search(ToolSearch::new().with_always_visible(["echo"]));
        let client = pipe::connect(gateway, ()).await;
        assert_eq!(names(&client).await, ["call_tool", "echo", "search_tools"]);
        let hits = found(&client, "sum of two numbers").await;
        assert_eq!(
            hits.first().map(String::as_str),
            Some("get-sum"),
            "{hits:?}"
        );
        let sum = call(
            &client,
            "call_tool",
            json!({"name": "get-sum", "arguments": {"a": 2, "b": 3}}),
        )
        .await;
        assert!(text(&sum).contains('5'), "{sum}");
        // Found by what the upstream says of itself: its title, "Everything Reference
        // Server", in no tool's own text.
        let by_title = found(&client, "everything").await;
        assert!(!by_title.is_empty());
        // And by the upstream's name, the tools' namespace.
        assert_eq!(found(&client, "demo").await, by_title);
        // Bad arguments never reach the upstream: every violation named.
        let bad = call(
            &client,
            "call_tool",
            json!({"name": "get-sum", "arguments": {"a": "2"}}),
        )
        .await;
        assert_eq!(bad["isError"], json!(true), "{bad}");
        assert!(text(&bad).contains("2 violations"), "{bad}");
        client.cancel().await.expect("closes");
        federation.shutdown().await;
    }

    /// The official Python SDK's client (PyPI `mcp`): lists the tools, searches for `argv[2]`,
    /// calls the first tool found with the JSON arguments `argv[3]` through `call_tool`, and
    /// prints what it saw as one JSON line.
    const PYTHON_CLIENT: &str = r#"
import asyncio, json, sys
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client

async def main(url, query, arguments):
    async with streamable_http_client(url) as streams:
        async with ClientSession(streams[0], streams[1]) as session:
            await session.initialize()
            listed = [tool.name for tool in (await session.list_tools()).tools]
            search = await session.call_tool("search_tools", {"query": query})
            search = search.model_dump(mode="json", by_alias=True, exclude_none=True)
            found = [tool["name"] for tool in search["structuredContent"]["result"]]
            called = await session.call_tool(
                "call_tool", {"name": found[0], "arguments": json.loads(arguments)})
            called = called.model_dump(mode="json", by_alias=True, exclude_none=True)
            print(json.dumps({"listed": listed, "found": found, "called": called}))

asyncio.run(main(*sys.argv[1:]))
"#;

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn the_python_sdk_finds_and_calls_a_tool_it_was_not_listed() {
        let Some(mut up) = upstreams() else { return };
        let everything = up.remove("EVERYTHING").expect("server-everything");
        // mcp-server-time's virtual environment holds the SDK.
        let python = std::path::Path::new(&up["TIME"]).with_file_name("python");
        let config = FederationConfig::builder()
            .with_upstream(UpstreamConfig::stdio(
                "demo",
                StdioTransport::new(everything),
            ))
            .build()
            .expect("config");
        let federation = Federation::start(config).await.expect("federation");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
        let gateway = ToolboxServer::gateway(&federation)
            .with_tool_search(ToolSearch::new().with_always_visible(["echo"]));
        tokio::spawn(gateway.serve_http(listener).into_future());

        let output = tokio::process::Command::new(python)
            .args([
                "-c",
                PYTHON_CLIENT,
                &url,
                "sum of two numbers",
                r#"{"a": 2, "b": 3}"#,
            ])
            .output()
            .await
            .expect("python runs");
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(output.status.success(), "{stderr}");
        let seen: Value = serde_json::from_slice(&output.stdout).expect("one JSON line");
        assert_eq!(seen["listed"], json!(["call_tool", "echo", "search_tools"]));
        assert_eq!(seen["found"][0], "get-sum", "{seen}");
        assert_ne!(seen["called"]["isError"], json!(true), "{seen}");
        assert!(
            seen["called"]["content"][0]["text"]
                .as_str()
                .unwrap_or_default()
                .contains('5'),
            "{seen}"
        );
        federation.shutdown().await;
    }

    /// A server of our own over Streamable HTTP, as an upstream whose tools change.
    async fn upstream(toolbox: Toolbox) -> (ToolboxServer, String) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
        let server = ToolboxServer::new(toolbox)
            .with_server_info("notes-server", "1")
            .with_instructions("Keeps notes");
        tokio::spawn(server.clone().serve_http(listener).into_future());
        (server, url)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn call_tool_hands_an_upstream_s_task_to_it_through_the_gateway() {
        let toolbox = Toolbox::builder()
            .with(Wait::default())
            .build()
            .expect("toolbox");
        let (_upstream, url) = upstream(toolbox).await;
        let config = FederationConfig::builder()
            .with_upstream(UpstreamConfig::http("jobs", HttpTransport::new(url)))
            .build()
            .expect("config");
        let federation = Federation::start(config).await.expect("federation");
        let gateway = ToolboxServer::gateway(&federation).with_tool_search(ToolSearch::new());
        let client = pipe::connect(gateway, Declaring).await;
        let (result, task_id) = waited_as_a_task(&client, "wait").await;
        assert_eq!(result["content"][0]["text"], "waited 10");
        // The upstream's task, under an ID that names its server.
        assert!(task_id.starts_with("jobs:"), "{task_id}");
        client.cancel().await.expect("closes");
        federation.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_upstream_s_new_tool_is_searchable_when_the_gateway_says_its_list_changed() {
        let (notes, url) = upstream(catalog([])).await;
        let config = FederationConfig::builder()
            .with_upstream(UpstreamConfig::http("notes", HttpTransport::new(url)))
            .build()
            .expect("config");
        let federation = Federation::start(config).await.expect("federation");
        let gateway = ToolboxServer::gateway(&federation).with_tool_search(ToolSearch::new());
        let changes = Changes::default();
        let client = pipe::connect(gateway, changes.clone()).await;
        assert!(found(&client, "archive").await.is_empty());

        notes.set_toolbox(catalog([tool(json!({
            "name": "archive_notes", "description": "Archive old notes.",
            "inputSchema": {"type": "object"}
        }))]));
        tokio::time::timeout(WAIT, changes.0.notified())
            .await
            .expect("notifications/tools/list_changed");
        assert_eq!(found(&client, "archive").await, ["archive_notes"]);
        let ran = call(&client, "call_tool", json!({"name": "archive_notes"})).await;
        assert_eq!(text(&ran), "archive_notes ran", "{ran}");
        // Found by its upstream's name too.
        assert!(
            found(&client, "notes")
                .await
                .contains(&"archive_notes".to_owned())
        );
        client.cancel().await.expect("closes");
        federation.shutdown().await;
    }
}

#[cfg(all(feature = "federation", feature = "auth"))]
mod scopes {
    use toolmodel_rmcp::auth::ResourceServer;
    use toolmodel_test_support::issuer::Issuer;

    use super::*;
    use crate::support::two_users::connect;

    /// A tool that needs `scope`.
    fn scoped(name: &str, description: &str, scope: &str) -> Tool {
        let mut tool = tool(json!({"name": name, "description": description,
            "inputSchema": {"type": "object"}}));
        tool.required_scopes = vec![scope.to_owned()];
        tool
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_tool_whose_scopes_the_caller_lacks_is_neither_found_nor_called() {
        let Some(issuer) = Issuer::start(0).await else {
            return;
        };
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("a port");
        let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
        let toolbox = catalog([
            scoped("read_note", "Read a note.", "notes:read"),
            scoped("write_note", "Write a note.", "notes:write"),
        ]);
        let server = ToolboxServer::new(toolbox)
            .with_tool_search(ToolSearch::new())
            .with_authorization(ResourceServer::new(&issuer.url, &url).expect("authorization"));
        tokio::spawn(server.serve_http(listener).into_future());

        let reader = connect(&url, issuer.token(&url, "notes:read").await, (), false).await;
        assert_eq!(found(&reader, "note").await, ["read_note"]);
        let refused = call(&reader, "call_tool", json!({"name": "write_note"})).await;
        assert_eq!(text(&refused), "Unknown tool: 'write_note'", "{refused}");
        let read = call(&reader, "call_tool", json!({"name": "read_note"})).await;
        assert_eq!(text(&read), "read_note ran", "{read}");

        let writer = connect(
            &url,
            issuer.token(&url, "notes:read notes:write").await,
            (),
            false,
        )
        .await;
        let mut both = found(&writer, "note").await;
        both.sort();
        assert_eq!(both, ["read_note", "write_note"]);
        let wrote = call(&writer, "call_tool", json!({"name": "write_note"})).await;
        assert_eq!(text(&wrote), "write_note ran", "{wrote}");
        reader.cancel().await.expect("closes");
        writer.cancel().await.expect("closes");
    }
}
