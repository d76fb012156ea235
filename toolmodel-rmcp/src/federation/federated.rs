//! [`Federation`]: the upstream servers of a [`FederationConfig`], their tools in one
//! [`Toolbox`] beside local ones, kept current.

use std::{
    collections::{BTreeMap, HashMap},
    sync::{Arc, Mutex, RwLock, Weak},
};

use rmcp::model::ServerCapabilities;
use toolmodel::{Tool, Toolbox, ToolboxBuilder};

use crate::error::Error;
use crate::federation::config::{FederationConfig, UpstreamConfig};
use crate::federation::credentials::{Callbacks, Credentials, Exchanger, REDIRECT_PATH};
use crate::federation::downstream::Downstream;
use crate::federation::import::{Imported, import};
use crate::federation::names::{Flat, Upstream as Named, flat_names};
use crate::federation::passthrough::{Declared, Passthrough};
use crate::federation::reconfigure::{Reconfigured, renamed};
use crate::federation::servers::{Diff, Servers};
use crate::federation::task_routes::{RemoteNames, UpstreamTaskRoutes};
use crate::federation::upstream::Upstream;
use crate::federation::upstream_call::UpstreamTool;
use crate::lock::{lock, read, write};
use crate::reloadable::Reloadable;
use crate::server::gateway::Backends;
use crate::server::list_changed::ListChanged;
use crate::server::tool_search::Describe;
use crate::server::upstream_tasks::UpstreamTasks;
use crate::task_set::TaskSet;

/// Adds the local tools to a builder; run again for every rebuilt toolbox.
type Local = Box<dyn Fn(ToolboxBuilder) -> ToolboxBuilder + Send + Sync>;

/// Runs with every rebuilt toolbox.
type Watcher = Box<dyn Fn(&Toolbox) + Send + Sync>;

/// Runs with the federation each time its configuration is replaced.
type Reconfigure = Box<dyn Fn(&Federation) + Send + Sync>;

/// MCP servers as the backends of one [`Toolbox`].
///
/// [`start`](Self::start) opens one session per enabled server (in parallel; a child process
/// per stdio server, in its own process group), imports every page of each server's
/// `tools/list` (at most [`MAX_PAGES`](super::MAX_PAGES) pages), names the tools
/// ([`NamePolicy`](super::NamePolicy)) and
/// builds the toolbox: an upstream tool keeps the server's definition with `namespace` = the
/// server's name and `backends` = its [`Backend::Mcp`](toolmodel::Backend::Mcp), so
/// [`Toolbox::call_id`] reaches it as `server:tool`, and [`Toolbox::call`] by its flat name.
/// Calls are validated against the tool's `inputSchema` before anything is sent (the same
/// `isError` feedback as local tools), and answered as the table below says.
///
/// **Faults.** A server unreachable at start does not stop the others: its tools are not
/// listed until its session opens (it is tried again in the background with backoff), and when it answers its tools join the toolbox ([`on_change`](Self::on_change)
/// hears of it; a [`ToolboxServer::gateway`](crate::ToolboxServer::gateway)
/// sends `notifications/tools/list_changed`). A server that fails later keeps its tools
/// listed; they answer an `isError` naming the server and the cause, and the next call after
/// the backoff delay respawns it (stdio) or reconnects (HTTP; a 404 for an expired session
/// starts a new one inside rmcp). An upstream's `notifications/tools/list_changed`, or a new
/// session, imports its tools again. A tool that cannot be served as its server names it is
/// renamed or left out, never the others: it breaks MCP's rules, its name holds the separator
/// `__` of prefixed names, or it would share a name with another tool (see
/// [`NamePolicy`](super::NamePolicy)); [`UpstreamStatus::warnings`] says which and why.
///
/// **Configuration changed live.** [`reconfigure`](Self::reconfigure) replaces the
/// configuration while the federation serves: servers configured as before keep their
/// session and their tools' names, the others are connected, replaced or drained and closed,
/// and the toolbox is rebuilt once (the guide's
/// [Configuration changed live](crate::guide::mcp_backends#configuration-changed-live)).
///
/// **Lifetime.** [`shutdown`](Self::shutdown) closes every session and kills each child's
/// process group; dropping the last `Federation` (and every [`Toolbox`] built from it) kills
/// the groups too.
///
/// # What a call of an upstream tool gives
///
/// The arguments reaching here were validated against the tool's `inputSchema` by the
/// [`Toolbox`] already: bad arguments never cross the network.
///
/// | what happens | the caller gets |
/// |---|---|
/// | the server answers | its `CallToolResult` (then checked against the `outputSchema` by the toolbox) |
/// | the server answers a JSON-RPC error | that error ([`ToolError::protocol`](toolmodel::ToolError::protocol)) |
/// | the server is down, or its session cannot be opened | `isError`: `server "<name>" is unavailable: <cause>` |
/// | more than the server's `maxConcurrentCalls` calls on it (default [`MAX_PENDING_CALLS`](super::MAX_PENDING_CALLS)) | `isError`, at once |
/// | no answer within the server's `timeout` (restarted by progress) or `maxTotalTimeout` | `isError` naming the limit; `notifications/cancelled` sent upstream |
/// | the connection closes during the call (a child process killed) | `isError` naming the cause; the next call opens a new session |
/// | the caller cancels, or the call is dropped (a [`Tool::timeout`](toolmodel::Tool::timeout) fired) | `notifications/cancelled` sent upstream |
/// | the server asks for input with an `InputRequiredResult` (MCP 2026-07-28) | the requests, through [`CallContext::input`](toolmodel::CallContext::input), as local handlers ask: a 2025-11-25 caller is asked and the gateway retries upstream with the answers; a 2026-07-28 caller gets the gateway's own `InputRequiredResult` and its retry goes upstream |
/// | more than [`MAX_INPUT_ROUNDS`](super::MAX_INPUT_ROUNDS) such rounds in one run | `isError` naming the limit |
/// | a server with [`credentials`](super::UpstreamConfig::credentials): the call has no verified access token | `isError`: `server "<name>" is called with each user's own credentials ...` |
/// | such a server: the authorization server refuses the token exchange, or does not answer in time | `isError`: `server "<name>": the authorization server refused the token exchange: <error> (<description>)`, or `... could not be reached ...` |
/// | a server of [`OAuth`](super::Credentials::OAuth) credentials, a user it holds no token for, whose client declared no `elicitation.url` | JSON-RPC error [`URL_ELICITATION_REQUIRED`](super::URL_ELICITATION_REQUIRED) (`-32042`), `data.elicitations` the URL to open |
/// | such a user declines or cancels the URL-mode elicitation | `isError`: `the user declined authorization of server "<name>"` |
/// | such a user's authorization fails (an `error` back from the authorization server, the code refused) or is not finished in [`AUTHORIZATION_TTL`](super::AUTHORIZATION_TTL) | `isError`: `server "<name>": the user's authorization failed: ...` |
///
/// A call of a server with [`credentials`](super::UpstreamConfig::credentials) runs on the
/// caller's own session with a token obtained for it (the guide's "Each user's own
/// credentials upstream"); its tools are imported on the gateway's own session.
///
/// Over a 2026-07-28 session each request also carries the caller's client capabilities (when
/// the gateway knows them: the upstream refuses what the caller cannot answer) and the
/// `io.modelcontextprotocol/logLevel` `debug`, so that the upstream sends its logs (the
/// gateway's own rules then filter them for the caller).
#[derive(Clone)]
pub struct Federation {
    inner: Arc<Shared>,
}

pub(crate) struct Shared {
    /// The configuration in force and its enabled servers' upstreams, replaced whole by
    /// [`Federation::reconfigure`].
    servers: Reloadable<Servers>,
    local: Local,
    /// Each server's imported tools, by server name.
    imported: Mutex<BTreeMap<String, Vec<Tool>>>,
    /// What each server's tools came to, by server name.
    reports: Mutex<BTreeMap<String, Report>>,
    toolbox: RwLock<Toolbox>,
    watchers: Mutex<Vec<Watcher>>,
    /// Told of each new configuration, before the toolbox built from it is installed.
    reconfigure_watchers: Mutex<Vec<Reconfigure>>,
    /// Held from the recording of a server's import to the installation of the toolbox built
    /// with it, so that a toolbox built from an older state is never installed after a newer
    /// one (a re-import finishing during a reconfiguration).
    rebuilding: Mutex<()>,
    /// One reconfiguration at a time.
    reconfiguring: tokio::sync::Mutex<()>,
    /// The upstreams of removed or replaced servers being drained, closed by
    /// [`Federation::shutdown`] too.
    draining: Mutex<Vec<Weak<Upstream>>>,
    /// Why the last rebuild failed, if it did (the previous toolbox stays).
    last_error: Mutex<Option<RebuildError>>,
    /// What each server declared at its last `initialize`.
    declared: Declared,
    /// Each server's `serverInfo` `title` and `description` (one per line) at its last
    /// `initialize`, by server name.
    descriptions: Mutex<BTreeMap<String, String>>,
    /// The gateway's sessions, told of the servers' prompt and resource announcements.
    downstream: Arc<Downstream>,
    /// The gateway's OAuth redirect endpoint, when the configuration at start named one
    /// ([`FederationConfig::redirect_uri`]).
    callbacks: Option<Arc<Callbacks>>,
    /// Each upstream tool's name on its server, by its name in the toolbox.
    remote_names: RemoteNames,
    /// The retries and re-imports running in the background, aborted when the federation
    /// is dropped.
    background: TaskSet,
}

impl std::fmt::Debug for Federation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Federation")
            .field("config", &self.inner.servers.get().config)
            .finish_non_exhaustive()
    }
}

/// One server's state, from [`Federation::status`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct UpstreamStatus {
    /// The server's name.
    pub name: String,
    /// Whether its session is open, or why not.
    pub session: SessionState,
    /// How many of its tools the toolbox holds.
    pub tools: usize,
    /// The process ID of its child process (a stdio server with a session), which leads the
    /// child's process group.
    pub pid: Option<u32>,
    /// Why some of its tools are not served as it names them, one sentence each: its last
    /// `tools/list` failed (the tools imported before are kept), a tool breaks MCP's rules
    /// (left out), a tool's name holds the separator `__` (prefixed, or left out under
    /// [`NamePolicy::Never`](super::NamePolicy::Never)), two tools would share a name (both
    /// left out); see [`NamePolicy`](super::NamePolicy). Each new one is also written to the process's
    /// stderr once, as `warning: server "<name>": <sentence>`.
    pub warnings: Vec<String>,
}

/// Whether an upstream's session is open: [`UpstreamStatus::session`].
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SessionState {
    /// A session is open and can carry requests.
    Open,
    /// No session: none was opened yet, the last one closed, or opening one failed. The next
    /// call or import opens one, after a backoff when opening failed (from
    /// [`FIRST_BACKOFF`](super::FIRST_BACKOFF), doubling up to
    /// [`MAX_BACKOFF`](super::MAX_BACKOFF)).
    Down {
        /// Why, one sentence without the configuration's secrets: `not connected yet`, `the
        /// session closed`, or what opening it gave (the program could not be started, the
        /// connection was refused, the `initialize` handshake failed or timed out, ...).
        cause: String,
        /// How many attempts to open one failed in a row (0 when none failed).
        failures: u32,
    },
    /// [`Federation::shutdown`] closed it; it is not opened again.
    ShutDown,
}

impl SessionState {
    /// Whether a session is open.
    #[must_use]
    pub fn is_open(&self) -> bool {
        matches!(self, Self::Open)
    }
}

/// `open`, the cause of [`Down`](SessionState::Down), or `shut down`.
impl std::fmt::Display for SessionState {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Open => f.write_str("open"),
            Self::Down { cause, .. } => f.write_str(cause),
            Self::ShutDown => f.write_str("shut down"),
        }
    }
}

/// Why the last import or rebuild of a [`Federation`] failed: [`Federation::last_error`].
#[derive(Clone, Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RebuildError {
    /// A server's `tools/list` failed; its tools imported before are kept.
    #[error("server {server:?}: {cause}")]
    Import {
        /// The server's name.
        server: String,
        /// Why, one sentence without the configuration's secrets: a page failed or took
        /// longer than the startup timeout, a cursor repeated, too many pages.
        cause: String,
    },
    /// The toolbox could not be built from the local tools and the imported ones (a local
    /// tool that no longer builds, say); the toolbox before stays in use.
    #[error(transparent)]
    Toolbox(Arc<Error>),
}

/// What one server's tools came to at the last import and build.
#[derive(Clone, Debug, Default)]
struct Report {
    /// Why its last import failed, if it did.
    import_failed: Option<String>,
    /// The tools its last import left out.
    left_out: Vec<String>,
    /// The tools the last build renamed or left out.
    names: Vec<String>,
    /// How many of its tools the toolbox holds.
    served: usize,
}

impl Report {
    /// Every warning, the import's first.
    fn warnings(&self) -> Vec<String> {
        self.import_failed
            .iter()
            .chain(&self.left_out)
            .chain(&self.names)
            .cloned()
            .collect()
    }
}

/// Writes each of `new` that `old` does not hold to stderr, as a warning about `server`.
fn warn_new(server: &str, old: &[String], new: &[String]) {
    for warning in new.iter().filter(|warning| !old.contains(warning)) {
        eprintln!("warning: server {server:?}: {warning}");
    }
}

impl Federation {
    /// Starts a federation of the enabled servers of `config`, no local tools.
    ///
    /// # Errors
    ///
    /// As [`start_with`](Self::start_with).
    pub async fn start(config: FederationConfig) -> Result<Self, Error> {
        Self::start_with(config, |builder| builder).await
    }

    /// The gateway's OAuth redirect endpoint, which its HTTP listener serves at the path of
    /// [`FederationConfig::redirect_uri`] ([`ToolboxServer::gateway`](crate::ToolboxServer::gateway)
    /// mounts it).
    pub(crate) fn callbacks(&self) -> Option<Arc<Callbacks>> {
        self.inner.callbacks.clone()
    }

    /// Starts a federation whose toolbox also holds the local tools `local` adds to a builder
    /// (run again each time the toolbox is rebuilt). A server that cannot be reached is not an
    /// error (see the [type docs](Self)), nor is a server's tool that cannot be served (it is
    /// left out, the others are served); [`status`](Self::status) says why.
    ///
    /// # Errors
    ///
    /// [`Error::Toolmodel`] when the local tools do not build into a toolbox;
    /// [`Error::Config`] at `/mcpServers/<name>/toolmodelCredentials` for a server with
    /// [`credentials`](crate::federation::UpstreamConfig::credentials) when the configuration
    /// has no [`exchange_client`](FederationConfig::exchange_client).
    pub async fn start_with(
        config: FederationConfig,
        local: impl Fn(ToolboxBuilder) -> ToolboxBuilder + Send + Sync + 'static,
    ) -> Result<Self, Error> {
        let local: Local = Box::new(local);
        let empty = local(Toolbox::builder()).build()?;
        let exchanger = exchanger(&config)?;
        let callbacks = callbacks(&config).await?;
        let downstream = Arc::new(Downstream::default());
        let inner = Arc::new_cyclic(|weak: &Weak<Shared>| {
            let upstreams = config
                .enabled()
                .map(|server| {
                    new_upstream(
                        weak,
                        server,
                        &downstream,
                        (exchanger.as_ref(), callbacks.as_ref()),
                    )
                })
                .collect();
            Shared {
                servers: Reloadable::new(Servers {
                    config,
                    upstreams,
                    exchanger,
                }),
                local,
                imported: Mutex::default(),
                reports: Mutex::default(),
                toolbox: RwLock::new(empty),
                watchers: Mutex::default(),
                reconfigure_watchers: Mutex::default(),
                rebuilding: Mutex::default(),
                reconfiguring: tokio::sync::Mutex::default(),
                draining: Mutex::default(),
                last_error: Mutex::default(),
                declared: Declared::default(),
                descriptions: Mutex::default(),
                downstream,
                callbacks,
                remote_names: RemoteNames::default(),
                background: TaskSet::default(),
            }
        });
        let servers = inner.servers.get();
        let fetched = fetch_all(&servers.upstreams).await;
        {
            let _one = lock(&inner.rebuilding);
            inner.record_first(&servers.upstreams, fetched);
            let toolbox = inner.build(&servers)?;
            inner.install(toolbox);
        }
        Ok(Self { inner })
    }

    /// Replaces the configuration with `new` while the federation serves, server by server
    /// (matched by name; a server is unchanged when its whole [`UpstreamConfig`] is equal):
    ///
    /// - **unchanged** servers keep their upstream: the same session, the same child process,
    ///   their calls in flight untouched, their tools' names the same (but see
    ///   [`Renamed`](super::Renamed));
    /// - **added** servers are connected and their tools imported, all at once, as
    ///   [`start`](Self::start) does, while the running toolbox goes on serving; one that does
    ///   not answer (within its `startupTimeout`) is tried again in the background;
    /// - **changed** servers get a new session (a new child process) the same way, and the
    ///   old one is **drained**: the calls in flight on it finish (after
    ///   [`DRAIN_GRACE`](super::DRAIN_GRACE), at most the server's `maxTotalTimeout` later),
    ///   then its session is closed and its child's process group killed;
    /// - **removed** (or disabled) servers are drained and closed the same way.
    ///
    /// Once the new servers have answered or failed, the toolbox is rebuilt once and
    /// installed: [`on_change`](Self::on_change) watchers run (a
    /// [`ToolboxServer::gateway`](crate::ToolboxServer::gateway) sends
    /// `notifications/tools/list_changed` and applies the new `toolmodelPolicy` from the
    /// next request on). Calls that started before finish on the toolbox they started with.
    /// A task of the tasks extension on a changed or removed server is lost with its
    /// session. Reconfigurations run one at a time, in the order they were asked for.
    ///
    /// The configuration was checked when it was built ([`FederationConfig::from_json`],
    /// [`FederationConfigBuilder::build`](super::FederationConfigBuilder::build)): a bad one
    /// never reaches here, and the one in force stays.
    ///
    /// ```
    /// use toolmodel_rmcp::federation::{Federation, FederationConfig};
    ///
    /// # #[tokio::main(flavor = "current_thread")]
    /// # async fn main() -> Result<(), toolmodel_rmcp::Error> {
    /// let federation = Federation::start(FederationConfig::builder().build()?).await?;
    /// let reloaded = federation.reconfigure(FederationConfig::builder().build()?).await?;
    /// assert_eq!(reloaded.to_string(), "added [] removed [] changed []");
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::Toolmodel`] when the toolbox cannot be built from the local tools and the
    /// imported ones; the new configuration is in force all the same, and the toolbox before
    /// is served until a rebuild succeeds ([`last_error`](Self::last_error) says why, as
    /// after any failed rebuild).
    pub async fn reconfigure(&self, mut new: FederationConfig) -> Result<Reconfigured, Error> {
        let inner = &self.inner;
        let _one_at_a_time = inner.reconfiguring.lock().await;
        let current = inner.servers.get();
        // The same rules keep their buckets (and their sharing through Redis).
        if new.rate_limits == current.config.rate_limits {
            new.rate_limits.clone_from(&current.config.rate_limits);
        }
        // The exchange client's tokens stay cached while the client is the same.
        let exchanger = match &current.exchanger {
            Some(old) if new.exchange_client == current.config.exchange_client => {
                Some(Arc::clone(old))
            }
            _ => exchanger(&new)?,
        };
        let new_exchanger = match (&current.exchanger, &exchanger) {
            (Some(old), Some(now)) => !Arc::ptr_eq(old, now),
            (old, now) => old.is_some() != now.is_some(),
        };
        if inner.callbacks.is_none() {
            check_no_oauth(&new)?;
        }
        let diff = Diff::new(&current, &new, new_exchanger);
        let weak = Arc::downgrade(inner);
        let issuers = (exchanger.as_ref(), inner.callbacks.as_ref());
        let fresh: Vec<Arc<Upstream>> = diff
            .added
            .iter()
            .chain(&diff.changed)
            .map(|server| new_upstream(&weak, server, &inner.downstream, issuers))
            .collect();
        let fetched = fetch_all(&fresh).await;
        let names = |servers: &[&UpstreamConfig]| -> Vec<String> {
            servers.iter().map(|server| server.name.clone()).collect()
        };
        let names_of = |upstreams: &[Arc<Upstream>]| -> Vec<String> {
            upstreams
                .iter()
                .map(|upstream| upstream.config.name.clone())
                .collect()
        };
        let mut report = Reconfigured {
            added: names(&diff.added),
            removed: names_of(&diff.removed),
            changed: names(&diff.changed),
            unchanged: names_of(&diff.kept),
            unavailable: fresh
                .iter()
                .zip(&fetched)
                .filter(|(_, fetched)| fetched.imported.is_none())
                .map(|(upstream, _)| upstream.config.name.clone())
                .collect(),
            renamed: Vec::new(),
            tool_policy_changed: current.config.tool_policy != new.tool_policy,
        };
        report.unavailable.sort();
        let upstreams: Vec<Arc<Upstream>> = new
            .enabled()
            .filter_map(|server| {
                diff.kept
                    .iter()
                    .chain(&fresh)
                    .find(|upstream| upstream.config.name == server.name)
                    .cloned()
            })
            .collect();
        let retired: Vec<Arc<Upstream>> = diff.removed.into_iter().chain(diff.replaced).collect();
        let built = {
            let _one = lock(&inner.rebuilding);
            let before = self.toolbox();
            inner.servers.set(Servers {
                config: new,
                upstreams,
                exchanger,
            });
            for old in &retired {
                inner.forget(&old.config.name);
            }
            inner.record_first(&fresh, fetched);
            for watcher in lock(&inner.reconfigure_watchers).iter() {
                watcher(self);
            }
            let built = inner.rebuild();
            report.renamed = renamed(&before, &self.toolbox(), &report.unchanged);
            built
        };
        lock(&inner.draining).retain(|upstream| upstream.strong_count() > 0);
        for upstream in retired {
            lock(&inner.draining).push(Arc::downgrade(&upstream));
            inner
                .background
                .spawn(async move { upstream.drain().await });
        }
        built?;
        Ok(report)
    }

    /// The current toolbox (rebuilt when an upstream's tools change).
    #[must_use]
    pub fn toolbox(&self) -> Toolbox {
        read(&self.inner.toolbox).clone()
    }

    /// Runs `watcher` with every rebuilt toolbox (not the current one).
    pub fn on_change(&self, watcher: impl Fn(&Toolbox) + Send + Sync + 'static) {
        lock(&self.inner.watchers).push(Box::new(watcher));
    }

    /// The configuration in force: the one it started with, or the last one
    /// [`reconfigure`](Self::reconfigure) was given.
    #[must_use]
    pub fn config(&self) -> FederationConfig {
        self.inner.servers.get().config.clone()
    }

    /// Each enabled server's state, sorted by name.
    pub async fn status(&self) -> Vec<UpstreamStatus> {
        let servers = self.inner.servers.get();
        let mut all = Vec::with_capacity(servers.upstreams.len());
        for upstream in &servers.upstreams {
            let report = lock(&self.inner.reports)
                .get(&upstream.config.name)
                .cloned()
                .unwrap_or_default();
            let (session, pid) = upstream.status().await;
            all.push(UpstreamStatus {
                name: upstream.config.name.clone(),
                session,
                tools: report.served,
                pid,
                warnings: report.warnings(),
            });
        }
        all
    }

    /// Why the last import or rebuild failed, if it did: a server's `tools/list` (that
    /// server's tools imported before are kept, and its [`UpstreamStatus::warnings`] says so
    /// too), or the local tools (the toolbox before stays in use). `None` again once a
    /// rebuild succeeds.
    #[must_use]
    pub fn last_error(&self) -> Option<RebuildError> {
        lock(&self.inner.last_error).clone()
    }

    /// Closes every session (those being drained after a [`reconfigure`](Self::reconfigure)
    /// too) and kills each child process's group; calls after this answer `isError`.
    pub async fn shutdown(&self) {
        let draining: Vec<Arc<Upstream>> = lock(&self.inner.draining)
            .drain(..)
            .filter_map(|upstream| upstream.upgrade())
            .collect();
        for upstream in self.inner.servers.get().upstreams.iter().chain(&draining) {
            upstream.close().await;
        }
    }
}

/// The seam to the server ([`ToolboxServer::gateway`](crate::ToolboxServer::gateway)).
impl Backends for Federation {
    type Handler = Passthrough;

    fn toolbox(&self) -> Toolbox {
        Federation::toolbox(self)
    }

    fn on_change(&self, watcher: Box<dyn Fn(&Toolbox) + Send + Sync>) {
        Federation::on_change(self, watcher);
    }

    fn on_reconfigure(&self, watcher: Box<dyn Fn(&Self) + Send + Sync>) {
        lock(&self.inner.reconfigure_watchers).push(watcher);
    }

    fn handler(&self) -> Passthrough {
        Passthrough::new(
            self.inner.servers.downgrade(),
            Arc::clone(&self.inner.declared),
            Arc::clone(&self.inner.downstream),
        )
    }

    fn announce_to(&self, sessions: ListChanged) {
        self.inner.downstream.serve(sessions);
    }

    fn tool_policy(&self) -> Option<crate::server::ToolPolicy> {
        self.inner.servers.get().config.tool_policy.clone()
    }

    fn rate_limits(&self) -> Option<crate::server::RateLimits> {
        self.inner.servers.get().config.rate_limits.clone()
    }

    fn descriptions(&self) -> Describe {
        let inner = Arc::downgrade(&self.inner);
        Arc::new(move |server: &str| lock(&inner.upgrade()?.descriptions).get(server).cloned())
    }

    fn tasks(&self) -> Arc<dyn UpstreamTasks> {
        Arc::new(UpstreamTaskRoutes::new(
            self.inner.servers.downgrade(),
            Arc::clone(&self.inner.declared),
            Arc::clone(&self.inner.remote_names),
        ))
    }
}

/// What opening a server's session and importing its tools gave, before it is recorded.
#[derive(Default)]
struct Fetched {
    /// What the server said of itself at `initialize`: its capabilities, and its
    /// `serverInfo` `title` and `description` (one per line); `None` when no session opened.
    declared: Option<(ServerCapabilities, Option<String>)>,
    /// Its tools, or why they could not be imported; `None` when no session opened.
    imported: Option<Result<Imported, String>>,
}

/// Opens `upstream`'s session and imports its tools.
async fn fetch(upstream: &Upstream) -> Fetched {
    let Ok(opened) = upstream.peer().await else {
        return Fetched::default();
    };
    let declared = opened.peer.peer_info().map(|info| {
        let said: Vec<&str> = info
            .server_info
            .iter()
            .flat_map(|server| [&server.title, &server.description])
            .flatten()
            .map(String::as_str)
            .collect();
        (
            info.capabilities.clone(),
            (!said.is_empty()).then(|| said.join("\n")),
        )
    });
    let imported = import(&upstream.config, &upstream.redactor, &opened.peer).await;
    Fetched {
        declared,
        imported: Some(imported),
    }
}

/// [`fetch`] of every one of `upstreams` at once, in their order. One whose task panicked is
/// said on stderr and counts as not opened.
async fn fetch_all(upstreams: &[Arc<Upstream>]) -> Vec<Fetched> {
    let mut tasks = tokio::task::JoinSet::new();
    let mut servers = HashMap::with_capacity(upstreams.len());
    for (index, upstream) in upstreams.iter().enumerate() {
        let upstream = Arc::clone(upstream);
        let task = tasks.spawn(async move { fetch(&upstream).await });
        servers.insert(task.id(), index);
    }
    let mut fetched: Vec<Fetched> = upstreams.iter().map(|_| Fetched::default()).collect();
    while let Some(joined) = tasks.join_next_with_id().await {
        match joined {
            Ok((id, done)) => {
                if let Some(slot) = servers.get(&id).and_then(|&i| fetched.get_mut(i)) {
                    *slot = done;
                }
            }
            Err(err) => {
                let server = servers
                    .get(&err.id())
                    .and_then(|&i| upstreams.get(i))
                    .map_or("?", |upstream| upstream.config.name.as_str());
                eprintln!("warning: server {server:?}: opening its first session failed: {err}");
            }
        }
    }
    fetched
}

/// A new upstream for `server` of the federation `weak`, whose tools are imported again when
/// it says they changed.
/// `issuers`: the gateway's exchange client and its redirect endpoint, for a credentialed
/// server.
fn new_upstream(
    weak: &Weak<Shared>,
    server: &UpstreamConfig,
    downstream: &Arc<Downstream>,
    issuers: (Option<&Arc<Exchanger>>, Option<&Arc<Callbacks>>),
) -> Arc<Upstream> {
    let weak = weak.clone();
    let name = server.name.clone();
    Arc::new(Upstream::new(
        server.clone(),
        Arc::new(move || reimport_later(&weak, &name)),
        Arc::clone(downstream),
        issuers,
    ))
}

impl Shared {
    /// Records what `fetched` gave for `upstream` (what it declared, its tools, its report);
    /// false when its session did not open or its tools could not be imported.
    fn record(&self, upstream: &Upstream, fetched: Fetched) -> bool {
        let name = &upstream.config.name;
        let Some(imported) = fetched.imported else {
            return false;
        };
        if let Some((capabilities, said)) = fetched.declared {
            // A credentialed server's prompts, resources and tasks are not served (its shared
            // session runs as the gateway): its capabilities are not offered either.
            if upstream.config.credentials.is_none() {
                lock(&self.declared).insert(name.clone(), capabilities);
            }
            let mut descriptions = lock(&self.descriptions);
            match said {
                Some(said) => descriptions.insert(name.clone(), said),
                None => descriptions.remove(name),
            };
        }
        let mut reports = lock(&self.reports);
        let report = reports.entry(name.clone()).or_default();
        let old = report.warnings();
        let ok = match imported {
            Ok(imported) => {
                lock(&self.imported).insert(name.clone(), imported.tools);
                report.import_failed = None;
                report.left_out = imported.warnings;
                true
            }
            Err(cause) => {
                *lock(&self.last_error) = Some(RebuildError::Import {
                    server: name.clone(),
                    cause: cause.clone(),
                });
                report.import_failed = Some(format!(
                    "its tools could not be imported, those imported before are kept: {cause}"
                ));
                false
            }
        };
        warn_new(name, &old, &report.warnings());
        ok
    }

    /// Records the first sessions of new `upstreams` ([`fetch_all`]), and keeps each in the
    /// background: one that did not open (or import) is tried again, and each is opened again
    /// when its session closes.
    fn record_first(self: &Arc<Self>, upstreams: &[Arc<Upstream>], fetched: Vec<Fetched>) {
        for (upstream, fetched) in upstreams.iter().zip(fetched) {
            if !self.record(upstream, fetched) {
                spawn_retry(Arc::downgrade(self), Arc::clone(upstream));
            }
            spawn_reopening(Arc::downgrade(self), Arc::clone(upstream));
        }
    }

    /// Forgets what the server `name` declared and imported (a reconfiguration removed or
    /// replaced it).
    fn forget(&self, name: &str) {
        lock(&self.imported).remove(name);
        lock(&self.reports).remove(name);
        lock(&self.declared).remove(name);
        lock(&self.descriptions).remove(name);
    }

    /// A toolbox of the local tools and every imported tool of `servers` named by their
    /// configuration's policy (those the policy leaves out are reported in their server's
    /// [`Report`]).
    ///
    /// # Errors
    ///
    /// The builder's error when the local tools do not build into a toolbox.
    fn build(self: &Arc<Self>, servers: &Servers) -> Result<Toolbox, toolmodel::Error> {
        let local_names: Vec<String> = (self.local)(Toolbox::builder())
            .build()?
            .tools()
            .iter()
            .map(|tool| tool.name.clone())
            .collect();
        let reserved: Vec<&str> = local_names.iter().map(String::as_str).collect();
        let imported = lock(&self.imported).clone();
        let tools: Vec<(&str, &Tool)> = imported
            .iter()
            .flat_map(|(server, tools)| tools.iter().map(move |tool| (server.as_str(), tool)))
            .collect();
        let named: Vec<Named<'_>> = tools
            .iter()
            .map(|(server, tool)| Named {
                server,
                tool: &tool.name,
            })
            .collect();
        let flat = flat_names(servers.config.tool_names, &reserved, &named);
        let mut builder = (self.local)(Toolbox::builder());
        let mut remote_names = HashMap::with_capacity(tools.len());
        let mut names: BTreeMap<&str, (Vec<String>, usize)> = imported
            .keys()
            .map(|server| (server.as_str(), (Vec::new(), 0)))
            .collect();
        for ((server, tool), outcome) in tools.into_iter().zip(flat) {
            let entry = names.entry(server).or_default();
            entry.0.extend(outcome.warning(&tool.name));
            let (Flat::Served(name) | Flat::Prefixed(name)) = outcome else {
                continue;
            };
            entry.1 += 1;
            let Some(upstream) = servers.named(server) else {
                continue;
            };
            remote_names.insert(name.clone(), tool.name.clone());
            let weak = Arc::downgrade(self);
            let handler = UpstreamTool {
                upstream: Arc::clone(upstream),
                remote: Arc::from(tool.name.as_str()),
                reopened: Arc::new(move |server: &str| reimport_later(&weak, server)),
            };
            builder = builder.with_tool_as(name, tool.clone(), move |arguments, cx| {
                handler.clone().call(arguments, cx)
            });
        }
        let toolbox = builder.build()?;
        *write(&self.remote_names) = remote_names;
        let mut reports = lock(&self.reports);
        for (server, (warnings, served)) in names {
            let report = reports.entry(server.to_owned()).or_default();
            warn_new(server, &report.names, &warnings);
            report.names = warnings;
            report.served = served;
        }
        Ok(toolbox)
    }

    /// Makes `toolbox` the current one and tells the watchers.
    fn install(&self, toolbox: Toolbox) {
        *write(&self.toolbox) = toolbox.clone();
        for watcher in lock(&self.watchers).iter() {
            watcher(&toolbox);
        }
    }

    /// Imports `server`'s tools again and rebuilds the toolbox.
    async fn reimport(self: &Arc<Self>, server: &str) {
        let Some(upstream) = self.servers.get().named(server).cloned() else {
            return;
        };
        let fetched = fetch(&upstream).await;
        let _one = lock(&self.rebuilding);
        // A reconfiguration replaced or removed it meanwhile: its tools are not served.
        if !self.servers.get().holds(&upstream) || !self.record(&upstream, fetched) {
            return;
        }
        // The failure is in `last_error`.
        let _ = self.rebuild();
    }

    /// Builds the toolbox of the servers in force and installs it; on failure the toolbox
    /// before stays, and [`last_error`](Federation::last_error) says why. The caller holds
    /// `rebuilding`.
    fn rebuild(self: &Arc<Self>) -> Result<(), toolmodel::Error> {
        match self.build(&self.servers.get()) {
            Ok(toolbox) => {
                *lock(&self.last_error) = None;
                self.install(toolbox);
                Ok(())
            }
            Err(err) => {
                *lock(&self.last_error) = Some(RebuildError::Toolbox(Arc::new(Error::Toolmodel(
                    err.clone(),
                ))));
                Err(err)
            }
        }
    }
}

/// The gateway's client for its servers' credentials, when one has
/// [`credentials`](crate::federation::UpstreamConfig::credentials).
///
/// # Errors
///
/// [`Error::Config`] about the first such server when `config` has no exchange client, or
/// when its HTTP client cannot be built.
fn exchanger(config: &FederationConfig) -> Result<Option<Arc<Exchanger>>, Error> {
    let Some(server) = config
        .enabled()
        .find(|server| matches!(server.credentials, Some(Credentials::TokenExchange(_))))
    else {
        return Ok(None);
    };
    let Some(client) = &config.exchange_client else {
        return Err(Error::config(
            &server.name,
            "/toolmodelCredentials",
            "the gateway has no OAuth client of its own to obtain users' tokens with: give it one (toolmodel gateway: --auth-issuer, --exchange-client-id and MCP_EXCHANGE_CLIENT_SECRET)".into(),
        ));
    };
    Exchanger::new(client.clone())
        .map(Some)
        .map_err(|message| Error::config(&server.name, "/toolmodelCredentials", message))
}

/// The gateway's redirect endpoint, when `config` names its URL.
///
/// # Errors
///
/// [`Error::Config`] about the first server of `oauth` credentials when `config` names no
/// redirect URI ([`check_no_oauth`]), or one that is not an absolute `http(s)` URL without a
/// fragment (RFC 6749 §3.1.2), or when its HTTP client cannot be built;
/// [`Error::TokenStore`] when its [`token_store`](FederationConfig::token_store) cannot be
/// reached.
async fn callbacks(config: &FederationConfig) -> Result<Option<Arc<Callbacks>>, Error> {
    let Some(redirect_uri) = &config.redirect_uri else {
        check_no_oauth(config)?;
        return Ok(None);
    };
    let at = |message: String| match config
        .enabled()
        .find(|server| matches!(server.credentials, Some(Credentials::OAuth(_))))
    {
        Some(server) => Error::config(&server.name, "/toolmodelCredentials/oauth", message),
        None => Error::Config {
            server: None,
            pointer: String::new(),
            message,
            source: None,
        },
    };
    let url = url::Url::parse(redirect_uri)
        .ok()
        .filter(|url| matches!(url.scheme(), "http" | "https") && url.fragment().is_none())
        .ok_or_else(|| {
            at(format!(
                "the gateway's redirect URI {redirect_uri:?} is not an absolute http(s) URL without a fragment (RFC 6749 §3.1.2)"
            ))
        })?;
    #[cfg(feature = "redis")]
    let store = match &config.token_store {
        Some(store) => Some(crate::federation::credentials::Sealed::connect(store).await?),
        None => None,
    };
    Callbacks::new(
        url,
        #[cfg(feature = "redis")]
        store,
    )
    .map(Some)
    .map_err(at)
}

/// [`Error::Config`] about the first server of `oauth` credentials in `config`, which the
/// gateway cannot serve without a redirect endpoint.
fn check_no_oauth(config: &FederationConfig) -> Result<(), Error> {
    match config
        .enabled()
        .find(|server| matches!(server.credentials, Some(Credentials::OAuth(_))))
    {
        Some(server) => Err(Error::config(
            &server.name,
            "/toolmodelCredentials/oauth",
            format!(
                "the gateway has no OAuth redirect endpoint for its users' authorizations: give it a public URL (toolmodel gateway: --resource, whose origin followed by {REDIRECT_PATH} is the endpoint)"
            ),
        )),
        None => Ok(()),
    }
}

/// Re-imports `server`'s tools on a task of its own (the caller is an rmcp handler or a call,
/// which must not wait for it).
fn reimport_later(weak: &Weak<Shared>, server: &str) {
    let (Some(inner), Ok(runtime)) = (weak.upgrade(), tokio::runtime::Handle::try_current()) else {
        return;
    };
    let server = server.to_owned();
    let task = Arc::clone(&inner);
    inner
        .background
        .spawn_on(&runtime, async move { task.reimport(&server).await });
}

/// Tries to open `upstream`'s session in the background until it opens (with the upstream's
/// backoff), then imports its tools; ends when the federation is dropped.
fn spawn_retry(weak: Weak<Shared>, upstream: Arc<Upstream>) {
    let (Some(inner), Ok(runtime)) = (weak.upgrade(), tokio::runtime::Handle::try_current()) else {
        return;
    };
    inner
        .background
        .spawn_on(&runtime, async move { reopen(&weak, &upstream).await });
}

/// Each time `upstream`'s open session closes under the gateway (its child crashed, its
/// connection dropped), opens a new one in the background as [`spawn_retry`] does, so the
/// gateway's readiness and catalog follow without waiting for a call; ends when the federation
/// is dropped.
fn spawn_reopening(weak: Weak<Shared>, upstream: Arc<Upstream>) {
    let (Some(inner), Ok(runtime)) = (weak.upgrade(), tokio::runtime::Handle::try_current()) else {
        return;
    };
    let closed = upstream.history.closed_signal();
    inner.background.spawn_on(&runtime, async move {
        loop {
            closed.notified().await;
            if upstream.is_shut_down() {
                return;
            }
            reopen(&weak, &upstream).await;
        }
    });
}

/// Opens `upstream`'s session after the backoff (doubling while it fails), then imports its
/// tools; returns then, or when the federation is dropped.
async fn reopen(weak: &Weak<Shared>, upstream: &Upstream) {
    let mut delay = super::FIRST_BACKOFF;
    loop {
        tokio::time::sleep(delay).await;
        delay = (delay * 2).min(super::MAX_BACKOFF);
        let Some(inner) = weak.upgrade() else {
            return;
        };
        if upstream.is_shut_down() {
            return;
        }
        if upstream.peer().await.is_ok() {
            if inner.servers.get().holds(upstream) {
                inner.reimport(&upstream.config.name).await;
            }
            return;
        }
    }
}

/// Read-only views for the admin listener (`crate::admin`) and the upstream gauges
/// (`crate::telemetry`): never waits for a session.
impl Federation {
    /// A reference that does not keep the federation alive.
    #[cfg(feature = "otel")]
    pub(crate) fn downgrade(&self) -> Weak<Shared> {
        Arc::downgrade(&self.inner)
    }

    /// The federation of `weak`, while it lives.
    #[cfg(feature = "otel")]
    pub(crate) fn upgrade(weak: &Weak<Shared>) -> Option<Self> {
        weak.upgrade().map(|inner| Self { inner })
    }

    /// Each enabled server's upstream, in configuration order, with how many of its tools the
    /// toolbox holds.
    pub(crate) fn upstreams_served(&self) -> Vec<(Arc<Upstream>, usize)> {
        let servers = self.inner.servers.get();
        let reports = lock(&self.inner.reports);
        servers
            .upstreams
            .iter()
            .map(|upstream| {
                let served = reports
                    .get(&upstream.config.name)
                    .map_or(0, |report| report.served);
                (Arc::clone(upstream), served)
            })
            .collect()
    }
}
