//! A 2025-era session's calls with the Redis session store against the memory one (issue 43):
//! the same tool, client and calls in the same run.
//!
//! - `memory`: one server with sessions in its memory (no store: what a server without one
//!   does), one keep-alive client calling `add` in one session, one call after the other;
//! - `redis`: two replicas of that server sharing a `RedisSessionStore`, the session made on
//!   the first, and the calls alternating between the two (a round-robin balancer's worst
//!   case: every call on the other replica than the last). Each replica reads the session
//!   from Redis once (its first call there replays `initialize`); every later call finds it
//!   held, and at most once per quarter of the idle timeout a replica renews it in Redis, off
//!   the call's path.
//!
//! Then, 50 times, a new session on the first replica and its first call on the second (the
//! store read, the replay, the call): that call's median.
//!
//! The two sides take turns each round (`SESSIONS_BENCH_ROUNDS`, default 5, of
//! `SESSIONS_BENCH_CALLS` calls each, default 2,000), so load from elsewhere on the machine
//! falls on both alike. Redis is a throwaway `redis-server` on loopback (Debian's package,
//! `scale/redis.sh install`); without it the bench says so and stops. The last line:
//! `sessions: redis/memory calls_per_s=<a> p50=<b>`: the Redis side's calls per second over
//! the memory side's, and its median call time over the memory side's (goal: `calls_per_s >=
//! 0.8`; reported, not enforced: the cores are shared).
//!
//! `cargo bench -p toolmodel-rmcp --features redis --bench sessions`

use std::{
    net::SocketAddr,
    sync::Arc,
    time::{Duration, Instant},
};

use serde_json::json;
use tokio::net::TcpListener;
use toolmodel::Toolbox;
use toolmodel_rmcp::{ToolboxServer, sessions::RedisSessionStore};
use toolmodel_test_support::redis::RedisServer;

#[path = "../tests/support/add.rs"]
mod add;
#[path = "support/http_client.rs"]
mod http_client;

use add::Add;
use http_client::HttpClient;

/// A server of `add` on a loopback port, with `store` when given.
async fn serve(store: Option<Arc<RedisSessionStore>>) -> SocketAddr {
    let toolbox = Toolbox::builder()
        .with(Add::default())
        .build()
        .expect("toolbox");
    let mut server = ToolboxServer::new(toolbox);
    if let Some(store) = store {
        server = server.with_session_store(store);
    }
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(server.serve_http(listener).into_future());
    addr
}

/// `calls` calls of `add`, each on the next of `clients` in turn: each call's time.
async fn round(clients: &mut [HttpClient], calls: usize, times: &mut Vec<Duration>) -> Duration {
    let started = Instant::now();
    for call in 0..calls {
        let client = &mut clients[call % clients.len()];
        let body = json!({"jsonrpc": "2.0", "id": call + 1, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": 1, "b": 2}}});
        let one = Instant::now();
        let answer = client.post(body).await;
        times.push(one.elapsed());
        assert!(answer.contains("\"text\":\"3\""), "a call failed: {answer}");
    }
    started.elapsed()
}

fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let [rounds, calls] = [
        ("SESSIONS_BENCH_ROUNDS", 5),
        ("SESSIONS_BENCH_CALLS", 2_000),
    ]
    .map(|(name, default)| {
        std::env::var(name).map_or(default, |text| text.parse().unwrap_or(default))
    });
    let store = Arc::new(RedisSessionStore::connect(&redis.url).await.expect("redis"));

    let memory_addr = serve(None).await;
    let mut memory = vec![HttpClient::connect(memory_addr, "bench").await];
    let first = serve(Some(Arc::clone(&store))).await;
    let second = serve(Some(Arc::clone(&store))).await;
    let opener = HttpClient::connect(first, "bench").await;
    let session = opener.session().expect("a session").to_owned();
    let mut replicas = vec![opener, HttpClient::join(second, Some(session)).await];

    // Warm-up: connections, the second replica's restore, code paths.
    round(&mut memory, 200, &mut Vec::new()).await;
    round(&mut replicas, 200, &mut Vec::new()).await;

    let (mut memory_times, mut redis_times) = (Vec::new(), Vec::new());
    let (mut memory_elapsed, mut redis_elapsed) = (Duration::ZERO, Duration::ZERO);
    for _ in 0..rounds {
        memory_elapsed += round(&mut memory, calls, &mut memory_times).await;
        redis_elapsed += round(&mut replicas, calls, &mut redis_times).await;
    }
    // A session's first request on a replica that does not hold it: one store read, the
    // replay of its `initialize`, then the call.
    let mut first_calls = Vec::new();
    for _ in 0..50 {
        let opener = HttpClient::connect(first, "bench").await;
        let session = opener.session().expect("a session").to_owned();
        let mut other = vec![HttpClient::join(second, Some(session)).await];
        round(&mut other, 1, &mut first_calls).await;
    }
    let total = (rounds * calls) as f64;
    let memory_rate = total / memory_elapsed.as_secs_f64();
    let redis_rate = total / redis_elapsed.as_secs_f64();
    let (memory_p50, redis_p50) = (median(&mut memory_times), median(&mut redis_times));
    println!(
        "memory: one replica, calls_per_s={memory_rate:.0} p50={:.1}us",
        memory_p50.as_secs_f64() * 1e6
    );
    println!(
        "redis: two replicas in turn, calls_per_s={redis_rate:.0} p50={:.1}us",
        redis_p50.as_secs_f64() * 1e6
    );
    println!(
        "redis: a session's first call on the other replica p50={:.1}us",
        median(&mut first_calls).as_secs_f64() * 1e6
    );
    println!(
        "sessions: redis/memory calls_per_s={:.2} p50={:.2}",
        redis_rate / memory_rate,
        redis_p50.as_secs_f64() / memory_p50.as_secs_f64()
    );
}
