//! The handshake-era sessions of a Streamable HTTP server, as the layer in front of `rmcp`
//! sees them: when each was last used and how many of its requests are in flight, to bound
//! their number ([`Limits::max_sessions`]) and their calls in flight
//! ([`Limits::max_calls_per_session`]).
//!
//! `rmcp`'s `LocalSessionManager` holds the sessions themselves (and closes those idle for
//! [`Limits::session_idle_timeout`]); this table follows it and prunes the ids it no longer
//! has.
//!
//! **Which session makes room.** When `max_sessions` are held, a new `initialize` closes,
//! among the sessions this table knows with no request in flight, one its client never came
//! back to (no request with its `Mcp-Session-Id` since `initialize`: MCP's lifecycle has
//! every client send `notifications/initialized` next), the least recently made first; only
//! when there is none, the least recently used of the others. A flood of `initialize`
//! requests never followed up (the soak's 10,000) so replaces its own sessions, and a client
//! that finished its handshake keeps its session however fast the flood.
//!
//! `serve/soak.sh` ended `lockouts=65` (then 132 of 297 probes) before this: each
//! `initialize` pruned the table to a snapshot of `rmcp`'s sessions taken before it, so a
//! session made meanwhile (a fresh client's) was forgotten, and a session the table did not
//! know was the first to close: the fresh client's next request got 404. A session `rmcp`
//! holds and the table has not seen yet is one whose `initialize` is still in flight:
//! closing it made that `initialize` fail with 500. Neither is closed now.

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
    /// The client came back with the session's id after `initialize`.
    returned: bool,
}

impl Session {
    /// The order in which sessions with no request in flight make room: abandoned ones
    /// first, then the least recently used.
    fn eviction_rank(&self) -> (bool, Instant) {
        (self.returned, self.last_used)
    }
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

    /// Makes room for a new session: when `rmcp` holds `max_sessions`, closes one with no
    /// request in flight, its client's abandoned sessions first (see the module docs).
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
            let sessions = self.lock();
            // Only sessions this table knows: one `rmcp` holds that the table has not seen yet
            // is being made by an `initialize` in flight (the table learns of it when its
            // response leaves), and closing it failed that client's handshake with 500. The
            // table is not pruned to `live` here: a session made after that snapshot (a
            // fresh client's) would be forgotten, and chosen next (`soak.sh`: 404 on the
            // call right after `initialize`). `created` prunes, under `rmcp`'s lock.
            sessions
                .iter()
                .filter(|(id, session)| session.in_flight == 0 && live.contains(*id))
                .min_by_key(|(_, session)| session.eviction_rank())
                .map(|(id, _)| id.clone())
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
                returned: false,
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
        session.returned = true;
        Ok(InFlight {
            table: Arc::clone(self),
            id: Some(id.clone()),
        })
    }
}
