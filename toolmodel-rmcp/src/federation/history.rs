//! What an operator needs to know of one upstream's lifetime, kept beside its session and read
//! without waiting for it (an attempt to open a session holds the session's lock for up to
//! the startup timeout): its [`Phase`] and since when, its child's process ID, how many
//! sessions it had and how many attempts failed, the last error. Every change of phase is
//! also an event of the `tracing` target `toolmodel_rmcp::federation`, with the server's
//! name in the field `upstream`.

use std::{
    sync::{Arc, Mutex},
    time::{Duration, SystemTime},
};

use rmcp::service::{Peer, RoleClient};

use crate::lock::lock;

/// The `tracing` target of the federation's events.
const TARGET: &str = "toolmodel_rmcp::federation";

/// How often a watcher looks at an open session to notice it closed.
const WATCH_EVERY: Duration = Duration::from_millis(200);

/// Where an upstream is in its lifetime.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Phase {
    /// No attempt yet, or the first one running.
    Starting,
    /// A session is open.
    Up,
    /// An attempt to open a session again is running (a stdio child respawning, an HTTP
    /// session reconnecting).
    Restarting,
    /// No session: the last attempt failed, or the session closed; the next call or the
    /// background retry opens one after the backoff delay.
    Down,
    /// The federation was shut down.
    ShutDown,
}

impl Phase {
    /// Its name in the gateway status document.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            Self::Starting => "starting",
            Self::Up => "up",
            Self::Restarting => "restarting",
            Self::Down => "down",
            Self::ShutDown => "shut_down",
        }
    }
}

/// One upstream's history, as [`History::snapshot`] reads it.
#[derive(Clone, Debug)]
pub(crate) struct Record {
    pub(crate) phase: Phase,
    /// When it entered `phase`.
    pub(crate) since: SystemTime,
    /// The child's process ID while a stdio session is open.
    pub(crate) pid: Option<u32>,
    /// Sessions opened after the first: restarts.
    pub(crate) restarts: u64,
    /// Failed attempts to open a session, and sessions that closed under the gateway.
    pub(crate) failures: u64,
    /// The last failure, without the configuration's secrets.
    pub(crate) last_error: Option<String>,
    /// The generation of the session open, for the watcher.
    generation: u64,
    /// Sessions opened.
    opened: u64,
    /// When the open session opened, for `mcp.client.session.duration`.
    up_since: Option<std::time::Instant>,
}

/// One upstream's history, shared with the watcher of its open session.
#[derive(Clone, Debug)]
pub(crate) struct History {
    name: Arc<str>,
    record: Arc<Mutex<Record>>,
    /// Told when an open session closes under the gateway, for the federation's background
    /// reopening ([`closed_signal`](Self::closed_signal)).
    closed: Arc<tokio::sync::Notify>,
}

impl History {
    pub(crate) fn new(name: &str) -> Self {
        Self {
            name: Arc::from(name),
            record: Arc::new(Mutex::new(Record {
                phase: Phase::Starting,
                since: SystemTime::now(),
                pid: None,
                restarts: 0,
                failures: 0,
                last_error: None,
                generation: 0,
                opened: 0,
                up_since: None,
            })),
            closed: Arc::new(tokio::sync::Notify::new()),
        }
    }

    /// Wakes (once per closing; a closing while nobody waits is kept for the next wait) when
    /// an open session closed under the gateway: the child exited, the connection dropped.
    pub(crate) fn closed_signal(&self) -> Arc<tokio::sync::Notify> {
        Arc::clone(&self.closed)
    }

    /// What is known now.
    pub(crate) fn snapshot(&self) -> Record {
        lock(&self.record).clone()
    }

    fn enter(record: &mut Record, phase: Phase) {
        if record.phase != phase {
            if phase != Phase::Up {
                // A session ends: closed under the gateway (an error) or shut down.
                let error = (phase == Phase::Down).then_some("session_closed");
                Self::session_ended(record, error);
            }
            record.phase = phase;
            record.since = SystemTime::now();
        }
    }

    /// Records `mcp.client.session.duration` of the open session, if any, as ended.
    fn session_ended(record: &mut Record, error: Option<&'static str>) {
        if let Some(since) = record.up_since.take() {
            crate::telemetry::metrics::client_session(since.elapsed(), error);
        }
    }

    /// An attempt to open a session starts; `attempt` counts from 1 since the last session
    /// (or the start).
    pub(crate) fn attempting(&self, attempt: u32) {
        let mut record = lock(&self.record);
        if record.opened == 0 && record.phase == Phase::Starting {
            tracing::info!(target: TARGET, upstream = %self.name, attempt, "upstream starting");
        } else {
            Self::enter(&mut record, Phase::Restarting);
            tracing::info!(target: TARGET, upstream = %self.name, attempt, "upstream respawning");
        }
    }

    /// A session opened (generation `generation`, the child `pid`); a watcher notices when
    /// it closes (through `peer`).
    pub(crate) fn opened(&self, generation: u64, pid: Option<u32>, peer: Peer<RoleClient>) {
        let mut record = lock(&self.record);
        let recovered = record.opened > 0 || record.failures > 0;
        record.opened += 1;
        record.restarts = record.opened.saturating_sub(1);
        record.generation = generation;
        record.pid = pid;
        // A session that replaced one still open (an HTTP session the server expired).
        Self::session_ended(&mut record, None);
        record.up_since = Some(std::time::Instant::now());
        Self::enter(&mut record, Phase::Up);
        if recovered {
            tracing::info!(
                target: TARGET,
                upstream = %self.name,
                pid,
                restarts = record.restarts,
                "upstream recovered"
            );
        } else {
            tracing::info!(target: TARGET, upstream = %self.name, pid, "upstream up");
        }
        drop(record);
        self.watch(generation, peer);
    }

    /// An attempt failed (`attempt` in a row); the next one is in `retry_in`.
    pub(crate) fn attempt_failed(&self, attempt: u32, cause: &str, retry_in: Duration) {
        let mut record = lock(&self.record);
        record.failures += 1;
        record.last_error = Some(cause.to_owned());
        record.pid = None;
        Self::enter(&mut record, Phase::Down);
        let retry_in_ms = u64::try_from(retry_in.as_millis()).unwrap_or(u64::MAX);
        tracing::warn!(
            target: TARGET,
            upstream = %self.name,
            attempt,
            retry_in_ms,
            error = cause,
            "upstream failed to start; retrying"
        );
    }

    /// The session of `generation` closed or failed under a call; nothing when a newer one
    /// is open, or the phase already says so.
    pub(crate) fn closed(&self, generation: u64, cause: &str) {
        let mut record = lock(&self.record);
        if record.generation != generation || record.phase != Phase::Up {
            return;
        }
        record.failures += 1;
        record.last_error = Some(cause.to_owned());
        let pid = record.pid.take();
        Self::enter(&mut record, Phase::Down);
        tracing::warn!(
            target: TARGET,
            upstream = %self.name,
            pid,
            error = cause,
            "upstream crashed or closed its session"
        );
        self.closed.notify_one();
    }

    /// The federation shut it down.
    pub(crate) fn shut_down(&self) {
        let mut record = lock(&self.record);
        if record.phase != Phase::ShutDown {
            record.pid = None;
            Self::enter(&mut record, Phase::ShutDown);
            tracing::info!(target: TARGET, upstream = %self.name, "upstream shut down");
            // The background reopening waiting on it sees the shutdown and ends.
            self.closed.notify_one();
        }
    }

    /// Looks at the session of `generation` every [`WATCH_EVERY`] until it closes (then
    /// [`closed`](Self::closed)), another one replaces it, or the upstream is dropped.
    fn watch(&self, generation: u64, peer: Peer<RoleClient>) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let name = Arc::clone(&self.name);
        let record = Arc::downgrade(&self.record);
        let closed = Arc::clone(&self.closed);
        runtime.spawn(async move {
            loop {
                tokio::time::sleep(WATCH_EVERY).await;
                let Some(record) = record.upgrade() else {
                    return;
                };
                let history = Self {
                    name: Arc::clone(&name),
                    record,
                    closed: Arc::clone(&closed),
                };
                {
                    let now = lock(&history.record);
                    if now.generation != generation || now.phase != Phase::Up {
                        return;
                    }
                }
                if peer.is_transport_closed() {
                    history.closed(generation, "the session closed");
                    return;
                }
            }
        });
    }
}
