//! [`ToolboxServer`]: an `rmcp` [`ServerHandler`] that serves a [`Toolbox`] (MCP 2025-11-25,
//! "Tools"), and its transports.
//!
//! - `tools/list`: the toolbox's pages written for the request's protocol version
//!   ([`Toolbox::list_for`]: the version in the request's `_meta`, else the one negotiated at
//!   `initialize`, else the newest), with `nextCursor` (and, for 2026-07-28, `ttlMs` and
//!   `cacheScope`); a cursor the server did not give is JSON-RPC `-32602`, a tool the version
//!   cannot express (an array `outputSchema` before 2026-07-28) `-32603`.
//! - `tools/call`: [`Toolbox::call`], so arguments are validated against the input schema and
//!   every violation comes back in an `isError: true` result with its JSON Pointer; a typed
//!   output is checked against the output schema. The result is written for the request's
//!   protocol version ([`CallToolResult::to_json_for`](toolmodel::CallToolResult::to_json_for)). An unknown tool is JSON-RPC `-32602`, a
//!   handler's [`ToolError::protocol`](toolmodel::ToolError::protocol) its own code, anything
//!   else (an output that fails its schema, a cancelled call) `-32603`
//!   ([`toolmodel::Error::jsonrpc_code`]).
//! - The handler's [`CallContext`](toolmodel::CallContext) reaches the client through `rmcp`'s peer: progress
//!   notifications for the request's `progressToken`, log messages (`notifications/message`,
//!   filtered by `logging/setLevel` or the request's `io.modelcontextprotocol/logLevel`),
//!   `sampling/createMessage` and `elicitation/create`; `notifications/cancelled` sets the
//!   context's [`Cancellation`](toolmodel::Cancellation).
//! - Capabilities: `tools` and `logging`.
//! - Everything else (prompts, resources, completion) goes to another `rmcp` handler when one
//!   is composed with [`ToolboxServer::with_handler`], whose capabilities are added; without
//!   one, those methods are JSON-RPC `-32601`.
//! - The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) for tools that declare
//!   task support: their calls run as tasks (`tasks/get`, `tasks/update`, `tasks/cancel`) for
//!   a client that declares the extension, with the per-request rules of an ordinary call; a
//!   task's [`CallContext::input`](toolmodel::CallContext::input) parks it in `input_required` until `tasks/update` answers,
//!   and [`CallContext::input_before_task`](toolmodel::CallContext::input_before_task) asks by input rounds before the task exists (see
//!   `tasks.rs`).
//!
//! **Asking the client for input** ([`CallContext::input`](toolmodel::CallContext::input)) follows the request's protocol
//! version. Before 2026-07-28 the server sends `elicitation/create`, `sampling/createMessage`
//! and `roots/list` to the client and hands the answers to the handler. Under 2026-07-28
//! (multi round-trip requests, SEP-2322) it answers the call with an `InputRequiredResult`
//! (`inputRequests` and a `requestState`), and runs the handler again on the client's retry
//! with the `inputResponses`. The `requestState` carries the answers so far and the
//! handler's state, sealed with an HMAC-SHA256 key
//! ([`with_request_state_key`](ToolboxServer::with_request_state_key); a random key per
//! process without it), bound to the tool's name and its arguments, valid for 10 minutes and
//! at most 64 KiB ([`with_request_state_ttl`](ToolboxServer::with_request_state_ttl),
//! [`with_request_state_limit`](ToolboxServer::with_request_state_limit)); a state that is
//! tampered with, foreign, for another call, expired or too large is JSON-RPC `-32602`.
//!
//! **Per-request rules of 2026-07-28**: the client's capabilities are those of the request's
//! `_meta` (a handler asking for input the client did not declare gets `-32021`
//! `MissingRequiredClientCapability`, which `rmcp` sends with HTTP 400); log notifications
//! go out only for requests whose `_meta` carries `io.modelcontextprotocol/logLevel`, at or
//! above it. `rmcp` itself checks `Mcp-Method`, `Mcp-Name` and each `x-mcp-header`
//! parameter's `Mcp-Param-*` header (plain or `=?base64?...?=`) against the body (`-32020`
//! `HeaderMismatch`, HTTP 400), from the tool's `inputSchema` this server gives it
//! (`ServerHandler::get_tool`).
//!
//! `rmcp::model::Tool` has no `execution` field and keeps no unknown key, so a listed tool
//! loses those (see [`convert`](crate::convert)); a result's keys that MCP does not define are
//! dropped the same way.

// Logging and sampling are deprecated by SEP-2577 (MCP 2026-07-28); MCP 2025-11-25 clients,
// which this server serves, use them.
#![allow(deprecated)]

mod call;
mod compose;
mod connections;
mod host;
mod http_front;
mod limits;
mod misrouted;
mod origin;
mod request_state;
mod sessions;
mod stdio;
mod task_input;
mod tasks;
mod transport;
mod wire;

pub use limits::Limits;
pub use request_state::{
    DEFAULT_REQUEST_STATE_LIMIT, DEFAULT_REQUEST_STATE_TTL, REQUEST_STATE_KEY_ENV, RequestStateKey,
};
pub use transport::MCP_PATH;

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, Implementation,
        ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
        SetLevelRequestParams, Tool as RmcpTool,
    },
    service::RequestContext,
};
use toolmodel::{LogLevel, Toolbox};

use self::{request_state::Sealer, wire::error_data};

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
    toolbox: Toolbox,
    info: Implementation,
    instructions: Option<String>,
    /// The lowest level the client asked for with `logging/setLevel`; `None`: everything.
    log_level: Arc<Mutex<Option<LogLevel>>>,
    /// Each listed tool as `rmcp` holds it, by MCP name, converted once: `rmcp` asks for a
    /// tool's `inputSchema` on every Streamable HTTP request (`get_tool`), and converting the
    /// tool each time would copy its schemas on every call.
    rmcp_tools: Arc<HashMap<String, RmcpTool>>,
    /// Seals and opens MCP 2026-07-28 `requestState`.
    sealer: Sealer,
    /// Serves what is not about tools or logging ([`with_handler`](Self::with_handler)).
    composed: compose::Composed,
    /// The tasks extension, on when a tool supports tasks (`tasks.rs`).
    tasks: tasks::Tasks,
    /// What `serve_http` enforces (limits, allowed hosts and origins).
    http: transport::HttpSettings,
}

impl ToolboxServer {
    /// A server for `toolbox`, announcing itself as `toolmodel-rmcp` with this crate's version
    /// (change it with [`with_server_info`](Self::with_server_info)).
    #[must_use]
    pub fn new(toolbox: Toolbox) -> Self {
        let rmcp_tools = toolbox
            .tools()
            .iter()
            .map(|tool| (tool.name.clone(), crate::to_rmcp_lossy(tool).0))
            .collect();
        Self {
            tasks: tasks::Tasks::for_toolbox(&toolbox),
            rmcp_tools: Arc::new(rmcp_tools),
            toolbox,
            info: Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")),
            instructions: None,
            log_level: Arc::new(Mutex::new(None)),
            sealer: Sealer::new(None),
            composed: compose::Composed::default(),
            http: transport::HttpSettings::default(),
        }
    }

    /// The key that authenticates the `requestState` of MCP 2026-07-28 input rounds (see the
    /// [module docs](crate::server)). Give every replica behind one address the same key, so
    /// that any of them can serve a client's retry; without one, the server uses a random key
    /// made once per process, and only that process can read its states. The examples read
    /// it from [`REQUEST_STATE_KEY_ENV`] (`MCP_REQUEST_STATE_KEY`, base64 of at least 32
    /// bytes: [`RequestStateKey::from_base64`]).
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

    /// How long a `requestState` stays valid ([`DEFAULT_REQUEST_STATE_TTL`]: 10 minutes); a
    /// retry after it is refused with JSON-RPC `-32602`.
    #[must_use]
    pub fn with_request_state_ttl(mut self, ttl: Duration) -> Self {
        self.sealer.ttl = ttl;
        self
    }

    /// The largest `requestState` written or accepted, in bytes
    /// ([`DEFAULT_REQUEST_STATE_LIMIT`]: 64 KiB). A handler whose state and answers would
    /// seal larger gets JSON-RPC `-32603`; a client sending a larger one `-32602`.
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

    /// The toolbox served.
    #[must_use]
    pub fn toolbox(&self) -> &Toolbox {
        &self.toolbox
    }

    /// A copy for a new session: the same toolbox and identity, its own log level.
    fn session(&self) -> Self {
        Self {
            log_level: Arc::new(Mutex::new(None)),
            ..self.clone()
        }
    }

    fn session_log_level(&self) -> Option<LogLevel> {
        self.log_level.lock().map_or(None, |level| *level)
    }
}

impl ServerHandler for ToolboxServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging()
            .build();
        let capabilities = self
            .tasks
            .capabilities(self.composed.capabilities(capabilities));
        let config = ServerConfig::new(capabilities).with_server_info(self.info.clone());
        match &self.instructions {
            Some(instructions) => config.with_instructions(instructions.clone()),
            None => config,
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let cursor = request.and_then(|request| request.cursor);
        let version = wire::protocol_version(context.protocol_version());
        let page = self
            .toolbox
            .list_for(version, cursor.as_deref())
            .map_err(error_data)?;
        wire::list_to_rmcp(&page)
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(task) = self.tasks.call_tool(self, &request, &context).await {
            return task;
        }
        let call = self.prepare_call(&request, &context, |peer| Arc::new(peer))?;
        // Input rounds seal the arguments into `requestState`, so they keep a copy.
        let arguments = if call.rounds {
            request.arguments.clone()
        } else {
            request.arguments.take()
        };
        let result = self.toolbox.call(&request.name, arguments, &call.cx);
        tokio::pin!(result);
        // `rmcp` cancels `ct` on `notifications/cancelled`; the handler sees it through its
        // context and decides how to stop.
        let result = tokio::select! {
            result = &mut result => result,
            () = context.ct.cancelled() => {
                call.cancellation.cancel();
                result.await
            }
        };
        let result = match result {
            Err(toolmodel::Error::InputRequired(required)) if call.rounds => {
                return self.input_required(&request, &call.cx, &required);
            }
            other => other.map_err(error_data)?,
        };
        let version = call.version;
        Ok(CallToolResponse::Complete(wire::result_to_rmcp(
            result, version,
        )?))
    }

    /// The tool's `inputSchema`, for `rmcp`'s check of `x-mcp-header` parameters against
    /// their `Mcp-Param-*` headers (MCP 2026-07-28, Streamable HTTP).
    fn get_tool(&self, name: &str) -> Option<RmcpTool> {
        self.rmcp_tools.get(name).cloned()
    }

    /// A request `rmcp` could not read as its method: `-32602` for an MCP method whose
    /// params do not fit, `-32601` for another method.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(misrouted::error(&request))
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let level = wire::log_level_from_rmcp(&request.level);
        if let Ok(mut current) = self.log_level.lock() {
            *current = level;
        }
        Ok(())
    }

    // Prompts, resources, completion: the handler of `with_handler`.
    compose::forward_to_composed!();
    tasks::serve_tasks!();
}
