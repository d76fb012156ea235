//! [`RedisSessionStore`] (feature `redis`): the handshake-era sessions of a Streamable HTTP
//! server in Redis or Valkey, shared by every replica that connects to the same server and
//! prefix; its Lua scripts, and the pub/sub relay between replicas.

use std::{sync::Arc, time::Duration};

use redis::{Script, ToRedisArgs, aio::ConnectionManager};
use tokio::sync::mpsc::{self, error::TrySendError};

use super::store::{
    DEFAULT_SESSION_LIMIT, RELAY_QUEUE, Relayed, SessionRecord, SessionStore, StoreFuture, Touched,
};
use crate::{
    Error,
    redis_link::{self, Store},
    store_url::without_password,
    tasks::now_ms,
};

/// The prefix of a session store's keys unless told otherwise
/// ([`RedisSessionStore::connect_with_prefix`]).
pub const DEFAULT_REDIS_SESSION_PREFIX: &str = "toolmodel:sessions";

/// The store's error variant, `tracing` target and span.
const STORE: Store = Store::Sessions;

/// How long a command waits for its answer before it fails, and how long one attempt to
/// connect (TCP, then the URL's `AUTH` and `SELECT`) may take.
const TIMEOUT: Duration = Duration::from_secs(1);

/// How long a subscription (a new pub/sub connection and its `SUBSCRIBE`) may take.
const SUBSCRIBE_TIMEOUT: Duration = Duration::from_secs(2);

/// The longest idle timeout a session is given, in ms (2^40 ms, about 34.8 years); a longer
/// one counts as this.
const MAX_IDLE_MS: u64 = 1 << 40;

/// `create`: KEYS the session's key, `live` (and its deletion mark, unused); ARGV the session
/// ID, now (ms), the limit, the idle timeout (ms), the expiry (ms), the record (JSON). Below
/// the limit `live` counts (expired sessions included) it writes the session at once: the
/// sessions not expired yet are fewer still. At it, it first forgets the expired sessions of `live` and refuses (0) if the
/// count is still at the limit. So a session is refused exactly when the sessions not expired
/// yet reach the limit, and `live` is trimmed only when it must be.
const CREATE: &str = r"
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[2])
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[3]) then return 0 end
end
redis.call('SET', KEYS[1], ARGV[6], 'PX', ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[5], ARGV[1])
return 1
";

/// `touch`: KEYS the session's key, `live`, its deletion mark; ARGV the session ID, the idle
/// timeout (ms), the new expiry (ms), the record (JSON). 1 ([`Touched::Kept`]) when the
/// session is there (its expiry pushed back in both places); 0 ([`Touched::Deleted`]) when it
/// was deleted (the mark is there; `live` forgets it); else 2 ([`Touched::Written`]): the
/// store lost it, and it is written again from the record, as `create` would, the limit
/// aside (the session was counted when it was made).
const TOUCH: &str = r"
if redis.call('PEXPIRE', KEYS[1], ARGV[2]) == 1 then
  redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
  return 1
end
if redis.call('EXISTS', KEYS[3]) == 1 then
  redis.call('ZREM', KEYS[2], ARGV[1])
  return 0
end
redis.call('SET', KEYS[1], ARGV[4], 'PX', ARGV[2])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
return 2
";

/// `delete`: KEYS the session's key, `live`, its deletion mark; ARGV the session ID, how long
/// the mark lasts (ms). 1 when the session was there, 0 when it was gone already; the mark is
/// left either way.
const DELETE: &str = r"
redis.call('SET', KEYS[3], '1', 'PX', ARGV[2])
redis.call('ZREM', KEYS[2], ARGV[1])
return redis.call('DEL', KEYS[1])
";

/// The Lua scripts of a store, run by `EVALSHA` (and `SCRIPT LOAD` the first time a Redis
/// server does not know one).
#[derive(Debug)]
struct Scripts {
    create: Script,
    touch: Script,
    delete: Script,
}

/// What the clones of a store share.
struct Shared {
    /// For the pub/sub connections of [`SessionStore::subscribe`].
    client: redis::Client,
    scripts: Scripts,
    prefix: String,
    /// The URL without its password, for messages.
    shown: String,
}

/// The handshake-era sessions of a Streamable HTTP server (MCP 2025-11-25, 2025-06-18,
/// 2025-03-26) in Redis or Valkey (feature `redis`), shared by every replica that connects to
/// the same server and prefix: any replica serves any session, and a session outlives the
/// replica that made it. [`session_store_from_url`](super::session_store_from_url) makes one
/// from `MCP_SESSION_STORE=redis://HOST:PORT[/DB]` (which may name the task store's Redis: the
/// prefixes differ).
///
/// **Layout** (prefix `toolmodel:sessions` by default):
///
/// - `PREFIX:session:ID`, a string per session: its [`SessionRecord`] as JSON, deleted by
///   Redis when no replica has touched it for its idle timeout (`PX`/`PEXPIRE`, in ms);
/// - `PREFIX:deleted:ID`, a mark per deleted session (`1`), deleted by Redis after the idle
///   timeout given to [`delete`](SessionStore::delete): while it lasts,
///   [`touch`](SessionStore::touch) does not write the session again;
/// - `PREFIX:live`, a sorted set of session IDs by expiry (ms since the Unix epoch): the
///   sessions the limit counts (an expired session stays in it until a `create` at the limit
///   forgets it);
/// - `PREFIX:all`, a pub/sub channel: the [`Relayed`] messages (JSON) for every replica;
/// - `PREFIX:replica:REPLICA`, a pub/sub channel per replica: the messages for that one.
///
/// **Round trips**: each operation is one command or one Lua script (`EVALSHA`; the first
/// run of a script on a Redis server also loads it), so one round trip, atomic. `create`,
/// `touch` and `delete` are scripts, `load` a `GET`, `publish` a `PUBLISH`, `ping` a `PING`;
/// `subscribe` opens a pub/sub connection of its own (a connection, then `SUBSCRIBE`).
/// Scripts name three keys of a prefix, so a prefix must live on one Redis server (no Redis
/// Cluster).
///
/// **Time bounds**: nothing waits for Redis without end. A command fails with
/// [`Error::SessionStore`] when it has no answer within 1 s, and connecting (TCP, then the
/// URL's `AUTH` and `SELECT`) fails after 1 s, without retrying: a command on a store whose
/// Redis is down or stalled fails within about 2 s (1 s to find it cannot connect, or 1 s to
/// connect and 1 s for the answer; a script's first run on a server is up to three commands,
/// `EVALSHA`, `SCRIPT LOAD`, `EVALSHA`, each so bounded), and the next one connects again.
/// A subscription is made within 2 s or fails.
///
/// Cheap to clone; clones share the connection.
#[derive(Clone)]
pub struct RedisSessionStore {
    connection: ConnectionManager,
    shared: Arc<Shared>,
    limit: usize,
}

impl std::fmt::Debug for RedisSessionStore {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisSessionStore")
            .field("url", &self.shared.shown)
            .field("prefix", &self.shared.prefix)
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

/// `idle` in ms as Redis takes it: at least 1, at most [`MAX_IDLE_MS`].
fn idle_ms(idle: Duration) -> u64 {
    u64::try_from(idle.as_millis())
        .unwrap_or(u64::MAX)
        .clamp(1, MAX_IDLE_MS)
}

fn to_json(value: &impl serde::Serialize, what: &str) -> Result<String, Error> {
    serde_json::to_string(value).map_err(|err| {
        STORE.error(
            format!("redis: {what} does not serialize to JSON"),
            Some(Box::new(err)),
        )
    })
}

impl RedisSessionStore {
    /// Connects to the Redis (or Valkey) server at `url` (`redis://HOST:PORT[/DB]` or
    /// `rediss://...`, the `redis` crate's URL syntax) with keys under
    /// [`DEFAULT_REDIS_SESSION_PREFIX`], keeping at most [`DEFAULT_SESSION_LIMIT`] sessions.
    /// Its connection has `TCP_NODELAY`, a 1 s connection timeout and a 1 s response timeout
    /// (see the type's "Time bounds"); it reconnects by itself when lost.
    ///
    /// # Errors
    ///
    /// [`Error::SessionStore`] when `url` is not a Redis URL, the server cannot be reached
    /// within 1 s, or it refuses the URL's password or database (the message shows the URL
    /// without its password).
    pub async fn connect(url: &str) -> Result<Self, Error> {
        Self::connect_with_prefix(url, DEFAULT_REDIS_SESSION_PREFIX).await
    }

    /// As [`connect`](Self::connect), with keys under `prefix`: stores with different
    /// prefixes on one server see neither each other's sessions nor each other's relayed
    /// messages.
    ///
    /// # Errors
    ///
    /// As [`connect`](Self::connect).
    pub async fn connect_with_prefix(url: &str, prefix: &str) -> Result<Self, Error> {
        let shown = without_password(url);
        let (client, connection) = STORE.connect(url, &shown, TIMEOUT).await?;
        Ok(Self {
            connection,
            shared: Arc::new(Shared {
                client,
                scripts: Scripts {
                    create: Script::new(CREATE),
                    touch: Script::new(TOUCH),
                    delete: Script::new(DELETE),
                },
                prefix: prefix.to_owned(),
                shown,
            }),
            limit: DEFAULT_SESSION_LIMIT,
        })
    }

    /// The same store keeping at most `limit` sessions not expired yet (counted over every
    /// replica that shares the prefix): a `create` beyond it is [`Error::SessionLimit`].
    #[must_use]
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    fn key(&self, name: &str) -> String {
        format!("{}:{name}", self.shared.prefix)
    }

    fn session_key(&self, id: &str) -> String {
        format!("{}:session:{id}", self.shared.prefix)
    }

    fn deleted_key(&self, id: &str) -> String {
        format!("{}:deleted:{id}", self.shared.prefix)
    }

    /// The channel of the messages for `replica`, or for every replica.
    fn channel(&self, replica: Option<&str>) -> String {
        match replica {
            Some(replica) => format!("{}:replica:{replica}", self.shared.prefix),
            None => self.key("all"),
        }
    }

    /// Runs `script` on session `id` (one round trip): KEYS the session's key, `live` and its
    /// deletion mark, ARGV its ID then `args`; its answer, or the error of failing `doing`.
    async fn run(
        &self,
        script: &Script,
        id: &str,
        args: impl ToRedisArgs,
        doing: &str,
    ) -> Result<i64, Error> {
        let mut invocation = script.prepare_invoke();
        invocation
            .key(self.session_key(id))
            .key(self.key("live"))
            .key(self.deleted_key(id))
            .arg(id)
            .arg(args);
        invocation
            .invoke_async(&mut self.connection.clone())
            .await
            .map_err(|err| self.failed(doing, err))
    }

    /// The error of a command that failed while `doing` (logged by whoever meets it: a
    /// server's relay, at most once per 10 s).
    fn failed(&self, doing: &str, err: redis::RedisError) -> Error {
        STORE.redis_error(&format!("{doing} ({})", self.shared.shown), err)
    }
}

impl SessionStore for RedisSessionStore {
    /// One script (`SET PX`, `ZADD`; `ZREMRANGEBYSCORE` of `live` only at the limit).
    fn create<'a>(&'a self, record: &'a SessionRecord, idle: Duration) -> StoreFuture<'a, ()> {
        STORE.traced("create", async move {
            let json = to_json(record, "a session record")?;
            let idle = idle_ms(idle);
            let now = now_ms();
            let args = (now, self.limit, idle, now.saturating_add(idle), json);
            let created = self
                .run(
                    &self.shared.scripts.create,
                    &record.id,
                    args,
                    "creating a session",
                )
                .await?;
            if created == 1 {
                Ok(())
            } else {
                Err(Error::SessionLimit { limit: self.limit })
            }
        })
    }

    /// One `GET`.
    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionRecord>> {
        STORE.traced("load", async move {
            let stored: Option<Vec<u8>> = redis::cmd("GET")
                .arg(self.session_key(id))
                .query_async(&mut self.connection.clone())
                .await
                .map_err(|err| self.failed("reading a session", err))?;
            stored
                .map(|json| {
                    serde_json::from_slice(&json).map_err(|err| {
                        STORE.error(
                            format!(
                                "redis: session {id:?}: the stored value ({}) is not a session record",
                                self.session_key(id)
                            ),
                            Some(Box::new(err)),
                        )
                    })
                })
                .transpose()
        })
    }

    /// One script (`PEXPIRE` and `ZADD`; when the session is gone, `EXISTS` of its deletion
    /// mark, then `ZREM`, or `SET PX` and `ZADD`). The record is sent as JSON each time, for
    /// the case where the store lost it.
    fn touch<'a>(&'a self, record: &'a SessionRecord, idle: Duration) -> StoreFuture<'a, Touched> {
        STORE.traced("touch", async move {
            let json = to_json(record, "a session record")?;
            let idle = idle_ms(idle);
            let args = (idle, now_ms().saturating_add(idle), json);
            let touched = self
                .run(
                    &self.shared.scripts.touch,
                    &record.id,
                    args,
                    "touching a session",
                )
                .await?;
            Ok(match touched {
                1 => Touched::Kept,
                2 => Touched::Written,
                _ => Touched::Deleted,
            })
        })
    }

    /// One `SET XX KEEPTTL`.
    fn update<'a>(&'a self, record: &'a SessionRecord) -> StoreFuture<'a, bool> {
        STORE.traced("update", async move {
            let json = to_json(record, "a session record")?;
            let written: Option<String> = redis::cmd("SET")
                .arg(self.session_key(&record.id))
                .arg(json)
                .arg("XX")
                .arg("KEEPTTL")
                .query_async(&mut self.connection.clone())
                .await
                .map_err(|err| self.failed("updating a session", err))?;
            Ok(written.is_some())
        })
    }

    /// One script (`SET PX` of the deletion mark, `ZREM`, `DEL`).
    fn delete<'a>(&'a self, id: &'a str, idle: Duration) -> StoreFuture<'a, bool> {
        STORE.traced("delete", async move {
            let mark = idle_ms(idle);
            let deleted = self
                .run(&self.shared.scripts.delete, id, mark, "deleting a session")
                .await?;
            Ok(deleted == 1)
        })
    }

    /// One `PUBLISH` of `message` as JSON on `PREFIX:replica:TO`, or on `PREFIX:all` when
    /// `to` is `None`; the count is Redis's: the subscribed connections that received it
    /// (for `PREFIX:all`, every subscribed replica).
    fn publish<'a>(&'a self, message: &'a Relayed) -> StoreFuture<'a, usize> {
        STORE.traced("publish", async move {
            let json = to_json(message, "a relayed message")?;
            let received: usize = redis::cmd("PUBLISH")
                .arg(self.channel(message.to.as_deref()))
                .arg(json)
                .query_async(&mut self.connection.clone())
                .await
                .map_err(|err| self.failed("publishing a relayed message", err))?;
            Ok(received)
        })
    }

    /// A pub/sub connection of its own subscribed to `PREFIX:all` and
    /// `PREFIX:replica:REPLICA` (in place when this returns, within 2 s or an error), and a
    /// task that forwards each message to the receiver: one that is not a [`Relayed`] is
    /// skipped with a `warn` event, one that finds the queue full is dropped with one. After a
    /// lost connection the task subscribes again every 0.5 s until Redis is back; it ends
    /// when the receiver is dropped.
    fn subscribe<'a>(&'a self, replica: &'a str) -> StoreFuture<'a, mpsc::Receiver<Relayed>> {
        STORE.traced("subscribe", async move {
            let channels = vec![self.channel(None), self.channel(Some(replica))];
            let first =
                redis_link::subscribe(&self.shared.client, &channels, Some(SUBSCRIBE_TIMEOUT))
                    .await
                    .map_err(|err| {
                        self.failed(&format!("subscribing to {}", channels.join(" and ")), err)
                    })?;
            let (queue, receiver) = mpsc::channel(RELAY_QUEUE);
            tokio::spawn(relay(
                self.shared.client.clone(),
                channels,
                first,
                queue,
                replica.to_owned(),
            ));
            Ok(receiver)
        })
    }

    /// One `PING`, answered within 1 s.
    fn ping(&self) -> StoreFuture<'_, ()> {
        STORE.traced("ping", async move {
            redis::cmd("PING")
                .query_async::<String>(&mut self.connection.clone())
                .await
                .map_err(|err| self.failed("PING", err))?;
            Ok(())
        })
    }

    /// `true`: the sessions live in Redis, where every replica reads them.
    fn is_shared(&self) -> bool {
        true
    }
}

/// Forwards the messages published on `channels` (from the subscription `first` on) to
/// `queue`, for `replica`, until the receiver of `queue` is dropped.
async fn relay(
    client: redis::Client,
    channels: Vec<String>,
    first: redis::aio::PubSub,
    queue: mpsc::Sender<Relayed>,
    replica: String,
) {
    let forward = |message: redis::Msg| {
        let relayed = match serde_json::from_slice::<Relayed>(message.get_payload_bytes()) {
            Ok(relayed) => relayed,
            Err(err) => {
                tracing::warn!(
                    target: "toolmodel_rmcp::sessions",
                    replica,
                    channel = message.get_channel_name(),
                    error = %err,
                    "a relayed session message that is not one was skipped"
                );
                return;
            }
        };
        match queue.try_send(relayed) {
            // Closed: the receiver is gone, and `closed()` below ends the relay.
            Ok(()) | Err(TrySendError::Closed(_)) => {}
            Err(TrySendError::Full(_)) => super::relay::dropped(&replica),
        }
    };
    let lost = || {
        tracing::warn!(
            target: "toolmodel_rmcp::sessions",
            replica,
            "the Redis session store's subscription was lost; subscribing again (messages \
             relayed meanwhile are lost)"
        );
    };
    tokio::select! {
        () = queue.closed() => {}
        () = redis_link::follow(client, channels, Some(SUBSCRIBE_TIMEOUT), first, forward, lost) => {}
    }
}
