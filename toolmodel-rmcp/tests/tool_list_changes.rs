//! `ToolboxServer::set_toolbox`: the tool list a server serves is replaced while clients are
//! connected. Sessions that went through `initialize` get `notifications/tools/list_changed`
//! (MCP 2025-11-25 "Tools", List Changed Notification) and then list the new tools; a MCP
//! 2026-07-28 client gets it on its `subscriptions/listen` stream, and nowhere else (a stream
//! that does not ask for it is refused); a call in flight finishes on the toolbox it started
//! with. Driven by `rmcp`'s client over an in-memory pipe.

use std::{sync::Arc, time::Duration};

use rmcp::{
    ClientHandler, RoleClient, ServerHandler,
    model::{CallToolRequestParams, ErrorCode, ServerNotification, SubscriptionFilter},
    service::{NotificationContext, RunningService, ServiceError},
};
use serde_json::json;
use tokio::sync::Notify;
use toolmodel::{CallToolResult, Tool, ToolSchema, Toolbox};
use toolmodel_rmcp::ToolboxServer;

use crate::support::pipe;

/// How long a test waits for what the server should send.
const WAIT: Duration = Duration::from_secs(5);

/// A toolbox of tools named `names`, each answering its own name.
fn toolbox(names: &[&str]) -> Toolbox {
    let mut builder = Toolbox::builder();
    for name in names {
        let answer = (*name).to_owned();
        builder = builder.with_tool(Tool::new(*name, ToolSchema::empty_object()), move |_, _| {
            let answer = answer.clone();
            async move { Ok(CallToolResult::text(answer)) }
        });
    }
    builder.build().expect("toolbox")
}

/// A client that counts the `notifications/tools/list_changed` it is sent outside any
/// subscription.
#[derive(Clone, Default)]
struct Client {
    changed: Arc<Notify>,
    count: Arc<std::sync::atomic::AtomicUsize>,
}

impl ClientHandler for Client {
    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.count.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        self.changed.notify_one();
    }
}

async fn names<C: ClientHandler>(service: &RunningService<RoleClient, C>) -> Vec<String> {
    let tools = service.list_all_tools().await.expect("tools/list");
    tools.iter().map(|tool| tool.name.to_string()).collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_session_hears_of_a_new_toolbox_and_lists_it() {
    let server = ToolboxServer::new(toolbox(&["old"]));
    let (first, second) = (Client::default(), Client::default());
    let one = pipe::connect(server.clone(), first.clone()).await;
    let two = pipe::connect(server.clone(), second.clone()).await;
    let declared = one.peer_info().expect("initialized").capabilities.clone();
    assert_eq!(
        declared.tools.and_then(|tools| tools.list_changed),
        Some(true)
    );
    assert_eq!(names(&one).await, ["old"]);

    server.set_toolbox(toolbox(&["new_a", "new_b"]));
    for client in [&first, &second] {
        tokio::time::timeout(WAIT, client.changed.notified())
            .await
            .expect("notifications/tools/list_changed");
    }
    assert_eq!(names(&one).await, ["new_a", "new_b"]);
    assert_eq!(names(&two).await, ["new_a", "new_b"]);
    assert_eq!(server.toolbox().len(), 2);
    for service in [one, two] {
        service.cancel().await.expect("closes");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_call_started_before_the_swap_finishes_on_its_toolbox() {
    let (started, release) = (Arc::new(Notify::new()), Arc::new(Notify::new()));
    let (on_start, on_release) = (Arc::clone(&started), Arc::clone(&release));
    let holding = Toolbox::builder()
        .with_tool(
            Tool::new("hold", ToolSchema::empty_object()),
            move |_, _| {
                let (on_start, on_release) = (Arc::clone(&on_start), Arc::clone(&on_release));
                async move {
                    on_start.notify_one();
                    on_release.notified().await;
                    Ok(CallToolResult::text("held to the end"))
                }
            },
        )
        .build()
        .expect("toolbox");
    let server = ToolboxServer::new(holding);
    let service = pipe::connect(server.clone(), ()).await;
    let peer = service.peer().clone();
    let call =
        tokio::spawn(async move { peer.call_tool(CallToolRequestParams::new("hold")).await });
    tokio::time::timeout(WAIT, started.notified())
        .await
        .expect("the call started");

    server.set_toolbox(toolbox(&["other"]));
    release.notify_one();
    let result = tokio::time::timeout(WAIT, call)
        .await
        .expect("the call ends")
        .expect("the call's task")
        .expect("the call's result");
    assert_eq!(
        serde_json::to_value(&result).expect("JSON")["content"][0]["text"],
        json!("held to the end")
    );
    // Calls after the swap see the new toolbox.
    match service.call_tool(CallToolRequestParams::new("hold")).await {
        Err(ServiceError::McpError(error)) => assert_eq!(error.code, ErrorCode::INVALID_PARAMS),
        other => panic!("hold is gone: expected -32602, got {other:?}"),
    }
    service.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_07_28_client_hears_of_a_new_toolbox_on_its_subscription_only() {
    let server = ToolboxServer::new(toolbox(&["old"]));
    let client = Client::default();
    let service = pipe::connect_2026_07_28(server.clone(), client.clone()).await;
    let requested = SubscriptionFilter::builder()
        .tools_list_changed()
        .prompts_list_changed()
        .build();
    let mut subscription = service.peer().listen(requested).await.expect("listen");
    // The server accepts the tool list's changes alone.
    assert_eq!(
        subscription.acknowledged(),
        &SubscriptionFilter::builder().tools_list_changed().build()
    );

    // `rmcp` acknowledges a stream before the server starts waiting on it: a change in
    // between is not sent, so the test replaces the toolbox until one is (at most 10 times).
    let mut heard = None;
    for _ in 0..10 {
        server.set_toolbox(toolbox(&["new"]));
        if let Ok(next) =
            tokio::time::timeout(Duration::from_millis(500), subscription.next()).await
        {
            heard = Some(next.expect("the stream reads"));
            break;
        }
    }
    assert!(
        matches!(
            heard,
            Some(Some(ServerNotification::ToolListChangedNotification(_)))
        ),
        "{heard:?}"
    );
    assert_eq!(names(&service).await, ["new"]);
    // MCP 2026-07-28 has no unsolicited notifications: nothing came outside the stream.
    assert_eq!(client.count.load(std::sync::atomic::Ordering::SeqCst), 0);
    subscription.cancel().await.expect("the stream ends");
    service.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_07_28_stream_that_asks_for_no_tool_list_changes_is_acknowledged_with_nothing() {
    let server = ToolboxServer::new(toolbox(&["old"]));
    let service = pipe::connect_2026_07_28(server.clone(), ()).await;
    let requested = SubscriptionFilter::builder()
        .prompts_list_changed()
        .resources_list_changed()
        .build();
    let mut subscription = service.peer().listen(requested).await.expect("listen");
    // The server honors neither: the acknowledgment omits both.
    assert_eq!(subscription.acknowledged(), &SubscriptionFilter::new());
    // A tool list change is not sent on a stream that did not ask for it.
    server.set_toolbox(toolbox(&["new"]));
    let next = tokio::time::timeout(Duration::from_millis(500), subscription.next()).await;
    assert!(next.is_err(), "nothing is sent on the stream: {next:?}");
    subscription.cancel().await.expect("the stream ends");
    service.cancel().await.expect("closes");
}

#[test]
fn tasks_turn_on_with_a_toolbox_that_supports_them_and_stay_on() {
    let server = ToolboxServer::new(toolbox(&["plain"]));
    assert!(!server.get_info().capabilities.supports_tasks());
    let tool = Tool::from_mcp_json(&json!({
        "name": "batch",
        "inputSchema": {"type": "object"},
        "execution": {"taskSupport": "optional"}
    }))
    .expect("a tool");
    let with_tasks = Toolbox::builder()
        .with_tool(tool, |_, _| async { Ok(CallToolResult::text("done")) })
        .build()
        .expect("toolbox");
    server.set_toolbox(with_tasks);
    assert!(server.get_info().capabilities.supports_tasks());
    // A task started before a swap stays reachable: the extension stays on.
    server.set_toolbox(toolbox(&["plain"]));
    assert!(server.get_info().capabilities.supports_tasks());
}
