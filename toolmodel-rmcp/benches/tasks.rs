//! Tasks on the memory store against tasks on the Redis store (feature `redis`), the same
//! server, tool and client in the same run: a `tools/call` that becomes a task, then
//! `tasks/get` until it is `completed`, one task after the other, each server driven by
//! `rmcp`'s client over an in-process pipe. Rounds alternate between the two stores, so load
//! from elsewhere on the machine falls on both. Redis is a throwaway `redis-server` on loopback
//! (Debian's package, `scale/redis.sh install`); without it the bench says so and stops.
//! A task on the Redis store is three round trips to it, one per operation: the create (before
//! the `CreateTaskResult`), the worker's finish and the `tasks/get` that finds it completed.
//!
//! The last line: `tasks: redis/memory tasks_per_s=<a> get_p50=<b>`, the Redis store's tasks per
//! second over the memory store's, and its median `tasks/get` time over the memory store's
//! (goals: >= 0.5, <= 3.0).
//!
//! `cargo bench -p toolmodel-rmcp --features redis --bench tasks`; `TASKS_BENCH_TASKS` sets
//! the tasks per round (default 300), `TASKS_BENCH_ROUNDS` the rounds per store (default 5).

use std::{
    sync::Arc,
    time::{Duration, Instant},
};

use rmcp::{
    ClientHandler,
    model::{
        CallToolRequestParams, CallToolResponse, ClientCapabilities, ClientConfig, GetTaskParams,
        Implementation, TaskStatus,
    },
    service::{RoleClient, RunningService},
};
use toolmodel::{CallContext, NoArguments, ToolError, ToolHandler, Toolbox};
use toolmodel_rmcp::{
    ToolboxServer,
    tasks::{MemoryTaskStore, RedisTaskStore, TaskStore},
};

#[path = "../tests/support/pipe.rs"]
mod pipe;
#[path = "../tests/support/redis.rs"]
mod redis_server;

/// Always a task; yields once, then answers.
#[derive(Default, toolmodel::Tool)]
#[tool(name = "quick", task_support = "required")]
struct Quick;

impl ToolHandler for Quick {
    type Reply = &'static str;
    async fn call(&self, _: NoArguments, _cx: &CallContext) -> Result<&'static str, ToolError> {
        tokio::task::yield_now().await;
        Ok("done")
    }
}

struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::builder().enable_tasks().build(),
            Implementation::new("tasks-bench", "0"),
        )
    }
}

type Service = RunningService<RoleClient, Client>;

async fn connect(store: Arc<dyn TaskStore>) -> Service {
    let toolbox = Toolbox::builder().with(Quick).build().expect("toolbox");
    pipe::connect(ToolboxServer::new(toolbox).with_task_store(store), Client).await
}

/// What one store measured.
#[derive(Default)]
struct Measured {
    tasks: usize,
    elapsed: Duration,
    gets: Vec<Duration>,
}

impl Measured {
    fn tasks_per_s(&self) -> f64 {
        self.tasks as f64 / self.elapsed.as_secs_f64()
    }

    fn get_p50(&mut self) -> Duration {
        self.gets.sort_unstable();
        self.gets
            .get(self.gets.len() / 2)
            .copied()
            .unwrap_or_default()
    }
}

/// `count` tasks, one after the other, each polled to `completed`.
async fn round(service: &Service, count: usize, measured: &mut Measured) {
    let started = Instant::now();
    for _ in 0..count {
        let created = service
            .call_tool_once(CallToolRequestParams::new("quick"))
            .await
            .expect("tools/call");
        let CallToolResponse::Task(created) = created else {
            panic!("expected a task, got {created:?}");
        };
        loop {
            let asked = Instant::now();
            let got = service
                .get_task(GetTaskParams::new(created.task.task_id.clone()))
                .await
                .expect("tasks/get");
            measured.gets.push(asked.elapsed());
            match got.task.task.status {
                TaskStatus::Completed => break,
                TaskStatus::Working => tokio::task::yield_now().await,
                other => panic!("task ended {other:?}"),
            }
        }
    }
    measured.tasks += count;
    measured.elapsed += started.elapsed();
}

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(default)
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let tasks = setting("TASKS_BENCH_TASKS", 300);
    let rounds = setting("TASKS_BENCH_ROUNDS", 5);
    let Some(redis) = redis_server::RedisServer::start() else {
        return;
    };
    let redis_store = RedisTaskStore::connect(&redis.url).await.expect("redis");
    let memory = connect(Arc::new(MemoryTaskStore::new())).await;
    let on_redis = connect(Arc::new(redis_store)).await;
    // Warm-up: connections, scripts loaded, code paths.
    round(&memory, 50, &mut Measured::default()).await;
    round(&on_redis, 50, &mut Measured::default()).await;
    let (mut m, mut r) = (Measured::default(), Measured::default());
    for number in 1..=rounds {
        round(&memory, tasks, &mut m).await;
        round(&on_redis, tasks, &mut r).await;
        println!(
            "round {number}: memory {:.0} tasks/s, redis {:.0} tasks/s",
            m.tasks_per_s(),
            r.tasks_per_s()
        );
    }
    let (m_p50, r_p50) = (m.get_p50(), r.get_p50());
    println!(
        "memory: {:.0} tasks/s, {:.1} tasks/get per task, p50 {:?}; redis: {:.0} tasks/s, {:.1} \
         tasks/get per task, p50 {:?} ({} cores)",
        m.tasks_per_s(),
        m.gets.len() as f64 / m.tasks as f64,
        m_p50,
        r.tasks_per_s(),
        r.gets.len() as f64 / r.tasks as f64,
        r_p50,
        std::thread::available_parallelism().map_or(0, usize::from)
    );
    println!(
        "tasks: redis/memory tasks_per_s={:.2} get_p50={:.2}",
        r.tasks_per_s() / m.tasks_per_s(),
        r_p50.as_secs_f64() / m_p50.as_secs_f64()
    );
}
