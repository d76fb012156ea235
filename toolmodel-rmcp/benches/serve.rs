//! `ToolboxServer` side by side with `rmcp`'s own `#[tool_router]` server: the same tool
//! (`add`, two integers in, their sum as text out), the same client, in the same run, over
//! Streamable HTTP and stdio, with the same socket options (`TCP_NODELAY` on every accepted
//! socket) and `rmcp`'s transport settings on both, so the ratios measure the tool layer.
//!
//! HTTP: one keep-alive client (hyper, HTTP/1.1) per round, a session each, calls one after
//! the other; rounds alternate between the servers. stdio: each server a child process (this
//! bench binary again), driven by `rmcp`'s client. The last line:
//! `serve: toolbox/rmcp http_calls_per_s=<a> http_p99=<b> stdio_calls_per_s=<c>` (goals:
//! >= 0.9, <= 1.2, >= 0.9).
//!
//! `cargo bench -p toolmodel-rmcp --bench serve`; `SERVE_BENCH_CALLS` sets the calls per
//! round (default 2,000), `SERVE_BENCH_ROUNDS` the rounds per server and transport (default 5).

use std::{
    convert::Infallible,
    net::SocketAddr,
    time::{Duration, Instant},
};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
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
use serde_json::{Value, json};
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

use add::Add;

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

/// One keep-alive HTTP client.
struct HttpClient {
    send: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    addr: SocketAddr,
    session: Option<String>,
}

impl HttpClient {
    async fn connect(addr: SocketAddr) -> Self {
        let stream = tokio::net::TcpStream::connect(addr)
            .await
            .expect("connects");
        stream.set_nodelay(true).expect("TCP_NODELAY");
        let (send, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .expect("handshake");
        tokio::spawn(connection);
        let mut client = Self {
            send,
            addr,
            session: None,
        };
        let init = client
            .post(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "serve-bench", "version": "0"}}}),
            )
            .await;
        assert!(init.contains("\"result\""), "initialize failed: {init}");
        client
            .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        client
    }

    async fn post(&mut self, body: Value) -> String {
        let mut request = Request::post("/mcp")
            .header("host", self.addr.to_string())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = &self.session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        let request = request
            .body(Full::new(Bytes::from(body.to_string())))
            .expect("a request");
        self.send.ready().await.expect("connection ready");
        let response = self.send.send_request(request).await.expect("a response");
        if let Some(session) = response.headers().get("mcp-session-id") {
            self.session = Some(session.to_str().expect("ASCII").to_owned());
        }
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("a body")
            .to_bytes();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}

/// `calls` calls of `add` on a fresh session at `addr`: each call's latency.
async fn http_round(addr: SocketAddr, calls: usize) -> Vec<Duration> {
    let mut client = HttpClient::connect(addr).await;
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
    let calls = env_count("SERVE_BENCH_CALLS", 2_000);
    let rounds = env_count("SERVE_BENCH_ROUNDS", 5);
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    runtime.block_on(async move {
        let toolbox_listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
        let toolbox_addr = toolbox_listener.local_addr().expect("an address");
        tokio::spawn(toolbox_server().serve_http(toolbox_listener));
        let rmcp_listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
        let rmcp_addr = rmcp_listener.local_addr().expect("an address");
        tokio::spawn(serve_rmcp_http(rmcp_listener));

        // A warm-up round each, not counted.
        http_round(toolbox_addr, calls / 10).await;
        http_round(rmcp_addr, calls / 10).await;
        let (mut toolbox, mut rmcp) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            toolbox.extend(http_round(toolbox_addr, calls).await);
            rmcp.extend(http_round(rmcp_addr, calls).await);
        }
        let toolbox_rate = per_second(toolbox.len(), toolbox.iter().sum());
        let rmcp_rate = per_second(rmcp.len(), rmcp.iter().sum());
        let (toolbox_p99, rmcp_p99) = (p99(&mut toolbox), p99(&mut rmcp));
        println!(
            "http, {cores} cores, {rounds} x {calls} calls, one keep-alive client: toolbox {toolbox_rate:.0} calls/s p99 {:.3} ms; rmcp {rmcp_rate:.0} calls/s p99 {:.3} ms",
            toolbox_p99.as_secs_f64() * 1e3,
            rmcp_p99.as_secs_f64() * 1e3
        );

        stdio_round("toolbox", calls / 10).await;
        stdio_round("rmcp", calls / 10).await;
        let (mut toolbox_stdio, mut rmcp_stdio) = (Duration::ZERO, Duration::ZERO);
        for _ in 0..rounds {
            toolbox_stdio += stdio_round("toolbox", calls).await;
            rmcp_stdio += stdio_round("rmcp", calls).await;
        }
        let toolbox_stdio = per_second(calls * rounds, toolbox_stdio);
        let rmcp_stdio = per_second(calls * rounds, rmcp_stdio);
        println!(
            "stdio, {cores} cores, {rounds} x {calls} calls, rmcp's client: toolbox {toolbox_stdio:.0} calls/s; rmcp {rmcp_stdio:.0} calls/s"
        );
        println!(
            "serve: toolbox/rmcp http_calls_per_s={:.2} http_p99={:.2} stdio_calls_per_s={:.2}",
            toolbox_rate / rmcp_rate,
            toolbox_p99.as_secs_f64() / rmcp_p99.as_secs_f64(),
            toolbox_stdio / rmcp_stdio
        );
    });
}
