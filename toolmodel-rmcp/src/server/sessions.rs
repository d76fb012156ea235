//! The handshake-era sessions of a Streamable HTTP server, as the layer in front of `rmcp`
//! sees them: when each was last used and how many of its requests are in flight, to bound
//! their number ([`Limits::max_sessions`]) and their calls in flight
//! ([`Limits::max_calls_per_session`]).
//!
//! `rmcp`'s `LocalSessionManager` holds the sessions themselves (and closes those idle for
//! [`Limits::session_idle_timeout`]); this table follows it and prunes the ids it no longer
//! has.

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, Mutex, PoisonError},
    time::Instant,
};

use rmcp::transport::streamable_http_server::session::{
    SessionId, SessionManager as _, local::LocalSessionManager,
};

use super::limits::Limits;

#[derive(Debug)]
struct Session {
    last_used: Instant,
    in_flight: usize,
}

/// Why a request was refused.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Refusal {
    /// Every one of the `max_sessions` sessions has a request in flight.
    SessionsBusy(usize),
    /// The session has `max_calls_per_session` requests in flight.
    CallsInFlight(usize),
}

/// The sessions' activity, shared by every connection.
#[derive(Debug)]
pub(super) struct SessionTable {
    manager: Arc<LocalSessionManager>,
    sessions: Mutex<HashMap<SessionId, Session>>,
    max_sessions: usize,
    max_calls: usize,
}

/// A request in flight in a session; dropping it (with the response's body) ends it.
#[derive(Debug)]
pub(super) struct InFlight {
    table: Arc<SessionTable>,
    /// `None` for an id the table does not hold (`rmcp` answers 404).
    id: Option<SessionId>,
}

impl Drop for InFlight {
    fn drop(&mut self) {
        let Some(id) = &self.id else {
            return;
        };
        let mut sessions = self.table.lock();
        if let Some(session) = sessions.get_mut(id) {
            session.in_flight = session.in_flight.saturating_sub(1);
            session.last_used = Instant::now();
        }
    }
}

impl SessionTable {
    pub(super) fn new(manager: Arc<LocalSessionManager>, limits: &Limits) -> Self {
        Self {
            manager,
            sessions: Mutex::new(HashMap::new()),
            max_sessions: limits.max_sessions,
            max_calls: limits.max_calls_per_session,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Session>> {
        self.sessions.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Whether `rmcp` holds session `id`.
    pub(super) async fn exists(&self, id: &SessionId) -> bool {
        self.manager.has_session(id).await.unwrap_or(false)
    }

    /// Makes room for a new session: when `rmcp` holds `max_sessions`, closes the least
    /// recently used one with no request in flight.
    ///
    /// # Errors
    ///
    /// [`Refusal::SessionsBusy`] when every session has a request in flight.
    pub(super) async fn make_room(&self) -> Result<(), Refusal> {
        let held = self.manager.sessions.read().await.len();
        if held < self.max_sessions {
            return Ok(());
        }
        let live: HashSet<SessionId> = self.manager.sessions.read().await.keys().cloned().collect();
        let victim = {
            let mut sessions = self.lock();
            sessions.retain(|id, _| live.contains(id));
            // A session `rmcp` holds that this table never saw (none, in practice) is the
            // oldest of all.
            live.iter()
                .filter(|id| {
                    sessions
                        .get(*id)
                        .is_none_or(|session| session.in_flight == 0)
                })
                .min_by_key(|id| sessions.get(*id).map(|session| session.last_used))
                .cloned()
        };
        let Some(victim) = victim else {
            return Err(Refusal::SessionsBusy(self.max_sessions));
        };
        self.lock().remove(&victim);
        // A session that ended meanwhile is no error: there is room either way.
        let _ = self.manager.close_session(&victim).await;
        Ok(())
    }

    /// Records a session `rmcp` just created.
    pub(super) fn created(&self, id: SessionId) {
        let mut sessions = self.lock();
        if sessions.len() >= self.max_sessions.saturating_mul(2) {
            // Ids `rmcp` closed on its own (idle): prune them now and then, so the table
            // stays as small as the sessions.
            if let Ok(live) = self.manager.sessions.try_read() {
                sessions.retain(|id, _| live.contains_key(id));
            }
        }
        sessions.insert(
            id,
            Session {
                last_used: Instant::now(),
                in_flight: 0,
            },
        );
    }

    /// Forgets a session the client deleted.
    pub(super) fn deleted(&self, id: &SessionId) {
        self.lock().remove(id);
    }

    /// Starts a request in session `id`. An id the table does not hold (one a client made
    /// up: `rmcp` answers 404) is not recorded, so made-up ids cannot grow the table.
    ///
    /// # Errors
    ///
    /// [`Refusal::CallsInFlight`] when the session has `max_calls_per_session` in flight.
    pub(super) fn start(self: &Arc<Self>, id: &SessionId) -> Result<InFlight, Refusal> {
        let mut sessions = self.lock();
        let Some(session) = sessions.get_mut(id) else {
            return Ok(InFlight {
                table: Arc::clone(self),
                id: None,
            });
        };
        if session.in_flight >= self.max_calls {
            return Err(Refusal::CallsInFlight(self.max_calls));
        }
        session.in_flight += 1;
        session.last_used = Instant::now();
        Ok(InFlight {
            table: Arc::clone(self),
            id: Some(id.clone()),
        })
    }
}
