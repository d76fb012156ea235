//! [`TaskPeer`]: the [`CallPeer`] of a call that runs as a task (the tasks extension,
//! `io.modelcontextprotocol/tasks`, SEP-2663). Its notifications go through the request's
//! [`RmcpPeer`] (the same per-request rules as an ordinary call; once the task runs, one the
//! connection cannot take is dropped instead of failing the task); its input requests park
//! the task: they go to the task's `inputRequests` in the store (`tasks/get` shows
//! `input_required` on any replica), and the peer waits for `tasks/update` to answer them
//! all, woken by the store's changes, so the handler goes on where it waits instead of
//! running again.
//!
//! A task taken over from a lost worker (`worker.rs`) runs with no request and so no peer:
//! its notifications are dropped and it cannot send requests of MCP 2025-11-25 to the client
//! (`-32603`); its input goes through the store as any task's, and answers the client gave
//! before are found there.

use std::{sync::Arc, time::Duration};

use serde_json::{Map, Value};
use tokio::sync::watch;
use toolmodel::{
    Error,
    input::InputRequests,
    peer::{BoxFuture, CallPeer, LogNotification, ProgressNotification, TaskPhase},
};

use super::super::peer::RmcpPeer;
use crate::tasks::TaskStore;

/// How long a task waiting for input goes without re-reading the store when no change is
/// heard (a missed change costs at most this).
const REREAD: Duration = Duration::from_secs(1);

/// A task as its peer reads it: its ID and the store that keeps it.
#[derive(Clone)]
pub(crate) struct TaskHandle {
    pub(crate) task_id: Arc<str>,
    pub(crate) store: Arc<dyn TaskStore>,
}

/// Starts the task of a [`TaskPeer`]: hands it the task once the store has it.
pub(crate) struct TaskStart(watch::Sender<Option<TaskHandle>>);

impl TaskStart {
    /// The task exists: input from now on parks it.
    pub(crate) fn begin(&self, task: TaskHandle) {
        self.0.send_replace(Some(task));
    }
}

/// The peer of a call that runs as a task; see the module docs.
pub(crate) struct TaskPeer {
    peer: Option<RmcpPeer>,
    task: watch::Receiver<Option<TaskHandle>>,
}

impl TaskPeer {
    /// A peer over `peer` (none for a task taken over) for a task not created yet, and what
    /// starts it.
    pub(crate) fn new(peer: Option<RmcpPeer>) -> (Self, TaskStart) {
        let (start, task) = watch::channel(None);
        (Self { peer, task }, TaskStart(start))
    }

    /// The task, once it exists (input asked before waits for it: asking makes the call
    /// suspend, which creates the task).
    async fn task(&self) -> Result<TaskHandle, Error> {
        let mut task = self.task.clone();
        let started = task.wait_for(Option::is_some).await;
        // The sender is gone without a task: the call was dropped before it became one.
        let started = started.map_err(|_| Error::Cancelled)?;
        started.clone().ok_or(Error::Cancelled)
    }

    fn no_peer<T: Send + 'static>() -> BoxFuture<'static, Result<T, Error>> {
        Box::pin(async {
            Err(internal(
                "a task taken over from a lost worker has no connection to its client".to_owned(),
            ))
        })
    }
}

/// A notification sent by a call in `phase`: once the task runs, the client follows it by
/// `tasks/get` and its `tools/call` has had its answer, so a notification with nowhere to go
/// (a Streamable HTTP response that has ended) is dropped rather than failing the task.
/// Before the task exists, its error is the handler's, as in an ordinary call.
fn best_effort(
    phase: TaskPhase,
    sent: BoxFuture<'_, Result<(), Error>>,
) -> BoxFuture<'_, Result<(), Error>> {
    Box::pin(async move {
        match sent.await {
            Err(_) if phase == TaskPhase::Running => Ok(()),
            other => other,
        }
    })
}

fn internal(message: String) -> Error {
    Error::Protocol {
        code: -32603,
        message,
        data: None,
    }
}

impl CallPeer for TaskPeer {
    fn progress(&self, notification: ProgressNotification) -> BoxFuture<'_, Result<(), Error>> {
        match &self.peer {
            Some(peer) => best_effort(self.task_phase(), peer.progress(notification)),
            None => Box::pin(async { Ok(()) }),
        }
    }

    fn log(&self, notification: LogNotification) -> BoxFuture<'_, Result<(), Error>> {
        match &self.peer {
            Some(peer) => best_effort(self.task_phase(), peer.log(notification)),
            None => Box::pin(async { Ok(()) }),
        }
    }

    fn create_message(&self, params: Value) -> BoxFuture<'_, Result<Value, Error>> {
        match &self.peer {
            Some(peer) => peer.create_message(params),
            None => Self::no_peer(),
        }
    }

    fn elicit(&self, params: Value) -> BoxFuture<'_, Result<Value, Error>> {
        match &self.peer {
            Some(peer) => peer.elicit(params),
            None => Self::no_peer(),
        }
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<Value, Error>> {
        match &self.peer {
            Some(peer) => peer.list_roots(),
            None => Self::no_peer(),
        }
    }

    fn sleep(&self, duration: Duration) -> Option<BoxFuture<'static, ()>> {
        Some(Box::pin(tokio::time::sleep(duration)))
    }

    fn task_phase(&self) -> TaskPhase {
        if self.task.borrow().is_some() {
            TaskPhase::Running
        } else {
            TaskPhase::NotStarted
        }
    }

    /// Every request of `requests` in the task's `inputRequests` at once (a client may
    /// answer them one `tasks/update` at a time), and their answers once all are in. A
    /// cancelled, ended or expired task stops the wait with [`Error::Cancelled`].
    fn input<'a>(
        &'a self,
        requests: &'a InputRequests,
    ) -> BoxFuture<'a, Result<Map<String, Value>, Error>> {
        Box::pin(async move {
            let task = self.task().await?;
            let keys: Vec<String> = requests.iter().map(|(key, _)| key.to_owned()).collect();
            let asked: Map<String, Value> = requests
                .iter()
                .map(|(key, request)| (key.to_owned(), request.to_json()))
                .collect();
            let store_failed = |err: crate::Error| internal(err.to_string());
            // Listening before the first read: no answer between the two is missed.
            let mut changes = task.store.changes();
            let mut record = task
                .store
                .ask(&task.task_id, asked)
                .await
                .map_err(store_failed)?;
            loop {
                let Some(current) = record else {
                    return Err(Error::Cancelled);
                };
                if current.cancel_requested || current.outcome.is_some() {
                    return Err(Error::Cancelled);
                }
                if keys.iter().all(|key| current.answers.contains_key(key)) {
                    return Ok(keys
                        .iter()
                        .filter_map(|key| {
                            current
                                .answers
                                .get(key)
                                .map(|answer| (key.clone(), answer.clone()))
                        })
                        .collect());
                }
                changes.wait(&task.task_id, REREAD).await;
                record = task.store.get(&task.task_id).await.map_err(store_failed)?;
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn closed() -> BoxFuture<'static, Result<(), Error>> {
        Box::pin(async { Err(internal("the transport closed".to_owned())) })
    }

    #[tokio::test]
    async fn notifications_fail_a_call_only_before_its_task_runs() {
        assert!(best_effort(TaskPhase::NotStarted, closed()).await.is_err());
        assert!(best_effort(TaskPhase::Running, closed()).await.is_ok());
        let sent: BoxFuture<'static, Result<(), Error>> = Box::pin(async { Ok(()) });
        assert!(best_effort(TaskPhase::NotStarted, sent).await.is_ok());
    }
}
