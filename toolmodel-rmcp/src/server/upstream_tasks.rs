//! [`UpstreamTasks`]: tasks that live on another server (the tasks extension,
//! `io.modelcontextprotocol/tasks`, SEP-2663), a gateway's upstreams; `task_route.rs` says
//! what a [`ToolboxServer`](crate::ToolboxServer) hands them, and `ToolboxServer::gateway`
//! (feature `federation`) installs the federation's.

use std::{future::Future, pin::Pin};

use rmcp::{
    ErrorData,
    model::{
        CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities,
        GetTaskParams, GetTaskResult, UpdateTaskParams,
    },
};
use toolmodel::Tool;

use crate::server::request_state::Sealer;

/// Who sends a forwarded request.
#[derive(Clone, Debug)]
#[cfg_attr(
    not(feature = "federation"),
    expect(dead_code, reason = "read by the federation's routes only")
)]
pub(crate) struct Requester {
    /// The client's capabilities, sent upstream in the request's `_meta`.
    pub(crate) capabilities: ClientCapabilities,
    /// Under authorization, the caller as the owner of the tasks it creates (`owner.rs`):
    /// its tasks' IDs are bound to it, and another caller's are unknown to it.
    pub(crate) owner: Option<String>,
    /// The server's `requestState` key, whose [`tag`](Sealer::tag)s bind a task ID to its
    /// owner: every replica holding the key reads them, no caller can forge one.
    pub(crate) sealer: Sealer,
}

/// A future of a forwarded request's answer.
pub(crate) type Forwarded<'a, T> = Pin<Box<dyn Future<Output = Result<T, ErrorData>> + Send + 'a>>;

/// Where a gateway's tasks live: its upstreams, which create them, answer for them and are
/// found again from the task ID (so that any replica of the gateway routes any task).
pub(crate) trait UpstreamTasks: std::fmt::Debug + Send + Sync + 'static {
    /// Whether an upstream offers the extension now.
    fn offered(&self) -> bool;

    /// Whether a `tools/call` of `tool` that declares the extension goes upstream.
    fn forwards(&self, tool: &Tool) -> bool;

    /// Whether `task_id` has the form of an upstream's task ID (not whether the task exists).
    fn names(&self, task_id: &str) -> bool;

    /// `request`, a call of `tool` by `from`, sent to its server. Its arguments have passed
    /// the tool's `inputSchema` already (the server checks them first).
    fn call_tool<'a>(
        &'a self,
        tool: &'a Tool,
        request: CallToolRequestParams,
        from: Requester,
    ) -> Forwarded<'a, CallToolResponse>;

    /// `tasks/get` of the task's server.
    fn get_task(&self, request: GetTaskParams, from: Requester) -> Forwarded<'_, GetTaskResult>;

    /// `tasks/update` of the task's server.
    fn update_task(&self, request: UpdateTaskParams, from: Requester) -> Forwarded<'_, ()>;

    /// `tasks/cancel` of the task's server.
    fn cancel_task(&self, request: CancelTaskParams, from: Requester) -> Forwarded<'_, ()>;
}
