//! What a `tools/call` runs with, the same for an ordinary call and a task (`running_tasks/mod.rs`): the
//! request's protocol version, its per-request rules (MCP 2026-07-28: the client's
//! capabilities from `_meta`, log notifications only at or above the request's
//! `io.modelcontextprotocol/logLevel`), its input rounds (the answers carried in a sealed
//! `requestState` and the retry's `inputResponses`), and the `InputRequiredResult` a call that
//! needs input gets; and an ordinary call, run to its result.

use std::sync::Arc;

use rmcp::{
    ErrorData, RoleServer,
    model::{CallToolRequestParams, CallToolResponse, InputRequests, InputRequiredResult},
    service::RequestContext,
};
use toolmodel::{
    CallContext, Caller, Cancellation, ProtocolVersion, Toolbox,
    input::{InputRequired, RoundState},
    peer::CallPeer,
};

use super::{
    peer::{self, RmcpPeer},
    toolbox_server::ToolboxServer,
};
use crate::convert::message::{self, error_data, from_wire, to_wire};

/// A `tools/call` ready to run: its context and what the server needs around it.
pub(crate) struct Prepared {
    /// The handler's context.
    pub(crate) cx: CallContext,
    /// The flag the context reads; the server sets it on `notifications/cancelled` (or
    /// `tasks/cancel`).
    pub(crate) cancellation: Cancellation,
    /// The request's protocol version: how the result is written.
    pub(crate) version: ProtocolVersion,
    /// MCP 2026-07-28: input by multi round-trip requests.
    pub(crate) rounds: bool,
}

/// The caller the HTTP front's gate verified for the request of `context` (in the HTTP
/// request's extensions, which `rmcp` hands on); `None` over stdio or without authorization.
pub(crate) fn caller(context: &RequestContext<RoleServer>) -> Option<&Caller> {
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<Arc<Caller>>())
        .map(Arc::as_ref)
}

/// The toolbox the HTTP front checked a request's tool scopes against, in the request's
/// extensions (with authorization): a call of that request runs on it, so a tool whose
/// `required_scopes` changed meanwhile ([`ToolboxServer::set_toolbox`]) is never run under
/// the scopes of another version of it.
#[derive(Clone, Debug)]
pub(crate) struct ScopesCheckedOn(pub(crate) Toolbox);

/// The toolbox of a request's [`ScopesCheckedOn`], if the front pinned one.
pub(crate) fn scopes_checked_on(context: &RequestContext<RoleServer>) -> Option<&Toolbox> {
    context
        .extensions
        .get::<http::request::Parts>()
        .and_then(|parts| parts.extensions.get::<ScopesCheckedOn>())
        .map(|checked| &checked.0)
}

impl ToolboxServer {
    /// An ordinary `tools/call` (not a task) of a tool of `toolbox`, run to its result:
    /// [`Toolbox::call`] with the request's context; `notifications/cancelled` (which cancels
    /// `context.ct`) reaches the handler through the context's cancellation, and the handler
    /// decides how to stop.
    ///
    /// # Errors
    ///
    /// What [`prepare_call`](Self::prepare_call) refuses; the JSON-RPC error of a call that
    /// fails ([`toolmodel::Error::jsonrpc_code`]: `-32602` for an unknown tool); `-32603` for a
    /// result the request's version cannot express. Under MCP 2026-07-28, a handler that asks
    /// for input gets its `InputRequiredResult` instead (an `Ok`).
    pub(crate) async fn call(
        &self,
        toolbox: &Toolbox,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let call = self.prepare_call(&request, &context, |peer| Arc::new(peer))?;
        // Input rounds seal the arguments into `requestState`, so they keep a copy.
        let arguments = if call.rounds {
            request.arguments.clone()
        } else {
            request.arguments.take()
        };
        let result = toolbox.call(&request.name, arguments, &call.cx);
        tokio::pin!(result);
        let result = tokio::select! {
            result = &mut result => result,
            () = context.ct.cancelled() => {
                call.cancellation.cancel();
                result.await
            }
        };
        let result = match result {
            Err(toolmodel::Error::InputRequired(required)) if call.rounds => {
                return self.input_required(&request, &call.cx, &required);
            }
            other => other.map_err(error_data)?,
        };
        Ok(CallToolResponse::Complete(message::result_to_rmcp(
            result,
            call.version,
        )?))
    }

    /// The context of `request`, its peer made by `wrap` from the [`RmcpPeer`] of the
    /// request (an ordinary call uses it as it is; a task wraps it).
    ///
    /// # Errors
    ///
    /// `-32602` for a `progressToken` that is neither a string nor an integer, and for a
    /// `requestState` that is tampered with, foreign, for another call, expired or too large.
    pub(crate) fn prepare_call(
        &self,
        request: &CallToolRequestParams,
        context: &RequestContext<RoleServer>,
        wrap: impl FnOnce(RmcpPeer) -> Arc<dyn CallPeer>,
    ) -> Result<Prepared, ErrorData> {
        let version = message::protocol_version(context.protocol_version());
        let rounds = version >= ProtocolVersion::V2026_07_28;
        let requested = context
            .meta
            .log_level()
            .and_then(|level| message::log_level_from_rmcp(&level));
        let level = if rounds {
            // Logs only for requests that ask for them, at or above their level.
            requested.map_or(peer::LogFilter::Off, peer::LogFilter::AtLeast)
        } else {
            requested
                .or_else(|| self.session_log_level())
                .map_or(peer::LogFilter::All, peer::LogFilter::AtLeast)
        };
        let capabilities = context.client_capabilities();
        let cancellation = Cancellation::new();
        let peer = RmcpPeer::new(
            context.peer.clone(),
            peer::PeerSettings {
                log: level,
                capabilities: capabilities.clone(),
                rounds,
                cancellation: cancellation.clone(),
                timeout: Some(self.http.limits.client_request_timeout),
            },
        );
        let mut cx = CallContext::new()
            .with_peer(wrap(peer))
            .with_cancellation(cancellation.clone())
            .with_meta(context.meta.0.0.clone())
            // A `progressToken` that is neither a string nor an integer: the request's fault.
            .map_err(|err| ErrorData::invalid_params(err.to_string(), None))?;
        if let Some(capabilities) = capabilities.as_ref().and_then(|caps| to_wire(caps).ok()) {
            cx = cx.with_client_capabilities(capabilities);
        }
        if let Some(caller) = caller(context) {
            cx = cx.with_caller(caller.clone());
        }
        if rounds {
            let mut carried = match &request.request_state {
                Some(state) => self.sealer.open(
                    &request.name,
                    request.arguments.as_ref(),
                    caller(context),
                    state,
                )?,
                None => RoundState::default(),
            };
            carried
                .answers
                .extend(request.input_responses.clone().unwrap_or_default());
            cx = cx.with_round_state(carried);
        }
        Ok(Prepared {
            cx,
            cancellation,
            version,
            rounds,
        })
    }

    /// The `InputRequiredResult` of a call whose handler asked for input it does not have
    /// yet: the requests, and a `requestState` sealing what `cx` carries.
    ///
    /// # Errors
    ///
    /// `-32603` when the handler's state and answers seal larger than the limit, or the
    /// requests do not convert to `rmcp`'s type.
    pub(crate) fn input_required(
        &self,
        request: &CallToolRequestParams,
        cx: &CallContext,
        required: &InputRequired,
    ) -> Result<CallToolResponse, ErrorData> {
        let state = self.sealer.seal(
            &request.name,
            request.arguments.as_ref(),
            cx.caller(),
            &cx.round_state(),
        )?;
        let requests: InputRequests = from_wire(required.requests.to_json()).map_err(|err| {
            ErrorData::internal_error(
                format!("inputRequests do not convert to rmcp's type: {err}"),
                None,
            )
        })?;
        Ok(CallToolResponse::InputRequired(InputRequiredResult::new(
            Some(requests),
            Some(state),
        )))
    }
}
