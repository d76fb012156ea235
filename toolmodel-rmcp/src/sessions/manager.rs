//! [`ReplicaSessions`]: the session manager `rmcp`'s Streamable HTTP service runs on: its
//! `LocalSessionManager`, and with a shared store the [`Relay`] around it; and
//! [`StoreAdapter`], the store as `rmcp`'s restore reads it.

use std::sync::Arc;

use futures_util::{Stream, StreamExt as _};
use rmcp::{
    RoleServer,
    model::{ClientJsonRpcMessage, GetExtensions as _, ServerJsonRpcMessage},
    transport::{
        Transport,
        streamable_http_server::session::{
            EventStore, RestoreOutcome, ServerSseMessage, SessionId, SessionManager,
            SessionRestoreMarker, SessionState, SessionStore as RmcpSessionStore,
            SessionStoreError,
            local::{LocalSessionManager, LocalSessionManagerError},
        },
    },
};

use super::relay::Relay;

/// `rmcp`'s `LocalSessionManager`, and when sessions are shared, the [`Relay`] that names
/// this replica's requests to the client, rewrites the answers back, and takes over each
/// session's standalone stream so that its messages reach the client's `GET` stream on
/// whichever replica holds it.
#[derive(Debug)]
pub(crate) struct ReplicaSessions {
    local: Arc<LocalSessionManager>,
    relay: Option<Arc<Relay>>,
}

impl ReplicaSessions {
    pub(crate) fn new(local: Arc<LocalSessionManager>, relay: Option<Arc<Relay>>) -> Self {
        Self { local, relay }
    }

    /// `stream` as the client receives it: through [`Relay::outgoing`] when shared.
    fn outgoing<S>(&self, stream: S) -> impl Stream<Item = ServerSseMessage> + Send + Sync + 'static
    where
        S: Stream<Item = ServerSseMessage> + Send + Sync + 'static,
    {
        let relay = self.relay.clone();
        stream.map(move |mut event| {
            // Only the server's requests change (their ids); a response or a notification
            // passes as it is, uncopied.
            if let Some(relay) = &relay
                && let Some(message) = event
                    .message
                    .take_if(|message| matches!(**message, ServerJsonRpcMessage::Request(_)))
            {
                let message: ServerJsonRpcMessage = Arc::unwrap_or_clone(message);
                event.message = Some(Arc::new(relay.outgoing(message)));
            }
            event
        })
    }
}

impl SessionManager for ReplicaSessions {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        self.local.create_session().await
    }

    async fn initialize_session(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<ServerJsonRpcMessage, Self::Error> {
        let response = self.local.initialize_session(id, message).await?;
        if let Some(relay) = &self.relay {
            relay.pump(id);
        }
        Ok(response)
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.local.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.local.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        let stream = self.local.create_stream(id, message).await?;
        Ok(self.outgoing(stream))
    }

    async fn accept_message(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<(), Self::Error> {
        let Some(relay) = &self.relay else {
            return self.local.accept_message(id, message).await;
        };
        // The end of `rmcp`'s replay of `initialize` on this replica (a restore): the copy
        // gets the log level the client set on another replica, before any request of the
        // client's reaches it.
        let restored = matches!(
            &message,
            ClientJsonRpcMessage::Notification(notification)
                if notification.notification.extensions().get::<SessionRestoreMarker>().is_some()
        );
        self.local
            .accept_message(id, relay.incoming(message))
            .await?;
        if restored && let Some(level) = relay.level_of(id) {
            relay.apply_level(id, level).await;
        }
        Ok(())
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        Ok(match &self.relay {
            Some(relay) => relay.open_stream(id).left_stream(),
            None => self
                .local
                .create_standalone_stream(id)
                .await?
                .right_stream(),
        })
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        // With a shared store the standalone stream (an event id without `/{request}`) is
        // the relay's: a reconnected `GET` gets the session's messages from now on (none are
        // kept to replay). A request's stream is resumed where this replica has it; where it
        // has not (the request ran on another replica, which may be gone), the error makes
        // `rmcp` answer an empty stream that ends at once, so that the client re-issues the
        // request or gives up rather than wait for an answer that cannot come here.
        if let Some(relay) = &self.relay
            && !last_event_id.contains('/')
        {
            return Ok(relay.open_stream(id).right_stream());
        }
        let stream = self.local.resume(id, last_event_id).await?;
        Ok(self.outgoing(stream).left_stream())
    }

    async fn restore_session(
        &self,
        id: SessionId,
    ) -> Result<RestoreOutcome<Self::Transport>, Self::Error> {
        self.local.restore_session(id).await
    }

    fn event_store(&self) -> Option<Arc<dyn EventStore>> {
        self.local.event_store()
    }
}

// The worker transport type must stay `rmcp`'s: `StreamableHttpService` spawns its
// `serve_server` on it.
const _: fn() = || {
    fn transport<T: Transport<RoleServer>>() {}
    transport::<<ReplicaSessions as SessionManager>::Transport>();
};

/// The shared store as `rmcp`'s restore reads it (`StreamableHttpServerConfig::session_store`):
/// `load` gives the session's `initialize` parameters (the record the front read, else the
/// store's); `store` keeps a new session's parameters until the front records the session
/// with its owner ([`Relay::created`]); `delete` does nothing (the front deletes:
/// [`Relay::delete`]).
#[derive(Debug)]
pub(crate) struct StoreAdapter(pub(crate) Arc<Relay>);

#[async_trait::async_trait]
impl RmcpSessionStore for StoreAdapter {
    async fn load(&self, session_id: &str) -> Result<Option<SessionState>, SessionStoreError> {
        let record = self.0.load(session_id).await?;
        Ok(record.map(|record| SessionState::new(record.initialize)))
    }

    async fn store(&self, session_id: &str, state: &SessionState) -> Result<(), SessionStoreError> {
        self.0
            .initializing(session_id, state.initialize_params.clone());
        Ok(())
    }

    async fn delete(&self, _session_id: &str) -> Result<(), SessionStoreError> {
        Ok(())
    }
}
