//! The client side of an upstream session ([`Relay`], an rmcp `ClientHandler`): what the
//! upstream sends during a call reaches the caller through its [`CallContext`].
//!
//! - `notifications/progress` goes to the call whose request carried the progress token (each
//!   upstream request carries one) as [`CallContext::progress`].
//! - `notifications/message` (logs), `elicitation/create` and `sampling/createMessage` carry
//!   no request ID on stdio (MCP 2025-11-25 ties them to no request), so they go to the call in
//!   flight when there is exactly one ([`CallContext::log`], [`CallContext::elicit`],
//!   [`CallContext::create_message`]); with several in flight a log is dropped and an input
//!   request is refused (JSON-RPC `-32603` naming the reason).
//! - `notifications/tools/list_changed` runs the federation's re-import; the prompt and
//!   resource list changes and `notifications/resources/updated` go to the gateway's
//!   downstream sessions ([`Downstream`]).

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
        ElicitRequestParams, ElicitResult, Implementation, LoggingMessageNotificationParam,
        ProgressNotificationParam, ResourceUpdatedNotificationParam,
    },
    service::{NotificationContext, RequestContext, RoleClient},
};
use serde_json::Value;
use toolmodel::CallContext;

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

/// The calls in flight on one upstream, by the JSON text of their progress token.
#[derive(Default)]
pub(crate) struct InFlight(Mutex<HashMap<String, CallContext>>);

impl InFlight {
    /// Registers a call until the returned guard is dropped.
    pub(crate) fn enter(self: &Arc<Self>, token: String, cx: CallContext) -> Registered {
        if let Ok(mut calls) = self.0.lock() {
            calls.insert(token.clone(), cx);
        }
        Registered {
            calls: Arc::clone(self),
            token,
        }
    }

    fn by_token(&self, token: &str) -> Option<CallContext> {
        self.0.lock().ok()?.get(token).cloned()
    }

    /// The one call in flight, if there is exactly one.
    fn only(&self) -> Result<CallContext, &'static str> {
        let calls = self
            .0
            .lock()
            .map_err(|_| "the gateway's call registry failed")?;
        let mut all = calls.values();
        match (all.next(), all.next()) {
            (Some(cx), None) => Ok(cx.clone()),
            (None, _) => Err("no call is in flight to relay it to"),
            (Some(_), Some(_)) => Err(
                "several calls are in flight and the request names none of them, so the gateway cannot tell which caller to ask",
            ),
        }
    }
}

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

/// Relays one input request to the only call in flight, as raw JSON both ways.
async fn relay_input<P: serde::Serialize, R: serde::de::DeserializeOwned>(
    calls: &InFlight,
    what: &str,
    params: &P,
    ask: impl AsyncFnOnce(CallContext, Value) -> Result<Value, toolmodel::Error>,
) -> Result<R, ErrorData> {
    let cx = calls.only().map_err(|why| refused(what, why))?;
    let params = to_wire(params).map_err(|err| refused(what, err))?;
    let answer = ask(cx, params).await.map_err(|err| refused(what, err))?;
    from_wire(answer).map_err(|err| refused(what, err))
}

impl ClientHandler for Relay {
    fn get_info(&self) -> ClientConfig {
        let capabilities = ClientCapabilities::builder()
            .enable_elicitation()
            .enable_sampling()
            .build();
        ClientConfig::new(
            capabilities,
            Implementation::new("toolmodel-federation", env!("CARGO_PKG_VERSION")),
        )
    }

    async fn create_message(
        &self,
        params: CreateMessageRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<CreateMessageResult, ErrorData> {
        relay_input(
            &self.calls,
            "sampling/createMessage",
            &params,
            async |cx, params| cx.create_message(params).await,
        )
        .await
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        relay_input(
            &self.calls,
            "elicitation/create",
            &request,
            async |cx, params| cx.elicit(params).await,
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
