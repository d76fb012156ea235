//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663): tools that declare task
//! support run as tasks for a client that declares the extension, driven by `rmcp`'s client
//! over an in-memory pipe.

use std::time::Duration;

use rmcp::{
    ClientHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities,
        ClientConfig, ErrorCode, GetTaskParams, Implementation, TaskPayload, TaskStatus,
    },
    service::{RoleClient, RunningService, ServiceError},
};
use serde_json::json;
use toolmodel::{CallContext, NoArguments, ToolError, ToolHandler, Toolbox};
use toolmodel_rmcp::ToolboxServer;

use crate::support::{
    pipe,
    task_tools::{Now, Wait},
};

/// Must run as a task.
#[derive(Default, toolmodel::Tool)]
#[tool(task_support = "required")]
struct Batch;

impl ToolHandler for Batch {
    type Reply = &'static str;
    async fn call(&self, _: NoArguments, _cx: &CallContext) -> Result<&'static str, ToolError> {
        Err(ToolError::new("the batch failed"))
    }
}

/// A client that declares the tasks extension, or not.
struct Client {
    tasks: bool,
}

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities = if self.tasks {
            ClientCapabilities::builder().enable_tasks().build()
        } else {
            ClientCapabilities::default()
        };
        ClientConfig::new(capabilities, Implementation::new("tasks-test", "0"))
    }
}

async fn connect(tasks: bool) -> RunningService<RoleClient, Client> {
    let toolbox = Toolbox::builder()
        .with(Wait::default())
        .with(Batch)
        .with(Now)
        .build()
        .expect("toolbox");
    pipe::connect(ToolboxServer::new(toolbox), Client { tasks }).await
}

fn arguments(value: serde_json::Value) -> serde_json::Map<String, serde_json::Value> {
    value.as_object().cloned().unwrap_or_default()
}

/// Polls `tasks/get` until the task is terminal (at most 5 s).
async fn settle(service: &RunningService<RoleClient, Client>, task_id: &str) -> TaskPayload {
    for _ in 0..100 {
        let got = service
            .get_task(GetTaskParams::new(task_id))
            .await
            .expect("tasks/get");
        if !matches!(
            got.task.task.status,
            TaskStatus::Working | TaskStatus::InputRequired
        ) {
            return got.task.payload;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("task {task_id} did not settle");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn task_supporting_calls_run_as_tasks_for_a_client_that_declares_them() {
    let service = connect(true).await;
    let capabilities = &service.peer_info().expect("initialize").capabilities;
    assert!(capabilities.supports_tasks(), "the extension is advertised");

    // optional: a task, polled to its result.
    let created = service
        .call_tool_once(
            CallToolRequestParams::new("wait").with_arguments(arguments(json!({"millis": 50}))),
        )
        .await
        .expect("tools/call");
    let CallToolResponse::Task(created) = created else {
        panic!("expected a task, got {created:?}");
    };
    match settle(&service, &created.task.task_id).await {
        TaskPayload::Completed { result } => {
            assert_eq!(result["content"][0]["text"], json!("waited 50"));
        }
        other => panic!("expected completed, got {other:?}"),
    }

    // required: a task; a tool error completes it with isError.
    let CallToolResponse::Task(batch) = service
        .call_tool_once(CallToolRequestParams::new("batch"))
        .await
        .expect("tools/call")
    else {
        panic!("expected a task");
    };
    match settle(&service, &batch.task.task_id).await {
        TaskPayload::Completed { result } => assert_eq!(result["isError"], json!(true)),
        other => panic!("expected completed with isError, got {other:?}"),
    }

    // tasks/cancel reaches the handler's context: the task settles as cancelled.
    let CallToolResponse::Task(long) = service
        .call_tool_once(
            CallToolRequestParams::new("wait").with_arguments(arguments(json!({"millis": 60_000}))),
        )
        .await
        .expect("tools/call")
    else {
        panic!("expected a task");
    };
    service
        .cancel_task(CancelTaskParams::new(long.task.task_id.clone()))
        .await
        .expect("tasks/cancel");
    let cancelled = settle(&service, &long.task.task_id).await;
    assert!(matches!(cancelled, TaskPayload::Cancelled), "{cancelled:?}");

    // forbidden (none declared): an ordinary result.
    let now = service
        .call_tool_once(CallToolRequestParams::new("now"))
        .await
        .expect("tools/call");
    assert!(matches!(now, CallToolResponse::Complete(_)), "{now:?}");

    // An unknown task is -32602.
    match service.get_task(GetTaskParams::new("no-such-task")).await {
        Err(ServiceError::McpError(error)) => assert_eq!(error.code, ErrorCode::INVALID_PARAMS),
        other => panic!("expected -32602, got {other:?}"),
    }
    service.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_tasks_gets_results_and_a_missing_capability_error() {
    let service = connect(false).await;
    let waited = service
        .call_tool_once(
            CallToolRequestParams::new("wait").with_arguments(arguments(json!({"millis": 1}))),
        )
        .await
        .expect("tools/call");
    assert!(
        matches!(waited, CallToolResponse::Complete(_)),
        "{waited:?}"
    );
    match service
        .call_tool_once(CallToolRequestParams::new("batch"))
        .await
    {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::MISSING_REQUIRED_CLIENT_CAPABILITY);
            let data = error.data.expect("data");
            assert!(
                data["requiredCapabilities"]["extensions"]["io.modelcontextprotocol/tasks"]
                    .is_object(),
                "{data}"
            );
        }
        other => panic!("expected -32021, got {other:?}"),
    }
    service.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_toolbox_without_task_tools_does_not_advertise_tasks() {
    let server = ToolboxServer::new(Toolbox::builder().with(Now).build().expect("toolbox"));
    let service = pipe::connect(server, Client { tasks: true }).await;
    let capabilities = &service.peer_info().expect("initialize").capabilities;
    assert!(!capabilities.supports_tasks());
    match service.get_task(GetTaskParams::new("x")).await {
        Err(ServiceError::McpError(error)) => assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND),
        other => panic!("expected -32601, got {other:?}"),
    }
    service.cancel().await.expect("closes");
}
