//! [`TaskHost`]: the [`CallHost`] of a call that runs as a task (the tasks extension,
//! `io.modelcontextprotocol/tasks`, SEP-2663). Its notifications go through the request's
//! [`PeerHost`] (the same per-request rules as an ordinary call; once the task runs, one the
//! connection cannot take is dropped instead of failing the task); its input requests park
//! the task: `rmcp`'s [`TaskContext::request_input`] puts them in the task's
//! `inputRequests` (`tasks/get` shows `input_required`) and waits for `tasks/update` to
//! answer them, so the handler goes on where it waits instead of running again.

use std::{
    collections::HashMap,
    sync::{Mutex, PoisonError},
};

use rmcp::{
    model::InputRequests as RmcpInputRequests,
    task_manager::{TaskContext, TaskExit},
};
use serde_json::{Map, Value};
use tokio::{sync::watch, task::JoinSet};
use toolmodel::{
    Error,
    host::{BoxFuture, CallHost, LogNotification, ProgressNotification, TaskPhase},
    input::InputRequests,
};

use super::host::PeerHost;
use crate::convert::message::from_wire;

/// Starts the task of a [`TaskHost`]: hands it `rmcp`'s [`TaskContext`] once the task exists.
pub(crate) struct TaskStart(watch::Sender<Option<TaskContext>>);

impl TaskStart {
    /// The task exists: input from now on parks it.
    pub(crate) fn begin(&self, task: TaskContext) {
        self.0.send_replace(Some(task));
    }
}

/// The host of a call that runs as a task; see the module docs.
pub(crate) struct TaskHost {
    peer: PeerHost,
    task: watch::Receiver<Option<TaskContext>>,
    /// Every answer the client gave, by key: a key asked again is answered again (as in
    /// input rounds), never asked twice (`rmcp` refuses a key used before, per SEP-2663).
    answered: Mutex<HashMap<String, Value>>,
}

impl TaskHost {
    /// A host over `peer` for a task not created yet, and what starts it.
    pub(crate) fn new(peer: PeerHost) -> (Self, TaskStart) {
        let (start, task) = watch::channel(None);
        let host = Self {
            peer,
            task,
            answered: Mutex::new(HashMap::new()),
        };
        (host, TaskStart(start))
    }

    /// The task, once it exists (input asked before waits for it: asking makes the call
    /// suspend, which creates the task).
    async fn task(&self) -> Result<TaskContext, Error> {
        let mut task = self.task.clone();
        let started = task.wait_for(Option::is_some).await;
        // The sender is gone without a task: the call was dropped before it became one.
        let started = started.map_err(|_| Error::Cancelled)?;
        started.clone().ok_or(Error::Cancelled)
    }

    fn answered(&self) -> std::sync::MutexGuard<'_, HashMap<String, Value>> {
        self.answered.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Why `rmcp` gave no answer: `tasks/cancel` (it drops the waiting requests) or its error.
fn task_exit(exit: TaskExit) -> Error {
    match exit {
        TaskExit::Cancelled => Error::Cancelled,
        TaskExit::Error(error) => Error::Protocol {
            code: i64::from(error.code.0),
            message: error.message.into_owned(),
            data: error.data,
        },
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

impl CallHost for TaskHost {
    fn progress(&self, notification: ProgressNotification) -> BoxFuture<'_, Result<(), Error>> {
        best_effort(self.task_phase(), self.peer.progress(notification))
    }

    fn log(&self, notification: LogNotification) -> BoxFuture<'_, Result<(), Error>> {
        best_effort(self.task_phase(), self.peer.log(notification))
    }

    fn create_message(&self, params: Value) -> BoxFuture<'_, Result<Value, Error>> {
        self.peer.create_message(params)
    }

    fn elicit(&self, params: Value) -> BoxFuture<'_, Result<Value, Error>> {
        self.peer.elicit(params)
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<Value, Error>> {
        self.peer.list_roots()
    }

    fn task_phase(&self) -> TaskPhase {
        if self.task.borrow().is_some() {
            TaskPhase::Running
        } else {
            TaskPhase::NotStarted
        }
    }

    /// Every request of `requests` in the task's `inputRequests` at once (a client may
    /// answer them one `tasks/update` at a time), and their answers once all are in.
    fn input<'a>(
        &'a self,
        requests: &'a InputRequests,
    ) -> BoxFuture<'a, Result<Map<String, Value>, Error>> {
        Box::pin(async move {
            let task = self.task().await?;
            let requests: RmcpInputRequests = from_wire(requests.to_json()).map_err(|err| {
                internal(format!(
                    "inputRequests do not convert to rmcp's type: {err}"
                ))
            })?;
            let mut answers = Map::new();
            let mut asking = JoinSet::new();
            {
                let answered = self.answered();
                for (key, request) in requests {
                    if let Some(answer) = answered.get(&key) {
                        answers.insert(key, answer.clone());
                        continue;
                    }
                    let task = task.clone();
                    asking.spawn(async move {
                        let answer = task.request_input(key.clone(), request).await;
                        (key, answer)
                    });
                }
            }
            while let Some(joined) = asking.join_next().await {
                let (key, answer) =
                    joined.map_err(|err| internal(format!("an input request failed: {err}")))?;
                let answer = answer.map_err(task_exit)?;
                self.answered().insert(key.clone(), answer.clone());
                answers.insert(key, answer);
            }
            Ok(answers)
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
