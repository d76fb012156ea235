//! [`ToolboxServer`]: an `rmcp` [`ServerHandler`] that serves a [`Toolbox`] (MCP 2025-11-25,
//! "Tools"), and its transports.
//!
//! How a request flows, by module:
//!
//! ```text
//!          serve_stdio (transport)         serve_http (transport)   http_service (transport)
//!                   │                               │                        │
//!                   ▼                               ▼                        │
//!   stdio: lines; parse errors answered   http::connections: accept,         │
//!                   │                       connection limit, header timeout │
//!                   │                               ▼                        ▼
//!                   │                     http::front (McpHttpService): path, Host and
//!                   │                       Origin, CORS preflight, gate, body, sessions;
//!                   │                       rmcp's wrong answers fixed (stages in http's docs)
//!                   └───────────────────┬───────────┘
//!                                       ▼
//!                 rmcp: JSON-RPC, initialize, Streamable HTTP sessions
//!                                       │ ServerHandler
//!                                       ▼
//! handler ─┬─ initialize, subscriptions/listen ─▶ list_changed (who hears of a new toolbox)
//!          ├─ tools/list ─▶ tool_list (the toolbox served now, or as tool_search discloses it)
//!          │                ─▶ convert::message
//!          ├─ tools/call ─▶ disclosure (search_tools answered, call_tool unwrapped), then
//!          │                task_route, to another server's tasks (a gateway's upstream)
//!          │                or task_call, as a task (running_tasks: store, peer, worker)
//!          │                or tool_call (context: peer, request_state) ─▶ Toolbox::call
//!          ├─ tasks/get, tasks/update, tasks/cancel ─▶ task_route or running_tasks
//!          ├─ logging/setLevel: a level per session
//!          ├─ prompts, resources, completion ─▶ compose (the handler of with_handler)
//!          └─ a request rmcp could not read ─▶ compat::misrouted
//! ```
//!
//! `toolbox_server` holds the struct they all serve, and says in which order the modules
//! import one another.
//!
//! - `tools/list`: the toolbox's pages written for the request's protocol version
//!   ([`Toolbox::list_for`]: the version in the request's `_meta`, else the one negotiated at
//!   `initialize`, else the newest), with `nextCursor` (and, for 2026-07-28, `ttlMs` and
//!   `cacheScope`); a cursor the server did not give is JSON-RPC `-32602`, a tool the version
//!   cannot express (an array `outputSchema` before 2026-07-28) `-32603`. Under a
//!   [`ToolPolicy`] ([`with_tool_policy`](ToolboxServer::with_tool_policy)) the caller's own
//!   tools only, `cacheScope: "private"`; a call of another is answered as an unknown tool's.
//! - `tools/call`: [`Toolbox::call`], so arguments are validated against the input schema and
//!   every violation comes back in an `isError: true` result with its JSON Pointer; a typed
//!   output is checked against the output schema. The result is written for the request's
//!   protocol version ([`CallToolResult::to_json_for`](toolmodel::CallToolResult::to_json_for)). An unknown tool is JSON-RPC `-32602`, a
//!   handler's [`ToolError::protocol`](toolmodel::ToolError::protocol) its own code, anything
//!   else (an output that fails its schema, a cancelled call) `-32603`
//!   ([`toolmodel::Error::jsonrpc_code`]). Under [`RateLimits`]
//!   ([`with_rate_limits`](ToolboxServer::with_rate_limits)) a call over a limit gets an
//!   `isError` result naming the rule and when to retry, before the handler runs.
//! - The handler's [`CallContext`](toolmodel::CallContext) reaches the client through `rmcp`'s peer: progress
//!   notifications for the request's `progressToken`, log messages (`notifications/message`,
//!   filtered by `logging/setLevel` or the request's `io.modelcontextprotocol/logLevel`),
//!   `sampling/createMessage` and `elicitation/create`; `notifications/cancelled` sets the
//!   context's [`Cancellation`](toolmodel::Cancellation).
//! - Capabilities: `tools` (with `listChanged`) and `logging`.
//! - [`ToolboxServer::set_toolbox`] replaces the toolbox in every clone and session and sends
//!   `notifications/tools/list_changed`: to each session that went through `initialize`, and,
//!   under MCP 2026-07-28, on each `subscriptions/listen` stream that asked for
//!   `toolsListChanged`. A request keeps the toolbox it started with.
//! - With [`ToolboxServer::with_tool_search`], a toolbox of more tools than its threshold is
//!   listed as `search_tools` and `call_tool` (and the tools always visible), FastMCP's
//!   progressive disclosure: see [`ToolSearch`] (`tool_search`, `disclosure`).
//! - Everything else (prompts, resources, completion) goes to another `rmcp` handler when one
//!   is composed with [`ToolboxServer::with_handler`], whose capabilities are added; without
//!   one, those methods are JSON-RPC `-32601`.
//! - The tasks extension (`io.modelcontextprotocol/tasks`, SEP-2663) for tools that declare
//!   task support: their calls run as tasks (`tasks/get`, `tasks/update`, `tasks/cancel`) for
//!   a client that declares the extension, with the per-request rules of an ordinary call; a
//!   task's [`CallContext::input`](toolmodel::CallContext::input) parks it in `input_required` until `tasks/update` answers,
//!   and [`CallContext::input_before_task`](toolmodel::CallContext::input_before_task) asks by input rounds before the task exists (see
//!   `running_tasks/mod.rs`; the store they live in: [`crate::tasks`]). A gateway's server (`ToolboxServer::gateway`,
//!   feature `federation`) hands the tasks of its upstreams to them instead
//!   (`task_route.rs`).
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
//!
//! [`ServerHandler`]: rmcp::ServerHandler
//! [`Toolbox`]: toolmodel::Toolbox
//! [`Toolbox::list_for`]: toolmodel::Toolbox::list_for
//! [`Toolbox::call`]: toolmodel::Toolbox::call

// Logging and sampling are deprecated by SEP-2577 (MCP 2026-07-28); MCP 2025-11-25 clients,
// which this server serves, use them.
#![allow(deprecated)]

// The modules import one another in one direction, from the state a server holds up to the
// `ServerHandler` impl (`toolbox_server.rs` says which module sits where).
mod compat;
mod compose;
mod disclosure;
#[cfg(feature = "federation")]
pub(crate) mod gateway;
mod handler;
mod http;
pub(crate) mod list_changed;
pub(crate) mod log_throttle;
pub(crate) mod tool_call;
#[cfg(feature = "federation")]
pub(crate) use compat::misrouted::kind as json_kind;
mod peer;
mod rate_limits;
pub(crate) mod request_state;
pub(crate) mod running_tasks;
mod task_call;
mod task_route;
mod tool_list;
mod tool_policy;
pub(crate) mod tool_search;
mod toolbox_server;
mod transport;
pub(crate) mod upstream_tasks;

pub use http::{HttpLimits, MCP_PATH, McpHttpBody, McpHttpService, ServeHttp};
#[cfg(feature = "redis")]
pub use rate_limits::DEFAULT_REDIS_LIMIT_PREFIX;
pub use rate_limits::{LIMITS_KEY, MAX_LOCAL_BUCKETS, RateLimits};
pub use request_state::{DEFAULT_REQUEST_STATE_LIMIT, DEFAULT_REQUEST_STATE_TTL, RequestStateKey};
pub use tool_policy::{POLICY_KEY, ToolPolicy};
pub use tool_search::{CALL_TOOL, DEFAULT_MAX_RESULTS, SEARCH_TOOLS, ToolSearch};
pub use toolbox_server::ToolboxServer;
