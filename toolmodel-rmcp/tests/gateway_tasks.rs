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
        ClientConfig, ErrorCode, GetPromptRequestParams, GetPromptResponse, GetTaskParams,
        Implementation, InputResponses, ReadResourceRequestParams, ReadResourceResponse,
        TaskPayload, TaskStatus, UpdateTaskParams,
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
    federation::{Federation, FederationConfig, HttpTransport, NamePolicy, UpstreamConfig},
};
use toolmodel_test_support::issuer;

use crate::support::{
    pipe,
    task_tools::{Now, Wait},
    two_users,
};

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
    crate::gateway_policy::upstream(toolbox).await
}

/// A federation whose one server `jobs` is a fresh [`upstream`], tools named by `names`.
async fn federation(names: NamePolicy) -> Federation {
    let addr = upstream().await;
    let config = FederationConfig::builder()
        .with_upstream(UpstreamConfig::http(
            "jobs",
            HttpTransport::new(format!("http://{addr}/mcp")),
        ))
        .with_tool_names(names)
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
    let server = ToolboxServer::gateway(&federation);
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
    let (alice, mallory) =
        two_users::alice_and_mallory(&issuer, &federation, || Client { tasks: true }, false).await;

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

/// An upstream whose prompt `stateful` and resource `state://r` ask for input and hand out
/// a `requestState` (MCP 2026-07-28), then answer with the state they got back.
struct Stateful;

impl Stateful {
    fn asking(state: &str) -> rmcp::model::InputRequiredResult {
        let elicit: rmcp::model::InputRequest = serde_json::from_value(json!({
            "method": "elicitation/create",
            "params": {"message": "Go on?", "requestedSchema": {
                "type": "object", "properties": {"go": {"type": "boolean"}}}}
        }))
        .expect("an input request");
        let mut input = rmcp::model::InputRequiredResult::from_input_requests(
            rmcp::model::InputRequests::from([("go".to_owned(), elicit)]),
        );
        input.request_state = Some(state.to_owned());
        input
    }
}

impl rmcp::ServerHandler for Stateful {
    fn get_info(&self) -> rmcp::model::ServerConfig {
        rmcp::model::ServerConfig::new(
            rmcp::model::ServerCapabilities::builder()
                .enable_prompts()
                .enable_resources()
                .build(),
        )
    }

    async fn list_prompts(
        &self,
        _request: Option<rmcp::model::PaginatedRequestParams>,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<rmcp::model::ListPromptsResult, rmcp::ErrorData> {
        let prompt = rmcp::model::Prompt::new("stateful", None::<String>, None);
        Ok(rmcp::model::ListPromptsResult::with_all_items(vec![prompt]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<GetPromptResponse, rmcp::ErrorData> {
        Ok(match request.request_state {
            Some(state) => {
                rmcp::model::GetPromptResult::new(vec![rmcp::model::PromptMessage::new_text(
                    rmcp::model::Role::User,
                    format!("resumed {state}"),
                )])
                .into()
            }
            None => GetPromptResponse::InputRequired(Self::asking("prompt-state-of-alice")),
        })
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: rmcp::service::RequestContext<rmcp::RoleServer>,
    ) -> Result<ReadResourceResponse, rmcp::ErrorData> {
        Ok(match request.request_state {
            Some(state) => {
                rmcp::model::ReadResourceResult::new(vec![rmcp::model::ResourceContents::text(
                    format!("resumed {state}"),
                    request.uri,
                )])
                .into()
            }
            None => ReadResourceResponse::InputRequired(Self::asking("resource-state-of-alice")),
        })
    }
}

/// `prompts/get` of `stateful` by `client` with `state`: the text of its first message.
async fn resume(
    client: &RunningService<RoleClient, Client>,
    state: String,
) -> Result<String, ServiceError> {
    let request = GetPromptRequestParams::new("stateful").with_request_state(state);
    match client.get_prompt_once(request).await? {
        GetPromptResponse::Complete(result) => {
            let message = serde_json::to_value(&result.messages[0]).expect("JSON");
            Ok(message["content"]["text"].as_str().unwrap_or("").to_owned())
        }
        other => panic!("expected a prompt, got {other:?}"),
    }
}

/// `resources/read` of `state://r` by `client` with `state`.
async fn read(
    client: &RunningService<RoleClient, Client>,
    state: Option<String>,
) -> Result<ReadResourceResponse, ServiceError> {
    let mut request = ReadResourceRequestParams::new("state://r");
    request.request_state = state;
    client.read_resource_once(request).await
}

/// Found by reading in the security review: the gateway passed an upstream's prompt or
/// resource `requestState` to the client as it came and back as it came, and the upstream,
/// which sees every caller as the gateway, cannot bind it to a user: Mallory, given Alice's
/// state, resumed Alice's prompt. Now the gateway seals the state for its caller.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstreams_request_state_is_bound_to_the_caller_it_was_given_to() {
    let Some(issuer) = issuer::Issuer::start(0).await else {
        return;
    };
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let addr = listener.local_addr().expect("an address");
    let upstream =
        ToolboxServer::new(Toolbox::builder().build().expect("toolbox")).with_handler(Stateful);
    tokio::spawn(upstream.serve_http(listener).into_future());
    let config = FederationConfig::builder()
        .with_upstream(UpstreamConfig::http(
            "stateful",
            HttpTransport::new(format!("http://{addr}/mcp")),
        ))
        .build()
        .expect("config");
    let federation = Federation::start(config).await.expect("federation");
    let (alice, mallory) =
        two_users::alice_and_mallory(&issuer, &federation, || Client { tasks: true }, true).await;
    let refused = |result: Result<String, ServiceError>, what: &str| match result {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{what}: {error:?}");
        }
        other => panic!("{what}: expected -32602, got {other:?}"),
    };

    // A prompt: Alice's state is no good to Mallory, nor to another prompt; Alice resumes.
    let first = alice
        .get_prompt_once(GetPromptRequestParams::new("stateful"))
        .await
        .expect("prompts/get");
    let GetPromptResponse::InputRequired(input) = first else {
        panic!("expected input_required, got {first:?}");
    };
    let state = input.request_state.expect("a requestState");
    refused(
        resume(&mallory, state.clone()).await,
        "Mallory with Alice's state",
    );
    assert!(
        !state.contains("alice"),
        "the upstream's state is sealed: {state}"
    );
    refused(
        resume(&alice, "prompt-state-of-alice".to_owned()).await,
        "the upstream's own state, unsealed",
    );
    assert_eq!(
        resume(&alice, state).await.expect("Alice resumes"),
        "resumed prompt-state-of-alice"
    );

    // A resource, the same.
    let ReadResourceResponse::InputRequired(input) = read(&alice, None).await.expect("read") else {
        panic!("expected input_required");
    };
    let state = input.request_state.expect("a requestState");
    match read(&mallory, Some(state.clone())).await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS, "{error:?}");
        }
        other => panic!("Mallory with Alice's resource state: expected -32602, got {other:?}"),
    }
    match read(&alice, Some(state)).await.expect("Alice resumes") {
        ReadResourceResponse::Complete(result) => {
            let text = serde_json::to_value(&result.contents[0]).expect("JSON");
            assert_eq!(text["text"], "resumed resource-state-of-alice");
        }
        other => panic!("expected the resource, got {other:?}"),
    }
    alice.cancel().await.expect("closes");
    mallory.cancel().await.expect("closes");
    federation.shutdown().await;
}
