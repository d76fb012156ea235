//! `tools/list` and `tools/call` of a [`ToolboxServer`], driven by `rmcp`'s client in the same
//! process over an in-memory pipe: pagination across pages. (The example servers are listed
//! and called over stdio in toolmodel-tests' `tests/list_and_call_over_stdio.rs`.)

use rmcp::model::PaginatedRequestParams;
use toolmodel::{CallToolResult, Tool, ToolSchema, Toolbox};
use toolmodel_rmcp::ToolboxServer;

use crate::support::pipe::connect;

fn numbered(count: usize, page_size: usize) -> Toolbox {
    let mut builder = Toolbox::builder().with_page_size(page_size);
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
