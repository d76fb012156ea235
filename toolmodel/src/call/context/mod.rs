//! [`CallContext`] and its builder: what a handler knows of the request it serves (`_meta`,
//! progress token, cancellation, the client's capabilities, the tool called) and the
//! notifications it sends through the server's [`CallPeer`]. Asking the client for input, in
//! every MCP version, is in [`rounds`].

mod rounds;

use std::{
    fmt,
    sync::{Arc, Mutex},
    time::Duration,
};

use serde::Deserialize;
use serde_json::{Map, Value};

use self::rounds::Rounds;
use crate::call::caller::Caller;
use crate::call::cancellation::Cancellation;
use crate::call::input::ClientCapability;
use crate::call::peer::{
    BoxFuture, CallPeer, LogNotification, LoggingLevel, NoPeer, ProgressNotification, ProgressToken,
};
use crate::error::Error;
use crate::model::tool::Tool;

/// What a handler knows of the call it serves, and what it can do beside returning a result.
///
/// A server builds one per `tools/call` request: [`with_meta`](Self::with_meta) takes the
/// request's `_meta` (and its `progressToken`), [`with_peer`](Self::with_peer) the server's
/// [`CallPeer`], [`with_cancellation`](Self::with_cancellation) the flag it sets on
/// `notifications/cancelled`. [`CallContext::new`] has none of them: progress and log calls do
/// nothing and requests to the client fail with [`Error::NoPeer`], which is what a test or a
/// local call wants. Cloning is cheap (a few reference counts).
///
/// ```
/// use serde_json::json;
/// use toolmodel::{CallContext, Error, peer::LoggingLevel};
///
/// # pollster::block_on(async {
/// let cx = CallContext::new().with_meta(json!({"progressToken": 7}).as_object().unwrap().clone())?;
/// assert_eq!(cx.progress_token(), Some(&toolmodel::peer::ProgressToken::Integer(7)));
/// cx.progress(1.0, Some(2.0), Some("half way")).await?; // no peer: dropped
/// cx.log(LoggingLevel::Info, json!("hello")).await?;
/// let err = cx.create_message(json!({"messages": [], "maxTokens": 10})).await.unwrap_err();
/// assert!(matches!(err, Error::NoPeer { .. }));
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
    peer: Arc<dyn CallPeer>,
    /// The client's `ClientCapabilities`, when the server knows them.
    capabilities: Option<Value>,
    /// `Some` under MCP 2026-07-28 input rounds; `None`: the peer sends requests itself.
    rounds: Option<Arc<Mutex<Rounds>>>,
    /// The handler's own state ([`CallContext::set_state`]), shared by the request's contexts.
    state: Arc<Mutex<Option<Value>>>,
    /// Who the call is for, as the server verified it from the request's access token.
    caller: Option<Caller>,
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
            .field("caller", &self.request.caller)
            .finish_non_exhaustive()
    }
}

impl CallContext {
    /// A context with no request `_meta`, no peer and a cancellation flag nobody sets.
    #[must_use]
    pub fn new() -> Self {
        Self {
            request: Arc::new(Request {
                meta: None,
                progress_token: None,
                cancellation: Cancellation::new(),
                peer: Arc::new(NoPeer),
                capabilities: None,
                rounds: None,
                state: Arc::new(Mutex::new(None)),
                caller: None,
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

    /// The peer that sends notifications and requests to the client.
    #[must_use]
    pub fn with_peer(mut self, peer: Arc<dyn CallPeer>) -> Self {
        self.request_mut().peer = peer;
        self
    }

    /// The cancellation flag the peer sets when the client cancels the request.
    #[must_use]
    pub fn with_cancellation(mut self, cancellation: Cancellation) -> Self {
        self.request_mut().cancellation = cancellation;
        self
    }

    /// The client's capabilities (MCP `ClientCapabilities`): under 2026-07-28 those of the
    /// request's `_meta["io.modelcontextprotocol/clientCapabilities"]`, before it those
    /// declared at `initialize`. With them, [`input`](Self::input) (and the raw
    /// [`create_message`](Self::create_message) and [`elicit`](Self::elicit)) refuses a request
    /// the client did not declare; without them (a local call), the peer decides.
    #[must_use]
    pub fn with_client_capabilities(mut self, capabilities: Value) -> Self {
        self.request_mut().capabilities = Some(capabilities);
        self
    }

    /// Who the call is for: the [`Caller`] the server verified from the request's access
    /// token (MCP, "Authorization").
    #[must_use]
    pub fn with_caller(mut self, caller: Caller) -> Self {
        self.request_mut().caller = Some(caller);
        self
    }

    /// Who the call is for, when the server verified an access token
    /// ([`with_caller`](Self::with_caller)); `None` when it checks none (stdio, a local call,
    /// HTTP without authorization).
    #[must_use]
    pub fn caller(&self) -> Option<&Caller> {
        self.request.caller.as_ref()
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

    /// The peer's timer for `duration` ([`CallPeer::sleep`]), or `None` without one.
    pub(crate) fn sleep(&self, duration: Duration) -> Option<BoxFuture<'static, ()>> {
        self.request.peer.sleep(duration)
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
    /// What the peer's [`CallPeer::progress`] returns (the connection is gone, say).
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
            .peer
            .progress(ProgressNotification {
                progress_token: token.clone(),
                progress,
                total,
                message: message.map(str::to_owned),
            })
            .await
    }

    /// Tells the client that the out-of-band interaction of the URL-mode elicitation
    /// `elicitation_id` (one this call asked with [`input`](Self::input)) is complete:
    /// `notifications/elicitation/complete` (MCP 2025-11-25, "Elicitation", URL mode). A peer
    /// without it drops it; a 2026-07-28 input round has none to send (the retried call
    /// itself carries on).
    ///
    /// # Errors
    ///
    /// What the peer's [`CallPeer::elicitation_complete`] returns (the connection closed).
    pub async fn elicitation_complete(&self, elicitation_id: &str) -> Result<(), Error> {
        self.request.peer.elicitation_complete(elicitation_id).await
    }

    /// Sends a log message (`notifications/message`), with the tool's MCP name as the
    /// logger when called through a [`Toolbox`](crate::Toolbox).
    ///
    /// # Errors
    ///
    /// What the peer's [`CallPeer::log`] returns.
    pub async fn log(&self, level: LoggingLevel, data: Value) -> Result<(), Error> {
        self.request
            .peer
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
    /// local call), so that the peer decides.
    #[must_use]
    pub fn declares(&self, capability: ClientCapability) -> bool {
        self.request
            .capabilities
            .as_ref()
            .is_none_or(|capabilities| capability.declared_in(capabilities))
    }
}
