//! # The guide
//!
//! One chapter per job. Every Rust block below is compiled and run as a doc test, and every
//! output shown is an example's real output (a test in the repository compares them), so the
//! guide changes with the crate.
//!
//! | chapter | the job |
//! |---|---|
//! | [`defining`] | define tools: `#[derive(Tool)]`, by hand, from MCP JSON; the model behind them |
//! | [`calling`] | call tools through a `Toolbox`; handlers with state, progress, cancellation, images; asking the client for input |
//! | [`validating`] | validate arguments and results; what a model reads when its arguments are wrong |
//! | [`models`] | run a model's tool calls: Anthropic, OpenAI Chat, OpenAI Responses, Gemini |
//! | [`large_catalogs`] | search a catalog of thousands of tools; defer tools and let the model search (each provider's way) |
//! | [`converting`] | convert tools to and from the providers' formats; the `toolmodel` command (lint, convert, validate) |
//! | [`protocol_versions`] | MCP 2024-11-05 to 2026-07-28: what each version carries, reading and writing for one |
//! | [`security`] | what `toolmodel` does with hostile input: no network, bounds, typed errors, fuzzing |
//!
//! Serving tools over MCP (stdio, Streamable HTTP, tasks, composition, production limits,
//! scale-out) is the guide of `toolmodel-rmcp`:
//! [`toolmodel_rmcp::guide`](https://docs.rs/toolmodel-rmcp/latest/toolmodel_rmcp/guide/index.html).
//! The examples are in the repository's `examples/` folder; the benchmarks, with their last
//! figures, in its `BENCHMARKS.md`.
//!
//! ## The quickstart
//!
//! `cargo run --example quickstart` (`examples/quickstart.rs`) derives three tools, puts them
//! in a `Toolbox`, prints the `tools/list` result, then makes a valid call, a call with bad
//! arguments (an `isError` result naming every violation with its JSON Pointer), a call with
//! structured output, a call of a tool without parameters, and a call of an unknown tool (a
//! JSON-RPC `-32602` error). It prints:
//!
#![doc = "```text"]
#![doc = include_str!("files/quickstart.txt")]
#![doc = "```"]

#[doc = include_str!("defining.md")]
pub mod defining {}

#[doc = include_str!("calling.md")]
pub mod calling {}

#[doc = include_str!("validating.md")]
pub mod validating {}

#[doc = include_str!("models.md")]
#[doc = "```text"]
#[doc = include_str!("files/agent_loop.txt")]
#[doc = "```"]
pub mod models {}

#[doc = include_str!("large_catalogs.md")]
#[doc = include_str!("large_catalogs_models.md")]
pub mod large_catalogs {}

#[doc = include_str!("converting.md")]
#[doc = ""]
#[doc = "```json"]
#[doc = include_str!("files/tools.json")]
#[doc = "```"]
#[doc = ""]
#[doc = "```text"]
#[doc = include_str!("files/lint.txt")]
#[doc = ""]
#[doc = include_str!("files/lint-openai-strict.txt")]
#[doc = ""]
#[doc = include_str!("files/validate.txt")]
#[doc = "```"]
pub mod converting {}

#[doc = include_str!("protocol_versions.md")]
pub mod protocol_versions {}

#[doc = include_str!("security.md")]
pub mod security {}
