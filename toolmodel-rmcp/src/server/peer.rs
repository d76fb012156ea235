//! [`RmcpPeer`]: the [`CallPeer`] of a `tools/call` request, over `rmcp`'s peer.
//!
//! A request the call sends to the client (`sampling/createMessage`, `elicitation/create`,
//! `roots/list`, before MCP 2026-07-28) ends in one of four ways, and in each the server
//! forgets it (`rmcp` keeps a responder per pending request until then):
//!
//! - the client answers;
//! - it goes unanswered for
//!   [`HttpLimits::client_request_timeout`](super::HttpLimits::client_request_timeout):
//!   `rmcp` sends `notifications/cancelled` for it and the handler gets `-32603` naming the
//!   limit;
//! - the `tools/call` is cancelled (`notifications/cancelled` from the client, or its session
//!   or connection ends): `notifications/cancelled` for it, and the handler gets
//!   [`Error::Cancelled`];
//! - the handler stops waiting (drops the future): `notifications/cancelled` for it, sent
//!   from a task of its own.
//!
//! MCP 2025-11-25, "Cancellation": a party that no longer wants a request's result sends
//! `notifications/cancelled` with its `requestId`; "Lifecycle", "Timeouts": implementations
//! SHOULD set a timeout on every request they send and cancel the request when it passes.

// Logging and sampling are deprecated by SEP-2577 (MCP 2026-07-28); MCP 2025-11-25 clients,
// which this server serves, use them.
#![allow(deprecated)]

use std::time::Duration;

use rmcp::{
    Peer, RoleServer,
    model::{
        CancelledNotificationParam, ClientCapabilities, ClientResult, CreateMessageRequest,
        CreateMessageRequestParams, ElicitRequest, ElicitRequestParams, ErrorCode,
        ListRootsRequest, LoggingMessageNotificationParam, ProgressNotificationParam, RequestId,
        ServerRequest,
    },
    service::{PeerRequestOptions, ServiceError},
};
use serde::Serialize;
use serde_json::Value;
use toolmodel::{
    Cancellation, Error,
    peer::{BoxFuture, CallPeer, LogNotification, LoggingLevel, ProgressNotification},
};

use crate::convert::message::{from_wire, to_wire};

/// Which log notifications a call sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LogFilter {
    /// None (MCP 2026-07-28: the request carries no `io.modelcontextprotocol/logLevel`).
    Off,
    /// Those at or above this level.
    AtLeast(LoggingLevel),
    /// Every level (before 2026-07-28, without `logging/setLevel`).
    All,
}

impl LogFilter {
    fn sends(self, level: LoggingLevel) -> bool {
        match self {
            Self::Off => false,
            Self::AtLeast(lowest) => level >= lowest,
            Self::All => true,
        }
    }
}

/// Sends a call's notifications and requests to the client that made it.
pub(crate) struct RmcpPeer {
    peer: Peer<RoleServer>,
    log: LogFilter,
    /// What the client declared (at `initialize`, or in the request's `_meta`).
    capabilities: Option<ClientCapabilities>,
    /// MCP 2026-07-28: no server-to-client requests (input goes by `InputRequiredResult`).
    rounds: bool,
    /// Set when the call is cancelled: its pending requests to the client are cancelled too.
    cancellation: Cancellation,
    /// How long a request to the client may go unanswered (`None`: forever).
    timeout: Option<Duration>,
}

/// How a call reaches its client: what [`RmcpPeer::new`] takes besides the peer.
pub(crate) struct PeerSettings {
    pub(crate) log: LogFilter,
    /// What the client declared (at `initialize`, or in the request's `_meta`).
    pub(crate) capabilities: Option<ClientCapabilities>,
    /// MCP 2026-07-28: no server-to-client requests.
    pub(crate) rounds: bool,
    /// The call's cancellation flag.
    pub(crate) cancellation: Cancellation,
    /// [`HttpLimits::client_request_timeout`](super::HttpLimits::client_request_timeout).
    pub(crate) timeout: Option<Duration>,
}

impl RmcpPeer {
    pub(crate) fn new(peer: Peer<RoleServer>, settings: PeerSettings) -> Self {
        let PeerSettings {
            log,
            capabilities,
            rounds,
            cancellation,
            timeout,
        } = settings;
        Self {
            peer,
            log,
            capabilities,
            rounds,
            cancellation,
            timeout,
        }
    }

    /// Whether a request to the client may be sent: not under 2026-07-28, and only for a
    /// declared capability.
    fn allows(
        &self,
        method: &str,
        pick: impl Fn(&ClientCapabilities) -> bool,
    ) -> Result<(), Error> {
        if self.rounds {
            return Err(Error::Protocol {
                code: i64::from(ErrorCode::INTERNAL_ERROR.0),
                message: format!(
                    "{method}: MCP 2026-07-28 has no server-to-client requests; \
                     ask with CallContext::input, which works in every version"
                ),
                data: None,
            });
        }
        if self.declares(pick) {
            Ok(())
        } else {
            Err(undeclared(method))
        }
    }

    /// Whether the client declared a capability (`pick` reads it).
    fn declares(&self, pick: impl Fn(&ClientCapabilities) -> bool) -> bool {
        self.capabilities.as_ref().is_some_and(pick)
    }
}

impl RmcpPeer {
    /// Sends `request` to the client and waits for its result, until the call is cancelled
    /// or [`timeout`](Self::timeout) passes (see the module docs for how each ends).
    async fn ask(&self, method: &str, request: ServerRequest) -> Result<ClientResult, Error> {
        if self.cancellation.is_cancelled() {
            return Err(Error::Cancelled);
        }
        let options = self.timeout.map_or_else(
            PeerRequestOptions::no_options,
            PeerRequestOptions::with_timeout,
        );
        let handle = self
            .peer
            .send_request_with_option(request, options)
            .await
            .map_err(|err| peer_error(method, err))?;
        let mut pending = Pending {
            peer: self.peer.clone(),
            id: Some(handle.id.clone()),
        };
        let response = tokio::select! {
            biased;
            response = handle.await_response() => response,
            () = self.cancellation.cancelled() => {
                pending.cancel().await;
                return Err(Error::Cancelled);
            }
        };
        // Answered, or cancelled by `rmcp` itself (timeout) or a closed transport.
        pending.id = None;
        response.map_err(|err| match err {
            ServiceError::Timeout { timeout } => Error::Protocol {
                code: i64::from(ErrorCode::INTERNAL_ERROR.0),
                message: format!(
                    "{method}: the client did not answer within {timeout:?} \
                     (client_request_timeout); the request was cancelled"
                ),
                data: None,
            },
            other => peer_error(method, other),
        })
    }
}

/// The reason sent with the `notifications/cancelled` of a request to the client whose call
/// no longer waits for it.
const CALL_ENDED: &str = "the tools/call that sent this request was cancelled or ended";

/// A request sent to the client and not yet answered: cancelled with
/// `notifications/cancelled` unless disarmed (`id` taken), also when dropped.
struct Pending {
    peer: Peer<RoleServer>,
    id: Option<RequestId>,
}

impl Pending {
    /// Sends `notifications/cancelled` for the request, which also makes `rmcp` forget it.
    async fn cancel(&mut self) {
        if let Some(id) = self.id.take() {
            send_cancelled(&self.peer, id).await;
        }
    }
}

/// `notifications/cancelled` for request `id`; `rmcp` forgets the request as it sends it.
async fn send_cancelled(peer: &Peer<RoleServer>, id: RequestId) {
    let params = CancelledNotificationParam::new(Some(id), Some(CALL_ENDED.to_owned()));
    // A closed transport has nothing left to cancel.
    let _ = peer.notify_cancelled(params).await;
}

impl Drop for Pending {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else {
            return;
        };
        // The handler dropped the request's future: cancel it from a task of its own (a drop
        // cannot wait). The one task not owned by a `TaskSet`: its owner, the call, is what is
        // being dropped, and the notification must still go; it is one write, ending once sent
        // or once the transport closes. Without a runtime there is no `rmcp` peer running
        // either; a task dropped unrun (the runtime shutting down) sends nothing.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            let peer = self.peer.clone();
            runtime.spawn(async move { send_cancelled(&peer, id).await });
        }
    }
}

/// The client's result as JSON, when it is the kind `method` calls for.
fn result_json<R: Serialize>(method: &str, result: Option<R>) -> Result<Value, Error> {
    let result = result.ok_or_else(|| Error::Protocol {
        code: i64::from(ErrorCode::INTERNAL_ERROR.0),
        message: format!("the client answered {method} with another method's result"),
        data: None,
    })?;
    to_wire(&result).map_err(|err| Error::Protocol {
        code: i64::from(ErrorCode::INTERNAL_ERROR.0),
        message: format!("the client's {method} result does not convert to JSON: {err}"),
        data: None,
    })
}

/// Params `rmcp` cannot read: JSON-RPC `-32602`, naming the method.
fn invalid_params(method: &str, err: &serde_json::Error) -> Error {
    Error::Protocol {
        code: i64::from(ErrorCode::INVALID_PARAMS.0),
        message: format!("invalid {method} params: {err}"),
        data: None,
    }
}

/// What went wrong sending to the client: the client's JSON-RPC error as it is, anything else
/// (a closed transport, a timeout) as `-32603`.
fn peer_error(method: &str, err: ServiceError) -> Error {
    match err {
        ServiceError::McpError(data) => Error::Protocol {
            code: i64::from(data.code.0),
            message: data.message.into_owned(),
            data: data.data,
        },
        other => Error::Protocol {
            code: i64::from(ErrorCode::INTERNAL_ERROR.0),
            message: format!("{method}: {other}"),
            data: None,
        },
    }
}

/// The client did not declare the capability a request needs (MCP: a server sends
/// `sampling/createMessage`, `elicitation/create` and `roots/list` only to clients that
/// declared them; MCP 2026-07-28 `MissingRequiredClientCapability`).
fn undeclared(method: &str) -> Error {
    let capability = match method {
        "sampling/createMessage" => "sampling",
        "roots/list" => "roots",
        _ => "elicitation",
    };
    Error::Protocol {
        code: toolmodel::input::MISSING_REQUIRED_CLIENT_CAPABILITY,
        message: format!("{method}: the client did not declare the {capability} capability"),
        data: Some(serde_json::json!({"requiredCapabilities": {capability: {}}})),
    }
}

impl CallPeer for RmcpPeer {
    fn progress(&self, notification: ProgressNotification) -> BoxFuture<'_, Result<(), Error>> {
        const METHOD: &str = "notifications/progress";
        Box::pin(async move {
            let params: ProgressNotificationParam = to_wire(&notification)
                .and_then(from_wire)
                .map_err(|err| invalid_params(METHOD, &err))?;
            self.peer
                .notify_progress(params)
                .await
                .map_err(|err| peer_error(METHOD, err))
        })
    }

    fn log(&self, notification: LogNotification) -> BoxFuture<'_, Result<(), Error>> {
        const METHOD: &str = "notifications/message";
        Box::pin(async move {
            if !self.log.sends(notification.level) {
                return Ok(());
            }
            let params: LoggingMessageNotificationParam = to_wire(&notification)
                .and_then(from_wire)
                .map_err(|err| invalid_params(METHOD, &err))?;
            let sent = self.peer.notify_logging_message(params).await;
            sent.map_err(|err| peer_error(METHOD, err))
        })
    }

    fn elicitation_complete(&self, elicitation_id: &str) -> BoxFuture<'_, Result<(), Error>> {
        const METHOD: &str = "notifications/elicitation/complete";
        let params = serde_json::json!({"elicitationId": elicitation_id});
        Box::pin(async move {
            let notification = rmcp::model::CustomNotification::new(METHOD, Some(params));
            self.peer
                .send_notification(rmcp::model::ServerNotification::CustomNotification(
                    notification,
                ))
                .await
                .map_err(|err| peer_error(METHOD, err))
        })
    }

    fn create_message(&self, params: Value) -> BoxFuture<'_, Result<Value, Error>> {
        const METHOD: &str = "sampling/createMessage";
        Box::pin(async move {
            self.allows(METHOD, |client| client.sampling.is_some())?;
            let params: CreateMessageRequestParams =
                from_wire(params).map_err(|err| invalid_params(METHOD, &err))?;
            // What `rmcp`'s `Peer::create_message` checks before sending (SEP-1577).
            if (params.tools.is_some() || params.tool_choice.is_some())
                && !self.peer.supports_sampling_tools()
            {
                return Err(Error::Protocol {
                    code: i64::from(ErrorCode::INVALID_PARAMS.0),
                    message: format!(
                        "{METHOD}: tools or toolChoice given, but the client did not declare \
                         the sampling.tools capability"
                    ),
                    data: None,
                });
            }
            params.validate().map_err(|err| Error::Protocol {
                code: i64::from(ErrorCode::INVALID_PARAMS.0),
                message: format!("invalid {METHOD} params: {err}"),
                data: None,
            })?;
            let request = ServerRequest::CreateMessageRequest(CreateMessageRequest::new(params));
            let result = match self.ask(METHOD, request).await? {
                ClientResult::CreateMessageResult(result) => Some(result),
                _ => None,
            };
            result_json(METHOD, result)
        })
    }

    fn elicit(&self, params: Value) -> BoxFuture<'_, Result<Value, Error>> {
        const METHOD: &str = "elicitation/create";
        Box::pin(async move {
            self.allows(METHOD, |client| client.elicitation.is_some())?;
            let params: ElicitRequestParams =
                from_wire(params).map_err(|err| invalid_params(METHOD, &err))?;
            let request = ServerRequest::ElicitRequest(ElicitRequest::new(params));
            let result = match self.ask(METHOD, request).await? {
                ClientResult::ElicitResult(result) => Some(result),
                _ => None,
            };
            result_json(METHOD, result)
        })
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<Value, Error>> {
        const METHOD: &str = "roots/list";
        Box::pin(async move {
            self.allows(METHOD, |client| client.roots.is_some())?;
            let request = ServerRequest::ListRootsRequest(ListRootsRequest {
                method: Default::default(),
                extensions: Default::default(),
            });
            let result = match self.ask(METHOD, request).await? {
                ClientResult::ListRootsResult(result) => Some(result),
                _ => None,
            };
            result_json(METHOD, result)
        })
    }

    /// tokio's `sleep`: the server enforces each tool's `timeout` (`timeoutMs`).
    fn sleep(&self, duration: Duration) -> Option<BoxFuture<'static, ()>> {
        Some(Box::pin(tokio::time::sleep(duration)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_filters_send_what_the_request_asked_for() {
        assert!(!LogFilter::Off.sends(LoggingLevel::Emergency));
        assert!(LogFilter::All.sends(LoggingLevel::Debug));
        let warning = LogFilter::AtLeast(LoggingLevel::Warning);
        assert!(!warning.sends(LoggingLevel::Info));
        assert!(warning.sends(LoggingLevel::Warning));
        assert!(warning.sends(LoggingLevel::Error));
    }

    #[test]
    fn undeclared_capabilities_name_themselves() {
        let Error::Protocol { code, data, .. } = undeclared("roots/list") else {
            panic!("a protocol error")
        };
        assert_eq!(code, -32021);
        assert_eq!(
            data,
            Some(serde_json::json!({"requiredCapabilities": {"roots": {}}}))
        );
    }
}
