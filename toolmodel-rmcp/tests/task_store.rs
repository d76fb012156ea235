//! The [`TaskStore`] contract, one test body per behaviour run against both stores: the
//! memory store, and the Redis store (feature `redis`) on a throwaway `redis-server`
//! (skipped with a notice when it cannot start, failing under `CI`); then what the Redis store
//! does beyond it.

use std::{
    future::Future,
    pin::Pin,
    sync::Arc,
    time::{Duration, Instant},
};

use rmcp::model::{Task, TaskStatus};
use serde_json::{Map, Value, json};
use toolmodel_rmcp::{
    Error,
    tasks::{Lease, MemoryTaskStore, TaskOutcome, TaskRecord, TaskStore},
};

use crate::support::task_ids::{new_task_id, now_ms};

/// Makes a fresh, empty store keeping at most `limit` tasks.
trait MakeStore {
    fn make(&self, limit: usize) -> Pin<Box<dyn Future<Output = Arc<dyn TaskStore>> + '_>>;
}

struct Memory;

impl MakeStore for Memory {
    fn make(&self, limit: usize) -> Pin<Box<dyn Future<Output = Arc<dyn TaskStore>> + '_>> {
        Box::pin(async move {
            Arc::new(MemoryTaskStore::new().with_live_limit(limit)) as Arc<dyn TaskStore>
        })
    }
}

fn map(value: Value) -> Map<String, Value> {
    value.as_object().cloned().unwrap_or_default()
}

fn elicit(message: &str) -> Value {
    json!({"method": "elicitation/create", "params": {
        "message": message,
        "requestedSchema": {"type": "object", "properties": {}}
    }})
}

/// A new task record of `worker`, its lease `lease_ms` from now, its TTL `ttl_ms`.
fn record(worker: &str, lease_ms: u64, ttl_ms: u64) -> TaskRecord {
    let now = rmcp::task_manager::current_timestamp();
    let task = Task::new(new_task_id(), TaskStatus::Working, now.clone(), now).with_ttl_ms(ttl_ms);
    let created = now_ms();
    TaskRecord::new(task, worker, created, created + lease_ms)
}

/// A store keeping at most 100 tasks, holding one task of worker `w1` (TTL 60 s), and its ID.
async fn one_task(stores: &dyn MakeStore) -> (Arc<dyn TaskStore>, String) {
    let store = stores.make(100).await;
    let created = record("w1", 10_000, 60_000);
    let id = created.task.task_id.clone();
    store.create(created).await.unwrap();
    (store, id)
}

async fn a_created_task_reads_back_working_with_its_fields(stores: &dyn MakeStore) {
    let store = stores.make(100).await;
    let created = record("w1", 10_000, 60_000).with_owner("alice");
    let id = created.task.task_id.clone();
    store.create(created.clone()).await.unwrap();
    let read = store.get(&id).await.unwrap().expect("the task");
    assert_eq!(read.status(), TaskStatus::Working);
    assert_eq!(read.task.task_id, id);
    assert_eq!(read.task.ttl_ms, Some(60_000));
    assert_eq!(read.owner.as_deref(), Some("alice"));
    assert_eq!(read.worker, "w1");
    assert_eq!(read.expires_at_ms, created.expires_at_ms);
    assert!(store.get("no-such-task").await.unwrap().is_none());
}

async fn input_requests_are_answered_once_and_unknown_keys_are_ignored(stores: &dyn MakeStore) {
    let (store, id) = one_task(stores).await;
    let asked = store
        .ask(&id, map(json!({"a": elicit("A?"), "b": elicit("B?")})))
        .await
        .unwrap()
        .expect("the task");
    assert_eq!(asked.status(), TaskStatus::InputRequired);
    let detailed = serde_json::to_value(asked.detailed().unwrap()).unwrap();
    assert_eq!(detailed["status"], "input_required");
    assert_eq!(detailed["inputRequests"]["a"]["params"]["message"], "A?");

    // An unknown key is ignored; one answer leaves the other request open.
    assert!(
        store
            .answer(&id, map(json!({"a": {"action": "accept"}, "zzz": 1})))
            .await
            .unwrap()
    );
    let read = store.get(&id).await.unwrap().unwrap();
    assert_eq!(read.status(), TaskStatus::InputRequired);
    assert_eq!(read.answers.len(), 1);
    assert_eq!(read.open_requests().keys().collect::<Vec<_>>(), ["b"]);

    // The first answer stays; the last one closes the input.
    store
        .answer(
            &id,
            map(json!({"a": {"action": "decline"}, "b": {"action": "cancel"}})),
        )
        .await
        .unwrap();
    let read = store.get(&id).await.unwrap().unwrap();
    assert_eq!(read.status(), TaskStatus::Working);
    assert_eq!(read.answers["a"], json!({"action": "accept"}));
    assert_eq!(read.answers["b"], json!({"action": "cancel"}));

    // A key asked again keeps its first request and its answer.
    let again = store
        .ask(&id, map(json!({"a": elicit("A again?")})))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(again.input_requests["a"]["params"]["message"], "A?");
    assert_eq!(again.status(), TaskStatus::Working);
    assert!(!store.answer("no-such-task", Map::new()).await.unwrap());
}

async fn the_first_outcome_stays_and_cancelling_leaves_input_required(stores: &dyn MakeStore) {
    let (store, id) = one_task(stores).await;
    store
        .ask(&id, map(json!({"a": elicit("A?")})))
        .await
        .unwrap();
    assert!(store.cancel(&id).await.unwrap());
    let read = store.get(&id).await.unwrap().unwrap();
    assert!(read.cancel_requested);
    assert_eq!(read.status(), TaskStatus::Working);

    assert!(store.finish(&id, TaskOutcome::Cancelled).await.unwrap());
    let completed = TaskOutcome::Completed {
        result: map(json!({"content": []})),
    };
    assert!(!store.finish(&id, completed).await.unwrap());
    let read = store.get(&id).await.unwrap().unwrap();
    assert_eq!(read.status(), TaskStatus::Cancelled);
    assert_eq!(read.outcome, Some(TaskOutcome::Cancelled));
    // Answers after the end are ignored; the task is still known.
    assert!(
        store
            .answer(&id, map(json!({"a": {"action": "accept"}})))
            .await
            .unwrap()
    );
    assert!(store.get(&id).await.unwrap().unwrap().answers.is_empty());
    assert!(!store.cancel("no-such-task").await.unwrap());
    assert!(
        !store
            .finish("no-such-task", TaskOutcome::Cancelled)
            .await
            .unwrap()
    );
}

async fn an_ended_task_takes_no_more_input_requests(stores: &dyn MakeStore) {
    let (store, id) = one_task(stores).await;
    assert!(store.finish(&id, TaskOutcome::Cancelled).await.unwrap());
    let ended = store.get(&id).await.unwrap().unwrap();
    let asked = store
        .ask(&id, map(json!({"a": elicit("A?")})))
        .await
        .unwrap()
        .unwrap();
    assert!(asked.input_requests.is_empty());
    assert_eq!(asked, ended);
    assert_eq!(store.get(&id).await.unwrap().unwrap(), ended);
}

async fn a_waiter_hears_of_an_answer_at_once(stores: &dyn MakeStore) {
    let (store, id) = one_task(stores).await;
    store
        .ask(&id, map(json!({"a": elicit("A?")})))
        .await
        .unwrap();
    let mut changes = store.changes();
    let answering = {
        let store = store.clone();
        let id = id.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(50)).await;
            store
                .answer(&id, map(json!({"a": {"action": "accept"}})))
                .await
                .unwrap();
        })
    };
    let started = Instant::now();
    changes.wait(&id, Duration::from_secs(5)).await;
    assert!(
        started.elapsed() < Duration::from_secs(2),
        "woken after {:?}",
        started.elapsed()
    );
    answering.await.unwrap();
}

async fn a_task_expires_with_its_ttl(stores: &dyn MakeStore) {
    let store = stores.make(100).await;
    let created = record("w1", 10_000, 300);
    let id = created.task.task_id.clone();
    store.create(created).await.unwrap();
    assert!(store.get(&id).await.unwrap().is_some());
    tokio::time::sleep(Duration::from_millis(700)).await;
    assert!(store.get(&id).await.unwrap().is_none());
    assert!(!store.cancel(&id).await.unwrap());
}

async fn the_live_limit_refuses_a_task_until_one_expires(stores: &dyn MakeStore) {
    let store = stores.make(2).await;
    store.create(record("w1", 10_000, 400)).await.unwrap();
    store.create(record("w1", 10_000, 60_000)).await.unwrap();
    let refused = store.create(record("w1", 10_000, 60_000)).await;
    assert!(
        matches!(refused, Err(Error::TaskLimit { limit: 2 })),
        "{refused:?}"
    );
    tokio::time::sleep(Duration::from_millis(800)).await;
    store.create(record("w1", 10_000, 60_000)).await.unwrap();
    // One task expired: room for one more, not two.
    let refused = store.create(record("w1", 10_000, 60_000)).await;
    assert!(
        matches!(refused, Err(Error::TaskLimit { limit: 2 })),
        "{refused:?}"
    );
}

async fn a_lost_worker_s_tasks_are_rerun_when_safe_and_failed_otherwise(stores: &dyn MakeStore) {
    let store = stores.make(100).await;
    let rerun = record("dead", 100, 60_000).with_rerun(json!({"name": "again"}));
    let once = record("dead", 100, 60_000);
    let held = record("alive", 60_000, 60_000);
    let (rerun_id, once_id, held_id) = (
        rerun.task.task_id.clone(),
        once.task.task_id.clone(),
        held.task.task_id.clone(),
    );
    for created in [rerun, once, held] {
        store.create(created).await.unwrap();
    }
    // The owner renews; another worker cannot.
    assert_eq!(
        store
            .renew(&held_id, "alive", now_ms() + 60_000)
            .await
            .unwrap(),
        Lease::Held {
            cancel_requested: false
        }
    );
    assert_eq!(
        store
            .renew(&held_id, "thief", now_ms() + 60_000)
            .await
            .unwrap(),
        Lease::Lost
    );

    tokio::time::sleep(Duration::from_millis(250)).await;
    let lost = TaskOutcome::failed(-32603, "the worker was lost");
    let now = now_ms();
    let claimed = store
        .reclaim("heir", now, now + 60_000, lost.clone())
        .await
        .unwrap();
    assert_eq!(claimed.len(), 1, "{claimed:?}");
    assert_eq!(claimed[0].task.task_id, rerun_id);
    assert_eq!(claimed[0].worker, "heir");
    assert_eq!(claimed[0].rerun, Some(json!({"name": "again"})));

    let rerun = store.get(&rerun_id).await.unwrap().unwrap();
    assert_eq!(
        (rerun.status(), rerun.worker.as_str()),
        (TaskStatus::Working, "heir")
    );
    let once = store.get(&once_id).await.unwrap().unwrap();
    assert_eq!(once.outcome, Some(lost));
    assert_eq!(
        store.get(&held_id).await.unwrap().unwrap().status(),
        TaskStatus::Working
    );
    // The dead worker, back, has lost its task; the heir holds it and hears of a cancel.
    assert_eq!(
        store
            .renew(&rerun_id, "dead", now_ms() + 1_000)
            .await
            .unwrap(),
        Lease::Lost
    );
    store.cancel(&rerun_id).await.unwrap();
    assert_eq!(
        store
            .renew(&rerun_id, "heir", now_ms() + 1_000)
            .await
            .unwrap(),
        Lease::Held {
            cancel_requested: true
        }
    );
    // Nothing more to take over.
    let now = now_ms();
    assert!(
        store
            .reclaim("heir", now, now + 1_000, TaskOutcome::Cancelled)
            .await
            .unwrap()
            .is_empty()
    );
}

/// One test per body and per store.
macro_rules! both_stores {
    ($($body:ident),* $(,)?) => {
        mod memory {
            $(
                #[tokio::test]
                async fn $body() {
                    super::$body(&super::Memory).await;
                }
            )*
        }

        #[cfg(feature = "redis")]
        mod redis {
            use super::*;

            struct Redis(String);

            impl MakeStore for Redis {
                fn make(
                    &self,
                    limit: usize,
                ) -> Pin<Box<dyn Future<Output = Arc<dyn TaskStore>> + '_>> {
                    Box::pin(async move {
                        // A prefix of its own: the store starts empty.
                        let prefix = format!("test:{}", new_task_id());
                        let store =
                            toolmodel_rmcp::tasks::RedisTaskStore::connect_with_prefix(&self.0, &prefix)
                                .await
                                .expect("connect to redis");
                        Arc::new(store.with_live_limit(limit)) as Arc<dyn TaskStore>
                    })
                }
            }

            $(
                #[tokio::test]
                async fn $body() {
                    let Some(server) = toolmodel_test_support::redis::RedisServer::start() else {
                        return;
                    };
                    super::$body(&Redis(server.url.clone())).await;
                }
            )*
        }
    };
}

both_stores!(
    a_created_task_reads_back_working_with_its_fields,
    input_requests_are_answered_once_and_unknown_keys_are_ignored,
    the_first_outcome_stays_and_cancelling_leaves_input_required,
    an_ended_task_takes_no_more_input_requests,
    a_waiter_hears_of_an_answer_at_once,
    a_task_expires_with_its_ttl,
    the_live_limit_refuses_a_task_until_one_expires,
    a_lost_worker_s_tasks_are_rerun_when_safe_and_failed_otherwise,
);

/// What the Redis store does beyond the contract: its connections (the URL's password and
/// database, a server that restarts).
#[cfg(feature = "redis")]
mod redis_store {
    use toolmodel_rmcp::tasks::RedisTaskStore;

    use super::*;

    #[tokio::test]
    async fn the_url_s_password_and_database_are_used() {
        let Some(server) =
            toolmodel_test_support::redis::RedisServer::start_with(&["--requirepass", "s3cret"])
        else {
            return;
        };
        let authenticated =
            |db: u8| server.url.replace("redis://", "redis://:s3cret@") + &format!("/{db}");
        let refused =
            RedisTaskStore::connect(&server.url.replace("redis://", "redis://:wrong@")).await;
        assert!(
            matches!(&refused, Err(Error::TaskStore { source: Some(cause), .. })
                if cause.to_string().contains("authentication failed")),
            "{refused:?}"
        );
        assert!(
            !format!("{refused:?}").contains("wrong"),
            "the password shows: {refused:?}"
        );
        let on_2 = RedisTaskStore::connect(&authenticated(2)).await.unwrap();
        let on_3 = RedisTaskStore::connect(&authenticated(3)).await.unwrap();
        let created = record("w1", 10_000, 60_000);
        let id = created.task.task_id.clone();
        on_2.create(created).await.unwrap();
        assert!(on_2.get(&id).await.unwrap().is_some());
        assert_eq!(on_3.get(&id).await.unwrap(), None);
    }

    #[tokio::test]
    async fn a_store_connects_again_after_its_server_restarts() {
        let Some(mut server) = toolmodel_test_support::redis::RedisServer::start() else {
            return;
        };
        let store = RedisTaskStore::connect(&server.url).await.unwrap();
        let before = record("w1", 10_000, 60_000);
        let before_id = before.task.task_id.clone();
        store.create(before).await.unwrap();
        server.restart();
        // The command that finds the connection closed fails; the next ones reconnect (and
        // load the scripts into the new server).
        let mut failed = 0;
        let id = loop {
            let created = record("w1", 10_000, 60_000);
            let id = created.task.task_id.clone();
            match store.create(created).await {
                Ok(()) => break id,
                Err(Error::TaskStore { .. }) if failed < 2 => failed += 1,
                Err(err) => panic!("no connection after {failed} failures: {err:?}"),
            }
        };
        assert!(store.get(&id).await.unwrap().is_some());
        // The server restarted empty.
        assert_eq!(store.get(&before_id).await.unwrap(), None);
    }
}

#[cfg(feature = "redis")]
mod finished_here {
    use toolmodel_rmcp::tasks::RedisTaskStore;

    use super::*;

    /// How many `HGETALL`s the Redis server at `url` has answered.
    async fn hgetall_calls(url: &str) -> u64 {
        let client = ::redis::Client::open(url).unwrap();
        let mut connection = client.get_multiplexed_async_connection().await.unwrap();
        let info: String = ::redis::cmd("INFO")
            .arg("commandstats")
            .query_async(&mut connection)
            .await
            .unwrap();
        info.lines()
            .find_map(|line| line.strip_prefix("cmdstat_hgetall:calls="))
            .and_then(|rest| rest.split(',').next())
            .map_or(0, |calls| calls.parse().unwrap())
    }

    #[tokio::test]
    async fn a_task_this_store_ended_is_read_without_redis_until_redis_restarts() {
        let Some(mut server) = toolmodel_test_support::redis::RedisServer::start() else {
            return;
        };
        let here = RedisTaskStore::connect(&server.url).await.unwrap();
        let there = RedisTaskStore::connect(&server.url).await.unwrap();
        let created = record("w1", 10_000, 60_000).with_owner("alice");
        let id = created.task.task_id.clone();
        here.create(created).await.unwrap();
        let outcome = TaskOutcome::Completed {
            result: map(json!({"content": [{"type": "text", "text": "done"}]})),
        };
        assert!(here.finish(&id, outcome.clone()).await.unwrap());

        let before = hgetall_calls(&server.url).await;
        let read_here = here.get(&id).await.unwrap().expect("the task");
        assert_eq!(hgetall_calls(&server.url).await, before, "a read of Redis");
        assert_eq!(read_here.outcome, Some(outcome));
        // The same record as another replica reads from Redis.
        let read_there = there.get(&id).await.unwrap().expect("the task");
        assert_eq!(hgetall_calls(&server.url).await, before + 1);
        assert_eq!(read_here, read_there);
        // A second outcome is not recorded and changes nothing here.
        assert!(!here.finish(&id, TaskOutcome::Cancelled).await.unwrap());
        assert_eq!(here.get(&id).await.unwrap(), Some(read_there));

        // Redis restarts without its data: the store forgets what it kept.
        server.restart();
        let deadline = Instant::now() + Duration::from_secs(5);
        loop {
            match here.get(&id).await {
                Ok(None) => break,
                Ok(Some(_)) | Err(_) if Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(20)).await;
                }
                other => panic!("still read after Redis restarted: {other:?}"),
            }
        }
    }
}

#[cfg(not(feature = "redis"))]
#[test]
fn the_redis_store_tests_need_the_redis_feature() {
    assert!(
        std::env::var_os("CI").is_none(),
        "under CI the Redis store is tested: cargo test -p toolmodel-rmcp --features redis"
    );
    eprintln!(
        "notice: the Redis task store tests are skipped (cargo test -p toolmodel-rmcp --features redis)"
    );
}
