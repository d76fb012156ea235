//! [`Bucket`]: one token bucket (rate, burst, continuous refill) and the check of all the
//! buckets of one call at once: each takes one token, or none does.

/// A bucket's limit: `rate` tokens a second added continuously, up to `burst` tokens.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Limit {
    /// Tokens added per second (> 0).
    pub(crate) rate: f64,
    /// The most tokens held (>= 1): how many calls may come at once after a pause.
    pub(crate) burst: f64,
}

/// A bucket's state: `tokens` held at time `at` (seconds from an origin of its owner's).
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Bucket {
    pub(crate) tokens: f64,
    pub(crate) at: f64,
}

impl Bucket {
    /// A new bucket at `now`: full.
    pub(crate) fn full(limit: Limit, now: f64) -> Self {
        Self {
            tokens: limit.burst,
            at: now,
        }
    }

    /// The tokens held at `now` (refilled since `at`, never past `burst`; a clock that went
    /// back adds nothing).
    pub(crate) fn level(&self, limit: Limit, now: f64) -> f64 {
        let elapsed = (now - self.at).max(0.0);
        (self.tokens + elapsed * limit.rate).min(limit.burst)
    }

    /// Whether the bucket is full at `now` (then it may be forgotten).
    pub(crate) fn is_full(&self, limit: Limit, now: f64) -> bool {
        self.level(limit, now) >= limit.burst
    }
}

/// What a check of a call's buckets decided.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Verdict {
    /// One token taken from each.
    Admitted,
    /// None taken: the bucket at `index` (of those checked) is the one to wait longest for,
    /// `after` seconds until it holds a token.
    Refused { index: usize, after: f64 },
}

/// Takes one token from each of `buckets` (with their limits) at `now` if every one holds
/// one, else none (the [`Verdict`] names the bucket that waits longest).
pub(crate) fn take(buckets: &mut [(&mut Bucket, Limit)], now: f64) -> Verdict {
    let mut refused: Option<(usize, f64)> = None;
    for (index, (bucket, limit)) in buckets.iter().enumerate() {
        let level = bucket.level(*limit, now);
        if level < 1.0 {
            let after = (1.0 - level) / limit.rate;
            if refused.is_none_or(|(_, longest)| after > longest) {
                refused = Some((index, after));
            }
        }
    }
    if let Some((index, after)) = refused {
        return Verdict::Refused { index, after };
    }
    for (bucket, limit) in buckets.iter_mut() {
        bucket.tokens = bucket.level(*limit, now) - 1.0;
        bucket.at = now.max(bucket.at);
    }
    Verdict::Admitted
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        /// Over any window of a run of calls at any times, the calls admitted never exceed
        /// `burst + rate * window`; and a call refused would have found less than one token.
        #[test]
        fn never_more_than_burst_plus_rate_times_the_window(
            rate in 0.5_f64..50.0,
            burst in 1_u32..20,
            gaps in proptest::collection::vec(0.0_f64..0.2, 1..300),
        ) {
            let limit = Limit { rate, burst: f64::from(burst) };
            let mut bucket = Bucket::full(limit, 0.0);
            let mut now = 0.0;
            let mut admitted = Vec::new();
            for gap in gaps {
                now += gap;
                let level = bucket.level(limit, now);
                match take(&mut [(&mut bucket, limit)], now) {
                    Verdict::Admitted => { prop_assert!(level >= 1.0); admitted.push(now) }
                    Verdict::Refused { after, .. } => {
                        prop_assert!(level < 1.0);
                        prop_assert!((after - (1.0 - level) / rate).abs() < 1e-9);
                    }
                }
            }
            for (first, start) in admitted.iter().enumerate() {
                for (last, end) in admitted.iter().enumerate().skip(first) {
                    let count = (last - first + 1) as f64;
                    prop_assert!(count <= f64::from(burst) + rate * (end - start) + 1e-9,
                        "{} calls in {} s (rate {}, burst {})", count, end - start, rate, burst);
                }
            }
        }
    }

    #[test]
    fn a_call_takes_from_every_bucket_or_from_none() {
        let wide = Limit {
            rate: 1.0,
            burst: 5.0,
        };
        let narrow = Limit {
            rate: 1.0,
            burst: 1.0,
        };
        let (mut a, mut b) = (Bucket::full(wide, 0.0), Bucket::full(narrow, 0.0));
        assert_eq!(
            take(&mut [(&mut a, wide), (&mut b, narrow)], 0.0),
            Verdict::Admitted
        );
        let refused = take(&mut [(&mut a, wide), (&mut b, narrow)], 0.25);
        assert_eq!(
            refused,
            Verdict::Refused {
                index: 1,
                after: 0.75
            }
        );
        // Nothing was taken from the wide bucket by the refused call.
        assert_eq!(a.level(wide, 0.25), 4.25);
        assert_eq!(
            take(&mut [(&mut a, wide), (&mut b, narrow)], 1.0),
            Verdict::Admitted
        );
    }

    #[test]
    fn the_refill_is_continuous_and_stops_at_burst() {
        let limit = Limit {
            rate: 2.0,
            burst: 3.0,
        };
        let mut bucket = Bucket::full(limit, 10.0);
        for _ in 0..3 {
            assert_eq!(take(&mut [(&mut bucket, limit)], 10.0), Verdict::Admitted);
        }
        assert_eq!(bucket.level(limit, 10.25), 0.5);
        assert_eq!(bucket.level(limit, 100.0), 3.0);
        assert!(bucket.is_full(limit, 11.5) && !bucket.is_full(limit, 11.4));
    }
}
