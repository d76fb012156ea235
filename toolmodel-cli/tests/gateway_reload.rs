//! `toolmodel gateway` reloading its configuration while clients call: a soak over real MCP
//! servers (`mcp-server-time`, `@modelcontextprotocol/server-everything`,
//! `@modelcontextprotocol/server-memory`, from `serve/install_upstreams.sh`; without them the
//! test prints a notice and passes, except under `CI`). The file is rewritten every 2 s, in
//! turn as an editor saves it (a new file renamed over it: the watcher must see it) and in
//! place followed by `SIGHUP`, with one bad file between; two clients call all along.

use std::{
    collections::BTreeMap,
    path::Path,
    sync::{
        Arc,
        atomic::{AtomicBool, AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use serde_json::{Value, json};
use toolmodel_test_support::upstreams::upstreams;

use crate::gateway::{
    call, children, free_port, gateway_command, listening, session, terminate, tool_names,
};

/// How many times the file is rewritten, and how long apart.
const EDITS: usize = 10;
const EVERY: Duration = Duration::from_secs(2);

/// The edit (numbered from 1) that writes a file the checks refuse.
const BAD_EDIT: usize = 5;

/// The configuration of edit `edit` (0: the one the gateway starts with): `time` always the
/// same; `everything` changed each time (a variable of its environment); `memory` present in
/// odd edits only.
fn config(up: &BTreeMap<String, String>, edit: usize) -> Value {
    let mut servers = json!({
        "time": {"command": "${TIME_SERVER}", "args": ["--local-timezone=UTC"]},
        "everything": {"command": up["EVERYTHING"], "env": {"EDIT": edit.to_string()}},
    });
    if edit % 2 == 1 {
        servers["memory"] = json!({"command": up["MEMORY"]});
    }
    if edit == BAD_EDIT {
        servers["memory"] = json!({"comand": up["MEMORY"]});
    }
    json!({"mcpServers": servers})
}

/// Writes `config` to `path` as an editor saves: a new file renamed over the old one.
fn save_as_editor(path: &Path, config: &Value) {
    let new = path.with_extension("swp");
    std::fs::write(&new, config.to_string()).unwrap();
    std::fs::rename(&new, path).unwrap();
}

/// What one client's calls came to.
#[derive(Default)]
struct Tally {
    calls: AtomicUsize,
    failed: AtomicUsize,
    /// The first failures, for the assertion's message.
    failures: std::sync::Mutex<Vec<String>>,
}

impl Tally {
    fn record(&self, outcome: Result<(), String>) {
        self.calls.fetch_add(1, Ordering::SeqCst);
        if let Err(failure) = outcome {
            self.failed.fetch_add(1, Ordering::SeqCst);
            let mut failures = self.failures.lock().unwrap();
            if failures.len() < 5 {
                failures.push(failure);
            }
        }
    }
}

/// The gateway's log lines (JSON) whose message starts with `prefix`, with their `trigger`.
fn logged(log: &str, prefix: &str) -> Vec<(String, String)> {
    log.lines()
        .filter_map(|line| serde_json::from_str::<Value>(line).ok())
        .filter_map(|event| {
            let message = event["fields"]["message"].as_str()?;
            message.starts_with(prefix).then(|| {
                let trigger = event["fields"]["trigger"].as_str().unwrap_or_default();
                (message.to_owned(), trigger.to_owned())
            })
        })
        .collect()
}

/// The reloads (and refusals) `log` says `trigger` made.
fn reloads_by(log: &Path, path: &str, trigger: &str) -> usize {
    let log = std::fs::read_to_string(log).unwrap_or_default();
    [
        format!("reloaded {path}: "),
        format!("reload of {path} refused"),
    ]
    .iter()
    .flat_map(|prefix| logged(&log, prefix))
    .filter(|(_, by)| by == trigger)
    .count()
}

/// Waits (20 s at most: a reload starts a server) until `log` says `trigger` made more than
/// `before` reloads.
async fn reloaded_by(log: &Path, path: &str, trigger: &str, before: usize) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while reloads_by(log, path, trigger) <= before {
        assert!(
            Instant::now() < deadline,
            "no reload by {trigger} in {}",
            std::fs::read_to_string(log).unwrap_or_default()
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_gateway_reloads_its_configuration_while_clients_call_and_fails_none() {
    let Some(up) = upstreams() else { return };
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), config(&up, 0).to_string()).unwrap();
    let path = file.path().display().to_string();
    let log = tempfile::NamedTempFile::new().unwrap();
    let port = free_port();
    let gateway = gateway_command(&up, &file, port)
        .args(["--log-format", "json"])
        .env_remove("RUST_LOG")
        .stderr(log.reopen().unwrap())
        .spawn()
        .unwrap();
    let pid = gateway.id().unwrap();
    let url = listening(port).await;

    // Two sessions: one calls the server no edit changes, the other the one each edit does.
    let (time, everything) = (session(&url, "any").await, session(&url, "any").await);
    let names = tool_names(&time).await;
    for name in ["get_current_time", "convert_time", "echo"] {
        assert!(names.contains(&name.to_owned()), "{name} in {names:?}");
    }
    let stop = Arc::new(AtomicBool::new(false));
    let mut callers = Vec::new();
    for (service, tool, arguments) in [
        (&time, "get_current_time", json!({"timezone": "UTC"})),
        (&everything, "echo", json!({"message": "soak"})),
    ] {
        let (peer, stop, tally) = (
            service.peer().clone(),
            Arc::clone(&stop),
            Arc::new(Tally::default()),
        );
        let counted = Arc::clone(&tally);
        callers.push((
            tokio::spawn(async move {
                while !stop.load(Ordering::SeqCst) {
                    let outcome = match peer.call_tool(call(tool, arguments.clone())).await {
                        Ok(result) if result.is_error != Some(true) => Ok(()),
                        Ok(result) => Err(format!("{tool}: isError {:?}", result.content)),
                        Err(err) => Err(format!("{tool}: {err}")),
                    };
                    counted.record(outcome);
                    tokio::time::sleep(Duration::from_millis(10)).await;
                }
            }),
            tally,
        ));
    }

    let started = Instant::now();
    // Each edit is reloaded before the next one (a slow machine stretches the 2 s), so that
    // none is folded into the next.
    for edit in 1..=EDITS {
        tokio::time::sleep(EVERY).await;
        let config = config(&up, edit);
        let trigger = if edit % 2 == 1 {
            "file changed"
        } else {
            "SIGHUP"
        };
        let before = reloads_by(log.path(), &path, trigger);
        if edit % 2 == 1 {
            save_as_editor(file.path(), &config);
        } else {
            std::fs::write(file.path(), config.to_string()).unwrap();
            let hangup = std::process::Command::new("kill")
                .args(["-HUP", &pid.to_string()])
                .status()
                .unwrap();
            assert!(hangup.success());
        }
        reloaded_by(log.path(), &path, trigger, before).await;
        // The time server's tools keep their names through every reload.
        let names = tool_names(&time).await;
        for name in ["get_current_time", "convert_time"] {
            assert!(
                names.contains(&name.to_owned()),
                "{name} after edit {edit}: {names:?}"
            );
        }
    }
    tokio::time::sleep(EVERY).await;
    stop.store(true, Ordering::SeqCst);
    let (mut calls, mut failed, mut failures) = (0, 0, Vec::new());
    for (caller, tally) in callers {
        caller.await.unwrap();
        calls += tally.calls.load(Ordering::SeqCst);
        failed += tally.failed.load(Ordering::SeqCst);
        failures.extend(tally.failures.lock().unwrap().drain(..));
    }
    let list_changed: Vec<usize> = [&time, &everything]
        .iter()
        .map(|service| service.service().0.load(Ordering::SeqCst))
        .collect();

    // The replaced and removed children are gone: the last configuration's two remain.
    let deadline = Instant::now() + Duration::from_secs(10);
    while children(pid).len() != 2 {
        assert!(
            Instant::now() < deadline,
            "children left after the soak: {:?}",
            children(pid)
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    for service in [time, everything] {
        service.cancel().await.unwrap();
    }
    terminate(gateway).await;

    let log = std::fs::read_to_string(log.path()).unwrap();
    let reloaded = logged(&log, &format!("reloaded {path}: "));
    let refused = logged(&log, &format!("reload of {path} refused"));
    println!(
        "reload: edits={EDITS} calls={calls} failed={failed} list_changed={} ({} s; reloaded {}, refused {})",
        list_changed.iter().sum::<usize>(),
        started.elapsed().as_secs(),
        reloaded.len(),
        refused.len()
    );
    assert_eq!(failed, 0, "calls failed: {failures:?}");
    assert!(calls >= 2 * EDITS, "only {calls} calls");
    assert!(
        list_changed.iter().all(|&count| count > 0),
        "notifications/tools/list_changed per session: {list_changed:?}"
    );
    // One refusal, naming the file, the server and the pointer; each good edit reloaded, by
    // SIGHUP (one reload each) or by the watcher.
    assert_eq!(refused.len(), 1, "{log}");
    assert!(
        refused[0].0.contains("/mcpServers/memory/comand") && refused[0].0.contains(&path),
        "{refused:?}"
    );
    let by_hangup = reloaded
        .iter()
        .filter(|(_, trigger)| trigger == "SIGHUP")
        .count();
    assert_eq!(by_hangup, EDITS / 2, "{reloaded:?}");
    let changed = reloaded
        .iter()
        .filter(|(message, _)| message.contains("changed [everything]"))
        .count();
    assert_eq!(changed, EDITS - 1, "{reloaded:?}");
    assert!(
        reloaded
            .iter()
            .any(|(message, trigger)| trigger == "file changed"
                && message.contains("added [memory]")),
        "{reloaded:?}"
    );
    assert!(
        reloaded
            .iter()
            .any(|(message, _)| message.contains("removed [memory]")),
        "{reloaded:?}"
    );
}
