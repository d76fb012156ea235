//! The client side of an upstream session ([`Relay`], an rmcp `ClientHandler`): what the
//! upstream sends during a call reaches the caller through its [`CallContext`].
//!
//! Each call in flight is registered with its progress token and its JSON-RPC request ID
//! ([`InFlight`]); what the upstream sends goes to the call it belongs to:
//!
//! | the upstream sends | reaches | with several calls in flight |
//! |---|---|---|
//! | `notifications/progress` | [`CallContext::progress`] of the call whose request carried the progress token (each upstream request carries one) | the right call |
//! | `elicitation/create`, `sampling/createMessage`, `roots/list` over Streamable HTTP | [`CallContext::elicit`], [`CallContext::create_message`], [`CallContext::input`] of the call on whose response stream it arrived (rmcp marks it with the request's ID, MCP "Streamable HTTP": requests "related to the originating client request"); one on the stream that belongs to no request is refused | the right call |
//! | the same over stdio | the call in flight, when it is the only request of the gateway's the server may be serving (see below) | refused: JSON-RPC `-32603` naming the reason, which the upstream sees as the answer to its request |
//! | `notifications/message` (logs), stdio or HTTP | [`CallContext::log`] of the call in flight, under the same rule (a log notification names no request on either transport) | dropped (sending it to a caller it may not belong to would leak one caller's data to another) |
//! | `notifications/tools/list_changed` | the federation's re-import | |
//! | prompt and resource `list_changed`, `notifications/resources/updated` | the gateway's downstream sessions ([`Downstream`]) | |
//!
//! A stdio request names no request of the gateway's (MCP 2025-11-25 gives it no such field),
//! so it is attributed to the one call in flight only when nothing else the gateway asked of
//! the server may still be running: the session's transport ([`Counting`]) sees each request
//! sent and each answer, and [`InFlight`] refuses when another request is unanswered (a
//! `prompts/get` of another caller, say) or when a request the gateway cancelled (a caller
//! gave up, a timeout) has not been answered: a server slow to honour
//! `notifications/cancelled` may be asking for that caller. A cancelled request counts for
//! the server's `timeout` after its cancellation, or until the server answers it. Over one
//! session, a server that asks for input after it answered, or on its own, cannot be told
//! apart from one asking for the call in flight: such a server serves one caller at a time
//! only behind a gateway with one client, or over Streamable HTTP.
//!
//! [`Counting`]: super::counting::Counting
//!
//! An input request reaches a caller only in MCP 2025-11-25 and older: under 2026-07-28 the
//! gateway may not send its client requests outside a task, and holding the upstream's request
//! open until the client retries would tie the call to one gateway replica; such a request
//! is refused (`-32603`). Upstreams that speak 2026-07-28 ask with an `InputRequiredResult`
//! instead, which reaches the caller in both eras (see [`Federation`](super::Federation)).

// Sampling and logging are deprecated by SEP-2577 (MCP 2026-07-28); the 2025-11-25 sessions
// this client opens still use them.
#![allow(deprecated)]

use std::{
    collections::{HashMap, HashSet},
    sync::{
        Arc, Mutex,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
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
use tokio::sync::Notify;
use toolmodel::{
    CallContext,
    input::{InputRequest, InputRequests},
};

use crate::convert::message::{from_wire, log_level_from_rmcp, to_wire};
use crate::federation::downstream::Downstream;
use crate::lock::lock;

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
/// the ID of its request; and the tally of the progress and log notifications the session's
/// transport received ([`Counting`](super::counting::Counting)) against those the relay has
/// handled, which a call waits on before it hands over its result.
pub(crate) struct InFlight {
    calls: Mutex<HashMap<String, Call>>,
    /// The gateway's requests the server may still be serving.
    wire: Mutex<Wire>,
    /// How long a cancelled request counts as possibly running (the server's `timeout`).
    abandoned_for: Duration,
    /// Log notifications received by the transport, and handled by the relay.
    logs: Mutex<Tally>,
    /// Woken each time the relay has handled a notification.
    handled: Notify,
}

/// The gateway's requests on the session's wire, as its transport sent and received them.
#[derive(Default)]
struct Wire {
    /// Sent, not answered, not cancelled.
    unanswered: HashSet<RequestId>,
    /// Cancelled before an answer: each counts until this instant, or its answer.
    abandoned: HashMap<RequestId, Instant>,
}

/// A call in flight.
struct Call {
    id: RequestId,
    cx: CallContext,
    /// Its progress notifications received by the transport, and handled by the relay.
    progress: Tally,
}

/// Notifications received and handled.
#[derive(Clone, Copy, Default)]
struct Tally {
    received: u64,
    handled: u64,
}

/// The longest a call waits, once it has its answer, for the relay to deliver the
/// notifications the server sent before it (a caller slow to take them).
const SETTLE_LIMIT: Duration = Duration::from_secs(2);

impl InFlight {
    /// No call in flight; a cancelled request counts as possibly running for `abandoned_for`.
    pub(crate) fn new(abandoned_for: Duration) -> Self {
        Self {
            calls: Mutex::default(),
            wire: Mutex::default(),
            abandoned_for,
            logs: Mutex::default(),
            handled: Notify::new(),
        }
    }

    /// A new session starts: the requests of the last one are forgotten.
    pub(crate) fn new_session(&self) {
        *lock(&self.wire) = Wire::default();
    }

    /// Whether every request the gateway sent on the session was answered or cancelled.
    pub(crate) fn idle(&self) -> bool {
        lock(&self.wire).unanswered.is_empty()
    }

    /// The transport sent the request `id`.
    pub(crate) fn request_sent(&self, id: &RequestId) {
        lock(&self.wire).unanswered.insert(id.clone());
    }

    /// The transport sent `notifications/cancelled` for the request `id`.
    pub(crate) fn request_cancelled(&self, id: &RequestId) {
        let mut wire = lock(&self.wire);
        if wire.unanswered.remove(id) {
            wire.abandoned
                .insert(id.clone(), Instant::now() + self.abandoned_for);
        }
    }

    /// The transport received the answer (a result or an error) to the request `id`.
    pub(crate) fn answered(&self, id: &RequestId) {
        let mut wire = lock(&self.wire);
        wire.unanswered.remove(id);
        wire.abandoned.remove(id);
    }

    /// Registers the call of request `id` (progress token `token`), sent with `sending` in its
    /// extensions, until the returned guard is dropped. The transport has usually registered it
    /// already ([`sent`](Self::sent)); what it counted is kept.
    pub(crate) fn enter(
        self: &Arc<Self>,
        token: String,
        id: RequestId,
        sending: Sending,
    ) -> Registered {
        self.insert(&token, id, &sending);
        Registered {
            calls: Arc::clone(self),
            token,
            ended: sending.ended,
        }
    }

    /// The transport is sending the request `id` of the call `sending` (progress token
    /// `token`): registered now, before an answer, a progress or an input request for it can
    /// arrive, unless the call already ended.
    pub(crate) fn sent(&self, token: String, id: RequestId, sending: &Sending) {
        self.insert(&token, id, sending);
    }

    fn insert(&self, token: &str, id: RequestId, sending: &Sending) {
        let mut calls = lock(&self.calls);
        if !sending.ended.load(Ordering::Acquire) {
            calls.entry(token.to_owned()).or_insert_with(|| Call {
                id,
                cx: sending.cx.clone(),
                progress: Tally::default(),
            });
        }
    }

    /// The transport received a progress notification with `token`: counted for the call it
    /// belongs to (one not in flight is not waited for).
    pub(crate) fn heard_progress(&self, token: &rmcp::model::ProgressToken) {
        let mut calls = lock(&self.calls);
        if let Some(call) = calls.get_mut(&token_key(token)) {
            call.progress.received += 1;
        }
    }

    /// The transport received a log notification.
    pub(crate) fn heard_log(&self) {
        lock(&self.logs).received += 1;
    }

    /// The relay has handled a progress notification with `token`.
    fn progress_handled(&self, token: &str) {
        let mut calls = lock(&self.calls);
        if let Some(call) = calls.get_mut(token) {
            call.progress.handled += 1;
        }
        self.handled.notify_waiters();
    }

    /// The relay has handled a log notification.
    fn log_handled(&self) {
        lock(&self.logs).handled += 1;
        self.handled.notify_waiters();
    }

    fn by_token(&self, token: &str) -> Option<CallContext> {
        Some(lock(&self.calls).get(token)?.cx.clone())
    }

    /// The call a server-to-client request belongs to: the one whose response stream carried
    /// it (Streamable HTTP), else (stdio) the one call in flight when nothing else the gateway
    /// asked of the server may be running ([`sole`](Self::sole)).
    fn for_request(
        &self,
        context: &RequestContext<RoleClient>,
    ) -> Result<CallContext, &'static str> {
        match context.extensions.get::<InboundStreamOrigin>() {
            Some(InboundStreamOrigin::OutboundRequest(id)) => lock(&self.calls)
                .values()
                .find(|call| &call.id == id)
                .map(|call| call.cx.clone())
                .ok_or("the request it belongs to is no longer in flight"),
            Some(InboundStreamOrigin::Unassociated) => Err(
                "it arrived on the server's stream for messages that belong to no request, so no caller asked for it",
            ),
            None => self.sole(),
        }
    }

    /// The one call in flight, when it is the only request of the gateway's the server may be
    /// serving: no other is unanswered, and none the gateway cancelled may still be running.
    fn sole(&self) -> Result<CallContext, &'static str> {
        let calls = lock(&self.calls);
        let mut all = calls.values();
        let call = match (all.next(), all.next()) {
            (Some(call), None) => call,
            (None, _) => return Err("no call is in flight to relay it to"),
            (Some(_), Some(_)) => {
                return Err(
                    "several calls are in flight and the request names none of them, so the gateway cannot tell which caller to ask",
                );
            }
        };
        let mut wire = lock(&self.wire);
        let now = Instant::now();
        wire.abandoned.retain(|_, until| *until > now);
        if !wire.abandoned.is_empty() {
            return Err(
                "a request the gateway cancelled may still be running on the server, so the gateway cannot tell whether this belongs to the call in flight or to the cancelled one",
            );
        }
        if wire.unanswered.iter().any(|id| *id != call.id) {
            return Err(
                "another request of the gateway's is in flight on the server too, and the request names neither, so the gateway cannot tell which caller to ask",
            );
        }
        Ok(call.cx.clone())
    }

    /// Whether the relay has handled the progress of the call `token` the transport received,
    /// and the logs up to the `logs`-th.
    fn settled(&self, token: &str, logs: u64) -> bool {
        let progress = lock(&self.calls)
            .get(token)
            .map(|call| call.progress)
            .unwrap_or_default();
        let handled_logs = lock(&self.logs).handled;
        progress.handled >= progress.received && handled_logs >= logs
    }
}

/// A call on its way to the upstream, carried in its request's extensions so that the
/// transport registers it as it sends the request ([`InFlight::sent`]): an upstream that
/// answers at once (an elicitation on the call's response stream) finds the call.
#[derive(Clone)]
pub(crate) struct Sending {
    cx: CallContext,
    /// Set when the call ended: the transport registers it no more.
    ended: Arc<AtomicBool>,
}

impl Sending {
    /// The call of `cx`, not sent yet.
    pub(crate) fn new(cx: CallContext) -> Self {
        Self {
            cx,
            ended: Arc::default(),
        }
    }
}

/// A registered call; unregisters it when dropped.
pub(crate) struct Registered {
    calls: Arc<InFlight>,
    token: String,
    ended: Arc<AtomicBool>,
}

impl Registered {
    /// Waits, once the call has its answer, until the relay has delivered to the caller every
    /// progress notification of this call and every log notification the transport received
    /// before the answer (at most [`SETTLE_LIMIT`]), so that none reaches the caller after its
    /// result.
    pub(crate) async fn settle(&self) {
        let logs = lock(&self.calls.logs).received;
        let deadline = tokio::time::Instant::now() + SETTLE_LIMIT;
        loop {
            let handled = self.calls.handled.notified();
            tokio::pin!(handled);
            handled.as_mut().enable();
            if self.calls.settled(&self.token, logs) {
                return;
            }
            if tokio::time::timeout_at(deadline, handled).await.is_err() {
                return;
            }
        }
    }
}

impl Drop for Registered {
    fn drop(&mut self) {
        let mut calls = lock(&self.calls.calls);
        self.ended.store(true, Ordering::Release);
        calls.remove(&self.token);
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
        let token = token_key(&params.progress_token);
        if let Some(cx) = self.calls.by_token(&token) {
            // A caller gone away cannot be told; the call's own result will say so.
            let _ = cx
                .progress(params.progress, params.total, params.message.as_deref())
                .await;
        }
        self.calls.progress_handled(&token);
    }

    async fn on_logging_message(
        &self,
        params: LoggingMessageNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        if let (Ok(cx), Some(level)) = (self.calls.sole(), log_level_from_rmcp(&params.level)) {
            let _ = cx.log(level, params.data).await;
        }
        self.calls.log_handled();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stdio_request_goes_to_the_one_call_only_when_nothing_else_may_be_running() {
        let calls = Arc::new(InFlight::new(Duration::from_secs(60)));
        let (call, prompt, cancelled) = (
            RequestId::Number(1),
            RequestId::Number(2),
            RequestId::Number(3),
        );
        calls.request_sent(&call);
        let _registered = calls.enter("1".into(), call.clone(), Sending::new(CallContext::new()));
        assert!(calls.sole().is_ok());

        // Another caller's `prompts/get` is unanswered: the request may be its.
        calls.request_sent(&prompt);
        assert!(calls.sole().unwrap_err().contains("another request"));
        calls.answered(&prompt);
        assert!(calls.sole().is_ok());

        // A cancelled request may still be running, until it is answered.
        calls.request_sent(&cancelled);
        calls.request_cancelled(&cancelled);
        assert!(calls.sole().unwrap_err().contains("cancelled"));
        calls.answered(&cancelled);
        assert!(calls.sole().is_ok());

        // ... or for the server's timeout only.
        let brief = Arc::new(InFlight::new(Duration::ZERO));
        brief.request_sent(&call);
        let _registered = brief.enter("1".into(), call.clone(), Sending::new(CallContext::new()));
        brief.request_sent(&cancelled);
        brief.request_cancelled(&cancelled);
        assert!(brief.sole().is_ok());
    }
}
