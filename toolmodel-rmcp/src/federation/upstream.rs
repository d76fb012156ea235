//! One upstream server's lifetime: its session opened at start, opened again (a stdio child
//! respawned) after it failed, with exponential backoff, and closed with its process group.
//!
//! While a server is down its tools stay listed and answer at once with an `isError` result
//! naming the server and the cause (so a model reads why, and a retry later may succeed);
//! a call after the backoff delay tries to open the session again, and the first success
//! re-imports the server's tools (they may have changed while it was away).

use std::{
    sync::{
        Arc,
        atomic::{AtomicU64, Ordering},
    },
    time::{Duration, Instant},
};

use rmcp::service::{Peer, RoleClient};
use tokio::sync::{Mutex, Semaphore};

use crate::federation::UpstreamTransport;
use crate::federation::config::UpstreamConfig;
use crate::federation::credentials::{
    Authorizer, Bearer, Callbacks, Credentials, Exchanger, Issuing, Users,
};
use crate::federation::downstream::Downstream;
use crate::federation::federated::SessionState;
use crate::federation::history::{History, Phase};
use crate::federation::redact::Redactor;
use crate::federation::relay::{InFlight, Relay};
use crate::federation::session::{Session, open};
use crate::telemetry::client_operation::PeerAddress;

/// The first delay before a session is opened again after a failure; doubled after each
/// failure in a row, up to [`MAX_BACKOFF`].
pub const FIRST_BACKOFF: Duration = Duration::from_millis(250);

/// The longest delay between two attempts to open a session.
pub const MAX_BACKOFF: Duration = Duration::from_secs(10);

/// The most calls waiting for or running on one server unless its `maxConcurrentCalls` says
/// otherwise ([`UpstreamConfig::max_concurrent_calls`](super::UpstreamConfig::max_concurrent_calls));
/// more answer `isError` at once.
pub const MAX_PENDING_CALLS: usize = 256;

/// How long the upstream of a server that a
/// [`Federation::reconfigure`](super::Federation::reconfigure) removed or changed keeps taking
/// calls before it is watched for its last one: a request that took the toolbox just before
/// the new one was installed still reaches it.
pub const DRAIN_GRACE: Duration = Duration::from_secs(1);

/// How often a draining upstream is looked at for calls still in flight.
const DRAIN_POLL: Duration = Duration::from_millis(50);

/// One upstream server.
pub(crate) struct Upstream {
    pub(crate) config: UpstreamConfig,
    /// Keeps the configuration's secrets out of every text about the server.
    pub(crate) redactor: Redactor,
    state: Mutex<State>,
    pub(crate) calls: Arc<InFlight>,
    pub(crate) pending: Semaphore,
    /// The generation of the last session opened.
    generation: AtomicU64,
    /// Runs when the server's tools may have changed (its `list_changed`, a new session).
    changed: Arc<dyn Fn() + Send + Sync>,
    /// Hears the server's prompt and resource announcements.
    downstream: Arc<Downstream>,
    /// Its phase and since when, restarts and failures, for operators; read without waiting
    /// for `state`.
    pub(crate) history: History,
    /// Where it is, for its calls' CLIENT spans (read from `config` once).
    pub(crate) peer_address: PeerAddress,
    /// The token its session sends, for a credentialed server (`toolmodelCredentials`): the
    /// gateway's own for the shared session, a user's for a user's session.
    pub(crate) bearer: Option<Arc<Bearer>>,
    /// A credentialed server's sessions by user (its tool calls go there); `None` otherwise,
    /// and on a user's session.
    pub(crate) users: Option<Users>,
}

enum State {
    /// A session is open (it may have closed since; [`Upstream::peer`] checks), with its
    /// generation (one more for each session opened).
    Up(Session, u64),
    /// No session: why, when to try again, how many failures in a row.
    Down {
        cause: String,
        retry_at: Instant,
        failures: u32,
    },
    /// [`close`](Upstream::close) or [`drain`](Upstream::drain) ended it for good, for this
    /// reason (what a call that still reaches it is answered).
    ShutDown(&'static str),
}

/// A session's peer, and which session it is.
pub(crate) struct Opened {
    pub(crate) peer: Peer<RoleClient>,
    /// The session's generation, for [`Upstream::failed`].
    pub(crate) generation: u64,
    /// Whether this opened a session after an earlier one had been open (the caller imports
    /// the tools again).
    pub(crate) reopened: bool,
}

/// Whether a session can still carry requests.
fn alive(session: &Session) -> bool {
    !session.service.is_closed() && !session.service.peer().is_transport_closed()
}

/// Why a server cannot take a call now.
#[derive(Debug, Clone)]
pub(crate) struct Unavailable(pub(crate) String);

impl Upstream {
    /// An upstream not connected yet (the first [`peer`](Self::peer) connects).
    /// `exchanger`: the gateway's client at its authorization server, which a server of
    /// `tokenExchange` credentials needs; `callbacks`: the gateway's redirect endpoint, which
    /// a server of `oauth` credentials needs (its sessions send the tokens they obtain).
    pub(crate) fn new(
        config: UpstreamConfig,
        changed: Arc<dyn Fn() + Send + Sync>,
        downstream: Arc<Downstream>,
        (exchanger, callbacks): (Option<&Arc<Exchanger>>, Option<&Arc<Callbacks>>),
    ) -> Self {
        let (bearer, users) = match (&config.credentials, exchanger, callbacks) {
            (Some(Credentials::TokenExchange(exchange)), Some(exchanger), _) => (
                Some(Arc::new(Bearer::gateway(
                    Arc::clone(exchanger),
                    &config.name,
                    exchange.clone(),
                    config.timeouts.startup / 2,
                ))),
                Some(Users::new(Issuing::Exchange(
                    Arc::clone(exchanger),
                    exchange.clone(),
                ))),
            ),
            (Some(Credentials::OAuth(client)), _, Some(callbacks)) => {
                let url = match &config.transport {
                    UpstreamTransport::Http(http) => http.url.as_str(),
                    UpstreamTransport::Stdio(_) => "",
                };
                let authorizer =
                    Authorizer::new(&config.name, url, client.clone(), Arc::clone(callbacks));
                (
                    Some(Arc::new(Bearer::authorized(
                        Arc::clone(&authorizer),
                        config.timeouts.startup / 2,
                        None,
                    ))),
                    Some(Users::new(Issuing::OAuth(authorizer))),
                )
            }
            _ => (None, None),
        };
        let mut upstream = Self::with_bearer(config, changed, downstream, bearer);
        upstream.users = users;
        upstream
    }

    /// A session of `shared`'s server for one user, sending `bearer`'s token: its tool
    /// list changes and its announcements are not heard (the shared session's are).
    pub(crate) fn for_user(shared: &Upstream, bearer: Arc<Bearer>) -> Self {
        Self::with_bearer(
            shared.config.clone(),
            Arc::new(|| {}),
            Arc::new(Downstream::default()),
            Some(bearer),
        )
    }

    fn with_bearer(
        config: UpstreamConfig,
        changed: Arc<dyn Fn() + Send + Sync>,
        downstream: Arc<Downstream>,
        bearer: Option<Arc<Bearer>>,
    ) -> Self {
        let config_name = config.name.clone();
        let peer_address = match &config.transport {
            UpstreamTransport::Stdio(_) => PeerAddress::pipe(),
            UpstreamTransport::Http(http) => PeerAddress::http(&http.url),
        };
        let pending = Semaphore::new(config.max_concurrent_calls);
        Self {
            redactor: Redactor::new(&config),
            calls: Arc::new(InFlight::new(config.timeouts.request)),
            config,
            state: Mutex::new(State::Down {
                cause: "not connected yet".into(),
                retry_at: Instant::now(),
                failures: 0,
            }),
            pending,
            generation: AtomicU64::new(0),
            changed,
            downstream,
            history: History::new(&config_name),
            peer_address,
            bearer,
            users: None,
        }
    }

    /// The open session's peer, opening one when there is none and the backoff delay is over.
    ///
    /// # Errors
    ///
    /// [`Unavailable`] with the cause and when the next attempt is.
    pub(crate) async fn peer(&self) -> Result<Opened, Unavailable> {
        let mut state = self.state.lock().await;
        let (failures, generation) = match &*state {
            State::Up(session, generation) if alive(session) => {
                return Ok(Opened {
                    peer: session.service.peer().clone(),
                    generation: *generation,
                    reopened: false,
                });
            }
            State::Up(_, generation) => {
                self.history.closed(*generation, "the session closed");
                (0, *generation)
            }
            State::ShutDown(why) => return Err(Unavailable((*why).into())),
            State::Down {
                cause,
                retry_at,
                failures,
            } => {
                let now = Instant::now();
                if now < *retry_at {
                    return Err(Unavailable(format!(
                        "{cause}; next attempt in {} ms",
                        retry_at.duration_since(now).as_millis()
                    )));
                }
                (*failures, self.generation.load(Ordering::Relaxed))
            }
        };
        let was_up = matches!(&*state, State::Up(..)) || failures > 0;
        // Drop the old session (and kill its process group) before starting another.
        *state = State::Down {
            cause: "reconnecting".into(),
            retry_at: Instant::now(),
            failures,
        };
        self.history.attempting(failures.saturating_add(1));
        let relay = Relay {
            calls: Arc::clone(&self.calls),
            list_changed: Arc::clone(&self.changed),
            downstream: Arc::clone(&self.downstream),
        };
        match open(&self.config, &self.redactor, relay, self.bearer.as_ref()).await {
            Ok(session) => {
                let peer = session.service.peer().clone();
                let generation = generation.wrapping_add(1);
                self.generation.store(generation, Ordering::Relaxed);
                let pid = session.group.as_ref().map(|group| group.pgid);
                self.history.opened(generation, pid, peer.clone());
                *state = State::Up(session, generation);
                Ok(Opened {
                    peer,
                    generation,
                    reopened: was_up,
                })
            }
            Err(cause) => {
                let delay = backoff(failures);
                self.history
                    .attempt_failed(failures.saturating_add(1), &cause, delay);
                *state = State::Down {
                    cause: cause.clone(),
                    retry_at: Instant::now() + delay,
                    failures: failures.saturating_add(1),
                };
                Err(Unavailable(cause))
            }
        }
    }

    /// Whether [`close`](Self::close) ended it for good (read without waiting for the session).
    pub(crate) fn is_shut_down(&self) -> bool {
        self.history.snapshot().phase == Phase::ShutDown
    }

    /// Records that the session of `generation` failed (the transport closed under a call):
    /// the next call opens another one at once. A newer session is left alone.
    pub(crate) async fn failed(&self, generation: u64, cause: &str) {
        let mut state = self.state.lock().await;
        if let State::Up(_, current) = &*state
            && *current == generation
        {
            self.history.closed(generation, cause);
            *state = State::Down {
                cause: cause.to_owned(),
                retry_at: Instant::now(),
                failures: 0,
            };
        }
    }

    /// Whether a session is open, or why not; and the child's process ID (stdio).
    pub(crate) async fn status(&self) -> (SessionState, Option<u32>) {
        match &*self.state.lock().await {
            State::Up(session, _) => {
                let pid = session.group.as_ref().map(|group| group.pgid);
                if alive(session) {
                    (SessionState::Open, pid)
                } else {
                    (
                        SessionState::Down {
                            cause: "the session closed".into(),
                            failures: 0,
                        },
                        pid,
                    )
                }
            }
            State::ShutDown(_) => (SessionState::ShutDown, None),
            State::Down {
                cause, failures, ..
            } => (
                SessionState::Down {
                    cause: cause.clone(),
                    failures: *failures,
                },
                None,
            ),
        }
    }

    /// Whether no call is in flight and no request of the gateway waits for its answer, on
    /// this session or (a credentialed server) on a user's.
    fn idle(&self) -> bool {
        self.pending.available_permits() == MAX_PENDING_CALLS
            && self.calls.idle()
            && self.users.as_ref().is_none_or(Users::idle)
    }

    /// Closes the session once the calls in flight have finished (after [`DRAIN_GRACE`], and
    /// at most the server's `maxTotalTimeout` later, the longest a call may take): a server
    /// that a reconfiguration removed or replaced. Its child's process group is killed.
    pub(crate) async fn drain(&self) {
        let started = Instant::now();
        let deadline = started + DRAIN_GRACE + self.config.timeouts.max_total;
        tokio::time::sleep(DRAIN_GRACE).await;
        while !self.idle() && Instant::now() < deadline {
            tokio::time::sleep(DRAIN_POLL).await;
        }
        let in_flight = MAX_PENDING_CALLS - self.pending.available_permits();
        let drained_ms = u64::try_from(started.elapsed().as_millis()).unwrap_or(u64::MAX);
        tracing::info!(
            target: "toolmodel_rmcp::federation",
            upstream = %self.config.name,
            drained_ms,
            in_flight,
            "upstream drained after a reconfiguration"
        );
        self.end("a reconfiguration removed or replaced the server")
            .await;
    }

    /// Closes the session: the child's process group is killed.
    pub(crate) async fn close(&self) {
        self.end("the federation was shut down").await;
    }

    /// Closes the session for good, and each user's session of a credentialed server (`why`
    /// answers the calls that still come).
    async fn end(&self, why: &'static str) {
        if let Some(users) = &self.users {
            users.close().await;
        }
        let mut state = self.state.lock().await;
        self.history.shut_down();
        if let State::Up(session, _) = std::mem::replace(&mut *state, State::ShutDown(why)) {
            let Session {
                listener,
                service,
                group,
            } = session;
            // Bounded: a server that ignores the end of its input is killed with its group.
            let _ = tokio::time::timeout(Duration::from_secs(2), async {
                if let Some(listener) = listener {
                    listener.close().await;
                }
                service.cancel().await
            })
            .await;
            drop(group);
        }
    }
}

/// The delay after `failures` failures in a row.
fn backoff(failures: u32) -> Duration {
    FIRST_BACKOFF
        .saturating_mul(1u32.checked_shl(failures.min(16)).unwrap_or(u32::MAX))
        .min(MAX_BACKOFF)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn backoff_doubles_from_a_quarter_second_up_to_ten_seconds() {
        let delays: Vec<u128> = (0..8).map(|n| backoff(n).as_millis()).collect();
        assert_eq!(delays, [250, 500, 1000, 2000, 4000, 8000, 10000, 10000]);
        assert_eq!(backoff(u32::MAX), MAX_BACKOFF);
    }
}
