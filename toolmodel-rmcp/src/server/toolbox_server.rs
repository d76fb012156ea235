//! [`ToolboxServer`]: the struct, its constructor and its builder setters (every `with_*`), and
//! the [`HttpSettings`] it carries for `serve_http`.
//!
//! The modules of `server` import one another in one direction only, from the state a server
//! holds up to the `ServerHandler` impl that serves it:
//!
//! 1. state and conversions that know nothing of `ToolboxServer`: `limits`, `origin`,
//!    `request_state` (the [`Sealer`]), `compose` (the [`Composed`] handler), `tasks` (the
//!    [`Tasks`] manager), `wire`, `host`, `task_input`, `sessions`, `stdio`, `misrouted`;
//! 2. this module: the struct, whose fields are those state types (visible to `server`'s
//!    modules, `pub(super)`);
//! 3. what needs a whole `&ToolboxServer`: `call` (a `tools/call`'s context and its
//!    `InputRequiredResult`), `task_call` (a `tools/call` run as a task), `http_front`,
//!    `connections` and `transport` (serving it over stdio and Streamable HTTP);
//! 4. `handler`: the `rmcp` `ServerHandler` impl, on top of all of them.
//!
//! `server/mod.rs` only declares the modules and re-exports the public items.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use rmcp::{
    ServerHandler,
    model::{Implementation, Tool as RmcpTool},
};
use toolmodel::{Toolbox, host::LogLevel};

use super::{
    compose::Composed,
    limits::Limits,
    origin::default_port,
    request_state::{RequestStateKey, Sealer},
    tasks::Tasks,
};
use crate::convert::to_rmcp_lossy;

/// Serves a [`Toolbox`] over MCP with `rmcp`: see the [module docs](crate::server) for what
/// each request does.
///
/// Build one with [`ToolboxServer::new`], then run it with
/// [`serve_stdio`](Self::serve_stdio) or [`serve_http`](Self::serve_http), or hand it to any
/// `rmcp` transport (it is an `rmcp` [`ServerHandler`]). Cloning is cheap; a clone shares the
/// toolbox and the `logging/setLevel` level (each Streamable HTTP session gets its own level).
///
/// ```no_run
/// use serde::Deserialize;
/// use toolmodel::{CallContext, SyncToolHandler, ToolError, Toolbox, schemars::{self, JsonSchema}};
/// use toolmodel_rmcp::ToolboxServer;
///
/// /// Says hello.
/// #[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
/// struct Greet { name: String }
///
/// impl SyncToolHandler for Greet {
///     type Reply = String;
///     fn call_sync(&self, args: Greet, _cx: &CallContext) -> Result<String, ToolError> {
///         Ok(format!("Hello, {}!", args.name))
///     }
/// }
///
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// let toolbox = Toolbox::builder().with(Greet::default()).build()?;
/// ToolboxServer::new(toolbox).serve_stdio().await?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct ToolboxServer {
    pub(super) toolbox: Toolbox,
    pub(super) info: Implementation,
    pub(super) instructions: Option<String>,
    /// The lowest level the client asked for with `logging/setLevel`; `None`: everything.
    pub(super) log_level: Arc<Mutex<Option<LogLevel>>>,
    /// Each listed tool as `rmcp` holds it, by MCP name, converted once: `rmcp` asks for a
    /// tool's `inputSchema` on every Streamable HTTP request (`get_tool`), and converting the
    /// tool each time would copy its schemas on every call.
    pub(super) rmcp_tools: Arc<HashMap<String, RmcpTool>>,
    /// Seals and opens MCP 2026-07-28 `requestState`.
    pub(super) sealer: Sealer,
    /// Serves what is not about tools or logging ([`with_handler`](Self::with_handler)).
    pub(super) composed: Composed,
    /// The tasks extension, on when a tool supports tasks (`tasks.rs`).
    pub(super) tasks: Tasks,
    /// What `serve_http` enforces (limits, allowed hosts and origins).
    pub(super) http: HttpSettings,
}

/// What [`ToolboxServer::serve_http`] enforces: set with [`ToolboxServer::with_limits`],
/// [`ToolboxServer::with_allowed_hosts`] and [`ToolboxServer::with_allowed_origins`].
#[derive(Clone, Debug, Default)]
pub(super) struct HttpSettings {
    pub(super) limits: Limits,
    /// Empty: loopback.
    pub(super) allowed_hosts: Vec<String>,
    pub(super) allowed_origins: Vec<String>,
}

impl ToolboxServer {
    /// A server for `toolbox`, announcing itself as `toolmodel-rmcp` with this crate's version
    /// (change it with [`with_server_info`](Self::with_server_info)).
    #[must_use]
    pub fn new(toolbox: Toolbox) -> Self {
        let rmcp_tools = toolbox
            .tools()
            .iter()
            .map(|tool| (tool.name.clone(), to_rmcp_lossy(tool).0))
            .collect();
        Self {
            tasks: Tasks::for_toolbox(&toolbox),
            rmcp_tools: Arc::new(rmcp_tools),
            toolbox,
            info: Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")),
            instructions: None,
            log_level: Arc::new(Mutex::new(None)),
            sealer: Sealer::new(None),
            composed: Composed::default(),
            http: HttpSettings::default(),
        }
    }

    /// The key that authenticates the `requestState` of MCP 2026-07-28 input rounds (see the
    /// [module docs](crate::server)). Give every replica behind one address the same key, so
    /// that any of them can serve a client's retry; without one, the server uses a random key
    /// made once per process, and only that process can read its states. The examples read
    /// it from [`REQUEST_STATE_KEY_ENV`](super::REQUEST_STATE_KEY_ENV)
    /// (`MCP_REQUEST_STATE_KEY`, base64 of at least 32 bytes:
    /// [`RequestStateKey::from_base64`]).
    ///
    /// ```
    /// use toolmodel::Toolbox;
    /// use toolmodel_rmcp::{ToolboxServer, server::RequestStateKey};
    ///
    /// let key = RequestStateKey::from_bytes(*b"0123456789abcdef0123456789abcdef")?;
    /// let server = ToolboxServer::new(Toolbox::builder().build()?).with_request_state_key(key);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_request_state_key(mut self, key: RequestStateKey) -> Self {
        let (ttl, limit) = (self.sealer.ttl, self.sealer.limit);
        self.sealer = Sealer::new(Some(key));
        self.sealer.ttl = ttl;
        self.sealer.limit = limit;
        self
    }

    /// How long a `requestState` stays valid
    /// ([`DEFAULT_REQUEST_STATE_TTL`](super::DEFAULT_REQUEST_STATE_TTL): 10 minutes); a retry
    /// after it is refused with JSON-RPC `-32602`.
    #[must_use]
    pub fn with_request_state_ttl(mut self, ttl: Duration) -> Self {
        self.sealer.ttl = ttl;
        self
    }

    /// The largest `requestState` written or accepted, in bytes
    /// ([`DEFAULT_REQUEST_STATE_LIMIT`](super::DEFAULT_REQUEST_STATE_LIMIT): 64 KiB). A
    /// handler whose state and answers would seal larger gets JSON-RPC `-32603`; a client
    /// sending a larger one `-32602`.
    #[must_use]
    pub fn with_request_state_limit(mut self, bytes: usize) -> Self {
        self.sealer.limit = bytes;
        self
    }

    /// The `serverInfo` sent in the `initialize` result (MCP `Implementation`: `name` and
    /// `version`).
    #[must_use]
    pub fn with_server_info(mut self, name: impl Into<String>, version: impl Into<String>) -> Self {
        self.info = Implementation::new(name, version);
        self
    }

    /// The `instructions` sent in the `initialize` result: how to use the server, for the
    /// model.
    #[must_use]
    pub fn with_instructions(mut self, instructions: impl Into<String>) -> Self {
        self.instructions = Some(instructions.into());
        self
    }

    /// The [`Limits`] [`serve_http`](Self::serve_http) enforces (default:
    /// [`Limits::default`]). The stdio transport has one client and ignores them, all but
    /// [`client_request_timeout`](Limits::client_request_timeout), which holds for every
    /// transport.
    #[must_use]
    pub fn with_limits(mut self, limits: Limits) -> Self {
        self.http.limits = limits;
        self
    }

    /// The host names (or `host:port` authorities) [`serve_http`](Self::serve_http) answers
    /// to, replacing the default loopback ones: the names clients reach a public server by.
    /// Their `http` and `https` origins are allowed too (the server's own). A `Host` not on
    /// the list is 403 Forbidden (against DNS rebinding).
    #[must_use]
    pub fn with_allowed_hosts(
        mut self,
        hosts: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.http.allowed_hosts = hosts.into_iter().map(Into::into).collect();
        self
    }

    /// Browser origins allowed besides the loopback ones and the server's own, each with its
    /// scheme: `"https://app.example.com"` (the scheme's default port),
    /// `"https://app.example.com:8443"`, `"http://localhost:*"` (any port), or `"null"` (the
    /// `Origin: null` of sandboxed pages and `file:` URLs). A request whose `Origin` matches
    /// none is 403 Forbidden.
    #[must_use]
    pub fn with_allowed_origins(
        mut self,
        origins: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.http.allowed_origins = origins
            .into_iter()
            .map(|origin| default_port(origin.into()))
            .collect();
        self
    }

    /// Serves everything but tools and logging with `handler`, any `rmcp` [`ServerHandler`]:
    /// your own server's prompts (`prompts/list`, `prompts/get`), resources
    /// (`resources/list`, `resources/templates/list`, `resources/read`,
    /// `resources/subscribe` and `unsubscribe`) and completion (`completion/complete`), as
    /// written by hand or with `rmcp`'s prompt router. The toolbox keeps `tools/list`,
    /// `tools/call` and `logging/setLevel`; `handler`'s own tool methods are never called.
    ///
    /// The capabilities announced are the toolbox's (`tools`, `logging`) with `handler`'s
    /// `prompts`, `resources`, `completions` and `experimental`, and its `extensions` added
    /// (MCP 2025-11-25 "Lifecycle", capability negotiation); the `serverInfo` and
    /// `instructions` stay this server's. `handler` is shared by every session and clone of
    /// this server (it is kept in an `Arc`), and its results reach the client as `rmcp`
    /// writes them for the request's protocol version: for 2026-07-28, `rmcp` adds the
    /// `ttlMs`/`cacheScope` caching hints (SEP-2549) a list or read result does not set,
    /// as `0` and `"private"`, and answers a `resources/read` of an unknown resource
    /// ([`ErrorCode::RESOURCE_NOT_FOUND`](rmcp::model::ErrorCode::RESOURCE_NOT_FOUND))
    /// with `-32602` (SEP-2164). A second call replaces the first handler.
    ///
    /// `examples/composed_server.rs` is a whole server; in short:
    ///
    /// ```
    /// use toolmodel::Toolbox;
    /// use toolmodel_rmcp::{ToolboxServer, rmcp::{self, ServerHandler, model::*, service::RequestContext}};
    ///
    /// /// One prompt, beside the toolbox's tools.
    /// struct Prompts;
    ///
    /// impl ServerHandler for Prompts {
    ///     fn get_info(&self) -> ServerConfig {
    ///         ServerConfig::new(ServerCapabilities::builder().enable_prompts().build())
    ///     }
    ///     async fn list_prompts(
    ///         &self,
    ///         _request: Option<PaginatedRequestParams>,
    ///         _context: RequestContext<rmcp::RoleServer>,
    ///     ) -> Result<ListPromptsResult, rmcp::ErrorData> {
    ///         Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
    ///             "review",
    ///             Some("Review a change"),
    ///             None,
    ///         )]))
    ///     }
    /// }
    ///
    /// let server = ToolboxServer::new(Toolbox::builder().build()?).with_handler(Prompts);
    /// let capabilities = server.get_info().capabilities;
    /// assert!(capabilities.tools.is_some() && capabilities.prompts.is_some());
    /// # Ok::<(), toolmodel::Error>(())
    /// ```
    #[must_use]
    pub fn with_handler<H: ServerHandler>(mut self, handler: H) -> Self {
        self.composed = Composed::new(handler);
        self
    }

    /// The toolbox served.
    #[must_use]
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }

    /// A copy for a new session: the same toolbox and identity, its own log level.
    pub(super) fn session(&self) -> Self {
        Self {
            log_level: Arc::new(Mutex::new(None)),
            ..self.clone()
        }
    }

    pub(super) fn session_log_level(&self) -> Option<LogLevel> {
        self.log_level.lock().map_or(None, |level| *level)
    }
}
