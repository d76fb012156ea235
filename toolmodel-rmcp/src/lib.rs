//! # toolmodel-rmcp
//!
//! [`toolmodel`] tools and [`rmcp`](https://docs.rs/rmcp/3.11.0/rmcp/), the official Rust MCP
//! SDK, together.
//!
//! - [`convert`]: [`IntoRmcp`], [`FromRmcp`] and [`to_rmcp_lossy`] convert tools, annotations
//!   and icons both ways, field by field; a conversion that would drop a value fails with
//!   [`Error::Lossy`] naming it by its JSON Pointer.
//! - [`server`]: [`ToolboxServer`] serves a [`toolmodel::Toolbox`] over MCP (stdio or Streamable
//!   HTTP): `tools/list` with pagination, `tools/call` with validated arguments and outputs,
//!   progress, logging, cancellation, sampling and elicitation for the handlers; with
//!   [`ToolboxServer::with_handler`], one part of a server whose prompts, resources and
//!   completion another `rmcp` handler serves.
//!
//! `toolmodel` itself depends on no async runtime and no networking crate; this crate brings
//! `rmcp` and `tokio`.

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

pub mod convert;
mod error;
pub mod server;

pub use convert::{FromRmcp, IntoRmcp, to_rmcp_lossy};
pub use error::Error;
/// `rmcp`, re-exported: the version this crate serves with.
pub use rmcp;
pub use server::ToolboxServer;
