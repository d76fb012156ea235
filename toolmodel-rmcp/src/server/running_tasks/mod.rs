//! The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) on a
//! [`crate::tasks::TaskStore`]: a `tools/call` of a tool that declares task support
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
//! in `tool_call.rs`: the request's `_meta`, its client capabilities, its log level, its input
//! rounds), with a peer that runs it as a task (`input.rs`); `task_call.rs` starts it, and
//! `worker.rs` runs it to its outcome (holding its lease) and takes over the tasks of workers
//! that died.
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
//!   `tasks/update` at a time, on any replica, unknown or answered keys ignored), and when all
//!   are answered the handler goes on where it waited. It is not run again (unlike input
//!   rounds): a task keeps running, so nothing before the `input` is repeated, and the answers
//!   stay in the store (no `requestState`). A key asked again in the same task gets the
//!   answer it got.
//! - [`CallContext::input_before_task`](toolmodel::CallContext::input_before_task), asked
//!   before the handler's first suspension under MCP 2026-07-28, is answered by **input
//!   rounds on the `tools/call` itself**: an `InputRequiredResult` (no task yet; a sealed
//!   `requestState` as for any call), the handler runs again on the retry, and the retry that
//!   has every answer gets the `CreateTaskResult` (which never carries `requestState`).
//!
//! **A task is its creator's** under authorization
//! ([`with_authorization`](crate::ToolboxServer::with_authorization)): the task records the
//! verified caller's issuer and subject (`owner.rs`), and `tasks/get`, `tasks/update` and
//! `tasks/cancel` from another caller, or from none, get `-32602` as for an unknown task.
//!
//! `tasks/cancel` sets the call's [`Cancellation`](toolmodel::Cancellation) and wakes a task
//! waiting for input (its `input` returns [`ToolError::Cancelled`](toolmodel::ToolError)). A
//! handler that stops on cancellation ([`toolmodel::Error::Cancelled`]) settles the task as
//! `cancelled`; a tool error (`isError`) as `completed` with that result; a protocol error as
//! `failed` with the JSON-RPC error inlined. Tasks live in the server's store (memory unless
//! [`with_task_store`](crate::ToolboxServer::with_task_store) says otherwise), shared by
//! every session and clone of the server (and, in a shared store, by every replica), for
//! `rmcp`'s default TTL (5 minutes, `ttlMs`), with unguessable IDs; a store that keeps its
//! limit of tasks already refuses a new one (`-32603`, [`Error::TaskLimit`](crate::Error)).

use std::{
    sync::{
        Arc, OnceLock,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use rmcp::{
    ErrorData,
    model::{
        CancelTaskParams, GetTaskParams, GetTaskResult, ServerCapabilities, TASKS_EXTENSION_ID,
        UpdateTaskParams,
    },
};
use toolmodel::{Caller, Toolbox, model::TaskSupport};

use super::tool_list::ServedTools;
use crate::task_set::TaskSet;
use crate::tasks::{MemoryTaskStore, TaskRecord, TaskStore, new_task_id};

pub(crate) mod input;
pub(crate) mod owner;
pub(crate) mod worker;

/// How long a worker's lease on a task lasts unless the server says otherwise
/// ([`with_task_lease`](crate::ToolboxServer::with_task_lease)).
pub(crate) const DEFAULT_LEASE: Duration = Duration::from_secs(10);

/// The tasks of a server, shared by every clone and session: off until a toolbox it serves
/// has a tool that supports them, then on for good.
#[derive(Clone)]
pub(crate) struct Tasks(Arc<Inner>);

pub(super) struct Inner {
    enabled: AtomicBool,
    store: Arc<dyn TaskStore>,
    /// This server's name as a worker in the store: random, one per `Tasks`.
    worker: String,
    lease: Duration,
    /// Set once the loop that takes over lost tasks runs (`worker.rs`).
    reclaiming: OnceLock<()>,
    /// The tasks' runs and the reclaim loop, aborted when the last server holding these
    /// tasks is dropped.
    running: TaskSet,
}

impl Default for Tasks {
    fn default() -> Self {
        Self::new(Arc::new(MemoryTaskStore::new()), DEFAULT_LEASE, false)
    }
}

impl std::fmt::Debug for Tasks {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Tasks")
            .field("enabled", &self.enabled())
            .field("store", &self.0.store)
            .field("worker", &self.0.worker)
            .finish_non_exhaustive()
    }
}

impl Tasks {
    fn new(store: Arc<dyn TaskStore>, lease: Duration, enabled: bool) -> Self {
        // No random bytes: a worker name from the clock, still unique enough per process.
        let worker = new_task_id().unwrap_or_else(|_| format!("w{}", crate::tasks::now_ms()));
        Self(Arc::new(Inner {
            enabled: AtomicBool::new(enabled),
            store,
            worker,
            lease,
            reclaiming: OnceLock::new(),
            running: TaskSet::default(),
        }))
    }

    /// The same tasks (on or off) on `store` instead, a new worker.
    pub(crate) fn with_store(&self, store: Arc<dyn TaskStore>) -> Self {
        Self::new(store, self.0.lease, self.enabled())
    }

    /// The same tasks with leases of `lease`, a new worker.
    pub(crate) fn with_lease(&self, lease: Duration) -> Self {
        Self::new(self.0.store.clone(), lease, self.enabled())
    }

    /// Whether this server runs tasks of its own.
    pub(crate) fn enabled(&self) -> bool {
        self.0.enabled.load(Ordering::Relaxed)
    }

    pub(crate) fn store(&self) -> &Arc<dyn TaskStore> {
        &self.0.store
    }

    pub(crate) fn worker(&self) -> &str {
        &self.0.worker
    }

    /// Where the tasks' runs and the reclaim loop are spawned (`worker.rs`).
    pub(super) fn running(&self) -> &TaskSet {
        &self.0.running
    }

    /// The same tasks, held weakly (by the reclaim loop, which they own).
    pub(super) fn downgrade(&self) -> std::sync::Weak<Inner> {
        Arc::downgrade(&self.0)
    }

    /// The tasks a weak handle points to, while a server holds them.
    pub(super) fn upgrade(weak: &std::sync::Weak<Inner>) -> Option<Self> {
        weak.upgrade().map(Self)
    }

    pub(crate) fn lease(&self) -> Duration {
        self.0.lease
    }

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
            self.0.enabled.store(true, Ordering::Relaxed);
        }
    }

    /// `capabilities` with the extension advertised when tasks are on.
    pub(crate) fn capabilities(&self, mut capabilities: ServerCapabilities) -> ServerCapabilities {
        if self.enabled() {
            capabilities
                .extensions
                .get_or_insert_with(Default::default)
                .insert(TASKS_EXTENSION_ID.to_owned(), Default::default());
        }
        capabilities
    }

    /// Whether calls may become tasks, taking over lost tasks from then on (the first time,
    /// on `tools`).
    pub(crate) fn active(&self, tools: &ServedTools) -> bool {
        if !self.enabled() {
            return false;
        }
        self.0
            .reclaiming
            .get_or_init(|| worker::keep_reclaiming(self.clone(), tools.clone()));
        true
    }

    fn checked(&self, tools: &ServedTools) -> Result<&Arc<dyn TaskStore>, ErrorData> {
        // rmcp answers `tasks/*` with -32601 itself when the extension is not advertised.
        if self.active(tools) {
            Ok(&self.0.store)
        } else {
            Err(ErrorData::method_not_found::<rmcp::model::GetTaskMethod>())
        }
    }

    /// The store, once the task `task_id` is known to it and visible to `caller`
    /// ([`owner::visible_to`]); else `-32602` as for an unknown task, whether it exists or not.
    async fn visible(
        &self,
        tools: &ServedTools,
        task_id: &str,
        caller: Option<&Caller>,
    ) -> Result<(&Arc<dyn TaskStore>, TaskRecord), ErrorData> {
        let store = self.checked(tools)?;
        let record = store.get(task_id).await.map_err(store_error)?;
        match record {
            Some(record) if owner::visible_to(&record, caller) => Ok((store, record)),
            _ => Err(unknown_task(task_id)),
        }
    }

    /// `tasks/get` by `caller`, from whichever replica: the task as the store has it.
    pub(crate) async fn get_task(
        &self,
        tools: &ServedTools,
        request: &GetTaskParams,
        caller: Option<&Caller>,
    ) -> Result<GetTaskResult, ErrorData> {
        let (_, record) = self.visible(tools, &request.task_id, caller).await?;
        Ok(GetTaskResult::new(record.detailed().map_err(store_error)?))
    }

    /// `tasks/update` by `caller`: the answers go to the store, which wakes the worker waiting
    /// for them.
    pub(crate) async fn update_task(
        &self,
        tools: &ServedTools,
        request: UpdateTaskParams,
        caller: Option<&Caller>,
    ) -> Result<(), ErrorData> {
        let (store, _) = self.visible(tools, &request.task_id, caller).await?;
        let answers = request.input_responses.into_iter().collect();
        let known = store
            .answer(&request.task_id, answers)
            .await
            .map_err(store_error)?;
        known
            .then_some(())
            .ok_or_else(|| unknown_task(&request.task_id))
    }

    /// `tasks/cancel` by `caller`: recorded in the store; the worker running the task hears of
    /// it.
    pub(crate) async fn cancel_task(
        &self,
        tools: &ServedTools,
        request: &CancelTaskParams,
        caller: Option<&Caller>,
    ) -> Result<(), ErrorData> {
        let (store, _) = self.visible(tools, &request.task_id, caller).await?;
        let known = store.cancel(&request.task_id).await.map_err(store_error)?;
        known
            .then_some(())
            .ok_or_else(|| unknown_task(&request.task_id))
    }
}

/// SEP-2663, "Protocol Errors": an unknown or expired `taskId` is `-32602`.
fn unknown_task(task_id: &str) -> ErrorData {
    ErrorData::invalid_params(format!("unknown task: {task_id}"), None)
}

/// A store that failed (or refused a task): `-32603` with its message.
pub(crate) fn store_error(err: crate::Error) -> ErrorData {
    ErrorData::internal_error(err.to_string(), None)
}
