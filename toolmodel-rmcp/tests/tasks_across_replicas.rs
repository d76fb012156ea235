//! Tasks across replicas: two servers on one task store answer for each other's tasks
//! (`tasks/get`, `tasks/update`, `tasks/cancel`), and when the replica running a task dies,
//! another takes it over: a tool safe to re-run (`idempotentHint`) runs again there, any other
//! ends `failed` saying the worker was lost. Each body runs on the memory store (shared by
//! the replicas of one process) and on Redis (a connection per replica; skipped with a notice
//! when `redis-server` cannot start, failing under `CI`).

use std::{
    collections::HashMap,
    future::Future,
    pin::Pin,
    sync::{Arc, Mutex},
    time::Duration,
};

use rmcp::{
    ClientHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities,
        ClientConfig, GetTaskParams, Implementation, TaskPayload, TaskStatus, UpdateTaskParams,
    },
    service::{RoleClient, RunningService},
};
use serde::Deserialize;
use serde_json::{Value, json};
use toolmodel::{
    CallContext, ToolError, ToolHandler, Toolbox,
    input::{ElicitRequest, InputRequest, InputRequests},
    schemars::{self, JsonSchema},
};
use toolmodel_rmcp::{
    ToolboxServer,
    tasks::{MemoryTaskStore, TaskStore},
};

use crate::support::pipe;

/// Asks for a confirmation, then says what the answer was.
#[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
#[tool(task_support = "optional")]
struct Confirm {}

impl ToolHandler for Confirm {
    type Reply = String;
    async fn call(&self, _: Confirm, cx: &CallContext) -> Result<String, ToolError> {
        let ask = InputRequest::Elicit(ElicitRequest::form(
            "Go on?",
            json!({"type": "object", "properties": {"go": {"type": "boolean"}}}),
        ));
        let answers = cx.input(InputRequests::new().with("go", ask)).await?;
        let go = answers
            .elicit("go")
            .and_then(|reply| reply.field("go"))
            .cloned();
        Ok(format!("go: {}", go.unwrap_or(Value::Null)))
    }
}

/// Waits until cancelled.
#[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
#[tool(task_support = "optional")]
struct Forever {}

impl ToolHandler for Forever {
    type Reply = String;
    async fn call(&self, _: Forever, cx: &CallContext) -> Result<String, ToolError> {
        cx.cancelled().await;
        Err(ToolError::Cancelled)
    }
}

/// How many times `Flaky` ran, by its `key`.
static RUNS: Mutex<Option<HashMap<String, usize>>> = Mutex::new(None);

/// Safe to re-run: hangs the first time it runs for a `key`, answers every later time.
#[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
#[tool(task_support = "optional", annotations(idempotent))]
struct Flaky {
    key: String,
}

impl ToolHandler for Flaky {
    type Reply = String;
    async fn call(&self, args: Flaky, _cx: &CallContext) -> Result<String, ToolError> {
        let run = {
            let mut runs = RUNS.lock().unwrap();
            let count = runs
                .get_or_insert_with(HashMap::new)
                .entry(args.key)
                .or_default();
            *count += 1;
            *count
        };
        if run == 1 {
            std::future::pending::<()>().await;
        }
        Ok(format!("run {run}"))
    }
}

struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        let capabilities = ClientCapabilities::builder()
            .enable_elicitation()
            .enable_tasks()
            .build();
        ClientConfig::new(capabilities, Implementation::new("replicas-test", "0"))
    }
}

type Service = RunningService<RoleClient, Client>;

/// Gives each replica its handle on one shared store.
trait SharedStore: Sync {
    fn open(&self) -> Pin<Box<dyn Future<Output = Arc<dyn TaskStore>> + Send + '_>>;
}

struct Memory(Arc<dyn TaskStore>);

impl SharedStore for Memory {
    fn open(&self) -> Pin<Box<dyn Future<Output = Arc<dyn TaskStore>> + Send + '_>> {
        Box::pin(async move { self.0.clone() })
    }
}

fn memory() -> Memory {
    Memory(Arc::new(MemoryTaskStore::new()))
}

/// A replica on `shared`, its lease `lease`, and a client connected to it.
async fn replica(shared: &dyn SharedStore, lease: Duration) -> Service {
    let toolbox = Toolbox::builder()
        .with(Confirm::default())
        .with(Forever::default())
        .with(Flaky::default())
        .build()
        .expect("toolbox");
    let server = ToolboxServer::new(toolbox)
        .with_task_store(shared.open().await)
        .with_task_lease(lease);
    pipe::connect(server, Client).await
}

async fn create(service: &Service, name: &'static str, arguments: Value) -> String {
    let call = CallToolRequestParams::new(name)
        .with_arguments(arguments.as_object().cloned().unwrap_or_default());
    match service.call_tool_once(call).await.expect("tools/call") {
        CallToolResponse::Task(created) => created.task.task_id,
        other => panic!("expected a task, got {other:?}"),
    }
}

/// Polls `tasks/get` on `service` until `done` (at most 10 s).
async fn poll_until(
    service: &Service,
    task_id: &str,
    done: impl Fn(TaskStatus) -> bool,
) -> TaskPayload {
    for _ in 0..500 {
        let got = service
            .get_task(GetTaskParams::new(task_id))
            .await
            .expect("tasks/get on another replica");
        if done(got.task.task.status) {
            return got.task.payload;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("task {task_id} did not reach the state waited for");
}

fn text(payload: &TaskPayload) -> String {
    match payload {
        TaskPayload::Completed { result } => result["content"][0]["text"]
            .as_str()
            .unwrap_or_default()
            .to_owned(),
        TaskPayload::Failed { error } => error["message"].as_str().unwrap_or_default().to_owned(),
        other => format!("{other:?}"),
    }
}

async fn another_replica_polls_answers_and_cancels_a_task(shared: &dyn SharedStore) {
    let a = replica(shared, Duration::from_secs(10)).await;
    let b = replica(shared, Duration::from_secs(10)).await;

    // Started on A; its input request read, and answered, on B.
    let confirm = create(&a, "confirm", json!({})).await;
    let asked = poll_until(&b, &confirm, |status| status == TaskStatus::InputRequired).await;
    let TaskPayload::InputRequired { input_requests } = asked else {
        panic!("{asked:?}");
    };
    assert!(input_requests.contains_key("go"));
    let mut update = UpdateTaskParams::new(confirm.clone(), Default::default());
    update.input_responses.insert(
        "go".to_owned(),
        json!({"action": "accept", "content": {"go": true}}),
    );
    b.update_task(update).await.expect("tasks/update on B");
    let done = poll_until(&a, &confirm, |status: TaskStatus| status.is_terminal()).await;
    assert_eq!(text(&done), "go: true");

    // Started on A, cancelled on B: the handler on A sees it.
    let forever = create(&a, "forever", json!({})).await;
    b.cancel_task(CancelTaskParams::new(forever.clone()))
        .await
        .expect("tasks/cancel on B");
    let ended = poll_until(&b, &forever, |status: TaskStatus| status.is_terminal()).await;
    assert_eq!(ended, TaskPayload::Cancelled);
}

/// Replica A runs on a runtime of its own, shut down mid-task: its workers and leases stop
/// as in a process that dies.
fn a_dead_replica_s_tasks_are_rerun_or_failed(shared: &(dyn SharedStore + Sync), key: &str) {
    let lease = Duration::from_millis(600);
    let runtime = || {
        tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap()
    };
    let dying = runtime();
    let (a, rerun, once) = dying.block_on(async {
        let a = replica(shared, lease).await;
        let rerun = create(&a, "flaky", json!({"key": key})).await;
        let once = create(&a, "forever", json!({})).await;
        (a, rerun, once)
    });
    dying.shutdown_background();
    drop(a);
    runtime().block_on(async {
        let b = replica(shared, lease).await;
        let rerun = poll_until(&b, &rerun, |status: TaskStatus| status.is_terminal()).await;
        assert_eq!(text(&rerun), "run 2");
        let once = poll_until(&b, &once, |status: TaskStatus| status.is_terminal()).await;
        assert!(
            matches!(&once, TaskPayload::Failed { .. })
                && text(&once).contains("worker running this task was lost"),
            "{once:?}"
        );
    });
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn memory_another_replica_polls_answers_and_cancels_a_task() {
    another_replica_polls_answers_and_cancels_a_task(&memory()).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_beyond_the_live_task_limit_is_refused_with_a_clear_error() {
    let store: Arc<dyn TaskStore> = Arc::new(MemoryTaskStore::new().with_live_limit(1));
    let service = replica(&Memory(store), Duration::from_secs(10)).await;
    create(&service, "forever", json!({})).await;
    let call = CallToolRequestParams::new("forever");
    let refused = service.call_tool_once(call).await.expect_err("refused");
    let rmcp::service::ServiceError::McpError(error) = refused else {
        panic!("{refused:?}");
    };
    assert_eq!(error.code, rmcp::model::ErrorCode::INTERNAL_ERROR);
    assert!(
        error.message.contains("too many live tasks") && error.message.contains("at most 1"),
        "{}",
        error.message
    );
}

#[test]
fn memory_a_dead_replica_s_tasks_are_rerun_or_failed() {
    a_dead_replica_s_tasks_are_rerun_or_failed(&memory(), "memory");
}

#[cfg(feature = "redis")]
mod redis {
    use super::*;

    /// A connection per replica to one Redis, under one prefix.
    struct Redis {
        url: String,
        prefix: String,
    }

    impl Redis {
        fn new(server: &toolmodel_test_support::redis::RedisServer) -> Self {
            let prefix = format!("test:{}", crate::support::task_ids::new_task_id());
            Self {
                url: server.url.clone(),
                prefix,
            }
        }
    }

    impl SharedStore for Redis {
        fn open(&self) -> Pin<Box<dyn Future<Output = Arc<dyn TaskStore>> + Send + '_>> {
            Box::pin(async move {
                let store = toolmodel_rmcp::tasks::RedisTaskStore::connect_with_prefix(
                    &self.url,
                    &self.prefix,
                )
                .await
                .expect("connect to redis");
                Arc::new(store) as Arc<dyn TaskStore>
            })
        }
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn redis_another_replica_polls_answers_and_cancels_a_task() {
        let Some(server) = toolmodel_test_support::redis::RedisServer::start() else {
            return;
        };
        another_replica_polls_answers_and_cancels_a_task(&Redis::new(&server)).await;
    }

    #[test]
    fn redis_a_dead_replica_s_tasks_are_rerun_or_failed() {
        let Some(server) = toolmodel_test_support::redis::RedisServer::start() else {
            return;
        };
        a_dead_replica_s_tasks_are_rerun_or_failed(&Redis::new(&server), "redis");
    }
}
