//! [`LocalBuckets`]: the token buckets of one process, by rule and key, bounded in number.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use super::bucket::{self, Bucket, Limit, Verdict};
use crate::lock::lock;

/// The most buckets one process keeps ([`RateLimits`](super::RateLimits)' docs): past it,
/// the full ones (the same as new ones) are dropped, and if none is, a new key's calls count
/// against one overflow bucket of its rule.
pub const MAX_LOCAL_BUCKETS: usize = 100_000;

/// The shortest time between two sweeps of the full buckets once the map is at its cap.
const SWEEP_EVERY: Duration = Duration::from_secs(1);

/// The key of the overflow bucket of a rule (no key of a caller or tool is empty: each
/// holds at least its separators or a name).
const OVERFLOW: &str = "";

/// The buckets of one process, by (rule index, key).
#[derive(Debug)]
pub(crate) struct LocalBuckets {
    origin: Instant,
    state: Mutex<State>,
    cap: usize,
}

#[derive(Debug, Default)]
struct State {
    buckets: HashMap<(usize, String), (Bucket, Limit)>,
    /// When the full buckets were last swept out (seconds from `origin`).
    swept: Option<f64>,
}

impl Default for LocalBuckets {
    fn default() -> Self {
        Self::with_cap(MAX_LOCAL_BUCKETS)
    }
}

impl LocalBuckets {
    pub(crate) fn with_cap(cap: usize) -> Self {
        Self {
            origin: Instant::now(),
            state: Mutex::default(),
            cap,
        }
    }

    /// Takes one token from each bucket of `keys` (rule index, key, limit), or from none.
    pub(crate) fn take(&self, keys: &[(usize, &str, Limit)]) -> Verdict {
        let now = self.origin.elapsed().as_secs_f64();
        let mut state = lock(&self.state);
        let mut current: Vec<((usize, String), Bucket, Limit)> = Vec::with_capacity(keys.len());
        for &(rule, key, limit) in keys {
            let mut id = (rule, key.to_owned());
            let bucket = match state.buckets.get(&id) {
                Some((bucket, _)) => *bucket,
                None => {
                    if !state.room(self.cap, now) {
                        id.1 = OVERFLOW.to_owned();
                    }
                    state
                        .buckets
                        .get(&id)
                        .map_or_else(|| Bucket::full(limit, now), |(bucket, _)| *bucket)
                }
            };
            current.push((id, bucket, limit));
        }
        let verdict = {
            let mut refs: Vec<(&mut Bucket, Limit)> = current
                .iter_mut()
                .map(|(_, bucket, limit)| (bucket, *limit))
                .collect();
            bucket::take(&mut refs, now)
        };
        if verdict == Verdict::Admitted {
            for (id, bucket, limit) in current {
                state.buckets.insert(id, (bucket, limit));
            }
        }
        verdict
    }

    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        lock(&self.state).buckets.len()
    }
}

impl State {
    /// Whether a new bucket may be stored: under the cap, or once the full buckets are swept
    /// out (at most once a [`SWEEP_EVERY`]).
    fn room(&mut self, cap: usize, now: f64) -> bool {
        if self.buckets.len() < cap {
            return true;
        }
        if self
            .swept
            .is_some_and(|at| now - at < SWEEP_EVERY.as_secs_f64())
        {
            return false;
        }
        self.swept = Some(now);
        self.buckets
            .retain(|_, (bucket, limit)| !bucket.is_full(*limit, now));
        self.buckets.len() < cap
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn past_the_cap_full_buckets_go_and_then_new_keys_share_an_overflow_bucket() {
        let buckets = LocalBuckets::with_cap(2);
        let limit = Limit {
            rate: 0.001,
            burst: 1.0,
        };
        assert_eq!(buckets.take(&[(0, "a", limit)]), Verdict::Admitted);
        assert_eq!(buckets.take(&[(0, "b", limit)]), Verdict::Admitted);
        // At the cap, none full: "c" and "d" count against the overflow bucket, which holds
        // one token.
        assert_eq!(buckets.take(&[(0, "c", limit)]), Verdict::Admitted);
        assert!(matches!(
            buckets.take(&[(0, "d", limit)]),
            Verdict::Refused { .. }
        ));
        assert_eq!(buckets.len(), 3);
        // "a" is still spent.
        assert!(matches!(
            buckets.take(&[(0, "a", limit)]),
            Verdict::Refused { .. }
        ));
    }

    #[test]
    fn full_buckets_are_swept_out_at_the_cap() {
        let buckets = LocalBuckets::with_cap(2);
        let fast = Limit {
            rate: 1e9,
            burst: 1.0,
        };
        assert_eq!(buckets.take(&[(0, "a", fast)]), Verdict::Admitted);
        assert_eq!(buckets.take(&[(0, "b", fast)]), Verdict::Admitted);
        std::thread::sleep(Duration::from_millis(5));
        // Both refilled: swept, and "c" gets a bucket of its own.
        assert_eq!(buckets.take(&[(0, "c", fast)]), Verdict::Admitted);
        assert_eq!(buckets.len(), 1);
    }
}
