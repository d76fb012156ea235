//! What a `tools/call` runs with, the same for an ordinary call and a task (`tasks.rs`): the
//! request's protocol version, its per-request rules (MCP 2026-07-28: the client's
//! capabilities from `_meta`, log notifications only at or above the request's
//! `io.modelcontextprotocol/logLevel`), its input rounds (the answers carried in a sealed
//! `requestState` and the retry's `inputResponses`), and the `InputRequiredResult` a call that
//! needs input gets.

use std::sync::Arc;

use rmcp::{
    ErrorData, RoleServer,
    model::{CallToolRequestParams, CallToolResponse, InputRequests, InputRequiredResult},
    service::RequestContext,
};
use toolmodel::{
    CallContext, Cancellation, ProtocolVersion,
    host::CallHost,
    input::{InputRequired, RoundState},
};

use super::{
    host::{self, PeerHost},
    toolbox_server::ToolboxServer,
    wire::{self, from_wire, to_wire},
};

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

impl ToolboxServer {
    /// The context of `request`, its host made by `host` from the [`PeerHost`] of the
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
        host: impl FnOnce(PeerHost) -> Arc<dyn CallHost>,
    ) -> Result<Prepared, ErrorData> {
        let version = wire::protocol_version(context.protocol_version());
        let rounds = version >= ProtocolVersion::V2026_07_28;
        let requested = context
            .meta
            .log_level()
            .and_then(|level| wire::log_level_from_rmcp(&level));
        let level = if rounds {
            // Logs only for requests that ask for them, at or above their level.
            requested.map_or(host::LogFilter::Off, host::LogFilter::AtLeast)
        } else {
            requested
                .or_else(|| self.session_log_level())
                .map_or(host::LogFilter::All, host::LogFilter::AtLeast)
        };
        let capabilities = context.client_capabilities();
        let cancellation = Cancellation::new();
        let peer = PeerHost::new(
            context.peer.clone(),
            host::HostSettings {
                log: level,
                capabilities: capabilities.clone(),
                rounds,
                cancellation: cancellation.clone(),
                timeout: Some(self.http.limits.client_request_timeout),
            },
        );
        let mut cx = CallContext::new()
            .with_host(host(peer))
            .with_cancellation(cancellation.clone())
            .with_meta(context.meta.0.0.clone())
            // A `progressToken` that is neither a string nor an integer: the request's fault.
            .map_err(|err| ErrorData::invalid_params(err.to_string(), None))?;
        if let Some(capabilities) = capabilities.as_ref().and_then(|caps| to_wire(caps).ok()) {
            cx = cx.with_client_capabilities(capabilities);
        }
        if rounds {
            let mut carried = match &request.request_state {
                Some(state) => {
                    self.sealer
                        .open(&request.name, request.arguments.as_ref(), state)?
                }
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
        let state =
            self.sealer
                .seal(&request.name, request.arguments.as_ref(), &cx.round_state())?;
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
