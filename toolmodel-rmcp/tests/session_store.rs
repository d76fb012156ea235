//! The [`SessionStore`] contract, one test body per behaviour run against both shared stores:
//! the memory store of in-process replicas, and the Redis store (feature `redis`) on a
//! throwaway `redis-server` (skipped with a notice when it cannot start, failing under `CI`);
//! then what the Redis store does beyond it (a stored value that is not a session, a Redis
//! that restarts, stops or stalls).

use std::{sync::Arc, time::Duration};

use rmcp::model::{ClientCapabilities, Implementation, InitializeRequestParams, ProtocolVersion};
use serde_json::{Value, json};
use tokio::sync::mpsc;
use toolmodel_rmcp::{
    Error,
    sessions::{MemorySessionStore, Relayed, RelayedKind, SessionRecord, SessionStore, Touched},
};

use crate::support::task_ids::new_task_id;

/// How many sessions the stores of the contract's tests keep.
const LIMIT: usize = 2;

/// A fresh memory store of in-process replicas keeping [`LIMIT`] sessions.
fn memory() -> Arc<dyn SessionStore> {
    Arc::new(MemorySessionStore::in_process_replicas().with_limit(LIMIT))
}

/// A `redis-server` of its own (stopped when dropped) and a Redis store on it with keys under
/// `prefix`, or `None` (with a notice) when no server can start.
#[cfg(feature = "redis")]
async fn redis_store(
    prefix: &str,
) -> Option<(
    toolmodel_test_support::redis::RedisServer,
    toolmodel_rmcp::sessions::RedisSessionStore,
)> {
    let server = toolmodel_test_support::redis::RedisServer::start()?;
    let store =
        toolmodel_rmcp::sessions::RedisSessionStore::connect_with_prefix(&server.url, prefix)
            .await
            .expect("connect to redis");
    Some((server, store))
}

/// A fresh Redis store keeping [`LIMIT`] sessions, as [`redis_store`].
#[cfg(feature = "redis")]
async fn redis() -> Option<(
    toolmodel_test_support::redis::RedisServer,
    Arc<dyn SessionStore>,
)> {
    let (server, store) = redis_store("contract").await?;
    Some((server, Arc::new(store.with_limit(LIMIT))))
}

/// A new session of a 2025-06-18 client, owned by alice.
fn record() -> SessionRecord {
    let initialize = InitializeRequestParams::new(
        ClientCapabilities::default(),
        Implementation::new("test-client", "1.0.0"),
    )
    .with_protocol_version(ProtocolVersion::V_2025_06_18);
    SessionRecord::new(
        format!("s-{}", new_task_id()),
        initialize,
        Some(("https://issuer.example".to_owned(), "alice".to_owned())),
    )
}

/// An idle timeout no test waits for.
const MINUTE: Duration = Duration::from_secs(60);

/// A relayed message of session `session` from `replica-0` for `to` (every replica when
/// `None`).
fn relayed(session: &str, to: Option<&str>, kind: RelayedKind, n: u64) -> Relayed {
    let message = json!({"jsonrpc": "2.0", "method": "notifications/message", "params": {"n": n}});
    Relayed::new(session, "replica-0", to.map(str::to_owned), kind, message)
}

/// The next message of `queue`, within 5 s.
async fn next(queue: &mut mpsc::Receiver<Relayed>) -> Relayed {
    tokio::time::timeout(Duration::from_secs(5), queue.recv())
        .await
        .expect("a relayed message within 5 s")
        .expect("the subscription is open")
}

/// Whether `queue` stays empty for 200 ms.
async fn stays_empty(queue: &mut mpsc::Receiver<Relayed>) -> bool {
    tokio::time::timeout(Duration::from_millis(200), queue.recv())
        .await
        .is_err()
}

async fn a_session_reads_back_until_deleted(store: Arc<dyn SessionStore>) {
    assert!(store.is_shared());
    store.ping().await.unwrap();
    let session = record();
    store.create(&session, MINUTE).await.unwrap();
    assert_eq!(
        store.load(&session.id).await.unwrap(),
        Some(session.clone())
    );
    assert_eq!(store.touch(&session, MINUTE).await.unwrap(), Touched::Kept);
    assert!(store.delete(&session.id, MINUTE).await.unwrap());
    assert_eq!(store.load(&session.id).await.unwrap(), None);
    // Deleted: a replica still holding it is told so, and does not write it again.
    assert_eq!(
        store.touch(&session, MINUTE).await.unwrap(),
        Touched::Deleted
    );
    assert_eq!(store.load(&session.id).await.unwrap(), None);
    assert!(!store.delete(&session.id, MINUTE).await.unwrap());
    // An ID never created.
    assert_eq!(store.load("s-unknown").await.unwrap(), None);
}

async fn an_update_replaces_a_live_session_and_keeps_its_expiry(store: Arc<dyn SessionStore>) {
    let mut session = record();
    store
        .create(&session, Duration::from_millis(300))
        .await
        .unwrap();
    session.log_level = Some(toolmodel::peer::LoggingLevel::Error);
    assert!(store.update(&session).await.unwrap());
    assert_eq!(
        store.load(&session.id).await.unwrap(),
        Some(session.clone())
    );
    // Its expiry is the one `create` gave: gone after 300 ms, and then never written again.
    tokio::time::sleep(Duration::from_millis(400)).await;
    assert_eq!(store.load(&session.id).await.unwrap(), None);
    assert!(!store.update(&session).await.unwrap());
    assert_eq!(store.load(&session.id).await.unwrap(), None);
}

async fn a_session_expires_when_idle_and_a_touch_keeps_it(store: Arc<dyn SessionStore>) {
    let (short, long) = (Duration::from_millis(200), Duration::from_millis(400));
    let (kept, left) = (record(), record());
    store.create(&kept, long).await.unwrap();
    store.create(&left, short).await.unwrap();
    for _ in 0..5 {
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(store.touch(&kept, long).await.unwrap(), Touched::Kept);
    }
    // 500 ms after both were made: the one touched every 100 ms (idle 400 ms) lives, the
    // other (idle 200 ms) expired.
    assert_eq!(store.load(&kept.id).await.unwrap(), Some(kept.clone()));
    assert_eq!(store.load(&left.id).await.unwrap(), None);
    // A replica still serving it writes it again (it was not deleted).
    assert_eq!(store.touch(&left, short).await.unwrap(), Touched::Written);
    assert_eq!(store.load(&left.id).await.unwrap(), Some(left.clone()));
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert_eq!(store.load(&kept.id).await.unwrap(), None);
    assert_eq!(store.load(&left.id).await.unwrap(), None);
    assert!(!store.delete(&left.id, short).await.unwrap());
}

async fn a_deletion_is_remembered_for_its_idle_timeout(store: Arc<dyn SessionStore>) {
    let session = record();
    store.create(&session, MINUTE).await.unwrap();
    assert!(
        store
            .delete(&session.id, Duration::from_millis(200))
            .await
            .unwrap()
    );
    assert_eq!(
        store.touch(&session, MINUTE).await.unwrap(),
        Touched::Deleted
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    // The mark is gone: the session is as one the store lost.
    assert_eq!(
        store.touch(&session, MINUTE).await.unwrap(),
        Touched::Written
    );
    assert_eq!(store.load(&session.id).await.unwrap(), Some(session));
}

async fn the_limit_refuses_a_session_until_one_expires_or_is_deleted(store: Arc<dyn SessionStore>) {
    let short = record();
    store
        .create(&short, Duration::from_millis(200))
        .await
        .unwrap();
    let long = record();
    store.create(&long, MINUTE).await.unwrap();
    let refused = store.create(&record(), MINUTE).await;
    assert!(
        matches!(refused, Err(Error::SessionLimit { limit: 2 })),
        "{refused:?}"
    );
    tokio::time::sleep(Duration::from_millis(500)).await;
    store.create(&record(), MINUTE).await.unwrap();
    // One session expired: room for one more, not two.
    let refused = store.create(&record(), MINUTE).await;
    assert!(
        matches!(refused, Err(Error::SessionLimit { limit: 2 })),
        "{refused:?}"
    );
    assert!(store.delete(&long.id, MINUTE).await.unwrap());
    store.create(&record(), MINUTE).await.unwrap();
}

async fn a_relayed_message_reaches_its_replica_or_every_one(store: Arc<dyn SessionStore>) {
    let mut one = store.subscribe("replica-1").await.unwrap();
    let mut two = store.subscribe("replica-2").await.unwrap();
    let to_one = relayed("s-1", Some("replica-1"), RelayedKind::Answer, 1);
    assert_eq!(store.publish(&to_one).await.unwrap(), 1);
    let to_all = relayed("s-1", None, RelayedKind::Event, 2);
    assert_eq!(store.publish(&to_all).await.unwrap(), 2);
    let deleted = Relayed::new("s-1", "replica-0", None, RelayedKind::Deleted, Value::Null);
    assert_eq!(store.publish(&deleted).await.unwrap(), 2);
    // In the order they were sent; replica-2 never sees replica-1's.
    assert_eq!(next(&mut one).await, to_one);
    assert_eq!(next(&mut one).await, to_all);
    assert_eq!(next(&mut one).await, deleted);
    assert_eq!(next(&mut two).await, to_all);
    assert_eq!(next(&mut two).await, deleted);
    assert!(stays_empty(&mut one).await);
    assert!(stays_empty(&mut two).await);
    // A replica nobody subscribed as.
    let to_none = relayed("s-1", Some("replica-3"), RelayedKind::Notification, 3);
    assert_eq!(store.publish(&to_none).await.unwrap(), 0);
}

async fn a_dropped_receiver_ends_its_subscription(store: Arc<dyn SessionStore>) {
    let queue = store.subscribe("replica-1").await.unwrap();
    let message = relayed("s-1", Some("replica-1"), RelayedKind::Answer, 1);
    assert_eq!(store.publish(&message).await.unwrap(), 1);
    drop(queue);
    // The subscription ends (in Redis its connection closes) soon after.
    let deadline = tokio::time::Instant::now() + Duration::from_secs(3);
    while store.publish(&message).await.unwrap() != 0 {
        assert!(
            tokio::time::Instant::now() < deadline,
            "still subscribed 3 s after the receiver was dropped"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// One test per body and per store.
macro_rules! both_stores {
    ($($body:ident),* $(,)?) => {
        mod memory {
            $(
                #[tokio::test]
                async fn $body() {
                    super::$body(super::memory()).await;
                }
            )*
        }

        #[cfg(feature = "redis")]
        mod redis {
            $(
                #[tokio::test]
                async fn $body() {
                    if let Some((_server, store)) = super::redis().await {
                        super::$body(store).await;
                    }
                }
            )*
        }
    };
}

both_stores!(
    a_session_reads_back_until_deleted,
    an_update_replaces_a_live_session_and_keeps_its_expiry,
    a_session_expires_when_idle_and_a_touch_keeps_it,
    a_deletion_is_remembered_for_its_idle_timeout,
    the_limit_refuses_a_session_until_one_expires_or_is_deleted,
    a_relayed_message_reaches_its_replica_or_every_one,
    a_dropped_receiver_ends_its_subscription,
);

/// What the Redis store does beyond the contract: its key layout, what it reads that it did
/// not write, and a Redis that restarts, stops or stalls.
#[cfg(feature = "redis")]
mod redis_store {
    use std::{future::Future, time::Instant};

    use toolmodel_rmcp::sessions::{
        DEFAULT_REDIS_SESSION_PREFIX, RedisSessionStore, session_store_from_url,
    };
    use toolmodel_test_support::redis::RedisServer;

    use super::*;

    /// The answer of the Redis server at `url` to the command `args` (what the store would
    /// not send), on a connection of its own.
    async fn command<T: ::redis::FromRedisValue>(
        url: &str,
        args: &[&str],
    ) -> ::redis::RedisResult<T> {
        let client = ::redis::Client::open(url)?;
        let mut connection = client.get_multiplexed_async_connection().await?;
        let mut command = ::redis::Cmd::new();
        for arg in args {
            command.arg(*arg);
        }
        command.query_async(&mut connection).await
    }

    /// How long `operation` took, and what it gave.
    async fn timed<T>(operation: impl Future<Output = T>) -> (Duration, T) {
        let started = Instant::now();
        let result = operation.await;
        (started.elapsed(), result)
    }

    #[tokio::test]
    async fn the_url_makes_a_connected_shared_store_with_the_documented_keys() {
        let Some(server) = RedisServer::start() else {
            return;
        };
        let store = session_store_from_url(Some(&server.url)).await.unwrap();
        assert!(store.is_shared());
        assert!(
            format!("{store:?}").starts_with("RedisSessionStore"),
            "{store:?}"
        );
        let session = record();
        store.create(&session, MINUTE).await.unwrap();
        let key = format!("{DEFAULT_REDIS_SESSION_PREFIX}:session:{}", session.id);
        let stored: String = command(&server.url, &["GET", &key]).await.unwrap();
        assert_eq!(
            serde_json::from_str::<SessionRecord>(&stored).unwrap(),
            session
        );
        let ttl: i64 = command(&server.url, &["PTTL", &key]).await.unwrap();
        assert!((59_000..=60_000).contains(&ttl), "PTTL {ttl}");
        let live = format!("{DEFAULT_REDIS_SESSION_PREFIX}:live");
        let expiry: f64 = command(&server.url, &["ZSCORE", &live, &session.id])
            .await
            .unwrap();
        let now = crate::support::task_ids::now_ms() as f64;
        assert!(
            (now + 59_000.0..=now + 60_000.0).contains(&expiry),
            "{expiry}"
        );
        // A deletion leaves a mark for the idle timeout it is given.
        assert!(store.delete(&session.id, MINUTE).await.unwrap());
        let stored: Option<String> = command(&server.url, &["GET", &key]).await.unwrap();
        assert_eq!(stored, None);
        let mark = format!("{DEFAULT_REDIS_SESSION_PREFIX}:deleted:{}", session.id);
        let ttl: i64 = command(&server.url, &["PTTL", &mark]).await.unwrap();
        assert!((59_000..=60_000).contains(&ttl), "PTTL {ttl}");
    }

    #[tokio::test]
    async fn a_stored_value_that_is_not_a_session_is_a_clear_error() {
        let Some((server, store)) = redis_store("bad").await else {
            return;
        };
        let truncated = "{\"id\": \"s-broken\"";
        let () = command(&server.url, &["SET", "bad:session:s-broken", truncated])
            .await
            .unwrap();
        let err = store.load("s-broken").await.unwrap_err();
        let Error::SessionStore {
            message,
            source: Some(cause),
        } = &err
        else {
            panic!("{err:?}");
        };
        assert!(
            message.contains("s-broken") && message.contains("not a session record"),
            "{message}"
        );
        assert!(cause.is::<serde_json::Error>(), "{cause:?}");
        assert!(err.to_string().contains("s-broken"), "{err}");
    }

    #[tokio::test]
    async fn a_published_payload_that_is_not_a_relayed_message_is_skipped() {
        let Some((server, store)) = redis_store("garbled").await else {
            return;
        };
        let mut queue = store.subscribe("replica-1").await.unwrap();
        let received: usize = command(&server.url, &["PUBLISH", "garbled:all", "not json"])
            .await
            .unwrap();
        assert_eq!(received, 1);
        let message = relayed("s-1", None, RelayedKind::Event, 1);
        assert_eq!(store.publish(&message).await.unwrap(), 1);
        assert_eq!(next(&mut queue).await, message);
    }

    #[tokio::test]
    async fn a_subscription_and_the_store_come_back_after_redis_restarts() {
        let Some((mut server, store)) = redis_store(DEFAULT_REDIS_SESSION_PREFIX).await else {
            return;
        };
        let mut queue = store.subscribe("replica-1").await.unwrap();
        let before = record();
        store.create(&before, MINUTE).await.unwrap();
        server.restart();
        // The store reconnects on its own; the subscription resubscribes within 0.5 s of
        // Redis being back. Messages published before that reach no one (count 0).
        let message = relayed("s-1", Some("replica-1"), RelayedKind::Answer, 1);
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            match store.publish(&message).await {
                Ok(1) => break,
                Ok(_) | Err(Error::SessionStore { .. }) if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
                other => panic!("not resubscribed within 10 s: {other:?}"),
            }
        }
        assert_eq!(next(&mut queue).await, message);
        // Redis restarted empty; the store works again, and a replica serving a session
        // writes it back.
        assert_eq!(store.load(&before.id).await.unwrap(), None);
        assert_eq!(
            store.touch(&before, MINUTE).await.unwrap(),
            Touched::Written
        );
        assert_eq!(store.load(&before.id).await.unwrap(), Some(before));
        let after = record();
        store.create(&after, MINUTE).await.unwrap();
        assert_eq!(store.load(&after.id).await.unwrap(), Some(after));
    }

    #[tokio::test]
    async fn every_operation_fails_promptly_when_redis_is_down() {
        let Some((server, store)) = redis_store(DEFAULT_REDIS_SESSION_PREFIX).await else {
            return;
        };
        let session = record();
        store.create(&session, MINUTE).await.unwrap();
        // Stop the server (the helper restarts it, but has no stop).
        let _ = command::<()>(&server.url, &["SHUTDOWN", "NOSAVE"]).await;
        let idle = MINUTE;
        let message = relayed("s-1", None, RelayedKind::Event, 1);
        let bound = Duration::from_secs(3);
        let mut failures = Vec::new();
        failures.push(timed(store.create(&record(), idle)).await.map_err_only());
        failures.push(timed(store.load(&session.id)).await.map_err_only());
        failures.push(timed(store.touch(&session, idle)).await.map_err_only());
        failures.push(timed(store.delete(&session.id, idle)).await.map_err_only());
        failures.push(timed(store.publish(&message)).await.map_err_only());
        failures.push(timed(store.subscribe("replica-1")).await.map_err_only());
        failures.push(timed(store.ping()).await.map_err_only());
        failures.push(
            timed(RedisSessionStore::connect(&server.url))
                .await
                .map_err_only(),
        );
        for (n, (took, failed)) in failures.into_iter().enumerate() {
            assert!(took < bound, "operation {n} took {took:?}");
            assert!(
                matches!(failed, Some(Error::SessionStore { .. })),
                "operation {n}: {failed:?}"
            );
        }
    }

    #[tokio::test]
    async fn connecting_to_a_server_that_never_answers_fails_promptly() {
        // Accepts TCP connections (the kernel's backlog) and never answers a byte.
        let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let url = format!("redis://{}", silent.local_addr().unwrap());
        let (took, connected) = timed(RedisSessionStore::connect(&url)).await;
        assert!(took < Duration::from_secs(3), "took {took:?}");
        assert!(
            matches!(&connected, Err(Error::SessionStore { message, .. }) if message.contains(&url)),
            "{connected:?}"
        );
        // And `MCP_SESSION_STORE` naming it.
        let (took, connected) = timed(session_store_from_url(Some(&url))).await;
        assert!(took < Duration::from_secs(3), "took {took:?}");
        assert!(
            matches!(connected, Err(Error::SessionStore { .. })),
            "{connected:?}"
        );
    }

    #[tokio::test]
    async fn a_command_to_a_stalled_redis_fails_within_its_response_timeout() {
        let Some((server, store)) = redis_store(DEFAULT_REDIS_SESSION_PREFIX).await else {
            return;
        };
        store.ping().await.unwrap();
        // Every client's commands wait for 2.5 s.
        let () = command(&server.url, &["CLIENT", "PAUSE", "2500", "ALL"])
            .await
            .unwrap();
        let (took, loaded) = timed(store.load("s-1")).await;
        assert!(
            matches!(loaded, Err(Error::SessionStore { .. })),
            "{loaded:?}"
        );
        assert!(
            (Duration::from_millis(900)..Duration::from_secs(2)).contains(&took),
            "took {took:?}"
        );
        // Once Redis answers again, so does the store.
        let deadline = Instant::now() + Duration::from_secs(5);
        while store.ping().await.is_err() {
            assert!(Instant::now() < deadline, "no PONG 5 s after the pause");
        }
        let session = record();
        store.create(&session, MINUTE).await.unwrap();
        assert_eq!(store.load(&session.id).await.unwrap(), Some(session));
    }

    /// An operation's time and its error, if it failed.
    trait ErrOnly {
        fn map_err_only(self) -> (Duration, Option<Error>);
    }

    impl<T> ErrOnly for (Duration, Result<T, Error>) {
        fn map_err_only(self) -> (Duration, Option<Error>) {
            (self.0, self.1.err())
        }
    }
}
