//! The client side of `scale/run.sh`'s tasks phase: task calls through the load balancer
//! (nginx, round-robin, no stickiness) in front of three `examples/conformance_server`
//! replicas sharing one Redis task store (`MCP_TASK_STORE`), with `rmcp`'s client in MCP
//! 2026-07-28 mode. Every request of a task (its `tools/call`, each `tasks/get`,
//! `tasks/update` and `tasks/cancel`) goes to whichever replica the balancer picks.
//!
//! `tasks_client run BALANCER_URL KILL_PID STATE_FILE`:
//! 1. 50 tasks, 6 at a time: 20 `scale_task` that finish, 12 `confirm_delete` and 8
//!    `multi_input` whose input requests are read and answered (`multi_input`'s one
//!    `tasks/update` per key), 10 long `scale_task` cancelled with `tasks/cancel`; each must
//!    end as it should (completed with its text, or cancelled).
//! 2. 12 tasks of 3 s (6 `scale_task`, safe to re-run: `idempotentHint`; 6 `scale_task_once`,
//!    not), then the replica `KILL_PID` killed (`SIGKILL`) while they run: its tasks are taken
//!    over by another replica (re-run) or end `failed` saying the worker was lost.
//! 3. 14 tasks left pending for the restart of every replica: 5 `scale_task` of 4 s, 5
//!    `scale_task` asking a name (left unanswered), 4 `scale_task_once` of 4 s; written with
//!    the tally so far to `STATE_FILE`.
//!
//! `tasks_client resume BALANCER_URL STATE_FILE`, once `scale/run.sh` restarted every replica:
//! polls the pending tasks to their end, answering the names asked, then prints
//! `tasks: replicas=3 tasks=<n> completed=<c> failed_worker_lost=<f> unknown=<u> stuck=<s>`:
//! `unknown` counts polls answered "unknown task" (`-32602`), `stuck` the tasks still
//! `working` or `input_required` 45 s after the restart (four leases).
//!
//! A request that got no answer (the balancer's 502 for a replica killed under it, a
//! connection reset) is sent again, at most 5 times: `tasks/get` reads, and `tasks/update` and
//! `tasks/cancel` have the same effect twice. Exit status: 0 when every task ended as it
//! should and `unknown` and `stuck` are 0; 1 otherwise (the reasons on stderr); 2 for a bad
//! command line. Each phase gives up after 90 s.

use std::{
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use rmcp::{
    ClientHandler, RoleClient,
    model::{
        CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientConfig, ErrorCode,
        GetTaskParams, ProtocolVersion, TaskPayload, UpdateTaskParams,
    },
    service::{ClientLifecycleMode, ClientServiceExt, RunningService, ServiceError},
    transport::StreamableHttpClientTransport,
};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

type Service = RunningService<RoleClient, TasksClient>;

const ATTEMPTS: usize = 5;
const PHASE_LIMIT: Duration = Duration::from_secs(90);
const STUCK_AFTER: Duration = Duration::from_secs(45);
const POLL: Duration = Duration::from_millis(100);
/// The wait before a request that got no answer is sent again.
const RETRY: Duration = Duration::from_millis(500);

/// Declares the tasks extension and form elicitation.
#[derive(Clone, Copy)]
struct TasksClient;

impl ClientHandler for TasksClient {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2026-07-28",
            "capabilities": {
                "elicitation": {"form": {}},
                "extensions": {"io.modelcontextprotocol/tasks": {}}
            },
            "clientInfo": {"name": "toolmodel-tasks-client", "version": env!("CARGO_PKG_VERSION")}
        }))
        .expect("a client configuration")
    }
}

/// How a task ended.
enum Ended {
    Completed,
    WorkerLost,
    Cancelled,
}

/// How a task must end.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
enum Expect {
    /// Completed, its text containing this.
    Completed(String),
    /// Cancelled.
    Cancelled,
    /// Completed, or failed because its worker was lost.
    CompletedOrLost,
}

/// A task created, what it must end as, and the answers it gets when it asks.
#[derive(Clone, Debug, Serialize, Deserialize)]
struct Pending {
    task_id: String,
    expect: Expect,
}

/// The counts of the last line, and the problems found.
#[derive(Default, Serialize, Deserialize)]
struct Tally {
    tasks: usize,
    completed: usize,
    failed_worker_lost: usize,
    cancelled: usize,
    unknown: usize,
    stuck: usize,
    problems: Vec<String>,
}

/// What `run` leaves for `resume`.
#[derive(Serialize, Deserialize)]
struct State {
    tally: Tally,
    pending: Vec<Pending>,
}

struct Shared {
    service: Service,
    tally: Mutex<Tally>,
    unknown: AtomicUsize,
}

impl Shared {
    fn problem(&self, text: String) {
        eprintln!("tasks: {text}");
        if let Ok(mut tally) = self.tally.lock() {
            tally.problems.push(text);
        }
    }
}

async fn connect(url: &str) -> Result<Service, String> {
    let transport = StreamableHttpClientTransport::from_uri(url.to_owned());
    TasksClient
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .map_err(|err| format!("{url}: {err}"))
}

/// A request that got no JSON-RPC answer: sent again.
fn unanswered(err: &ServiceError) -> bool {
    !matches!(err, ServiceError::McpError(_))
}

fn unknown_task(err: &ServiceError) -> bool {
    matches!(err, ServiceError::McpError(error) if error.code == ErrorCode::INVALID_PARAMS
        && error.message.contains("unknown task"))
}

/// `tools/call` of `name` as a task; never re-sent (a call that got no answer may have run).
async fn create(shared: &Shared, name: &str, arguments: Value) -> Result<String, String> {
    let call = CallToolRequestParams::new(name.to_owned())
        .with_arguments(arguments.as_object().cloned().unwrap_or_default());
    match shared.service.call_tool_once(call).await {
        Ok(CallToolResponse::Task(created)) => {
            shared.tally.lock().map_err(|_| "tally")?.tasks += 1;
            Ok(created.task.task_id)
        }
        Ok(other) => Err(format!("{name}: expected a task, got {other:?}")),
        Err(err) => Err(format!("{name}: {err}")),
    }
}

/// `tasks/get`, re-sent when unanswered; `None` after an "unknown task" (counted).
async fn get(shared: &Shared, task_id: &str) -> Result<Option<TaskPayload>, String> {
    for _ in 0..ATTEMPTS {
        match shared.service.get_task(GetTaskParams::new(task_id)).await {
            Ok(got) => return Ok(Some(got.task.payload)),
            Err(err) if unknown_task(&err) => {
                shared.unknown.fetch_add(1, Ordering::Relaxed);
                return Ok(None);
            }
            Err(err) if unanswered(&err) => tokio::time::sleep(RETRY).await,
            Err(err) => return Err(format!("tasks/get {task_id}: {err}")),
        }
    }
    Err(format!(
        "tasks/get {task_id}: no answer in {ATTEMPTS} tries"
    ))
}

async fn update(shared: &Shared, task_id: &str, key: &str, answer: Value) -> Result<(), String> {
    for _ in 0..ATTEMPTS {
        let mut params = UpdateTaskParams::new(task_id.to_owned(), Default::default());
        params
            .input_responses
            .insert(key.to_owned(), answer.clone());
        match shared.service.update_task(params).await {
            Ok(()) => return Ok(()),
            Err(err) if unanswered(&err) => tokio::time::sleep(RETRY).await,
            Err(err) => return Err(format!("tasks/update {task_id}: {err}")),
        }
    }
    Err(format!(
        "tasks/update {task_id}: no answer in {ATTEMPTS} tries"
    ))
}

async fn cancel(shared: &Shared, task_id: &str) -> Result<(), String> {
    for _ in 0..ATTEMPTS {
        match shared
            .service
            .cancel_task(CancelTaskParams::new(task_id.to_owned()))
            .await
        {
            Ok(()) => return Ok(()),
            Err(err) if unanswered(&err) => tokio::time::sleep(RETRY).await,
            Err(err) => return Err(format!("tasks/cancel {task_id}: {err}")),
        }
    }
    Err(format!(
        "tasks/cancel {task_id}: no answer in {ATTEMPTS} tries"
    ))
}

/// The answer to the input request `key` of the fixtures (`examples/task_fixtures.rs`,
/// `scale_task` in `examples/conformance_server.rs`).
fn answer(key: &str) -> Value {
    let content = match key {
        "confirm" => json!({"confirm": true}),
        "user_name" => json!({"name": "Ada"}),
        _ => json!({"value": key}),
    };
    json!({"action": "accept", "content": content})
}

/// Polls a task to its end, answering what it asks (one key per `tasks/update`), and counts
/// how it ended; a task not ended by `deadline` is stuck.
async fn follow(shared: &Shared, pending: &Pending, deadline: Instant) -> Result<(), String> {
    let mut answered = std::collections::BTreeSet::new();
    loop {
        let Some(payload) = get(shared, &pending.task_id).await? else {
            return Err(format!("task {}: unknown task", pending.task_id));
        };
        let ended = match (&payload, &pending.expect) {
            (TaskPayload::InputRequired { input_requests }, _) => {
                for key in input_requests.keys() {
                    if answered.insert(key.clone()) {
                        update(shared, &pending.task_id, key, answer(key)).await?;
                    }
                }
                None
            }
            (TaskPayload::Completed { result }, Expect::Completed(want)) => {
                let text = result["content"][0]["text"].as_str().unwrap_or_default();
                if !text.contains(want.as_str()) {
                    return Err(format!("task {}: {text:?} lacks {want:?}", pending.task_id));
                }
                Some(Ended::Completed)
            }
            (TaskPayload::Completed { .. }, Expect::CompletedOrLost) => Some(Ended::Completed),
            (TaskPayload::Failed { error }, Expect::CompletedOrLost)
                if error["message"].as_str().is_some_and(|message| {
                    message.contains("worker running this task was lost")
                }) =>
            {
                Some(Ended::WorkerLost)
            }
            (TaskPayload::Cancelled, Expect::Cancelled) => Some(Ended::Cancelled),
            (TaskPayload::Working, _) => None,
            (other, expect) => {
                return Err(format!(
                    "task {}: ended {other:?}, expected {expect:?}",
                    pending.task_id
                ));
            }
        };
        if let Some(ended) = ended {
            let mut tally = shared.tally.lock().map_err(|_| "tally")?;
            match ended {
                Ended::Completed => tally.completed += 1,
                Ended::WorkerLost => tally.failed_worker_lost += 1,
                Ended::Cancelled => tally.cancelled += 1,
            }
            return Ok(());
        }
        if Instant::now() > deadline {
            shared.tally.lock().map_err(|_| "tally")?.stuck += 1;
            return Err(format!(
                "task {}: still running at the deadline",
                pending.task_id
            ));
        }
        tokio::time::sleep(POLL).await;
    }
}

/// Follows every task of `pending`, `parallel` at a time.
async fn follow_all(shared: &Arc<Shared>, pending: Vec<Pending>, deadline: Instant) {
    let mut running = tokio::task::JoinSet::new();
    for task in pending {
        let shared = shared.clone();
        running.spawn(async move {
            if let Err(problem) = follow(&shared, &task, deadline).await {
                shared.problem(problem);
            }
        });
    }
    while running.join_next().await.is_some() {}
}

/// Phase 1: 50 tasks, 6 at a time (see the module docs).
async fn regular(shared: &Arc<Shared>) {
    let mut calls: Vec<(&str, Value, Expect)> = Vec::new();
    for i in 0..20 {
        calls.push((
            "scale_task",
            json!({"millis": 100 + 10 * i}),
            Expect::Completed("done".into()),
        ));
    }
    for i in 0..12 {
        let filename = format!("file-{i}.txt");
        calls.push((
            "confirm_delete",
            json!({"filename": filename}),
            Expect::Completed("Deleted".into()),
        ));
    }
    for _ in 0..8 {
        calls.push(("multi_input", json!({}), Expect::Completed(String::new())));
    }
    for _ in 0..10 {
        calls.push(("scale_task", json!({"millis": 60_000}), Expect::Cancelled));
    }
    let deadline = Instant::now() + PHASE_LIMIT;
    let gate = Arc::new(tokio::sync::Semaphore::new(6));
    let mut running = tokio::task::JoinSet::new();
    for (name, arguments, expect) in calls {
        let shared = shared.clone();
        let gate = gate.clone();
        running.spawn(async move {
            let Ok(_permit) = gate.acquire().await else {
                return;
            };
            let result = async {
                let task_id = create(&shared, name, arguments).await?;
                if expect == Expect::Cancelled {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    cancel(&shared, &task_id).await?;
                }
                follow(&shared, &Pending { task_id, expect }, deadline).await
            };
            if let Err(problem) = result.await {
                shared.problem(problem);
            }
        });
    }
    while running.join_next().await.is_some() {}
}

/// Creates `count` tasks of `name` with `arguments`.
async fn start_many(
    shared: &Shared,
    name: &str,
    arguments: Value,
    count: usize,
    expect: Expect,
) -> Vec<Pending> {
    let mut pending = Vec::new();
    for _ in 0..count {
        match create(shared, name, arguments.clone()).await {
            Ok(task_id) => pending.push(Pending {
                task_id,
                expect: expect.clone(),
            }),
            Err(problem) => shared.problem(problem),
        }
    }
    pending
}

async fn run(balancer: &str, kill_pid: &str, state_file: &str) -> Result<(), String> {
    let shared = Arc::new(Shared {
        service: connect(balancer).await?,
        tally: Mutex::default(),
        unknown: AtomicUsize::new(0),
    });
    let started = Instant::now();
    regular(&shared).await;
    eprintln!(
        "tasks: phase 1 done in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // Phase 2: tasks running when a replica is killed.
    let mut running = start_many(
        &shared,
        "scale_task",
        json!({"millis": 3_000}),
        6,
        Expect::Completed("done".into()),
    )
    .await;
    running.extend(
        start_many(
            &shared,
            "scale_task_once",
            json!({"millis": 3_000}),
            6,
            Expect::CompletedOrLost,
        )
        .await,
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    let killed = std::process::Command::new("kill")
        .args(["-KILL", kill_pid])
        .status()
        .map_err(|err| format!("kill -KILL {kill_pid}: {err}"))?;
    if !killed.success() {
        return Err(format!("kill -KILL {kill_pid} failed"));
    }
    eprintln!("tasks: killed replica pid {kill_pid} with 12 tasks running");
    follow_all(&shared, running, Instant::now() + PHASE_LIMIT).await;
    eprintln!(
        "tasks: phase 2 done in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // Phase 3: tasks pending across the restart of every replica.
    let mut pending = start_many(
        &shared,
        "scale_task",
        json!({"millis": 4_000}),
        5,
        Expect::Completed("done".into()),
    )
    .await;
    pending.extend(
        start_many(
            &shared,
            "scale_task",
            json!({"millis": 0, "ask": true}),
            5,
            Expect::Completed("Hello, Ada".into()),
        )
        .await,
    );
    pending.extend(
        start_many(
            &shared,
            "scale_task_once",
            json!({"millis": 4_000}),
            4,
            Expect::CompletedOrLost,
        )
        .await,
    );
    let mut tally = std::mem::take(&mut *shared.tally.lock().map_err(|_| "tally")?);
    tally.unknown += shared.unknown.load(Ordering::Relaxed);
    let state = State { tally, pending };
    let text = serde_json::to_string(&state).map_err(|err| err.to_string())?;
    std::fs::write(state_file, text).map_err(|err| format!("{state_file}: {err}"))?;
    eprintln!(
        "tasks: {} tasks left pending for the restart",
        state.pending.len()
    );
    Ok(())
}

async fn resume(balancer: &str, state_file: &str) -> Result<bool, String> {
    let text = std::fs::read_to_string(state_file).map_err(|err| format!("{state_file}: {err}"))?;
    let state: State = serde_json::from_str(&text).map_err(|err| format!("{state_file}: {err}"))?;
    let shared = Arc::new(Shared {
        service: connect(balancer).await?,
        tally: Mutex::new(state.tally),
        unknown: AtomicUsize::new(0),
    });
    follow_all(&shared, state.pending, Instant::now() + STUCK_AFTER).await;
    let mut tally = shared.tally.lock().map_err(|_| "tally")?;
    tally.unknown += shared.unknown.load(Ordering::Relaxed);
    if tally.cancelled != 10 {
        let problem = format!("{} tasks cancelled, 10 expected", tally.cancelled);
        eprintln!("tasks: {problem}");
        tally.problems.push(problem);
    }
    println!(
        "tasks: replicas=3 tasks={} completed={} failed_worker_lost={} unknown={} stuck={}",
        tally.tasks, tally.completed, tally.failed_worker_lost, tally.unknown, tally.stuck
    );
    Ok(tally.problems.is_empty() && tally.unknown == 0 && tally.stuck == 0)
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let outcome = match args
        .iter()
        .map(String::as_str)
        .collect::<Vec<_>>()
        .as_slice()
    {
        ["run", balancer, kill_pid, state_file] => {
            tokio::time::timeout(PHASE_LIMIT * 3, run(balancer, kill_pid, state_file))
                .await
                .unwrap_or_else(|_| Err("gave up".to_owned()))
                .map(|()| true)
        }
        ["resume", balancer, state_file] => {
            tokio::time::timeout(PHASE_LIMIT, resume(balancer, state_file))
                .await
                .unwrap_or_else(|_| Err("gave up".to_owned()))
        }
        _ => {
            eprintln!(
                "usage: tasks_client run BALANCER_URL KILL_PID STATE_FILE | resume BALANCER_URL STATE_FILE"
            );
            std::process::exit(2);
        }
    };
    match outcome {
        Ok(true) => {}
        Ok(false) => std::process::exit(1),
        Err(problem) => {
            eprintln!("tasks: {problem}");
            std::process::exit(1);
        }
    }
}
