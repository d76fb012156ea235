//! [`TaskSet`]: the tokio tasks a value spawns, owned by it: each is aborted when the value
//! is dropped, so none outlives what it works for (a dropped server's reclaim loop, a closed
//! child's stderr reader, a federation's retries). A spawned task's handle is never
//! discarded: it is in a set.

use std::{future::Future, sync::Mutex};

use tokio::{runtime::Handle, task::JoinSet};

use crate::lock::lock;

/// Tasks owned by one value (see the module docs). Finished tasks are reaped at each spawn,
/// so the set holds about as many as are running.
#[derive(Debug, Default)]
pub(crate) struct TaskSet(Mutex<JoinSet<()>>);

impl TaskSet {
    /// Runs `task` on the current tokio runtime, owned by this set.
    ///
    /// # Panics
    ///
    /// Outside a tokio runtime, as `tokio::spawn` does (every caller runs on one).
    pub(crate) fn spawn(&self, task: impl Future<Output = ()> + Send + 'static) {
        let mut set = lock(&self.0);
        reap(&mut set);
        set.spawn(task);
    }

    /// Runs `task` on `runtime` (a session's), owned by this set.
    pub(crate) fn spawn_on(
        &self,
        runtime: &Handle,
        task: impl Future<Output = ()> + Send + 'static,
    ) {
        let mut set = lock(&self.0);
        reap(&mut set);
        set.spawn_on(task, runtime);
    }
}

/// Drops the finished tasks' results (a panic was already reported by the runtime's hook).
fn reap(set: &mut JoinSet<()>) {
    while set.try_join_next().is_some() {}
}
