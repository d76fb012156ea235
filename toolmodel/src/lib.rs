//! # toolmodel
//!
//! Define an MCP ([Model Context Protocol](https://modelcontextprotocol.io)) tool once, in
//! Rust, and use it everywhere: serve it over MCP (with `toolmodel-rmcp`), hand it to
//! Anthropic, OpenAI or Gemini, and validate what a model sends it. Exact to MCP 2026-07-28
//! and every version back to 2024-11-05, with a JSON Schema validator that never touches the
//! network or the filesystem.
//!
//! ```
//! # #[cfg(feature = "derive")] {
//! use serde::Deserialize;
//! use serde_json::json;
//! use toolmodel::{
//!     CallContext, SyncToolHandler, Tool, ToolDefinition, ToolError, Toolbox,
//!     schemars::{self, JsonSchema},
//! };
//!
//! /// Current weather for a city.
//! #[derive(Default, Deserialize, JsonSchema, Tool)]
//! #[tool(namespace = "weather", annotations(read_only))]
//! struct GetWeather {
//!     /// City name.
//!     city: String,
//! }
//!
//! impl SyncToolHandler for GetWeather {
//!     type Reply = String;
//!     fn call_sync(&self, args: GetWeather, _cx: &CallContext) -> Result<String, ToolError> {
//!         Ok(format!("Sunny in {}", args.city))
//!     }
//! }
//!
//! assert_eq!(GetWeather::ID, "weather:get_weather"); // checked at compile time
//! let toolbox = Toolbox::builder().with(GetWeather::default()).build()?;
//! let cx = CallContext::new();
//! let call = |args: serde_json::Value| {
//!     pollster::block_on(toolbox.call("weather.get_weather", args.as_object().cloned(), &cx))
//! };
//! assert_eq!(call(json!({"city": "Paris"}))?.text_content(), "Sunny in Paris");
//! // Arguments are validated before the handler runs; a model reads every violation.
//! let refused = call(json!({"town": "Paris"}))?;
//! assert!(refused.is_error());
//! assert!(refused.text_content().contains(r#"(root): "city" is a required property"#));
//! # }
//! # Ok::<(), toolmodel::Error>(())
//! ```
//!
//! **The [guide] explains each job**, every example in it compiled and run:
//! [defining tools](guide::defining) (derive, by hand, from MCP JSON),
//! [calling them and writing handlers](guide::calling) (state, progress, cancellation, images,
//! asking the client for input), [validating](guide::validating), [using them with a
//! model](guide::models), [converting and linting](guide::converting), [protocol
//! versions](guide::protocol_versions) and [security](guide::security). Serving over MCP is the
//! guide of [`toolmodel-rmcp`](https://docs.rs/toolmodel-rmcp/latest/toolmodel_rmcp/guide/index.html).
//!
//! ## What is where
//!
//! - [`Tool`](struct@Tool): the MCP `Tool` (name, title, description, `inputSchema`,
//!   `outputSchema`, [`ToolAnnotations`], [`Icon`](model::Icon)s,
//!   [`ToolExecution`](model::ToolExecution), `_meta`) plus the extensions `namespace`,
//!   `version`, `tags` and [`Backend`] bindings; [`Tool::validate`] checks every MCP rule and
//!   reports every violation. [`Tool::to_mcp_json`] / [`Tool::from_mcp_json`] for the wire,
//!   [`Tool::to_json`] / [`Tool::from_json`] for everything; [`ToolId`],
//!   [`normalize_tags`](model::tags::normalize_tags),
//!   [`catalog::tool_values`](wire::catalog::tool_values); [`ProtocolVersion`].
//! - `#[derive(Tool)]` ([`ToolDefinition`], feature `derive`): a tool from a Rust type, checked
//!   at compile time, its schemas made client-friendly by [`SchemaProfile`].
//! - [`ToolHandler`] / [`SyncToolHandler`] and [`Toolbox`]: `tools/list` and `tools/call`, with
//!   arguments and outputs validated; handlers get a [`CallContext`] for progress, logging,
//!   cancellation and input from the client, through the server's [`CallPeer`](peer::CallPeer).
//! - [`SchemaValidator`] and [`DefaultValidator`]: arguments against `inputSchema`, results
//!   against `outputSchema`, compiled once and cached, bounded by
//!   [`ValidationLimits`](validate::ValidationLimits).
//! - `adapters` and `model_calls` (feature `adapters`): tools to and from the OpenAI,
//!   Anthropic and Gemini formats, and a model's tool calls run against a [`Toolbox`].
//!
//! The root holds the everyday names; the rest is in modules named for what they hold:
//! [`content`] (a result's content blocks), [`input`] (asking the client for input),
//! [`peer`] (what a server implements to carry a call), [`list`] (`tools/list` results),
//! [`define`] (tools defined by Rust types), [`model`] (what a tool is made of),
//! [`validate`] (validation and its bounds), [`wire`] (JSON forms and finding tools),
//! `adapters` and `model_calls`; the [guide] is documentation only.
//!
//! ## Features
//!
//! - `derive` (default): `#[derive(Tool)]`, re-exported as `toolmodel::Tool`.
//! - `adapters` (default): `adapters` and `model_calls`.
//! - `inventory`: `#[tool(register)]`, `registered_tools()` and
//!   `ToolboxBuilder::with_registered`.
//!
//! `toolmodel` depends on no async runtime and no networking crate. It mirrors the
//! specification instead of embedding `rmcp::model::Tool`: `rmcp` always compiles `tokio`, and
//! its `Tool` (3.11) has no `execution` field, so a gateway built on it would drop
//! `execution.taskSupport` from every tool it passes on. The crate `toolmodel-rmcp` converts
//! between the two (never dropping anything silently) and serves tools over MCP with `rmcp`.

#![cfg_attr(docsrs, feature(doc_cfg))]
// Library code has no path to a panic on input: every failure is a typed error. Tests may
// unwrap; a justified local `allow` marks the rest.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

#[cfg(feature = "adapters")]
#[cfg_attr(docsrs, doc(cfg(feature = "adapters")))]
pub mod adapters;
mod call;
pub mod define;
mod error;
pub mod guide;
mod json;
pub mod model;
#[cfg(feature = "adapters")]
#[cfg_attr(docsrs, doc(cfg(feature = "adapters")))]
pub mod model_calls;
mod pointer;
pub mod search;
pub mod validate;
pub mod wire;

pub use call::caller::{AccessToken, Caller};
pub use call::cancellation::Cancellation;
pub use call::content;
pub use call::context::CallContext;
pub use call::handler::{IntoCallToolResult, SyncToolHandler, ToolHandler};
pub use call::input;
pub use call::list;
pub use call::peer;
pub use call::result::CallToolResult;
pub use call::tool_error::ToolError;
pub use call::toolbox::{Toolbox, ToolboxBuilder};
pub use define::definition::{NoArguments, NoOutput, ToolDefinition};
pub use define::profile::SchemaProfile;
#[cfg(feature = "inventory")]
#[cfg_attr(docsrs, doc(cfg(feature = "inventory")))]
pub use define::registry::{RegisteredTool, registered_tools};
pub use error::Error;
pub use model::backend::Backend;
pub use model::id::ToolId;
pub use model::protocol::ProtocolVersion;
pub use model::schema::ToolSchema;
pub use model::tool::{Tool, ToolAnnotations};
pub use validate::validator::{DefaultValidator, SchemaValidator};
pub use validate::violation::Violation;

/// `schemars` 1, re-exported: derive `JsonSchema` through it, with `use toolmodel::schemars;` in
/// scope (the `schemars` derive refers to the crate as `schemars`).
pub use schemars;

/// `#[derive(Tool)]`: see [`ToolDefinition`] and the macro's own page for every attribute.
#[cfg(feature = "derive")]
#[cfg_attr(docsrs, doc(cfg(feature = "derive")))]
pub use toolmodel_derive::Tool;

/// Not public API: what `#[derive(Tool)]` generates code against, by absolute path, so that
/// users need no other dependency.
#[doc(hidden)]
pub mod __private {
    #[cfg(feature = "inventory")]
    pub use crate::call::registered::{
        Probe, Servable, ServeDefault, ServeNothing, ServeNothingWith, ServeStateful, ServeWith,
    };
    pub use crate::define::definition::private::{
        AnnotationsSpec, Definition, IconSpec, SchemaOf, Spec, deserialize, deserialize_own,
        profile, serialize,
    };
    pub use crate::define::definition::{
        InputDeserialize, InputSchema, OutputSchema, OutputSerialize, OwnArgumentsDeserialize,
        OwnArgumentsSchema,
    };
    #[cfg(feature = "inventory")]
    pub use crate::define::registry::Registration;
    #[cfg(feature = "inventory")]
    pub use inventory;
    pub use serde_json::Value;
    pub use std::option::Option::{self, None, Some};

    /// Glob-imported by `#[derive(Tool)]` into the tool's module: a `schemars` for the code
    /// `#[derive(JsonSchema)]` generates when only `use toolmodel::schemars::JsonSchema;` is
    /// written; any explicit `schemars` in the module shadows it.
    pub mod schemars_in_scope {
        pub use crate::schemars;
    }
    pub use std::result::Result;

    /// `#[tool(register)]`, with the `inventory` feature: submits the tool.
    #[cfg(feature = "inventory")]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __toolmodel_register {
        ($ty:ty) => {
            $crate::__private::inventory::submit! {
                $crate::__private::Registration::of::<$ty>()
            }
            $crate::__private::inventory::submit! {
                $crate::__private::Servable::of::<$ty>(|builder| {
                    #[allow(unused_imports)]
                    use $crate::__private::{ServeDefault as _, ServeNothing as _, ServeStateful as _};
                    ((&&&$crate::__private::Probe::<$ty>::NEW).serve())(builder)
                })
            }
        };
        // A unit struct: `$value` is its handler, so it needs no `Default`.
        ($ty:ty, $value:expr) => {
            $crate::__private::inventory::submit! {
                $crate::__private::Registration::of::<$ty>()
            }
            $crate::__private::inventory::submit! {
                $crate::__private::Servable::of::<$ty>(|builder| {
                    #[allow(unused_imports)]
                    use $crate::__private::{ServeNothingWith as _, ServeWith as _};
                    (&&$crate::__private::Probe::<$ty>::NEW).serve_with(builder, $value)
                })
            }
        };
    }

    /// `#[tool(register)]`, without the `inventory` feature: a compile error that says so.
    #[cfg(not(feature = "inventory"))]
    #[macro_export]
    #[doc(hidden)]
    macro_rules! __toolmodel_register {
        ($ty:ty $(, $value:expr)?) => {
            ::core::compile_error! {
                "`#[tool(register)]` needs the `inventory` feature of `toolmodel`: `toolmodel = { version = \"0.1\", features = [\"inventory\"] }`"
            }
        };
    }

    pub use crate::__toolmodel_register as register;
}

/// The newest MCP protocol version this crate models, [`ProtocolVersion::LATEST`] as its date
/// string: the version every API reads and writes by default (see [`ProtocolVersion`] for each
/// API's default and the older versions it can write).
pub const MCP_VERSION: &str = ProtocolVersion::LATEST.as_str();
