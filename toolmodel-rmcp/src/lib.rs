//! # toolmodel-rmcp
//!
//! Serve a [`toolmodel::Toolbox`] over MCP, stdio or Streamable HTTP, with
//! [`rmcp`](https://docs.rs/rmcp/3.11.0/rmcp/), the official Rust MCP SDK.
//!
//! ```no_run
//! use serde::Deserialize;
//! use toolmodel::{CallContext, SyncToolHandler, Tool, ToolError, Toolbox, schemars::{self, JsonSchema}};
//! use toolmodel_rmcp::ToolboxServer;
//!
//! /// Says hello.
//! #[derive(Default, Deserialize, JsonSchema, Tool)]
//! struct Greet { name: String }
//!
//! impl SyncToolHandler for Greet {
//!     type Reply = String;
//!     fn call_sync(&self, args: Greet, _cx: &CallContext) -> Result<String, ToolError> {
//!         Ok(format!("Hello, {}!", args.name))
//!     }
//! }
//!
//! #[tokio::main]
//! async fn main() -> Result<(), Box<dyn std::error::Error>> {
//!     let toolbox = Toolbox::builder().with(Greet::default()).build()?;
//!     if std::env::args().any(|arg| arg == "--http") {
//!         let listener = tokio::net::TcpListener::bind("127.0.0.1:8080").await?;
//!         ToolboxServer::new(toolbox).serve_http(listener).await?; // http://127.0.0.1:8080/mcp
//!     } else {
//!         ToolboxServer::new(toolbox).serve_stdio().await?; // the client starts this program
//!     }
//!     Ok(())
//! }
//! ```
//!
//! **The [guide] explains each job**: [stdio](guide::stdio), [Streamable HTTP](guide::http),
//! [asking the client for input](guide::input), [tasks](guide::tasks),
//! [composition](guide::composition) with prompts and resources, [production
//! limits](guide::production), [scale-out](guide::scale_out), the [conformance](guide::conformance)
//! results, and [conversions](guide::rmcp_types) to `rmcp`'s types. Defining tools and writing
//! handlers is the guide of `toolmodel` ([`toolmodel::guide`]).
//!
//! | module | what it holds |
//! |---|---|
//! | [`server`] | [`ToolboxServer`], an `rmcp` `ServerHandler` over a `Toolbox`: `tools/list` with pagination, `tools/call` with validated arguments and outputs, progress, logging, cancellation and input from the client for the handlers, tasks, composition with another handler ([`ToolboxServer::with_handler`]); its transports (stdio, Streamable HTTP) with [`server::HttpLimits`] |
//! | `auth` (feature `auth`) | the OAuth 2.1 resource server of MCP Authorization: tokens verified against the issuer's keys or by introspection, scopes, the Protected Resource Metadata |
//! | [`tasks`] | the store of the tasks extension (SEP-2663): in memory, or in Redis (feature `redis`) shared by replicas |
//! | `federation` (feature `federation`) | MCP servers as backends of a `Toolbox`; `ToolboxServer::gateway` serves them again as one server |
//! | [`telemetry`] | spans and metrics to OpenTelemetry's semantic conventions for MCP, trace context through `params._meta`; with feature `otel` the metrics and `telemetry::otel::Telemetry`, the setup of a binary's logs, OTLP export and Prometheus registry |
//! | [`admin`] | the admin listener: `/healthz`, `/readyz`, `/metrics`, `/status`, on a port apart from the MCP endpoint |
//! | [`convert`] | [`TryIntoRmcp`], [`TryFromRmcp`] and [`to_rmcp_lossy`]: tools, annotations and icons both ways, field by field; a conversion that would drop a value fails with [`Error::Lossy`] naming it by its JSON Pointer |
//! | [`guide`] | the guide, one chapter a job |
//!
//! Inside, for contributors: `error` ([`Error`], the crate's one error type), `lock` (locks
//! that outlive a panic), `reloadable` (a value replaced whole while it is read: a server's
//! tool list and policy, a federation's servers) and `task_set` (the tokio tasks a value
//! spawns, owned by it).
//!
//! | feature | default | brings |
//! |---|---|---|
//! | `auth` | yes | `auth`, [`ToolboxServer::with_authorization`]; the `jsonwebtoken`, `reqwest` and `rustls` crates. Without it (nor `federation`) a stdio-only or open HTTP server compiles no HTTP client, TLS or JWT code |
//! | `redis` | no | the Redis task store, `tasks::RedisTaskStore` |
//! | `federation` | no | `federation`: rmcp's client, child-process and Streamable HTTP client transports |
//! | `otel` | no | the metrics of `telemetry`, trace context joined to OpenTelemetry, `telemetry::otel::Telemetry`; the `opentelemetry` 0.33 family, `tracing-opentelemetry`, `tracing-subscriber` and `prometheus` |
//!
//! `toolmodel` itself depends on no async runtime and no networking crate; this crate brings
//! `rmcp`, `tokio` and `hyper`.

// Library code has no path to a panic on input: every failure is a typed error. Tests may
// unwrap.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

/// The crate README's example, compiled as a doc test.
#[doc = include_str!("../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;

pub mod admin;
#[cfg(feature = "auth")]
pub mod auth;
pub mod convert;
mod error;
#[cfg(feature = "federation")]
pub mod federation;
pub mod guide;
mod lock;
mod pointer;
#[cfg(feature = "redis")]
mod redis_link;
mod reloadable;
pub mod server;
pub mod sessions;
mod store_url;
mod suggest;
mod task_set;
pub mod tasks;
pub mod telemetry;

pub use convert::{TryFromRmcp, TryIntoRmcp, to_rmcp_lossy};
pub use error::Error;
/// `rmcp`, re-exported: the version this crate serves with.
pub use rmcp;
pub use server::ToolboxServer;
