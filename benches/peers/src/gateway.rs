//! A gateway in front of one MCP server, toolmodel's against FastMCP's proxy.
//!
//! The upstream: the release `examples/server` over Streamable HTTP. In front of it, from the
//! same `mcpServers` file: toolmodel's gateway (`toolmodel gateway --config FILE --http ADDR`,
//! the release CLI) and FastMCP's proxy (`fastmcp_proxy.py`: `create_proxy(config)` served over
//! Streamable HTTP by `FastMCP.run`, in the Python named by `PEERS_PYTHON`). Each is a process
//! of its own; over one server, both pass the tool names through unchanged.
//!
//! The client: rmcp's (Rust), one session per gateway held for the whole run, calling
//! `weather.get_weather {"city": "Paris"}` one call after the other. Both gateways get the same
//! requests from the same client, whose own cost per call (a few tens of microseconds) is
//! small next to either gateway's, so it narrows the ratio least; a Python client would add
//! its own milliseconds to both sides and hide the gateways' difference.
//!
//! Rounds alternate between the two (which goes first alternates too), each side calling for
//! about [`ROUND`] after a few untimed calls. A round gives each side its calls per second and
//! its median latency; the figures are the per-round ratios toolmodel/FastMCP, their median
//! and spread (`timing::spread`). Goals: calls per second at least 10 times, p50 at most 0.1.
//!
//! `PEERS_SERVER` and `PEERS_TOOLMODEL` name the two binaries (`run.sh` builds them; default:
//! the main workspace's `target/release`).

use std::{
    path::{Path, PathBuf},
    process::Stdio,
    time::{Duration, Instant},
};

use rmcp::{
    RoleClient, ServiceExt as _,
    model::{CallToolRequestParams, CallToolResult},
    service::RunningService,
    transport::{
        StreamableHttpClientTransport, streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use tokio::process::{Child, Command};

use crate::timing::{
    self,
    spread::{Goal, Spread},
};

/// How long one side calls in one round.
const ROUND: Duration = Duration::from_millis(500);

/// The tool called and its arguments.
const TOOL: &str = "weather.get_weather";
const CITY: &str = "Paris";

/// How long a process may take to start answering.
const START: Duration = Duration::from_secs(60);

type Client = RunningService<RoleClient, ()>;

/// A binary of the main workspace's release build, or the path in `variable`.
fn binary(variable: &str, relative: &str) -> PathBuf {
    std::env::var_os(variable).map_or_else(
        || {
            Path::new(env!("CARGO_MANIFEST_DIR"))
                .join("../../target/release")
                .join(relative)
        },
        PathBuf::from,
    )
}

/// A free loopback port.
fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map(|addr| addr.port())
        .expect("a free loopback port")
}

/// Starts `command`, killed when dropped; its stderr goes to `log`.
fn spawn(command: &mut Command, log: &Path) -> Child {
    let log = std::fs::File::create(log).expect("a log file");
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(log)
        .kill_on_drop(true)
        .spawn()
        .unwrap_or_else(|err| panic!("{command:?} starts: {err}"))
}

/// A session to `url`, retried until the server answers (or [`START`] passes).
async fn connect(url: &str, log: &Path) -> Client {
    let started = Instant::now();
    loop {
        let transport = StreamableHttpClientTransport::from_config(
            StreamableHttpClientTransportConfig::with_uri(url),
        );
        match ().serve(transport).await {
            Ok(client) => return client,
            Err(err) if started.elapsed() > START => {
                panic!("no session to {url}: {err} (see {})", log.display())
            }
            Err(_) => tokio::time::sleep(Duration::from_millis(100)).await,
        }
    }
}

/// One call of [`TOOL`].
async fn call(client: &Client) -> CallToolResult {
    let mut params = CallToolRequestParams::new(TOOL);
    params.arguments = serde_json::json!({ "city": CITY }).as_object().cloned();
    let result = client.call_tool(params).await.expect("a call");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    result
}

/// The text of a result.
fn text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .filter_map(|content| content.as_text())
        .map(|text| text.text.as_str())
        .collect()
}

/// One side's round: calls per second and each call's latency.
async fn round(client: &Client) -> (f64, Vec<Duration>) {
    for _ in 0..5 {
        call(client).await;
    }
    let mut latencies = Vec::new();
    let started = Instant::now();
    let round = if timing::quick() { ROUND / 4 } else { ROUND };
    while started.elapsed() < round {
        let one = Instant::now();
        call(client).await;
        latencies.push(one.elapsed());
    }
    #[allow(clippy::cast_precision_loss)]
    let rate = latencies.len() as f64 / started.elapsed().as_secs_f64();
    latencies.sort_unstable();
    (rate, latencies)
}

/// The `fraction` quantile of sorted latencies, in microseconds.
fn quantile(sorted: &[Duration], fraction: f64) -> f64 {
    #[allow(
        clippy::cast_precision_loss,
        clippy::cast_possible_truncation,
        clippy::cast_sign_loss
    )]
    let index = ((sorted.len().saturating_sub(1)) as f64 * fraction).round() as usize;
    sorted
        .get(index)
        .map_or(f64::NAN, |d| d.as_secs_f64() * 1e6)
}

/// The FastMCP version in `python`, or `None` when it has no FastMCP.
fn fastmcp_version(python: &str) -> Option<String> {
    let output = std::process::Command::new(python)
        .args(["-c", "import fastmcp; print(fastmcp.__version__)"])
        .output()
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).trim().to_owned())
}

/// Prints each side's figures and `peers: fastmcp gateway ...`.
pub fn run() {
    let server = binary("PEERS_SERVER", "examples/server");
    let toolmodel = binary("PEERS_TOOLMODEL", "toolmodel");
    for path in [&server, &toolmodel] {
        if !path.exists() {
            println!(
                "notice: no {} (run.sh builds it), no fastmcp line",
                path.display()
            );
            return;
        }
    }
    let python = std::env::var("PEERS_PYTHON").unwrap_or_else(|_| "python3".to_owned());
    let Some(version) = fastmcp_version(&python) else {
        println!("notice: no fastmcp in {python} (run.sh installs it), no fastmcp line");
        return;
    };
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("a runtime");
    runtime.block_on(compare(&server, &toolmodel, &python, &version));
}

/// Starts the upstream and both gateways, times them, prints the figures.
async fn compare(server: &Path, toolmodel: &Path, python: &str, version: &str) {
    let dir = std::env::temp_dir().join(format!("toolmodel-peers-gateway-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    let [upstream_port, toolmodel_port, fastmcp_port] = [(); 3].map(|()| free_port());
    let config = dir.join("mcp.json");
    let servers = serde_json::json!({ "mcpServers": { "quickstart": {
        "url": format!("http://127.0.0.1:{upstream_port}/mcp"),
    } } });
    std::fs::write(&config, servers.to_string()).expect("the configuration");

    let logs = ["upstream", "toolmodel", "fastmcp"].map(|name| dir.join(format!("{name}.log")));
    let _upstream = spawn(
        Command::new(server).args(["--http", &format!("127.0.0.1:{upstream_port}")]),
        &logs[0],
    );
    let upstream = connect(&format!("http://127.0.0.1:{upstream_port}/mcp"), &logs[0]).await;
    let _ = upstream.cancel().await;
    let _gateway = spawn(
        Command::new(toolmodel)
            .arg("gateway")
            .arg("--config")
            .arg(&config)
            .args(["--http", &format!("127.0.0.1:{toolmodel_port}")]),
        &logs[1],
    );
    let _proxy = spawn(
        Command::new(python)
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/fastmcp_proxy.py"))
            .arg(&config)
            .arg(fastmcp_port.to_string()),
        &logs[2],
    );
    let ours = connect(&format!("http://127.0.0.1:{toolmodel_port}/mcp"), &logs[1]).await;
    let theirs = connect(&format!("http://127.0.0.1:{fastmcp_port}/mcp"), &logs[2]).await;
    let (ours_text, theirs_text) = (text(&call(&ours).await), text(&call(&theirs).await));
    assert_eq!(ours_text, theirs_text, "both gateways answer alike");
    let cores = std::thread::available_parallelism().map_or(0, usize::from);
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "gateway: {TOOL} of examples/server through toolmodel's gateway and FastMCP {version}'s proxy, rmcp client, {cores} cores, load {}; both answer {ours_text:?}",
        load.split_whitespace().next().unwrap_or("?")
    );

    let rounds = if timing::quick() { 7 } else { 31 };
    // Per round, per side (toolmodel, FastMCP): calls per second, p50 and p99 in µs.
    let mut figures: Vec<[[f64; 3]; 2]> = Vec::with_capacity(rounds);
    for index in 0..rounds {
        let mut sides = [[0.0; 3]; 2];
        let order = if index % 2 == 0 { [0, 1] } else { [1, 0] };
        for side in order {
            let client = if side == 0 { &ours } else { &theirs };
            let (rate, latencies) = round(client).await;
            sides[side] = [rate, quantile(&latencies, 0.5), quantile(&latencies, 0.99)];
        }
        figures.push(sides);
    }
    let _ = ours.cancel().await;
    let _ = theirs.cancel().await;
    let _ = std::fs::remove_dir_all(&dir);

    let median = |side: usize, figure: usize| {
        Spread::of(&figures.iter().map(|f| f[side][figure]).collect::<Vec<_>>()).median
    };
    for (side, name) in [(0, "toolmodel gateway"), (1, "FastMCP proxy")] {
        println!(
            "  {name}: calls_per_s={:.0} p50_us={:.0} p99_us={:.0} (medians over {rounds} rounds)",
            median(side, 0),
            median(side, 1),
            median(side, 2)
        );
    }
    let ratio = |figure: usize| {
        Spread::of(
            &figures
                .iter()
                .map(|f| f[0][figure] / f[1][figure])
                .collect::<Vec<_>>(),
        )
    };
    let (rate, p50) = (ratio(0), ratio(1));
    println!(
        "  {}",
        rate.line("calls_per_s toolmodel/fastmcp", 1, Goal::AtLeast(10.0))
    );
    println!(
        "  {}",
        p50.line("p50 toolmodel/fastmcp", 3, Goal::AtMost(0.1))
    );
    println!(
        "peers: fastmcp gateway {} {}",
        rate.short("calls_per_s", 1),
        p50.short("p50", 2)
    );
}
