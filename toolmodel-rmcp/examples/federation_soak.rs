//! The driver of `serve/federation.sh`: a `toolmodel gateway` over Streamable HTTP in front of
//! three real MCP servers (two server-everything, one mcp-server-time), called by four client
//! tasks while the servers' process groups are killed one after another every 2.5 s; then the
//! gateway is stopped with SIGTERM. Last line:
//!
//! `federation: calls=<n> failed_fast=<m> hung=<h> leaked_children=<k>`
//!
//! A call is `hung` when it has no answer within 15 s (the servers' timeout is 3 s);
//! `failed_fast` counts the `isError` answers (a server down or killed mid-call) that came
//! within 2 s. `leaked_children` counts the processes of every upstream process group seen
//! during the run still alive once the gateway has exited. The exit status is 1 unless
//! `hung` and `leaked_children` are 0 and some calls succeeded.
//!
//! Usage: `federation_soak TOOLMODEL_BIN EVERYTHING_BIN TIME_BIN SECONDS`.

use std::{
    collections::BTreeSet,
    process::Stdio,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use rmcp::{
    ServiceExt,
    model::CallToolRequestParams,
    transport::{
        StreamableHttpClientTransport, streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use serde_json::json;

#[derive(Default)]
struct Counts {
    calls: AtomicU64,
    ok: AtomicU64,
    failed_fast: AtomicU64,
    failed_slow: AtomicU64,
    protocol_errors: AtomicU64,
    hung: AtomicU64,
}

/// The live (not zombie) processes whose parent is `parent` (`None`: any) and whose group is
/// in `groups` (`None`: any), as `(pid, pgrp)`.
fn processes(parent: Option<u32>, groups: Option<&BTreeSet<u32>>) -> Vec<(u32, u32)> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter_map(|entry| {
            let pid: u32 = entry.file_name().to_string_lossy().parse().ok()?;
            let stat = std::fs::read_to_string(entry.path().join("stat")).ok()?;
            let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
            let ppid: u32 = fields.get(1)?.parse().ok()?;
            let pgrp: u32 = fields.get(2)?.parse().ok()?;
            let live = fields.first() != Some(&"Z");
            let wanted = parent.is_none_or(|parent| parent == ppid)
                && groups.is_none_or(|groups| groups.contains(&pgrp));
            (live && wanted).then_some((pid, pgrp))
        })
        .collect()
}

fn signal(target: &str, name: &str) {
    let _ = std::process::Command::new("kill")
        .args([&format!("-{name}"), "--", target])
        .status();
}

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().collect();
    let [_, toolmodel, everything, time, seconds] = args.as_slice() else {
        return Err("usage: federation_soak TOOLMODEL_BIN EVERYTHING_BIN TIME_BIN SECONDS".into());
    };
    let run_for = Duration::from_secs(seconds.parse()?);
    let config_path =
        std::env::temp_dir().join(format!("federation-soak-{}.json", std::process::id()));
    let config = json!({"mcpServers": {
        "a": {"command": everything, "timeout": 3000, "startupTimeout": 5000},
        "b": {"command": everything, "timeout": 3000, "startupTimeout": 5000},
        "t": {"command": time, "timeout": 3000, "startupTimeout": 5000}
    }});
    std::fs::write(&config_path, config.to_string())?;
    let port = std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port();
    let mut gateway = tokio::process::Command::new(toolmodel)
        .args([
            "gateway",
            "--http",
            &format!("127.0.0.1:{port}"),
            "--config",
        ])
        .arg(&config_path)
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()?;
    let gateway_pid = gateway.id().ok_or("the gateway has no pid")?;
    let deadline = Instant::now() + Duration::from_secs(30);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        if Instant::now() > deadline {
            return Err("the gateway did not listen within 30 s".into());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(format!("http://127.0.0.1:{port}/mcp")),
    );
    let client = Arc::new(().serve(transport).await?);
    let counts = Arc::new(Counts::default());
    let stop = Arc::new(AtomicBool::new(false));
    let seen_groups = Arc::new(std::sync::Mutex::new(BTreeSet::new()));

    let killer = {
        let stop = Arc::clone(&stop);
        let seen = Arc::clone(&seen_groups);
        tokio::spawn(async move {
            let mut round = 0usize;
            while !stop.load(Ordering::SeqCst) {
                tokio::time::sleep(Duration::from_millis(2500)).await;
                let mut children = processes(Some(gateway_pid), None);
                children.sort_unstable();
                if let Ok(mut seen) = seen.lock() {
                    seen.extend(children.iter().map(|(_, pgrp)| *pgrp));
                }
                if let Some((_, pgrp)) = children.get(round % children.len().max(1)) {
                    signal(&format!("-{pgrp}"), "KILL");
                }
                round += 1;
            }
        })
    };

    let tools = [
        ("a__echo", json!({"message": "a"})),
        ("b__echo", json!({"message": "b"})),
        ("get_current_time", json!({"timezone": "UTC"})),
    ];
    let mut callers = Vec::new();
    for worker in 0..4usize {
        let client = Arc::clone(&client);
        let counts = Arc::clone(&counts);
        let stop = Arc::clone(&stop);
        let tools = tools.clone();
        callers.push(tokio::spawn(async move {
            let mut next = worker;
            while !stop.load(Ordering::SeqCst) {
                let (name, arguments) = &tools[next % tools.len()];
                next += 1;
                let mut params = CallToolRequestParams::new(name.to_string());
                params.arguments = arguments.as_object().cloned();
                let started = Instant::now();
                counts.calls.fetch_add(1, Ordering::SeqCst);
                match tokio::time::timeout(Duration::from_secs(15), client.call_tool(params)).await
                {
                    Err(_) => {
                        counts.hung.fetch_add(1, Ordering::SeqCst);
                    }
                    Ok(Err(_)) => {
                        counts.protocol_errors.fetch_add(1, Ordering::SeqCst);
                    }
                    Ok(Ok(result)) if result.is_error == Some(true) => {
                        if started.elapsed() < Duration::from_secs(2) {
                            counts.failed_fast.fetch_add(1, Ordering::SeqCst);
                        } else {
                            counts.failed_slow.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    Ok(Ok(_)) => {
                        counts.ok.fetch_add(1, Ordering::SeqCst);
                    }
                }
            }
        }));
    }
    tokio::time::sleep(run_for).await;
    stop.store(true, Ordering::SeqCst);
    for caller in callers {
        caller.await?;
    }
    killer.await?;
    if let Ok(mut seen) = seen_groups.lock() {
        seen.extend(
            processes(Some(gateway_pid), None)
                .iter()
                .map(|(_, pgrp)| *pgrp),
        );
    }
    drop(client);
    signal(&gateway_pid.to_string(), "TERM");
    let exited = tokio::time::timeout(Duration::from_secs(15), gateway.wait()).await;
    if exited.is_err() {
        eprintln!("error: the gateway did not exit within 15 s of SIGTERM");
        let _ = gateway.kill().await;
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let groups = seen_groups
        .lock()
        .map(|seen| seen.clone())
        .unwrap_or_default();
    let leaked = processes(None, Some(&groups)).len();
    let _ = std::fs::remove_file(&config_path);
    let calls = counts.calls.load(Ordering::SeqCst);
    let ok = counts.ok.load(Ordering::SeqCst);
    let hung = counts.hung.load(Ordering::SeqCst);
    println!(
        "detail: ok={ok} failed_slow={} protocol_errors={} upstream_groups={} gateway_exit={}",
        counts.failed_slow.load(Ordering::SeqCst),
        counts.protocol_errors.load(Ordering::SeqCst),
        groups.len(),
        if exited.is_ok() { "clean" } else { "killed" },
    );
    println!(
        "federation: calls={calls} failed_fast={} hung={hung} leaked_children={leaked}",
        counts.failed_fast.load(Ordering::SeqCst)
    );
    if hung > 0 || leaked > 0 || ok == 0 || exited.is_err() {
        std::process::exit(1);
    }
    Ok(())
}
