//! Running a task to its outcome, as the worker that holds its lease, and taking over the
//! tasks of workers that died (the tasks extension, SEP-2663, on a shared
//! [`TaskStore`](crate::tasks::TaskStore)).
//!
//! - **The lease**: while its handler runs, the worker renews its lease on the task every
//!   third of [`Tasks::lease`] (and whenever the store says the task changed); a renewal
//!   reports `tasks/cancel` from any replica, which sets the call's
//!   [`Cancellation`]. A lease the worker no longer holds (the task expired, or another worker
//!   took it over) stops the handler: its outcome would be another's.
//! - **Taking over**: every half lease, each server asks the store for tasks of other workers
//!   whose lease ran out ([`TaskStore::reclaim`](crate::tasks::TaskStore::reclaim)). A task
//!   whose tool is safe to re-run (`idempotentHint: true`; its call was stored with it) is
//!   run again here, from the start, on the toolbox served now, without a connection to its
//!   client; any other ends `failed` with [`WORKER_LOST`].

use std::{future::Future, pin::Pin, sync::Arc};

use rmcp::model::ErrorCode;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use toolmodel::{CallContext, Cancellation, ProtocolVersion};

use super::{
    Tasks,
    input::{TaskHandle, TaskPeer},
};
use tracing::Instrument as _;

use crate::telemetry::metrics;
use crate::{
    convert::message::{self, error_data},
    server::tool_list::ServedTools,
    tasks::{Lease, TaskOutcome, TaskRecord, now_ms},
};

/// The message of a task that ended because the worker running it was lost.
pub(crate) const WORKER_LOST: &str = "the worker running this task was lost (its lease ran out) \
     and its tool is not safe to re-run (no idempotentHint)";

/// A handler's run, boxed so it can move from the request into its task.
pub(crate) type Run =
    Pin<Box<dyn Future<Output = Result<toolmodel::CallToolResult, toolmodel::Error>> + Send>>;

/// What a replica needs to run a task again, stored with a task whose tool is safe to
/// re-run ([`TaskRecord::rerun`]).
#[derive(Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Rerun {
    /// The tool's name.
    pub(crate) name: String,
    /// The call's arguments.
    pub(crate) arguments: Option<Map<String, Value>>,
    /// The client's capabilities, as the request declared them.
    pub(crate) client_capabilities: Option<Value>,
    /// The request's protocol version (`2026-07-28`, ...).
    pub(crate) protocol_version: String,
}

/// The outcome of a handler's result, the result written for `version`.
fn outcome(
    result: Result<toolmodel::CallToolResult, toolmodel::Error>,
    version: ProtocolVersion,
) -> TaskOutcome {
    let failed = |error: rmcp::ErrorData| match serde_json::to_value(error) {
        Ok(Value::Object(error)) => TaskOutcome::Failed { error },
        _ => TaskOutcome::failed(ErrorCode::INTERNAL_ERROR.0, "an error that is not JSON"),
    };
    match result {
        Ok(result) => match message::result_to_rmcp(result, version) {
            Ok(result) => match serde_json::to_value(result) {
                Ok(Value::Object(result)) => TaskOutcome::Completed { result },
                _ => TaskOutcome::failed(ErrorCode::INTERNAL_ERROR.0, "a result that is not JSON"),
            },
            Err(error) => failed(error),
        },
        Err(toolmodel::Error::Cancelled) => TaskOutcome::Cancelled,
        Err(err) => failed(error_data(err)),
    }
}

/// Runs `run`, the handler of task `task_id`, to its outcome in the store, holding the
/// task's lease (see the module docs); on its own tokio task, inside its span `task.run`
/// (target `toolmodel_rmcp::tasks`), which follows from the span current at the call (the
/// request that created the task, or the reclaim loop's).
pub(crate) fn spawn(
    tasks: Tasks,
    task_id: Arc<str>,
    run: Run,
    cancellation: Cancellation,
    version: ProtocolVersion,
) {
    let owner = tasks.clone();
    let span = tracing::info_span!(
        target: "toolmodel_rmcp::tasks",
        "task.run",
        otel.name = "task.run",
        toolmodel.task.id = %task_id,
        toolmodel.task.status = tracing::field::Empty,
    );
    span.follows_from(tracing::Span::current());
    let running = Running::start();
    let run_span = span.clone();
    owner.running().spawn(async move {
        let _running = running;
        let store = tasks.store().clone();
        let lease = tasks.lease();
        let renew_every = lease / 3;
        let mut changes = store.changes();
        let mut run = run;
        let mut cancel_seen = false;
        let result = loop {
            tokio::select! {
                result = &mut run => break Some(result),
                () = changes.wait(&task_id, renew_every) => {
                    let until = now_ms().saturating_add(lease_ms(lease));
                    match store.renew(&task_id, tasks.worker(), until).await {
                        Ok(Lease::Held { cancel_requested }) => {
                            if cancel_requested && !cancel_seen {
                                cancel_seen = true;
                                cancellation.cancel();
                            }
                        }
                        Ok(Lease::Lost) => break None,
                        // The store is out of reach: go on, the next renewal tries again.
                        Err(err) => tracing::warn!(
                            target: "toolmodel_rmcp::tasks",
                            task = %task_id,
                            error = %err,
                            "the task store is out of reach: the task's lease was not renewed"
                        ),
                    }
                }
            }
        };
        let Some(result) = result else {
            tracing::info!(
                target: "toolmodel_rmcp::tasks",
                task = %task_id,
                "the task's lease was lost: another replica runs it"
            );
            return;
        };
        let outcome = outcome(result, version);
        let status = match &outcome {
            TaskOutcome::Completed { .. } => "completed",
            TaskOutcome::Failed { .. } => "failed",
            TaskOutcome::Cancelled => "cancelled",
        };
        run_span.record("toolmodel.task.status", status);
        metrics::task_finished(status);
        // A store out of reach for a moment: a few tries, then the lease runs out and another
        // replica ends the task.
        for attempt in 0..3_u32 {
            if store.finish(&task_id, outcome.clone()).await.is_ok() {
                return;
            }
            tokio::time::sleep(renew_every * (attempt + 1)).await;
        }
        tracing::warn!(
            target: "toolmodel_rmcp::tasks",
            task = %task_id,
            "the task store is out of reach: the task's outcome was not stored (another replica ends it when its lease runs out)"
        );
    }.instrument(span));
}

/// A task running on this replica, for `toolmodel.tasks.running`: counted from its start to
/// its end, however it ends.
struct Running;

impl Running {
    fn start() -> Self {
        metrics::task_running(1);
        Self
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        metrics::task_running(-1);
    }
}

fn lease_ms(lease: std::time::Duration) -> u64 {
    u64::try_from(lease.as_millis()).unwrap_or(u64::MAX)
}

/// The loop that takes over lost tasks for `tasks`, running their handlers on `tools` (see
/// the module docs). Started once per server, at its first task request.
pub(crate) fn keep_reclaiming(tasks: Tasks, tools: ServedTools) {
    // The loop holds the tasks weakly: they own it (and abort it when dropped).
    let weak = tasks.downgrade();
    let every = tasks.lease() / 2;
    tasks.running().spawn(async move {
        let lost = TaskOutcome::failed(ErrorCode::INTERNAL_ERROR.0, WORKER_LOST);
        loop {
            tokio::time::sleep(every).await;
            let Some(tasks) = Tasks::upgrade(&weak) else {
                return;
            };
            let now = now_ms();
            let until = now.saturating_add(lease_ms(tasks.lease()));
            let Ok(claimed) = tasks
                .store()
                .reclaim(tasks.worker(), now, until, lost.clone())
                .await
            else {
                continue;
            };
            for record in claimed {
                rerun(&tasks, &tools, record).await;
            }
        }
    });
}

/// Runs a task taken over from a lost worker again, from the start; a task whose stored
/// call cannot be read ends `failed`.
async fn rerun(tasks: &Tasks, tools: &ServedTools, record: TaskRecord) {
    let task_id: Arc<str> = Arc::from(record.task.task_id.as_str());
    let call = record
        .rerun
        .and_then(|call| serde_json::from_value::<Rerun>(call).ok());
    let Some(call) = call else {
        let _ = tasks
            .store()
            .finish(
                &task_id,
                TaskOutcome::failed(ErrorCode::INTERNAL_ERROR.0, WORKER_LOST),
            )
            .await;
        return;
    };
    let version = call
        .protocol_version
        .parse()
        .unwrap_or(ProtocolVersion::LATEST);
    let (peer, start) = TaskPeer::new(None);
    start.begin(TaskHandle {
        task_id: task_id.clone(),
        store: tasks.store().clone(),
    });
    let cancellation = Cancellation::new();
    let mut cx = CallContext::new()
        .with_peer(Arc::new(peer))
        .with_cancellation(cancellation.clone());
    if let Some(capabilities) = call.client_capabilities {
        cx = cx.with_client_capabilities(capabilities);
    }
    let toolbox = tools.current().toolbox.clone();
    let Rerun {
        name, arguments, ..
    } = call;
    let run: Run = Box::pin(async move {
        // Kept while the handler runs: its peer reads the task from it.
        let _start = start;
        toolbox.call(&name, arguments, &cx).await
    });
    spawn(tasks.clone(), task_id, run, cancellation, version);
}
