//! # The serving guide
//!
//! One chapter per job of serving `toolmodel` tools over MCP. Every Rust block is compiled as
//! a doc test, and run unless it would start a server that waits for clients. Defining tools,
//! writing handlers, validation and the model loop are the guide of `toolmodel`:
//! [`toolmodel::guide`].
//!
//! | chapter | the job |
//! |---|---|
//! | [`stdio`] | serve a toolbox to a client that starts your program; what clients get |
//! | [`http`] | serve Streamable HTTP: on loopback, on a public address, graceful shutdown, `Host` and `Origin`, in your own router |
//! | [`input`] | handlers that ask the client for input: both protocol eras, the sealed `requestState` and its key |
//! | [`tasks`] | long-running tools as tasks (the tasks extension), tasks that ask for input, tasks across replicas (a Redis task store, leases) |
//! | [`composition`] | one server of your tools and another handler's prompts, resources and completion |
//! | [`public`] | serving to the public: MCP Authorization (OAuth 2.1 resource server), per-tool scopes, what is refused |
//! | [`production`] | connection, session and size limits, cancellation, the soak CI runs |
//! | [`scale_out`] | replicas behind nginx: stateless requests, 2025-era sessions on any replica, what a client may re-issue |
//! | [`conformance`] | the official MCP conformance suite, scenario by scenario |
//! | [`rmcp_types`] | converting tools to and from `rmcp::model::Tool` |
//! | `mcp_backends` | other MCP servers' tools in your toolbox, and one gateway in front of them (feature `federation`) |
//! | `observability` | spans and metrics to OpenTelemetry's MCP conventions, one trace across client, gateway and upstream, `/healthz` `/readyz` `/metrics` `/status`, log lines, Prometheus queries (feature `otel`) |
//! | [`large_catalogs`] | a catalog served as `search_tools` and `call_tool` (progressive disclosure, FastMCP-compatible), on a server and the gateway |

#[doc = include_str!("stdio.md")]
pub mod stdio {}

#[doc = include_str!("http.md")]
pub mod http {}

#[doc = include_str!("input.md")]
pub mod input {}

#[doc = include_str!("tasks.md")]
pub mod tasks {}

#[doc = include_str!("composition.md")]
pub mod composition {}

#[cfg(feature = "auth")]
#[doc = include_str!("public.md")]
pub mod public {}

#[doc = include_str!("production.md")]
pub mod production {}

#[doc = include_str!("scale_out.md")]
pub mod scale_out {}

#[doc = include_str!("conformance.md")]
pub mod conformance {}

#[doc = include_str!("rmcp_types.md")]
pub mod rmcp_types {}

#[cfg(feature = "federation")]
#[doc = include_str!("mcp_backends.md")]
pub mod mcp_backends {}

#[doc = include_str!("large_catalogs.md")]
pub mod large_catalogs {}

#[cfg(feature = "otel")]
#[doc = include_str!("observability.md")]
pub mod observability {}
