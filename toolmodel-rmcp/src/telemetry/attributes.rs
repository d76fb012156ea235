//! The attribute names this crate's spans and metrics carry: OpenTelemetry's semantic
//! conventions for MCP (`docs/gen-ai/mcp.md`, status Development, since semantic-conventions
//! 1.39.0) and the general attributes they use, written out here because
//! `opentelemetry-semantic-conventions` lacks the MCP ones; then the few this crate adds, under
//! `toolmodel.`.

/// `mcp.method.name`: the JSON-RPC method of the request or notification (`tools/call`).
/// Required on every MCP span and metric.
pub const MCP_METHOD_NAME: &str = "mcp.method.name";
/// `mcp.protocol.version`: the MCP version the request was served under (`2025-11-25`).
pub const MCP_PROTOCOL_VERSION: &str = "mcp.protocol.version";
/// `mcp.session.id`: the `Mcp-Session-Id` of a 2025-era session over Streamable HTTP.
pub const MCP_SESSION_ID: &str = "mcp.session.id";
/// `mcp.resource.uri`: the `uri` of `resources/read`, `resources/subscribe` and
/// `resources/unsubscribe`.
pub const MCP_RESOURCE_URI: &str = "mcp.resource.uri";
/// `gen_ai.tool.name`: the tool of a `tools/call`.
pub const GEN_AI_TOOL_NAME: &str = "gen_ai.tool.name";
/// `gen_ai.prompt.name`: the prompt of a `prompts/get`.
pub const GEN_AI_PROMPT_NAME: &str = "gen_ai.prompt.name";
/// `gen_ai.operation.name`: `execute_tool` on a tool call, absent otherwise.
pub const GEN_AI_OPERATION_NAME: &str = "gen_ai.operation.name";
/// `gen_ai.tool.call.arguments`: a call's `arguments` as JSON. Opt-in: they may hold
/// secrets ([`ToolboxServer::with_recorded_tool_content`](crate::ToolboxServer::with_recorded_tool_content)).
pub const GEN_AI_TOOL_CALL_ARGUMENTS: &str = "gen_ai.tool.call.arguments";
/// `gen_ai.tool.call.result`: a call's result as JSON. Opt-in, as the arguments.
pub const GEN_AI_TOOL_CALL_RESULT: &str = "gen_ai.tool.call.result";
/// `jsonrpc.request.id`: the request's `id` as a string (`7`, `"a"` as `a`).
pub const JSONRPC_REQUEST_ID: &str = "jsonrpc.request.id";
/// `rpc.response.status_code`: the JSON-RPC error code of an error response, as a string
/// (`-32602`).
pub const RPC_RESPONSE_STATUS_CODE: &str = "rpc.response.status_code";
/// `error.type`: the JSON-RPC error code as a string, `tool_error` for a `CallToolResult`
/// with `isError: true`, `timeout` for an upstream that did not answer in time,
/// `unavailable` for an upstream whose session failed.
pub const ERROR_TYPE: &str = "error.type";
/// `network.transport`: `pipe` for stdio, `tcp` for Streamable HTTP.
pub const NETWORK_TRANSPORT: &str = "network.transport";
/// `network.protocol.name`: `http` over Streamable HTTP.
pub const NETWORK_PROTOCOL_NAME: &str = "network.protocol.name";
/// `network.protocol.version`: `1.1` (this crate's HTTP front serves HTTP/1.1).
pub const NETWORK_PROTOCOL_VERSION: &str = "network.protocol.version";
/// `client.address`: the peer's IP address, on the server side.
pub const CLIENT_ADDRESS: &str = "client.address";
/// `client.port`: the peer's port, on the server side.
pub const CLIENT_PORT: &str = "client.port";
/// `server.address`: an upstream's host, on the client side (the gateway's upstream calls).
pub const SERVER_ADDRESS: &str = "server.address";
/// `server.port`: an upstream's port, on the client side.
pub const SERVER_PORT: &str = "server.port";

/// `toolmodel.upstream`: the configured name of the upstream server a gateway's call went to.
pub const TOOLMODEL_UPSTREAM: &str = "toolmodel.upstream";
/// `toolmodel.refusal`: why the HTTP front refused a request (`origin`, `host`, `limit`,
/// `authorization`, `rate`, ...; the table on [`metrics`](super::metrics)).
pub const TOOLMODEL_REFUSAL: &str = "toolmodel.refusal";
/// `toolmodel.task.status`: the status a task ended in (`completed`, `failed`, `cancelled`).
pub const TOOLMODEL_TASK_STATUS: &str = "toolmodel.task.status";
/// `toolmodel.upstream.state`: an upstream's state (`starting`, `up`, `restarting`, `down`,
/// `shut_down`).
pub const TOOLMODEL_UPSTREAM_STATE: &str = "toolmodel.upstream.state";
