//! [`Cancellation`]: a flag the server sets when a call is cancelled, that handlers can poll or
//! await on any executor.

use std::sync::{
    Arc,
    atomic::{AtomicBool, Ordering},
};

/// A shared cancellation flag (MCP 2025-11-25, "Cancellation": `notifications/cancelled`).
///
/// The server keeps one clone and calls [`cancel`](Self::cancel); the handler checks
/// [`is_cancelled`](Self::is_cancelled) between steps, or awaits
/// [`cancelled`](Self::cancelled), say in a `select!` beside its work. Clones share one
/// flag. Waiting uses `event-listener`, so it works under any executor (no runtime is assumed).
///
/// ```
/// use toolmodel::Cancellation;
///
/// let flag = Cancellation::new();
/// let seen_by_handler = flag.clone();
/// assert!(!seen_by_handler.is_cancelled());
/// flag.cancel();
/// assert!(seen_by_handler.is_cancelled());
/// pollster::block_on(seen_by_handler.cancelled()); // completes at once
/// ```
#[derive(Clone, Debug, Default)]
pub struct Cancellation {
    inner: Arc<Inner>,
}

#[derive(Debug, Default)]
struct Inner {
    cancelled: AtomicBool,
    event: event_listener::Event,
}

impl Cancellation {
    /// A flag that is not set.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the flag and wakes every task awaiting [`cancelled`](Self::cancelled). Setting it
    /// again does nothing.
    pub fn cancel(&self) {
        self.inner.cancelled.store(true, Ordering::Release);
        self.inner.event.notify(usize::MAX);
    }

    /// Whether the flag is set.
    #[must_use]
    pub fn is_cancelled(&self) -> bool {
        self.inner.cancelled.load(Ordering::Acquire)
    }

    /// Completes when the flag is set (at once if it is already).
    pub async fn cancelled(&self) {
        loop {
            if self.is_cancelled() {
                return;
            }
            let listener = self.inner.event.listen();
            // Checked again after registering, so a `cancel` between the two is not missed.
            if self.is_cancelled() {
                return;
            }
            listener.await;
        }
    }
}
