//! The cost of the gateway: one tool of `examples/server` (`weather.get_weather`) called
//! directly over Streamable HTTP, and through a federation gateway (a [`Federation`] with that
//! server as its one HTTP upstream, served by a [`ToolboxServer`] over Streamable HTTP: HTTP
//! in, HTTP out, in this process), by the same client (rmcp's, one session per round, calls one
//! after the other), rounds alternating between the two. That client is `rmcp`'s default
//! Streamable HTTP client, which keeps no idle connection (a new TCP connection per request) on
//! both sides alike; the gateway's own sessions to its upstreams keep theirs (see
//! `federation/session.rs`), so a relayed call adds one request on an open connection.
//!
//! The release `examples/server` is built first when missing (`cargo build --release -p
//! toolmodel-examples --example server`). The last line:
//! `gateway: via/direct calls_per_s=<a> p50=<b> p99=<c>` (goals: >= 0.6, <= 1.6, <= 2.0).
//!
//! A third side calls the same gateway under a 100-rule [`ToolPolicy`] (99 rules whose globs
//! miss the tool, the last allowing it; no authorization, so every rule applies to every
//! request and each call pays the whole pass over the rules and the view lookup) and under
//! [`RateLimits`] high enough to refuse nothing (a request rule per user, a call rule per user
//! and tool, a call rule per upstream, in this process's buckets: each call takes a token from
//! three buckets, one of them at the HTTP front), reported against the gateway without either:
//! `gateway: policy/none calls_per_s=<a> p50=<b>` (goals: >= 0.95, <= 1.05).
//!
//! `cargo bench -p toolmodel-rmcp --features federation --bench gateway`;
//! `GATEWAY_BENCH_CALLS` sets the calls per round (default 2,000), `GATEWAY_BENCH_ROUNDS` the
//! rounds per side (default 5).

use std::{
    path::PathBuf,
    process::Stdio,
    time::{Duration, Instant},
};

use rmcp::{
    ServiceExt as _,
    model::CallToolRequestParams,
    transport::{
        StreamableHttpClientTransport, streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use serde_json::json;
use toolmodel_rmcp::{
    ToolboxServer,
    federation::{Federation, FederationConfig, HttpTransport, UpstreamConfig},
    server::{RateLimits, ToolPolicy},
};

/// Limits that refuse nothing at the bench's rate: one request rule and two call rules.
fn limits() -> RateLimits {
    RateLimits::from_json(&json!({"rules": [
        {"per": ["user"], "rate": 1_000_000, "burst": 1_000_000},
        {"per": ["user", "tool"], "tools": ["quickstart.*"], "rate": 1_000_000, "burst": 1_000_000},
        {"per": ["upstream"], "rate": 1_000_000, "burst": 1_000_000}
    ]}))
    .expect("limits")
}

/// 100 rules: 99 whose globs miss `quickstart.weather.get_weather`, then one that allows it.
fn hundred_rules() -> ToolPolicy {
    let mut rules: Vec<serde_json::Value> = (0..99)
        .map(|i| json!({"allow": [format!("server{i}.*"), format!("*.tool_{i}_*")]}))
        .collect();
    rules.push(json!({"allow": ["quickstart.*"]}));
    ToolPolicy::from_json(&json!({ "rules": rules })).expect("a policy")
}

fn env_number(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(default)
}

/// The release `examples/server`, built when missing.
fn example_server() -> PathBuf {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..");
    let target =
        std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| root.join("target"), PathBuf::from);
    let binary = target.join("release/examples/server");
    if !binary.exists() {
        let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
        let status = std::process::Command::new(cargo)
            .current_dir(&root)
            .args([
                "build",
                "--release",
                "-p",
                "toolmodel-examples",
                "--example",
                "server",
            ])
            .status()
            .expect("cargo runs");
        assert!(status.success(), "building examples/server failed");
    }
    binary
}

fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free loopback port")
}

/// One round: a new session to `url`, 20 warm-up calls, then `calls` timed ones.
async fn round(url: &str, calls: usize) -> (Duration, Vec<Duration>) {
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(url),
    );
    let client = ().serve(transport).await.expect("a session");
    let mut params = CallToolRequestParams::new("weather.get_weather");
    params.arguments = json!({"city": "Paris"}).as_object().cloned();
    for _ in 0..20 {
        client
            .call_tool(params.clone())
            .await
            .expect("a warm-up call");
    }
    let mut latencies = Vec::with_capacity(calls);
    let started = Instant::now();
    for _ in 0..calls {
        let call = Instant::now();
        let result = client.call_tool(params.clone()).await.expect("a call");
        assert_ne!(result.is_error, Some(true));
        latencies.push(call.elapsed());
    }
    let elapsed = started.elapsed();
    let _ = client.cancel().await;
    (elapsed, latencies)
}

fn percentile(sorted: &[Duration], fraction: f64) -> f64 {
    let index = ((sorted.len() as f64 - 1.0) * fraction).round() as usize;
    sorted
        .get(index)
        .map_or(0.0, |value| value.as_secs_f64() * 1e6)
}

#[derive(Default)]
struct Side {
    elapsed: Duration,
    latencies: Vec<Duration>,
}

impl Side {
    fn report(&mut self, label: &str) -> (f64, f64, f64) {
        self.latencies.sort_unstable();
        let rate = self.latencies.len() as f64 / self.elapsed.as_secs_f64();
        let (p50, p99) = (
            percentile(&self.latencies, 0.5),
            percentile(&self.latencies, 0.99),
        );
        println!(
            "{label}: calls_per_s={rate:.0} p50_us={p50:.0} p99_us={p99:.0} calls={}",
            self.latencies.len()
        );
        (rate, p50, p99)
    }
}

fn main() {
    let calls = env_number("GATEWAY_BENCH_CALLS", 2000);
    let rounds = env_number("GATEWAY_BENCH_ROUNDS", 5);
    let server = example_server();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        let upstream_port = free_port();
        let _upstream = tokio::process::Command::new(&server)
            .args(["--http", &format!("127.0.0.1:{upstream_port}")])
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("examples/server starts");
        while std::net::TcpStream::connect(("127.0.0.1", upstream_port)).is_err() {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let direct = format!("http://127.0.0.1:{upstream_port}/mcp");
        let config = FederationConfig::builder()
            .with_upstream(UpstreamConfig::http(
                "quickstart",
                HttpTransport::new(&direct),
            ))
            .build()
            .expect("a configuration");
        let federation = Federation::start(config)
            .await
            .expect("the federation starts");
        let mut urls = Vec::new();
        for gateway in [
            ToolboxServer::gateway(&federation),
            ToolboxServer::gateway(&federation)
                .with_tool_policy(hundred_rules())
                .with_rate_limits(limits()),
        ] {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("a listener");
            urls.push(format!(
                "http://{}/mcp",
                listener.local_addr().expect("an address")
            ));
            tokio::spawn(gateway.serve_http(listener).into_future());
        }
        let [via, policy] = <[String; 2]>::try_from(urls).expect("two gateways");

        let (mut direct_side, mut via_side, mut policy_side) =
            (Side::default(), Side::default(), Side::default());
        for _ in 0..rounds {
            for (url, side) in [
                (&direct, &mut direct_side),
                (&via, &mut via_side),
                (&policy, &mut policy_side),
            ] {
                let (elapsed, latencies) = round(url, calls).await;
                side.elapsed += elapsed;
                side.latencies.extend(latencies);
            }
        }
        let cores = std::thread::available_parallelism().map_or(0, usize::from);
        println!("cores={cores} calls_per_round={calls} rounds={rounds}");
        let (direct_rate, direct_p50, direct_p99) = direct_side.report("direct");
        let (via_rate, via_p50, via_p99) = via_side.report("via");
        let (policy_rate, policy_p50, _) = policy_side.report("via, 100-rule policy, rate limits");
        federation.shutdown().await;
        println!(
            "gateway: via/direct calls_per_s={:.2} p50={:.2} p99={:.2}",
            via_rate / direct_rate,
            via_p50 / direct_p50,
            via_p99 / direct_p99
        );
        println!(
            "gateway: policy/none calls_per_s={:.2} p50={:.2}",
            policy_rate / via_rate,
            policy_p50 / via_p50
        );
    });
}
