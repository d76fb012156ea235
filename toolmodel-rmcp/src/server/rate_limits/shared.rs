//! [`Shared`]: the buckets of [`RateLimits`](super::RateLimits) in Redis, one script run per
//! check over all the buckets of a call, and the fallback to each replica's own buckets while
//! Redis is out of reach.

use std::{
    sync::Mutex,
    time::{Duration, Instant},
};

use redis::{Script, aio::ConnectionManager};

use super::bucket::{Limit, Verdict};
use crate::{Error, lock::lock, redis_link::Store, store_url::without_password};

const STORE: Store = Store::Limits;

/// The longest wait for Redis's answer (and for a connection).
const TIMEOUT: Duration = Duration::from_secs(1);

/// How long after a failure Redis is tried again (by one check; the others count locally).
const PROBE_EVERY: Duration = Duration::from_secs(1);

/// KEYS: the buckets; ARGV: each bucket's rate then burst. Refills every bucket to Redis's
/// time (`TIME`, so that replicas with different clocks agree), then takes a token from each
/// if each holds one, and returns `{0}`; else takes none and returns `{i, wait}`, `i` the
/// bucket (from 1) to wait longest for and `wait` the seconds (a string: Lua numbers reach
/// Redis as integers). A bucket is a hash of `tokens` and `at` (seconds), expiring once it
/// would be full again (then the same as a new one).
const TAKE: &str = r"
pcall(redis.replicate_commands)
local time = redis.call('TIME')
local now = tonumber(time[1]) + tonumber(time[2]) / 1000000
local levels = {}
local longest, wait = 0, 0
for i = 1, #KEYS do
  local rate, burst = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  local state = redis.call('HMGET', KEYS[i], 'tokens', 'at')
  local tokens, at = tonumber(state[1]), tonumber(state[2])
  if tokens == nil or at == nil then tokens, at = burst, now end
  if now > at then tokens = math.min(burst, tokens + (now - at) * rate) end
  levels[i] = tokens
  if tokens < 1 then
    local w = (1 - tokens) / rate
    if w > wait then longest, wait = i, w end
  end
end
if longest > 0 then return {longest, tostring(wait)} end
for i = 1, #KEYS do
  local rate, burst = tonumber(ARGV[2 * i - 1]), tonumber(ARGV[2 * i])
  redis.call('HSET', KEYS[i], 'tokens', tostring(levels[i] - 1), 'at', tostring(now))
  redis.call('PEXPIRE', KEYS[i], math.ceil(burst / rate * 1000) + 1000)
end
return {0}
";

/// The Redis side of shared limits.
pub(super) struct Shared {
    connection: ConnectionManager,
    script: Script,
    prefix: String,
    shown: String,
    outage: Mutex<Outage>,
}

/// Whether Redis is out of reach, since when, and whether a check is trying it again.
#[derive(Debug, Default)]
struct Outage {
    /// When the last failure was; `None`: Redis answers.
    failed_at: Option<Instant>,
    /// A check is trying Redis again.
    probing: bool,
}

impl Shared {
    /// Connects to `url`, keys under `prefix`.
    pub(super) async fn connect(url: &str, prefix: &str) -> Result<Self, Error> {
        let shown = without_password(url);
        let (_, connection) = STORE.connect(url, &shown, TIMEOUT).await?;
        Ok(Self {
            connection,
            script: Script::new(TAKE),
            prefix: prefix.to_owned(),
            shown,
            outage: Mutex::default(),
        })
    }

    /// The verdict of Redis on `keys`; `None` when Redis is out of reach (or was a moment
    /// ago): the caller decides locally.
    pub(super) async fn take(&self, keys: &[(usize, &str, Limit)]) -> Option<Verdict> {
        {
            let mut outage = lock(&self.outage);
            if let Some(failed_at) = outage.failed_at {
                if outage.probing || failed_at.elapsed() < PROBE_EVERY {
                    drop(outage);
                    crate::telemetry::metrics::rate_limit_fallback();
                    return None;
                }
                outage.probing = true;
            }
        }
        let mut invocation = self.script.prepare_invoke();
        for (rule, key, limit) in keys {
            invocation
                .key(format!("{{{}}}:{rule}:{key}", self.prefix))
                .arg(limit.rate)
                .arg(limit.burst);
        }
        let mut connection = self.connection.clone();
        let answer = tokio::time::timeout(
            TIMEOUT,
            invocation.invoke_async::<Vec<redis::Value>>(&mut connection),
        )
        .await;
        let answer = match answer {
            Ok(Ok(answer)) => Ok(answer),
            Ok(Err(err)) => Err(err.to_string()),
            Err(_) => Err(format!("no answer within {} ms", TIMEOUT.as_millis())),
        };
        let verdict = answer.and_then(|answer| verdict(&answer));
        let mut outage = lock(&self.outage);
        outage.probing = false;
        match verdict {
            Ok(verdict) => {
                if let Some(failed_at) = outage.failed_at.take() {
                    tracing::info!(
                        target: "toolmodel_rmcp::limits",
                        "rate limits: Redis at {} answers again after {} s; the limits are shared again",
                        self.shown,
                        failed_at.elapsed().as_secs()
                    );
                }
                Some(verdict)
            }
            Err(err) => {
                if outage.failed_at.is_none() {
                    tracing::warn!(
                        target: "toolmodel_rmcp::limits",
                        "rate limits: Redis at {} cannot be reached ({err}); each replica counts in its own buckets until it answers",
                        self.shown
                    );
                }
                outage.failed_at = Some(Instant::now());
                drop(outage);
                crate::telemetry::metrics::rate_limit_fallback();
                None
            }
        }
    }
}

/// The script's answer read: `{0}`, or `{i, wait}`.
fn verdict(answer: &[redis::Value]) -> Result<Verdict, String> {
    let unexpected = || format!("redis: unexpected answer of the rate limit script: {answer:?}");
    match answer {
        [redis::Value::Int(0)] => Ok(Verdict::Admitted),
        [redis::Value::Int(index), wait] => {
            let wait: String = redis::from_redis_value(wait.clone()).map_err(|_| unexpected())?;
            let after = wait.parse::<f64>().map_err(|_| unexpected())?;
            let index = usize::try_from(*index - 1).map_err(|_| unexpected())?;
            Ok(Verdict::Refused { index, after })
        }
        _ => Err(unexpected()),
    }
}
