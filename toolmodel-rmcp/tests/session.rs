//! A [`ToolboxServer`] and an `rmcp` client in one process, over an in-memory pipe:
//! pagination across pages, and cancellation reaching the handler.

use std::{sync::Arc, time::Duration};

use rmcp::{
    model::{CallToolRequestParams, ErrorCode, PaginatedRequestParams},
    service::ServiceError,
};
use serde::Deserialize;
use serde_json::json;
use tokio::sync::Notify;
use toolmodel::{
    CallContext, CallToolResult, Tool, ToolError, ToolHandler, ToolSchema, Toolbox,
    schemars::{self, JsonSchema},
};
use toolmodel_rmcp::ToolboxServer;

mod pipe;
use pipe::connect;

fn numbered(count: usize, page_size: usize) -> Toolbox {
    let mut builder = Toolbox::builder().page_size(page_size);
    for n in 0..count {
        builder = builder.with_tool(
            Tool::new(format!("tool_{n}"), ToolSchema::empty_object()),
            |_, _| async { Ok(CallToolResult::text("ok")) },
        );
    }
    builder.build().expect("toolbox")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tools_list_pages_follow_the_cursor() {
    let service = connect(ToolboxServer::new(numbered(5, 2)), ()).await;
    let mut names = Vec::new();
    let mut cursor = None;
    let mut pages = 0;
    loop {
        let page = service
            .list_tools(Some(PaginatedRequestParams::default().with_cursor(cursor)))
            .await
            .expect("a page");
        pages += 1;
        assert!(page.tools.len() <= 2);
        names.extend(page.tools.iter().map(|tool| tool.name.to_string()));
        cursor = page.next_cursor;
        if cursor.is_none() {
            break;
        }
    }
    assert_eq!(pages, 3);
    assert_eq!(names, ["tool_0", "tool_1", "tool_2", "tool_3", "tool_4"]);
    // rmcp's own walk over the pages agrees.
    let all = service.list_all_tools().await.expect("all pages");
    assert_eq!(all.len(), 5);
    service.cancel().await.expect("closes");
}

#[derive(Deserialize, JsonSchema)]
struct WaitArgs {}

/// Waits until its call is cancelled, then says so.
#[derive(toolmodel::Tool)]
#[tool(input = WaitArgs)]
struct Wait {
    started: Arc<Notify>,
    stopped: Arc<Notify>,
}

impl ToolHandler for Wait {
    type Reply = &'static str;
    async fn call(&self, _: WaitArgs, cx: &CallContext) -> Result<&'static str, ToolError> {
        self.started.notify_one();
        cx.cancelled().await;
        self.stopped.notify_one();
        Err(ToolError::Cancelled)
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn notifications_cancelled_reaches_the_handler() {
    let started = Arc::new(Notify::new());
    let stopped = Arc::new(Notify::new());
    let toolbox = Toolbox::builder()
        .with(Wait {
            started: Arc::clone(&started),
            stopped: Arc::clone(&stopped),
        })
        .build()
        .expect("toolbox");
    let service = connect(ToolboxServer::new(toolbox), ()).await;

    // rmcp's client sends notifications/cancelled for a tools/call it abandons.
    let call = service.call_tool(CallToolRequestParams::new("wait"));
    let abandoned = tokio::time::timeout(Duration::from_secs(5), async {
        tokio::select! {
            _ = call => panic!("the call finished without being cancelled"),
            () = started.notified() => {}
        }
    })
    .await;
    assert!(abandoned.is_ok(), "the handler started");
    tokio::time::timeout(Duration::from_secs(5), stopped.notified())
        .await
        .expect("the handler saw the cancellation");

    let unknown = service
        .call_tool(
            CallToolRequestParams::new("nothing")
                .with_arguments(json!({}).as_object().cloned().unwrap_or_default()),
        )
        .await;
    match unknown {
        Err(ServiceError::McpError(error)) => assert_eq!(error.code, ErrorCode::INVALID_PARAMS),
        other => panic!("expected -32602, got {other:?}"),
    }
    service.cancel().await.expect("closes");
}
