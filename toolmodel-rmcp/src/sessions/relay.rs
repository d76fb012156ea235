//! [`Relay`]: what one replica does for the sessions it shares with others through a
//! [`SessionStore`] that [`is_shared`](SessionStore::is_shared):
//!
//! - **reads a session it does not hold** from the store, for the request that names it
//!   (then `rmcp` replays its `initialize` here: [`Relay::restore`]);
//! - **records a new session** in the store once `initialize` made it ([`Relay::created`]),
//!   and keeps it alive there while it is used ([`Relay::used`]);
//! - **names its requests to the client** (`elicitation/create`, `sampling/createMessage`,
//!   `roots/list`) so that the client's answer, whichever replica receives it, finds its way
//!   back: ids become `r{replica}.n{number}` (or `.s{string}`), rewritten back before the
//!   session's worker sees the answer ([`Relay::outgoing`], [`Relay::incoming`],
//!   [`Relay::forward_answer`]);
//! - **sends its session's notifications through the store** to whichever replica holds the
//!   client's `GET` stream ([`Relay::pump`], [`Relay::open_stream`]);
//! - **passes the client's `notifications/cancelled` and `notifications/progress`** to every
//!   replica, and a `DELETE` to every replica ([`Relay::broadcast`], [`Relay::delete`]);
//! - **listens** for all of those from the others ([`Relay::start`]).

// `logging/setLevel` is deprecated by SEP-2577 (MCP 2026-07-28); the 2025-era sessions this
// relays still use it.
#![allow(deprecated)]

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, Weak},
    time::{Duration, Instant},
};

use futures_util::{Stream, StreamExt as _};
use rmcp::{
    model::{
        ClientJsonRpcMessage, ClientRequest, InitializeRequestParams, NumberOrString,
        ServerJsonRpcMessage, SetLevelRequest, SetLevelRequestParams,
    },
    transport::streamable_http_server::session::{
        ServerSseMessage, SessionId, SessionManager as _, local::LocalSessionManager,
    },
};
use serde_json::Value;
use tokio::sync::{OnceCell, mpsc};

use super::store::{Relayed, RelayedKind, SessionRecord, SessionStore, Touched};
use toolmodel::peer::LoggingLevel;

use crate::{Error, lock::lock, server::log_throttle::LogThrottle};

/// The longest `Mcp-Session-Id` a shared store is asked about: `rmcp`'s ids are UUIDs (36
/// characters); anything longer than this, or with a character outside visible ASCII (MCP,
/// Streamable HTTP, "Session Management": `0x21` to `0x7E`), is no session of ours.
pub(crate) const MAX_SESSION_ID_LEN: usize = 128;

/// The JSON-RPC id of the `logging/setLevel` a replica sends its own copy of a session to
/// set the level the client asked on another replica; its response is dropped, never sent to
/// the client.
const LEVEL_REQUEST_ID: &str = "toolmodel.sessions/log-level";

/// How many messages a `GET` stream of this replica queues for its client before the newest
/// are dropped.
const STREAM_QUEUE: usize = 256;

/// One `warn` event: a relayed message for `replica` was dropped, its queue full.
pub(crate) fn dropped(replica: &str) {
    static THROTTLE: LogThrottle = LogThrottle::new();
    if let Some(suppressed) = THROTTLE.admit() {
        tracing::warn!(
            target: "toolmodel_rmcp::sessions",
            replica,
            queue = super::RELAY_QUEUE,
            suppressed,
            "a relayed session message was dropped: the replica's queue is full"
        );
    }
}

/// One `warn` event per [`EVERY`](crate::server::log_throttle::EVERY): the shared store
/// failed while `doing` (every request that needs it fails while it is out of reach), with
/// the error and its causes (the Redis client's) and the count of lines not written.
fn store_failed(doing: &str, err: &Error) {
    static THROTTLE: LogThrottle = LogThrottle::new();
    if let Some(suppressed) = THROTTLE.admit() {
        tracing::warn!(
            target: "toolmodel_rmcp::sessions",
            error = crate::error::chain(err),
            suppressed,
            "the session store failed {doing}"
        );
    }
}

/// Whether `id` may name a session at all (length and characters).
pub(crate) fn well_formed(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= MAX_SESSION_ID_LEN
        && id.bytes().all(|b| (0x21..=0x7e).contains(&b))
}

/// What [`Relay::restore`] found.
#[derive(Debug)]
pub(crate) enum Found {
    /// The session is held here already.
    Here,
    /// The session was read from the store: its owner, for the front's table; `rmcp` restores
    /// it.
    Stored(Option<(String, String)>),
    /// No such session (unknown, deleted, expired, or of a shape no session has).
    Missing,
}

/// The replica's side of a shared session store (module docs).
#[derive(Debug)]
pub(crate) struct Relay {
    store: Arc<dyn SessionStore>,
    /// This process's id among the replicas: 16 random hex digits.
    replica: Arc<str>,
    local: Arc<LocalSessionManager>,
    /// How long a session lives in the store without a request.
    idle: Duration,
    /// The subscription's listener, started by the first request that needs it.
    started: OnceCell<()>,
    /// Each session's `GET` streams on this replica; the newest open one gets the session's
    /// messages (MCP: each message on one stream only).
    streams: Mutex<HashMap<SessionId, Vec<mpsc::Sender<ServerJsonRpcMessage>>>>,
    /// Records read by [`restore`](Self::restore), taken by `rmcp`'s restore (`load`).
    restoring: Mutex<HashMap<SessionId, SessionRecord>>,
    /// `initialize` parameters of sessions `rmcp` just made, until [`created`](Self::created).
    initialized: Mutex<HashMap<SessionId, InitializeRequestParams>>,
    /// The record of each session held here, and when this replica last kept it alive in
    /// the store.
    touched: Mutex<HashMap<SessionId, (Arc<SessionRecord>, Instant)>>,
}

/// A new replica id: 16 hex digits from the OS's random source (the process id and the time
/// when there is none: ids need only differ between replicas).
fn replica_id() -> Arc<str> {
    let mut bytes = [0_u8; 8];
    let value = if getrandom::fill(&mut bytes).is_ok() {
        u64::from_le_bytes(bytes)
    } else {
        u64::from(std::process::id()) << 32 ^ crate::tasks::now_ms()
    };
    Arc::from(format!("{value:016x}"))
}

impl Relay {
    /// The relay of a server whose sessions `local` holds here and `store` shares, each
    /// living `idle` in the store without a request.
    pub(crate) fn new(
        store: Arc<dyn SessionStore>,
        local: Arc<LocalSessionManager>,
        idle: Duration,
    ) -> Arc<Self> {
        Arc::new(Self {
            store,
            replica: replica_id(),
            local,
            idle,
            started: OnceCell::new(),
            streams: Mutex::default(),
            restoring: Mutex::default(),
            initialized: Mutex::default(),
            touched: Mutex::default(),
        })
    }

    /// Subscribes to the messages for this replica and starts listening, once; a later call
    /// after a failure tries again.
    ///
    /// # Errors
    ///
    /// [`Error::SessionStore`] when the store cannot be reached.
    pub(crate) async fn start(self: &Arc<Self>) -> Result<(), Error> {
        self.started
            .get_or_try_init(|| async {
                let messages = self.store.subscribe(&self.replica).await?;
                tokio::spawn(listen(Arc::downgrade(self), messages));
                Ok::<(), Error>(())
            })
            .await
            .map(|&()| ())
    }

    /// Session `id` for a request of this replica: held here, read from the store (and put
    /// where `rmcp`'s restore takes it), or missing.
    ///
    /// # Errors
    ///
    /// [`Error::SessionStore`] when the session is not held here and the store cannot be
    /// reached.
    pub(crate) async fn restore(self: &Arc<Self>, id: &SessionId) -> Result<Found, Error> {
        if !well_formed(id) {
            return Ok(Found::Missing);
        }
        if self.local.has_session(id).await.unwrap_or(false) {
            self.used(id);
            return Ok(Found::Here);
        }
        self.start().await?;
        let Some(record) = self.store.load(id).await.inspect_err(|err| {
            store_failed("reading a session", err);
        })?
        else {
            return Ok(Found::Missing);
        };
        let owner = record.owner.clone();
        // Renewed by this replica's first `touch`, a quarter of the idle timeout from now.
        lock(&self.touched).insert(id.clone(), (Arc::new(record.clone()), Instant::now()));
        lock(&self.restoring).insert(id.clone(), record);
        Ok(Found::Stored(owner))
    }

    /// Forgets a record [`restore`](Self::restore) read that `rmcp` did not take (a request
    /// refused after it, or a restore another request made first).
    pub(crate) fn restored(&self, id: &SessionId) {
        lock(&self.restoring).remove(id);
    }

    /// The record `rmcp`'s restore asks for: the one [`restore`](Self::restore) read, else
    /// read again.
    pub(crate) async fn load(&self, id: &str) -> Result<Option<SessionRecord>, Error> {
        if let Some(record) = lock(&self.restoring).remove(id) {
            return Ok(Some(record));
        }
        self.store.load(id).await
    }

    /// Keeps `initialize`'s parameters of session `id`, which `rmcp` just made.
    pub(crate) fn initializing(&self, id: &str, params: InitializeRequestParams) {
        lock(&self.initialized).insert(SessionId::from(id), params);
    }

    /// Records session `id`, which `rmcp` made for `owner`, in the store; when the store
    /// refuses it or cannot be reached, closes it here (no session lives on one replica
    /// only).
    ///
    /// # Errors
    ///
    /// [`Error::SessionLimit`] at the store's limit; [`Error::SessionStore`] when the store
    /// cannot be reached.
    pub(crate) async fn created(
        self: &Arc<Self>,
        id: &SessionId,
        owner: Option<(String, String)>,
    ) -> Result<(), Error> {
        let params = lock(&self.initialized).remove(id);
        let written = match params {
            Some(params) => {
                let record = SessionRecord::new(id.as_ref(), params, owner);
                match self.start().await {
                    Ok(()) => self.store.create(&record, self.idle).await.map(|()| record),
                    Err(err) => Err(err),
                }
            }
            None => Err(Error::SessionStore {
                message: format!("session {id}: no initialize parameters were kept"),
                source: None,
            }),
        };
        match written {
            Ok(record) => {
                lock(&self.touched).insert(id.clone(), (Arc::new(record), Instant::now()));
                Ok(())
            }
            Err(err) => {
                store_failed("recording a new session", &err);
                let _ = self.local.close_session(id).await;
                Err(err)
            }
        }
    }

    /// A request of session `id` arrived here: keeps the session alive in the store, at most
    /// once per quarter of the idle timeout from this replica (a background write, off the
    /// request's path). A session the store lost without a deletion (Redis restarted without
    /// its data) is written again from this replica's record of it; one deleted (on another
    /// replica, whose message did not reach this one) is closed here.
    pub(crate) fn used(self: &Arc<Self>, id: &SessionId) {
        let now = Instant::now();
        let record = {
            let mut touched = lock(&self.touched);
            let Some((record, last)) = touched.get_mut(id) else {
                return;
            };
            if now.duration_since(*last) < self.idle / 4 {
                return;
            }
            *last = now;
            let record = Arc::clone(record);
            if touched.len() >= 4_096 {
                // Sessions idle here for the idle timeout are closed by `rmcp`.
                let idle = self.idle;
                touched.retain(|_, (_, last)| now.duration_since(*last) < idle);
            }
            record
        };
        let relay = Arc::clone(self);
        let id = id.clone();
        tokio::spawn(async move {
            match relay.store.touch(&record, relay.idle).await {
                Ok(Touched::Deleted) => relay.close_here(&id).await,
                Ok(_) => {}
                Err(err) => store_failed("keeping a session alive", &err),
            }
        });
    }

    /// Deletes session `id` from the store and tells every replica to close its copy.
    ///
    /// # Errors
    ///
    /// [`Error::SessionStore`] when the store cannot be reached (nothing was deleted).
    pub(crate) async fn delete(&self, id: &SessionId) -> Result<(), Error> {
        self.store.delete(id, self.idle).await.inspect_err(|err| {
            store_failed("deleting a session", err);
        })?;
        self.close_here(id).await;
        let message = self.relayed(id, None, RelayedKind::Deleted, Value::Null);
        // The store marks it deleted: a replica that misses this message closes its copy at
        // its next `touch`, or when idle.
        if let Err(err) = self.store.publish(&message).await {
            store_failed("telling the replicas of a deleted session", &err);
        }
        Ok(())
    }

    fn relayed(&self, id: &str, to: Option<String>, kind: RelayedKind, message: Value) -> Relayed {
        Relayed::new(id, self.replica.as_ref(), to, kind, message)
    }

    /// Closes this replica's copy of session `id` and ends its `GET` streams here.
    async fn close_here(&self, id: &SessionId) {
        lock(&self.streams).remove(id);
        lock(&self.touched).remove(id);
        let _ = self.local.close_session(id).await;
    }

    /// The client of session `id` set its log level to `level` on this replica: every other
    /// replica holding a copy sets it too, and the store keeps it for copies made later; in
    /// the background.
    pub(crate) fn level_set(self: &Arc<Self>, id: &SessionId, level: LoggingLevel) {
        let Some(record) = self.keep_level(id, level) else {
            return;
        };
        let relay = Arc::clone(self);
        let message = self.relayed(id, None, RelayedKind::LogLevel, serde_json::json!(level));
        tokio::spawn(async move {
            if let Err(err) = relay.store.update(&record).await {
                store_failed("recording a log level", &err);
            }
            if let Err(err) = relay.store.publish(&message).await {
                store_failed("telling the replicas of a log level", &err);
            }
        });
    }

    /// Records `level` in this replica's record of session `id`; the record, when it holds
    /// one.
    fn keep_level(&self, id: &SessionId, level: LoggingLevel) -> Option<Arc<SessionRecord>> {
        let mut touched = lock(&self.touched);
        let (record, _) = touched.get_mut(id)?;
        let mut updated = SessionRecord::clone(record);
        updated.log_level = Some(level);
        *record = Arc::new(updated);
        Some(Arc::clone(record))
    }

    /// The log level of this replica's record of session `id`, if the client set one.
    pub(crate) fn level_of(&self, id: &SessionId) -> Option<LoggingLevel> {
        lock(&self.touched)
            .get(id)
            .and_then(|(record, _)| record.log_level)
    }

    /// Sets `level` on this replica's copy of session `id`: a `logging/setLevel` of the
    /// replica's own ([`LEVEL_REQUEST_ID`]), whose response the pump drops.
    pub(crate) async fn apply_level(&self, id: &SessionId, level: LoggingLevel) {
        // The same eight names on the wire.
        let Ok(level) = serde_json::to_value(level).and_then(serde_json::from_value) else {
            return;
        };
        let request =
            ClientRequest::SetLevelRequest(SetLevelRequest::new(SetLevelRequestParams::new(level)));
        let message = ClientJsonRpcMessage::request(
            request,
            NumberOrString::String(Arc::from(LEVEL_REQUEST_ID)),
        );
        if self.local.has_session(id).await.unwrap_or(false) {
            let _ = self.local.accept_message(id, message).await;
        }
    }

    /// `message` as the client receives it from this replica: a request of the server's gets
    /// an id that names this replica (`r{replica}.n{number}` or `.s{string}`).
    pub(crate) fn outgoing(&self, message: ServerJsonRpcMessage) -> ServerJsonRpcMessage {
        match message {
            ServerJsonRpcMessage::Request(mut request) => {
                let original = match &request.id {
                    NumberOrString::Number(number) => format!("n{number}"),
                    NumberOrString::String(text) => format!("s{text}"),
                };
                request.id =
                    NumberOrString::String(Arc::from(format!("r{}.{original}", self.replica)));
                ServerJsonRpcMessage::Request(request)
            }
            other => other,
        }
    }

    /// `message` from the client as the session's worker here expects it: an answer to a
    /// request of this replica's gets its original id back.
    pub(crate) fn incoming(&self, message: ClientJsonRpcMessage) -> ClientJsonRpcMessage {
        match message {
            ClientJsonRpcMessage::Response(mut response) => {
                if let Some(original) = self.original_id(&response.id) {
                    response.id = original;
                }
                ClientJsonRpcMessage::Response(response)
            }
            ClientJsonRpcMessage::Error(mut error) => {
                if let Some(original) = error.id.as_ref().and_then(|id| self.original_id(id)) {
                    error.id = Some(original);
                }
                ClientJsonRpcMessage::Error(error)
            }
            other => other,
        }
    }

    fn original_id(&self, id: &NumberOrString) -> Option<NumberOrString> {
        let NumberOrString::String(text) = id else {
            return None;
        };
        let (replica, original) = split_id(text)?;
        if replica != &*self.replica {
            return None;
        }
        if let Some(number) = original.strip_prefix('n') {
            return number.parse().ok().map(NumberOrString::Number);
        }
        original
            .strip_prefix('s')
            .map(|text| NumberOrString::String(Arc::from(text)))
    }

    /// The replica other than this one whose request `id` answers, if it names one.
    pub(crate) fn answers_another(&self, id: &Value) -> Option<String> {
        let (replica, _) = split_id(id.as_str()?)?;
        (replica != &*self.replica).then(|| replica.to_owned())
    }

    /// Sends the client's answer `message` in session `id` to replica `to`; `false` when no
    /// replica `to` is listening (it is gone: nobody waits for the answer).
    ///
    /// # Errors
    ///
    /// [`Error::SessionStore`] when the store cannot be reached.
    pub(crate) async fn forward_answer(
        &self,
        id: &SessionId,
        to: String,
        message: Value,
    ) -> Result<bool, Error> {
        let message = self.relayed(id, Some(to), RelayedKind::Answer, message);
        let received = self.store.publish(&message).await.inspect_err(|err| {
            store_failed("relaying an answer", err);
        })?;
        Ok(received > 0)
    }

    /// Sends the client's notification `message` in session `id` to every other replica (a
    /// `notifications/cancelled` or `notifications/progress` for a request one of them may be
    /// running); in the background.
    pub(crate) fn broadcast(self: &Arc<Self>, id: &SessionId, message: Value) {
        let relay = Arc::clone(self);
        let message = self.relayed(id, None, RelayedKind::Notification, message);
        tokio::spawn(async move {
            if let Err(err) = relay.store.publish(&message).await {
                store_failed("relaying a notification", &err);
            }
        });
    }

    /// Takes over the standalone stream of session `id` (held here, just initialized or
    /// restored): every message the session sends there goes through the store, so that the
    /// replica holding the client's `GET` stream sends it. Ends with the session.
    pub(crate) fn pump(self: &Arc<Self>, id: &SessionId) {
        let relay = Arc::clone(self);
        let id = id.clone();
        tokio::spawn(async move {
            let Ok(stream) = relay.local.create_standalone_stream(&id).await else {
                return;
            };
            let mut stream = std::pin::pin!(stream);
            while let Some(event) = stream.next().await {
                let Some(message) = event.message else {
                    continue;
                };
                if answers_level_request(&message) {
                    continue;
                }
                let message = relay.outgoing(Arc::unwrap_or_clone(message));
                let Ok(value) = serde_json::to_value(&message) else {
                    continue;
                };
                let relayed = relay.relayed(&id, None, RelayedKind::Event, value);
                if let Err(err) = relay.store.publish(&relayed).await {
                    store_failed("relaying a notification of the server", &err);
                }
            }
        });
    }

    /// A `GET` stream of session `id` on this replica: the session's messages, from any
    /// replica, from now on (none missed before is replayed: no `Last-Event-ID` resumption).
    pub(crate) fn open_stream(
        &self,
        id: &SessionId,
    ) -> impl Stream<Item = ServerSseMessage> + Send + Sync + 'static {
        let (sender, receiver) = mpsc::channel(STREAM_QUEUE);
        let mut streams = lock(&self.streams);
        let open = streams.entry(id.clone()).or_default();
        open.retain(|sender| !sender.is_closed());
        open.push(sender);
        tokio_stream_from(receiver).map(ServerSseMessage::from_message)
    }

    /// Hands a relayed message to this replica's copy of its session.
    async fn deliver(&self, relayed: Relayed) {
        let id = SessionId::from(relayed.session.as_str());
        match relayed.kind {
            RelayedKind::Event => {
                let Ok(message) = serde_json::from_value::<ServerJsonRpcMessage>(relayed.message)
                else {
                    return;
                };
                let mut streams = lock(&self.streams);
                let Some(open) = streams.get_mut(&id) else {
                    return;
                };
                open.retain(|sender| !sender.is_closed());
                if let Some(newest) = open.last() {
                    // A full stream (a client that does not read) loses the message.
                    let _ = newest.try_send(message);
                }
                if open.is_empty() {
                    streams.remove(&id);
                }
            }
            RelayedKind::Answer | RelayedKind::Notification => {
                if relayed.kind == RelayedKind::Notification && relayed.from == *self.replica {
                    return;
                }
                let Ok(message) = serde_json::from_value::<ClientJsonRpcMessage>(relayed.message)
                else {
                    return;
                };
                if self.local.has_session(&id).await.unwrap_or(false) {
                    let _ = self.local.accept_message(&id, self.incoming(message)).await;
                }
            }
            RelayedKind::Deleted => self.close_here(&id).await,
            RelayedKind::LogLevel => {
                if relayed.from == *self.replica {
                    return;
                }
                let Ok(level) = serde_json::from_value::<LoggingLevel>(relayed.message) else {
                    return;
                };
                self.keep_level(&id, level);
                self.apply_level(&id, level).await;
            }
        }
    }
}

/// Whether `message` answers a replica's own `logging/setLevel` ([`LEVEL_REQUEST_ID`]).
fn answers_level_request(message: &ServerJsonRpcMessage) -> bool {
    let id = match message {
        ServerJsonRpcMessage::Response(response) => Some(&response.id),
        ServerJsonRpcMessage::Error(error) => error.id.as_ref(),
        _ => None,
    };
    matches!(id, Some(NumberOrString::String(id)) if &**id == LEVEL_REQUEST_ID)
}

/// `r{replica}.{original}` split in two.
fn split_id(text: &str) -> Option<(&str, &str)> {
    text.strip_prefix('r')?.split_once('.')
}

/// The receiver as a stream.
fn tokio_stream_from<T: Send + 'static>(
    mut receiver: mpsc::Receiver<T>,
) -> impl Stream<Item = T> + Send + Sync + 'static {
    futures_util::stream::poll_fn(move |cx| receiver.poll_recv(cx))
}

/// Hands each message for this replica to its session, while the relay lives: the server's
/// messages for `GET` streams in order; the others each in a task of its own.
async fn listen(relay: Weak<Relay>, mut messages: mpsc::Receiver<Relayed>) {
    while let Some(message) = messages.recv().await {
        let Some(relay) = relay.upgrade() else {
            return;
        };
        if message.kind == RelayedKind::Event {
            // In order, at once (a bounded queue per stream, never waited on).
            relay.deliver(message).await;
        } else {
            // Each on its own: a session whose worker is slow to take a message holds up no
            // other session's.
            tokio::spawn(async move { relay.deliver(message).await });
        }
    }
}
