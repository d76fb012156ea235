//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on `rmcp`'s
//! [`TaskManager`]: a `tools/call` of a tool that declares task support
//! ([`ToolExecution::task_support`](toolmodel::model::ToolExecution),
//! `#[tool(task_support = ...)]`) runs as a task when the request declares the extension; the
//! client polls it with `tasks/get`, answers its input requests with `tasks/update` and may
//! cancel it with `tasks/cancel`.
//!
//! - `"optional"`: a task when the client declared the extension in the request's
//!   capabilities (its `_meta`, or `initialize`), else an ordinary call.
//! - `"required"`: a task, and JSON-RPC `-32021` (missing required client capability, with the
//!   extension in `data.requiredCapabilities`) when the client did not declare it.
//! - `"forbidden"` or none: always an ordinary call.
//!
//! The server advertises the extension (`capabilities.extensions`) from the first toolbox it
//! serves (at `ToolboxServer::new` or `set_toolbox`) with a tool that declares `"optional"`
//! or `"required"`, and from then on: a task outlives the toolbox it started in, and a client
//! that saw the extension can poll its tasks after the toolbox is replaced.
//!
//! **A task's call** has the context of an ordinary `tools/call` (`ToolboxServer::prepare_call`
//! in `call.rs`: the request's `_meta`, its client capabilities, its log level, its input
//! rounds), with a host that runs it as a task (`task_input.rs`); `task_call.rs` starts it.
//! The handler runs on the request up to its first suspension (the first `.await` that does
//! not complete at once), then goes on in the task, which the `CreateTaskResult` names (a
//! handler that finishes at once gives a task already completed). Its progress and log
//! notifications follow the request's rules (under MCP 2026-07-28 none without
//! `io.modelcontextprotocol/logLevel`, and only at or above it).
//!
//! **Input, two ways** (SEP-2663 "MRTR and tasks"):
//!
//! - [`CallContext::input`](toolmodel::CallContext::input) in a task **parks the task and
//!   resumes it**: the requests appear in the task's `inputRequests` (`tasks/get` reports
//!   `input_required`; every request of one `input` at once, and a client may answer them one
//!   `tasks/update` at a time, unknown or answered keys ignored), and when all are answered
//!   the handler goes on where it waited. It is not run again (unlike input rounds): a task
//!   keeps running, so nothing before the `input` is repeated, and the answers stay on the
//!   server (no `requestState`). A key asked again in the same task gets the answer it got.
//! - [`CallContext::input_before_task`](toolmodel::CallContext::input_before_task), asked
//!   before the handler's first suspension under MCP 2026-07-28, is answered by **input
//!   rounds on the `tools/call` itself**: an `InputRequiredResult` (no task yet; a sealed
//!   `requestState` as for any call), the handler runs again on the retry, and the retry that
//!   has every answer gets the `CreateTaskResult` (which never carries `requestState`).
//!
//! `tasks/cancel` sets the call's [`Cancellation`](toolmodel::Cancellation) and wakes a task
//! waiting for input (its `input` returns [`ToolError::Cancelled`](toolmodel::ToolError)). A
//! handler that stops on cancellation ([`toolmodel::Error::Cancelled`]) settles the task as
//! `cancelled`; a tool error (`isError`) as `completed` with that result; a protocol error as
//! `failed` with the JSON-RPC error inlined. Tasks live in memory, shared by every session and
//! clone of the server, for `rmcp`'s default TTL (5 minutes).

use std::sync::{Arc, OnceLock};

use rmcp::{
    ErrorData,
    model::{
        CancelTaskParams, GetTaskParams, GetTaskResult, ServerCapabilities, TASKS_EXTENSION_ID,
        UpdateTaskParams,
    },
    task_manager::TaskManager,
};
use toolmodel::{Toolbox, model::TaskSupport};

/// The tasks of a server, shared by every clone and session: off until a toolbox it serves
/// has a tool that supports them, then on for good.
#[derive(Clone, Default)]
pub(crate) struct Tasks(Arc<OnceLock<TaskManager>>);

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self.0.get() {
            Some(manager) => write!(f, "Tasks({} running)", manager.running_task_count()),
            None => f.write_str("Tasks(off)"),
        }
    }
}

impl Tasks {
    /// Turns tasks on when a tool of `toolbox` declares `"optional"` or `"required"` task
    /// support; tasks already on stay on.
    pub(crate) fn enable_for(&self, toolbox: &Toolbox) {
        let supported = toolbox.tools().iter().any(|tool| {
            matches!(
                tool.execution
                    .as_ref()
                    .and_then(|execution| execution.task_support),
                Some(TaskSupport::Optional | TaskSupport::Required)
            )
        });
        if supported {
            self.0.get_or_init(TaskManager::new);
        }
    }

    /// `capabilities` with the extension advertised when tasks are on.
    pub(crate) fn capabilities(&self, mut capabilities: ServerCapabilities) -> ServerCapabilities {
        if self.0.get().is_some() {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(TASKS_EXTENSION_ID.to_owned(), Default::default());
        }
        capabilities
    }

    /// The task manager, when tasks are on.
    pub(super) fn task_manager(&self) -> Option<&TaskManager> {
        self.0.get()
    }

    fn manager(&self) -> Result<&TaskManager, ErrorData> {
        // rmcp answers `tasks/*` with -32601 itself when the extension is not advertised.
        self.0
            .get()
            .ok_or_else(ErrorData::method_not_found::<rmcp::model::GetTaskMethod>)
    }

    pub(crate) fn get_task(&self, request: &GetTaskParams) -> Result<GetTaskResult, ErrorData> {
        Ok(GetTaskResult::new(
            self.manager()?.get_task(&request.task_id)?,
        ))
    }

    pub(crate) fn update_task(&self, request: UpdateTaskParams) -> Result<(), ErrorData> {
        self.manager()?
            .update_task(&request.task_id, request.input_responses)
    }

    pub(crate) fn cancel_task(&self, request: &CancelTaskParams) -> Result<(), ErrorData> {
        self.manager()?.cancel_task(&request.task_id)
    }
}
