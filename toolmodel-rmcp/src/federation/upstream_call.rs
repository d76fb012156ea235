//! One call of an upstream tool: `tools/call` with the server's timeouts, the caller's
//! cancellation sent upstream, and every failure an `isError` result naming the server (the
//! table is on [`Federation`](super::Federation)).

// Logging is deprecated by SEP-2577 (MCP 2026-07-28); its upstreams still send logs when a
// request asks for them (`io.modelcontextprotocol/logLevel`).
#![allow(deprecated)]

use std::{collections::BTreeSet, sync::Arc};

use rmcp::{
    model::{
        CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
        ClientCapabilities, ClientRequest, LoggingLevel, ProtocolVersion, RequestId,
        RequestMetaObject, ServerResult,
    },
    service::{Peer, PeerRequestOptions, RoleClient, ServiceError},
};
use serde_json::{Map, Value};
use toolmodel::{CallContext, CallToolResult, ToolError};

use crate::convert::message::{from_wire, to_wire};
use crate::federation::relay::{Sending, token_key};
use crate::federation::rounds::Pending;
use crate::federation::upstream::Upstream;
use crate::telemetry::client_operation::{ClientOperation, Failure};
use tracing::Instrument as _;

/// The most `InputRequiredResult`s one run of a call relays before it gives up: a caller of
/// MCP 2025-11-25 answers every round in one run; a 2026-07-28 caller's rounds are one per
/// run.
pub const MAX_INPUT_ROUNDS: usize = 16;

/// The handler of one upstream tool in a federation's [`Toolbox`](toolmodel::Toolbox): which
/// server, the tool's name there, and what to do when a call had to open a new session (the
/// federation imports the server's tools again).
#[derive(Clone)]
pub(crate) struct UpstreamTool {
    pub(crate) upstream: Arc<Upstream>,
    /// The tool's name on its server (the gateway may serve it under another).
    pub(crate) remote: Arc<str>,
    /// Called with the server's name when the call opened a new session.
    pub(crate) reopened: Arc<dyn Fn(&str) + Send + Sync>,
}

impl UpstreamTool {
    /// One call of the tool: see [`call_upstream`].
    pub(crate) async fn call(
        self,
        arguments: Map<String, Value>,
        cx: CallContext,
    ) -> Result<CallToolResult, ToolError> {
        if let Some(users) = &self.upstream.users {
            // A credentialed server: on the caller's own session, with its own token; its
            // tools are imported by the shared session.
            let session = users.session_for(&self.upstream, &cx).await?;
            return call_upstream(&session, &self.remote, arguments, cx, &|| {}).await;
        }
        let server = self.upstream.config.name.clone();
        let reopened = self.reopened;
        let reopened = move || reopened(&server);
        call_upstream(&self.upstream, &self.remote, arguments, cx, &reopened).await
    }
}

/// Calls `tool` (the server's name for it) on `upstream` with validated `arguments`.
/// `reopened` runs when the call had to open a new session after an earlier one (the tools
/// are imported again).
///
/// # Errors
///
/// [`ToolError::protocol`] for a JSON-RPC error the server answered; what
/// [`CallContext::input`] returns while the server asks for input; every other failure is
/// an `isError` result (the table on [`Federation`](super::Federation)).
pub(crate) async fn call_upstream(
    upstream: &Upstream,
    tool: &str,
    arguments: Map<String, Value>,
    cx: CallContext,
    reopened: &(dyn Fn() + Send + Sync),
) -> Result<CallToolResult, ToolError> {
    let server = &upstream.config.name;
    let Ok(_permit) = upstream.pending.try_acquire() else {
        return Ok(CallToolResult::error(format!(
            "server {server:?} has {} calls pending, its limit (maxConcurrentCalls); try again later",
            upstream.config.max_concurrent_calls
        )));
    };
    // The upstream's input round this call continues (MCP 2026-07-28), if any.
    let mut pending = Pending::carried(&cx);
    let mut answered = BTreeSet::new();
    for _ in 0..=MAX_INPUT_ROUNDS {
        let mut params = CallToolRequestParams::new(tool.to_owned());
        params.arguments = Some(arguments.clone());
        if let Some(pending) = pending.take() {
            let responses = pending.ask(&cx, server).await?;
            answered.extend(pending.asked.into_keys());
            if responses.is_empty() {
                // A round of state only: the server asks to be called again (MCP 2026-07-28).
                tokio::time::sleep(STATE_ONLY_PAUSE).await;
            } else {
                params.input_responses = Some(responses);
            }
            params.request_state = pending.upstream_state;
        }
        match round(upstream, params, &cx, reopened).await? {
            Answer::Done(result) => return Ok(result),
            Answer::InputRequired(result) => {
                let next = Pending::new(*result, &answered).map_err(|why| {
                    ToolError::protocol(-32603, format!("server {server:?}: {why}"))
                })?;
                pending = Some(next);
            }
        }
    }
    Ok(CallToolResult::error(format!(
        "server {server:?} asked for input more than {MAX_INPUT_ROUNDS} times in a row"
    )))
}

/// The pause before the retry of a round that asked nothing (state only).
const STATE_ONLY_PAUSE: std::time::Duration = std::time::Duration::from_millis(50);

/// What one `tools/call` of the upstream gave.
enum Answer {
    /// The call's result (an `isError` one for a failure).
    Done(CallToolResult),
    /// The server asks for input (MCP 2026-07-28).
    InputRequired(Box<rmcp::model::InputRequiredResult>),
}

/// The request `_meta` of a call over a 2026-07-28 session: the caller's capabilities (when
/// known) and the log level; `None` over older sessions.
fn modern_meta(peer: &Peer<RoleClient>, cx: &CallContext) -> Option<RequestMetaObject> {
    let modern = peer
        .peer_info()
        .is_some_and(|info| info.protocol_version >= ProtocolVersion::V_2026_07_28);
    if !modern {
        return None;
    }
    let mut meta = RequestMetaObject::default();
    meta.set_log_level(LoggingLevel::Debug);
    if let Some(capabilities) = cx
        .client_capabilities()
        .and_then(|caps| from_wire::<ClientCapabilities>(caps.clone()).ok())
    {
        meta.set_client_capabilities(capabilities);
    }
    Some(meta)
}

/// One `tools/call` of the upstream with `params`, inside its CLIENT span (`telemetry`).
///
/// # Errors
///
/// [`ToolError::protocol`] for a JSON-RPC error the server answered;
/// [`ToolError::Cancelled`] when the caller cancelled.
async fn round(
    upstream: &Upstream,
    params: CallToolRequestParams,
    cx: &CallContext,
    reopened: &(dyn Fn() + Send + Sync),
) -> Result<Answer, ToolError> {
    let mut operation =
        ClientOperation::start(&upstream.config.name, &params.name, &upstream.peer_address);
    let span = operation.span().clone();
    let answer = traced_round(upstream, params, cx, reopened, &mut operation)
        .instrument(span)
        .await;
    let tool_error = matches!(&answer, Ok(Answer::Done(result)) if result.is_error());
    if let Err(ToolError::Protocol { code, message, .. }) = &answer {
        operation.failed(Failure::JsonRpc {
            code: i32::try_from(*code).unwrap_or(i32::MIN),
            message: message.clone(),
        });
    }
    operation.finish(tool_error);
    answer
}

/// [`round`], with its span's `operation` to tell what it learns.
async fn traced_round(
    upstream: &Upstream,
    params: CallToolRequestParams,
    cx: &CallContext,
    reopened: &(dyn Fn() + Send + Sync),
    operation: &mut ClientOperation,
) -> Result<Answer, ToolError> {
    let server = &upstream.config.name;
    let (peer, generation) = match upstream.peer().await {
        Ok(opened) => {
            if opened.reopened {
                reopened();
            }
            (opened.peer, opened.generation)
        }
        Err(why) => {
            let message = format!("server {server:?} is unavailable: {}", why.0);
            operation.failed(Failure::Unavailable {
                message: message.clone(),
            });
            return Ok(Answer::Done(CallToolResult::error(message)));
        }
    };
    if let Some(info) = peer.peer_info() {
        operation.negotiated(info.protocol_version.as_str());
    }
    let timeouts = upstream.config.timeouts;
    let mut options = PeerRequestOptions::with_timeout(timeouts.request)
        .reset_timeout_on_progress()
        .with_max_total_timeout(timeouts.max_total);
    let mut meta = modern_meta(&peer, cx).unwrap_or_default();
    operation.inject(&mut meta);
    if !meta.is_empty() {
        options = options.with_meta(meta);
    }
    let sending = Sending::new(cx.clone());
    let mut request = CallToolRequest::new(params);
    request.extensions.insert(sending.clone());
    let request = ClientRequest::CallToolRequest(request);
    let handle = match peer.send_request_with_option(request, options).await {
        Ok(handle) => handle,
        Err(err) => {
            let result = transport_failed(upstream, generation, &err).await;
            operation.failed(Failure::Unavailable {
                message: result_text(&result),
            });
            return Ok(Answer::Done(result));
        }
    };
    operation.sent(&handle.id);
    let registered = upstream.calls.enter(
        token_key(&handle.progress_token),
        handle.id.clone(),
        sending,
    );
    let mut guard = CancelOnDrop {
        peer: Some(peer.clone()),
        id: handle.id.clone(),
    };
    let outcome = tokio::select! {
        outcome = handle.await_response() => outcome,
        () = cx.cancelled() => {
            // The guard sends `notifications/cancelled`.
            return Err(ToolError::Cancelled);
        }
    };
    guard.peer = None;
    // The progress and logs the server sent before its answer reach the caller first.
    registered.settle().await;
    let result = match outcome {
        Ok(ServerResult::CallToolResult(result)) => to_wire(&result)
            .and_then(from_wire::<CallToolResult>)
            .unwrap_or_else(|err| {
                CallToolResult::error(format!(
                    "server {server:?} sent a CallToolResult that cannot be read: {err}"
                ))
            }),
        Ok(ServerResult::InputRequiredResult(result)) => {
            return Ok(Answer::InputRequired(Box::new(result)));
        }
        Ok(_) => CallToolResult::error(format!(
            "server {server:?} answered tools/call with something other than a CallToolResult"
        )),
        Err(ServiceError::McpError(error)) => {
            let redactor = &upstream.redactor;
            return Err(ToolError::Protocol {
                code: i64::from(error.code.0),
                message: format!("server {server:?}: {}", redactor.text(&error.message)),
                data: error.data.map(|data| redactor.json(data)),
            });
        }
        Err(ServiceError::Timeout { timeout }) => {
            operation.failed(Failure::Timeout);
            CallToolResult::error(format!(
                "server {server:?} did not answer within {} ms (its timeout; notifications/cancelled sent)",
                timeout.as_millis()
            ))
        }
        Err(err) => {
            let result = transport_failed(upstream, generation, &err).await;
            operation.failed(Failure::Unavailable {
                message: result_text(&result),
            });
            result
        }
    };
    Ok(Answer::Done(result))
}

/// The text of an `isError` result made here, for the span's status description.
fn result_text(result: &CallToolResult) -> String {
    result
        .content
        .iter()
        .find_map(|block| match block {
            toolmodel::content::ContentBlock::Text(text) => Some(text.text.clone()),
            _ => None,
        })
        .unwrap_or_default()
}

/// The `isError` result of a call whose session failed, which is marked down.
async fn transport_failed(
    upstream: &Upstream,
    generation: u64,
    err: &ServiceError,
) -> CallToolResult {
    let cause = format!("the connection failed: {}", upstream.redactor.error(err));
    upstream.failed(generation, &cause).await;
    CallToolResult::error(format!(
        "server {:?} is unavailable: {cause}",
        upstream.config.name
    ))
}

/// Sends `notifications/cancelled` for a request when dropped before its answer (MCP
/// "Cancellation"): the caller cancelled, or the call's future was dropped by a timeout.
struct CancelOnDrop {
    /// `None` once the answer arrived.
    peer: Option<Peer<RoleClient>>,
    id: RequestId,
}

impl Drop for CancelOnDrop {
    fn drop(&mut self) {
        let Some(peer) = self.peer.take() else {
            return;
        };
        let notification = CancelledNotification::new(CancelledNotificationParam::new(
            Some(self.id.clone()),
            Some("the caller cancelled the call".into()),
        ));
        // Not owned by a `TaskSet`: its owner, the call, is what is being dropped, and the
        // upstream must still hear of it; one write, ending once sent or the transport closed.
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = peer.send_notification(notification.into()).await;
            });
        }
    }
}
