//! [`CallContext`]: what a handler knows of the request it serves and what it can do beside
//! returning a result (progress, logging, requests to the client), through a [`CallHost`].

use std::{
    collections::BTreeSet,
    fmt,
    future::Future,
    pin::Pin,
    sync::{Arc, Mutex, PoisonError},
    time::Duration,
};

use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_json::{Map, Value, json};

use super::input::{
    Carried, ClientCapability, InputRequest, InputRequests, InputRequired, InputResponses,
};
use crate::call::cancellation::Cancellation;
use crate::call::tool_error::ToolError;
use crate::error::Error;
use crate::model::tool::Tool;

/// JSON-RPC code of MCP 2026-07-28 `MissingRequiredClientCapabilityError`.
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;

/// A boxed, `Send` future: what the object-safe [`CallHost`] methods return.
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
pub enum LogLevel {
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
    pub level: LogLevel,
    /// The logger's name: the tool's MCP name when sent through a [`Toolbox`](crate::Toolbox).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub logger: Option<String>,
    /// The message: any JSON value.
    pub data: Value,
}

/// What a server gives the handlers it calls: the way to reach the client during a call.
///
/// An MCP server implements it over its connection (`toolmodel-rmcp` does, over `rmcp`'s
/// peer); every method has a default, so a host implements only what it supports. The
/// defaults: progress and log notifications are dropped (`Ok`), requests to the client fail
/// with [`Error::NoHost`].
pub trait CallHost: Send + Sync {
    /// Sends `notifications/progress`. Called only for requests that carry a progress token.
    fn progress(&self, notification: ProgressNotification) -> BoxFuture<'_, Result<(), Error>> {
        let _ = notification;
        Box::pin(async { Ok(()) })
    }

    /// Sends `notifications/message`. MCP lets the client set the lowest level it wants
    /// (`logging/setLevel`); the host filters.
    fn log(&self, notification: LogNotification) -> BoxFuture<'_, Result<(), Error>> {
        let _ = notification;
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

    /// A future that completes once `duration` has passed, on this host's runtime: the timer
    /// [`Toolbox::call`](crate::Toolbox::call) races a call against to enforce the tool's
    /// [`timeout`](crate::Tool::timeout) (`toolmodel` has no runtime, so no timer of its own).
    ///
    /// `None` (the default): the host has no timer, and a tool's `timeout` is **not
    /// enforced** for its calls (the handler runs to its end; a host may still bound the call
    /// itself). `toolmodel-rmcp`'s hosts return tokio's `sleep`.
    fn sleep(&self, duration: Duration) -> Option<BoxFuture<'static, ()>> {
        let _ = duration;
        None
    }

    /// Where the call stands with the tasks extension (`io.modelcontextprotocol/tasks`,
    /// SEP-2663): [`TaskPhase::NoTask`] (the default) for an ordinary call. A host that runs
    /// the call as a task says [`TaskPhase::NotStarted`] or [`TaskPhase::Running`]; then
    /// [`CallContext::input`] goes to [`input`](Self::input) of the host (which parks the task
    /// in `input_required` until `tasks/update` answers) even under MCP 2026-07-28 input
    /// rounds, and [`CallContext::input_before_task`] does so once the task is running.
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

/// Where a call stands with the tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663),
/// as its host says ([`CallHost::task_phase`]); it decides where [`CallContext::input`] and
/// [`CallContext::input_before_task`] send their requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TaskPhase {
    /// An ordinary call: no task.
    NoTask,
    /// A call that becomes a task, whose `CreateTaskResult` is not sent yet: input asked with
    /// [`CallContext::input_before_task`] still goes by multi round-trip requests on the
    /// `tools/call` itself (SEP-2663: "resolve all MRTR exchanges synchronously before
    /// responding with a `CreateTaskResult`").
    NotStarted,
    /// The call runs as a task: input parks the task in `input_required` (`tasks/get` shows
    /// the `inputRequests`, `tasks/update` answers them).
    Running,
}

fn no_host(method: &str) -> Error {
    Error::NoHost {
        method: method.to_owned(),
    }
}

/// The host of a context built without one.
struct NoHost;

impl CallHost for NoHost {}

/// What a handler knows of the call it serves, and what it can do beside returning a result.
///
/// A server builds one per `tools/call` request: [`with_meta`](Self::with_meta) takes the
/// request's `_meta` (and its `progressToken`), [`with_host`](Self::with_host) the server's
/// [`CallHost`], [`with_cancellation`](Self::with_cancellation) the flag it sets on
/// `notifications/cancelled`. [`CallContext::new`] has none of them: progress and log calls do
/// nothing and requests to the client fail with [`Error::NoHost`], which is what a test or a
/// local call wants. Cloning is cheap (a few reference counts).
///
/// ```
/// use serde_json::json;
/// use toolmodel::{CallContext, Error, LogLevel};
///
/// # pollster::block_on(async {
/// let cx = CallContext::new().with_meta(json!({"progressToken": 7}).as_object().unwrap().clone())?;
/// assert_eq!(cx.progress_token(), Some(&toolmodel::ProgressToken::Integer(7)));
/// cx.progress(1.0, Some(2.0), Some("half way")).await?; // no host: dropped
/// cx.log(LogLevel::Info, json!("hello")).await?;
/// let err = cx.create_message(json!({"messages": [], "maxTokens": 10})).await.unwrap_err();
/// assert!(matches!(err, Error::NoHost { .. }));
/// # Ok::<(), Error>(())
/// # })?;
/// # Ok::<(), Error>(())
/// ```
#[derive(Clone)]
pub struct CallContext {
    /// What the request brings; shared by the contexts of one request.
    request: Arc<Request>,
    /// The tool being called, once a toolbox routed the call.
    called: Option<Arc<Called>>,
}

#[derive(Clone)]
struct Request {
    meta: Option<Map<String, Value>>,
    progress_token: Option<ProgressToken>,
    cancellation: Cancellation,
    host: Arc<dyn CallHost>,
    /// The client's `ClientCapabilities`, when the server knows them.
    capabilities: Option<Value>,
    /// `Some` under MCP 2026-07-28 input rounds; `None`: the host sends requests itself.
    rounds: Option<Arc<Mutex<Rounds>>>,
    /// The handler's own state ([`CallContext::set_state`]), shared by the request's contexts.
    state: Arc<Mutex<Option<Value>>>,
}

/// A call's input rounds (MCP 2026-07-28): the answers the client gave so far and the keys
/// the handler asked for in this run.
struct Rounds {
    answers: Map<String, Value>,
    asked: BTreeSet<String>,
}

/// The tool a toolbox routed a call to, and the MCP name it is served under.
pub(crate) struct Called {
    pub(crate) tool: Arc<Tool>,
    pub(crate) name: Arc<str>,
}

impl Default for CallContext {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for CallContext {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CallContext")
            .field("meta", &self.request.meta)
            .field("progress_token", &self.request.progress_token)
            .field("cancelled", &self.request.cancellation.is_cancelled())
            .field("tool", &self.called.as_ref().map(|called| &*called.name))
            .finish_non_exhaustive()
    }
}

impl CallContext {
    /// A context with no request `_meta`, no host and a cancellation flag nobody sets.
    #[must_use]
    pub fn new() -> Self {
        Self {
            request: Arc::new(Request {
                meta: None,
                progress_token: None,
                cancellation: Cancellation::new(),
                host: Arc::new(NoHost),
                capabilities: None,
                rounds: None,
                state: Arc::new(Mutex::new(None)),
            }),
            called: None,
        }
    }

    fn request_mut(&mut self) -> &mut Request {
        Arc::make_mut(&mut self.request)
    }

    /// The request's `_meta` (MCP `CallToolRequestParams._meta`), and with it the
    /// `progressToken` the client asked progress notifications for.
    ///
    /// # Errors
    ///
    /// [`Error::Json`] at `/_meta/progressToken` when the token is neither a string nor an
    /// integer (MCP `ProgressToken`); a server answers that request with JSON-RPC `-32602`.
    pub fn with_meta(mut self, meta: Map<String, Value>) -> Result<Self, Error> {
        let progress_token = match meta.get("progressToken") {
            None | Some(Value::Null) => None,
            Some(token) => Some(ProgressToken::deserialize(token).map_err(|_| Error::Json {
                path: "/_meta/progressToken".into(),
                line: 0,
                column: 0,
                message: format!("a progress token is a string or an integer, not {token}"),
            })?),
        };
        let request = self.request_mut();
        request.progress_token = progress_token;
        request.meta = Some(meta);
        Ok(self)
    }

    /// The host that sends notifications and requests to the client.
    #[must_use]
    pub fn with_host(mut self, host: Arc<dyn CallHost>) -> Self {
        self.request_mut().host = host;
        self
    }

    /// The cancellation flag the host sets when the client cancels the request.
    #[must_use]
    pub fn with_cancellation(mut self, cancellation: Cancellation) -> Self {
        self.request_mut().cancellation = cancellation;
        self
    }

    /// The client's capabilities (MCP `ClientCapabilities`): under 2026-07-28 those of the
    /// request's `_meta["io.modelcontextprotocol/clientCapabilities"]`, before it those
    /// declared at `initialize`. With them, [`input`](Self::input) refuses a request the
    /// client did not declare; without them (a local call), the host decides.
    #[must_use]
    pub fn with_client_capabilities(mut self, capabilities: Value) -> Self {
        self.request_mut().capabilities = Some(capabilities);
        self
    }

    /// Serves the call in MCP 2026-07-28 input rounds (multi round-trip requests): `carried`
    /// holds the client's answers so far (those of earlier rounds, read back from the
    /// verified `requestState`, and this retry's `inputResponses`) and the handler's state.
    /// [`input`](Self::input) then answers from them, or ends the run with
    /// [`ToolError::InputRequired`] for what is still missing. A server calls it for every
    /// 2026-07-28 `tools/call`, retry or not; without it, the host sends requests itself.
    #[must_use]
    pub fn with_input_rounds(mut self, carried: Carried) -> Self {
        let request = self.request_mut();
        request.rounds = Some(Arc::new(Mutex::new(Rounds {
            answers: carried.answers,
            asked: BTreeSet::new(),
        })));
        request.state = Arc::new(Mutex::new(carried.state));
        self
    }

    /// What the next round must carry (for the server, after a run ended with
    /// [`ToolError::InputRequired`]): the answers this run asked for and got, and the
    /// handler's state. Answers the handler never asked for are dropped (MCP 2026-07-28:
    /// the server ignores what it does not need).
    #[must_use]
    pub fn carried(&self) -> Carried {
        let answers = self
            .request
            .rounds
            .as_ref()
            .map_or_else(Map::new, |rounds| {
                let rounds = rounds.lock().unwrap_or_else(PoisonError::into_inner);
                rounds
                    .answers
                    .iter()
                    .filter(|(key, _)| rounds.asked.contains(key.as_str()))
                    .map(|(key, answer)| (key.clone(), answer.clone()))
                    .collect()
            });
        let state = self.state_value();
        Carried::new(answers, state)
    }

    /// The same request, for a call routed to `called`: two reference counts.
    pub(crate) fn for_tool(&self, called: &Arc<Called>) -> Self {
        Self {
            request: Arc::clone(&self.request),
            called: Some(Arc::clone(called)),
        }
    }

    /// The tool being called, as its handler defines it (name and namespace as declared, not
    /// the MCP name it is served under),
    /// when called through a [`Toolbox`](crate::Toolbox).
    #[must_use]
    pub fn tool(&self) -> Option<&Tool> {
        self.called.as_deref().map(|called| &*called.tool)
    }

    /// The request's `_meta`, if it had one.
    #[must_use]
    pub fn meta(&self) -> Option<&Map<String, Value>> {
        self.request.meta.as_ref()
    }

    /// The request's progress token, if the client asked for progress.
    #[must_use]
    pub fn progress_token(&self) -> Option<&ProgressToken> {
        self.request.progress_token.as_ref()
    }

    /// Whether the client cancelled the request.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.request.cancellation.is_cancelled()
    }

    /// Completes when the client cancels the request.
    pub async fn cancelled(&self) {
        self.request.cancellation.cancelled().await;
    }

    /// The host's timer for `duration` ([`CallHost::sleep`]), or `None` without one.
    pub(crate) fn sleep(&self, duration: Duration) -> Option<BoxFuture<'static, ()>> {
        self.request.host.sleep(duration)
    }

    /// The cancellation flag itself, to hand to work the handler spawns.
    #[must_use]
    pub fn cancellation(&self) -> &Cancellation {
        &self.request.cancellation
    }

    /// Reports progress (`notifications/progress`): `progress` so far, out of `total` if
    /// known. Sent only when the request carries a progress token; otherwise nothing happens.
    ///
    /// # Errors
    ///
    /// What the host's [`CallHost::progress`] returns (the connection is gone, say).
    pub async fn progress(
        &self,
        progress: f64,
        total: Option<f64>,
        message: Option<&str>,
    ) -> Result<(), Error> {
        let Some(token) = &self.request.progress_token else {
            return Ok(());
        };
        self.request
            .host
            .progress(ProgressNotification {
                progress_token: token.clone(),
                progress,
                total,
                message: message.map(str::to_owned),
            })
            .await
    }

    /// Sends a log message (`notifications/message`), with the tool's MCP name as the
    /// logger when called through a [`Toolbox`](crate::Toolbox).
    ///
    /// # Errors
    ///
    /// What the host's [`CallHost::log`] returns.
    pub async fn log(&self, level: LogLevel, data: Value) -> Result<(), Error> {
        self.request
            .host
            .log(LogNotification {
                level,
                logger: self.called.as_ref().map(|called| called.name.to_string()),
                data,
            })
            .await
    }

    /// The client's capabilities, when the server gave them
    /// ([`with_client_capabilities`](Self::with_client_capabilities)).
    #[must_use]
    pub fn client_capabilities(&self) -> Option<&Value> {
        self.request.capabilities.as_ref()
    }

    /// Whether the client declared `capability`; `true` when the capabilities are unknown (a
    /// local call), so that the host decides.
    #[must_use]
    pub fn declares(&self, capability: ClientCapability) -> bool {
        self.request
            .capabilities
            .as_ref()
            .is_none_or(|capabilities| capability.declared_in(capabilities))
    }

    /// Asks the client for input: every request of `requests` (form or URL elicitation,
    /// sampling, roots), answered under the same keys, typed. One call works in both eras of
    /// MCP:
    ///
    /// - **2025-11-25 and older**: the host sends each request to the client
    ///   (server-to-client JSON-RPC requests, in key order) and this returns the answers.
    /// - **2026-07-28** (multi round-trip requests, SEP-2322): when the client has already
    ///   answered every key, this returns the answers at once; otherwise it returns
    ///   [`ToolError::InputRequired`] with the unanswered requests, the handler returns it
    ///   with `?`, the server answers the call with an `InputRequiredResult`, and the client
    ///   retries the call with the answers. **The handler then runs again from the start**.
    /// - **In a task** (the tasks extension, `io.modelcontextprotocol/tasks`, SEP-2663: the
    ///   host's [`task_phase`](CallHost::task_phase) is not [`TaskPhase::NoTask`]): the task
    ///   waits in `input_required`, `tasks/get` shows the requests, and when `tasks/update`
    ///   has answered every key this returns the answers. **The handler goes on where it
    ///   waits** (it is not run again: a task keeps running). Input the call needs before it
    ///   becomes a task: [`input_before_task`](Self::input_before_task).
    ///
    /// # Re-entrancy contract
    ///
    /// Under 2026-07-28 a handler that asks for input runs once per round, from its first
    /// line, with the same arguments; every `input` it reached before is answered at once on
    /// the next run, from the answers carried in the `requestState`. So:
    ///
    /// - write the handler as if `input` simply waited for the answers (it does, before
    ///   2026-07-28); several requests in one `input` are one round, several `input` calls
    ///   are several rounds;
    /// - what runs before the last `input` runs again on every round: keep it free of side
    ///   effects, or idempotent (do the work after the last `input`);
    /// - a key names one question for the whole call: use a new key for a new question
    ///   (an answer under a reused key is returned again);
    /// - to carry the handler's own data from one round to the next (a value computed before
    ///   asking, a draft), use [`set_state`](Self::set_state) and [`state`](Self::state);
    ///   the state and the answers travel in the `requestState`, authenticated by the server
    ///   and bound to the tool and its arguments, so keep them small (the server has a size
    ///   limit) and free of secrets (they are signed, not encrypted);
    /// - the client may never retry: do not hold resources across rounds.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolmodel::{
    ///     CallContext, Carried, ElicitRequest, InputRequest, InputRequests, ToolError,
    /// };
    ///
    /// /// The handler's body: two rounds (a name, then a color), and a counter of its own.
    /// async fn greet(cx: &CallContext) -> Result<String, ToolError> {
    ///     let runs: u32 = cx.state()?.unwrap_or(0);
    ///     cx.set_state(&(runs + 1))?;
    ///     let ask = |message: &str, field: &str| InputRequest::Elicit(ElicitRequest::form(
    ///         message,
    ///         json!({"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}),
    ///     ));
    ///     let first = cx.input(InputRequests::new().with("name", ask("Your name?", "name"))).await?;
    ///     let name = first.elicit("name").and_then(|r| r.field("name")).cloned();
    ///     let second = cx.input(InputRequests::new().with("color", ask("Your color?", "color"))).await?;
    ///     let color = second.elicit("color").and_then(|r| r.field("color")).cloned();
    ///     Ok(format!("{} likes {} (run {})", name.unwrap_or_default(), color.unwrap_or_default(), runs + 1))
    /// }
    ///
    /// # pollster::block_on(async {
    /// // Round 1 (2026-07-28): nothing answered yet.
    /// let cx = CallContext::new().with_input_rounds(Carried::default());
    /// let Err(ToolError::InputRequired(asked)) = greet(&cx).await else { panic!() };
    /// assert!(asked.requests.get("name").is_some());
    /// // Round 2: the client answers "name"; the server carries what it got.
    /// let mut carried = cx.carried();
    /// carried.answers.insert("name".into(), json!({"action": "accept", "content": {"name": "Ada"}}));
    /// let cx = CallContext::new().with_input_rounds(carried);
    /// let Err(ToolError::InputRequired(asked)) = greet(&cx).await else { panic!() };
    /// assert!(asked.requests.get("color").is_some());
    /// // Round 3: "color" too; the handler finishes.
    /// let mut carried = cx.carried();
    /// carried.answers.insert("color".into(), json!({"action": "accept", "content": {"color": "green"}}));
    /// let cx = CallContext::new().with_input_rounds(carried);
    /// assert_eq!(greet(&cx).await.unwrap(), "\"Ada\" likes \"green\" (run 3)");
    /// # });
    /// ```
    ///
    /// # Errors
    ///
    /// - [`ToolError::InputRequired`]: 2026-07-28, some request is not answered yet (return
    ///   it: the server turns it into an `InputRequiredResult`).
    /// - [`ToolError::Protocol`] `-32021` (MCP 2026-07-28 `MissingRequiredClientCapability`,
    ///   HTTP 400) when the client's capabilities are known and lack one a request needs
    ///   (`data.requiredCapabilities` names them, e.g. `{"sampling": {}}`); check first with
    ///   [`declares`](Self::declares) to ask something else instead.
    /// - [`ToolError::Protocol`] `-32602` naming `inputResponses/<key>` when the client's
    ///   answer is not the result its request calls for (an `ElicitResult` for an
    ///   elicitation, ...).
    /// - [`ToolError::Protocol`] with the host's code when the host could not send a request
    ///   (before 2026-07-28: the client refused it, the connection closed; no host at all:
    ///   [`Error::NoHost`]'s `-32603`).
    pub async fn input(&self, requests: InputRequests) -> Result<InputResponses, ToolError> {
        let rounds = match self.request.host.task_phase() {
            TaskPhase::NoTask => self.request.rounds.as_ref(),
            TaskPhase::NotStarted | TaskPhase::Running => None,
        };
        self.ask(requests, rounds).await
    }

    /// Asks the client for input the call needs **before it becomes a task** (the tasks
    /// extension, `io.modelcontextprotocol/tasks`, SEP-2663): in a call that the server runs
    /// as a task, these requests go by MCP 2026-07-28 multi round-trip requests on the
    /// `tools/call` itself (an `InputRequiredResult`; the handler runs again on the retry, as
    /// [`input`](Self::input) describes), and the task is created only once they are
    /// answered, so a handler can, say, confirm with the user before it starts a long job.
    /// [`input`](Self::input) in such a call parks the task instead (`input_required`,
    /// answered by `tasks/update`, the handler goes on where it waits).
    ///
    /// The task starts at the handler's first suspension (the first `.await` that does not
    /// complete at once): call this before anything that waits. Once the task runs (and in
    /// MCP 2025-11-25 and older, which have no input rounds) it is the same as
    /// [`input`](Self::input); in an ordinary call too.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolmodel::{CallContext, Carried, ElicitRequest, InputRequest, InputRequests, ToolError};
    ///
    /// async fn report(cx: &CallContext) -> Result<String, ToolError> {
    ///     let ask = InputRequest::Elicit(ElicitRequest::form(
    ///         "Which year?",
    ///         json!({"type": "object", "properties": {"year": {"type": "integer"}}}),
    ///     ));
    ///     let answers = cx.input_before_task(InputRequests::new().with("year", ask)).await?;
    ///     let year = answers.elicit("year").and_then(|r| r.field("year")).cloned();
    ///     // ... the long part, as a task ...
    ///     Ok(format!("report for {}", year.unwrap_or_default()))
    /// }
    ///
    /// # pollster::block_on(async {
    /// // A 2026-07-28 call without the answer: an input round first.
    /// let cx = CallContext::new().with_input_rounds(Carried::default());
    /// assert!(matches!(report(&cx).await, Err(ToolError::InputRequired(_))));
    /// # });
    /// ```
    ///
    /// # Errors
    ///
    /// Those of [`input`](Self::input).
    pub async fn input_before_task(
        &self,
        requests: InputRequests,
    ) -> Result<InputResponses, ToolError> {
        let rounds = match self.request.host.task_phase() {
            TaskPhase::NoTask | TaskPhase::NotStarted => self.request.rounds.as_ref(),
            TaskPhase::Running => None,
        };
        self.ask(requests, rounds).await
    }

    /// Asks by input rounds (`rounds`) or through the host (`None`).
    async fn ask(
        &self,
        requests: InputRequests,
        rounds: Option<&Arc<Mutex<Rounds>>>,
    ) -> Result<InputResponses, ToolError> {
        self.check_capabilities(&requests)?;
        let answers = match rounds {
            None => self
                .request
                .host
                .input(&requests)
                .await
                .map_err(|err| match err {
                    Error::Protocol {
                        code,
                        message,
                        data,
                    } => ToolError::Protocol {
                        code,
                        message,
                        data,
                    },
                    Error::Cancelled => ToolError::Cancelled,
                    other => ToolError::protocol(other.jsonrpc_code(), other.to_string()),
                })?,
            Some(rounds) => {
                let mut rounds = rounds.lock().unwrap_or_else(PoisonError::into_inner);
                let mut missing = InputRequests::new();
                for (key, request) in requests.iter() {
                    rounds.asked.insert(key.to_owned());
                    if !rounds.answers.contains_key(key) {
                        missing.insert(key, request.clone());
                    }
                }
                if !missing.is_empty() {
                    return Err(ToolError::InputRequired(InputRequired {
                        requests: missing,
                    }));
                }
                requests
                    .iter()
                    .filter_map(|(key, _)| Some((key.to_owned(), rounds.answers.get(key)?.clone())))
                    .collect()
            }
        };
        let mut responses = InputResponses::default();
        for (key, request) in requests.iter() {
            let answer = answers.get(key).cloned().ok_or_else(|| {
                ToolError::protocol(
                    -32603,
                    format!("the host gave no answer to {} {key:?}", request.method()),
                )
            })?;
            let typed = request.read_answer(answer).map_err(|err| {
                ToolError::protocol(
                    -32602,
                    format!(
                        "inputResponses/{key}: not the result of {}: {err}",
                        request.method()
                    ),
                )
            })?;
            responses.insert(key.to_owned(), typed);
        }
        Ok(responses)
    }

    /// `-32021` unless the client declared every capability `requests` needs.
    fn check_capabilities(&self, requests: &InputRequests) -> Result<(), ToolError> {
        let Some(capabilities) = &self.request.capabilities else {
            return Ok(());
        };
        let mut required = Map::new();
        let mut methods = BTreeSet::new();
        for (_, request) in requests.iter() {
            let capability = request.capability();
            if capability.declared_in(capabilities) {
                continue;
            }
            methods.insert(request.method());
            merge(&mut required, capability.as_capabilities());
        }
        if required.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = required.keys().map(String::as_str).collect();
        Err(ToolError::Protocol {
            code: MISSING_REQUIRED_CLIENT_CAPABILITY,
            message: format!(
                "the client did not declare the {} capability that {} needs",
                names.join(", "),
                methods.into_iter().collect::<Vec<_>>().join(", ")
            ),
            data: Some(json!({"requiredCapabilities": required})),
        })
    }

    fn state_value(&self) -> Option<Value> {
        self.request
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The handler's own state, carried from the round before (MCP 2026-07-28 input
    /// rounds; see [`input`](Self::input)): `None` on the first run, and always before
    /// 2026-07-28, where the handler runs once.
    ///
    /// # Errors
    ///
    /// [`ToolError::Protocol`] `-32602` when the carried state does not read as `T` (the
    /// handler changed its state type between rounds).
    pub fn state<T: DeserializeOwned>(&self) -> Result<Option<T>, ToolError> {
        let state = self.state_value();
        state
            .map(|value| {
                serde_json::from_value(value).map_err(|err| {
                    ToolError::protocol(-32602, format!("requestState: the handler's state: {err}"))
                })
            })
            .transpose()
    }

    /// Sets the handler's own state, for the next round (see [`input`](Self::input)).
    ///
    /// # Errors
    ///
    /// [`ToolError::Protocol`] `-32603` when `value` does not serialize to JSON.
    pub fn set_state<T: Serialize>(&self, value: &T) -> Result<(), ToolError> {
        let value = serde_json::to_value(value).map_err(|err| {
            ToolError::protocol(-32603, format!("the handler's state is not JSON: {err}"))
        })?;
        *self
            .request
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(value);
        Ok(())
    }

    /// Asks the client's model for a completion (`sampling/createMessage`; `params` in the
    /// MCP `CreateMessageRequestParams` shape) and returns its `CreateMessageResult`.
    ///
    /// MCP 2025-11-25 and older only: under 2026-07-28 servers may not send requests to the
    /// client; [`input`](Self::input) works in both.
    ///
    /// # Errors
    ///
    /// [`Error::NoHost`] without a host that supports it; what the host returns (the client
    /// refused, or has no sampling capability).
    pub async fn create_message(&self, params: Value) -> Result<Value, Error> {
        self.request.host.create_message(params).await
    }

    /// Asks the user for input (`elicitation/create`; `params` in the MCP
    /// `ElicitRequestParams` shape) and returns the `ElicitResult`.
    ///
    /// MCP 2025-11-25 and older only: under 2026-07-28 servers may not send requests to the
    /// client; [`input`](Self::input) works in both.
    ///
    /// # Errors
    ///
    /// [`Error::NoHost`] without a host that supports it; what the host returns.
    pub async fn elicit(&self, params: Value) -> Result<Value, Error> {
        self.request.host.elicit(params).await
    }
}

/// Adds a `ClientCapabilities` fragment to `into` (`{"elicitation": {"form": {}}}` and
/// `{"elicitation": {"url": {}}}` make `{"elicitation": {"form": {}, "url": {}}}`).
fn merge(into: &mut Map<String, Value>, fragment: Value) {
    let Value::Object(fragment) = fragment else {
        return;
    };
    for (key, value) in fragment {
        match (into.get_mut(&key), value) {
            (Some(Value::Object(existing)), Value::Object(more)) => existing.extend(more),
            (_, value) => {
                into.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::call::input::ElicitRequest;

    fn ask(key: &str) -> InputRequests {
        let schema = json!({"type": "object", "properties": {key: {"type": "string"}}});
        InputRequests::new().with(
            key,
            InputRequest::Elicit(ElicitRequest::form(format!("{key}?"), schema)),
        )
    }

    /// Two rounds, one of two requests; a state of its own.
    async fn handler(cx: &CallContext) -> Result<String, ToolError> {
        let runs: u32 = cx.state()?.unwrap_or(0);
        cx.set_state(&(runs + 1))?;
        let first = cx.input(ask("name")).await?;
        let name = first.elicit("name").and_then(|r| r.field("name")).cloned();
        let both = ask("color").with("roots", InputRequest::ListRoots);
        let second = cx.input(both).await?;
        let color = second
            .elicit("color")
            .and_then(|r| r.field("color"))
            .cloned();
        let roots = second.roots("roots").map_or(0, |list| list.roots.len());
        Ok(format!(
            "{name:?} {color:?} {roots} after {} runs",
            runs + 1
        ))
    }

    fn answer(key: &str, value: &str) -> Value {
        json!({"action": "accept", "content": {key: value}})
    }

    /// A 2025-11-25 host: answers each request itself and counts them.
    struct Answering(AtomicUsize);

    impl CallHost for Answering {
        fn elicit(&self, params: Value) -> BoxFuture<'_, Result<Value, Error>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            let field = params
                .pointer("/requestedSchema/properties")
                .and_then(Value::as_object)
                .and_then(|properties| properties.keys().next().cloned())
                .unwrap_or_default();
            Box::pin(async move { Ok(answer(&field, "x")) })
        }

        fn list_roots(&self) -> BoxFuture<'_, Result<Value, Error>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Box::pin(async { Ok(json!({"roots": [{"uri": "file:///r"}]})) })
        }
    }

    /// Drives `handler` through its rounds with `block_on`, as a 2026-07-28 server would.
    fn rounds(
        block_on: impl Fn(BoxFuture<'_, Result<String, ToolError>>) -> Result<String, ToolError>,
    ) {
        let cx = CallContext::new().with_input_rounds(Carried::default());
        let Err(ToolError::InputRequired(asked)) = block_on(Box::pin(handler(&cx))) else {
            panic!("round 1 asks")
        };
        assert_eq!(asked.keys(), "name");
        let mut carried = cx.carried();
        assert_eq!(carried.state, Some(json!(1)));
        carried.answers.insert("name".into(), answer("name", "Ada"));
        carried.answers.insert("unasked".into(), json!(1));
        let cx = CallContext::new().with_input_rounds(carried);
        let Err(ToolError::InputRequired(asked)) = block_on(Box::pin(handler(&cx))) else {
            panic!("round 2 asks")
        };
        assert_eq!(asked.keys(), "color, roots");
        let mut carried = cx.carried();
        assert!(!carried.answers.contains_key("unasked"), "{carried:?}");
        carried
            .answers
            .insert("color".into(), answer("color", "green"));
        carried.answers.insert("roots".into(), json!({"roots": []}));
        let cx = CallContext::new().with_input_rounds(carried);
        assert_eq!(
            block_on(Box::pin(handler(&cx))).unwrap(),
            r#"Some(String("Ada")) Some(String("green")) 0 after 3 runs"#
        );
    }

    fn direct(
        block_on: impl Fn(BoxFuture<'_, Result<String, ToolError>>) -> Result<String, ToolError>,
    ) {
        let host = Arc::new(Answering(AtomicUsize::new(0)));
        let cx = CallContext::new().with_host(host.clone());
        assert_eq!(
            block_on(Box::pin(handler(&cx))).unwrap(),
            r#"Some(String("x")) Some(String("x")) 1 after 1 runs"#
        );
        assert_eq!(host.0.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn one_handler_runs_in_rounds_and_directly_under_two_executors() {
        rounds(|run| pollster::block_on(run));
        rounds(|run| futures_executor::block_on(run));
        direct(|run| pollster::block_on(run));
        direct(|run| futures_executor::block_on(run));
    }

    #[test]
    fn undeclared_capabilities_are_refused_with_32021() {
        let cx = CallContext::new()
            .with_client_capabilities(json!({"sampling": {}}))
            .with_input_rounds(Carried::default());
        assert!(cx.declares(ClientCapability::Sampling));
        assert!(!cx.declares(ClientCapability::ElicitationForm));
        let requests = ask("a")
            .with("b", InputRequest::ListRoots)
            .with("c", InputRequest::sample_text("hi", 5));
        let Err(ToolError::Protocol { code, data, .. }) = pollster::block_on(cx.input(requests))
        else {
            panic!("refused")
        };
        assert_eq!(code, MISSING_REQUIRED_CLIENT_CAPABILITY);
        assert_eq!(
            data,
            Some(json!({"requiredCapabilities": {"elicitation": {"form": {}}, "roots": {}}}))
        );
    }

    #[test]
    fn answers_of_the_wrong_shape_are_invalid_params_naming_the_key() {
        let mut carried = Carried::default();
        carried.answers.insert("name".into(), json!(12345));
        let cx = CallContext::new().with_input_rounds(carried);
        let Err(ToolError::Protocol { code, message, .. }) =
            pollster::block_on(cx.input(ask("name")))
        else {
            panic!("refused")
        };
        assert_eq!(code, -32602);
        assert!(message.contains("inputResponses/name"), "{message}");
    }

    #[test]
    fn without_a_host_input_fails_with_no_host_s_code() {
        let Err(ToolError::Protocol { code, message, .. }) =
            pollster::block_on(CallContext::new().input(ask("name")))
        else {
            panic!("refused")
        };
        assert_eq!(code, -32603);
        assert!(message.contains("elicitation/create"), "{message}");
    }

    /// A host in one task phase that answers every request itself and counts them.
    struct InTask(TaskPhase, AtomicUsize);

    impl CallHost for InTask {
        fn task_phase(&self) -> TaskPhase {
            self.0
        }

        fn elicit(&self, _: Value) -> BoxFuture<'_, Result<Value, Error>> {
            self.1.fetch_add(1, Ordering::SeqCst);
            Box::pin(async { Ok(answer("name", "host")) })
        }
    }

    #[test]
    fn the_task_phase_decides_between_input_rounds_and_the_host() {
        // (phase, where `input` goes, where `input_before_task` goes): true = the host.
        let rules = [
            (TaskPhase::NoTask, false, false),
            (TaskPhase::NotStarted, true, false),
            (TaskPhase::Running, true, true),
        ];
        for (phase, input_to_host, before_to_host) in rules {
            for before in [false, true] {
                let host = Arc::new(InTask(phase, AtomicUsize::new(0)));
                let cx = CallContext::new()
                    .with_host(host.clone())
                    .with_input_rounds(Carried::default());
                let asked = if before {
                    pollster::block_on(cx.input_before_task(ask("name")))
                } else {
                    pollster::block_on(cx.input(ask("name")))
                };
                let to_host = if before {
                    before_to_host
                } else {
                    input_to_host
                };
                if to_host {
                    let answers = asked.expect("the host answers");
                    let name = answers.elicit("name").and_then(|r| r.field("name"));
                    assert_eq!(name, Some(&json!("host")), "{phase:?}");
                    assert_eq!(host.1.load(Ordering::SeqCst), 1, "{phase:?}");
                } else {
                    assert!(
                        matches!(asked, Err(ToolError::InputRequired(_))),
                        "{phase:?} before={before}: an input round"
                    );
                    assert_eq!(host.1.load(Ordering::SeqCst), 0, "{phase:?}");
                }
            }
        }
    }

    #[test]
    fn a_cancelled_host_request_is_a_cancelled_call() {
        struct Cancelled;
        impl CallHost for Cancelled {
            fn elicit(&self, _: Value) -> BoxFuture<'_, Result<Value, Error>> {
                Box::pin(async { Err(Error::Cancelled) })
            }
        }
        let cx = CallContext::new().with_host(Arc::new(Cancelled));
        let asked = pollster::block_on(cx.input(ask("name")));
        assert!(matches!(asked, Err(ToolError::Cancelled)), "{asked:?}");
    }
}
