//! [`TaskRecord`]: what a [`TaskStore`](super::TaskStore) keeps of one task (the tasks
//! extension, `io.modelcontextprotocol/tasks`, SEP-2663), and [`TaskOutcome`], how it ended.
//!
//! The status a client reads (`tasks/get`) is computed from the record, never stored apart
//! from it: the outcome's when the task ended; else `input_required` while a request it asked
//! is unanswered and it was not cancelled; else `working`.

use rmcp::model::{DetailedTask, InputRequests, Task, TaskPayload, TaskStatus};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::Error;

/// How a task ended: its terminal status and, for `completed` and `failed`, its payload
/// (SEP-2663 `CompletedTask.result`, `FailedTask.error`). Stored as JSON:
/// `{"status":"completed","result":{...}}`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "status", rename_all = "snake_case")]
#[non_exhaustive]
pub enum TaskOutcome {
    /// `completed`: what the `tools/call` would have returned (a `CallToolResult`, which may
    /// have `isError: true`).
    Completed {
        /// The result, as a JSON object.
        result: Map<String, Value>,
    },
    /// `failed`: the JSON-RPC error that ended it (`code`, `message`, optional `data`).
    Failed {
        /// The error, as a JSON object.
        error: Map<String, Value>,
    },
    /// `cancelled`: the handler stopped on `tasks/cancel`.
    Cancelled,
}

impl TaskOutcome {
    /// A `failed` outcome with the JSON-RPC error `code` and `message` (no `data`).
    #[must_use]
    pub fn failed(code: i32, message: impl Into<String>) -> Self {
        let mut error = Map::new();
        error.insert("code".to_owned(), Value::from(code));
        error.insert("message".to_owned(), Value::String(message.into()));
        Self::Failed { error }
    }

    /// The terminal status of this outcome.
    #[must_use]
    pub fn status(&self) -> TaskStatus {
        match self {
            Self::Completed { .. } => TaskStatus::Completed,
            Self::Failed { .. } => TaskStatus::Failed,
            Self::Cancelled => TaskStatus::Cancelled,
        }
    }
}

/// One task as a [`TaskStore`](super::TaskStore) keeps it.
///
/// Build a new one with [`TaskRecord::new`]; a store hands back the same fields, updated by
/// what happened to the task since.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct TaskRecord {
    /// The task's base fields (SEP-2663 `Task`): `taskId`, `createdAt`, `lastUpdatedAt`,
    /// `ttlMs`, `pollIntervalMs`, `statusMessage`. Its `status` is not read: see
    /// [`status`](Self::status).
    pub task: Task,
    /// Who created the task, when the server knows (authorization,
    /// [`with_authorization`](crate::ToolboxServer::with_authorization)): the verified caller's
    /// issuer and subject as a JSON array of two strings (`["https://issuer.example","alice"]`).
    /// The server answers `tasks/get`, `tasks/update` and `tasks/cancel` of an owned task
    /// from any other caller, or from none, with `-32602` as for an unknown task (SEP-2663
    /// "Protocol Errors"). `None`: any client that has the ID.
    pub owner: Option<String>,
    /// What a replica needs to run the task again (tool name, arguments, client capabilities,
    /// protocol version), present only when the tool is safe to re-run (its
    /// `idempotentHint`): a task whose worker is lost is then run again by another worker
    /// instead of failing. Opaque to the store.
    pub rerun: Option<Value>,
    /// The worker (one server process) that runs the task and holds its lease.
    pub worker: String,
    /// Until when the worker's lease holds, in milliseconds since the Unix epoch: after that,
    /// another worker may take the task over ([`TaskStore::reclaim`](super::TaskStore::reclaim)).
    pub lease_until_ms: u64,
    /// When the task expires and is deleted, in milliseconds since the Unix epoch
    /// (`createdAt + ttlMs`); `None` for a task without TTL.
    pub expires_at_ms: Option<u64>,
    /// Every input request the task asked, by key (SEP-2663 `inputRequests`; keys are unique
    /// over the task's life).
    pub input_requests: Map<String, Value>,
    /// The answers `tasks/update` gave, by key: only for keys of `input_requests`, first
    /// answer wins.
    pub answers: Map<String, Value>,
    /// `tasks/cancel` was received.
    pub cancel_requested: bool,
    /// How the task ended; `None` while it runs.
    pub outcome: Option<TaskOutcome>,
}

impl TaskRecord {
    /// A new task `task` run by `worker`, its lease held until `lease_until_ms`; it expires
    /// `task.ttl_ms` after `now_ms` (never without TTL).
    #[must_use]
    pub fn new(task: Task, worker: impl Into<String>, now_ms: u64, lease_until_ms: u64) -> Self {
        let expires_at_ms = task.ttl_ms.map(|ttl| now_ms.saturating_add(ttl));
        Self {
            task,
            owner: None,
            rerun: None,
            worker: worker.into(),
            lease_until_ms,
            expires_at_ms,
            input_requests: Map::new(),
            answers: Map::new(),
            cancel_requested: false,
            outcome: None,
        }
    }

    /// The same record, owned by `owner` (see [`owner`](Self::owner)).
    #[must_use]
    pub fn with_owner(mut self, owner: impl Into<String>) -> Self {
        self.owner = Some(owner.into());
        self
    }

    /// The same record, safe to re-run with `call` (see [`rerun`](Self::rerun)).
    #[must_use]
    pub fn with_rerun(mut self, call: Value) -> Self {
        self.rerun = Some(call);
        self
    }

    /// The input requests not answered yet, by key.
    #[must_use]
    pub fn open_requests(&self) -> Map<String, Value> {
        self.input_requests
            .iter()
            .filter(|(key, _)| !self.answers.contains_key(*key))
            .map(|(key, request)| (key.clone(), request.clone()))
            .collect()
    }

    /// The status a client reads: the outcome's; `input_required` while a request is open and
    /// the task was not cancelled (cancelling leaves `input_required`, as `rmcp` does); else
    /// `working`.
    #[must_use]
    pub fn status(&self) -> TaskStatus {
        match &self.outcome {
            Some(outcome) => outcome.status(),
            None if !self.cancel_requested
                && self
                    .input_requests
                    .keys()
                    .any(|key| !self.answers.contains_key(key)) =>
            {
                TaskStatus::InputRequired
            }
            None => TaskStatus::Working,
        }
    }

    /// The task as `tasks/get` answers it (SEP-2663 `DetailedTask`).
    ///
    /// # Errors
    ///
    /// [`Error::TaskStore`] when a stored input request is not one `rmcp` can send.
    pub fn detailed(&self) -> Result<DetailedTask, Error> {
        let payload = match (&self.outcome, self.status()) {
            (Some(TaskOutcome::Completed { result }), _) => TaskPayload::Completed {
                result: result.clone(),
            },
            (Some(TaskOutcome::Failed { error }), _) => TaskPayload::Failed {
                error: error.clone(),
            },
            (Some(TaskOutcome::Cancelled), _) => TaskPayload::Cancelled,
            (None, TaskStatus::InputRequired) => {
                let input_requests: InputRequests =
                    serde_json::from_value(Value::Object(self.open_requests())).map_err(|err| {
                        Error::TaskStore {
                            message: format!(
                                "task {}: a stored input request is not an MCP request",
                                self.task.task_id
                            ),
                            source: Some(Box::new(err)),
                        }
                    })?;
                TaskPayload::InputRequired { input_requests }
            }
            (None, _) => TaskPayload::Working,
        };
        Ok(DetailedTask::new(self.task.clone(), payload))
    }
}
