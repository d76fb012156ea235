//! `ToolboxServer` side by side with `rmcp`'s own `#[tool_router]` server: the same tool
//! (`add`, two integers in, their sum as text out), the same client, in the same run, over
//! Streamable HTTP and stdio, with the same socket options (`TCP_NODELAY` on every accepted
//! socket) and `rmcp`'s transport settings on both, so the ratios measure the tool layer.
//!
//! HTTP: one keep-alive client (hyper, HTTP/1.1) per round, a session each, calls one after
//! the other; rounds alternate between the servers (which goes first alternates too). stdio:
//! each server a child process (this bench binary again), driven by `rmcp`'s client. Each pair
//! of rounds gives one ratio per figure; the figures are the medians of those ratios with
//! their interquartile range and whether the whole range is inside the goal
//! (`toolmodel/benches/timing/spread.rs`). The last line:
//! `serve: toolbox/rmcp http_calls_per_s=<a>±<r> http_p99=<b>±<r> stdio_calls_per_s=<c>±<r>`
//! (median ± half the interquartile range; goals: >= 0.9, <= 1.2, >= 0.9).
//!
//! `cargo bench -p toolmodel-rmcp --bench serve`; `SERVE_BENCH_CALLS` sets the calls per
//! round (default 400), `SERVE_BENCH_ROUNDS` the rounds per server and transport (default 25).

use std::{
    convert::Infallible,
    net::SocketAddr,
    time::{Duration, Instant},
};

use hyper::{Request, server::conn::http1, service::service_fn};
use hyper_util::rt::{TokioIo, TokioTimer};
use rmcp::{
    ServerHandler, ServiceExt as _,
    handler::server::{router::tool::ToolRouter, wrapper::Parameters},
    model::{CallToolRequestParams, ServerCapabilities, ServerConfig},
    tool, tool_handler, tool_router,
    transport::{
        TokioChildProcess,
        streamable_http_server::{
            StreamableHttpServerConfig, StreamableHttpService, session::local::LocalSessionManager,
        },
    },
};
use serde::Deserialize;
use serde_json::json;
use tokio::net::TcpListener;
use toolmodel::{
    Toolbox,
    schemars::{self, JsonSchema},
};
use toolmodel_rmcp::ToolboxServer;

/// The environment variable that makes this binary a stdio server (`toolbox` or `rmcp`).
const CHILD: &str = "SERVE_BENCH_STDIO_SERVER";

#[path = "../tests/support/add.rs"]
mod add;
#[path = "support/http_client.rs"]
mod http_client;
#[path = "../../toolmodel/benches/timing/mod.rs"]
mod timing;

use add::Add;
use http_client::HttpClient;
use timing::spread::{Goal, Spread};

#[derive(Deserialize, JsonSchema)]
struct AddRequest {
    a: i64,
    b: i64,
}

#[derive(Clone)]
struct RmcpAdd {
    tool_router: ToolRouter<Self>,
}

#[tool_router]
impl RmcpAdd {
    fn new() -> Self {
        Self {
            tool_router: Self::tool_router(),
        }
    }

    /// Adds two integers.
    #[tool(description = "Adds two integers.")]
    fn add(&self, Parameters(AddRequest { a, b }): Parameters<AddRequest>) -> String {
        a.wrapping_add(b).to_string()
    }
}

#[tool_handler(router = self.tool_router)]
impl ServerHandler for RmcpAdd {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
    }
}

fn toolbox_server() -> ToolboxServer {
    ToolboxServer::new(
        Toolbox::builder()
            .with(Add::default())
            .build()
            .expect("builds"),
    )
}

/// `rmcp`'s service on `listener`, each accepted socket with `TCP_NODELAY` (as
/// `ToolboxServer::serve_http` does), HTTP/1.1 keep-alive.
async fn serve_rmcp_http(listener: TcpListener) {
    let service = StreamableHttpService::new(
        || Ok(RmcpAdd::new()),
        std::sync::Arc::new(LocalSessionManager::default()),
        StreamableHttpServerConfig::default(),
    );
    loop {
        let Ok((stream, _)) = listener.accept().await else {
            continue;
        };
        stream.set_nodelay(true).expect("TCP_NODELAY");
        let service = service.clone();
        tokio::spawn(async move {
            let service = service_fn(move |request: Request<hyper::body::Incoming>| {
                let service = service.clone();
                async move { Ok::<_, Infallible>(service.handle(request).await) }
            });
            let _ = http1::Builder::new()
                .timer(TokioTimer::new())
                .keep_alive(true)
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

/// `calls` calls of `add` on a fresh session at `addr`: each call's latency.
async fn http_round(addr: SocketAddr, calls: usize) -> Vec<Duration> {
    let mut client = HttpClient::connect(addr, "serve-bench").await;
    let mut latencies = Vec::with_capacity(calls);
    for id in 1..=calls {
        let start = Instant::now();
        let body = client
            .post(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
                "params": {"name": "add", "arguments": {"a": id, "b": 2}}}))
            .await;
        latencies.push(start.elapsed());
        assert!(
            body.contains(&format!("\"text\":\"{}\"", id + 2)),
            "bad result: {body}"
        );
    }
    latencies
}

/// `calls` calls of `add` on a stdio child server (`toolbox` or `rmcp`): the elapsed time.
async fn stdio_round(server: &str, calls: usize) -> Duration {
    let mut command = tokio::process::Command::new(std::env::current_exe().expect("this binary"));
    command.env(CHILD, server);
    let client =
        ().serve(TokioChildProcess::new(command).expect("spawns"))
            .await
            .expect("initialize");
    let start = Instant::now();
    for id in 1..=calls {
        let arguments = json!({"a": id, "b": 2})
            .as_object()
            .cloned()
            .expect("an object");
        let result = client
            .call_tool(CallToolRequestParams::new("add").with_arguments(arguments))
            .await
            .expect("a result");
        let text = serde_json::to_value(&result).expect("JSON")["content"][0]["text"].clone();
        assert_eq!(text, json!((id + 2).to_string()));
    }
    let elapsed = start.elapsed();
    client.cancel().await.expect("stops");
    elapsed
}

fn p99(latencies: &mut [Duration]) -> Duration {
    latencies.sort_unstable();
    let at = (latencies.len() * 99 / 100).min(latencies.len().saturating_sub(1));
    latencies.get(at).copied().unwrap_or_default()
}

fn per_second(calls: usize, elapsed: Duration) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let calls = calls as f64;
    calls / elapsed.as_secs_f64()
}

fn env_count(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(default)
}

fn main() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    if let Ok(server) = std::env::var(CHILD) {
        runtime.block_on(async {
            match server.as_str() {
                "toolbox" => toolbox_server().serve_stdio().await.expect("serves"),
                _ => {
                    let running = RmcpAdd::new()
                        .serve(rmcp::transport::stdio())
                        .await
                        .expect("serves");
                    let _ = running.waiting().await;
                }
            }
        });
        return;
    }
    let calls = env_count("SERVE_BENCH_CALLS", 400);
    let rounds = env_count("SERVE_BENCH_ROUNDS", 25);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    runtime.block_on(async move {
        let toolbox_listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
        let toolbox_addr = toolbox_listener.local_addr().expect("an address");
        tokio::spawn(toolbox_server().serve_http(toolbox_listener).into_future());
        let rmcp_listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
        let rmcp_addr = rmcp_listener.local_addr().expect("an address");
        tokio::spawn(serve_rmcp_http(rmcp_listener));

        // A warm-up round each, not counted.
        http_round(toolbox_addr, calls).await;
        http_round(rmcp_addr, calls).await;
        let (mut toolbox, mut rmcp) = (Vec::new(), Vec::new());
        let (mut rate_ratios, mut p99_ratios) = (Vec::new(), Vec::new());
        for round in 0..rounds {
            let (mut ours, mut theirs) = if round % 2 == 0 {
                let ours = http_round(toolbox_addr, calls).await;
                (ours, http_round(rmcp_addr, calls).await)
            } else {
                let theirs = http_round(rmcp_addr, calls).await;
                (http_round(toolbox_addr, calls).await, theirs)
            };
            let (our_time, their_time) = (ours.iter().sum::<Duration>(), theirs.iter().sum::<Duration>());
            rate_ratios.push(their_time.as_secs_f64() / our_time.as_secs_f64());
            p99_ratios.push(p99(&mut ours).as_secs_f64() / p99(&mut theirs).as_secs_f64());
            toolbox.extend(ours);
            rmcp.extend(theirs);
        }
        let toolbox_rate = per_second(toolbox.len(), toolbox.iter().sum());
        let rmcp_rate = per_second(rmcp.len(), rmcp.iter().sum());
        let (toolbox_p99, rmcp_p99) = (p99(&mut toolbox), p99(&mut rmcp));
        let (http_rate, http_p99) = (Spread::of(&rate_ratios), Spread::of(&p99_ratios));
        println!(
            "http, {cores} cores, {rounds} x {calls} calls, one keep-alive client: toolbox {toolbox_rate:.0} calls/s p99 {:.3} ms; rmcp {rmcp_rate:.0} calls/s p99 {:.3} ms (all rounds)",
            toolbox_p99.as_secs_f64() * 1e3,
            rmcp_p99.as_secs_f64() * 1e3
        );
        println!("  {}", http_rate.line("http_calls_per_s", 2, Goal::AtLeast(0.9)));
        println!("  {}", http_p99.line("http_p99", 2, Goal::AtMost(1.2)));

        stdio_round("toolbox", calls).await;
        stdio_round("rmcp", calls).await;
        let (mut toolbox_stdio, mut rmcp_stdio) = (Duration::ZERO, Duration::ZERO);
        let mut stdio_ratios = Vec::new();
        for round in 0..rounds {
            let (ours, theirs) = if round % 2 == 0 {
                let ours = stdio_round("toolbox", calls).await;
                (ours, stdio_round("rmcp", calls).await)
            } else {
                let theirs = stdio_round("rmcp", calls).await;
                (stdio_round("toolbox", calls).await, theirs)
            };
            stdio_ratios.push(theirs.as_secs_f64() / ours.as_secs_f64());
            toolbox_stdio += ours;
            rmcp_stdio += theirs;
        }
        let stdio = Spread::of(&stdio_ratios);
        let toolbox_stdio = per_second(calls * rounds, toolbox_stdio);
        let rmcp_stdio = per_second(calls * rounds, rmcp_stdio);
        println!(
            "stdio, {cores} cores, {rounds} x {calls} calls, rmcp's client: toolbox {toolbox_stdio:.0} calls/s; rmcp {rmcp_stdio:.0} calls/s (all rounds)"
        );
        println!("  {}", stdio.line("stdio_calls_per_s", 2, Goal::AtLeast(0.9)));
        println!(
            "serve: toolbox/rmcp {} {} {}",
            http_rate.short("http_calls_per_s", 2),
            http_p99.short("http_p99", 2),
            stdio.short("stdio_calls_per_s", 2)
        );
    });
}
