//! Importing an upstream's tools: every page of `tools/list` (MCP "Pagination"), each tool as
//! the server sent it, with the server's name as its `namespace` and a
//! [`Backend::Mcp`] binding to the server.
//!
//! The pages are bounded: at most [`MAX_PAGES`], each within the server's startup timeout,
//! and a cursor the server already sent ends the import with an error instead of a loop.
//! What rmcp 3.11 forgets when it reads a tool (`execution`, unknown keys: see
//! [`convert`](crate::convert)) is not there to keep.

use std::collections::HashSet;

use rmcp::{model::PaginatedRequestParams, service::Peer, service::RoleClient};
use toolmodel::{Backend, Tool};

use crate::convert::FromRmcp;
use crate::federation::config::ServerConfig;

/// The most `tools/list` pages read from one server.
pub const MAX_PAGES: usize = 100;

/// The tools `server` serves (after its allowed and hidden lists), in the order it listed
/// them.
///
/// # Errors
///
/// A sentence naming the cause: a page failed or took longer than the startup timeout, a
/// cursor repeated, more than [`MAX_PAGES`] pages, a tool that cannot be converted.
pub(crate) async fn import(
    server: &ServerConfig,
    peer: &Peer<RoleClient>,
) -> Result<Vec<Tool>, String> {
    let mut tools = Vec::new();
    let mut cursor: Option<String> = None;
    let mut seen = HashSet::new();
    for _ in 0..MAX_PAGES {
        let params = PaginatedRequestParams::default().with_cursor(cursor.clone());
        let page = tokio::time::timeout(server.timeouts.startup, peer.list_tools(Some(params)))
            .await
            .map_err(|_| {
                format!(
                    "no answer to tools/list within {} ms (startupTimeout)",
                    server.timeouts.startup.as_millis()
                )
            })?
            .map_err(|err| format!("tools/list failed: {err}"))?;
        for listed in page.tools {
            if !server.serves(&listed.name) {
                continue;
            }
            let name = listed.name.to_string();
            let mut tool =
                Tool::from_rmcp(listed).map_err(|err| format!("tool {name:?}: {err}"))?;
            tool.namespace = Some(server.name.clone());
            tool.backends = vec![Backend::mcp(&server.name)];
            tools.push(tool);
        }
        match page.next_cursor {
            None => return Ok(tools),
            Some(next) if !seen.insert(next.clone()) => {
                return Err(format!(
                    "tools/list sent the cursor {next:?} twice: stopped instead of looping"
                ));
            }
            Some(next) => cursor = Some(next),
        }
    }
    Err(format!(
        "tools/list has more than {MAX_PAGES} pages: stopped"
    ))
}
