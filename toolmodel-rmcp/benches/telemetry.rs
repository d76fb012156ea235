//! The cost of telemetry (issue 41): the same load on a `ToolboxServer` over Streamable HTTP
//! with telemetry off and on.
//!
//! Telemetry is process-global (a global `tracing` subscriber and meter provider cannot be
//! uninstalled, and the crate makes its instruments once per process), so each side runs in a
//! child process of its own: this binary again, with `TELEMETRY_BENCH_MODE` set to `off`, `on`
//! or `local`, in turn (`off, on, local, off, on, local, ...`) for `TELEMETRY_BENCH_ROUNDS`
//! rounds (default 5) of about `TELEMETRY_BENCH_SECONDS` each (default 3). `off` installs
//! nothing (the crate built with `otel`, as a binary that never calls `Telemetry::init` has
//! it). `on` calls [`Telemetry::init`] with OTLP/HTTP export to a sink in the child (a thread
//! that answers 200 to every `POST /v1/traces` and `/v1/metrics`, started before `init`), the
//! default log filter (no access log) to stderr and the SDK's default batch and export
//! settings, so that each request's SERVER span is exported and its
//! `mcp.server.operation.duration` recorded.
//! A third side, `local` (no goal), calls `Telemetry::init` without OTLP (log lines, spans
//! through `tracing-opentelemetry` to a tracer provider with no exporter, the Prometheus
//! registry): what `on` costs beyond the export.
//!
//! Each child serves the `add` tool on loopback in its own runtime and drives it with the
//! keep-alive hyper client of `benches/serve.rs` (`support/http_client.rs`), 2025-11-25
//! sessions: a warm-up, then one client calling `add` one call after the other (each call's
//! latency: p50, p99), then [`CLIENTS`] clients at once (calls per second); then, outside the
//! server, the cost of a span like the SERVER span (same target, name and fields, entered once)
//! and of a histogram record with a call's attributes, alone. It prints one JSON line of its
//! figures; the parent prints the medians of each side, each figure's on/off ratio per round
//! (median and interquartile range, `toolmodel/benches/timing/spread.rs`) and last:
//! `telemetry: on/off calls_per_s=<a> p50=<b>`, the ratios of the medians. Goals:
//! `calls_per_s >= 0.95`, `p50 <= 1.05`; a miss is reported, not a failure (the cores are
//! shared).
//!
//! `cargo bench -p toolmodel-rmcp --features otel --bench telemetry`

use std::{
    io::{BufRead as _, BufReader, Read as _, Write as _},
    net::SocketAddr,
    process::Command,
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use serde_json::{Value, json};
use tokio::net::TcpListener;
use toolmodel::Toolbox;
use toolmodel_rmcp::{
    ToolboxServer,
    telemetry::otel::{Telemetry, TelemetryConfig},
};

#[path = "../tests/support/add.rs"]
mod add;
#[path = "support/http_client.rs"]
mod http_client;
#[path = "../../toolmodel/benches/timing/mod.rs"]
mod timing;

use add::Add;
use http_client::HttpClient;
use timing::spread::{Goal, Spread};

/// `off` or `on`: this process is a child that measures one side.
const MODE: &str = "TELEMETRY_BENCH_MODE";
/// The child's round, for its JSON line.
const ROUND: &str = "TELEMETRY_BENCH_ROUND";
/// The clients calling at once in the throughput phase.
const CLIENTS: usize = 4;
const CALLS_PER_S_GOAL: f64 = 0.95;
const P50_GOAL: f64 = 1.05;

fn env_number(name: &str, default: f64) -> f64 {
    std::env::var(name)
        .ok()
        .and_then(|text| text.parse().ok())
        .unwrap_or(default)
}

fn main() {
    match std::env::var(MODE) {
        Ok(mode) => child(&mode),
        Err(_) => parent(),
    }
}

// ---- the child: one side ----

/// What the OTLP sink received.
#[derive(Default)]
struct Received {
    traces: AtomicU64,
    metrics: AtomicU64,
    bytes: AtomicU64,
}

/// A local OTLP/HTTP "collector": answers 200 with an empty body to every request, a thread
/// per connection, HTTP/1.1 keep-alive, bodies by `Content-Length` (what the exporters send).
fn start_sink() -> (SocketAddr, Arc<Received>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("binds");
    let addr = listener.local_addr().expect("an address");
    let received = Arc::new(Received::default());
    let counts = Arc::clone(&received);
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            let counts = Arc::clone(&counts);
            std::thread::spawn(move || sink_connection(stream, &counts));
        }
    });
    (addr, received)
}

fn sink_connection(stream: std::net::TcpStream, received: &Received) {
    let Ok(mut writer) = stream.try_clone() else {
        return;
    };
    let mut reader = BufReader::new(stream);
    let mut line = String::new();
    loop {
        line.clear();
        if reader.read_line(&mut line).unwrap_or(0) == 0 {
            return;
        }
        let path = line
            .split_whitespace()
            .nth(1)
            .unwrap_or_default()
            .to_owned();
        let mut length = 0usize;
        loop {
            line.clear();
            if reader.read_line(&mut line).unwrap_or(0) == 0 {
                return;
            }
            if line == "\r\n" || line == "\n" {
                break;
            }
            if let Some((name, value)) = line.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        match path.as_str() {
            "/v1/traces" => received.traces.fetch_add(1, Ordering::Relaxed),
            "/v1/metrics" => received.metrics.fetch_add(1, Ordering::Relaxed),
            _ => 0,
        };
        received.bytes.fetch_add(length as u64, Ordering::Relaxed);
        let answer =
            b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\ncontent-length: 0\r\n\r\n";
        if writer.write_all(answer).is_err() {
            return;
        }
    }
}

fn child(mode: &str) {
    let seconds = env_number("TELEMETRY_BENCH_SECONDS", 3.0);
    let round = std::env::var(ROUND).unwrap_or_default();
    // `init` builds a blocking HTTP client: before any runtime.
    let config = TelemetryConfig::new().with_service_name("telemetry-bench");
    let (telemetry, received) = match mode {
        "on" => {
            let (addr, received) = start_sink();
            let config = config.with_otlp_endpoint(format!("http://{addr}"));
            let telemetry = Telemetry::init(config).expect("telemetry installs");
            (Some(telemetry), Some(received))
        }
        "local" => (
            Some(Telemetry::init(config).expect("telemetry installs")),
            None,
        ),
        _ => (None, None),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    let load = runtime.block_on(load(Duration::from_secs_f64(seconds)));
    drop(runtime);
    let (span_ns, metric_ns) = (span_cost(), metric_cost());
    // Flushes the spans still queued and exports the metrics (the default export interval,
    // 60 s, is longer than a child lives): not timed.
    let flush = Instant::now();
    drop(telemetry);
    let flush_ms = flush.elapsed().as_secs_f64() * 1e3;
    let received = received.as_deref();
    let count = |field: fn(&Received) -> &AtomicU64| {
        received.map_or(0, |r| field(r).load(Ordering::Relaxed))
    };
    println!(
        "{}",
        json!({
            "mode": mode,
            "round": round,
            "calls_per_s": load.calls_per_s,
            "concurrent_calls": load.concurrent_calls,
            "p50_us": load.p50_us,
            "p99_us": load.p99_us,
            "sequential_calls": load.sequential_calls,
            "span_ns": span_ns,
            "metric_ns": metric_ns,
            "trace_posts": count(|r| &r.traces),
            "metric_posts": count(|r| &r.metrics),
            "exported_bytes": count(|r| &r.bytes),
            "flush_ms": flush_ms,
        })
    );
}

struct Load {
    calls_per_s: f64,
    concurrent_calls: u64,
    p50_us: f64,
    p99_us: f64,
    sequential_calls: usize,
}

async fn load(total: Duration) -> Load {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
    let addr = listener.local_addr().expect("an address");
    let server = ToolboxServer::new(
        Toolbox::builder()
            .with(Add::default())
            .build()
            .expect("builds"),
    );
    tokio::spawn(server.serve_http(listener).into_future());
    concurrent(addr, total.mul_f64(0.1)).await;
    let mut latencies = sequential(addr, total.mul_f64(0.45)).await;
    let (concurrent_calls, elapsed) = concurrent(addr, total.mul_f64(0.45)).await;
    latencies.sort_unstable();
    let at = |fraction: f64| {
        #[allow(
            clippy::cast_possible_truncation,
            clippy::cast_sign_loss,
            clippy::cast_precision_loss
        )]
        let index = ((latencies.len() - 1) as f64 * fraction).round() as usize;
        latencies[index].as_secs_f64() * 1e6
    };
    #[allow(clippy::cast_precision_loss)]
    let calls_per_s = concurrent_calls as f64 / elapsed.as_secs_f64();
    Load {
        calls_per_s,
        concurrent_calls,
        p50_us: at(0.5),
        p99_us: at(0.99),
        sequential_calls: latencies.len(),
    }
}

/// One `tools/call` of `add` with `id` (also its first argument), checked.
async fn call(client: &mut HttpClient, id: u64) {
    let body = client
        .post(json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
            "params": {"name": "add", "arguments": {"a": id, "b": 2}}}))
        .await;
    assert!(
        body.contains(&format!("\"text\":\"{}\"", id + 2)),
        "bad result: {body}"
    );
}

/// One client, calls one after the other for `length`: each call's latency.
async fn sequential(addr: SocketAddr, length: Duration) -> Vec<Duration> {
    let mut client = HttpClient::connect(addr, "telemetry-bench").await;
    let mut latencies = Vec::with_capacity(20_000);
    let start = Instant::now();
    let mut id = 1;
    while start.elapsed() < length {
        let call_start = Instant::now();
        call(&mut client, id).await;
        latencies.push(call_start.elapsed());
        id += 1;
    }
    latencies
}

/// [`CLIENTS`] clients (connected first) calling at once for `length`: the calls and the time
/// until the last client's last call ended.
async fn concurrent(addr: SocketAddr, length: Duration) -> (u64, Duration) {
    let mut clients = Vec::with_capacity(CLIENTS);
    for _ in 0..CLIENTS {
        clients.push(HttpClient::connect(addr, "telemetry-bench").await);
    }
    let start = Instant::now();
    let tasks: Vec<_> = clients
        .into_iter()
        .map(|mut client| {
            tokio::spawn(async move {
                let mut id = 1;
                while start.elapsed() < length {
                    call(&mut client, id).await;
                    id += 1;
                }
                id - 1
            })
        })
        .collect();
    let mut calls = 0;
    for task in tasks {
        calls += task.await.expect("a client");
    }
    (calls, start.elapsed())
}

/// Times `chunks` chunks of `passes` runs of `pass`, pausing between chunks (the batch span
/// processor's queue drains: 2,048 spans, and a full queue drops spans instead of exporting
/// them): the fastest chunk's time per pass, in ns.
fn fastest(chunks: u32, passes: u32, mut pass: impl FnMut(u32)) -> f64 {
    let mut best = Duration::MAX;
    for _ in 0..chunks {
        let start = Instant::now();
        for i in 0..passes {
            pass(i);
        }
        best = best.min(start.elapsed() / passes);
        std::thread::sleep(Duration::from_millis(20));
    }
    best.as_secs_f64() * 1e9
}

/// A span like a `tools/call`'s SERVER span (`telemetry/server_operation.rs`): the same
/// target, name, fields and values, entered once; per span, in ns.
fn span_cost() -> f64 {
    use tracing::field::Empty;
    fastest(10, 1_000, |i| {
        let (method, tool) = ("tools/call", Some("add"));
        // Built only when an INFO span can be enabled, as the server does.
        let (name, request_id) =
            if tracing::Level::INFO <= tracing::level_filters::LevelFilter::current() {
                (format!("{method} add"), i.to_string())
            } else {
                (String::new(), String::new())
            };
        let span = tracing::info_span!(
            target: "toolmodel_rmcp::mcp",
            "mcp.server",
            otel.name = name.as_str(),
            otel.kind = "server",
            otel.status_code = Empty,
            otel.status_description = Empty,
            mcp.method.name = method,
            gen_ai.tool.name = tool,
            gen_ai.prompt.name = None::<&str>,
            gen_ai.operation.name = tool.map(|_| "execute_tool"),
            gen_ai.tool.call.arguments = Empty,
            gen_ai.tool.call.result = Empty,
            mcp.resource.uri = None::<&str>,
            jsonrpc.request.id = request_id.as_str(),
            mcp.protocol.version = Some("2025-11-25"),
            mcp.session.id = Some("0123456789abcdef0123456789abcdef"),
            network.transport = "tcp",
            network.protocol.name = Some("http"),
            network.protocol.version = Some("1.1"),
            client.address = "127.0.0.1",
            client.port = i64::from(40_000 + i),
            error.type = Empty,
            rpc.response.status_code = Empty,
        );
        drop(span.enter());
    })
}

/// A record of a histogram like `mcp.server.operation.duration` (global meter, the same
/// boundaries) with a `tools/call`'s attributes, built as the crate builds them (owned
/// values); per record, in ns.
fn metric_cost() -> f64 {
    use opentelemetry::KeyValue;
    let histogram = opentelemetry::global::meter("telemetry-bench")
        .f64_histogram("bench.operation.duration")
        .with_unit("s")
        .with_boundaries(toolmodel_rmcp::telemetry::DURATION_BUCKETS.to_vec())
        .build();
    fastest(10, 1_000, |i| {
        let attributes = vec![
            KeyValue::new("mcp.method.name", "tools/call".to_owned()),
            KeyValue::new("gen_ai.tool.name", "add".to_owned()),
            KeyValue::new("gen_ai.operation.name", "execute_tool"),
            KeyValue::new("mcp.protocol.version", "2025-11-25".to_owned()),
            KeyValue::new("network.transport", "tcp".to_owned()),
            KeyValue::new("network.protocol.name", "http"),
        ];
        histogram.record(f64::from(i) * 1e-6, &attributes);
    })
}

// ---- the parent: both sides, alternating ----

/// One child's figures.
struct Side {
    calls_per_s: f64,
    p50_us: f64,
    p99_us: f64,
    span_ns: f64,
    metric_ns: f64,
    json: Value,
    log_lines: usize,
}

fn run_child(mode: &str, round: usize) -> Side {
    let output = Command::new(std::env::current_exe().expect("this binary"))
        .env(MODE, mode)
        .env(ROUND, round.to_string())
        // The default filter: no access log, nothing per call.
        .env_remove("RUST_LOG")
        // `local` exports nothing, `on` only where it is told.
        .env_remove("OTEL_EXPORTER_OTLP_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
        .env_remove("OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
        .output()
        .expect("the child runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "the {mode} child of round {round} failed: {}\n{stderr}",
        output.status
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    let json: Value = serde_json::from_str(stdout.lines().last().unwrap_or_default())
        .unwrap_or_else(|err| panic!("the {mode} child's line: {err}: {stdout}"));
    let number = |name: &str| json[name].as_f64().unwrap_or(f64::NAN);
    Side {
        calls_per_s: number("calls_per_s"),
        p50_us: number("p50_us"),
        p99_us: number("p99_us"),
        span_ns: number("span_ns"),
        metric_ns: number("metric_ns"),
        log_lines: stderr.lines().count(),
        json,
    }
}

fn median(values: impl Iterator<Item = f64>) -> f64 {
    let values: Vec<f64> = values.collect();
    Spread::of(&values).median
}

/// `<median> (<min>–<max>)` of a figure of `sides`, with `decimals` decimals.
fn figure(sides: &[Side], value: fn(&Side) -> f64, decimals: usize) -> String {
    let values: Vec<f64> = sides.iter().map(value).collect();
    let (low, high) = values
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(low, high), &v| {
            (low.min(v), high.max(v))
        });
    format!(
        "{:.decimals$} ({low:.decimals$}–{high:.decimals$})",
        Spread::of(&values).median
    )
}

fn parent() {
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let rounds = env_number("TELEMETRY_BENCH_ROUNDS", 5.0).max(1.0) as usize;
    let cores = std::thread::available_parallelism().map_or(1, std::num::NonZero::get);
    let (mut off, mut on, mut local) = (Vec::new(), Vec::new(), Vec::new());
    let start = Instant::now();
    for round in 0..rounds {
        off.push(run_child("off", round));
        on.push(run_child("on", round));
        local.push(run_child("local", round));
    }
    let wall = start.elapsed().as_secs_f64();
    println!(
        "telemetry, {cores} cores, {rounds} rounds of off, on, local (a child process each), {wall:.0} s; medians (min–max):"
    );
    for (name, sides) in [("off  ", &off), ("on   ", &on), ("local", &local)] {
        println!(
            "  {name}: {CLIENTS} clients {} calls/s; one client p50 {} µs, p99 {} µs; a SERVER-like span alone {} ns, a histogram record {} ns",
            figure(sides, |s| s.calls_per_s, 0),
            figure(sides, |s| s.p50_us, 1),
            figure(sides, |s| s.p99_us, 1),
            figure(sides, |s| s.span_ns, 0),
            figure(sides, |s| s.metric_ns, 0),
        );
    }
    let per_child =
        |name: &str| median(on.iter().map(|s| s.json[name].as_f64().unwrap_or(f64::NAN)));
    println!(
        "  on, per child: {:.0} POSTs /v1/traces and {:.0} /v1/metrics to the sink, {:.0} KB; flush at exit {:.1} ms; {} log lines on stderr in all",
        per_child("trace_posts"),
        per_child("metric_posts"),
        per_child("exported_bytes") / 1e3,
        per_child("flush_ms"),
        on.iter().map(|s| s.log_lines).sum::<usize>(),
    );
    let pairs = |value: fn(&Side) -> f64| -> Vec<f64> {
        off.iter()
            .zip(&on)
            .map(|(off, on)| value(on) / value(off))
            .collect()
    };
    let local_pairs = |value: fn(&Side) -> f64| -> Vec<f64> {
        off.iter()
            .zip(&local)
            .map(|(off, local)| value(local) / value(off))
            .collect()
    };
    let rate_pairs = Spread::of(&pairs(|s| s.calls_per_s));
    let p50_pairs = Spread::of(&pairs(|s| s.p50_us));
    let p99_pairs = Spread::of(&pairs(|s| s.p99_us));
    println!(
        "  on/off per round: {}",
        rate_pairs.line("calls_per_s", 2, Goal::AtLeast(CALLS_PER_S_GOAL))
    );
    println!(
        "  on/off per round: {}",
        p50_pairs.line("p50", 2, Goal::AtMost(P50_GOAL))
    );
    println!(
        "  on/off per round: {} (no goal)",
        p99_pairs.short("p99", 2)
    );
    println!(
        "  local/off per round (no goal): {} {}",
        Spread::of(&local_pairs(|s| s.calls_per_s)).short("calls_per_s", 2),
        Spread::of(&local_pairs(|s| s.p50_us)).short("p50", 2),
    );
    let rate = median(on.iter().map(|s| s.calls_per_s)) / median(off.iter().map(|s| s.calls_per_s));
    let p50 = median(on.iter().map(|s| s.p50_us)) / median(off.iter().map(|s| s.p50_us));
    let verdict = |met: bool| if met { "met" } else { "MISSED" };
    let (rate_met, p50_met) = (rate >= CALLS_PER_S_GOAL, p50 <= P50_GOAL);
    println!(
        "  goals (ratios of the medians): calls_per_s >= {CALLS_PER_S_GOAL}: {}; p50 <= {P50_GOAL}: {}{}",
        verdict(rate_met),
        verdict(p50_met),
        if rate_met && p50_met {
            ""
        } else {
            " (reported, not a failure: the cores are shared; see the per-round spread above)"
        }
    );
    println!("telemetry: on/off calls_per_s={rate:.2} p50={p50:.2}");
}
