//! Importing an upstream's tools: every page of `tools/list` (MCP "Pagination"), each tool as
//! the server sent it, with the server's name as its `namespace` and a
//! [`Backend::Mcp`] binding to the server.
//!
//! The pages are bounded: at most [`MAX_PAGES`], each within the server's startup timeout,
//! and a cursor the server already sent ends the import with an error instead of a loop.
//! What rmcp 3.11 forgets when it reads a tool (`execution`, unknown keys: see
//! [`convert`](crate::convert)) is not there to keep.

use rmcp::{model::PaginatedRequestParams, service::Peer, service::RoleClient};
use toolmodel::{Backend, DefaultValidator, Tool};

use crate::convert::TryFromRmcp;
use crate::federation::config::UpstreamConfig;
use crate::federation::pages::{CacheHint, all_pages};
use crate::federation::redact::Redactor;

pub use crate::federation::pages::MAX_PAGES;

/// What one import gave: the tools to serve, and why each of the others is left out.
#[derive(Debug, Default)]
pub(crate) struct Imported {
    /// The tools `server` serves (after its allowed and hidden lists), in the order it listed
    /// them, each one a toolbox accepts.
    pub(crate) tools: Vec<Tool>,
    /// One sentence per tool left out because it breaks MCP's rules (its name, its schemas):
    /// the others are served all the same.
    pub(crate) warnings: Vec<String>,
}

/// The tools `server` serves (after its allowed and hidden lists), in the order it listed
/// them; a tool that cannot be read or served (an invalid name, an `inputSchema` that does
/// not compile) is left out with a warning, and the others are served.
///
/// # Errors
///
/// A sentence naming the cause (the server's secrets removed by `redactor`): a page failed
/// or took longer than the startup timeout, a cursor repeated, more than [`MAX_PAGES`] pages.
pub(crate) async fn import(
    server: &UpstreamConfig,
    redactor: &Redactor,
    peer: &Peer<RoleClient>,
) -> Result<Imported, String> {
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
    let mut imported = Imported::default();
    for listed in listed {
        if !server.serves(&listed.name) {
            continue;
        }
        let name = listed.name.to_string();
        match servable(listed, server) {
            Ok(tool) => imported.tools.push(tool),
            Err(err) => imported.warnings.push(format!(
                "tool {:?} is not served: {}",
                redactor.text(&name),
                redactor.text(&err.to_string())
            )),
        }
    }
    tracing::info!(
        target: "toolmodel_rmcp::federation",
        upstream = %server.name,
        tools = imported.tools.len(),
        left_out = imported.warnings.len(),
        "upstream tools imported"
    );
    Ok(imported)
}

/// `listed` as a tool of `server` (its name the namespace, its `requiredScopes` added), when
/// a toolbox would accept it: the checks of
/// [`ToolboxBuilder::with_tool`](toolmodel::ToolboxBuilder::with_tool) (MCP's rules, both
/// schemas compiled), so that one bad tool never fails the build of the whole toolbox.
fn servable(listed: rmcp::model::Tool, server: &UpstreamConfig) -> Result<Tool, crate::Error> {
    let mut tool = Tool::try_from_rmcp(listed)?;
    tool.namespace = Some(server.name.clone());
    tool.backends = vec![Backend::mcp(&server.name)];
    server.scope(&mut tool);
    tool.validate()?;
    let validator = DefaultValidator::new();
    validator.compile(tool.input_schema.as_value())?;
    if let Some(output) = &tool.output_schema {
        validator.compile(output.as_value())?;
    }
    Ok(tool)
}
