//! [`PeerHost`]: the [`CallHost`] of a `tools/call` request, over `rmcp`'s peer.

// Logging and sampling are deprecated by SEP-2577 (MCP 2026-07-28); MCP 2025-11-25 clients,
// which this server serves, use them.
#![allow(deprecated)]

use std::future::Future;

use rmcp::{
    Peer, RoleServer,
    model::{
        ClientCapabilities, ErrorCode, LoggingMessageNotificationParam, ProgressNotificationParam,
    },
    service::ServiceError,
};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;
use toolmodel::{BoxFuture, CallHost, Error, LogLevel, LogNotification, ProgressNotification};

use super::wire::{from_wire, to_wire};

/// Which log notifications a call sends.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LogFilter {
    /// None (MCP 2026-07-28: the request carries no `io.modelcontextprotocol/logLevel`).
    Off,
    /// Those at or above this level.
    AtLeast(LogLevel),
    /// Every level (before 2026-07-28, without `logging/setLevel`).
    All,
}

impl LogFilter {
    fn sends(self, level: LogLevel) -> bool {
        match self {
            Self::Off => false,
            Self::AtLeast(lowest) => level >= lowest,
            Self::All => true,
        }
    }
}

/// Sends a call's notifications and requests to the client that made it.
pub(crate) struct PeerHost {
    peer: Peer<RoleServer>,
    log: LogFilter,
    /// What the client declared (at `initialize`, or in the request's `_meta`).
    capabilities: Option<ClientCapabilities>,
    /// MCP 2026-07-28: no server-to-client requests (input goes by `InputRequiredResult`).
    rounds: bool,
}

impl PeerHost {
    pub(crate) fn new(
        peer: Peer<RoleServer>,
        log: LogFilter,
        capabilities: Option<ClientCapabilities>,
        rounds: bool,
    ) -> Self {
        Self {
            peer,
            log,
            capabilities,
            rounds,
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

/// Sends one request to the client, unless `allowed` says why not: `params` read as
/// `rmcp`'s type `P`, the client's result given back as JSON.
async fn client_request<P, R, Fut>(
    method: &str,
    allowed: Result<(), Error>,
    params: Value,
    send: impl FnOnce(P) -> Fut,
) -> Result<Value, Error>
where
    P: DeserializeOwned,
    R: Serialize,
    Fut: Future<Output = Result<R, ServiceError>>,
{
    allowed?;
    let params = from_wire(params).map_err(|err| invalid_params(method, &err))?;
    let result = send(params).await.map_err(|err| peer_error(method, err))?;
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
        code: toolmodel::MISSING_REQUIRED_CLIENT_CAPABILITY,
        message: format!("{method}: the client did not declare the {capability} capability"),
        data: Some(serde_json::json!({"requiredCapabilities": {capability: {}}})),
    }
}

impl CallHost for PeerHost {
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

    fn create_message(&self, params: Value) -> BoxFuture<'_, Result<Value, Error>> {
        const METHOD: &str = "sampling/createMessage";
        let allowed = self.allows(METHOD, |client| client.sampling.is_some());
        Box::pin(client_request(METHOD, allowed, params, |params| {
            self.peer.create_message(params)
        }))
    }

    fn elicit(&self, params: Value) -> BoxFuture<'_, Result<Value, Error>> {
        const METHOD: &str = "elicitation/create";
        let allowed = self.allows(METHOD, |client| client.elicitation.is_some());
        Box::pin(client_request(METHOD, allowed, params, |params| {
            self.peer.create_elicitation(params)
        }))
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<Value, Error>> {
        const METHOD: &str = "roots/list";
        let allowed = self.allows(METHOD, |client| client.roots.is_some());
        Box::pin(client_request(METHOD, allowed, Value::Null, |()| {
            self.peer.list_roots()
        }))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn log_filters_send_what_the_request_asked_for() {
        assert!(!LogFilter::Off.sends(LogLevel::Emergency));
        assert!(LogFilter::All.sends(LogLevel::Debug));
        let warning = LogFilter::AtLeast(LogLevel::Warning);
        assert!(!warning.sends(LogLevel::Info));
        assert!(warning.sends(LogLevel::Warning));
        assert!(warning.sends(LogLevel::Error));
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
