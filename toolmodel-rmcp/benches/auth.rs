//! `tools/call` over Streamable HTTP with and without authorization (MCP, "Authorization"),
//! in the same run: two servers of the same `add` tool, one protected by `oidc-provider`
//! (`serve/auth/provider.mjs`, started here), one open; rounds alternate between them. Each
//! round is one keep-alive client (hyper, HTTP/1.1) on a fresh session, sending the same JWT
//! access token on every call of the protected server (verified once, then found in the token
//! cache by its SHA-256). The last line:
//! `auth: with/without calls_per_s=<a> p50=<b>` (goals: >= 0.9, <= 1.15).
//!
//! `cargo bench -p toolmodel-rmcp --bench auth`; `AUTH_BENCH_CALLS` sets the calls per round
//! (default 2,000), `AUTH_BENCH_ROUNDS` the rounds per server (default 5). Without the
//! provider (not installed: `serve/auth/install.sh`) it prints why and stops, and fails under
//! `CI`.

use std::{
    net::SocketAddr,
    time::{Duration, Instant},
};

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::{Request, client::conn::http1::SendRequest};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::net::TcpListener;
use toolmodel::Toolbox;
use toolmodel_rmcp::{ToolboxServer, auth::ResourceServer};

#[path = "../tests/support/add.rs"]
mod add;

use toolmodel_test_support::issuer;

/// A keep-alive connection to one server, in one session, with the token it sends.
struct Session {
    sender: SendRequest<Full<Bytes>>,
    host: String,
    bearer: Option<String>,
    id: Option<String>,
}

impl Session {
    /// Opens a connection to `addr` and a session on it (`initialize`, `initialized`).
    async fn open(addr: SocketAddr, token: Option<&str>) -> Self {
        let tcp = tokio::net::TcpStream::connect(addr)
            .await
            .expect("connects");
        tcp.set_nodelay(true).expect("TCP_NODELAY");
        let (sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(tcp))
            .await
            .expect("an HTTP/1.1 connection");
        tokio::spawn(connection);
        let mut session = Self {
            sender,
            host: addr.to_string(),
            bearer: token.map(|token| format!("Bearer {token}")),
            id: None,
        };
        let hello = json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {},
            "clientInfo": {"name": "auth-bench", "version": "0"}}});
        let answer = session.send(&hello).await;
        assert!(answer.contains("serverInfo"), "initialize: {answer}");
        session
            .send(&json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        session
    }

    /// Posts `message`; the response body.
    async fn send(&mut self, message: &Value) -> String {
        let mut builder = Request::post("/mcp")
            .header("host", &self.host)
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(bearer) = &self.bearer {
            builder = builder.header("authorization", bearer);
        }
        if let Some(id) = &self.id {
            builder = builder
                .header("mcp-session-id", id)
                .header("mcp-protocol-version", "2025-11-25");
        }
        let request = builder
            .body(Full::new(Bytes::from(message.to_string())))
            .expect("a request");
        self.sender.ready().await.expect("ready");
        let response = self.sender.send_request(request).await.expect("answered");
        assert!(response.status().is_success(), "{}", response.status());
        if let Some(id) = response.headers().get("mcp-session-id") {
            self.id = id.to_str().ok().map(str::to_owned);
        }
        let body = response.into_body().collect().await.expect("a body");
        String::from_utf8_lossy(&body.to_bytes()).into_owned()
    }
}

/// `calls` calls of `add` in a fresh session at `addr` with `token`: each call's latency.
async fn round(addr: SocketAddr, token: Option<&str>, calls: usize) -> Vec<Duration> {
    let mut session = Session::open(addr, token).await;
    let mut latencies = Vec::with_capacity(calls);
    for n in 1..=calls {
        let call = json!({"jsonrpc": "2.0", "id": n, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": n, "b": 1}}});
        let start = Instant::now();
        let answer = session.send(&call).await;
        latencies.push(start.elapsed());
        assert!(
            answer.contains(&format!("\"text\":\"{}\"", n + 1)),
            "{answer}"
        );
    }
    latencies
}

/// The median of `latencies`.
fn p50(latencies: &mut [Duration]) -> Duration {
    latencies.sort_unstable();
    latencies
        .get(latencies.len() / 2)
        .copied()
        .unwrap_or_default()
}

/// Calls per second over the rounds' `latencies`.
fn rate(latencies: &[Duration]) -> f64 {
    #[allow(clippy::cast_precision_loss)]
    let calls = latencies.len() as f64;
    calls / latencies.iter().sum::<Duration>().as_secs_f64()
}

fn setting(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(default)
}

/// Serves `add` on a free loopback port, protected for `issuer` when given; its address.
async fn serve(issuer: Option<&str>) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
    let addr = listener.local_addr().expect("an address");
    let toolbox = Toolbox::builder()
        .with(add::Add::default())
        .build()
        .expect("a toolbox");
    let mut server = ToolboxServer::new(toolbox);
    if let Some(issuer) = issuer {
        let resource = format!("http://{addr}/mcp");
        let auth = ResourceServer::new(issuer, &resource).expect("an authorization");
        server = server.with_authorization(auth);
    }
    tokio::spawn(server.serve_http(listener).into_future());
    addr
}

fn main() {
    let calls = setting("AUTH_BENCH_CALLS", 2_000);
    let rounds = setting("AUTH_BENCH_ROUNDS", 5);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(async move {
        let Some(issuer) = issuer::Issuer::start(0).await else {
            return;
        };
        let open = serve(None).await;
        let protected = serve(Some(&issuer.url)).await;
        let token = issuer
            .token(&format!("http://{protected}/mcp"), "notes:read")
            .await;
        // A warm-up round each (the first verification, the key fetch), not counted.
        round(open, None, calls / 10).await;
        round(protected, Some(&token), calls / 10).await;
        let (mut without, mut with) = (Vec::new(), Vec::new());
        for _ in 0..rounds {
            without.extend(round(open, None, calls).await);
            with.extend(round(protected, Some(&token), calls).await);
        }
        let (with_rate, without_rate) = (rate(&with), rate(&without));
        let (with_p50, without_p50) = (p50(&mut with), p50(&mut without));
        println!(
            "tools/call over HTTP, {rounds} x {calls} calls, one keep-alive client: \
             with authorization {with_rate:.0} calls/s p50 {:.3} ms; without {without_rate:.0} calls/s p50 {:.3} ms",
            with_p50.as_secs_f64() * 1e3,
            without_p50.as_secs_f64() * 1e3
        );
        println!(
            "auth: with/without calls_per_s={:.2} p50={:.2}",
            with_rate / without_rate,
            with_p50.as_secs_f64() / without_p50.as_secs_f64()
        );
    });
}
