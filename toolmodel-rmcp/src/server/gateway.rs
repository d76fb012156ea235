//! [`ToolboxServer::gateway`]: a server wired to backends that keep its toolbox current, pass
//! prompts, resources and completion through, and hold its tasks (a `Federation` of MCP
//! servers, feature `federation`).
//!
//! [`Backends`] is the seam between `server` and `federation`: the server knows nothing of
//! sessions, upstreams or configuration files, and the federation nothing of how the server
//! lists tools, tells its sessions or routes tasks.

use std::sync::Arc;

use rmcp::ServerHandler;
use toolmodel::Toolbox;

use super::{
    list_changed::ListChanged, rate_limits::RateLimits, tool_policy::ToolPolicy,
    tool_search::Describe, toolbox_server::ToolboxServer, upstream_tasks::UpstreamTasks,
};

/// What a gateway's [`ToolboxServer`] is wired to ([`ToolboxServer::over`]).
pub(crate) trait Backends {
    /// The `rmcp` handler of what is not about tools: prompts, resources, completion.
    type Handler: ServerHandler;

    /// The toolbox now.
    fn toolbox(&self) -> Toolbox;

    /// Calls `watcher` with each toolbox built from now on.
    fn on_change(&self, watcher: Box<dyn Fn(&Toolbox) + Send + Sync>);

    /// Calls `watcher` with the backends each time their configuration is replaced, before
    /// the toolbox built from it is installed: what the server reads of the configuration
    /// ([`tool_policy`](Self::tool_policy), any section added later) is read again there.
    fn on_reconfigure(&self, watcher: Box<dyn Fn(&Self) + Send + Sync>);

    /// The handler of prompts, resources and completion.
    fn handler(&self) -> Self::Handler;

    /// Relays the backends' own announcements (`notifications/prompts/list_changed`, ...) to
    /// the sessions `sessions` holds.
    fn announce_to(&self, sessions: ListChanged);

    /// Where the tasks of the tasks extension live.
    fn tasks(&self) -> Arc<dyn UpstreamTasks>;

    /// Which tools each caller sees and may call, if the backends' configuration (the one in
    /// force now) says.
    fn tool_policy(&self) -> Option<ToolPolicy>;

    /// The rate limits of calls and requests, if the backends' configuration says.
    fn rate_limits(&self) -> Option<RateLimits>;

    /// What each upstream says of itself (its `serverInfo` `title` and `description`), by its
    /// name: what tool search finds its tools by, beside the name.
    fn descriptions(&self) -> Describe;
}

impl ToolboxServer {
    /// A gateway: a server of `federation`'s toolbox, kept current (each rebuilt toolbox is
    /// served, and the clients get `notifications/tools/list_changed`), passing the upstreams'
    /// prompts, resources, completion and announcements through, and their tasks (the tasks
    /// extension); what passes and how names, URIs and task IDs are kept apart is in the
    /// guide, [MCP servers as backends](crate::guide::mcp_backends#gateway).
    ///
    /// Each caller is served only the tools the configuration's `toolmodelPolicy` lets it see
    /// ([`with_tool_policy`](Self::with_tool_policy)), within the rate limits of its
    /// `toolmodelLimits` ([`with_rate_limits`](Self::with_rate_limits), which replaces them:
    /// [`RateLimits::shared_through_redis`] shares them across replicas); a
    /// [`Federation::reconfigure`](crate::federation::Federation::reconfigure) serves the new
    /// servers' tools and applies the new policy and limits from the next request on
    /// ([`set_tool_policy`](Self::set_tool_policy), [`set_rate_limits`](Self::set_rate_limits)),
    /// and the clients are told.
    ///
    /// Configure it further as any server (`with_server_info`, `with_allowed_hosts`,
    /// `with_authorization`, ...), then serve it. [`with_handler`](Self::with_handler) would
    /// replace the passthrough of prompts and resources.
    ///
    /// ```no_run
    /// use toolmodel_rmcp::{ToolboxServer, federation::{Federation, FederationConfig}};
    ///
    /// # async fn run() -> Result<(), toolmodel_rmcp::Error> {
    /// let federation = Federation::start(FederationConfig::from_path("mcp.json")?).await?;
    /// let listener = tokio::net::TcpListener::bind("127.0.0.1:8080")
    ///     .await
    ///     .map_err(toolmodel_rmcp::Error::Io)?;
    /// ToolboxServer::gateway(&federation).serve_http(listener).await?;
    /// federation.shutdown().await;
    /// # Ok(())
    /// # }
    /// ```
    #[cfg(feature = "federation")]
    #[must_use]
    pub fn gateway(federation: &crate::federation::Federation) -> Self {
        let mut server = Self::over(federation);
        server.redirect = federation.callbacks();
        server
    }

    /// A server wired to `backends` (see [`gateway`](Self::gateway)).
    pub(crate) fn over<B: Backends>(backends: &B) -> Self {
        let server = Self::new(backends.toolbox()).with_handler(backends.handler());
        backends.announce_to(server.list_changed.clone());
        server.route_tasks_upstream(backends.tasks());
        server.search.describe_with(backends.descriptions());
        let watcher = server.clone();
        backends.on_reconfigure(Box::new(move |backends| {
            watcher.set_tool_policy(backends.tool_policy());
            watcher.set_rate_limits(backends.rate_limits());
        }));
        let watcher = server.clone();
        backends.on_change(Box::new(move |toolbox| {
            watcher.set_toolbox(toolbox.clone());
        }));
        // A rebuild or a reconfiguration before the watchers were there is not missed.
        server.set_tool_policy(backends.tool_policy());
        server.set_rate_limits(backends.rate_limits());
        server.set_toolbox(backends.toolbox());
        server
    }
}
