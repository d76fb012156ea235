//! The tools a server serves: [`ToolList`], a toolbox and what is derived from it, and
//! [`ServedTools`], the slot every clone and session of a server reads it from and
//! `ToolboxServer::set_toolbox` replaces it in.
//!
//! A request takes the list served when it starts and keeps it to its end, so a replacement
//! never changes a request half way: a `tools/call` in flight finishes on the toolbox it
//! started with.

use std::{collections::HashMap, sync::Arc};

use rmcp::model::Tool as RmcpTool;
use toolmodel::Toolbox;

use toolmodel::Caller;

use super::tool_policy::{PolicyViews, ToolPolicy, View};
use super::tool_search::{Disclosed, synthetic::is_synthetic};
use crate::convert::to_rmcp_lossy;
use crate::reloadable::Reloadable;

/// A toolbox and its tools as `rmcp` holds them; never changed once built.
#[derive(Debug)]
pub(crate) struct ToolList {
    pub(crate) toolbox: Toolbox,
    /// Each listed tool as `rmcp` holds it, by MCP name, converted once: `rmcp` asks for a
    /// tool's `inputSchema` on every Streamable HTTP request (`get_tool`), and converting the
    /// tool each time would copy its schemas on every call.
    rmcp_tools: HashMap<String, RmcpTool>,
    /// What the toolbox is listed as while tool search discloses it (`tool_search`).
    pub(crate) disclosed: Option<Arc<Disclosed>>,
    /// What the toolbox looks like to each set of a [`ToolPolicy`]'s rules, built on first
    /// use and dropped with the toolbox.
    views: PolicyViews,
    /// Each listed tool's ID (`namespace.name`, or `name`) and the length of its namespace,
    /// by MCP name: what rate limits count a call under.
    ids: HashMap<String, (String, usize)>,
}

impl ToolList {
    fn new(toolbox: Toolbox, disclosed: Option<Arc<Disclosed>>) -> Self {
        let rmcp_tools = toolbox
            .tools()
            .iter()
            .map(|tool| (tool.name.clone(), to_rmcp_lossy(tool).0))
            .collect();
        let ids = toolbox
            .tools()
            .iter()
            .zip(toolbox.definitions())
            .map(|(listed, definition)| {
                let id = match &definition.namespace {
                    Some(namespace) => {
                        (format!("{namespace}.{}", definition.name), namespace.len())
                    }
                    None => (definition.name.clone(), 0),
                };
                (listed.name.clone(), id)
            })
            .collect();
        Self {
            toolbox,
            rmcp_tools,
            disclosed,
            views: PolicyViews::default(),
            ids,
        }
    }

    /// The ID (`server.tool`) of the tool served as `name` and its upstream (the namespace:
    /// the server's name for a gateway's tool, empty for a local tool without one).
    pub(crate) fn tool_id(&self, name: &str) -> Option<(&str, &str)> {
        self.ids
            .get(name)
            .map(|(id, namespace)| (id.as_str(), id.get(..*namespace).unwrap_or_default()))
    }

    /// What the toolbox looks like to `caller` under `policy`; `None` when that cannot be
    /// built.
    pub(crate) fn view(
        &self,
        policy: &Arc<ToolPolicy>,
        caller: Option<&Caller>,
    ) -> Option<Arc<View>> {
        self.views.view(
            policy,
            caller,
            &self.toolbox,
            self.disclosed.as_ref().map(|disclosed| &disclosed.listing),
        )
    }

    /// The tool named `name` as `rmcp` holds it (without `execution` and unknown keys: see
    /// [`convert`](crate::convert)); while the toolbox is disclosed, `search_tools` and
    /// `call_tool` are the server's.
    pub(crate) fn rmcp_tool(&self, name: &str) -> Option<RmcpTool> {
        if let Some(disclosed) = &self.disclosed
            && is_synthetic(name)
        {
            return disclosed
                .listing
                .get(name)
                .map(|tool| to_rmcp_lossy(tool).0);
        }
        self.rmcp_tools.get(name).cloned()
    }
}

/// The [`ToolList`] served now, shared by every clone of a server; replaced whole (a
/// [`Reloadable`]: a request takes the list it starts with and keeps it).
#[derive(Clone, Debug)]
pub(crate) struct ServedTools(Reloadable<ToolList>);

impl ServedTools {
    pub(crate) fn new(toolbox: Toolbox) -> Self {
        Self(Reloadable::new(ToolList::new(toolbox, None)))
    }

    /// The list served now; whoever holds it keeps it as it is.
    pub(crate) fn current(&self) -> Arc<ToolList> {
        self.0.get()
    }

    /// Serves `toolbox` from now on, listed as `disclosed` when tool search discloses it.
    pub(crate) fn replace(&self, toolbox: Toolbox, disclosed: Option<Arc<Disclosed>>) {
        self.0.set(ToolList::new(toolbox, disclosed));
    }
}

#[cfg(test)]
mod tests {
    use toolmodel::{CallToolResult, Tool, ToolSchema};

    use super::*;

    fn toolbox(names: &[&str]) -> Toolbox {
        let mut builder = Toolbox::builder();
        for name in names {
            builder = builder
                .with_tool(Tool::new(*name, ToolSchema::empty_object()), |_, _| async {
                    Ok(CallToolResult::text("ok"))
                });
        }
        builder.build().unwrap()
    }

    #[test]
    fn a_replacement_reaches_every_clone_and_spares_the_list_held() {
        let served = ServedTools::new(toolbox(&["a"]));
        let clone = served.clone();
        let held = served.current();
        served.replace(toolbox(&["b", "c"]), None);
        assert_eq!(clone.current().toolbox.len(), 2);
        assert!(clone.current().rmcp_tool("b").is_some());
        assert!(clone.current().rmcp_tool("a").is_none());
        assert_eq!(held.toolbox.len(), 1);
        assert!(held.rmcp_tool("a").is_some());
    }
}
