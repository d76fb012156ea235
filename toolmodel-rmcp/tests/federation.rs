//! The federation against MCP servers no one here wrote: `@modelcontextprotocol/server-everything`
//! (stdio and Streamable HTTP), `@modelcontextprotocol/server-memory` and `mcp-server-time`,
//! installed by `serve/install_upstreams.sh` into `.upstreams/`. Without them (no network, no
//! Node or Python) each test prints a notice and passes, except under `CI`, where it fails.

use std::{
    collections::BTreeMap,
    path::{Path, PathBuf},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use serde_json::{Map, Value, json};
use toolmodel::{
    Backend, CallContext, CallToolResult, ToolId,
    peer::{BoxFuture, CallPeer, LogNotification, ProgressNotification},
};
use toolmodel_rmcp::federation::{
    Federation, FederationConfig, HttpTransport, NamePolicy, StdioTransport, UpstreamConfig,
};
use toolmodel_test_support::upstreams::upstreams;

fn args(value: Value) -> Option<Map<String, Value>> {
    value.as_object().cloned()
}

/// A federation of `servers`, default names.
async fn start(servers: impl IntoIterator<Item = UpstreamConfig>) -> Federation {
    let mut config = FederationConfig::builder();
    for server in servers {
        config = config.with_upstream(server);
    }
    Federation::start(config.build().unwrap()).await.unwrap()
}

/// Calls `name` with `arguments` and a context of its own.
async fn call(federation: &Federation, name: &str, arguments: Value) -> CallToolResult {
    federation
        .toolbox()
        .call(name, args(arguments), &CallContext::new())
        .await
        .unwrap()
}

/// A stdio server whose standard input is also appended to `log` (what the server received).
fn logged(name: &str, command: &str, log: &Path) -> UpstreamConfig {
    UpstreamConfig::stdio(
        name,
        StdioTransport::new("sh")
            .with_arg("-c")
            .with_arg("tee -a \"$0\" | \"$1\"")
            .with_arg(log.display().to_string())
            .with_arg(command),
    )
}

/// Calls until `check` holds for the toolbox or 20 s pass.
async fn eventually(federation: &Federation, check: impl Fn(&toolmodel::Toolbox) -> bool) {
    let deadline = Instant::now() + Duration::from_secs(20);
    while !check(&federation.toolbox()) {
        assert!(
            Instant::now() < deadline,
            "timed out waiting on the toolbox"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// The process IDs in process group `pgid` (Linux `/proc`).
pub(crate) fn group_members(pgid: u32) -> Vec<u32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // pid (comm) state ppid pgrp ...: comm may hold spaces, so read after the last ')'.
        let fields: Vec<&str> = stat
            .rsplit_once(')')
            .map(|(_, rest)| rest.split_whitespace().collect())
            .unwrap_or_default();
        // A zombie (`Z`) has exited already; its parent reaps it.
        if fields.get(2).and_then(|pgrp| pgrp.parse::<u32>().ok()) == Some(pgid)
            && fields.first() != Some(&"Z")
        {
            members.push(pid);
        }
    }
    members
}

/// Waits (3 s at most: SIGKILL is delivered, not awaited) until no process of `groups` is
/// left.
async fn all_gone(groups: &[u32], after: &str) {
    let deadline = Instant::now() + Duration::from_secs(3);
    loop {
        let left: usize = groups.iter().map(|&pgid| group_members(pgid).len()).sum();
        if left == 0 {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "{left} processes left after {after}"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn kill_group(pgid: u32) {
    let status = std::process::Command::new("kill")
        .args(["-KILL", "--", &format!("-{pgid}")])
        .status()
        .unwrap();
    assert!(status.success());
}

pub(crate) async fn pid_of(federation: &Federation, server: &str) -> u32 {
    federation
        .status()
        .await
        .into_iter()
        .find(|status| status.name == server)
        .and_then(|status| status.pid)
        .expect("a stdio server with a session has a pid")
}

fn temp_log(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "toolmodel-federation-{}-{name}.log",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    path
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn three_real_servers_over_stdio_serve_their_tools_in_one_toolbox() {
    let Some(up) = upstreams() else { return };
    let federation = start([
        UpstreamConfig::stdio("everything", StdioTransport::new(&up["EVERYTHING"])),
        UpstreamConfig::stdio("memory", StdioTransport::new(&up["MEMORY"])),
        UpstreamConfig::stdio(
            "time",
            StdioTransport::new(&up["TIME"]).with_arg("--local-timezone=UTC"),
        ),
    ])
    .await;
    let toolbox = federation.toolbox();
    for name in ["echo", "get-sum", "read_graph", "get_current_time"] {
        assert!(toolbox.get(name).is_some(), "{name} is listed");
    }
    let echo = toolbox
        .definitions()
        .find(|tool| tool.name == "echo")
        .unwrap();
    assert_eq!(echo.namespace.as_deref(), Some("everything"));
    assert_eq!(echo.backends, [Backend::mcp("everything")]);

    let cx = CallContext::new();
    let result = toolbox
        .call("echo", args(json!({"message": "hi"})), &cx)
        .await
        .unwrap();
    assert_eq!(result.text_content(), "Echo: hi");
    let id: ToolId = "time:get_current_time".parse().unwrap();
    let result = toolbox
        .call_id(&id, args(json!({"timezone": "UTC"})), &cx)
        .await
        .unwrap();
    assert!(!result.is_error(), "{}", result.text_content());
    assert!(result.text_content().contains("UTC"));
    let result = toolbox.call("read_graph", None, &cx).await.unwrap();
    assert!(!result.is_error(), "{}", result.text_content());
    federation.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_of_one_name_on_two_servers_are_prefixed_or_under_never_left_out() {
    let Some(up) = upstreams() else { return };
    let two = |policy| {
        FederationConfig::builder()
            .with_upstream(UpstreamConfig::stdio(
                "a",
                StdioTransport::new(&up["EVERYTHING"]),
            ))
            .with_upstream(UpstreamConfig::stdio(
                "b",
                StdioTransport::new(&up["EVERYTHING"]),
            ))
            .with_tool_names(policy)
            .build()
            .unwrap()
    };
    let federation = Federation::start(two(NamePolicy::OnCollision))
        .await
        .unwrap();
    let toolbox = federation.toolbox();
    assert!(toolbox.get("echo").is_none());
    let cx = CallContext::new();
    let a = toolbox
        .call("a__echo", args(json!({"message": "1"})), &cx)
        .await
        .unwrap();
    let b = toolbox
        .call("b__echo", args(json!({"message": "2"})), &cx)
        .await
        .unwrap();
    assert_eq!(
        (a.text_content(), b.text_content()),
        ("Echo: 1".into(), "Echo: 2".into())
    );
    federation.shutdown().await;

    // Under `never`, tools of one name are left out, each server's status naming the other's.
    let federation = Federation::start(two(NamePolicy::Never)).await.unwrap();
    assert!(federation.toolbox().tools().is_empty());
    let status = federation.status().await;
    assert!(
        status[0].warnings.contains(
            &"tool \"echo\" is not served: b:echo would be served as \"echo\" too".into()
        ),
        "{status:?}"
    );
    federation.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_arguments_are_stopped_before_they_reach_the_server() {
    let Some(up) = upstreams() else { return };
    let log = temp_log("bad-arguments");
    let federation = start([logged("everything", &up["EVERYTHING"], &log)]).await;
    let result = call(&federation, "get-sum", json!({"a": "one"})).await;
    assert!(result.is_error());
    assert!(
        result
            .text_content()
            .starts_with("invalid arguments for tool \"get-sum\""),
        "{}",
        result.text_content()
    );
    let good = call(&federation, "get-sum", json!({"a": 1, "b": 2})).await;
    assert!(good.text_content().contains('3'), "{}", good.text_content());
    let sent = std::fs::read_to_string(&log).unwrap();
    assert_eq!(
        sent.matches("\"tools/call\"").count(),
        1,
        "only the good call went upstream: {sent}"
    );
    federation.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_killed_mid_call_answers_is_error_and_comes_back() {
    let Some(up) = upstreams() else { return };
    let federation = start([
        UpstreamConfig::stdio("a", StdioTransport::new(&up["EVERYTHING"]))
            .with_timeout(Duration::from_secs(30)),
        UpstreamConfig::stdio(
            "time",
            StdioTransport::new(&up["TIME"]).with_arg("--local-timezone=UTC"),
        ),
    ])
    .await;
    let toolbox = federation.toolbox();
    let pid = pid_of(&federation, "a").await;
    let long = {
        let toolbox = toolbox.clone();
        tokio::spawn(async move {
            let cx = CallContext::new();
            let started = Instant::now();
            let result = toolbox
                .call(
                    "trigger-long-running-operation",
                    args(json!({"duration": 20, "steps": 20})),
                    &cx,
                )
                .await
                .unwrap();
            (result, started.elapsed())
        })
    };
    tokio::time::sleep(Duration::from_millis(800)).await;
    kill_group(pid);
    let (result, took) = long.await.unwrap();
    assert!(result.is_error());
    assert!(
        result
            .text_content()
            .starts_with("server \"a\" is unavailable"),
        "{}",
        result.text_content()
    );
    assert!(
        took < Duration::from_secs(5),
        "ended {took:?} after it started"
    );

    let cx = CallContext::new();
    let time = toolbox
        .call("get_current_time", args(json!({"timezone": "UTC"})), &cx)
        .await
        .unwrap();
    assert!(!time.is_error(), "the other server keeps answering");
    let again = toolbox
        .call("echo", args(json!({"message": "back"})), &cx)
        .await
        .unwrap();
    assert_eq!(
        again.text_content(),
        "Echo: back",
        "the killed server was respawned"
    );
    assert_ne!(pid_of(&federation, "a").await, pid);
    assert!(group_members(pid).is_empty());
    federation.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hanging_upstream_times_out_and_the_cancellation_goes_upstream() {
    let Some(up) = upstreams() else { return };
    let log = temp_log("hanging");
    let federation =
        start([logged("slow", &up["EVERYTHING"], &log).with_timeout(Duration::from_millis(700))])
            .await;
    let started = Instant::now();
    let result = call(
        &federation,
        "trigger-long-running-operation",
        json!({"duration": 5, "steps": 1}),
    )
    .await;
    let took = started.elapsed();
    assert!(result.is_error());
    assert_eq!(
        result.text_content(),
        "server \"slow\" did not answer within 700 ms (its timeout; notifications/cancelled sent)"
    );
    assert!(took < Duration::from_secs(2), "{took:?}");
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let sent = std::fs::read_to_string(&log).unwrap_or_default();
        if sent.contains("notifications/cancelled") {
            break;
        }
        assert!(
            Instant::now() < deadline,
            "no notifications/cancelled upstream: {sent}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    federation.shutdown().await;
}

/// Records what a call's host is sent, and answers elicitation.
#[derive(Default)]
struct Recorder {
    progress: Mutex<Vec<f64>>,
    elicited: Mutex<Vec<Value>>,
}

impl CallPeer for Recorder {
    fn progress(
        &self,
        notification: ProgressNotification,
    ) -> BoxFuture<'_, Result<(), toolmodel::Error>> {
        // A caller slow to take its progress: the result still comes after the last one.
        Box::pin(async move {
            tokio::time::sleep(Duration::from_millis(100)).await;
            self.progress.lock().unwrap().push(notification.progress);
            Ok(())
        })
    }

    fn log(&self, _: LogNotification) -> BoxFuture<'_, Result<(), toolmodel::Error>> {
        Box::pin(async { Ok(()) })
    }

    fn elicit(&self, params: Value) -> BoxFuture<'_, Result<Value, toolmodel::Error>> {
        self.elicited.lock().unwrap().push(params);
        Box::pin(async { Ok(json!({"action": "accept", "content": {"name": "Ada"}})) })
    }
}

/// A federation of server-everything over stdio, once its toolbox has `tool` (a tool the
/// server registers after `initialize`, announced by `notifications/tools/list_changed`).
async fn everything_with(up: &BTreeMap<String, String>, tool: &str) -> Federation {
    let federation = start([UpstreamConfig::stdio(
        "everything",
        StdioTransport::new(&up["EVERYTHING"]),
    )])
    .await;
    eventually(&federation, |toolbox| toolbox.get(tool).is_some()).await;
    federation
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn progress_and_elicitation_reach_the_caller_and_list_changed_reimports() {
    let Some(up) = upstreams() else { return };
    // server-everything registers its elicitation tool after `initialize` and sends
    // notifications/tools/list_changed: the federation imports its tools again.
    let federation = everything_with(&up, "trigger-elicitation-request").await;

    let recorder = Arc::new(Recorder::default());
    let cx = CallContext::new()
        .with_peer(recorder.clone())
        .with_meta(json!({"progressToken": "p1"}).as_object().cloned().unwrap())
        .unwrap();
    let toolbox = federation.toolbox();
    let result = toolbox
        .call(
            "trigger-long-running-operation",
            args(json!({"duration": 0.4, "steps": 2})),
            &cx,
        )
        .await
        .unwrap();
    assert!(!result.is_error(), "{}", result.text_content());
    // Every progress the server sent before its result reached the caller before the result.
    assert_eq!(*recorder.progress.lock().unwrap(), [1.0, 2.0]);

    let result: CallToolResult = toolbox
        .call("trigger-elicitation-request", None, &cx)
        .await
        .unwrap();
    assert!(
        result.text_content().contains("Name: Ada"),
        "{}",
        result.text_content()
    );
    assert_eq!(recorder.elicited.lock().unwrap().len(), 1);
    federation.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn server_everything_over_streamable_http_is_federated() {
    let Some(up) = upstreams() else { return };
    let (mut child, url) = everything_over_http(&up["EVERYTHING"]).await;
    let federation = start([
        UpstreamConfig::http("remote", HttpTransport::new(url)),
        UpstreamConfig::stdio("local", StdioTransport::new(&up["TIME"])),
    ])
    .await;
    let result = call(&federation, "echo", json!({"message": "over http"})).await;
    assert_eq!(result.text_content(), "Echo: over http");
    federation.shutdown().await;
    child.kill().await.unwrap();
}

/// server-everything over Streamable HTTP on a free port, until dropped; its MCP URL.
async fn everything_over_http(command: &str) -> (tokio::process::Child, String) {
    let port = {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        listener.local_addr().unwrap().port()
    };
    let child = tokio::process::Command::new(command)
        .arg("streamableHttp")
        .env("PORT", port.to_string())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(
            Instant::now() < deadline,
            "server-everything did not listen"
        );
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    (child, format!("http://127.0.0.1:{port}/mcp"))
}

/// A caller's host that answers elicitation with `name` (after a pause, so that calls
/// overlap) and lists one root, `file:///<name>`.
struct Answering {
    name: &'static str,
}

impl CallPeer for Answering {
    fn elicit(&self, _: Value) -> BoxFuture<'_, Result<Value, toolmodel::Error>> {
        Box::pin(async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            Ok(json!({"action": "accept", "content": {"name": self.name}}))
        })
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<Value, toolmodel::Error>> {
        Box::pin(async {
            Ok(json!({"roots": [{"uri": format!("file:///{}", self.name), "name": self.name}]}))
        })
    }
}

/// A context whose host is `Answering { name }`.
fn answering(name: &'static str) -> CallContext {
    CallContext::new().with_peer(Arc::new(Answering { name }))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_calls_in_flight_over_http_each_answer_their_own_elicitation() {
    let Some(up) = upstreams() else { return };
    let (mut child, url) = everything_over_http(&up["EVERYTHING"]).await;
    let federation = start([UpstreamConfig::http("remote", HttpTransport::new(url))]).await;
    eventually(&federation, |toolbox| {
        toolbox.get("trigger-elicitation-request").is_some()
    })
    .await;
    let toolbox = federation.toolbox();
    let (ada, grace) = (answering("Ada"), answering("Grace"));
    let (first, second) = tokio::join!(
        toolbox.call("trigger-elicitation-request", None, &ada),
        toolbox.call("trigger-elicitation-request", None, &grace),
    );
    let (first, second) = (
        first.unwrap().text_content(),
        second.unwrap().text_content(),
    );
    // Each request arrived on the response stream of the call it serves.
    assert!(first.contains("Name: Ada"), "{first}");
    assert!(second.contains("Name: Grace"), "{second}");
    federation.shutdown().await;
    child.kill().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_s_roots_request_reaches_the_caller() {
    let Some(up) = upstreams() else { return };
    // Registered once the server knows the client declares `roots`.
    let federation = everything_with(&up, "get-roots-list").await;
    let result = federation
        .toolbox()
        .call("get-roots-list", None, &answering("work"))
        .await
        .unwrap();
    assert!(
        result.text_content().contains("file:///work"),
        "{}",
        result.text_content()
    );
    federation.shutdown().await;
}

/// A `ToolboxServer` with an `echo` tool over Streamable HTTP on `listener`, until `stop`;
/// the task ends once the server has closed every connection.
fn serve_echo(
    listener: tokio::net::TcpListener,
) -> (
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<()>,
) {
    let tool =
        toolmodel::Tool::from_mcp_json(&json!({"name": "echo", "inputSchema": {"type": "object"}}))
            .unwrap();
    let toolbox = toolmodel::Toolbox::builder()
        .with_tool(tool, |_, _| async { Ok(CallToolResult::text("echoed")) })
        .build()
        .unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(async move {
        toolmodel_rmcp::ToolboxServer::new(toolbox)
            .serve_http(listener)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .await
            .unwrap();
    });
    (stop, served)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_restarted_http_server_that_forgot_the_session_is_reached_again() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (first, first_served) = serve_echo(listener);
    let federation = start([UpstreamConfig::http(
        "remote",
        HttpTransport::new(format!("http://{addr}/mcp")),
    )])
    .await;
    let toolbox = federation.toolbox();
    let cx = CallContext::new();
    assert_eq!(
        toolbox
            .call("echo", None, &cx)
            .await
            .unwrap()
            .text_content(),
        "echoed"
    );
    // A restart: the first server stops (its connections closed), and a new server on the
    // same address knows no session: the old session ID gets 404 (MCP "Session
    // Management"). Either rmcp starts a new session on the 404 and sends the request again,
    // or the federation opens a new session because the old one closed.
    first.send(()).unwrap();
    first_served.await.unwrap();
    let listener = loop {
        match tokio::net::TcpListener::bind(addr).await {
            Ok(listener) => break listener,
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    };
    let _second = serve_echo(listener);
    let started = Instant::now();
    let after = toolbox.call("echo", None, &cx).await.unwrap();
    assert_eq!(after.text_content(), "echoed", "{}", after.text_content());
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    federation.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_server_leaves_the_others_serving() {
    let Some(up) = upstreams() else { return };
    let federation = start([
        UpstreamConfig::stdio("gone", StdioTransport::new("/nonexistent/mcp-server")),
        UpstreamConfig::http("closed", HttpTransport::new("http://127.0.0.1:9/mcp"))
            .with_startup_timeout(Duration::from_secs(2)),
        UpstreamConfig::stdio("time", StdioTransport::new(&up["TIME"])),
    ])
    .await;
    let status = federation.status().await;
    let names: Vec<&str> = status.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["closed", "gone", "time"]);
    assert!(
        status[0]
            .session
            .to_string()
            .contains("http://127.0.0.1:9/mcp"),
        "{status:?}"
    );
    assert!(
        status[1]
            .session
            .to_string()
            .contains("cannot start \"/nonexistent/mcp-server\""),
        "{status:?}"
    );
    assert!(status[2].session.is_open(), "{status:?}");
    let time = call(&federation, "get_current_time", json!({"timezone": "UTC"})).await;
    assert!(!time.is_error());
    assert!(federation.toolbox().get("get_current_time").is_some());
    federation.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_child_process_outlives_shutdown_or_drop() {
    let Some(up) = upstreams() else { return };
    let config = || {
        FederationConfig::builder()
            .with_upstream(UpstreamConfig::stdio(
                "a",
                StdioTransport::new(&up["EVERYTHING"]),
            ))
            .with_upstream(UpstreamConfig::stdio(
                "m",
                StdioTransport::new(&up["MEMORY"]),
            ))
            // A shell that starts the server: two processes in the group.
            .with_upstream(UpstreamConfig::stdio(
                "t",
                StdioTransport::new("sh")
                    .with_arg("-c")
                    .with_arg(format!("{} ; true", up["TIME"])),
            ))
            .build()
            .unwrap()
    };
    let federation = Federation::start(config()).await.unwrap();
    let mut groups = Vec::new();
    for name in ["a", "m", "t"] {
        groups.push(pid_of(&federation, name).await);
    }
    let before: usize = groups.iter().map(|&pgid| group_members(pgid).len()).sum();
    assert!(before >= 4, "{before} processes before");
    federation.shutdown().await;
    all_gone(&groups, "shutdown").await;

    let federation = Federation::start(config()).await.unwrap();
    let pgid = pid_of(&federation, "t").await;
    assert_eq!(group_members(pgid).len(), 2);
    drop(federation);
    all_gone(&[pgid], "drop").await;
}
