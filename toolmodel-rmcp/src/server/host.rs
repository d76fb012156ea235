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

/// Sends a call's notifications and requests to the client that made it.
pub(crate) struct PeerHost {
    peer: Peer<RoleServer>,
    /// The lowest level sent; `None`: every level.
    log_level: Option<LogLevel>,
    /// What the client declared (at `initialize`, or in the request's `_meta`).
    capabilities: Option<ClientCapabilities>,
}

impl PeerHost {
    pub(crate) fn new(
        peer: Peer<RoleServer>,
        log_level: Option<LogLevel>,
        capabilities: Option<ClientCapabilities>,
    ) -> Self {
        Self {
            peer,
            log_level,
            capabilities,
        }
    }

    /// Whether the client declared a capability (`pick` reads it).
    fn declares(&self, pick: impl Fn(&ClientCapabilities) -> bool) -> bool {
        self.capabilities.as_ref().is_some_and(pick)
    }
}

/// Sends one request to the client: refused unless the client `declared` its `capability`,
/// `params` read as `rmcp`'s type `P`, the client's result given back as JSON.
async fn client_request<P, R, Fut>(
    method: &str,
    capability: &str,
    declared: bool,
    params: Value,
    send: impl FnOnce(P) -> Fut,
) -> Result<Value, Error>
where
    P: DeserializeOwned,
    R: Serialize,
    Fut: Future<Output = Result<R, ServiceError>>,
{
    if !declared {
        return Err(undeclared(method, capability));
    }
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
/// `sampling/createMessage` and `elicitation/create` only to clients that declared them).
fn undeclared(method: &str, capability: &str) -> Error {
    Error::Protocol {
        code: i64::from(ErrorCode::METHOD_NOT_FOUND.0),
        message: format!("{method}: the client did not declare the {capability} capability"),
        data: None,
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
            if self
                .log_level
                .is_some_and(|lowest| notification.level < lowest)
            {
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
        let declared = self.declares(|client| client.sampling.is_some());
        Box::pin(client_request(
            "sampling/createMessage",
            "sampling",
            declared,
            params,
            |params| self.peer.create_message(params),
        ))
    }

    fn elicit(&self, params: Value) -> BoxFuture<'_, Result<Value, Error>> {
        let declared = self.declares(|client| client.elicitation.is_some());
        Box::pin(client_request(
            "elicitation/create",
            "elicitation",
            declared,
            params,
            |params| self.peer.create_elicitation(params),
        ))
    }
}
