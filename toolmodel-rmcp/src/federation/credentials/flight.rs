//! [`Flights`]: one request at a time per key (a token exchange per user and server, a refresh
//! per user), whatever the number of calls that need it at once. The first call starts the
//! request as a task of its own; every call that comes while it runs waits for the same
//! outcome (a token, or the same error). A call that stops waiting (cancelled, or its own time
//! limit reached) leaves the request running for the others. The outcome is not kept: once the
//! request ends, its entry is gone (whatever the outcome, a panic too), and the next call starts
//! a new one; what lasts is up to the request (the token cache, the kept tokens).
//!
//! Without it, `N` concurrent calls of a user send `N` requests; with refresh-token rotation
//! (RFC 9700 §4.14.2) all but the first present a spent refresh token and are refused
//! (`invalid_grant`), or make the authorization server revoke the whole grant.

use std::{
    collections::HashMap,
    future::Future,
    hash::Hash,
    sync::{Arc, Mutex},
};

use tokio::sync::watch;

use crate::lock::lock;

/// The requests running, by key: each one's outcome, once it has one.
type Running<K, T> = Arc<Mutex<HashMap<K, watch::Receiver<Option<T>>>>>;

/// The requests running, at most one per key; an entry lives as long as its request.
pub(crate) struct Flights<K, T> {
    running: Running<K, T>,
}

impl<K, T> std::fmt::Debug for Flights<K, T> {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Flights")
            .field("running", &lock(&self.running).len())
            .finish()
    }
}

/// Removes a request's entry when its task ends, returns or unwinds (or is dropped with the
/// runtime).
struct Landing<K: Hash + Eq, T> {
    running: Running<K, T>,
    key: Option<K>,
}

impl<K: Hash + Eq, T> Drop for Landing<K, T> {
    fn drop(&mut self) {
        if let Some(key) = self.key.take() {
            lock(&self.running).remove(&key);
        }
    }
}

impl<K, T> Flights<K, T>
where
    K: Hash + Eq + Clone + Send + 'static,
    T: Clone + Send + Sync + 'static,
{
    /// None running.
    pub(crate) fn new() -> Self {
        Self {
            running: Arc::new(Mutex::new(HashMap::new())),
        }
    }

    /// The outcome of the request running under `key`, or of a new one, `start()`, spawned on
    /// the current Tokio runtime. Cancelling this future stops the wait, not the request.
    ///
    /// `None` when the request ended without an outcome (it panicked, or the runtime shut down).
    pub(crate) async fn join<F>(&self, key: K, start: impl FnOnce() -> F) -> Option<T>
    where
        F: Future<Output = T> + Send + 'static,
    {
        let mut outcome = {
            let mut running = lock(&self.running);
            match running.get(&key) {
                Some(outcome) => outcome.clone(),
                None => {
                    let (sender, outcome) = watch::channel(None);
                    running.insert(key.clone(), outcome.clone());
                    // The task's removal waits for this lock: the entry is in before it goes.
                    let landing = Landing {
                        running: Arc::clone(&self.running),
                        key: Some(key),
                    };
                    let request = start();
                    tokio::spawn(async move {
                        let outcome = request.await;
                        // Gone before the outcome is seen: a caller that sees it finds none.
                        drop(landing);
                        sender.send_replace(Some(outcome));
                    });
                    outcome
                }
            }
        };
        let ended = outcome.wait_for(Option::is_some).await;
        ended.ok().and_then(|seen| (*seen).clone())
    }

    /// How many requests are running.
    #[cfg(test)]
    fn running(&self) -> usize {
        lock(&self.running).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::time::Duration;

    /// A request that counts itself, waits for `go`, then answers `answer`.
    fn request(
        started: &Arc<AtomicUsize>,
        go: &Arc<tokio::sync::Notify>,
        answer: Result<u32, String>,
    ) -> impl Future<Output = Result<u32, String>> + Send + 'static {
        let (started, go) = (Arc::clone(started), Arc::clone(go));
        async move {
            started.fetch_add(1, Ordering::SeqCst);
            go.notified().await;
            answer
        }
    }

    #[tokio::test]
    async fn concurrent_calls_share_one_request_and_its_outcome_is_not_kept() {
        let flights = Flights::<&str, Result<u32, String>>::new();
        let started = Arc::new(AtomicUsize::new(0));
        let go = Arc::new(tokio::sync::Notify::new());
        // Each waiter joins on its first poll; `join_all` polls all 8 at once.
        let waiters = futures_util::future::join_all(
            (0..8).map(|_| flights.join("alice", || request(&started, &go, Err("refused".into())))),
        );
        let release = async {
            while started.load(Ordering::SeqCst) == 0 {
                tokio::task::yield_now().await;
            }
            // A call for another key has its own request.
            let bob = flights.join("bob", || async { Ok(7) }).await;
            assert_eq!(bob, Some(Ok(7)));
            go.notify_one();
        };
        let (outcomes, ()) = tokio::join!(waiters, release);
        assert_eq!(
            outcomes,
            vec![Some(Err("refused".to_owned())); 8],
            "every waiter gets the same error"
        );
        assert_eq!(started.load(Ordering::SeqCst), 1, "one request for 8 calls");
        assert_eq!(flights.running(), 0, "the entry goes when the request ends");
        // The failure is not kept: the next call asks again.
        let again = flights.join("alice", || async { Ok(1) }).await;
        assert_eq!(again, Some(Ok(1)));
    }

    #[tokio::test]
    async fn a_cancelled_wait_leaves_the_request_to_the_others_and_a_panic_is_no_outcome() {
        let flights = Flights::<&str, Result<u32, String>>::new();
        let started = Arc::new(AtomicUsize::new(0));
        let go = Arc::new(tokio::sync::Notify::new());
        let first = tokio::time::timeout(
            Duration::from_millis(50),
            flights.join("alice", || request(&started, &go, Ok(5))),
        )
        .await;
        assert!(first.is_err(), "the first caller stopped waiting");
        assert_eq!(flights.running(), 1, "its request still runs");
        // The second caller joins on its first poll, before the request is let go.
        let (second, ()) = tokio::join!(flights.join("alice", || async { Ok(0) }), async {
            go.notify_one();
        });
        assert_eq!(second, Some(Ok(5)), "the first caller's request");
        assert_eq!(started.load(Ordering::SeqCst), 1);
        assert_eq!(flights.running(), 0);

        let panicked = flights
            .join("alice", || async { panic!("a bug in the request") })
            .await;
        assert_eq!(panicked, None);
        assert_eq!(flights.running(), 0, "a panic removes the entry too");
    }
}
