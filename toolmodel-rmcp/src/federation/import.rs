//! Importing an upstream's tools: every page of `tools/list` (MCP "Pagination"), each tool as
//! the server sent it, with the server's name as its `namespace` and a
//! [`Backend::Mcp`] binding to the server.
//!
//! The pages are bounded: at most [`MAX_PAGES`], each within the server's startup timeout,
//! and a cursor the server already sent ends the import with an error instead of a loop.
//! What rmcp 3.11 forgets when it reads a tool (`execution`, unknown keys: see
//! [`convert`](crate::convert)) is not there to keep.

use rmcp::{model::PaginatedRequestParams, service::Peer, service::RoleClient};
use toolmodel::{Backend, Tool};

use crate::convert::FromRmcp;
use crate::federation::config::ServerConfig;
use crate::federation::pages::{CacheHint, all_pages};
use crate::federation::redact::Redactor;

pub use crate::federation::pages::MAX_PAGES;

/// The tools `server` serves (after its allowed and hidden lists), in the order it listed
/// them.
///
/// # Errors
///
/// A sentence naming the cause (the server's secrets removed by `redactor`): a page failed or took longer than the startup timeout, a
/// cursor repeated, more than [`MAX_PAGES`] pages, a tool that cannot be converted.
pub(crate) async fn import(
    server: &ServerConfig,
    redactor: &Redactor,
    peer: &Peer<RoleClient>,
) -> Result<Vec<Tool>, String> {
    let (listed, _hint) = all_pages(
        "tools/list",
        server.timeouts.startup,
        "startupTimeout",
        redactor,
        |cursor| async move {
            let params = PaginatedRequestParams::default().with_cursor(cursor);
            let page = peer.list_tools(Some(params)).await?;
            Ok((page.tools, page.next_cursor, CacheHint::default()))
        },
    )
    .await?;
    let mut tools = Vec::new();
    for listed in listed {
        if !server.serves(&listed.name) {
            continue;
        }
        let name = listed.name.to_string();
        let mut tool = Tool::from_rmcp(listed).map_err(|err| format!("tool {name:?}: {err}"))?;
        tool.namespace = Some(server.name.clone());
        tool.backends = vec![Backend::mcp(&server.name)];
        tools.push(tool);
    }
    Ok(tools)
}
