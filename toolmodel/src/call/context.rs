//! [`CallContext`]: what a handler knows of the request it serves and what it can do beside
//! returning a result (progress, logging, requests to the client), through a [`CallHost`].

use std::{fmt, future::Future, pin::Pin, sync::Arc};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::{Cancellation, Error, Tool};

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

    /// Asks the client's model for a completion (`sampling/createMessage`; `params` in the
    /// MCP `CreateMessageRequestParams` shape) and returns its `CreateMessageResult`.
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
    /// # Errors
    ///
    /// [`Error::NoHost`] without a host that supports it; what the host returns.
    pub async fn elicit(&self, params: Value) -> Result<Value, Error> {
        self.request.host.elicit(params).await
    }
}
