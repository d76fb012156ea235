//! [`SessionStore`]: where the handshake-era sessions of a Streamable HTTP server live
//! (MCP 2025-11-25, "Session Management"), one small async trait over two stores:
//! [`MemorySessionStore`](super::MemorySessionStore) for one process and, with the `redis`
//! feature, `RedisSessionStore` for replicas; and the relay by which replicas pass each other
//! what a session's client sent to one and another waits for ([`Relayed`]).

use std::time::Duration;

use rmcp::model::InitializeRequestParams;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use tokio::sync::mpsc;
use toolmodel::peer::LoggingLevel;

pub use crate::tasks::StoreFuture;

/// How many sessions a store keeps at once unless told otherwise (`with_limit`), over every
/// replica that shares it.
pub const DEFAULT_SESSION_LIMIT: usize = 100_000;

/// How many relayed messages a replica's [`SessionStore::subscribe`] queue holds before it
/// drops the newest (each dropped one is a `warn` event of `toolmodel_rmcp::sessions`).
pub const RELAY_QUEUE: usize = 4_096;

/// One session as every replica sees it: what `initialize` made of it.
///
/// A replica that receives a request in a session it has not served yet reads this record and
/// replays the session's `initialize` from it (so the session's negotiated protocol version,
/// client capabilities and client info are the ones the client sent), then serves the
/// request as if the session had been opened there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SessionRecord {
    /// The `Mcp-Session-Id` (MCP, Streamable HTTP, "Session Management": globally unique
    /// and cryptographically secure; `rmcp` makes it from a random UUID).
    pub id: String,
    /// The client's `initialize` parameters: `protocolVersion`, `capabilities`,
    /// `clientInfo`.
    pub initialize: InitializeRequestParams,
    /// Under authorization, the issuer and subject of the token that made the session: only
    /// that user's requests are served in it (MCP 2025-11-25, security best practices,
    /// "Session Hijacking"); `None` without authorization.
    pub owner: Option<(String, String)>,
    /// When it was made, in milliseconds since the Unix epoch.
    pub created_ms: u64,
    /// The level the client last asked with `logging/setLevel`, on any replica; `None`:
    /// never asked (the server's default).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_level: Option<LoggingLevel>,
}

impl SessionRecord {
    /// The record of session `id` made by `initialize` for `owner`, now.
    #[must_use]
    pub fn new(
        id: impl Into<String>,
        initialize: InitializeRequestParams,
        owner: Option<(String, String)>,
    ) -> Self {
        Self {
            id: id.into(),
            initialize,
            owner,
            created_ms: crate::tasks::now_ms(),
            log_level: None,
        }
    }
}

/// What one replica passes to others through the store ([`SessionStore::publish`]).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Relayed {
    /// The session it belongs to.
    pub session: String,
    /// The replica that sent it.
    pub from: String,
    /// The replica it is for (the id a replica subscribed with: [`SessionStore::subscribe`]);
    /// `None`: every replica.
    pub to: Option<String>,
    /// What it is.
    pub kind: RelayedKind,
    /// The JSON-RPC message it carries (`Null` for [`RelayedKind::Deleted`]).
    pub message: Value,
}

impl Relayed {
    /// A message of replica `from` in session `session`, for replica `to` (`None`: every
    /// replica).
    #[must_use]
    pub fn new(
        session: impl Into<String>,
        from: impl Into<String>,
        to: Option<String>,
        kind: RelayedKind,
        message: Value,
    ) -> Self {
        Self {
            session: session.into(),
            from: from.into(),
            to,
            kind,
            message,
        }
    }
}

/// What a [`Relayed`] message is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum RelayedKind {
    /// A message of the server for the session's client on its standalone stream (`GET`):
    /// a notification (`notifications/tools/list_changed`, `notifications/message`, ...) or
    /// a request not tied to a client request. Every replica holding a `GET` stream of the
    /// session sends it there.
    Event,
    /// The client's answer (a JSON-RPC response or error) to a request the replica `to`
    /// sent it (`elicitation/create`, `sampling/createMessage`, `roots/list`).
    Answer,
    /// A notification of the client that concerns a request another replica may be
    /// running (`notifications/cancelled`, `notifications/progress`).
    Notification,
    /// The client deleted the session (`DELETE`): every replica closes its copy.
    Deleted,
    /// The client asked for another log level (`logging/setLevel`, the level as the message):
    /// every replica holding a copy sets it there.
    LogLevel,
}

/// What [`SessionStore::touch`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Touched {
    /// The session is kept alive.
    Kept,
    /// The store had lost the session (not deleted): it was written again from the replica's
    /// copy.
    Written,
    /// The session was deleted: the replica closes its copy.
    Deleted,
}

/// Where the sessions of a Streamable HTTP server live: one store shared by every replica
/// makes each replica able to serve any session (the guide's
/// [Scale-out](crate::guide::scale_out) chapter).
///
/// Times are milliseconds since the Unix epoch, from the clock of the process that calls. A
/// session expires when no replica has touched it for the idle timeout it was given, and is
/// then gone: every method treats it as unknown.
///
/// Object safe: a server holds an `Arc<dyn SessionStore>`.
pub trait SessionStore: Send + Sync + std::fmt::Debug {
    /// Writes a new session, expiring after `idle` without a [`touch`](Self::touch).
    ///
    /// # Errors
    ///
    /// [`Error::SessionLimit`](crate::Error::SessionLimit) when the store keeps its limit of sessions not expired yet;
    /// [`Error::SessionStore`](crate::Error::SessionStore) when the store cannot be reached.
    fn create<'a>(&'a self, record: &'a SessionRecord, idle: Duration) -> StoreFuture<'a, ()>;

    /// Session `id`, `None` when unknown, deleted or expired.
    ///
    /// # Errors
    ///
    /// [`Error::SessionStore`](crate::Error::SessionStore) when the store cannot be reached or the stored session cannot
    /// be read.
    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionRecord>>;

    /// Keeps session `record.id` alive for `idle` more, from a replica that holds it and
    /// serves it: [`Touched::Kept`]; when the store no longer has it (Redis restarted
    /// without its data, say) and it was not deleted, writes `record` again:
    /// [`Touched::Written`]; when it was deleted less than `idle` ago: [`Touched::Deleted`]
    /// (the replica closes its copy). One atomic step.
    ///
    /// # Errors
    ///
    /// [`Error::SessionStore`](crate::Error::SessionStore) when the store cannot be reached.
    fn touch<'a>(&'a self, record: &'a SessionRecord, idle: Duration) -> StoreFuture<'a, Touched>;

    /// Replaces the stored record of session `record.id` by `record`, its expiry unchanged;
    /// `false` when the session is gone (nothing is written).
    ///
    /// # Errors
    ///
    /// [`Error::SessionStore`](crate::Error::SessionStore) when the store cannot be reached.
    fn update<'a>(&'a self, record: &'a SessionRecord) -> StoreFuture<'a, bool>;

    /// Deletes session `id`, leaving a mark that it was deleted for `idle` (so that no
    /// replica writes it again: [`touch`](Self::touch)); `false` when it was gone already.
    ///
    /// # Errors
    ///
    /// [`Error::SessionStore`](crate::Error::SessionStore) when the store cannot be reached.
    fn delete<'a>(&'a self, id: &'a str, idle: Duration) -> StoreFuture<'a, bool>;

    /// Sends `message` to the replicas it is for (`to`, or every one); returns how many
    /// replicas received it (for a message to one replica: 0 when that replica is gone).
    /// Delivery is at most once: a replica not subscribed when it is sent never sees it.
    ///
    /// # Errors
    ///
    /// [`Error::SessionStore`](crate::Error::SessionStore) when the store cannot be reached.
    fn publish<'a>(&'a self, message: &'a Relayed) -> StoreFuture<'a, usize>;

    /// The messages for `replica` from now on: those sent to it and those sent to every
    /// replica, in the order the store received them, at most [`RELAY_QUEUE`] waiting. The
    /// subscription lasts while the receiver does (in the Redis store it reconnects by
    /// itself after a lost connection; messages sent meanwhile are lost).
    ///
    /// # Errors
    ///
    /// [`Error::SessionStore`](crate::Error::SessionStore) when the store cannot be reached.
    fn subscribe<'a>(&'a self, replica: &'a str) -> StoreFuture<'a, mpsc::Receiver<Relayed>>;

    /// Whether the store answers (a readiness check: one round trip).
    ///
    /// # Errors
    ///
    /// [`Error::SessionStore`](crate::Error::SessionStore) when it does not.
    fn ping(&self) -> StoreFuture<'_, ()>;

    /// Whether sessions live outside this process, so that other replicas may hold them: the
    /// server then relays what the client sends for another replica, and reads a session it
    /// does not hold from the store. `false` for the memory store of one process.
    fn is_shared(&self) -> bool;
}
