//! [`TaskStore`]: where a server keeps its tasks (the tasks extension,
//! `io.modelcontextprotocol/tasks`, SEP-2663), one small async trait over two stores:
//! [`MemoryTaskStore`](super::MemoryTaskStore) for one process and, with the `redis` feature,
//! `RedisTaskStore` for replicas; and [`TaskChanges`], how the worker that runs a task hears of
//! `tasks/update` and `tasks/cancel` received by any replica.

use std::{
    future::Future,
    pin::Pin,
    sync::Arc,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use serde_json::{Map, Value};
use tokio::sync::broadcast;

use super::record::{TaskOutcome, TaskRecord};
use crate::Error;

/// The future a [`TaskStore`] method returns.
pub type StoreFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, Error>> + Send + 'a>>;

/// How many tasks a store keeps at once unless told otherwise (`with_live_limit`).
pub const DEFAULT_LIVE_TASK_LIMIT: usize = 10_000;

/// What [`TaskStore::renew`] found.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Lease {
    /// The worker still holds the task, now until the time asked; `cancel_requested`: a
    /// `tasks/cancel` was received.
    Held {
        /// A `tasks/cancel` was received for the task.
        cancel_requested: bool,
    },
    /// The worker no longer holds the task: it ended, expired, or another worker took it over.
    Lost,
}

/// A store of tasks, shared by every replica that uses the same one: each operation is one
/// atomic step (in the Redis store, one round trip).
///
/// Times are milliseconds since the Unix epoch, read from the clock of the process that
/// calls; replicas sharing a store must have clocks that agree to well within a
/// lease. A task expires `ttlMs` after its creation and is then gone: every method treats it
/// as unknown.
///
/// Object safe: a server holds an `Arc<dyn TaskStore>`.
pub trait TaskStore: Send + Sync + std::fmt::Debug {
    /// Writes a new task (SEP-2663: before its `CreateTaskResult` is sent).
    ///
    /// # Errors
    ///
    /// [`Error::TaskLimit`] when the store already keeps its limit of tasks not expired yet;
    /// [`Error::TaskStore`] when the store cannot be reached.
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()>;

    /// The task `task_id`, `None` when unknown or expired.
    ///
    /// # Errors
    ///
    /// [`Error::TaskStore`] when the store cannot be reached or holds a record it cannot read.
    fn get(&self, task_id: &str) -> StoreFuture<'_, Option<TaskRecord>>;

    /// Records the input requests the task asks (keys asked before keep their first request)
    /// and returns the task as it is then; `None` when unknown. A task that ended is left as
    /// it is (SEP-2663: a terminal status is final).
    ///
    /// # Errors
    ///
    /// As [`get`](Self::get).
    fn ask(
        &self,
        task_id: &str,
        requests: Map<String, Value>,
    ) -> StoreFuture<'_, Option<TaskRecord>>;

    /// `tasks/update`: records the answers to input requests the task asked and nobody
    /// answered yet; other keys are ignored (SEP-2663). `false` when the task is unknown.
    ///
    /// # Errors
    ///
    /// [`Error::TaskStore`] when the store cannot be reached.
    fn answer(&self, task_id: &str, answers: Map<String, Value>) -> StoreFuture<'_, bool>;

    /// `tasks/cancel`: records the cancellation (cooperative: the task ends as its handler
    /// decides). `false` when the task is unknown.
    ///
    /// # Errors
    ///
    /// [`Error::TaskStore`] when the store cannot be reached.
    fn cancel(&self, task_id: &str) -> StoreFuture<'_, bool>;

    /// Ends the task with `outcome`, unless it ended already (the first outcome stays).
    /// `true` when this one was recorded.
    ///
    /// # Errors
    ///
    /// [`Error::TaskStore`] when the store cannot be reached.
    fn finish(&self, task_id: &str, outcome: TaskOutcome) -> StoreFuture<'_, bool>;

    /// Renews `worker`'s lease on the task until `lease_until_ms`, and says whether a
    /// `tasks/cancel` came; [`Lease::Lost`] when the task ended, expired or belongs to another
    /// worker now.
    ///
    /// # Errors
    ///
    /// [`Error::TaskStore`] when the store cannot be reached.
    fn renew(&self, task_id: &str, worker: &str, lease_until_ms: u64) -> StoreFuture<'_, Lease>;

    /// Takes over the tasks of other workers whose lease ran out before `now_ms` (their
    /// worker died or is cut off): a task with [`rerun`](TaskRecord::rerun) becomes
    /// `worker`'s, leased until `lease_until_ms`, and is returned to be run again; any other
    /// ends with `lost` (a `failed` outcome saying the worker was lost). At most 64 per call.
    ///
    /// # Errors
    ///
    /// [`Error::TaskStore`] when the store cannot be reached or holds a record it cannot read.
    fn reclaim(
        &self,
        worker: &str,
        now_ms: u64,
        lease_until_ms: u64,
        lost: TaskOutcome,
    ) -> StoreFuture<'_, Vec<TaskRecord>>;

    /// From now on, the IDs of tasks that got an answer, a cancellation or an outcome from
    /// [`reclaim`](Self::reclaim), on any replica sharing the store: what wakes a task's
    /// worker. An outcome from [`finish`](Self::finish) need not be reported (the worker that
    /// records it is the one that waits on the task); a store may report it all the same.
    fn changes(&self) -> TaskChanges;

    /// Whether the store can be reached now, cheaply: the readiness check of an admin
    /// listener ([`Admin::with_task_store`](crate::admin::Admin::with_task_store)). The
    /// default answers `Ok` at once (a store in memory is always there).
    ///
    /// # Errors
    ///
    /// [`Error::TaskStore`] when the store cannot be reached (the Redis store: no answer to
    /// `PING` within 1 s, or an error).
    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(async { Ok(()) })
    }
}

/// The IDs of tasks that changed (see [`TaskStore::changes`]); a hint: a change may be missed
/// (the Redis store's subscription reconnecting), so a waiter also re-reads on a timeout.
#[derive(Debug)]
pub struct TaskChanges(broadcast::Receiver<Arc<str>>);

impl TaskChanges {
    /// Changes sent on `sender` from now on.
    #[must_use]
    pub fn new(sender: &broadcast::Sender<Arc<str>>) -> Self {
        Self(sender.subscribe())
    }

    /// Waits until `task_id` changes, at most `within`.
    pub async fn wait(&mut self, task_id: &str, within: Duration) {
        let changed = async {
            loop {
                match self.0.recv().await {
                    Ok(id) if &*id == task_id => return,
                    Ok(_) => {}
                    // Missed some: one of them may be this task's.
                    Err(broadcast::error::RecvError::Lagged(_)) => return,
                    // No sender any more: nothing to wait for, the timeout re-reads.
                    Err(broadcast::error::RecvError::Closed) => {
                        std::future::pending::<()>().await;
                    }
                }
            }
        };
        let _ = tokio::time::timeout(within, changed).await;
    }
}

/// The current time in milliseconds since the Unix epoch (0 for a clock before it).
#[must_use]
pub(crate) fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |elapsed| {
            u64::try_from(elapsed.as_millis()).unwrap_or(u64::MAX)
        })
}
