//! The client side of an upstream session ([`Relay`], an rmcp `ClientHandler`): what the
//! upstream sends during a call reaches the caller through its [`CallContext`].
//!
//! Each call in flight is registered with its progress token and its JSON-RPC request ID
//! ([`InFlight`]); what the upstream sends goes to the call it belongs to:
//!
//! | the upstream sends | reaches | with several calls in flight |
//! |---|---|---|
//! | `notifications/progress` | [`CallContext::progress`] of the call whose request carried the progress token (each upstream request carries one) | the right call |
//! | `elicitation/create`, `sampling/createMessage`, `roots/list` over Streamable HTTP | [`CallContext::elicit`], [`CallContext::create_message`], [`CallContext::input`] of the call on whose response stream it arrived (rmcp marks it with the request's ID, MCP "Streamable HTTP": requests "related to the originating client request") | the right call |
//! | the same over stdio | the call in flight, when there is exactly one (MCP 2025-11-25 gives a stdio request no field naming the call it serves) | refused: JSON-RPC `-32603` naming the reason, which the upstream sees as the answer to its request |
//! | `notifications/message` (logs), stdio or HTTP | [`CallContext::log`] of the call in flight, when there is exactly one (a log notification names no request on either transport) | dropped (sending it to a caller it may not belong to would leak one caller's data to another) |
//! | `notifications/tools/list_changed` | the federation's re-import | |
//! | prompt and resource `list_changed`, `notifications/resources/updated` | the gateway's downstream sessions ([`Downstream`]) | |
//!
//! An input request reaches a caller only in MCP 2025-11-25 and older: under 2026-07-28 the
//! gateway may not send its client requests outside a task, and holding the upstream's request
//! open until the client retries would tie the call to one gateway replica; such a request
//! is refused (`-32603`). Upstreams that speak 2026-07-28 ask with an `InputRequiredResult`
//! instead, which reaches the caller in both eras (see [`call`](super::call)).

// Sampling and logging are deprecated by SEP-2577 (MCP 2026-07-28); the 2025-11-25 sessions
// this client opens still use them.
#![allow(deprecated)]

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
};

use rmcp::{
    ClientHandler, ErrorData,
    model::{
        ClientCapabilities, ClientConfig, CreateMessageRequestParams, CreateMessageResult,
        ElicitRequestParams, ElicitResult, Implementation, ListRootsResult,
        LoggingMessageNotificationParam, ProgressNotificationParam, RequestId,
        ResourceUpdatedNotificationParam,
    },
    service::{InboundStreamOrigin, NotificationContext, RequestContext, RoleClient},
};
use serde_json::Value;
use toolmodel::{
    CallContext,
    input::{InputRequest, InputRequests},
};

use crate::convert::message::{from_wire, log_level_from_rmcp, to_wire};
use crate::federation::downstream::Downstream;

/// What a session's upstream reaches: the calls in flight and the list-changed hook.
#[derive(Clone)]
pub(crate) struct Relay {
    pub(crate) calls: Arc<InFlight>,
    /// Runs when the upstream's tool list changed.
    pub(crate) list_changed: Arc<dyn Fn() + Send + Sync>,
    /// Hears the upstream's other announcements.
    pub(crate) downstream: Arc<Downstream>,
}

/// The calls in flight on one upstream, by the JSON text of their progress token, each with
/// the ID of its request.
#[derive(Default)]
pub(crate) struct InFlight(Mutex<HashMap<String, (RequestId, CallContext)>>);

impl InFlight {
    /// Registers the call of request `id` (progress token `token`) until the returned guard
    /// is dropped.
    pub(crate) fn enter(
        self: &Arc<Self>,
        token: String,
        id: RequestId,
        cx: CallContext,
    ) -> Registered {
        if let Ok(mut calls) = self.0.lock() {
            calls.insert(token.clone(), (id, cx));
        }
        Registered {
            calls: Arc::clone(self),
            token,
        }
    }

    fn by_token(&self, token: &str) -> Option<CallContext> {
        Some(self.0.lock().ok()?.get(token)?.1.clone())
    }

    /// The call a server-to-client request belongs to: the one whose response stream carried
    /// it (Streamable HTTP), else the one call in flight.
    fn for_request(
        &self,
        context: &RequestContext<RoleClient>,
    ) -> Result<CallContext, &'static str> {
        match context.extensions.get::<InboundStreamOrigin>() {
            Some(InboundStreamOrigin::OutboundRequest(id)) => self
                .0
                .lock()
                .map_err(|_| REGISTRY_FAILED)?
                .values()
                .find(|(request, _)| request == id)
                .map(|(_, cx)| cx.clone())
                .ok_or("the request it belongs to is no longer in flight"),
            Some(InboundStreamOrigin::Unassociated) | None => self.only(),
        }
    }

    /// The one call in flight, if there is exactly one.
    fn only(&self) -> Result<CallContext, &'static str> {
        let calls = self.0.lock().map_err(|_| REGISTRY_FAILED)?;
        let mut all = calls.values();
        match (all.next(), all.next()) {
            (Some((_, cx)), None) => Ok(cx.clone()),
            (None, _) => Err("no call is in flight to relay it to"),
            (Some(_), Some(_)) => Err(
                "several calls are in flight and the request names none of them, so the gateway cannot tell which caller to ask",
            ),
        }
    }
}

/// Why the registry could not be read.
const REGISTRY_FAILED: &str = "the gateway's call registry failed";

/// A registered call; unregisters it when dropped.
pub(crate) struct Registered {
    calls: Arc<InFlight>,
    token: String,
}

impl Drop for Registered {
    fn drop(&mut self) {
        if let Ok(mut calls) = self.calls.0.lock() {
            calls.remove(&self.token);
        }
    }
}

/// The JSON text of a progress token: the key of [`InFlight`].
pub(crate) fn token_key(token: &rmcp::model::ProgressToken) -> String {
    serde_json::to_string(&token.0).unwrap_or_default()
}

/// An input request the caller could not answer, as the JSON-RPC error the upstream receives.
fn refused(what: &str, why: impl std::fmt::Display) -> ErrorData {
    ErrorData::internal_error(format!("the gateway could not relay {what}: {why}"), None)
}

/// Relays one input request to the call it belongs to, as raw JSON both ways.
async fn relay_input<P: serde::Serialize, R: serde::de::DeserializeOwned, E: std::fmt::Display>(
    calls: &InFlight,
    context: &RequestContext<RoleClient>,
    what: &str,
    params: &P,
    ask: impl AsyncFnOnce(CallContext, Value) -> Result<Value, E>,
) -> Result<R, ErrorData> {
    let cx = calls
        .for_request(context)
        .map_err(|why| refused(what, why))?;
    let params = to_wire(params).map_err(|err| refused(what, err))?;
    let answer = ask(cx, params).await.map_err(|err| refused(what, err))?;
    from_wire(answer).map_err(|err| refused(what, err))
}

impl ClientHandler for Relay {
    fn get_info(&self) -> ClientConfig {
        let capabilities = ClientCapabilities::builder()
            .enable_elicitation()
            .enable_sampling()
            .enable_roots()
            .build();
        ClientConfig::new(
            capabilities,
            Implementation::new("toolmodel-federation", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        relay_input(
            &self.calls,
            &context,
            "sampling/createMessage",
            &params,
            async |cx, params| cx.create_message(params).await,
        )
        .await
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        relay_input(
            &self.calls,
            &context,
            "elicitation/create",
            &request,
            async |cx, params| cx.elicit(params).await,
        )
        .await
    }

    async fn list_roots(
        &self,
        context: RequestContext<RoleClient>,
    ) -> Result<ListRootsResult, ErrorData> {
        relay_input(
            &self.calls,
            &context,
            "roots/list",
            &Value::Object(serde_json::Map::new()),
            async |cx, _| {
                let key = "roots";
                let answers = cx
                    .input(InputRequests::new().with(key, InputRequest::ListRoots))
                    .await
                    .map_err(|err| err.to_string())?;
                serde_json::to_value(answers.roots(key)).map_err(|err| err.to_string())
            },
        )
        .await
    }

    async fn on_progress(
        &self,
        params: ProgressNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let Some(cx) = self.calls.by_token(&token_key(&params.progress_token)) {
            // A caller gone away cannot be told; the call's own result will say so.
            let _ = cx
                .progress(params.progress, params.total, params.message.as_deref())
                .await;
        }
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let (Ok(cx), Some(level)) = (self.calls.only(), log_level_from_rmcp(&params.level)) {
            let _ = cx.log(level, params.data).await;
        }
    }

    async fn on_tool_list_changed(&self, _context: NotificationContext<RoleClient>) {
        (self.list_changed)();
    }

    async fn on_prompt_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.downstream.prompts_changed();
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        self.downstream.resources_changed();
    }

    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        self.downstream.resource_updated(&params);
    }
}
