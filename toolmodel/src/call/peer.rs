//! What a server implements to carry a call: the [`CallPeer`] a [`CallContext`] reaches the
//! client through (progress and log notifications, requests for input), where the call stands
//! with the tasks extension ([`TaskPhase`]), and the notifications' params.
//!
//! A handler never implements these: it calls [`CallContext::progress`], [`CallContext::log`]
//! and [`CallContext::input`], which go through the peer the server gave the context
//! ([`CallContext::with_peer`]). `toolmodel-rmcp` implements [`CallPeer`] over `rmcp`'s peer;
//! a test implements only what it checks, as every method has a default:
//!
//! ```
//! use std::sync::{Arc, Mutex};
//!
//! use serde_json::json;
//! use toolmodel::{
//!     CallContext, Error,
//!     peer::{BoxFuture, CallPeer, LoggingLevel, LogNotification},
//! };
//!
//! /// Keeps the log messages; everything else is the default.
//! #[derive(Default)]
//! struct Recorder(Mutex<Vec<LogNotification>>);
//!
//! impl CallPeer for Recorder {
//!     fn log(&self, notification: LogNotification) -> BoxFuture<'_, Result<(), Error>> {
//!         self.0.lock().unwrap().push(notification);
//!         Box::pin(async { Ok(()) })
//!     }
//! }
//!
//! let peer = Arc::new(Recorder::default());
//! let cx = CallContext::new().with_peer(peer.clone());
//! pollster::block_on(cx.log(LoggingLevel::Info, json!("hello")))?;
//! assert_eq!(peer.0.lock().unwrap()[0].data, json!("hello"));
//! # Ok::<(), Error>(())
//! ```
//!
//! [`CallContext`]: crate::CallContext
//! [`CallContext::progress`]: crate::CallContext::progress
//! [`CallContext::log`]: crate::CallContext::log
//! [`CallContext::input`]: crate::CallContext::input
//! [`CallContext::input_before_task`]: crate::CallContext::input_before_task
//! [`CallContext::with_peer`]: crate::CallContext::with_peer

use std::{fmt, future::Future, pin::Pin, time::Duration};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::call::input::{InputRequest, InputRequests};
use crate::error::Error;

/// A boxed, `Send` future: what the object-safe [`CallPeer`] methods return.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// A progress token (MCP 2025-11-25, `ProgressToken`: a string or an integer), chosen by the
/// client in the request's `_meta.progressToken`.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum ProgressToken {
    /// A string token.
    String(String),
    /// An integer token.
    Integer(i64),
}

impl fmt::Display for ProgressToken {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::String(text) => write!(f, "{text:?}"),
            Self::Integer(number) => write!(f, "{number}"),
        }
    }
}

/// The severity of a log message (MCP 2025-11-25, `LoggingLevel`: the RFC 5424 syslog
/// severities), from least to most severe.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum LoggingLevel {
    /// `debug`.
    Debug,
    /// `info`.
    Info,
    /// `notice`.
    Notice,
    /// `warning`.
    Warning,
    /// `error`.
    Error,
    /// `critical`.
    Critical,
    /// `alert`.
    Alert,
    /// `emergency`.
    Emergency,
}

/// The params of a `notifications/progress` notification (MCP 2025-11-25,
/// `ProgressNotificationParams`), serialized in that shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ProgressNotification {
    /// The request's token.
    pub progress_token: ProgressToken,
    /// Progress so far; it should increase with every notification.
    pub progress: f64,
    /// The total, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub total: Option<f64>,
    /// What is happening, for a person.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message: Option<String>,
}

/// The params of a `notifications/message` log notification (MCP 2025-11-25,
/// `LoggingMessageNotificationParams`), serialized in that shape.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct LogNotification {
    /// The severity.
    pub level: LoggingLevel,
    /// The logger's name: the tool's MCP name when sent through a [`Toolbox`](crate::Toolbox).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The message: any JSON value.
    pub data: Value,
}

/// What a server gives the handlers it calls: the way to reach the client during a call.
///
/// An MCP server implements it over its connection (`toolmodel-rmcp` does, over `rmcp`'s
/// peer); every method has a default, so a peer implements only what it supports. The
/// defaults: progress and log notifications are dropped (`Ok`), requests to the client fail
/// with [`Error::NoPeer`].
pub trait CallPeer: Send + Sync {
    /// Sends `notifications/progress`. Called only for requests that carry a progress token.
    fn progress(&self, notification: ProgressNotification) -> BoxFuture<'_, Result<(), Error>> {
        let _ = notification;
        Box::pin(async { Ok(()) })
    }

    /// Sends `notifications/message`. MCP lets the client set the lowest level it wants
    /// (`logging/setLevel`); the peer filters.
    fn log(&self, notification: LogNotification) -> BoxFuture<'_, Result<(), Error>> {
        let _ = notification;
        Box::pin(async { Ok(()) })
    }

    /// Sends `notifications/elicitation/complete` (MCP 2025-11-25, "Elicitation", URL mode
    /// completion notifications): the out-of-band interaction of the URL-mode elicitation
    /// `elicitation_id` is over, so a client that waits on it may retry or go on. The default
    /// drops it (`Ok`).
    fn elicitation_complete(&self, elicitation_id: &str) -> BoxFuture<'_, Result<(), Error>> {
        let _ = elicitation_id;
        Box::pin(async { Ok(()) })
    }

    /// Sends `sampling/createMessage` with `params` (MCP `CreateMessageRequestParams`) and
    /// returns the client's result (MCP `CreateMessageResult`).
    fn create_message(&self, params: Value) -> BoxFuture<'_, Result<Value, Error>> {
        let _ = params;
        Box::pin(async { Err(no_host("sampling/createMessage")) })
    }

    /// Sends `elicitation/create` with `params` (MCP `ElicitRequestParams`) and returns the
    /// client's result (MCP `ElicitResult`: `action` and, when accepted, `content`).
    fn elicit(&self, params: Value) -> BoxFuture<'_, Result<Value, Error>> {
        let _ = params;
        Box::pin(async { Err(no_host("elicitation/create")) })
    }

    /// Sends `roots/list` and returns the client's result (MCP `ListRootsResult`).
    fn list_roots(&self) -> BoxFuture<'_, Result<Value, Error>> {
        Box::pin(async { Err(no_host("roots/list")) })
    }

    /// A future that completes once `duration` has passed, on this peer's runtime: the timer
    /// [`Toolbox::call`](crate::Toolbox::call) races a call against to enforce the tool's
    /// [`timeout`](crate::Tool::timeout) (`toolmodel` has no runtime, so no timer of its own).
    ///
    /// `None` (the default): the peer has no timer, and a tool's `timeout` is **not
    /// enforced** for its calls (the handler runs to its end; a peer may still bound the call
    /// itself). `toolmodel-rmcp`'s peers return tokio's `sleep`.
    fn sleep(&self, duration: Duration) -> Option<BoxFuture<'static, ()>> {
        let _ = duration;
        None
    }

    /// Where the call stands with the tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663):
    /// [`TaskPhase::NoTask`] (the default) for an ordinary call. A peer that runs the call as a
    /// task says [`TaskPhase::NotStarted`] or [`TaskPhase::Running`]; then
    /// [`CallContext::input`](crate::CallContext::input) goes to [`input`](Self::input) of the peer
    /// (which parks the task in `input_required` until `tasks/update` answers) even under MCP
    /// 2026-07-28 input rounds, and
    /// [`CallContext::input_before_task`](crate::CallContext::input_before_task) does so once the
    /// task is running.
    fn task_phase(&self) -> TaskPhase {
        TaskPhase::NoTask
    }

    /// Sends every request of `requests` to the client (MCP 2025-11-25 and older:
    /// server-to-client requests) and returns each raw result under its key. The default
    /// sends them one after another, in key order, through [`elicit`](Self::elicit),
    /// [`create_message`](Self::create_message) and [`list_roots`](Self::list_roots), and
    /// stops at the first error.
    fn input<'a>(
        &'a self,
        requests: &'a InputRequests,
    ) -> BoxFuture<'a, Result<Map<String, Value>, Error>> {
        Box::pin(async move {
            let mut answers = Map::new();
            for (key, request) in requests.iter() {
                let answer = match request {
                    InputRequest::Elicit(_) => self.elicit(request.params()).await?,
                    InputRequest::CreateMessage(_) => self.create_message(request.params()).await?,
                    InputRequest::ListRoots => self.list_roots().await?,
                };
                answers.insert(key.to_owned(), answer);
            }
            Ok(answers)
        })
    }
}

/// Where a call stands with the tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663), as its
/// peer says ([`CallPeer::task_phase`]); it decides where
/// [`CallContext::input`](crate::CallContext::input) and
/// [`CallContext::input_before_task`](crate::CallContext::input_before_task) send their requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskPhase {
    /// An ordinary call: no task.
    NoTask,
    /// A call that becomes a task, whose `CreateTaskResult` is not sent yet: input asked with
    /// [`CallContext::input_before_task`](crate::CallContext::input_before_task) still goes by
    /// multi round-trip requests on the `tools/call` itself (SEP-2663: "resolve all MRTR exchanges
    /// synchronously before responding with a `CreateTaskResult`").
    NotStarted,
    /// The call runs as a task: input parks the task in `input_required` (`tasks/get` shows
    /// the `inputRequests`, `tasks/update` answers them).
    Running,
}

/// [`Error::NoPeer`] for `method`.
fn no_host(method: &str) -> Error {
    Error::NoPeer {
        method: method.to_owned(),
    }
}

/// The peer of a context built without one: every method's default.
pub(crate) struct NoPeer;

impl CallPeer for NoPeer {}
