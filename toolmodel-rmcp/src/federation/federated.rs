//! [`Federation`]: the upstream servers of a [`FederationConfig`], their tools in one
//! [`Toolbox`] beside local ones, kept current.

use std::{
    collections::{BTreeMap, HashMap},
    sync::{Arc, Mutex, RwLock, Weak},
};

use toolmodel::{Tool, Toolbox, ToolboxBuilder};

use crate::error::Error;
use crate::federation::config::FederationConfig;
use crate::federation::downstream::Downstream;
use crate::federation::import::import;
use crate::federation::names::{Flat, Upstream as Named, flat_names};
use crate::federation::passthrough::{Declared, Passthrough};
use crate::federation::task_routes::{RemoteNames, UpstreamTaskRoutes};
use crate::federation::upstream::Upstream;
use crate::federation::upstream_call::UpstreamTool;
use crate::lock::{lock, read, write};
use crate::server::gateway::Backends;
use crate::server::list_changed::ListChanged;
use crate::server::tool_search::Describe;
use crate::server::upstream_tasks::UpstreamTasks;
use crate::task_set::TaskSet;

/// Adds the local tools to a builder; run again for every rebuilt toolbox.
type Local = Box<dyn Fn(ToolboxBuilder) -> ToolboxBuilder + Send + Sync>;

/// Runs with every rebuilt toolbox.
type Watcher = Box<dyn Fn(&Toolbox) + Send + Sync>;

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
    config: FederationConfig,
    upstreams: Vec<Arc<Upstream>>,
    local: Local,
    /// Each server's imported tools, by server name.
    imported: Mutex<BTreeMap<String, Vec<Tool>>>,
    /// What each server's tools came to, by server name.
    reports: Mutex<BTreeMap<String, Report>>,
    toolbox: RwLock<Toolbox>,
    watchers: Mutex<Vec<Watcher>>,
    /// Why the last rebuild failed, if it did (the previous toolbox stays).
    last_error: Mutex<Option<RebuildError>>,
    /// What each server declared at its last `initialize`.
    declared: Declared,
    /// Each server's `serverInfo` `title` and `description` (one per line) at its last
    /// `initialize`, by server name.
    descriptions: Mutex<BTreeMap<String, String>>,
    /// The gateway's sessions, told of the servers' prompt and resource announcements.
    downstream: Arc<Downstream>,
    /// Each upstream tool's name on its server, by its name in the toolbox.
    remote_names: RemoteNames,
    /// The retries and re-imports running in the background, aborted when the federation
    /// is dropped.
    background: TaskSet,
}

impl std::fmt::Debug for Federation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Federation")
            .field("config", &self.inner.config)
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

    /// Starts a federation whose toolbox also holds the local tools `local` adds to a builder
    /// (run again each time the toolbox is rebuilt). A server that cannot be reached is not an
    /// error (see the [type docs](Self)), nor is a server's tool that cannot be served (it is
    /// left out, the others are served); [`status`](Self::status) says why.
    ///
    /// # Errors
    ///
    /// [`Error::Toolmodel`] when the local tools do not build into a toolbox.
    pub async fn start_with(
        config: FederationConfig,
        local: impl Fn(ToolboxBuilder) -> ToolboxBuilder + Send + Sync + 'static,
    ) -> Result<Self, Error> {
        let local: Local = Box::new(local);
        let empty = local(Toolbox::builder()).build()?;
        let downstream = Arc::new(Downstream::default());
        let inner = Arc::new_cyclic(|weak: &Weak<Shared>| {
            let upstreams = config
                .enabled()
                .map(|server| {
                    let weak = weak.clone();
                    let name = server.name.clone();
                    Arc::new(Upstream::new(
                        server.clone(),
                        Arc::new(move || reimport_later(&weak, &name)),
                        Arc::clone(&downstream),
                    ))
                })
                .collect();
            Shared {
                config,
                upstreams,
                local,
                imported: Mutex::default(),
                reports: Mutex::default(),
                toolbox: RwLock::new(empty),
                watchers: Mutex::default(),
                last_error: Mutex::default(),
                declared: Declared::default(),
                descriptions: Mutex::default(),
                downstream,
                remote_names: RemoteNames::default(),
                background: TaskSet::default(),
            }
        });
        // Every first session at once. One whose task panicked is said on stderr and retried
        // like a failed one.
        let mut firsts = tokio::task::JoinSet::new();
        let mut servers = HashMap::with_capacity(inner.upstreams.len());
        for (index, upstream) in inner.upstreams.iter().enumerate() {
            let inner = Arc::clone(&inner);
            let upstream = Arc::clone(upstream);
            let task = firsts.spawn(async move { inner.connect_and_import(&upstream).await });
            servers.insert(task.id(), index);
        }
        let mut opened = vec![false; inner.upstreams.len()];
        while let Some(joined) = firsts.join_next_with_id().await {
            match joined {
                Ok((id, ok)) => {
                    if let Some(slot) = servers.get(&id).and_then(|&i| opened.get_mut(i)) {
                        *slot = ok;
                    }
                }
                Err(err) => {
                    let server = servers
                        .get(&err.id())
                        .and_then(|&i| inner.upstreams.get(i))
                        .map_or("?", |upstream| upstream.config.name.as_str());
                    eprintln!(
                        "warning: server {server:?}: opening its first session failed: {err}"
                    );
                }
            }
        }
        for (upstream, ok) in inner.upstreams.iter().zip(opened) {
            if !ok {
                spawn_retry(Arc::downgrade(&inner), Arc::clone(upstream));
            }
            spawn_reopening(Arc::downgrade(&inner), Arc::clone(upstream));
        }
        let toolbox = inner.build()?;
        inner.install(toolbox);
        Ok(Self { inner })
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

    /// Each enabled server's state, sorted by name.
    pub async fn status(&self) -> Vec<UpstreamStatus> {
        let mut all = Vec::with_capacity(self.inner.upstreams.len());
        for upstream in &self.inner.upstreams {
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

    /// Closes every session and kills each child process's group; calls after this answer
    /// `isError`.
    pub async fn shutdown(&self) {
        for upstream in &self.inner.upstreams {
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

    fn handler(&self) -> Passthrough {
        Passthrough::new(
            &self.inner.upstreams,
            self.inner.config.tool_names,
            Arc::clone(&self.inner.declared),
            Arc::clone(&self.inner.downstream),
        )
    }

    fn announce_to(&self, sessions: ListChanged) {
        self.inner.downstream.serve(sessions);
    }

    fn tool_policy(&self) -> Option<crate::server::ToolPolicy> {
        self.inner.config.tool_policy.clone()
    }

    fn rate_limits(&self) -> Option<crate::server::RateLimits> {
        self.inner.config.rate_limits.clone()
    }

    fn descriptions(&self) -> Describe {
        let inner = Arc::downgrade(&self.inner);
        Arc::new(move |server: &str| lock(&inner.upgrade()?.descriptions).get(server).cloned())
    }

    fn tasks(&self) -> Arc<dyn UpstreamTasks> {
        Arc::new(UpstreamTaskRoutes::new(
            &self.inner.upstreams,
            Arc::clone(&self.inner.declared),
            Arc::clone(&self.inner.remote_names),
        ))
    }
}

impl Shared {
    /// Opens `upstream`'s session and imports its tools; false when either failed.
    async fn connect_and_import(&self, upstream: &Upstream) -> bool {
        let Ok(opened) = upstream.peer().await else {
            return false;
        };
        if let Some(info) = opened.peer.peer_info() {
            lock(&self.declared).insert(upstream.config.name.clone(), info.capabilities.clone());
            let mut descriptions = lock(&self.descriptions);
            let said: Vec<&str> = info
                .server_info
                .iter()
                .flat_map(|server| [&server.title, &server.description])
                .flatten()
                .map(String::as_str)
                .collect();
            if said.is_empty() {
                descriptions.remove(&upstream.config.name);
            } else {
                descriptions.insert(upstream.config.name.clone(), said.join("\n"));
            }
        }
        let name = &upstream.config.name;
        let imported = import(&upstream.config, &upstream.redactor, &opened.peer).await;
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

    /// A toolbox of the local tools and every imported tool named by the policy (those the
    /// policy leaves out are reported in their server's [`Report`]).
    ///
    /// # Errors
    ///
    /// [`Error::Toolmodel`] when the local tools do not build into a toolbox.
    fn build(self: &Arc<Self>) -> Result<Toolbox, Error> {
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
        let flat = flat_names(self.config.tool_names, &reserved, &named);
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
            let Some(upstream) = self
                .upstreams
                .iter()
                .find(|upstream| upstream.config.name == server)
            else {
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
        let Some(upstream) = self
            .upstreams
            .iter()
            .find(|upstream| upstream.config.name == server)
        else {
            return;
        };
        if !self.connect_and_import(upstream).await {
            return;
        }
        match self.build() {
            Ok(toolbox) => {
                *lock(&self.last_error) = None;
                self.install(toolbox);
            }
            Err(err) => {
                *lock(&self.last_error) = Some(RebuildError::Toolbox(Arc::new(err)));
            }
        }
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
            inner.reimport(&upstream.config.name).await;
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
        let reports = lock(&self.inner.reports);
        self.inner
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
