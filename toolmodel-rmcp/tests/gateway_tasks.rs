//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) through the gateway: a
//! `ToolboxServer` over a federation whose one upstream is a `ToolboxServer` with task tools
//! (over Streamable HTTP on loopback), driven by `rmcp`'s client over an in-memory pipe. The
//! upstream's tasks are created, polled, answered and cancelled through the gateway, under
//! task IDs that name the server.

use std::time::Duration;

use rmcp::{
    ClientHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities,
        ClientConfig, ErrorCode, GetTaskParams, Implementation, InputResponses, TaskPayload,
        TaskStatus, UpdateTaskParams,
    },
    service::{RoleClient, RunningService, ServiceError},
};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use toolmodel::{
    CallContext, NoArguments, ToolError, ToolHandler, Toolbox,
    input::{ElicitRequest, InputRequest, InputRequests},
};
use toolmodel_rmcp::{
    ToolboxServer,
    auth::Authorization,
    federation::{Federation, FederationConfig, HttpTransport, NamePolicy, ServerConfig},
};

#[path = "support/issuer.rs"]
mod issuer;
#[path = "support/pipe.rs"]
mod pipe;
#[path = "support/task_tools.rs"]
mod task_tools;

use task_tools::{Now, Wait};

/// Asks for a name, then greets it; may run as a task.
#[derive(Default, toolmodel::Tool)]
#[tool(task_support = "optional")]
struct AskName;

impl ToolHandler for AskName {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        let ask = InputRequest::Elicit(ElicitRequest::form(
            "Your name?",
            json!({"type": "object", "properties": {"name": {"type": "string"}}}),
        ));
        let answers = cx.input(InputRequests::new().with("name", ask)).await?;
        let name = answers
            .elicit("name")
            .and_then(|reply| reply.field("name"))
            .and_then(Value::as_str)
            .unwrap_or("?")
            .to_owned();
        Ok(format!("Hello, {name}!"))
    }
}

/// A client that declares the tasks extension (and elicitation), or nothing.
struct Client {
    tasks: bool,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.tasks {
            ClientCapabilities::builder()
                .enable_tasks()
                .enable_elicitation()
                .build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(capabilities, Implementation::new("gateway-tasks-test", "0"))
    }
}

/// The upstream (`wait`, `ask_name`, `now`) on a free loopback port, and a gateway over it
/// as server `jobs`, with a client of `client` connected (MCP 2025-11-25).
async fn gateway(client: Client) -> (Federation, RunningService<RoleClient, Client>) {
    gateway_naming(client, NamePolicy::default()).await
}

/// The upstream (`wait`, `ask_name`, `now`) on a free loopback port: its address.
async fn upstream() -> std::net::SocketAddr {
    let toolbox = Toolbox::builder()
        .with(Wait::default())
        .with(AskName)
        .with(Now)
        .build()
        .expect("toolbox");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(ToolboxServer::new(toolbox).serve_http(listener));
    addr
}

/// A federation whose one server `jobs` is a fresh [`upstream`], tools named by `names`.
async fn federation(names: NamePolicy) -> Federation {
    let addr = upstream().await;
    let config = FederationConfig::builder()
        .server(ServerConfig::http(
            "jobs",
            HttpTransport::new(format!("http://{addr}/mcp")),
        ))
        .tool_names(names)
        .build()
        .expect("config");
    Federation::start(config).await.expect("federation")
}

/// [`gateway`], its tools named by `names`.
async fn gateway_naming(
    client: Client,
    names: NamePolicy,
) -> (Federation, RunningService<RoleClient, Client>) {
    let federation = federation(names).await;
    let server = ToolboxServer::new(federation.toolbox()).with_handler(federation.passthrough());
    federation.serve(&server);
    (federation, pipe::connect(server, client).await)
}

fn arguments(value: Value) -> serde_json::Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

/// The task ID of a `tools/call` that must create a task.
async fn create(
    service: &RunningService<RoleClient, Client>,
    call: CallToolRequestParams,
) -> String {
    match service.call_tool_once(call).await.expect("tools/call") {
        CallToolResponse::Task(created) => created.task.task_id,
        other => panic!("expected a task, got {other:?}"),
    }
}

/// Polls `tasks/get` until `done` says so (at most 5 s); returns that poll.
async fn poll_until(
    service: &RunningService<RoleClient, Client>,
    task_id: &str,
    done: impl Fn(TaskStatus) -> bool,
) -> TaskPayload {
    for _ in 0..250 {
        let got = service
            .get_task(GetTaskParams::new(task_id))
            .await
            .expect("tasks/get");
        assert_eq!(got.task.task.task_id, task_id, "tasks/get names the task");
        if done(got.task.task.status) {
            return got.task.payload;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {task_id} did not reach the state waited for");
}

fn terminal(status: TaskStatus) -> bool {
    !matches!(status, TaskStatus::Working | TaskStatus::InputRequired)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_task_is_created_polled_answered_and_cancelled_through_the_gateway() {
    let (federation, service) = gateway(Client { tasks: true }).await;
    let capabilities = &service.peer_info().expect("initialize").capabilities;
    assert!(
        capabilities.supports_tasks(),
        "the gateway advertises the extension its upstream declares"
    );

    // Created and polled to its result; the ID names the server.
    let task = create(
        &service,
        CallToolRequestParams::new("wait").with_arguments(arguments(json!({"millis": 50}))),
    )
    .await;
    assert!(task.starts_with("jobs:"), "{task}");
    match poll_until(&service, &task, terminal).await {
        TaskPayload::Completed { result } => {
            assert_eq!(result["content"][0]["text"], json!("waited 50"));
        }
        other => panic!("expected completed, got {other:?}"),
    }

    // Parked for input, answered with tasks/update, completed with the answer.
    let asking = create(&service, CallToolRequestParams::new("ask_name")).await;
    let payload = poll_until(&service, &asking, |status| {
        status == TaskStatus::InputRequired
    })
    .await;
    let TaskPayload::InputRequired { input_requests } = payload else {
        panic!("expected input_required, got {payload:?}");
    };
    let request = serde_json::to_value(&input_requests["name"]).expect("JSON");
    assert_eq!(request["method"], json!("elicitation/create"));
    service
        .update_task(UpdateTaskParams::new(
            asking.clone(),
            InputResponses::from([(
                "name".to_owned(),
                json!({"action": "accept", "content": {"name": "Ada"}}),
            )]),
        ))
        .await
        .expect("tasks/update");
    match poll_until(&service, &asking, terminal).await {
        TaskPayload::Completed { result } => {
            assert_eq!(result["content"][0]["text"], json!("Hello, Ada!"));
        }
        other => panic!("expected completed, got {other:?}"),
    }

    // Cancelled: the upstream's handler stops and the task settles as cancelled.
    let long = create(
        &service,
        CallToolRequestParams::new("wait").with_arguments(arguments(json!({"millis": 60_000}))),
    )
    .await;
    service
        .cancel_task(CancelTaskParams::new(long.clone()))
        .await
        .expect("tasks/cancel");
    let cancelled = poll_until(&service, &long, terminal).await;
    assert!(matches!(cancelled, TaskPayload::Cancelled), "{cancelled:?}");

    // A tool that never runs as a task answers at once; unknown IDs are -32602.
    let now = service
        .call_tool_once(CallToolRequestParams::new("now"))
        .await
        .expect("tools/call");
    assert!(matches!(now, CallToolResponse::Complete(_)), "{now:?}");
    for unknown in ["no-such-task", "elsewhere:abc", "jobs:no-such-task"] {
        match service.get_task(GetTaskParams::new(unknown)).await {
            Err(ServiceError::McpError(error)) => {
                assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{unknown}");
            }
            other => panic!("expected -32602 for {unknown}, got {other:?}"),
        }
    }
    service.cancel().await.expect("closes");
    federation.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_arguments_of_a_forwarded_call_are_stopped_at_the_gateway() {
    // Named `jobs__wait` by the gateway and `wait` upstream: the violations name the gateway's
    // name, so they were found before the call crossed the network.
    let (federation, service) = gateway_naming(Client { tasks: true }, NamePolicy::Always).await;
    let answer = service
        .call_tool_once(
            CallToolRequestParams::new("jobs__wait")
                .with_arguments(arguments(json!({"millis": "soon"}))),
        )
        .await
        .expect("tools/call");
    let CallToolResponse::Complete(result) = answer else {
        panic!("expected a result, got {answer:?}");
    };
    assert_eq!(result.is_error, Some(true));
    let text = serde_json::to_value(&result.content).expect("JSON")[0]["text"].clone();
    let text = text.as_str().unwrap_or_default();
    assert!(
        text.starts_with("invalid arguments for tool \"jobs__wait\": 1 violation\n/millis:"),
        "{text}"
    );
    // Good arguments still make a task, under the upstream's name for the tool.
    let task = create(
        &service,
        CallToolRequestParams::new("jobs__wait").with_arguments(arguments(json!({"millis": 1}))),
    )
    .await;
    assert!(task.starts_with("jobs:"), "{task}");
    service.cancel().await.expect("closes");
    federation.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_the_extension_gets_results_and_no_task_methods() {
    let (federation, service) = gateway(Client { tasks: false }).await;
    let waited = service
        .call_tool_once(
            CallToolRequestParams::new("wait").with_arguments(arguments(json!({"millis": 1}))),
        )
        .await
        .expect("tools/call");
    match waited {
        CallToolResponse::Complete(result) => {
            let result = serde_json::to_value(result).expect("JSON");
            assert_eq!(result["content"][0]["text"], json!("waited 1"));
        }
        other => panic!("expected a result, got {other:?}"),
    }
    match service.get_task(GetTaskParams::new("jobs:any")).await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
        }
        other => panic!("expected -32021, got {other:?}"),
    }
    service.cancel().await.expect("closes");
    federation.shutdown().await;
}

/// A client of the tasks extension connected to the gateway at `url` over Streamable HTTP
/// (MCP 2025-11-25) with `token`.
async fn connect_http(url: &str, token: String) -> RunningService<RoleClient, Client> {
    use rmcp::{
        ServiceExt as _,
        transport::{
            StreamableHttpClientTransport,
            streamable_http_client::StreamableHttpClientTransportConfig,
        },
    };
    let config = StreamableHttpClientTransportConfig::with_uri(url).auth_header(token);
    Client { tasks: true }
        .serve(StreamableHttpClientTransport::from_config(config))
        .await
        .expect("connects")
}

/// The security review's finding: under authorization a task ID's owner tag was a hash any
/// caller could compute for itself, so Mallory, given Alice's task ID, put her own tag
/// before Alice's upstream ID and read and cancelled Alice's task. Every form of Alice's ID
/// that Mallory can make is now unknown to her.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_other_caller_reaches_a_forwarded_task_even_with_an_id_it_made_itself() {
    let Some(issuer) = issuer::Issuer::start(0).await else {
        return;
    };
    let federation = federation(NamePolicy::default()).await;
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let server = ToolboxServer::new(federation.toolbox())
        .with_handler(federation.passthrough())
        .with_authorization(Authorization::new(&issuer.url, &url).expect("authorization"));
    federation.serve(&server);
    tokio::spawn(server.serve_http(listener));
    let alice = connect_http(&url, issuer.token(&url, "notes:read").await).await;
    let mallory_token = issuer
        .token_for(issuer::OTHER_CLIENT, &url, "notes:read")
        .await;
    let mallory = connect_http(&url, mallory_token).await;

    let wait = |millis: u64| {
        CallToolRequestParams::new("wait").with_arguments(arguments(json!({"millis": millis})))
    };
    let alices = create(&alice, wait(60_000)).await;
    let mallorys = create(&mallory, wait(60_000)).await;
    // `jobs:<tag>:<upstream ID>`.
    let upstream_id = |id: &str| id.splitn(3, ':').nth(2).expect("three parts").to_owned();
    let (alices_upstream, mallorys_upstream) = (upstream_id(&alices), upstream_id(&mallorys));
    assert_ne!(alices_upstream, mallorys_upstream);
    // The tag of the finding: the first 16 bytes of SHA-256 of `["<issuer>","<subject>"]`
    // in hex (the subject of a client_credentials token is its client ID).
    let unkeyed = {
        use sha2::Digest as _;
        let owner = json!([issuer.url, issuer::OTHER_CLIENT.0]).to_string();
        sha2::Sha256::digest(owner.as_bytes())[..16]
            .iter()
            .map(|byte| format!("{byte:02x}"))
            .collect::<String>()
    };
    let mallorys_tag = mallorys.split(':').nth(1).expect("a tag").to_owned();
    let forged = [
        alices.clone(),
        format!("jobs:{unkeyed}:{alices_upstream}"),
        format!("jobs:{mallorys_tag}:{alices_upstream}"),
        format!("jobs:{alices_upstream}"),
    ];
    for id in &forged {
        let unknown = |result: Result<(), ServiceError>, method: &str| match result {
            Err(ServiceError::McpError(error)) => {
                assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{method} {id}");
            }
            other => panic!("{method} of {id}: expected -32602, got {other:?}"),
        };
        unknown(
            mallory
                .get_task(GetTaskParams::new(id.clone()))
                .await
                .map(drop),
            "tasks/get",
        );
        unknown(
            mallory
                .cancel_task(CancelTaskParams::new(id.clone()))
                .await
                .map(drop),
            "tasks/cancel",
        );
    }
    // Alice's task is untouched and hers; Mallory's is hers.
    let got = alice
        .get_task(GetTaskParams::new(alices.clone()))
        .await
        .expect("tasks/get");
    assert_eq!(got.task.task.status, TaskStatus::Working);
    let got = mallory
        .get_task(GetTaskParams::new(mallorys.clone()))
        .await
        .expect("tasks/get");
    assert_eq!(got.task.task.status, TaskStatus::Working);
    for (client, id) in [(&alice, &alices), (&mallory, &mallorys)] {
        client
            .cancel_task(CancelTaskParams::new(id.clone()))
            .await
            .expect("tasks/cancel");
    }
    alice.cancel().await.expect("closes");
    mallory.cancel().await.expect("closes");
    federation.shutdown().await;
}
