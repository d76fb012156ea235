//! One call of an upstream tool: `tools/call` with the server's timeouts, the caller's
//! cancellation sent upstream, and every failure an `isError` result naming the server.
//!
//! The arguments reaching here were validated against the tool's `inputSchema` by the
//! [`Toolbox`](toolmodel::Toolbox) already: bad arguments never cross the network.
//!
//! | what happens | the caller gets |
//! |---|---|
//! | the server answers | its `CallToolResult` (then checked against the `outputSchema` by the toolbox) |
//! | the server answers a JSON-RPC error | that error ([`ToolError::protocol`]) |
//! | the server is down, or its session cannot be opened | `isError`: `server "<name>" is unavailable: <cause>` |
//! | more than [`MAX_PENDING_CALLS`](super::upstream::MAX_PENDING_CALLS) calls on the server | `isError`, at once |
//! | no answer within the server's `timeout` (restarted by progress) or `maxTotalTimeout` | `isError` naming the limit; `notifications/cancelled` sent upstream |
//! | the connection closes during the call (a child process killed) | `isError` naming the cause; the next call opens a new session |
//! | the caller cancels, or the call is dropped (a [`Tool::timeout`](toolmodel::Tool::timeout) fired) | `notifications/cancelled` sent upstream |
//! | the server asks for input with an `InputRequiredResult` (MCP 2026-07-28) | `isError`: not relayed (the session speaks 2025-11-25, so servers ask with `elicitation/create` instead, which is relayed) |

use rmcp::{
    model::{
        CallToolRequest, CallToolRequestParams, CancelledNotification, CancelledNotificationParam,
        ClientRequest, RequestId, ServerResult,
    },
    service::{Peer, PeerRequestOptions, RoleClient, ServiceError},
};
use serde_json::{Map, Value};
use toolmodel::{CallContext, CallToolResult, ToolError};

use crate::convert::message::{from_wire, to_wire};
use crate::federation::relay::token_key;
use crate::federation::upstream::Upstream;

/// How many times a call yields after its answer, for the notifications before it.
const SETTLE_YIELDS: usize = 4;

/// Calls `tool` (the server's name for it) on `upstream` with validated `arguments`.
/// `reopened` runs when the call had to open a new session after an earlier one (the tools
/// are imported again).
///
/// # Errors
///
/// [`ToolError::protocol`] for a JSON-RPC error the server answered; every other failure is
/// an `isError` result (see the [module docs](self)).
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
            "server {server:?} has too many calls pending ({}); try again later",
            super::upstream::MAX_PENDING_CALLS
        )));
    };
    let (peer, generation) = match upstream.peer().await {
        Ok(opened) => {
            if opened.reopened {
                reopened();
            }
            (opened.peer, opened.generation)
        }
        Err(why) => {
            return Ok(CallToolResult::error(format!(
                "server {server:?} is unavailable: {}",
                why.0
            )));
        }
    };
    let timeouts = upstream.config.timeouts;
    let options = PeerRequestOptions::with_timeout(timeouts.request)
        .reset_timeout_on_progress()
        .with_max_total_timeout(timeouts.max_total);
    let mut params = CallToolRequestParams::new(tool.to_owned());
    params.arguments = Some(arguments);
    let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
    let handle = match peer.send_request_with_option(request, options).await {
        Ok(handle) => handle,
        Err(err) => return Ok(transport_failed(upstream, generation, &err).await),
    };
    let _registered = upstream
        .calls
        .enter(token_key(&handle.progress_token), cx.clone());
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
    // rmcp hands each notification to a task of its own, spawned before it delivers the answer
    // that followed it; the answer's waker runs this task first. Yielding lets the logs and
    // progress the server sent before its answer reach the caller before the result does.
    for _ in 0..SETTLE_YIELDS {
        tokio::task::yield_now().await;
    }
    match outcome {
        Ok(ServerResult::CallToolResult(result)) => to_wire(&result)
            .and_then(from_wire::<CallToolResult>)
            .or_else(|err| {
                Ok(CallToolResult::error(format!(
                    "server {server:?} sent a CallToolResult that cannot be read: {err}"
                )))
            }),
        Ok(ServerResult::InputRequiredResult(_)) => Ok(CallToolResult::error(format!(
            "server {server:?} asked for input with an InputRequiredResult (MCP 2026-07-28), which the federation does not relay"
        ))),
        Ok(_) => Ok(CallToolResult::error(format!(
            "server {server:?} answered tools/call with something other than a CallToolResult"
        ))),
        Err(ServiceError::McpError(error)) => Err(ToolError::protocol(
            i64::from(error.code.0),
            format!("server {server:?}: {}", error.message),
        )),
        Err(ServiceError::Timeout { timeout }) => Ok(CallToolResult::error(format!(
            "server {server:?} did not answer within {} ms (its timeout; notifications/cancelled sent)",
            timeout.as_millis()
        ))),
        Err(err) => Ok(transport_failed(upstream, generation, &err).await),
    }
}

/// The `isError` result of a call whose session failed, which is marked down.
async fn transport_failed(
    upstream: &Upstream,
    generation: u64,
    err: &ServiceError,
) -> CallToolResult {
    let cause = format!("the connection failed: {err}");
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
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = peer.send_notification(notification.into()).await;
            });
        }
    }
}
