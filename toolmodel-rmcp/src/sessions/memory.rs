//! [`MemorySessionStore`]: sessions in this process's memory.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use tokio::sync::mpsc;

use super::store::{
    DEFAULT_SESSION_LIMIT, RELAY_QUEUE, Relayed, SessionRecord, SessionStore, StoreFuture, Touched,
};
use crate::{Error, lock::lock, tasks::now_ms};

/// Sessions in this process's memory. Unless made with
/// [`in_process_replicas`](Self::in_process_replicas), a server with this store behaves as
/// one without a store: `rmcp` holds the sessions, nothing is copied (a second process does
/// not see them). Expired sessions are removed by the next `create` at the limit. Cheap to
/// clone; clones share the sessions.
#[derive(Clone, Debug)]
pub struct MemorySessionStore {
    inner: Arc<Mutex<Inner>>,
    limit: usize,
    shared: bool,
}

#[derive(Debug, Default)]
struct Inner {
    /// Each session and when it expires (ms).
    sessions: HashMap<String, (SessionRecord, u64)>,
    /// Sessions deleted, until when the mark lasts (ms).
    deleted: HashMap<String, u64>,
    /// Each subscribed replica's queues.
    subscribers: Vec<(String, mpsc::Sender<Relayed>)>,
}

impl Default for MemorySessionStore {
    fn default() -> Self {
        Self::new()
    }
}

fn expiry(idle: Duration) -> u64 {
    now_ms().saturating_add(u64::try_from(idle.as_millis()).unwrap_or(u64::MAX))
}

impl MemorySessionStore {
    /// An empty store keeping at most [`DEFAULT_SESSION_LIMIT`] sessions, for one server.
    #[must_use]
    pub fn new() -> Self {
        Self {
            inner: Arc::default(),
            limit: DEFAULT_SESSION_LIMIT,
            shared: false,
        }
    }

    /// An empty store that the servers of this process share as if each were a replica in
    /// its own process ([`SessionStore::is_shared`] is `true`): each reads sessions it does
    /// not hold from here and relays messages through it, as with the Redis store. For tests
    /// of replicas without Redis.
    #[must_use]
    pub fn in_process_replicas() -> Self {
        Self {
            shared: true,
            ..Self::new()
        }
    }

    /// A store with none of this one's sessions (nor marks of deleted ones) and the same
    /// subscribers, limit and sharing: what a Redis restarted without its data is to its
    /// clients, for tests.
    #[must_use]
    pub fn emptied(&self) -> Self {
        let subscribers = lock(&self.inner).subscribers.clone();
        Self {
            inner: Arc::new(Mutex::new(Inner {
                subscribers,
                ..Inner::default()
            })),
            ..self.clone()
        }
    }

    /// The same store keeping at most `limit` sessions not expired yet: a `create` beyond it
    /// is [`Error::SessionLimit`].
    #[must_use]
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }
}

impl SessionStore for MemorySessionStore {
    fn create<'a>(&'a self, record: &'a SessionRecord, idle: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move {
            let mut inner = lock(&self.inner);
            if inner.sessions.len() >= self.limit {
                let now = now_ms();
                inner.sessions.retain(|_, (_, expires)| *expires > now);
                if inner.sessions.len() >= self.limit {
                    return Err(Error::SessionLimit { limit: self.limit });
                }
            }
            inner
                .sessions
                .insert(record.id.clone(), (record.clone(), expiry(idle)));
            Ok(())
        })
    }

    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionRecord>> {
        Box::pin(async move {
            let inner = lock(&self.inner);
            Ok(inner
                .sessions
                .get(id)
                .filter(|(_, expires)| *expires > now_ms())
                .map(|(record, _)| record.clone()))
        })
    }

    fn touch<'a>(&'a self, record: &'a SessionRecord, idle: Duration) -> StoreFuture<'a, Touched> {
        Box::pin(async move {
            let mut inner = lock(&self.inner);
            let now = now_ms();
            if let Some((_, expires)) = inner.sessions.get_mut(&record.id)
                && *expires > now
            {
                *expires = expiry(idle);
                return Ok(Touched::Kept);
            }
            if inner
                .deleted
                .get(&record.id)
                .is_some_and(|until| *until > now)
            {
                return Ok(Touched::Deleted);
            }
            inner
                .sessions
                .insert(record.id.clone(), (record.clone(), expiry(idle)));
            Ok(Touched::Written)
        })
    }

    fn update<'a>(&'a self, record: &'a SessionRecord) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut inner = lock(&self.inner);
            match inner.sessions.get_mut(&record.id) {
                Some((stored, expires)) if *expires > now_ms() => {
                    *stored = record.clone();
                    Ok(true)
                }
                _ => Ok(false),
            }
        })
    }

    fn delete<'a>(&'a self, id: &'a str, idle: Duration) -> StoreFuture<'a, bool> {
        Box::pin(async move {
            let mut inner = lock(&self.inner);
            let now = now_ms();
            if inner.deleted.len() >= self.limit {
                inner.deleted.retain(|_, until| *until > now);
            }
            inner.deleted.insert(id.to_owned(), expiry(idle));
            let removed = inner.sessions.remove(id);
            Ok(removed.is_some_and(|(_, expires)| expires > now))
        })
    }

    fn publish<'a>(&'a self, message: &'a Relayed) -> StoreFuture<'a, usize> {
        Box::pin(async move {
            let mut inner = lock(&self.inner);
            inner.subscribers.retain(|(_, queue)| !queue.is_closed());
            let mut received = 0;
            for (replica, queue) in &inner.subscribers {
                if message.to.as_ref().is_none_or(|to| to == replica) {
                    if queue.try_send(message.clone()).is_err() {
                        super::relay::dropped(replica);
                    }
                    received += 1;
                }
            }
            Ok(received)
        })
    }

    fn subscribe<'a>(&'a self, replica: &'a str) -> StoreFuture<'a, mpsc::Receiver<Relayed>> {
        Box::pin(async move {
            let (queue, receiver) = mpsc::channel(RELAY_QUEUE);
            lock(&self.inner)
                .subscribers
                .push((replica.to_owned(), queue));
            Ok(receiver)
        })
    }

    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(async { Ok(()) })
    }

    fn is_shared(&self) -> bool {
        self.shared
    }
}
