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
//! - The handler's [`CallContext`] reaches the client through `rmcp`'s peer: progress
//!   notifications for the request's `progressToken`, log messages (`notifications/message`,
//!   filtered by `logging/setLevel` or the request's `io.modelcontextprotocol/logLevel`),
//!   `sampling/createMessage` and `elicitation/create`; `notifications/cancelled` sets the
//!   context's [`Cancellation`].
//! - Capabilities: `tools` and `logging`.
//!
//! `rmcp::model::Tool` has no `execution` field and keeps no unknown key, so a listed tool
//! loses those (see [`convert`](crate::convert)); a result's keys that MCP does not define are
//! dropped the same way.

// Logging and sampling are deprecated by SEP-2577 (MCP 2026-07-28); MCP 2025-11-25 clients,
// which this server serves, use them.
#![allow(deprecated)]

mod connections;
mod host;
mod http_front;
mod limits;
mod misrouted;
mod origin;
mod sessions;
mod stdio;
mod transport;
mod wire;

pub use limits::Limits;
pub use transport::MCP_PATH;

use std::sync::{Arc, Mutex};

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, Implementation,
        ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig,
        SetLevelRequestParams,
    },
    service::RequestContext,
};
use toolmodel::{CallContext, Cancellation, LogLevel, Toolbox};

use self::{host::PeerHost, wire::error_data};

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
    /// What `serve_http` enforces (limits, allowed hosts and origins).
    http: transport::HttpSettings,
}

impl ToolboxServer {
    /// A server for `toolbox`, announcing itself as `toolmodel-rmcp` with this crate's version
    /// (change it with [`with_server_info`](Self::with_server_info)).
    #[must_use]
    pub fn new(toolbox: Toolbox) -> Self {
        Self {
            toolbox,
            info: Implementation::new(env!("CARGO_PKG_NAME"), env!("CARGO_PKG_VERSION")),
            instructions: None,
            log_level: Arc::new(Mutex::new(None)),
            http: transport::HttpSettings::default(),
        }
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
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let level = context
            .meta
            .log_level()
            .and_then(|level| wire::log_level_from_rmcp(&level))
            .or_else(|| self.session_log_level());
        let cancellation = Cancellation::new();
        let cx = CallContext::new()
            .with_host(Arc::new(PeerHost::new(
                context.peer.clone(),
                level,
                context.client_capabilities(),
            )))
            .with_cancellation(cancellation.clone())
            .with_meta(context.meta.0.0.clone())
            // A `progressToken` that is neither a string nor an integer: the request's fault.
            .map_err(|err| ErrorData::invalid_params(err.to_string(), None))?;
        let call = self.toolbox.call(&request.name, request.arguments, &cx);
        tokio::pin!(call);
        // `rmcp` cancels `ct` on `notifications/cancelled`; the handler sees it through its
        // context and decides how to stop.
        let result = tokio::select! {
            result = &mut call => result,
            () = context.ct.cancelled() => {
                cancellation.cancel();
                call.await
            }
        };
        let result = result.map_err(error_data)?;
        let version = wire::protocol_version(context.protocol_version());
        Ok(CallToolResponse::Complete(wire::result_to_rmcp(
            &result, version,
        )?))
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
}
