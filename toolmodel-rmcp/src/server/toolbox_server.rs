//! [`ToolboxServer`]: the struct, its constructor, its builder setters (every `with_*`, among
//! them those of the [`HttpSettings`] it carries for Streamable HTTP), and the toolbox it
//! serves ([`toolbox`](ToolboxServer::toolbox), [`set_toolbox`](ToolboxServer::set_toolbox)).
//!
//! The modules of `server` import one another in one direction only, from the state a server
//! holds up to the `ServerHandler` impl that serves it (the conversions they share are
//! [`crate::convert`]'s, outside `server`):
//!
//! 1. state that knows nothing of `ToolboxServer`: `http`'s settings, limits and stages,
//!    `request_state` (the [`Sealer`]), `tool_list` (the [`ServedTools`] a server reads its
//!    toolbox from), `tool_policy` (the [`ToolPolicy`] and the view of a toolbox each set of
//!    its rules sees, kept in the [`ToolList`]), `rate_limits` (the [`RateLimits`] and their
//!    buckets), `list_changed` (the [`ListChanged`] sessions and subscriptions), `compose`
//!    (the [`Composed`] handler), `running_tasks` (the [`Tasks`] on their store, the peer of
//!    a task and the worker that runs it), `upstream_tasks` (the `UpstreamTasks` of other
//!    servers), `tool_search` (the [`ServedSearch`] index, kept in step with `tool_list`),
//!    `peer`, `compat` (every workaround of `rmcp` 3.11: `stdio`, `misrouted`, `json_errors`);
//! 2. this module: the struct, whose fields are those state types (visible to `server`'s
//!    modules, `pub(super)`);
//! 3. what needs a whole `&ToolboxServer`: `disclosure` (`search_tools` answered, `call_tool`
//!    unwrapped), `call` (a `tools/call`'s context and its `InputRequiredResult`), `task_call` (a `tools/call` run as a task), `task_route`
//!    (a `tools/call` and `tasks/*` handed to the tasks of other servers), `http`'s `front`
//!    and `connections`, and `transport` (serving it over stdio and Streamable HTTP);
//! 4. `handler`: the `rmcp` `ServerHandler` impl, on top of all of them: every method it
//!    serves is written out there, each a short delegation to the module that does the work.
//!
//! `server/mod.rs` declares the modules, re-exports the public items and sketches how a
//! request flows through them.

use std::{
    sync::{Arc, Mutex, OnceLock},
    time::Duration,
};

use rmcp::{ServerHandler, model::Implementation};
use toolmodel::{Toolbox, peer::LoggingLevel};

use super::{
    compose::Composed,
    http::{HttpLimits, HttpSettings, default_port},
    list_changed::ListChanged,
    rate_limits::RateLimits,
    request_state::{RequestStateKey, Sealer},
    running_tasks::Tasks,
    tool_list::{ServedTools, ToolList},
    tool_policy::{ToolPolicy, View},
    tool_search::{ServedSearch, ToolSearch},
    upstream_tasks::UpstreamTasks,
};
use crate::reloadable::Reloadable;
use crate::tasks::TaskStore;
use crate::telemetry::{ServerTelemetry, session::SessionClock};

/// Serves a [`Toolbox`] over MCP with `rmcp`: see the [module docs](crate::server) for what
/// each request does.
///
/// Build one with [`ToolboxServer::new`], then run it with
/// [`serve_stdio`](Self::serve_stdio) or [`serve_http`](Self::serve_http), or hand it to any
/// `rmcp` transport (it is an `rmcp` [`ServerHandler`]). Cloning is cheap; a clone shares the
/// toolbox ([`set_toolbox`](Self::set_toolbox) on one replaces it in all) and the
/// `logging/setLevel` level (each Streamable HTTP session gets its own level).
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
    /// The toolbox served and what is derived from it, replaced whole by
    /// [`set_toolbox`](Self::set_toolbox).
    pub(crate) tools: ServedTools,
    /// Tool search ([`with_tool_search`](Self::with_tool_search)): its settings and index, kept
    /// in step with `tools`.
    pub(crate) search: ServedSearch,
    /// Whom to tell when the toolbox is replaced.
    pub(crate) list_changed: ListChanged,
    pub(super) info: Implementation,
    pub(super) instructions: Option<String>,
    /// The lowest level the client asked for with `logging/setLevel`; `None`: everything.
    pub(super) log_level: Arc<Mutex<Option<LoggingLevel>>>,
    /// Seals and opens MCP 2026-07-28 `requestState`.
    pub(super) sealer: Sealer,
    /// Serves what is not about tools or logging ([`with_handler`](Self::with_handler)).
    pub(super) composed: Composed,
    /// The tasks extension, on once a toolbox served has a tool that supports tasks
    /// (`running_tasks/mod.rs`), on their store.
    pub(super) tasks: Tasks,
    /// The tasks of other servers it routes (a gateway's upstreams), once installed
    /// (`task_route.rs`).
    pub(super) upstream_tasks: Arc<OnceLock<Arc<dyn UpstreamTasks>>>,
    /// What `serve_http` and `http_service` enforce (limits, allowed hosts and origins).
    pub(super) http: HttpSettings,
    /// What the spans record beyond the defaults, and the clock of the session this instance
    /// serves (`telemetry`).
    pub(crate) telemetry: ServerTelemetry,
    /// Which tools each caller sees and may call ([`with_tool_policy`](Self::with_tool_policy),
    /// [`set_tool_policy`](Self::set_tool_policy)); each request reads it when it starts.
    pub(crate) policy: Reloadable<Option<Arc<ToolPolicy>>>,
    /// A gateway's OAuth redirect endpoint, served on its HTTP listener before the MCP
    /// endpoint's path check ([`ToolboxServer::gateway`]).
    #[cfg(feature = "federation")]
    pub(crate) redirect: Option<Arc<crate::federation::Callbacks>>,
    /// The rate limits of calls and requests ([`with_rate_limits`](Self::with_rate_limits),
    /// [`set_rate_limits`](Self::set_rate_limits)); each request reads them when it starts.
    pub(crate) rate_limits: Reloadable<Option<RateLimits>>,
}

impl ToolboxServer {
    /// A server for `toolbox`, announcing itself as `toolmodel-rmcp` with this crate's version
    /// (change it with [`with_server_info`](Self::with_server_info)).
    #[must_use]
    pub fn new(toolbox: Toolbox) -> Self {
        let tasks = Tasks::default();
        tasks.enable_for(&toolbox);
        Self {
            tasks,
            tools: ServedTools::new(toolbox),
            search: ServedSearch::default(),
            list_changed: ListChanged::default(),
            info: Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")),
            instructions: None,
            log_level: Arc::new(Mutex::new(None)),
            sealer: Sealer::new(None),
            composed: Composed::default(),
            upstream_tasks: Arc::default(),
            http: HttpSettings::default(),
            telemetry: ServerTelemetry::default(),
            policy: Reloadable::default(),
            #[cfg(feature = "federation")]
            redirect: None,
            rate_limits: Reloadable::default(),
        }
    }

    /// Serves each caller only the tools `policy` lets it see ([`ToolPolicy`]): `tools/list`
    /// lists those alone (`cacheScope: "private"` under MCP 2026-07-28), a `tools/call` of
    /// another is answered as the call of a tool that does not exist (JSON-RPC `-32602`, the
    /// nearest name suggested among the visible ones), tool search finds none of the others,
    /// and the HTTP front never answers 403 `insufficient_scope` for a tool the caller may
    /// not see. A gateway takes the policy of its configuration (`toolmodelPolicy`). Without
    /// [authorization](Self::with_authorization) no request has a caller, and only the rules
    /// without `when` apply.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolmodel::Toolbox;
    /// use toolmodel_rmcp::{ToolboxServer, server::ToolPolicy};
    ///
    /// let policy = ToolPolicy::from_json(&json!({"rules": [{"allow": ["get_time"]}]}))?;
    /// let server = ToolboxServer::new(Toolbox::builder().build()?).with_tool_policy(policy);
    /// # let _ = server;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_tool_policy(self, policy: ToolPolicy) -> Self {
        self.set_tool_policy(Some(policy));
        self
    }

    /// Serves each caller the tools `policy` lets it see from the next request on (every tool
    /// to everyone when `None`), in this server, every clone of it and every session: what
    /// [`with_tool_policy`](Self::with_tool_policy) sets, replaced while the server serves (a
    /// [`gateway`](Self::gateway) does it when its federation is
    /// [reconfigured](crate::federation::Federation::reconfigure) with another
    /// `toolmodelPolicy`). A request keeps the policy it started with. When `policy` differs
    /// from the one before, the clients are told that the tool list changed, as
    /// [`set_toolbox`](Self::set_toolbox) tells them, since what each of them sees may have
    /// changed.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolmodel::Toolbox;
    /// use toolmodel_rmcp::{ToolboxServer, server::ToolPolicy};
    ///
    /// let server = ToolboxServer::new(Toolbox::builder().build()?);
    /// let session = server.clone(); // say, serving a session on another task
    /// server.set_tool_policy(Some(ToolPolicy::from_json(&json!({"rules": [{"allow": ["time.*"]}]}))?));
    /// server.set_tool_policy(None); // every tool to everyone again, in `session` too
    /// # let _ = session;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_tool_policy(&self, policy: Option<ToolPolicy>) {
        let before = self.policy.set(policy.map(Arc::new));
        if before.as_deref() != self.policy.get().as_deref() {
            self.list_changed.notify();
        }
    }

    /// Limits the rate of calls and requests ([`RateLimits`]: token buckets per user, per
    /// tool, per upstream): a `tools/call` over a call rule is answered with an `isError`
    /// result naming the rule and when to retry, before it reaches the tool's handler (or a
    /// gateway's upstream); an HTTP request over a request rule is refused whole, `429 Too
    /// Many Requests` with `Retry-After`. The limits are checked after the
    /// [policy](Self::with_tool_policy): a tool the caller may not see stays unknown. A
    /// gateway takes the limits of its configuration (`toolmodelLimits`). Clones of `limits`
    /// share their buckets: give one to several servers and they share the limits.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolmodel::Toolbox;
    /// use toolmodel_rmcp::{ToolboxServer, server::RateLimits};
    ///
    /// let limits = RateLimits::from_json(&json!({"rules": [{"per": ["user"], "rate": 5, "burst": 10}]}))?;
    /// let server = ToolboxServer::new(Toolbox::builder().build()?).with_rate_limits(limits);
    /// # let _ = server;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    #[must_use]
    pub fn with_rate_limits(self, limits: RateLimits) -> Self {
        self.set_rate_limits(Some(limits));
        self
    }

    /// Replaces the rate limits of this server, every clone of it and every session from the
    /// next request on (none when `None`): what [`with_rate_limits`](Self::with_rate_limits)
    /// sets, replaced while the server serves (a [`gateway`](Self::gateway) does it when its
    /// federation is [reconfigured](crate::federation::Federation::reconfigure) with other
    /// `toolmodelLimits`). The buckets of the limits before are dropped with them: give the
    /// same [`RateLimits`] (a clone) to keep what they counted.
    pub fn set_rate_limits(&self, limits: Option<RateLimits>) {
        self.rate_limits.set(limits);
    }

    /// Whether `caller` may see the tool served as `name` now (always without a policy; never
    /// when its view cannot be built).
    #[cfg(feature = "auth")]
    pub(crate) fn sees(&self, caller: &toolmodel::Caller, name: &str) -> bool {
        match self.view(&self.tools.current(), Some(caller)) {
            Ok(None) => true,
            Ok(Some(view)) => view.sees(name),
            Err(_) => false,
        }
    }

    /// What `tools` looks like to `caller` under the server's policy; `Ok(None)` without one.
    ///
    /// # Errors
    ///
    /// `-32603` when the caller's view cannot be built (a tool that built once and not
    /// again): nothing is served rather than too much.
    pub(crate) fn view(
        &self,
        tools: &ToolList,
        caller: Option<&toolmodel::Caller>,
    ) -> Result<Option<Arc<View>>, rmcp::ErrorData> {
        let Some(policy) = Option::clone(&self.policy.get()) else {
            return Ok(None);
        };
        tools.view(&policy, caller).map(Some).ok_or_else(|| {
            rmcp::ErrorData::internal_error(
                "the tools this caller may see could not be listed",
                None,
            )
        })
    }

    /// Records each tool call's `arguments` and result on its span
    /// (`gen_ai.tool.call.arguments`, `gen_ai.tool.call.result`: OpenTelemetry's MCP
    /// conventions, opt-in), as JSON cut to 4 KiB. Off by default: they may hold secrets.
    #[must_use]
    pub fn with_recorded_tool_content(mut self, record: bool) -> Self {
        self.telemetry.record_content = record;
        self
    }

    /// The store the server keeps its tasks in (the tasks extension, SEP-2663): a
    /// [`MemoryTaskStore`](crate::tasks::MemoryTaskStore) unless set here. Give every replica
    /// behind one address the same shared store (`RedisTaskStore`, feature `redis`), so that
    /// any of them answers `tasks/get`, `tasks/update` and `tasks/cancel` for any task and the
    /// tasks of a replica that dies are taken over or ended (guide:
    /// [Tasks across replicas](crate::guide::tasks#tasks-across-replicas)). The examples read its URL
    /// from `MCP_TASK_STORE` ([`task_store_from_url`](crate::tasks::task_store_from_url)).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolmodel::Toolbox;
    /// use toolmodel_rmcp::{ToolboxServer, tasks::MemoryTaskStore};
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let store = MemoryTaskStore::new().with_live_limit(100);
    /// let server = ToolboxServer::new(Toolbox::builder().build()?).with_task_store(Arc::new(store));
    /// # let _ = server;
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn with_task_store(mut self, store: Arc<dyn TaskStore>) -> Self {
        self.tasks = self.tasks.with_store(store);
        self
    }

    /// The store the server keeps its handshake-era sessions in (MCP 2025-11-25 and earlier
    /// over Streamable HTTP: `initialize` returns an `Mcp-Session-Id`). Unless set here, or
    /// with a store that is not shared, sessions live in this process only, as `rmcp` holds
    /// them. Give every replica behind one address the same shared store (`RedisSessionStore`,
    /// feature `redis`), and any of them serves any session: a request in a session a replica
    /// has not seen is served from the stored session, the client's answer to an
    /// `elicitation/create` sent by another replica reaches it, notifications raised on one
    /// replica reach the client's `GET` stream on another, and `DELETE` ends the session on
    /// every replica (guide: [Scale-out](crate::guide::scale_out)). The examples and
    /// `toolmodel gateway` read its URL from `MCP_SESSION_STORE`
    /// ([`session_store_from_url`](crate::sessions::session_store_from_url)). MCP 2026-07-28
    /// requests carry no session and never read the store.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use toolmodel::Toolbox;
    /// use toolmodel_rmcp::{ToolboxServer, sessions::MemorySessionStore};
    ///
    /// # fn main() -> Result<(), Box<dyn std::error::Error>> {
    /// let store = MemorySessionStore::new().with_limit(1_000);
    /// let server = ToolboxServer::new(Toolbox::builder().build()?).with_session_store(Arc::new(store));
    /// # let _ = server;
    /// # Ok(())
    /// # }
    /// ```
    #[must_use]
    pub fn with_session_store(mut self, store: Arc<dyn crate::sessions::SessionStore>) -> Self {
        self.http.session_store = Some(store);
        self
    }

    /// How long this server's lease on a task it runs lasts (10 seconds unless set here; it
    /// renews it every third of that). When a replica dies, its tasks are taken over or ended
    /// by another within about one and a half leases.
    #[must_use]
    pub fn with_task_lease(mut self, lease: Duration) -> Self {
        self.tasks = self.tasks.with_lease(lease);
        self
    }

    /// The key that authenticates the `requestState` of MCP 2026-07-28 input rounds (see the
    /// [module docs](crate::server)). Give every replica behind one address the same key, so
    /// that any of them can serve a client's retry; without one, the server uses a random key
    /// made once per process, and only that process can read its states. The examples read
    /// it from `MCP_REQUEST_STATE_KEY` (base64 of at least 32 bytes:
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

    /// The [`HttpLimits`] [`serve_http`](Self::serve_http) and
    /// [`http_service`](Self::http_service) enforce (default: [`HttpLimits::default`]). The
    /// stdio transport has one client and ignores them, all but
    /// [`client_request_timeout`](HttpLimits::client_request_timeout), which holds for every
    /// transport.
    #[must_use]
    pub fn with_limits(mut self, limits: HttpLimits) -> Self {
        self.http.limits = limits;
        self
    }

    /// The host names (or `host:port` authorities) [`serve_http`](Self::serve_http) and
    /// [`http_service`](Self::http_service) answer to, replacing the default loopback ones: the names clients reach a public server by.
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
    /// none is 403 Forbidden. Pages on the allowed origins may call the server from a
    /// browser: their CORS preflights are answered and their responses readable (the
    /// [`http` guide](crate::guide::http), "Browser clients (CORS)").
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

    /// Makes [`serve_http`](Self::serve_http) and [`http_service`](Self::http_service) an
    /// OAuth 2.1 resource server (MCP, "Authorization"): every request needs a bearer token
    /// from the [`ResourceServer`]'s issuer for its resource (401 with a `WWW-Authenticate`
    /// challenge otherwise), a `tools/call` needs the tool's
    /// [`required_scopes`](toolmodel::Tool::required_scopes) (403 `insufficient_scope`
    /// naming them), and the Protected Resource Metadata (RFC 9728) is served at
    /// `/.well-known/oauth-protected-resource` and its path-inserted form. The handler reads
    /// who calls from [`CallContext::caller`](toolmodel::CallContext::caller). The stdio
    /// transport has one local client and checks nothing. The
    /// [guide](crate::guide::public) shows the flow and the configuration.
    ///
    /// ```
    /// use toolmodel::Toolbox;
    /// use toolmodel_rmcp::{ToolboxServer, auth::ResourceServer};
    ///
    /// let auth = ResourceServer::new("https://auth.example.com", "https://mcp.example.com/mcp")?;
    /// let server = ToolboxServer::new(Toolbox::builder().build()?)
    ///     .with_allowed_hosts(["mcp.example.com"])
    ///     .with_authorization(auth);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// Feature `auth` (on by default).
    ///
    /// [`ResourceServer`]: crate::auth::ResourceServer
    #[cfg(feature = "auth")]
    #[must_use]
    pub fn with_authorization(mut self, authorization: crate::auth::ResourceServer) -> Self {
        self.http.authorization = Some(authorization);
        self
    }

    /// Serves everything but tools and logging with `handler`, any `rmcp` [`ServerHandler`]:
    /// your own server's prompts (`prompts/list`, `prompts/get`), resources
    /// (`resources/list`, `resources/templates/list`, `resources/read`,
    /// `resources/subscribe` and `unsubscribe`) and completion (`completion/complete`), as
    /// written by hand or with `rmcp`'s prompt router. The toolbox keeps `tools/list`,
    /// `tools/call` and `logging/setLevel`; `handler`'s own tool methods are never called.
    /// MCP 2026-07-28's `subscriptions/listen` is the toolbox's too (its
    /// `toolsListChanged`, see [`set_toolbox`](Self::set_toolbox)): `rmcp` hands each stream
    /// to one handler, so `handler`'s list changes and resource updates do not reach a
    /// 2026-07-28 client.
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

    /// Serves a large toolbox by progressive disclosure: once it holds more tools than
    /// `search`'s threshold, `tools/list` lists `search_tools` and `call_tool` (and the tools
    /// `search` keeps always visible) instead of every tool, as FastMCP's
    /// `BM25SearchTransform` does; what the two tools take and give is in [`ToolSearch`].
    /// The toolbox is indexed now (`toolmodel`'s tool search), and again, only the tools whose
    /// searched texts changed, by every [`set_toolbox`](Self::set_toolbox) and, for a
    /// [`gateway`](Self::gateway), every rebuild after an upstream's tools change, before
    /// the clients hear of the change: a new tool is found at once. A gateway's tools are
    /// also found by their upstream's name and its `serverInfo` `title` and `description`.
    ///
    /// It applies to this server and every clone and session of it; a second call replaces
    /// the first settings. The guide's [Large catalogs](crate::guide::large_catalogs) chapter
    /// shows a client finding and calling a tool it was not listed.
    ///
    /// ```
    /// use toolmodel::{CallToolResult, Tool, ToolSchema, Toolbox};
    /// use toolmodel_rmcp::{ToolboxServer, server::ToolSearch};
    ///
    /// let mut builder = Toolbox::builder();
    /// for name in ["get_time", "create_issue", "list_issues"] {
    ///     builder = builder.with_tool(Tool::new(name, ToolSchema::empty_object()), |_, _| async {
    ///         Ok(CallToolResult::text("done"))
    ///     });
    /// }
    /// let server = ToolboxServer::new(builder.build()?)
    ///     .with_tool_search(ToolSearch::new().with_threshold(2).with_always_visible(["get_time"]));
    /// // Listed: get_time, search_tools, call_tool. Every tool is still served.
    /// assert_eq!(server.toolbox().len(), 3);
    /// # Ok::<(), toolmodel::Error>(())
    /// ```
    #[must_use]
    pub fn with_tool_search(self, search: ToolSearch) -> Self {
        self.search.enable(search, &self.tools);
        // Sessions already open (of a clone) list again.
        self.list_changed.notify();
        self
    }

    /// The toolbox served now: the one given to [`new`](Self::new), or to the last
    /// [`set_toolbox`](Self::set_toolbox). A [`Toolbox`] is shared, so this is a cheap handle
    /// to it, which stays this toolbox when another replaces it.
    #[must_use]
    pub fn toolbox(&self) -> Toolbox {
        self.tools.current().toolbox.clone()
    }

    /// Serves `toolbox` from now on, in this server, every clone of it and every session
    /// (stdio, Streamable HTTP), and tells the clients that the tool list changed with
    /// `notifications/tools/list_changed` (MCP 2025-11-25 "Tools", List Changed
    /// Notification; the server declares `tools.listChanged: true`):
    ///
    /// - every session that went through `initialize` (MCP 2025-11-25 and older) whose
    ///   transport is still open gets it;
    /// - under MCP 2026-07-28 a server sends no notification the client did not ask for
    ///   (2026-07-28 "Subscriptions"): each open `subscriptions/listen` stream whose filter
    ///   has `toolsListChanged: true` gets it, carrying the stream's
    ///   `io.modelcontextprotocol/subscriptionId` (`rmcp` serves the stream; this server
    ///   acknowledges `toolsListChanged` alone in its filter and omits the types it does not
    ///   honor, prompt and resource changes included, see [`with_handler`](Self::with_handler)).
    ///
    /// With [tool search](Self::with_tool_search), the tools of `toolbox` that differ from
    /// those served before are indexed (and those gone removed) before it is served, so the
    /// next `search_tools` finds a tool it adds.
    ///
    /// Every call notifies, whether the list differs or not. The notifications are sent
    /// from tasks on the runtime serving each session, so this returns at once and may be
    /// called from any thread, in a runtime or not.
    ///
    /// A request keeps the toolbox it started with: a `tools/call` in flight (or a task of
    /// the tasks extension) finishes on it; `tools/list` and `tools/call` that arrive after
    /// this returns see `toolbox`. A cursor of the old list is read as a position in the new
    /// one (`-32602` when the new list has no page there): the notification tells the client
    /// to list again from the start. The tasks extension turns on when `toolbox` has a tool
    /// that supports tasks, and stays on once on, so that tasks started before remain
    /// reachable; a client learns that it turned on from its next `initialize` (or, under
    /// 2026-07-28, `server/discover`).
    ///
    /// ```
    /// use toolmodel::{CallToolResult, Tool, ToolSchema, Toolbox};
    /// use toolmodel_rmcp::ToolboxServer;
    ///
    /// let server = ToolboxServer::new(Toolbox::builder().build()?);
    /// let session = server.clone(); // say, serving stdio on another task
    /// let upstream = Toolbox::builder()
    ///     .with_tool(Tool::new("search", ToolSchema::empty_object()), |_, _| async {
    ///         Ok(CallToolResult::text("found"))
    ///     })
    ///     .build()?;
    /// server.set_toolbox(upstream);
    /// assert!(session.toolbox().get("search").is_some());
    /// # Ok::<(), toolmodel::Error>(())
    /// ```
    pub fn set_toolbox(&self, toolbox: Toolbox) {
        self.tasks.enable_for(&toolbox);
        self.search.replace(&self.tools, toolbox);
        self.list_changed.notify();
    }

    /// A copy for a new session: the same toolbox (and its replacements) and identity, its
    /// own log level.
    pub(super) fn session(&self, transport: &'static str) -> Self {
        let mut session = Self {
            log_level: Arc::new(Mutex::new(None)),
            ..self.clone()
        };
        session.telemetry.session = Some(Arc::new(SessionClock::new(transport)));
        session
    }

    pub(super) fn session_log_level(&self) -> Option<LoggingLevel> {
        *crate::lock::lock(&self.log_level)
    }
}
