//! Routing to tasks that live on another server (the tasks extension,
//! `io.modelcontextprotocol/tasks`, SEP-2663), a gateway's upstreams: a `ToolboxServer` with
//! `UpstreamTasks` installed (`upstream_tasks.rs`; `ToolboxServer::gateway`,
//! feature `federation`, installs the federation's)
//! hands them, instead of running a task of its own:
//!
//! - a `tools/call` whose request declares the extension (its `_meta`, or `initialize`), of a
//!   tool they say they [`forward`](UpstreamTasks::forwards): what comes back (a
//!   `CreateTaskResult`, an `InputRequiredResult` or a result) is the answer;
//! - `tasks/get`, `tasks/update` and `tasks/cancel` of a task ID they
//!   [name](UpstreamTasks::names), and of any task ID while the server has no task of its own
//!   (they answer `-32602` for an ID that names no task).
//!
//! The server advertises the extension while they [offer](UpstreamTasks::offered) it.
//! `rmcp` has already answered `-32021` to a `tasks/*` request that does not declare it.

use rmcp::{
    ErrorData, RoleServer,
    model::{
        CallToolRequestParams, CallToolResponse, ClientCapabilities, ServerCapabilities,
        TASKS_EXTENSION_ID,
    },
    service::RequestContext,
};
use toolmodel::{ProtocolVersion, Toolbox};

use crate::convert::message;

use super::{
    running_tasks::owner::owner,
    tool_call,
    toolbox_server::ToolboxServer,
    upstream_tasks::{Requester, UpstreamTasks},
};

impl ToolboxServer {
    /// Who sends the request, when its client capabilities declare the extension.
    fn declaring(&self, context: &RequestContext<RoleServer>) -> Option<Requester> {
        let capabilities = context
            .client_capabilities()
            .filter(ClientCapabilities::supports_tasks)?;
        Some(Requester {
            capabilities,
            owner: owner(tool_call::caller(context)),
            sealer: self.sealer.clone(),
        })
    }

    /// Hands this server's tasks of other servers to `tasks` (the first ones given; later
    /// ones are ignored).
    #[cfg(feature = "federation")]
    pub(crate) fn route_tasks_upstream(&self, tasks: std::sync::Arc<dyn UpstreamTasks>) {
        // The first installed stays: every clone and session shares it.
        let _first = self.upstream_tasks.set(tasks);
    }

    /// `capabilities` with the extension advertised while an upstream offers it.
    pub(super) fn upstream_task_capabilities(
        &self,
        mut capabilities: ServerCapabilities,
    ) -> ServerCapabilities {
        if self
            .upstream_tasks
            .get()
            .is_some_and(|tasks| tasks.offered())
        {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .entry(TASKS_EXTENSION_ID.to_owned())
                .or_default();
        }
        capabilities
    }

    /// The answer of the upstream for a `tools/call` of a forwarded tool whose request
    /// declares the extension (or the `isError` result naming every violation of its
    /// arguments, which then never leave, as on a call this server runs); `None`: the call is
    /// this server's.
    pub(super) async fn call_tool_upstream(
        &self,
        toolbox: &Toolbox,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
    ) -> Option<Result<CallToolResponse, ErrorData>> {
        let tasks = self.upstream_tasks.get()?;
        let tool = toolbox.get(&request.name)?;
        if !tasks.forwards(tool) {
            return None;
        }
        let from = self.declaring(context)?;
        let mut request = request.clone();
        if let Some(refused) = refused_arguments(toolbox, &mut request) {
            return Some(refused);
        }
        Some(tasks.call_tool(tool, request, from).await)
    }

    /// The upstream tasks that answer for `task_id`, with who asks; `None`:
    /// the task is this server's.
    pub(super) fn upstream_task(
        &self,
        task_id: &str,
        context: &RequestContext<RoleServer>,
    ) -> Option<(&dyn UpstreamTasks, Requester)> {
        let tasks = self.upstream_tasks.get()?;
        if !tasks.names(task_id) && self.tasks.enabled() {
            return None;
        }
        Some((tasks.as_ref(), self.declaring(context)?))
    }
}

/// The `isError` result for the arguments of `request` when they fail the `inputSchema` its
/// tool has in `toolbox` (checked in place: the arguments stay in the request); `None` when
/// they pass. The tasks extension is MCP 2026-07-28's, so the result carries `resultType`.
fn refused_arguments(
    toolbox: &Toolbox,
    request: &mut CallToolRequestParams,
) -> Option<Result<CallToolResponse, ErrorData>> {
    let given = request.arguments.take();
    let had = given.is_some();
    let arguments = serde_json::Value::Object(given.unwrap_or_default());
    let checked = toolbox.check_arguments(&request.name, &arguments);
    if let (true, serde_json::Value::Object(arguments)) = (had, arguments) {
        request.arguments = Some(arguments);
    }
    match checked {
        Ok(None) => None,
        Ok(Some(refused)) => Some(
            message::result_to_rmcp(refused, ProtocolVersion::V2026_07_28)
                .map(CallToolResponse::Complete),
        ),
        Err(err) => Some(Err(message::error_data(err))),
    }
}
