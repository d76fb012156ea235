//! The admin listener: liveness, readiness, metrics and status for operators and
//! orchestrators (a Kubernetes probe, a Prometheus scrape, a person with `curl`), on a port
//! of its own, apart from the MCP endpoint.
//!
//! | route | answers |
//! |---|---|
//! | `GET /healthz` | `200 OK`, `ok`: the process serves |
//! | `GET /readyz` | `200 OK` when every readiness check passes, else `503 Service Unavailable`; a JSON body either way: `{"ready": bool, "checks": {"<name>": {"ok": bool, "reason": "..."}}}` (`reason` only when a check fails) |
//! | `GET /metrics` | `200 OK`, `text/plain; version=0.0.4; charset=utf-8`: what [`Admin::with_metrics`] renders (Prometheus text exposition); `404 Not Found` without it |
//! | `GET /status` | `200 OK`, JSON: the status document ([`Admin::with_status`], [`Admin::with_federation`]); `404 Not Found` without one |
//! | any other path | `404 Not Found` |
//! | a method other than `GET` or `HEAD` | `405 Method Not Allowed` with `Allow: GET, HEAD` |
//!
//! **Bounded.** Each readiness check is given [`CHECK_TIMEOUT`] (they run at once), so
//! `/readyz` answers within about a second whatever a dependency does; a connection has
//! [`HEADER_READ_TIMEOUT`] to send its request's header (8 KiB at most: hyper's smallest
//! buffer); a request's body is never read; at most [`MAX_CONNECTIONS`] connections are
//! served at once (a connection beyond is closed at once).
//!
//! **Not the MCP endpoint.** The listener given to [`Admin::serve`] must not be the public
//! one: `/status` names the upstream servers, their process IDs and their last errors (without
//! the configuration's secrets), and nothing here authenticates. Bind it to loopback
//! (`127.0.0.1:9090`) or to an address only the orchestrator reaches.
//!
//! ```no_run
//! # async fn run(toolbox: toolmodel::Toolbox) -> Result<(), toolmodel_rmcp::Error> {
//! use toolmodel_rmcp::{ToolboxServer, admin::Admin};
//!
//! let admin = tokio::net::TcpListener::bind("127.0.0.1:9090").await.map_err(toolmodel_rmcp::Error::Io)?;
//! let mcp = tokio::net::TcpListener::bind("0.0.0.0:8080").await.map_err(toolmodel_rmcp::Error::Io)?;
//! let probes = Admin::new()
//!     .with_readiness("database", || async { Ok(()) })
//!     .with_metrics(|| "# TYPE up gauge\nup 1\n".to_owned());
//! tokio::spawn(probes.serve(admin).into_future());
//! ToolboxServer::new(toolbox).serve_http(mcp).await
//! # }
//! # use std::future::IntoFuture as _;
//! ```

#[cfg(feature = "federation")]
mod gateway;
mod readiness;
mod routes;
mod serve;

use std::{future::Future, sync::Arc};

use serde_json::Value;
use tokio::net::TcpListener;

use crate::tasks::TaskStore;

pub use readiness::CHECK_TIMEOUT;
pub use serve::{HEADER_READ_TIMEOUT, MAX_CONNECTIONS, ServeAdmin};

use readiness::{Check, Checks};

/// Renders the Prometheus text exposition (`/metrics`).
type Render = Arc<dyn Fn() -> String + Send + Sync>;

/// Gives a part of the status document (`/status`).
type Status = Arc<dyn Fn() -> Value + Send + Sync>;

/// An admin listener's routes and what they report; [`serve`](Self::serve) serves them on a
/// TCP listener of its own (see the [module docs](self) for the routes and their bounds).
#[derive(Clone, Default)]
pub struct Admin {
    checks: Checks,
    metrics: Option<Render>,
    status: Vec<Status>,
}

impl std::fmt::Debug for Admin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Admin")
            .field("checks", &self.checks.names())
            .field("metrics", &self.metrics.is_some())
            .field("status", &self.status.len())
            .finish()
    }
}

impl Admin {
    /// An admin listener with no readiness check (`/readyz` answers `200`), no metrics and
    /// no status document (`/metrics` and `/status` answer `404`).
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds the readiness check `name`: `check()` is run for each `GET /readyz` (every check
    /// at once), and answers `Ok(())` when ready or `Err(reason)`, the reason shown in the
    /// JSON body. A check that takes longer than [`CHECK_TIMEOUT`] fails with the reason
    /// `no answer within 1000 ms`; one that panics fails too. A second check of the same
    /// name replaces the first.
    #[must_use]
    pub fn with_readiness<F, Fut>(mut self, name: impl Into<String>, check: F) -> Self
    where
        F: Fn() -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<(), String>> + Send + 'static,
    {
        let check: Check = Arc::new(move || Box::pin(check()));
        self.checks.insert(name.into(), check);
        self
    }

    /// Serves `GET /metrics`: `render()` is called for each request and its text answered
    /// with `Content-Type: text/plain; version=0.0.4; charset=utf-8` (the Prometheus text
    /// exposition format; the text is the caller's, not checked). A second call replaces the
    /// first.
    #[must_use]
    pub fn with_metrics(mut self, render: impl Fn() -> String + Send + Sync + 'static) -> Self {
        self.metrics = Some(Arc::new(render));
        self
    }

    /// Adds a part to the status document of `GET /status`: `status()` is called for each
    /// request. With one part, the document is its value; with several (this and
    /// [`with_federation`](Self::with_federation)), each part that is a JSON object has its
    /// members merged into one object, in the order they were added (a later member of the
    /// same name wins), and a part that is not an object is left out.
    #[must_use]
    pub fn with_status(mut self, status: impl Fn() -> Value + Send + Sync + 'static) -> Self {
        self.status.push(Arc::new(status));
        self
    }

    /// Adds the readiness check `task_store`: the store answers [`TaskStore::ping`] (the
    /// Redis store: `PING` within 1 s; a store in memory always does). The reason of a
    /// failure is the store's error.
    #[must_use]
    pub fn with_task_store(self, store: Arc<dyn TaskStore>) -> Self {
        self.with_readiness("task_store", move || {
            let store = Arc::clone(&store);
            async move { store.ping().await.map_err(|err| crate::error::chain(&err)) }
        })
    }

    /// Adds the readiness check `session_store`: the store answers
    /// [`SessionStore::ping`](crate::sessions::SessionStore::ping) (the Redis store: `PING`
    /// within its 1 s command timeout; a store in memory always does). A replica whose
    /// shared session store is out of reach serves the sessions it holds but no other: take
    /// it out of the balancer's rotation. The reason of a failure is the store's error.
    #[must_use]
    pub fn with_session_store(self, store: Arc<dyn crate::sessions::SessionStore>) -> Self {
        self.with_readiness("session_store", move || {
            let store = Arc::clone(&store);
            async move { store.ping().await.map_err(|err| crate::error::chain(&err)) }
        })
    }

    /// Serves the routes on `listener` (bind it to loopback or a private address, never the
    /// public MCP endpoint: see the [module docs](self)). Await the [`ServeAdmin`] to serve;
    /// [`ServeAdmin::with_graceful_shutdown`] sets when to stop.
    pub fn serve(self, listener: TcpListener) -> ServeAdmin {
        ServeAdmin::new(self, listener)
    }

    /// The status document, when a part was added.
    fn status_document(&self) -> Option<Value> {
        match self.status.as_slice() {
            [] => None,
            [only] => Some(only()),
            parts => {
                let mut document = serde_json::Map::new();
                for part in parts {
                    if let Value::Object(members) = part() {
                        document.extend(members);
                    }
                }
                Some(Value::Object(document))
            }
        }
    }
}
