//! The transport of an upstream session, wrapped to register each call as its request is
//! sent, to tell [`InFlight`] of every request sent, cancelled and answered (which requests
//! the server may still be serving, see [`relay`](super::relay)), and to count the progress
//! and log notifications it receives, so that a call hands
//! its result to the caller only after the relay has delivered every notification the server
//! sent before that result.
//!
//! A call registers itself once rmcp hands it the request's ID and progress token, which is
//! after the request was queued: an upstream quick to ask for input on the call's response
//! stream could find no call to relay to. [`Counting::send`] registers the call (carried in
//! the request's extensions, [`Sending`]) before the request leaves.
//!
//! rmcp reads a session's messages in order but hands each notification to a task of its own,
//! so the task of the last `notifications/progress` can run after the call has its answer.
//! MCP ("Progress") has progress stop when the operation completes: a caller that got its
//! result first would see progress for a finished call, or lose it. [`Counting`] sees each
//! message in the order the server sent it; [`InFlight`] compares what it counted with what
//! the relay delivered ([`Registered::settle`](super::relay::Registered::settle)).

use std::{borrow::Cow, sync::Arc};

use rmcp::{
    model::{
        ClientNotification, ClientRequest, GetExtensions, GetMeta, JsonRpcMessage,
        ServerNotification,
    },
    service::{RoleClient, RxJsonRpcMessage, TxJsonRpcMessage},
    transport::Transport,
};

use crate::federation::relay::{InFlight, Sending, token_key};

/// An upstream session's transport `T`, telling `calls` of each progress and log notification
/// it receives.
pub(crate) struct Counting<T> {
    inner: T,
    calls: Arc<InFlight>,
}

impl<T> Counting<T> {
    /// Wraps `inner`, a new session's transport; what it sends and receives is told to
    /// `calls`, which forgets the requests of the session before.
    pub(crate) fn new(inner: T, calls: Arc<InFlight>) -> Self {
        calls.new_session();
        Self { inner, calls }
    }
}

impl<T: Transport<RoleClient>> Transport<RoleClient> for Counting<T> {
    type Error = T::Error;

    fn name() -> Cow<'static, str> {
        T::name()
    }

    fn send(
        &mut self,
        item: TxJsonRpcMessage<RoleClient>,
    ) -> impl Future<Output = Result<(), Self::Error>> + Send + 'static {
        match &item {
            JsonRpcMessage::Request(request) => {
                // The listen stream (MCP 2026-07-28) runs for the whole session and serves
                // no caller.
                if !matches!(
                    request.request,
                    ClientRequest::SubscriptionsListenRequest(_)
                ) {
                    self.calls.request_sent(&request.id);
                }
                if let Some(sending) = request.request.extensions().get::<Sending>()
                    && let Some(token) = request.request.get_meta().get_progress_token()
                {
                    self.calls
                        .sent(token_key(&token), request.id.clone(), sending);
                }
            }
            JsonRpcMessage::Notification(notification) => {
                if let ClientNotification::CancelledNotification(cancelled) =
                    &notification.notification
                    && let Some(id) = &cancelled.params.request_id
                {
                    self.calls.request_cancelled(id);
                }
            }
            JsonRpcMessage::Response(_) | JsonRpcMessage::Error(_) => {}
        }
        self.inner.send(item)
    }

    async fn receive(&mut self) -> Option<RxJsonRpcMessage<RoleClient>> {
        let message = self.inner.receive().await;
        match &message {
            Some(JsonRpcMessage::Response(response)) => self.calls.answered(&response.id),
            Some(JsonRpcMessage::Error(error)) => {
                if let Some(id) = &error.id {
                    self.calls.answered(id);
                }
            }
            _ => {}
        }
        if let Some(JsonRpcMessage::Notification(notification)) = &message {
            match &notification.notification {
                ServerNotification::ProgressNotification(progress) => {
                    self.calls.heard_progress(&progress.params.progress_token);
                }
                #[allow(deprecated)]
                // Logging: deprecated by SEP-2577, still sent by 2025-11-25 servers.
                ServerNotification::LoggingMessageNotification(_) => self.calls.heard_log(),
                _ => {}
            }
        }
        message
    }

    fn close(&mut self) -> impl Future<Output = Result<(), Self::Error>> + Send {
        self.inner.close()
    }
}
