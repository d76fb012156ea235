//! [`MemoryTaskStore`]: tasks in this process's memory, the default store of a server.

use std::{
    cmp::Reverse,
    collections::{BinaryHeap, HashMap},
    ops::{Deref, DerefMut},
    sync::{Arc, Mutex, MutexGuard},
};

use serde_json::{Map, Value};
use tokio::sync::broadcast;

use super::{
    record::{TaskOutcome, TaskRecord},
    store::{DEFAULT_LIVE_TASK_LIMIT, Lease, StoreFuture, TaskChanges, TaskStore, now_ms},
};
use crate::Error;
use crate::lock::lock;

/// Tasks in this process's memory, the default store of a server: every clone and session of
/// the server shares it; a second process does not see it, and its tasks are gone when the
/// process ends (use the Redis store for replicas). Expired tasks are removed by the next
/// operation, in time proportional to their number (an index by expiry, not a scan of every
/// task). Cheap to clone; clones share the tasks.
#[derive(Clone, Debug)]
pub struct MemoryTaskStore {
    tasks: Arc<Mutex<Tasks>>,
    changes: broadcast::Sender<Arc<str>>,
    limit: usize,
}

impl Default for MemoryTaskStore {
    fn default() -> Self {
        Self::new()
    }
}

impl MemoryTaskStore {
    /// An empty store keeping at most [`DEFAULT_LIVE_TASK_LIMIT`] tasks at once.
    #[must_use]
    pub fn new() -> Self {
        Self {
            tasks: Arc::default(),
            changes: broadcast::channel(1024).0,
            limit: DEFAULT_LIVE_TASK_LIMIT,
        }
    }

    /// The same store keeping at most `limit` tasks not expired yet: a `create` beyond it is
    /// [`Error::TaskLimit`].
    #[must_use]
    pub fn with_live_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// The tasks, those expired removed first.
    fn live(&self) -> MutexGuard<'_, Tasks> {
        let mut tasks = lock(&self.tasks);
        tasks.expire(now_ms());
        tasks
    }

    fn changed(&self, task_id: &str) {
        // No receiver: nobody waits on this process.
        let _ = self.changes.send(Arc::from(task_id));
    }

    fn touch(record: &mut TaskRecord) {
        record.task.last_updated_at = rmcp::task_manager::current_timestamp();
    }
}

/// The records by task ID, with an index of their expiry times (a record's `expires_at_ms` is
/// fixed when it is created).
#[derive(Debug, Default)]
struct Tasks {
    records: HashMap<String, TaskRecord>,
    /// `(expires_at_ms, task ID)` of every record created with an expiry, soonest first.
    expiries: BinaryHeap<Reverse<(u64, String)>>,
}

impl Tasks {
    /// Adds `record`, indexing its expiry.
    fn insert(&mut self, record: TaskRecord) {
        if let Some(at) = record.expires_at_ms {
            self.expiries
                .push(Reverse((at, record.task.task_id.clone())));
        }
        self.records.insert(record.task.task_id.clone(), record);
    }

    /// Removes every record whose expiry is at or before `now` (milliseconds since the epoch).
    fn expire(&mut self, now: u64) {
        while let Some(Reverse((at, _))) = self.expiries.peek() {
            if *at > now {
                break;
            }
            if let Some(Reverse((at, task_id))) = self.expiries.pop() {
                // A record created again under the same ID keeps its own expiry.
                if self
                    .records
                    .get(&task_id)
                    .is_some_and(|record| record.expires_at_ms == Some(at))
                {
                    self.records.remove(&task_id);
                }
            }
        }
    }
}

impl Deref for Tasks {
    type Target = HashMap<String, TaskRecord>;

    fn deref(&self) -> &Self::Target {
        &self.records
    }
}

impl DerefMut for Tasks {
    fn deref_mut(&mut self) -> &mut Self::Target {
        &mut self.records
    }
}

impl TaskStore for MemoryTaskStore {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        let mut tasks = self.live();
        let created = if tasks.len() >= self.limit {
            Err(Error::TaskLimit { limit: self.limit })
        } else {
            tasks.insert(record);
            Ok(())
        };
        drop(tasks);
        Box::pin(async move { created })
    }

    fn get(&self, task_id: &str) -> StoreFuture<'_, Option<TaskRecord>> {
        let found = self.live().get(task_id).cloned();
        Box::pin(async move { Ok(found) })
    }

    fn ask(
        &self,
        task_id: &str,
        requests: Map<String, Value>,
    ) -> StoreFuture<'_, Option<TaskRecord>> {
        let mut tasks = self.live();
        let found = tasks.get_mut(task_id).map(|record| {
            if record.outcome.is_none() {
                for (key, request) in requests {
                    record.input_requests.entry(key).or_insert(request);
                }
                Self::touch(record);
            }
            record.clone()
        });
        drop(tasks);
        Box::pin(async move { Ok(found) })
    }

    fn answer(&self, task_id: &str, answers: Map<String, Value>) -> StoreFuture<'_, bool> {
        let mut tasks = self.live();
        let mut changed = false;
        let known = tasks.get_mut(task_id).map(|record| {
            if record.outcome.is_some() {
                return;
            }
            for (key, answer) in answers {
                if record.input_requests.contains_key(&key) && !record.answers.contains_key(&key) {
                    record.answers.insert(key, answer);
                    changed = true;
                }
            }
            if changed {
                Self::touch(record);
            }
        });
        drop(tasks);
        if changed {
            self.changed(task_id);
        }
        Box::pin(async move { Ok(known.is_some()) })
    }

    fn cancel(&self, task_id: &str) -> StoreFuture<'_, bool> {
        let mut tasks = self.live();
        let mut changed = false;
        let known = tasks.get_mut(task_id).map(|record| {
            if record.outcome.is_none() && !record.cancel_requested {
                record.cancel_requested = true;
                Self::touch(record);
                changed = true;
            }
        });
        drop(tasks);
        if changed {
            self.changed(task_id);
        }
        Box::pin(async move { Ok(known.is_some()) })
    }

    fn finish(&self, task_id: &str, outcome: TaskOutcome) -> StoreFuture<'_, bool> {
        let mut tasks = self.live();
        let recorded = tasks.get_mut(task_id).is_some_and(|record| {
            if record.outcome.is_some() {
                return false;
            }
            record.outcome = Some(outcome);
            Self::touch(record);
            true
        });
        drop(tasks);
        if recorded {
            self.changed(task_id);
        }
        Box::pin(async move { Ok(recorded) })
    }

    fn renew(&self, task_id: &str, worker: &str, lease_until_ms: u64) -> StoreFuture<'_, Lease> {
        let mut tasks = self.live();
        let lease = match tasks.get_mut(task_id) {
            Some(record) if record.outcome.is_none() && record.worker == worker => {
                record.lease_until_ms = lease_until_ms;
                Lease::Held {
                    cancel_requested: record.cancel_requested,
                }
            }
            _ => Lease::Lost,
        };
        Box::pin(async move { Ok(lease) })
    }

    fn reclaim(
        &self,
        worker: &str,
        now_ms: u64,
        lease_until_ms: u64,
        lost: TaskOutcome,
    ) -> StoreFuture<'_, Vec<TaskRecord>> {
        let mut tasks = self.live();
        let mut claimed = Vec::new();
        let mut ended = Vec::new();
        let expired = tasks.values_mut().filter(|record| {
            record.outcome.is_none() && record.worker != worker && record.lease_until_ms < now_ms
        });
        for record in expired.take(64) {
            if record.rerun.is_some() {
                record.worker = worker.to_owned();
                record.lease_until_ms = lease_until_ms;
                Self::touch(record);
                claimed.push(record.clone());
            } else {
                record.outcome = Some(lost.clone());
                Self::touch(record);
                ended.push(record.task.task_id.clone());
            }
        }
        drop(tasks);
        for task_id in ended {
            self.changed(&task_id);
        }
        Box::pin(async move { Ok(claimed) })
    }

    fn changes(&self) -> TaskChanges {
        TaskChanges::new(&self.changes)
    }
}
