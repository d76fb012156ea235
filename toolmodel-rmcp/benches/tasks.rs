//! Tasks on the memory store against tasks on the Redis store (feature `redis`), the same
//! server, tool and client in the same run: a `tools/call` that becomes a task, then
//! `tasks/get` until it is `completed`, one task after the other, each server driven by
//! `rmcp`'s client over an in-process pipe. The two stores take turns every 25 tasks, so load
//! from elsewhere on the machine falls on both alike. Redis is a throwaway `redis-server` on
//! loopback (Debian's package, `scale/redis.sh install`); without it the bench says so and
//! stops. A task on the Redis store is two round trips to it: the create (before the
//! `CreateTaskResult`) and the worker's finish; the `tasks/get` that finds it completed waits
//! for that finish and is answered from the store's memory. The store operations line gives the median time of each, on both stores, timed
//! around the store's method; the next line `redis-server`'s own time per command (`INFO
//! commandstats`); the line before the last, each store's median time of a whole task too, a
//! figure steadier than the tasks per second on a shared machine.
//!
//! The last line: `tasks: redis/memory tasks_per_s=<a> get_p50=<b>`, the Redis store's tasks per
//! second over the memory store's, and its median `tasks/get` time over the memory store's
//! (goals: >= 0.5, <= 3.0).
//!
//! `cargo bench -p toolmodel-rmcp --features redis --bench tasks`; `TASKS_BENCH_TASKS` sets
//! the tasks per round and store (default 300), `TASKS_BENCH_ROUNDS` the rounds (default 5).

use std::{
    sync::{Arc, Mutex},
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
use serde_json::{Map, Value};
use toolmodel::{CallContext, NoArguments, ToolError, ToolHandler, Toolbox};
use toolmodel_rmcp::{
    ToolboxServer,
    tasks::{
        Lease, MemoryTaskStore, RedisTaskStore, StoreFuture, TaskChanges, TaskOutcome, TaskRecord,
        TaskStore,
    },
};

// The tests' in-memory pipe; the bench uses a part of it.
#[allow(dead_code)]
#[path = "../tests/support/pipe.rs"]
mod pipe;

use toolmodel_test_support::redis::RedisServer;

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

/// The times of a store's `create`, `get` and `finish`, each timed around the method.
#[derive(Default)]
struct Operations {
    create: Vec<Duration>,
    get: Vec<Duration>,
    finish: Vec<Duration>,
}

/// A store that times the operations a task costs.
#[derive(Debug)]
struct Timed {
    store: Arc<dyn TaskStore>,
    times: Arc<Mutex<Operations>>,
}

impl std::fmt::Debug for Operations {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Operations")
    }
}

impl Timed {
    fn time<'a, T: 'a>(
        &'a self,
        which: fn(&mut Operations) -> &mut Vec<Duration>,
        operation: StoreFuture<'a, T>,
    ) -> StoreFuture<'a, T> {
        Box::pin(async move {
            let started = Instant::now();
            let done = operation.await;
            which(&mut self.times.lock().unwrap()).push(started.elapsed());
            done
        })
    }
}

impl TaskStore for Timed {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        self.time(|times| &mut times.create, self.store.create(record))
    }

    fn get(&self, task_id: &str) -> StoreFuture<'_, Option<TaskRecord>> {
        self.time(|times| &mut times.get, self.store.get(task_id))
    }

    fn ask(
        &self,
        task_id: &str,
        requests: Map<String, Value>,
    ) -> StoreFuture<'_, Option<TaskRecord>> {
        self.store.ask(task_id, requests)
    }

    fn answer(&self, task_id: &str, answers: Map<String, Value>) -> StoreFuture<'_, bool> {
        self.store.answer(task_id, answers)
    }

    fn cancel(&self, task_id: &str) -> StoreFuture<'_, bool> {
        self.store.cancel(task_id)
    }

    fn finish(&self, task_id: &str, outcome: TaskOutcome) -> StoreFuture<'_, bool> {
        self.time(
            |times| &mut times.finish,
            self.store.finish(task_id, outcome),
        )
    }

    fn renew(&self, task_id: &str, worker: &str, lease_until_ms: u64) -> StoreFuture<'_, Lease> {
        self.store.renew(task_id, worker, lease_until_ms)
    }

    fn reclaim(
        &self,
        worker: &str,
        now_ms: u64,
        lease_until_ms: u64,
        lost: TaskOutcome,
    ) -> StoreFuture<'_, Vec<TaskRecord>> {
        self.store.reclaim(worker, now_ms, lease_until_ms, lost)
    }

    fn changes(&self) -> TaskChanges {
        self.store.changes()
    }
}

/// A server on `store`, timed; and its times.
async fn timed(store: Arc<dyn TaskStore>) -> (Service, Arc<Mutex<Operations>>) {
    let times = Arc::new(Mutex::new(Operations::default()));
    let service = connect(Arc::new(Timed {
        store,
        times: times.clone(),
    }))
    .await;
    (service, times)
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    times.get(times.len() / 2).copied().unwrap_or_default()
}

/// The median of each operation, from the times after the first `skip` of each.
fn operations(times: &Mutex<Operations>, skip: usize) -> String {
    let mut times = times.lock().unwrap();
    let p50 = |times: &mut Vec<Duration>| {
        let skip = skip.min(times.len());
        format!("{:.2?}", median(&mut times[skip..]))
    };
    format!(
        "create {}, finish {}, get {}",
        p50(&mut times.create),
        p50(&mut times.finish),
        p50(&mut times.get)
    )
}

/// What one store measured.
#[derive(Default)]
struct Measured {
    tasks: usize,
    elapsed: Duration,
    gets: Vec<Duration>,
    /// Each task's time, from its `tools/call` to the `tasks/get` that found it completed.
    each: Vec<Duration>,
}

impl Measured {
    fn tasks_per_s(&self) -> f64 {
        self.tasks as f64 / self.elapsed.as_secs_f64()
    }

    fn get_p50(&mut self) -> Duration {
        median(&mut self.gets)
    }
}

/// `count` tasks, one after the other, each polled to `completed`.
async fn round(service: &Service, count: usize, measured: &mut Measured) {
    let started = Instant::now();
    for _ in 0..count {
        let task_started = Instant::now();
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
                TaskStatus::Completed => {
                    measured.each.push(task_started.elapsed());
                    break;
                }
                TaskStatus::Working => tokio::task::yield_now().await,
                other => panic!("task ended {other:?}"),
            }
        }
    }
    measured.tasks += count;
    measured.elapsed += started.elapsed();
}

/// What the Redis server at `url` spent per call of each command, as `INFO commandstats`
/// says (`cmdstat_NAME:calls=..,usec=..,usec_per_call=..`): `NAME Xµs` for each command called
/// more than 100 times.
async fn server_times(url: &str) -> String {
    let info = async {
        let client = redis::Client::open(url)?;
        let mut connection = client.get_multiplexed_async_connection().await?;
        redis::cmd("INFO")
            .arg("commandstats")
            .query_async::<String>(&mut connection)
            .await
    };
    let info = match info.await {
        Ok(info) => info,
        Err(err) => return format!("unknown ({err})"),
    };
    info.lines()
        .filter_map(|line| {
            let (name, stats) = line.strip_prefix("cmdstat_")?.split_once(':')?;
            let field = |key: &str| {
                stats
                    .split(',')
                    .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))
            };
            let calls: u64 = field("calls")?.parse().ok()?;
            let per_call = field("usec_per_call")?;
            (calls > 100).then(|| format!("{name} {per_call}µs"))
        })
        .collect::<Vec<_>>()
        .join(", ")
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
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let redis_store = RedisTaskStore::connect(&redis.url).await.expect("redis");
    let (memory, memory_times) = timed(Arc::new(MemoryTaskStore::new())).await;
    let (on_redis, redis_times) = timed(Arc::new(redis_store)).await;
    // Warm-up: connections, scripts loaded, code paths.
    const WARM_UP: usize = 50;
    round(&memory, WARM_UP, &mut Measured::default()).await;
    round(&on_redis, WARM_UP, &mut Measured::default()).await;
    let (mut m, mut r) = (Measured::default(), Measured::default());
    const TURN: usize = 25;
    for number in 1..=rounds {
        let mut left = tasks;
        while left > 0 {
            let turn = left.min(TURN);
            round(&memory, turn, &mut m).await;
            round(&on_redis, turn, &mut r).await;
            left -= turn;
        }
        println!(
            "round {number}: memory {:.0} tasks/s, redis {:.0} tasks/s",
            m.tasks_per_s(),
            r.tasks_per_s()
        );
    }
    println!(
        "store operations, p50: memory {}; redis {}",
        operations(&memory_times, WARM_UP),
        operations(&redis_times, WARM_UP)
    );
    println!("redis-server, per call: {}", server_times(&redis.url).await);
    let (m_p50, r_p50) = (m.get_p50(), r.get_p50());
    let (m_each, r_each) = (median(&mut m.each), median(&mut r.each));
    println!(
        "memory: {:.0} tasks/s, a task p50 {:?}, {:.1} tasks/get per task, p50 {:?}; redis: {:.0} \
         tasks/s, a task p50 {:?}, {:.1} tasks/get per task, p50 {:?} ({} cores; the memory \
         store's task p50 over the Redis store's: {:.2})",
        m.tasks_per_s(),
        m_each,
        m.gets.len() as f64 / m.tasks as f64,
        m_p50,
        r.tasks_per_s(),
        r_each,
        r.gets.len() as f64 / r.tasks as f64,
        r_p50,
        std::thread::available_parallelism().map_or(0, usize::from),
        m_each.as_secs_f64() / r_each.as_secs_f64()
    );
    println!(
        "tasks: redis/memory tasks_per_s={:.2} get_p50={:.2}",
        r.tasks_per_s() / m.tasks_per_s(),
        r_p50.as_secs_f64() / m_p50.as_secs_f64()
    );
}
