//! Tasks that ask for input (the tasks extension, `io.modelcontextprotocol/tasks`, SEP-2663,
//! with MCP 2026-07-28 input): a task parks in `input_required` with its `inputRequests` and
//! goes on when `tasks/update` answers; input asked before the task goes by input rounds on
//! the `tools/call`; a task's call has the per-request capability and log-level rules of an
//! ordinary call. Driven by `rmcp`'s client over an in-memory pipe.

// Logging is deprecated by SEP-2577 (MCP 2026-07-28); the per-request level still filters.
#![allow(deprecated)]

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use rmcp::{
    ClientHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities,
        ClientConfig, GetTaskParams, Implementation, InputResponses, LoggingLevel,
        LoggingMessageNotificationParam, RequestMetaObject, TaskPayload, TaskStatus,
        UpdateTaskParams,
    },
    service::{NotificationContext, RoleClient, RunningService},
};
use serde_json::{Value, json};
use toolmodel::{
    CallContext, NoArguments, ToolError, ToolHandler, Toolbox,
    input::{ElicitRequest, InputRequest, InputRequests, InputResponses as Answers},
    peer,
};
use toolmodel_rmcp::ToolboxServer;

use crate::support::pipe;

fn form(message: &str) -> InputRequest {
    InputRequest::Elicit(ElicitRequest::form(
        message,
        json!({"type": "object", "properties": {"name": {"type": "string"}}}),
    ))
}

fn name(answers: &Answers, key: &str) -> String {
    answers
        .elicit(key)
        .and_then(|reply| reply.field("name"))
        .and_then(Value::as_str)
        .unwrap_or("?")
        .to_owned()
}

/// Asks two names at once, then a third in a second round; a task when it may be.
#[derive(Default, toolmodel::Tool)]
#[tool(task_support = "optional")]
struct Names;

impl ToolHandler for Names {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        let two = cx
            .input(
                InputRequests::new()
                    .with("a", form("First?"))
                    .with("b", form("Second?")),
            )
            .await?;
        let third = cx
            .input(InputRequests::new().with("c", form("Third?")))
            .await?;
        Ok(format!(
            "{} {} {}",
            name(&two, "a"),
            name(&two, "b"),
            name(&third, "c")
        ))
    }
}

/// Asks `count` names at once (keys `k0`, `k1`, ...); a task when it may be.
#[derive(Default, serde::Deserialize, schemars::JsonSchema, toolmodel::Tool)]
#[tool(task_support = "optional")]
struct Many {
    count: u8,
}

impl ToolHandler for Many {
    type Reply = String;
    async fn call(&self, args: Many, cx: &CallContext) -> Result<String, ToolError> {
        let mut requests = InputRequests::new();
        for i in 0..args.count {
            requests.insert(format!("k{i}"), form("Name?"));
        }
        let answers = cx.input(requests).await?;
        let names: Vec<String> = (0..args.count)
            .map(|i| name(&answers, &format!("k{i}")))
            .collect();
        Ok(names.join(" "))
    }
}

/// Asks a name before it becomes a task, then works as one.
#[derive(Default, toolmodel::Tool)]
#[tool(task_support = "required")]
struct Report;

impl ToolHandler for Report {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        let answers = cx
            .input_before_task(InputRequests::new().with("who", form("For whom?")))
            .await?;
        tokio::time::sleep(Duration::from_millis(20)).await;
        Ok(format!("report for {}", name(&answers, "who")))
    }
}

/// Logs at two levels from its task, then asks the model something.
#[derive(Default, toolmodel::Tool)]
#[tool(task_support = "optional")]
struct Chatty;

impl ToolHandler for Chatty {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        tokio::time::sleep(Duration::from_millis(10)).await;
        cx.log(peer::LoggingLevel::Debug, json!("quiet"))
            .await
            .map_err(|err| ToolError::new(err.to_string()))?;
        cx.log(peer::LoggingLevel::Warning, json!("loud"))
            .await
            .map_err(|err| ToolError::new(err.to_string()))?;
        let ask = InputRequest::sample_text("Say something", 10);
        cx.input(InputRequests::new().with("say", ask)).await?;
        Ok("said".to_owned())
    }
}

/// A client that declares the tasks extension and elicitation (not sampling), and keeps the
/// log messages it gets.
#[derive(Clone, Default)]
struct Client {
    logs: Arc<Mutex<Vec<Value>>>,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities = ClientCapabilities::builder()
            .enable_elicitation()
            .enable_tasks()
            .build();
        ClientConfig::new(capabilities, Implementation::new("task-input-test", "0"))
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.logs.lock().expect("logs").push(params.data);
    }
}

/// Serves the test's tools on one end of a pipe and connects `client` to the other in MCP
/// 2026-07-28 mode (`server/discover`, the client's context in every request's `_meta`), or
/// in 2025-11-25 mode (`initialize`) when `legacy`.
async fn connect_in(client: Client, legacy: bool) -> RunningService<RoleClient, Client> {
    let toolbox = Toolbox::builder()
        .with(Names)
        .with(Report)
        .with(Chatty)
        .with(Many::default())
        .build()
        .expect("toolbox");
    let server = ToolboxServer::new(toolbox);
    if legacy {
        pipe::connect(server, client).await
    } else {
        pipe::connect_2026_07_28(server, client).await
    }
}

async fn connect(client: Client) -> RunningService<RoleClient, Client> {
    connect_in(client, false).await
}

async fn create(
    service: &RunningService<RoleClient, Client>,
    call: CallToolRequestParams,
) -> String {
    match service.call_tool_once(call).await.expect("tools/call") {
        CallToolResponse::Task(created) => {
            assert!(created.task.task_id.len() > 8, "a task id");
            created.task.task_id
        }
        other => panic!("expected a task, got {other:?}"),
    }
}

/// Polls `tasks/get` until `done` says so (at most 5 s); returns that poll.
async fn poll_until(
    service: &RunningService<RoleClient, Client>,
    task_id: &str,
    done: impl Fn(TaskStatus, &TaskPayload) -> bool,
) -> (TaskStatus, TaskPayload) {
    for _ in 0..250 {
        let got = service
            .get_task(GetTaskParams::new(task_id))
            .await
            .expect("tasks/get");
        if done(got.task.task.status, &got.task.payload) {
            return (got.task.task.status, got.task.payload);
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {task_id} did not reach the state waited for");
}

fn pending_keys(payload: &TaskPayload) -> Vec<String> {
    match payload {
        TaskPayload::InputRequired { input_requests } => input_requests.keys().cloned().collect(),
        _ => Vec::new(),
    }
}

fn terminal(status: TaskStatus, _: &TaskPayload) -> bool {
    !matches!(status, TaskStatus::Working | TaskStatus::InputRequired)
}

fn answer(key: &str, name: &str) -> InputResponses {
    InputResponses::from([(
        key.to_owned(),
        json!({"action": "accept", "content": {"name": name}}),
    )])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_waits_for_input_and_goes_on_with_the_answers() {
    for legacy in [false, true] {
        let service = connect_in(Client::default(), legacy).await;
        task_waits_for_input(&service).await;
        service.cancel().await.expect("closes");
    }
}

/// Drives `names` as a task through its two rounds of input.
async fn task_waits_for_input(service: &RunningService<RoleClient, Client>) {
    let task = create(service, CallToolRequestParams::new("names")).await;

    // Round 1: both requests of one `input` are pending at once.
    let (status, payload) = poll_until(service, &task, |_, payload| {
        pending_keys(payload).len() == 2
    })
    .await;
    assert_eq!(status, TaskStatus::InputRequired);
    assert_eq!(pending_keys(&payload), ["a", "b"]);
    let TaskPayload::InputRequired { input_requests } = &payload else {
        unreachable!()
    };
    let first = serde_json::to_value(&input_requests["a"]).expect("JSON");
    assert_eq!(first["method"], json!("elicitation/create"));
    assert_eq!(first["params"]["message"], json!("First?"));

    // One answer: the other stays pending, alone; an unknown key is ignored.
    service
        .update_task(UpdateTaskParams::new(task.clone(), answer("a", "Ada")))
        .await
        .expect("tasks/update");
    service
        .update_task(UpdateTaskParams::new(task.clone(), answer("zz", "nobody")))
        .await
        .expect("tasks/update of an unknown key is acknowledged");
    let (status, payload) = poll_until(service, &task, |_, _| true).await;
    assert_eq!(status, TaskStatus::InputRequired);
    assert_eq!(pending_keys(&payload), ["b"]);

    // The second answer: the handler goes on to its second round (a new key), not from the
    // start (the first round's keys never come back).
    service
        .update_task(UpdateTaskParams::new(task.clone(), answer("b", "Bob")))
        .await
        .expect("tasks/update");
    let (_, payload) =
        poll_until(service, &task, |_, payload| pending_keys(payload) == ["c"]).await;
    assert_eq!(pending_keys(&payload), ["c"]);
    service
        .update_task(UpdateTaskParams::new(task.clone(), answer("c", "Cy")))
        .await
        .expect("tasks/update");
    match poll_until(service, &task, terminal).await {
        (TaskStatus::Completed, TaskPayload::Completed { result }) => {
            assert_eq!(result["content"][0]["text"], json!("Ada Bob Cy"));
        }
        other => panic!("expected completed, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_waiting_for_input_is_cancelled_by_tasks_cancel() {
    let service = connect(Client::default()).await;
    let task = create(&service, CallToolRequestParams::new("names")).await;
    poll_until(&service, &task, |status, _| {
        status == TaskStatus::InputRequired
    })
    .await;
    service
        .cancel_task(CancelTaskParams::new(task.clone()))
        .await
        .expect("tasks/cancel");
    let (status, payload) = poll_until(&service, &task, terminal).await;
    assert_eq!(status, TaskStatus::Cancelled, "{payload:?}");
    service.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn input_before_the_task_goes_by_input_rounds_then_the_task_starts() {
    let service = connect(Client::default()).await;
    // Round 1: an InputRequiredResult, no task.
    let first = service
        .call_tool_once(CallToolRequestParams::new("report"))
        .await
        .expect("tools/call");
    let CallToolResponse::InputRequired(required) = first else {
        panic!("expected an InputRequiredResult, got {first:?}");
    };
    let requests = required.input_requests.expect("inputRequests");
    assert_eq!(requests.keys().collect::<Vec<_>>(), ["who"]);
    let state = required.request_state.expect("a requestState");

    // Round 2: the answer and the state; now a task, whose result has the answer.
    let task = create(
        &service,
        CallToolRequestParams::new("report")
            .with_input_responses(answer("who", "Alice"))
            .with_request_state(state.clone()),
    )
    .await;
    match poll_until(&service, &task, terminal).await {
        (TaskStatus::Completed, TaskPayload::Completed { result }) => {
            assert_eq!(result["content"][0]["text"], json!("report for Alice"));
        }
        other => panic!("expected completed, got {other:?}"),
    }

    // The state is sealed for this call: tampered, it is -32602 and no task.
    let tampered = service
        .call_tool_once(
            CallToolRequestParams::new("report")
                .with_input_responses(answer("who", "Mallory"))
                .with_request_state(format!("{state}x")),
        )
        .await;
    match tampered {
        Err(rmcp::service::ServiceError::McpError(error)) => {
            assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
        }
        other => panic!("expected -32602, got {other:?}"),
    }
    service.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_has_the_per_request_log_level_and_capabilities_of_an_ordinary_call() {
    let client = Client::default();
    let service = connect(client.clone()).await;

    // logLevel "warning" in the request's _meta: the task sends its warning, not its debug.
    let mut call = CallToolRequestParams::new("chatty");
    let mut meta = RequestMetaObject::new();
    meta.set_log_level(LoggingLevel::Warning);
    call.meta = Some(meta);
    let task = create(&service, call).await;
    let (status, payload) = poll_until(&service, &task, terminal).await;
    // The client did not declare sampling: the task's input is refused with -32021, as an
    // ordinary call's would be.
    assert_eq!(status, TaskStatus::Failed, "{payload:?}");
    let TaskPayload::Failed { error } = payload else {
        unreachable!()
    };
    assert_eq!(error["code"], json!(-32021), "{error:?}");
    assert_eq!(
        error["data"]["requiredCapabilities"],
        json!({"sampling": {}}),
        "{error:?}"
    );
    for _ in 0..50 {
        if !client.logs.lock().expect("logs").is_empty() {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(*client.logs.lock().expect("logs"), [json!("loud")]);

    // No logLevel (MCP 2026-07-28): no log notifications at all.
    client.logs.lock().expect("logs").clear();
    let task = create(&service, CallToolRequestParams::new("chatty")).await;
    poll_until(&service, &task, terminal).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert!(client.logs.lock().expect("logs").is_empty());
    service.cancel().await.expect("closes");
}

/// Any way of answering a task's pending requests (batches in any order, answers repeated,
/// unknown keys mixed in) keeps it in `input_required` with exactly the unanswered keys, and
/// completes it with every answer once the last one is in.
#[test]
fn any_order_of_partial_answers_leaves_exactly_the_unanswered_keys() {
    use proptest::{prelude::*, test_runner::TestRunner};

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("runtime");
    let service = runtime.block_on(connect(Client::default()));
    // (how many keys, the order they are answered in, how many answers per update, the
    // updates that also answer a key twice or an unknown key)
    let cases = (1usize..=4).prop_flat_map(|count| {
        (
            Just(count),
            Just((0..count).collect::<Vec<_>>()).prop_shuffle(),
            prop::collection::vec(1usize..=3, count),
            prop::collection::vec(any::<(bool, bool)>(), count),
        )
    });
    let mut runner = TestRunner::new(ProptestConfig {
        cases: 24,
        ..ProptestConfig::default()
    });
    runner
        .run(&cases, |(count, order, sizes, extras)| {
            runtime.block_on(async {
                let call = CallToolRequestParams::new("many")
                    .with_arguments(json!({"count": count}).as_object().cloned().unwrap());
                let task = create(&service, call).await;
                poll_until(&service, &task, |_, payload| {
                    pending_keys(payload).len() == count
                })
                .await;
                let mut unanswered: Vec<usize> = (0..count).collect();
                let mut answered: Vec<usize> = Vec::new();
                let mut rest = order.as_slice();
                let mut batch = 0;
                while !rest.is_empty() {
                    let (now, later) = rest.split_at(sizes[batch].min(rest.len()));
                    let (again, unknown) = extras[batch];
                    let mut responses = InputResponses::new();
                    for &i in now {
                        responses.extend(answer(&format!("k{i}"), &format!("n{i}")));
                    }
                    if again && let Some(&old) = answered.first() {
                        responses.extend(answer(&format!("k{old}"), "changed"));
                    }
                    if unknown {
                        responses.extend(answer("nobody", "x"));
                    }
                    service
                        .update_task(UpdateTaskParams::new(task.clone(), responses))
                        .await
                        .expect("tasks/update");
                    unanswered.retain(|i| !now.contains(i));
                    answered.extend(now);
                    rest = later;
                    batch += 1;
                    if !unanswered.is_empty() {
                        let (status, payload) = poll_until(&service, &task, |_, _| true).await;
                        prop_assert_eq!(status, TaskStatus::InputRequired);
                        let expected: Vec<String> =
                            unanswered.iter().map(|i| format!("k{i}")).collect();
                        let mut expected = expected;
                        expected.sort();
                        prop_assert_eq!(pending_keys(&payload), expected);
                    }
                }
                match poll_until(&service, &task, terminal).await {
                    (TaskStatus::Completed, TaskPayload::Completed { result }) => {
                        let all: Vec<String> = (0..count).map(|i| format!("n{i}")).collect();
                        prop_assert_eq!(&result["content"][0]["text"], &json!(all.join(" ")));
                    }
                    other => prop_assert!(false, "expected completed, got {:?}", other),
                }
                Ok(())
            })
        })
        .expect("the property holds");
    runtime.block_on(async { service.cancel().await.expect("closes") });
}
