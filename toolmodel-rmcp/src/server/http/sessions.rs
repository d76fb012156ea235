//! [`SessionTable`]: the handshake-era sessions of a Streamable HTTP server as the front
//! sees them (when each was last used, whether its client came back after `initialize`, how
//! many of its requests are in flight), to bound their number
//! ([`HttpLimits::max_sessions`]) and their requests in flight
//! ([`HttpLimits::max_calls_per_session`]).
//!
//! `rmcp`'s `LocalSessionManager` holds the sessions themselves (and closes those idle for
//! [`HttpLimits::session_idle_timeout`]); this table follows it and prunes the ids it no
//! longer has. It only records sessions whose `initialize` response has left: a session
//! `rmcp` holds and the table has not seen yet is being made by an `initialize` in flight,
//! and is never closed.
//!
//! **Which session makes room.** When `max_sessions` are held, a new `initialize` closes one
//! of the sessions this table knows with no request in flight, taking the first tier that
//! has one, the least recently made or used first within it:
//!
//! 1. *abandoned*: its client never came back (no request with its `Mcp-Session-Id` since
//!    `initialize`: MCP's lifecycle has every client send `notifications/initialized` next)
//!    and it was made [`FRESH_SESSION_GRACE`] (1 s) ago or more;
//! 2. *idle*: its client came back, last [`FRESH_SESSION_GRACE`] ago or more;
//! 3. *handshaking*: made less than [`FRESH_SESSION_GRACE`] ago, its client not back yet;
//! 4. *active*: its client came back less than [`FRESH_SESSION_GRACE`] ago.
//!
//! So a flood of `initialize` requests never followed up replaces its own sessions, a client
//! that finished its handshake and keeps using its session keeps it, and a fresh client
//! between its `initialize` response and its next request is never the first to go. The
//! price: a flood that fills `max_sessions` within the grace (1,000 `initialize` a second
//! with the default limit) leaves no abandoned session, and closes idle sessions (their
//! clients get 404 on their next request and initialize again, as MCP says) before its own.
//! While such a flood lasts, its sessions and a fresh client's look alike and the oldest goes
//! first, so a fresh client must come back within `max_sessions` divided by the flood's rate.
//!
//! Requests the front refuses before this stage (path, `Host`, `Origin`, the gate, the body)
//! never reach the table: they close no session.

use std::{
    collections::{HashMap, HashSet},
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use rmcp::transport::streamable_http_server::session::{
    SessionId, SessionManager as _, local::LocalSessionManager,
};

use toolmodel::Caller;

use super::{limits::HttpLimits, refusal::Refusal};
use crate::lock::lock;

/// How long a session counts as fresh after its `initialize` or its client's last request:
/// while fresh it is among the last to close when a new `initialize` needs room (module
/// docs).
///
/// 1 s: a client sends `notifications/initialized` as soon as the `initialize` response
/// arrives (MCP lifecycle, *Initialization*), one round trip later, which is under 300 ms
/// even between continents; and the shorter the grace, the faster a flood must be (here
/// `max_sessions` per second) before it can close idle sessions ahead of its own.
pub(super) const FRESH_SESSION_GRACE: Duration = Duration::from_secs(1);

/// Whom a session belongs to under authorization: the issuer and subject of the token that
/// made it (MCP 2025-11-25, "Session Hijacking": sessions are bound to the user).
pub(super) type Owner = (String, String);

/// The owner of the request `caller` makes; `None` without authorization.
pub(super) fn owner(caller: Option<&Caller>) -> Option<Owner> {
    caller.map(|caller| (caller.issuer().to_owned(), caller.subject().to_owned()))
}

/// Whether a session of `owner` may serve the request of `caller`.
pub(super) fn owns(owner: Option<&Owner>, caller: Option<&Caller>) -> bool {
    owner.map(|(issuer, subject)| (issuer.as_str(), subject.as_str()))
        == caller.map(|caller| (caller.issuer(), caller.subject()))
}

#[derive(Debug)]
struct Session {
    /// Who made it; `None`: anyone may use it (no authorization).
    owner: Option<Owner>,
    last_used: Instant,
    in_flight: usize,
    /// The client came back with the session's id after `initialize`.
    returned: bool,
}

/// Which sessions close first when a new `initialize` needs room, first to last (module
/// docs).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Tier {
    /// Never came back, made [`FRESH_SESSION_GRACE`] ago or more.
    Abandoned,
    /// Came back, last used [`FRESH_SESSION_GRACE`] ago or more.
    Idle,
    /// Never came back (yet), made less than [`FRESH_SESSION_GRACE`] ago.
    Handshaking,
    /// Came back, last used less than [`FRESH_SESSION_GRACE`] ago.
    Active,
}

impl Session {
    /// The order in which sessions with no request in flight make room at `now`: by
    /// [`Tier`], then the least recently made or used. (`last_used` of a session whose client
    /// never came back is when it was made.)
    fn eviction_rank(&self, now: Instant) -> (Tier, Instant) {
        let fresh = now.saturating_duration_since(self.last_used) < FRESH_SESSION_GRACE;
        let tier = match (self.returned, fresh) {
            (false, false) => Tier::Abandoned,
            (true, false) => Tier::Idle,
            (false, true) => Tier::Handshaking,
            (true, true) => Tier::Active,
        };
        (tier, self.last_used)
    }
}

/// The session to close for room at `now`: among `sessions` that `live` holds and with no
/// request in flight, the first by [`Session::eviction_rank`]; `None` when there is none.
fn victim(
    sessions: &HashMap<SessionId, Session>,
    live: &HashSet<SessionId>,
    now: Instant,
) -> Option<SessionId> {
    sessions
        .iter()
        .filter(|(id, session)| session.in_flight == 0 && live.contains(*id))
        .min_by_key(|(_, session)| session.eviction_rank(now))
        .map(|(id, _)| id.clone())
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
    pub(super) fn new(manager: Arc<LocalSessionManager>, limits: &HttpLimits) -> Self {
        Self {
            manager,
            sessions: Mutex::new(HashMap::new()),
            max_sessions: limits.max_sessions,
            max_calls: limits.max_calls_per_session,
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<SessionId, Session>> {
        lock(&self.sessions)
    }

    /// Whether `rmcp` holds session `id`.
    pub(super) async fn exists(&self, id: &SessionId) -> bool {
        self.manager.has_session(id).await.unwrap_or(false)
    }

    /// Makes room for a new session: when `rmcp` holds `max_sessions`, closes one with no
    /// request in flight, abandoned sessions first and fresh ones last (see the module docs).
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
            // Only sessions this table knows: one `rmcp` holds that the table has not seen yet
            // is being made by an `initialize` in flight (the table learns of it when its
            // response leaves), and closing it would fail that client's handshake with 500.
            // The table is not pruned to `live` here: a session made after that snapshot (a
            // fresh client's) would be forgotten, and chosen next. `created` prunes, under
            // `rmcp`'s lock.
            victim(&self.lock(), &live, Instant::now())
        };
        let Some(victim) = victim else {
            return Err(Refusal::SessionsBusy(self.max_sessions));
        };
        self.lock().remove(&victim);
        // A session that ended meanwhile is no error: there is room either way.
        let _ = self.manager.close_session(&victim).await;
        Ok(())
    }

    /// Whether session `id`, when the table knows it, belongs to `caller` (a session the
    /// table has not recorded yet is being made by an `initialize` in flight).
    pub(super) fn owned_by(&self, id: &SessionId, caller: Option<&Caller>) -> bool {
        self.lock()
            .get(id)
            .is_none_or(|session| owns(session.owner.as_ref(), caller))
    }

    /// Records a session `rmcp` just created for `owner`.
    pub(super) fn created(&self, id: SessionId, owner: Option<Owner>) {
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
                owner,
                last_used: Instant::now(),
                in_flight: 0,
                returned: false,
            },
        );
    }

    /// Records a session another replica made, which a shared store gave this one for a
    /// request (`rmcp` restores it), for `owner`; a session the table knows is left as it is.
    pub(super) fn adopt(&self, id: &SessionId, owner: Option<Owner>) {
        let mut sessions = self.lock();
        sessions.entry(id.clone()).or_insert_with(|| Session {
            owner,
            last_used: Instant::now(),
            in_flight: 0,
            returned: true,
        });
    }

    /// Forgets a session the client deleted.
    pub(super) fn deleted(&self, id: &SessionId) {
        self.lock().remove(id);
    }

    /// Starts a request of `caller` in session `id`. An id the table does not hold (one a
    /// client made up: `rmcp` answers 404) is not recorded, so made-up ids cannot grow the
    /// table.
    ///
    /// # Errors
    ///
    /// [`Refusal::SessionNotFound`] when the session belongs to another owner (as if it did
    /// not exist: nothing tells the caller it does), [`Refusal::CallsInFlight`] when the
    /// session has `max_calls_per_session` in flight.
    pub(super) fn start(
        self: &Arc<Self>,
        id: &SessionId,
        caller: Option<&Caller>,
    ) -> Result<InFlight, Refusal> {
        let mut sessions = self.lock();
        let Some(session) = sessions.get_mut(id) else {
            return Ok(InFlight {
                table: Arc::clone(self),
                id: None,
            });
        };
        if !owns(session.owner.as_ref(), caller) {
            return Err(Refusal::SessionNotFound);
        }
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

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    /// A table of sessions named by `name`: made or last used `ago` before `now`, whether
    /// their client came back, and their requests in flight.
    fn table(now: Instant, rows: &[(&str, Duration, bool, usize)]) -> HashMap<SessionId, Session> {
        rows.iter()
            .map(|&(name, ago, returned, in_flight)| {
                let session = Session {
                    owner: None,
                    last_used: now
                        .checked_sub(ago)
                        .expect("the clock is older than a minute"),
                    in_flight,
                    returned,
                };
                (SessionId::from(name), session)
            })
            .collect()
    }

    /// Closes the sessions of `table(now, rows)` one by one as `make_room` would, and names
    /// them in that order.
    fn closing_order(rows: &[(&str, Duration, bool, usize)]) -> Vec<String> {
        let now = Instant::now();
        let mut sessions = table(now, rows);
        let live: HashSet<SessionId> = sessions.keys().cloned().collect();
        let mut order = Vec::new();
        while let Some(id) = victim(&sessions, &live, now) {
            sessions.remove(&id);
            order.push(id.to_string());
        }
        order
    }

    const MS: Duration = Duration::from_millis(1);

    /// A way to the soak's lockout: when no abandoned session is older than a fresh client's
    /// (between its `initialize` response and its `notifications/initialized`), the
    /// abandoned-first order closed the fresh client's first. Now a storm's idle session goes
    /// first, and the fresh client's before only the session in use.
    #[test]
    fn a_fresh_client_is_not_the_first_to_go() {
        let order = closing_order(&[
            ("probe", 5 * MS, false, 0),
            ("storm-left", 30_000 * MS, true, 0),
            ("storm-using", MS, true, 0),
        ]);
        assert_eq!(order, ["storm-left", "probe", "storm-using"]);
    }

    /// Each tier in turn, the least recently made or used first within it.
    #[test]
    fn sessions_close_by_tier_then_oldest_first() {
        let order = closing_order(&[
            ("active-recent", MS, true, 0),
            ("handshaking-older", 500 * MS, false, 0),
            ("idle-recent", 5_000 * MS, true, 0),
            ("abandoned-older", 10_000 * MS, false, 0),
            ("active-older", 800 * MS, true, 0),
            ("idle-older", 20_000 * MS, true, 0),
            ("handshaking-recent", 5 * MS, false, 0),
            ("abandoned-recent", FRESH_SESSION_GRACE, false, 0),
        ]);
        assert_eq!(
            order,
            [
                "abandoned-older",
                "abandoned-recent",
                "idle-older",
                "idle-recent",
                "handshaking-older",
                "handshaking-recent",
                "active-older",
                "active-recent",
            ]
        );
    }

    /// A session with a request in flight, or one `rmcp` does not hold (yet), never closes.
    #[test]
    fn busy_and_unknown_sessions_never_close() {
        let now = Instant::now();
        let sessions = table(
            now,
            &[
                ("busy", 60_000 * MS, false, 1),
                ("unknown", 60_000 * MS, false, 0),
                ("fresh", MS, false, 0),
            ],
        );
        let live: HashSet<SessionId> = ["busy", "fresh"].map(SessionId::from).into();
        assert_eq!(victim(&sessions, &live, now).as_deref(), Some("fresh"));
        let live: HashSet<SessionId> = ["busy"].map(SessionId::from).into();
        assert_eq!(victim(&sessions, &live, now), None);
    }

    proptest! {
        /// Whatever the sessions, the one closed has no request in flight, and is fresh
        /// (made or used within the grace) only when every other candidate is fresh too.
        #[test]
        fn a_fresh_session_goes_only_when_all_are_fresh(
            rows in proptest::collection::vec((0u64..3_000, any::<bool>(), 0usize..2), 1..20)
        ) {
            let now = Instant::now();
            let names: Vec<String> = (0..rows.len()).map(|i| format!("s{i}")).collect();
            let rows: Vec<_> = rows
                .iter()
                .zip(&names)
                .map(|(&(ago, returned, in_flight), name)| {
                    (name.as_str(), Duration::from_millis(ago), returned, in_flight)
                })
                .collect();
            let sessions = table(now, &rows);
            let live: HashSet<SessionId> = sessions.keys().cloned().collect();
            let fresh = |session: &Session| {
                now.duration_since(session.last_used) < FRESH_SESSION_GRACE
            };
            let candidates: Vec<&Session> =
                sessions.values().filter(|session| session.in_flight == 0).collect();
            match victim(&sessions, &live, now) {
                None => prop_assert!(candidates.is_empty()),
                Some(id) => {
                    let chosen = &sessions[&id];
                    prop_assert_eq!(chosen.in_flight, 0);
                    if fresh(chosen) {
                        prop_assert!(candidates.iter().all(|session| fresh(session)));
                    }
                }
            }
        }
    }
}
