//! What a server, a gateway and their task workers tell an operator: spans and events through
//! `tracing`, metrics through the `opentelemetry` API (feature `otel`), both to OpenTelemetry's
//! semantic conventions for MCP (`docs/gen-ai/mcp.md`; the names are in [`attributes`]).
//! The guide's chapter `observability` (feature `otel`) has the whole table and the
//! setup of a binary.
//!
//! | seam | span (`tracing` target) | metric |
//! |---|---|---|
//! | each MCP request a [`ToolboxServer`](crate::ToolboxServer) handles | `mcp.server`, kind SERVER, `{mcp.method.name} {target}` (`toolmodel_rmcp::mcp`), its parent the request's `params._meta` trace context | `mcp.server.operation.duration` |
//! | each call a gateway makes of an upstream tool | `mcp.client`, kind CLIENT, `tools/call {tool}` (`toolmodel_rmcp::mcp`), its context written into the upstream request's `params._meta` | `mcp.client.operation.duration` |
//! | a 2025-era session | | `mcp.server.session.duration`, `toolmodel.server.sessions` |
//! | a gateway's session with an upstream | | `mcp.client.session.duration` |
//! | each task run by a worker | `task.run`, linked to the request that created the task (`toolmodel_rmcp::tasks`) | `toolmodel.tasks.running`, `toolmodel.tasks.finished` |
//! | a request the HTTP front refuses | event with its reason (`toolmodel_rmcp::http`) | `toolmodel.http.refusals` |
//! | a tool call ended | event: tool, duration, outcome, caller's subject (`toolmodel_rmcp::access`) | |
//! | a gateway's upstreams | | `toolmodel.upstream.up`, `.restarts`, `.failures`, `.tools` ([`observe_federation`]) |
//!
//! Arguments and results are never recorded unless a server opts in
//! ([`ToolboxServer::with_recorded_tool_content`](crate::ToolboxServer::with_recorded_tool_content));
//! tokens never are. Every value a peer sends is bounded before it is recorded (names, URIs
//! and ids to 256 bytes, opted-in content to 4 KiB; trace context as in [`trace_context`]).

pub mod attributes;
#[cfg(feature = "federation")]
pub(crate) mod client_operation;
pub mod metrics;
#[cfg(feature = "otel")]
pub mod otel;
pub(crate) mod server_operation;
pub(crate) mod session;
pub mod trace_context;
#[cfg(all(feature = "otel", feature = "federation"))]
mod upstreams;

#[cfg(all(feature = "otel", feature = "federation"))]
pub use upstreams::observe_federation;

/// The explicit bucket boundaries, in seconds, of every duration histogram of the MCP
/// conventions (`mcp.server.operation.duration` and the others).
pub const DURATION_BUCKETS: [f64; 14] = [
    0.01, 0.02, 0.05, 0.1, 0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 60.0, 120.0, 300.0,
];

/// What a [`ToolboxServer`](crate::ToolboxServer) records beyond the defaults, and the clock of
/// its session.
#[derive(Clone, Debug, Default)]
pub(crate) struct ServerTelemetry {
    /// `gen_ai.tool.call.arguments` and `.result` on tool call spans (opt-in).
    pub(crate) record_content: bool,
    /// The session this server instance serves, once a transport made one.
    pub(crate) session: Option<std::sync::Arc<session::SessionClock>>,
}
