//! [`RedisTaskStore`] (feature `redis`): tasks in Redis or Valkey, shared by every replica
//! that connects to the same server and prefix; its Lua scripts, and the subscription that
//! hears of changes.

use std::{collections::HashMap, sync::Arc};

use redis::{Script, aio::ConnectionManager};
use serde_json::{Map, Value};
use tokio::{sync::broadcast, task::JoinHandle};

use super::{
    finished::{FinishedHere, Lookup},
    record::{TaskOutcome, TaskRecord},
    store::{DEFAULT_LIVE_TASK_LIMIT, Lease, StoreFuture, TaskChanges, TaskStore, now_ms},
};
use crate::{
    Error,
    redis_link::{self, Store},
    store_url::without_password,
};

/// The store's error variant, `tracing` target and span.
const STORE: Store = Store::Tasks;

/// The prefix of a store's keys unless told otherwise.
pub const DEFAULT_REDIS_PREFIX: &str = "toolmodel:tasks";

/// `create`: KEYS the task's hash, `live`, `leases`; ARGV now (ms), the live limit, the task
/// ID, its expiry (ms, or empty), its lease's end (ms), then the hash's fields and values.
/// Below the limit `live` counts (expired tasks included) it writes the task at once: the
/// tasks not expired yet are fewer still. At it, it first forgets the expired tasks of `live`
/// and refuses (0) if the count is still at the limit. So a task is refused exactly when the
/// tasks not expired yet reach the limit, and `live` is trimmed only when it must be.
const CREATE: &str = r"
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then
  redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
  if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 0 end
end
redis.call('HSET', KEYS[1], unpack(ARGV, 6))
if ARGV[4] ~= '' then
  redis.call('PEXPIREAT', KEYS[1], ARGV[4])
  redis.call('ZADD', KEYS[2], ARGV[4], ARGV[3])
else
  redis.call('ZADD', KEYS[2], '+inf', ARGV[3])
end
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[3])
return 1
";

const ASK: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
if redis.call('HEXISTS', KEYS[1], 'outcome') == 0 then
  for i = 2, #ARGV, 2 do redis.call('HSETNX', KEYS[1], 'in:' .. ARGV[i], ARGV[i + 1]) end
  redis.call('HSET', KEYS[1], 'updated', ARGV[1])
end
return redis.call('HGETALL', KEYS[1])
";

const ANSWER: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HEXISTS', KEYS[1], 'outcome') == 1 then return 1 end
local n = 0
for i = 3, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[1], 'in:' .. ARGV[i]) == 1
    and redis.call('HSETNX', KEYS[1], 'ans:' .. ARGV[i], ARGV[i + 1]) == 1 then n = n + 1 end
end
if n > 0 then
  redis.call('HSET', KEYS[1], 'updated', ARGV[1])
  redis.call('PUBLISH', KEYS[2], ARGV[2])
end
return 1
";

const CANCEL: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
if redis.call('HEXISTS', KEYS[1], 'outcome') == 0
  and redis.call('HSETNX', KEYS[1], 'cancel', '1') == 1 then
  redis.call('HSET', KEYS[1], 'updated', ARGV[1])
  redis.call('PUBLISH', KEYS[2], ARGV[2])
end
return 1
";

/// `finish`: KEYS the task's hash, `leases`; ARGV now (`lastUpdatedAt`), the task ID, the
/// outcome (JSON). Returns false when the task is unknown or ended already, else the hash's
/// fields, what [`FinishedHere`] keeps.
const FINISH: &str = r"
if redis.call('EXISTS', KEYS[1]) == 0 or redis.call('HEXISTS', KEYS[1], 'outcome') == 1 then
  return false
end
redis.call('HSET', KEYS[1], 'outcome', ARGV[3], 'updated', ARGV[1])
redis.call('ZREM', KEYS[2], ARGV[2])
return redis.call('HGETALL', KEYS[1])
";

const RENEW: &str = r"
local v = redis.call('HMGET', KEYS[1], 'worker', 'outcome', 'cancel')
if v[1] ~= ARGV[2] or v[2] then return -1 end
redis.call('HSET', KEYS[1], 'lease', ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
if v[3] then return 1 end
return 0
";

const RECLAIM: &str = r"
local ids = redis.call('ZRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[1], 'LIMIT', 0, 64)
local claimed = {}
for _, id in ipairs(ids) do
  local key = ARGV[6] .. id
  local v = redis.call('HMGET', key, 'worker', 'outcome', 'rerun')
  if redis.call('EXISTS', key) == 0 or v[2] then
    redis.call('ZREM', KEYS[1], id)
  elseif v[1] ~= ARGV[2] then
    if v[3] then
      redis.call('HSET', key, 'worker', ARGV[2], 'lease', ARGV[3], 'updated', ARGV[5])
      redis.call('ZADD', KEYS[1], ARGV[3], id)
      table.insert(claimed, redis.call('HGETALL', key))
    else
      redis.call('HSET', key, 'outcome', ARGV[4], 'updated', ARGV[5])
      redis.call('ZREM', KEYS[1], id)
      redis.call('PUBLISH', KEYS[2], id)
    end
  end
end
return claimed
";

/// The Lua scripts of a store, loaded by `EVALSHA` (and `SCRIPT LOAD` the first time a Redis
/// server does not know one).
#[derive(Debug)]
struct Scripts {
    create: Script,
    ask: Script,
    answer: Script,
    cancel: Script,
    finish: Script,
    renew: Script,
    reclaim: Script,
}

impl Scripts {
    fn new() -> Self {
        Self {
            create: Script::new(CREATE),
            ask: Script::new(ASK),
            answer: Script::new(ANSWER),
            cancel: Script::new(CANCEL),
            finish: Script::new(FINISH),
            renew: Script::new(RENEW),
            reclaim: Script::new(RECLAIM),
        }
    }
}

/// Stops the store's subscription when the last clone of the store goes.
#[derive(Debug)]
struct Subscription(JoinHandle<()>);

impl Drop for Subscription {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Tasks in Redis or Valkey (feature `redis`), shared by every replica
/// that connects to the same server and prefix, so that any replica answers `tasks/get`,
/// `tasks/update` and `tasks/cancel` for any task, and a replica that restarts finds its tasks.
///
/// **Layout** (prefix `toolmodel:tasks` by default):
///
/// - `PREFIX:task:ID`, a hash per task, deleted by Redis at `createdAt + ttlMs`
///   (`PEXPIREAT`): `task` (the SEP-2663 `Task` as JSON), `updated` (`lastUpdatedAt`), `owner`,
///   `rerun`, `worker`, `lease`, `expires`, `cancel`, `outcome` (JSON), and one field per input
///   request (`in:KEY`) and per answer (`ans:KEY`), each a JSON value;
/// - `PREFIX:live`, a sorted set of task IDs by expiry: the live tasks the limit counts
///   (an expired task stays in it until a `create` at the limit forgets it);
/// - `PREFIX:leases`, a sorted set of running task IDs by the end of their lease: what
///   [`reclaim`](TaskStore::reclaim) looks through;
/// - `PREFIX:changes`, a pub/sub channel: the ID of a task that got an answer, a cancellation
///   or an outcome from [`reclaim`](TaskStore::reclaim) (not one from
///   [`finish`](TaskStore::finish): the worker recording it is the only one waiting on the
///   task, so publishing it would only wake every replica's subscription for nothing). Each
///   store holds one subscription, which wakes the worker waiting on that task, on whichever
///   replica; it reconnects by itself, and waiters re-read on a timeout in the meantime.
///
/// **Round trips**: every operation is one command or one Lua script (`EVALSHA`, loaded once
/// per Redis server), so one round trip, atomic; but [`get`](TaskStore::get) of a task this
/// store [`finish`](TaskStore::finish)ed itself, which it answers from memory (a terminal
/// status is final, SEP-2663; the copy expires with the task; at most 1,024 tasks and 16 MiB
/// of their stored fields, the oldest forgotten first; all forgotten when a connection to
/// Redis drops, as Redis may have restarted without its data). A `get` that comes while this
/// store's `finish` of the task is on its way waits for it instead of reading behind it.
/// Scripts name the keys of other tasks they touch (`reclaim`), so a prefix must live on one
/// Redis server (no Redis Cluster).
///
/// Cheap to clone; clones share the connection and the subscription.
#[derive(Clone, Debug)]
pub struct RedisTaskStore {
    connection: ConnectionManager,
    scripts: Arc<Scripts>,
    prefix: Arc<str>,
    limit: usize,
    changes: broadcast::Sender<Arc<str>>,
    finished: Arc<FinishedHere>,
    _subscription: Arc<Subscription>,
}

fn json_error(task_id: &str, field: &str, err: serde_json::Error) -> Error {
    Error::TaskStore {
        message: format!("redis: task {task_id}: field {field:?} is not valid JSON"),
        source: Some(Box::new(err)),
    }
}

fn to_json(value: &impl serde::Serialize) -> Result<String, Error> {
    serde_json::to_string(value).map_err(|err| Error::TaskStore {
        message: "redis: a value does not serialize to JSON".to_owned(),
        source: Some(Box::new(err)),
    })
}

impl RedisTaskStore {
    /// Connects to the Redis (or Valkey) server at `url` (`redis://HOST:PORT[/DB]`, the
    /// `redis` crate's URL syntax) with keys under [`DEFAULT_REDIS_PREFIX`], and subscribes to
    /// its change channel; both connections have `TCP_NODELAY`. Keeps at most
    /// [`DEFAULT_LIVE_TASK_LIMIT`] tasks.
    ///
    /// # Errors
    ///
    /// [`Error::TaskStore`] when the URL is not a Redis URL, the server cannot be reached or
    /// refuses the URL's password or database (the message shows the URL without its
    /// password).
    pub async fn connect(url: &str) -> Result<Self, Error> {
        Self::connect_with_prefix(url, DEFAULT_REDIS_PREFIX).await
    }

    /// As [`connect`](Self::connect), with keys under `prefix`: stores with different
    /// prefixes on one server do not see each other's tasks.
    ///
    /// # Errors
    ///
    /// As [`connect`](Self::connect).
    pub async fn connect_with_prefix(url: &str, prefix: &str) -> Result<Self, Error> {
        let shown = without_password(url);
        // TCP_NODELAY: a worker's `finish` beside a `tasks/get` on the one multiplexed
        // connection does not wait for the server's ACK of the first.
        let client = STORE.client(url)?;
        let connection = client
            .get_connection_manager()
            .await
            .map_err(|err| STORE.redis_error(&format!("connecting to {shown}"), err))?;
        let changes = broadcast::channel(1024).0;
        let channel = format!("{prefix}:changes");
        let channels = vec![channel.clone()];
        // The first subscription before returning: a task created from now on is heard of.
        let pubsub = redis_link::subscribe(&client, &channels, None)
            .await
            .map_err(|err| STORE.redis_error(&format!("subscribing to {channel}"), err))?;
        let finished = Arc::<FinishedHere>::default();
        let subscription = tokio::spawn(forward_changes(
            client,
            channels,
            pubsub,
            changes.clone(),
            finished.clone(),
        ));
        Ok(Self {
            connection,
            scripts: Arc::new(Scripts::new()),
            prefix: Arc::from(prefix),
            limit: DEFAULT_LIVE_TASK_LIMIT,
            changes,
            finished,
            _subscription: Arc::new(Subscription(subscription)),
        })
    }

    /// The same store keeping at most `limit` tasks not expired yet (counted over every
    /// replica): a `create` beyond it is [`Error::TaskLimit`].
    #[must_use]
    pub fn with_live_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    fn task_key(&self, task_id: &str) -> String {
        format!("{}:task:{task_id}", self.prefix)
    }

    fn key(&self, name: &str) -> String {
        format!("{}:{name}", self.prefix)
    }

    /// The error of a command that failed while `doing`, and its `warn` event; the tasks
    /// ended here are forgotten, as Redis may have restarted without them.
    fn failed(&self, doing: &str, err: redis::RedisError) -> Error {
        self.finished.clear();
        tracing::warn!(
            target: "toolmodel_rmcp::tasks",
            error = %err,
            "the Redis task store failed {doing}"
        );
        STORE.redis_error(doing, err)
    }
}

/// `operation` of the store as a future, inside a DEBUG span `task_store` (target
/// `toolmodel_rmcp::tasks`, `db.system.name` `redis`, `db.operation.name` the trait method).
fn traced<'a, T>(
    operation: &'static str,
    future: impl std::future::Future<Output = Result<T, Error>> + Send + 'a,
) -> StoreFuture<'a, T> {
    STORE.traced(operation, future)
}

/// Forwards the IDs published on `channels` (the one change channel) to `changes`,
/// resubscribing after a lost connection (every half second until it is back); a lost
/// connection also forgets the tasks `finished` keeps, as Redis may have restarted without
/// them.
async fn forward_changes(
    client: redis::Client,
    channels: Vec<String>,
    first: redis::aio::PubSub,
    changes: broadcast::Sender<Arc<str>>,
    finished: Arc<FinishedHere>,
) {
    redis_link::follow(
        client,
        channels,
        None,
        first,
        |message| {
            if let Ok(task_id) = message.get_payload::<String>() {
                // No receiver: nobody on this replica waits.
                let _ = changes.send(Arc::from(task_id));
            }
        },
        || finished.clear(),
    )
    .await;
}

/// A task record from the fields of its hash.
fn from_fields(fields: HashMap<String, String>) -> Result<TaskRecord, Error> {
    let task_json = fields.get("task").ok_or_else(|| Error::TaskStore {
        message: "redis: a task hash has no \"task\" field".to_owned(),
        source: None,
    })?;
    let mut task: rmcp::model::Task =
        serde_json::from_str(task_json).map_err(|err| json_error("?", "task", err))?;
    let id = task.task_id.clone();
    if let Some(updated) = fields.get("updated") {
        task.last_updated_at.clone_from(updated);
    }
    let number = |field: &str| -> Result<Option<u64>, Error> {
        match fields.get(field).map(String::as_str) {
            None | Some("") => Ok(None),
            Some(text) => text.parse().map(Some).map_err(|err| Error::TaskStore {
                message: format!("redis: task {id}: field {field:?} is not a number"),
                source: Some(Box::new(err)),
            }),
        }
    };
    let json = |field: &str, text: &str| -> Result<Value, Error> {
        serde_json::from_str(text).map_err(|err| json_error(&id, field, err))
    };
    let mut record = TaskRecord::new(
        task,
        fields.get("worker").cloned().unwrap_or_default(),
        0,
        number("lease")?.unwrap_or(0),
    );
    record.expires_at_ms = number("expires")?;
    record.owner = fields.get("owner").cloned();
    record.rerun = fields
        .get("rerun")
        .map(|text| json("rerun", text))
        .transpose()?;
    record.cancel_requested = fields.contains_key("cancel");
    record.outcome = fields
        .get("outcome")
        .map(|text| {
            serde_json::from_str::<TaskOutcome>(text).map_err(|err| json_error(&id, "outcome", err))
        })
        .transpose()?;
    for (field, text) in &fields {
        if let Some(key) = field.strip_prefix("in:") {
            record
                .input_requests
                .insert(key.to_owned(), json(field, text)?);
        } else if let Some(key) = field.strip_prefix("ans:") {
            record.answers.insert(key.to_owned(), json(field, text)?);
        }
    }
    Ok(record)
}

/// `key, JSON` pairs as script arguments.
fn json_pairs(map: &Map<String, Value>) -> Result<Vec<String>, Error> {
    let mut args = Vec::with_capacity(map.len() * 2);
    for (key, value) in map {
        args.push(key.clone());
        args.push(to_json(value)?);
    }
    Ok(args)
}

impl TaskStore for RedisTaskStore {
    fn create(&self, record: TaskRecord) -> StoreFuture<'_, ()> {
        traced("create", async move {
            let id = record.task.task_id.clone();
            let mut fields = vec![
                "task".to_owned(),
                to_json(&record.task)?,
                "updated".to_owned(),
                record.task.last_updated_at.clone(),
                "worker".to_owned(),
                record.worker.clone(),
                "lease".to_owned(),
                record.lease_until_ms.to_string(),
            ];
            if let Some(expires) = record.expires_at_ms {
                fields.extend(["expires".to_owned(), expires.to_string()]);
            }
            if let Some(owner) = &record.owner {
                fields.extend(["owner".to_owned(), owner.clone()]);
            }
            if let Some(rerun) = &record.rerun {
                fields.extend(["rerun".to_owned(), to_json(rerun)?]);
            }
            let mut invocation = self.scripts.create.prepare_invoke();
            invocation
                .key(self.task_key(&id))
                .key(self.key("live"))
                .key(self.key("leases"))
                .arg(now_ms())
                .arg(self.limit)
                .arg(&id)
                .arg(
                    record
                        .expires_at_ms
                        .map(|at| at.to_string())
                        .unwrap_or_default(),
                )
                .arg(record.lease_until_ms)
                .arg(fields);
            let created: i64 = invocation
                .invoke_async(&mut self.connection.clone())
                .await
                .map_err(|err| self.failed("creating a task", err))?;
            if created == 1 {
                Ok(())
            } else {
                Err(Error::TaskLimit { limit: self.limit })
            }
        })
    }

    fn get(&self, task_id: &str) -> StoreFuture<'_, Option<TaskRecord>> {
        let key = self.task_key(task_id);
        let task_id = task_id.to_owned();
        traced("get", async move {
            match self.finished.lookup(&task_id) {
                Lookup::Ended(record) => return Ok(Some(*record)),
                Lookup::Finishing(mut finishing) => {
                    // Recorded or not, the outcome is in Redis once it is back.
                    let _ = finishing.wait_for(|done| *done).await;
                    if let Lookup::Ended(record) = self.finished.lookup(&task_id) {
                        return Ok(Some(*record));
                    }
                }
                Lookup::Unknown => {}
            }
            let fields: HashMap<String, String> = redis::cmd("HGETALL")
                .arg(&key)
                .query_async(&mut self.connection.clone())
                .await
                .map_err(|err| self.failed("reading a task", err))?;
            if fields.is_empty() {
                return Ok(None);
            }
            from_fields(fields).map(Some)
        })
    }

    fn ask(
        &self,
        task_id: &str,
        requests: Map<String, Value>,
    ) -> StoreFuture<'_, Option<TaskRecord>> {
        let key = self.task_key(task_id);
        traced("ask", async move {
            let mut invocation = self.scripts.ask.prepare_invoke();
            invocation
                .key(key)
                .arg(rmcp::task_manager::current_timestamp())
                .arg(json_pairs(&requests)?);
            let fields: Option<HashMap<String, String>> = invocation
                .invoke_async(&mut self.connection.clone())
                .await
                .map_err(|err| self.failed("recording input requests", err))?;
            fields.map(from_fields).transpose()
        })
    }

    fn answer(&self, task_id: &str, answers: Map<String, Value>) -> StoreFuture<'_, bool> {
        let key = self.task_key(task_id);
        let task_id = task_id.to_owned();
        traced("answer", async move {
            let mut invocation = self.scripts.answer.prepare_invoke();
            invocation
                .key(key)
                .key(self.key("changes"))
                .arg(rmcp::task_manager::current_timestamp())
                .arg(task_id)
                .arg(json_pairs(&answers)?);
            let known: i64 = invocation
                .invoke_async(&mut self.connection.clone())
                .await
                .map_err(|err| self.failed("recording answers", err))?;
            Ok(known == 1)
        })
    }

    fn cancel(&self, task_id: &str) -> StoreFuture<'_, bool> {
        let key = self.task_key(task_id);
        let task_id = task_id.to_owned();
        traced("cancel", async move {
            let mut invocation = self.scripts.cancel.prepare_invoke();
            invocation
                .key(key)
                .key(self.key("changes"))
                .arg(rmcp::task_manager::current_timestamp())
                .arg(task_id);
            let known: i64 = invocation
                .invoke_async(&mut self.connection.clone())
                .await
                .map_err(|err| self.failed("recording a cancellation", err))?;
            Ok(known == 1)
        })
    }

    fn finish(&self, task_id: &str, outcome: TaskOutcome) -> StoreFuture<'_, bool> {
        let key = self.task_key(task_id);
        let finishing = self.finished.start(task_id);
        let task_id = task_id.to_owned();
        traced("finish", async move {
            let outcome_json = to_json(&outcome)?;
            let mut invocation = self.scripts.finish.prepare_invoke();
            invocation
                .key(key)
                .key(self.key("leases"))
                .arg(rmcp::task_manager::current_timestamp())
                .arg(task_id)
                .arg(&outcome_json);
            let fields: Option<HashMap<String, String>> = invocation
                .invoke_async(&mut self.connection.clone())
                .await
                .map_err(|err| self.failed("recording an outcome", err))?;
            let Some(mut fields) = fields else {
                return Ok(false);
            };
            let bytes = fields
                .iter()
                .map(|(name, value)| name.len() + value.len())
                .sum::<usize>();
            // Not read back: it is `outcome`.
            fields.remove("outcome");
            // Fields this store wrote itself: one it cannot read is not kept, and is reported
            // by the `tasks/get` that reads it from Redis.
            if let Ok(mut record) = from_fields(fields) {
                record.outcome = Some(outcome);
                finishing.ended(record, bytes);
            }
            Ok(true)
        })
    }

    fn renew(&self, task_id: &str, worker: &str, lease_until_ms: u64) -> StoreFuture<'_, Lease> {
        let key = self.task_key(task_id);
        let task_id = task_id.to_owned();
        let worker = worker.to_owned();
        traced("renew", async move {
            let mut invocation = self.scripts.renew.prepare_invoke();
            invocation
                .key(key)
                .key(self.key("leases"))
                .arg(task_id)
                .arg(worker)
                .arg(lease_until_ms);
            let lease: i64 = invocation
                .invoke_async(&mut self.connection.clone())
                .await
                .map_err(|err| self.failed("renewing a lease", err))?;
            Ok(match lease {
                0 => Lease::Held {
                    cancel_requested: false,
                },
                1 => Lease::Held {
                    cancel_requested: true,
                },
                _ => Lease::Lost,
            })
        })
    }

    fn reclaim(
        &self,
        worker: &str,
        now_ms: u64,
        lease_until_ms: u64,
        lost: TaskOutcome,
    ) -> StoreFuture<'_, Vec<TaskRecord>> {
        let worker = worker.to_owned();
        traced("reclaim", async move {
            let mut invocation = self.scripts.reclaim.prepare_invoke();
            invocation
                .key(self.key("leases"))
                .key(self.key("changes"))
                .arg(now_ms)
                .arg(worker)
                .arg(lease_until_ms)
                .arg(to_json(&lost)?)
                .arg(rmcp::task_manager::current_timestamp())
                .arg(self.key("task:"));
            let claimed: Vec<HashMap<String, String>> = invocation
                .invoke_async(&mut self.connection.clone())
                .await
                .map_err(|err| self.failed("reclaiming tasks", err))?;
            claimed.into_iter().map(from_fields).collect()
        })
    }

    fn changes(&self) -> TaskChanges {
        TaskChanges::new(&self.changes)
    }

    /// `PING`, answered within 1 s.
    fn ping(&self) -> StoreFuture<'_, ()> {
        traced("ping", async move {
            let mut connection = self.connection.clone();
            let command = redis::cmd("PING");
            let ping = command.query_async::<String>(&mut connection);
            match tokio::time::timeout(PING_TIMEOUT, ping).await {
                Ok(Ok(_)) => Ok(()),
                Ok(Err(err)) => Err(STORE.redis_error("PING", err)),
                Err(_) => Err(Error::TaskStore {
                    message: format!(
                        "redis: no answer to PING within {} ms",
                        PING_TIMEOUT.as_millis()
                    ),
                    source: None,
                }),
            }
        })
    }
}

/// How long [`RedisTaskStore`]'s [`ping`](TaskStore::ping) waits for `PONG`.
const PING_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(1);
