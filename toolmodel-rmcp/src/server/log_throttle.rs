//! [`LogThrottle`]: at most one log line per [`EVERY`] for a kind of event that clients can
//! cause at any rate (a limit refusing, a token refused), with how many were left out since
//! the last one.

use std::{
    sync::{
        Mutex,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use crate::lock::lock;

/// The shortest time between two log lines of one throttle.
pub(crate) const EVERY: Duration = Duration::from_secs(10);

/// When one kind of event was last logged, and how many were not since.
#[derive(Debug)]
pub(crate) struct LogThrottle {
    last: Mutex<Option<Instant>>,
    suppressed: AtomicU64,
}

impl LogThrottle {
    pub(crate) const fn new() -> Self {
        Self {
            last: Mutex::new(None),
            suppressed: AtomicU64::new(0),
        }
    }

    /// `Some(n)` when this event is to be logged, `n` being how many were left out since the
    /// last one logged; `None` (and one more left out) otherwise.
    pub(crate) fn admit(&self) -> Option<u64> {
        let now = Instant::now();
        let mut last = lock(&self.last);
        if last.is_some_and(|at| now.duration_since(at) < EVERY) {
            self.suppressed.fetch_add(1, Ordering::Relaxed);
            return None;
        }
        *last = Some(now);
        Some(self.suppressed.swap(0, Ordering::Relaxed))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_line_per_interval_then_the_count_of_those_left_out() {
        let throttle = LogThrottle::new();
        assert_eq!(throttle.admit(), Some(0));
        assert_eq!(throttle.admit(), None);
        assert_eq!(throttle.admit(), None);
        *lock(&throttle.last) = Some(Instant::now() - EVERY);
        assert_eq!(throttle.admit(), Some(2));
    }
}
