//! Task IDs and times for tests that use a task store directly (the server makes its own).

use std::{
    sync::atomic::{AtomicU64, Ordering},
    time::{SystemTime, UNIX_EPOCH},
};

/// A task ID no other test run uses: the time in nanoseconds and a counter of this process.
pub fn new_task_id() -> String {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("a clock after 1970")
        .as_nanos();
    format!("t{nanos:x}-{}", NEXT.fetch_add(1, Ordering::Relaxed))
}

/// Milliseconds since the Unix epoch, a store's time.
pub fn now_ms() -> u64 {
    let elapsed = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("a clock after 1970");
    u64::try_from(elapsed.as_millis()).expect("milliseconds fit in u64")
}
