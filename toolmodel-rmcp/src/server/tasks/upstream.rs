//! [`UpstreamTasks`]: tasks that live on another server (the tasks extension,
//! `io.modelcontextprotocol/tasks`, SEP-2663), a gateway's upstreams; `task_route.rs` says
//! what a [`ToolboxServer`](crate::ToolboxServer) hands them, and `Federation::serve`
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

    /// `request`, a call of `tool` by a client with `capabilities`, sent to its server.
    fn call_tool<'a>(
        &'a self,
        tool: &'a Tool,
        request: CallToolRequestParams,
        capabilities: ClientCapabilities,
    ) -> Forwarded<'a, CallToolResponse>;

    /// `tasks/get` of the task's server.
    fn get_task(
        &self,
        request: GetTaskParams,
        capabilities: ClientCapabilities,
    ) -> Forwarded<'_, GetTaskResult>;

    /// `tasks/update` of the task's server.
    fn update_task(
        &self,
        request: UpdateTaskParams,
        capabilities: ClientCapabilities,
    ) -> Forwarded<'_, ()>;

    /// `tasks/cancel` of the task's server.
    fn cancel_task(
        &self,
        request: CancelTaskParams,
        capabilities: ClientCapabilities,
    ) -> Forwarded<'_, ()>;
}
