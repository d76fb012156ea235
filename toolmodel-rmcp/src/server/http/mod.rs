//! The Streamable HTTP front of a [`ToolboxServer`](crate::ToolboxServer) (MCP 2025-11-25
//! and 2026-07-28, "Transports", Streamable HTTP): [`McpHttpService`], a `tower` service that
//! runs every request through ordered stages around `rmcp`'s `StreamableHttpService`, and
//! the TCP connections [`serve_http`](crate::ToolboxServer::serve_http) serves it on.
//!
//! One module per stage, in the order a request meets them (each may answer the request
//! itself and stop it there, as a [`Refusal`](refusal::Refusal)):
//!
//! 0. `gate`'s metadata: with authorization, a `GET` of a Protected Resource Metadata URI
//!    (RFC 9728), answered after the `Host` and `Origin` checks, with no token;
//! 1. `path`: the served path, when one is set ([`MCP_PATH`] under `serve_http`);
//! 2. `host_origin`: the `Host` and `Origin` allow-lists;
//! 3. `cors`: a CORS preflight from an allowed origin, answered 204 (and, on the way out,
//!    the CORS headers of every response to an allowed origin, refusals included);
//! 4. `gate`: who sends the request, from its head alone: open, or with authorization the
//!    bearer token and the scopes the server and the `Mcp-Name` tool need ([`crate::auth`]);
//! 5. `body`: the whole body, within the limits; `message` reads it once (each JSON-RPC
//!    message's method, tool name and id, carried in the request's extensions as an
//!    `Envelope`), for the gate's scope check of each `tools/call` it holds, admission and
//!    the fix of `rmcp`'s answer (step 8);
//! 6. the request rules of the server's [`RateLimits`](crate::server::RateLimits) (429 with
//!    `Retry-After`), for a body that holds a JSON-RPC request; then `admission`: the session limits, over the `sessions` table, and the limit of a
//!    caller's requests that name no session, over the `callers` table;
//! 7. `rmcp`'s service;
//! 8. `compat::json_errors` ([`compat`](super::compat), every workaround of `rmcp` 3.11 in one
//!    place): what `rmcp` 3.11 answers to a JSON body it cannot read, rewritten.
//!
//! `front` runs them in that order ([`McpHttpService`], whose docs have the table of the
//! answers fixed in front of `rmcp`); `refusal` declares, in one table, what each refusal answers (status, text,
//! `Retry-After`, whether it closes the connection); `response` holds the response bodies; `limits` ([`HttpLimits`]) and
//! `settings` what a server is configured with; `connections` the TCP side of `serve_http`.
//!
//! The modules import one another in one direction: `limits`, `settings`, `response`,
//! `refusal`, `message`; then the stages (`path`, `host_origin`, `cors`, `gate`, `body`, `sessions`,
//! `callers`, `admission`); then `front`; then `connections`; then `serve` ([`ServeHttp`]).

mod admission;
mod body;
mod callers;
pub(super) mod connections;
mod cors;
mod front;
#[cfg(feature = "auth")]
mod gate;
mod host_origin;
mod limits;
pub(crate) mod message;
mod path;
mod refusal;
pub(super) mod response;
mod serve;
mod sessions;
mod settings;
mod shared_sessions;

pub use front::McpHttpService;
pub(crate) use host_origin::default_port;
pub use limits::HttpLimits;
pub use path::MCP_PATH;
pub use response::McpHttpBody;
pub use serve::ServeHttp;
pub(crate) use settings::HttpSettings;
