//! Configuration changed live: [`Federation::reconfigure`] under a gateway with a client
//! connected, its upstreams real child processes (`tests/support/fake_upstream.py`, each in its
//! own process group). Calls in flight on kept, changed and removed servers all finish; the
//! kept server's child and tool names stay; the client is sent
//! `notifications/tools/list_changed`; the removed and replaced children's process groups are
//! gone once drained; a new `toolmodelPolicy` applies to the next request.

use std::{
    path::PathBuf,
    sync::{
        Arc,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use rmcp::{
    ClientHandler,
    model::{CallToolRequestParams, CallToolResult},
    service::{NotificationContext, RoleClient, RunningService},
};
use serde_json::{Value, json};
use toolmodel_rmcp::{
    ToolboxServer,
    federation::{Federation, FederationConfig, UpstreamConfig},
    server::ToolPolicy,
};

use crate::federation::{group_members, pid_of};
use crate::gateway_security::fake_upstream;
use crate::support::{pipe, two_users::tool_names};

/// A client that counts the `notifications/tools/list_changed` it is sent.
#[derive(Clone, Default)]
struct Client(Arc<AtomicUsize>);

impl ClientHandler for Client {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.0.fetch_add(1, Ordering::SeqCst);
    }
}

/// A fake stdio server `name` listing `tools` (each taking any object).
fn fake(name: &str, tools: &[&str]) -> UpstreamConfig {
    let tools: Vec<Value> = tools
        .iter()
        .map(|tool| json!({"name": tool, "inputSchema": {"type": "object"}}))
        .collect();
    fake_upstream(name, Value::Array(tools))
}

/// A configuration of `servers` under the policy `policy` (JSON), if any.
fn config(servers: Vec<UpstreamConfig>, policy: Option<Value>) -> FederationConfig {
    let mut config = FederationConfig::builder();
    for server in servers {
        config = config.with_upstream(server);
    }
    if let Some(policy) = policy {
        config = config.with_tool_policy(ToolPolicy::from_json(&policy).expect("a policy"));
    }
    config.build().expect("a configuration")
}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    let mut params = CallToolRequestParams::new(name.to_owned());
    params.arguments = arguments.as_object().cloned();
    params
}

/// The text of a result that is not an error.
fn text(result: &CallToolResult) -> String {
    assert_ne!(result.is_error, Some(true), "{result:?}");
    result.content[0].as_text().expect("text").text.clone()
}

/// Waits (10 s at most) until `check` holds, failing with `what`.
async fn eventually(what: &str, check: impl Fn() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !check() {
        assert!(Instant::now() < deadline, "timed out: {what}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A file in the temporary directory for this process, `name`, absent.
fn marker(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!("toolmodel-reload-{}-{name}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reconfiguration_keeps_unchanged_servers_drains_the_others_and_tells_the_clients() {
    let kept = || fake("keep", &["wait", "keep_tool"]);
    let federation = Federation::start(config(
        vec![
            kept(),
            fake("change", &["wait", "change_tool"]),
            fake("remove", &["wait", "remove_tool"]),
        ],
        None,
    ))
    .await
    .expect("the federation starts");
    let (keep, change, remove) = (
        pid_of(&federation, "keep").await,
        pid_of(&federation, "change").await,
        pid_of(&federation, "remove").await,
    );
    let client = Client::default();
    let service: RunningService<RoleClient, Client> =
        pipe::connect(ToolboxServer::gateway(&federation), client.clone()).await;
    let before = tool_names(&service).await;
    assert_eq!(
        before,
        [
            "change__wait",
            "change_tool",
            "keep__wait",
            "keep_tool",
            "remove__wait",
            "remove_tool"
        ]
    );

    // A call on each server, in flight (each has reached its server) when the configuration
    // changes.
    let mut in_flight = Vec::new();
    for tool in ["keep__wait", "change__wait", "remove__wait"] {
        let started = marker(tool);
        let peer = service.peer().clone();
        let arguments = json!({"seconds": 3, "started": started.display().to_string()});
        in_flight.push((
            started,
            tokio::spawn(async move { peer.call_tool(call(tool, arguments)).await }),
        ));
    }
    for (started, _) in &in_flight {
        eventually("a call reaches its server", || started.exists()).await;
    }
    let report = federation
        .reconfigure(config(
            vec![
                kept(),
                fake("change", &["wait", "change_tool", "change_more"]),
                fake("add", &["wait", "add_tool"]),
            ],
            None,
        ))
        .await
        .expect("the reconfiguration");
    assert_eq!(
        report.to_string(),
        "added [add] removed [remove] changed [change]"
    );
    assert_eq!(report.unchanged, ["keep"]);
    assert!(report.unavailable.is_empty() && report.renamed.is_empty());
    assert!(!report.tool_policy_changed);

    // Every call in flight finished on the server it started on.
    for (started, call) in in_flight {
        let result = call.await.expect("the task").expect("tools/call");
        assert_eq!(text(&result), "waited");
        let _ = std::fs::remove_file(started);
    }
    eventually("notifications/tools/list_changed", || {
        client.0.load(Ordering::SeqCst) > 0
    })
    .await;
    let after = tool_names(&service).await;
    assert_eq!(
        after,
        [
            "add__wait",
            "add_tool",
            "change__wait",
            "change_more",
            "change_tool",
            "keep__wait",
            "keep_tool"
        ]
    );
    for tool in ["add_tool", "change_more", "keep_tool"] {
        let result = service
            .call_tool(call(tool, json!({})))
            .await
            .expect("tools/call");
        assert_eq!(text(&result), format!("{tool} answered"));
    }
    let removed = service.call_tool(call("remove_tool", json!({}))).await;
    assert!(removed.is_err(), "a removed server's tool is unknown");

    // The kept server's child is the same; the removed and replaced ones are gone, groups
    // and all, once drained.
    assert_eq!(pid_of(&federation, "keep").await, keep);
    assert_ne!(pid_of(&federation, "change").await, change);
    eventually("the removed and replaced children exit", || {
        group_members(remove).is_empty() && group_members(change).is_empty()
    })
    .await;
    assert!(!group_members(keep).is_empty(), "the kept child runs");
    let names: Vec<String> = federation
        .status()
        .await
        .into_iter()
        .map(|status| status.name)
        .collect();
    assert_eq!(names, ["add", "change", "keep"]);
    federation.shutdown().await;
    eventually("every child exits at shutdown", || {
        group_members(keep).is_empty()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_new_policy_applies_to_the_next_request_and_an_added_name_renames_a_kept_tool() {
    let time = || fake("time", &["now", "zone"]);
    let federation = Federation::start(config(
        vec![time()],
        Some(json!({"rules": [{"allow": ["time.zone"]}]})),
    ))
    .await
    .expect("the federation starts");
    let client = Client::default();
    let service = pipe::connect(ToolboxServer::gateway(&federation), client.clone()).await;
    assert_eq!(tool_names(&service).await, ["zone"]);

    // Under onCollision, a server added with a tool of a kept one's name prefixes both: the
    // names a restart would give.
    let report = federation
        .reconfigure(config(
            vec![time(), fake("clock", &["now"])],
            Some(json!({"rules": [{"allow": ["*"]}]})),
        ))
        .await
        .expect("the reconfiguration");
    assert_eq!(report.to_string(), "added [clock] removed [] changed []");
    assert!(report.tool_policy_changed);
    let renamed: Vec<String> = report.renamed.iter().map(ToString::to_string).collect();
    assert_eq!(
        renamed,
        [r#"server "time" tool "now": "now" -> "time__now""#]
    );
    eventually("notifications/tools/list_changed", || {
        client.0.load(Ordering::SeqCst) > 0
    })
    .await;
    assert_eq!(
        tool_names(&service).await,
        ["clock__now", "time__now", "zone"]
    );
    let now = service
        .call_tool(call("time__now", json!({})))
        .await
        .expect("tools/call");
    assert_eq!(text(&now), "now answered");

    // A configuration that does not read never reaches the federation: the one in force
    // serves on.
    let bad = FederationConfig::from_json(&json!({"mcpServers": {"time": {"comand": "x"}}}))
        .expect_err("a misspelled key");
    assert!(bad.to_string().contains("/mcpServers/time"), "{bad}");
    assert_eq!(
        federation
            .config()
            .enabled()
            .map(|s| s.name.as_str())
            .collect::<Vec<_>>(),
        ["clock", "time"]
    );
    let zone = service
        .call_tool(call("zone", json!({})))
        .await
        .expect("tools/call");
    assert_eq!(text(&zone), "zone answered");
    federation.shutdown().await;
}
