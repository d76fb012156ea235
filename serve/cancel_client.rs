//! The call-plus-cancel measurement of `serve/soak.sh` (issue 21, item 4): rounds of
//! `tools/call` of a tool that asks the client for sampling, each cancelled by the client
//! (`notifications/cancelled`) while the server waits for the sampling answer, which never
//! comes. Prints
//! `cancel: rounds=<n> client_requests_cancelled=<k> rss_growth_mb=<x>`.
//!
//! `cancel-client SERVER_BINARY ROUNDS`: starts `SERVER_BINARY` (stdio, MCP 2025-11-25; it must
//! serve `examples/conformance_server`'s `test_sampling`), declares the `sampling` capability
//! at `initialize`, and for each round sends the call, waits for the server's
//! `sampling/createMessage`, and cancels the call. `client_requests_cancelled` counts the
//! `notifications/cancelled` the server sent for its own sampling requests (each round's
//! should be cancelled: the call that asked is gone); `rss_growth_mb` is the server's resident
//! memory (`VmRSS`) after the rounds and a second's rest, minus the same after 200 warm-up
//! rounds. Exits non-zero when a sampling request never came.

#[path = "rss.rs"]
mod rss;

use std::{
    collections::HashSet,
    io::{BufRead as _, BufReader, Write as _},
    process::{ChildStdin, Command, Stdio},
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
        mpsc,
    },
    thread,
    time::Duration,
};

use serde_json::{Value, json};

const WARM_UP: usize = 200;

fn send(stdin: &mut ChildStdin, message: &Value) -> std::io::Result<()> {
    let mut line = message.to_string();
    line.push('\n');
    stdin.write_all(line.as_bytes())?;
    stdin.flush()
}

/// What the server sent that the rounds wait for or count.
struct Seen {
    /// The ids of the server's `sampling/createMessage` requests, in order.
    sampling: mpsc::Sender<Value>,
    /// Those ids, for matching cancellations.
    asked: Mutex<HashSet<String>>,
    /// `notifications/cancelled` for one of them.
    cancelled: AtomicUsize,
    /// The `initialize` result arrived.
    initialized: mpsc::Sender<()>,
}

impl Seen {
    fn read(&self, message: &Value) {
        match message.get("method").and_then(Value::as_str) {
            Some("sampling/createMessage") => {
                let id = message.get("id").cloned().unwrap_or(Value::Null);
                self.asked
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .insert(id.to_string());
                let _ = self.sampling.send(id);
            }
            Some("notifications/cancelled") => {
                let id = message.pointer("/params/requestId").map(Value::to_string);
                let asked = self
                    .asked
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner)
                    .remove(&id.unwrap_or_default());
                if asked {
                    self.cancelled.fetch_add(1, Ordering::Relaxed);
                }
            }
            _ if message.get("id") == Some(&json!(0)) => {
                let _ = self.initialized.send(());
            }
            _ => {}
        }
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let usage = "usage: cancel-client SERVER_BINARY ROUNDS";
    let binary = args.next().ok_or(usage)?;
    let rounds: usize = args.next().ok_or(usage)?.parse()?;

    let mut child = Command::new(&binary)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()?;
    let pid = child.id();
    let mut stdin = child.stdin.take().ok_or("no stdin")?;
    let stdout = child.stdout.take().ok_or("no stdout")?;

    let (sampling, sampling_ids) = mpsc::channel();
    let (initialized, initialize_answered) = mpsc::channel();
    let seen = Arc::new(Seen {
        sampling,
        asked: Mutex::new(HashSet::new()),
        cancelled: AtomicUsize::new(0),
        initialized,
    });
    let reader = {
        let seen = Arc::clone(&seen);
        thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if let Ok(message) = serde_json::from_str::<Value>(&line) {
                    seen.read(&message);
                }
            }
        })
    };

    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-11-25", "capabilities": {"sampling": {}},
            "clientInfo": {"name": "cancel-client", "version": "0"}}}),
    )?;
    initialize_answered
        .recv_timeout(Duration::from_secs(10))
        .map_err(|_| "no initialize result within 10 s")?;
    send(
        &mut stdin,
        &json!({"jsonrpc": "2.0", "method": "notifications/initialized"}),
    )?;

    let mut rss_before = 0;
    for round in 0..WARM_UP + rounds {
        if round == WARM_UP {
            thread::sleep(Duration::from_secs(1));
            rss_before = rss::rss_kb(pid);
        }
        let id = round + 1;
        send(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": {
                "name": "test_sampling", "arguments": {"prompt": "never answered"}}}),
        )?;
        sampling_ids
            .recv_timeout(Duration::from_secs(5))
            .map_err(|_| format!("round {round}: no sampling/createMessage within 5 s"))?;
        send(
            &mut stdin,
            &json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
                "params": {"requestId": id, "reason": "cancel-client"}}),
        )?;
    }
    // Let the last cancellations arrive and the server settle.
    for _ in 0..20 {
        if seen.cancelled.load(Ordering::Relaxed) >= WARM_UP + rounds {
            break;
        }
        thread::sleep(Duration::from_millis(100));
    }
    thread::sleep(Duration::from_secs(1));
    let rss_after = rss::rss_kb(pid);
    // Closing stdin ends the server; kill it should it hang.
    drop(stdin);
    for _ in 0..50 {
        if child.try_wait()?.is_some() {
            break;
        }
        thread::sleep(Duration::from_millis(100));
    }
    if child.try_wait()?.is_none() {
        child.kill()?;
        child.wait()?;
    }
    let _ = reader.join();

    let cancelled = seen
        .cancelled
        .load(Ordering::Relaxed)
        .saturating_sub(WARM_UP);
    #[allow(clippy::cast_precision_loss)]
    let growth_mb = (rss_after as f64 - rss_before as f64) / 1024.0;
    #[allow(clippy::cast_precision_loss)]
    let (before_mb, after_mb) = (rss_before as f64 / 1024.0, rss_after as f64 / 1024.0);
    eprintln!("cancel: server RSS {before_mb:.1} MB -> {after_mb:.1} MB over {rounds} rounds");
    println!(
        "cancel: rounds={rounds} client_requests_cancelled={cancelled} rss_growth_mb={growth_mb:.1}"
    );
    Ok(())
}
