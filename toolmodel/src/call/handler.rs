//! [`ToolHandler`]: a tool defined by `#[derive(Tool)]` that can be called, and what it may
//! return ([`IntoCallToolResult`]); how it fails is [`ToolError`].

use std::future::Future;

use serde_json::Value;

use crate::call::content::{ContentBlock, TextContent};
use crate::call::context::CallContext;
use crate::call::result::CallToolResult;
use crate::call::tool_error::ToolError;
use crate::define::definition::{NoOutput, ToolDefinition, ToolOutput};
use crate::error::Error;

/// A tool that can be called: the [`ToolDefinition`] `#[derive(Tool)]` gives, plus the code
/// that runs.
///
/// `call` receives the arguments already validated against the input schema and deserialized
/// into [`ToolDefinition::Input`] (the struct itself, or `#[tool(input = ...)]`), and the
/// [`CallContext`]. It returns a [`Reply`](Self::Reply):
///
/// - the tool's output type (`#[tool(output = T)]`): it becomes `structuredContent`, checked
///   against the `outputSchema`, plus its JSON text as a text block (MCP 2025-11-25,
///   "Structured Content");
/// - content instead: a [`CallToolResult`] (several blocks:
///   `CallToolResult::from_content(blocks)`), a [`ContentBlock`] or a [`TextContent`]; a
///   tool with no output type may also return a `String` (one text block). For a tool with an
///   `outputSchema`, a successful result must still carry a `structuredContent` that matches
///   it (MCP 2025-11-25, "Output Schema": servers MUST); a [`Toolbox`](crate::Toolbox) checks.
///
/// A failure is a [`ToolError`]: by default an `isError: true` result the model can read,
/// or, with [`ToolError::protocol`], a JSON-RPC error for the cases MCP says are not tool
/// errors. Any `std::error::Error` converts with `?`.
///
/// Write `call` as an `async fn`; it is runtime-agnostic (no executor is assumed), and a
/// handler that never awaits is simply an `async fn` without `.await`, or a
/// [`SyncToolHandler`].
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use toolmodel::{CallContext, ToolError, ToolHandler, schemars::{self, JsonSchema}};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct AddArgs { a: i64, b: i64 }
///
/// #[derive(Serialize, JsonSchema)]
/// struct Sum { sum: i64 }
///
/// /// Adds two integers.
/// #[derive(toolmodel::Tool)]
/// #[tool(input = AddArgs, output = Sum)]
/// struct Add;
///
/// impl ToolHandler for Add {
///     type Reply = Sum;
///     async fn call(&self, args: AddArgs, _cx: &CallContext) -> Result<Sum, ToolError> {
///         let sum = args.a.checked_add(args.b).ok_or(ToolError::new("the sum overflows"))?;
///         Ok(Sum { sum })
///     }
/// }
/// ```
pub trait ToolHandler: ToolDefinition + Send + Sync + 'static {
    /// What `call` returns on success; see the [trait docs](ToolHandler).
    type Reply: IntoCallToolResult<Self::Output> + Send;

    /// Runs the tool.
    fn call(
        &self,
        input: Self::Input,
        cx: &CallContext,
    ) -> impl Future<Output = Result<Self::Reply, ToolError>> + Send;
}

/// A [`ToolHandler`] whose work is synchronous: implement this instead, and the blanket
/// implementation makes it a `ToolHandler` whose future is ready at once.
///
/// Blocking work (file or network I/O, long computations) belongs in the runtime's blocking
/// pool, not here: an executor thread runs `call_sync`.
///
/// ```
/// use serde::Deserialize;
/// use toolmodel::{CallContext, SyncToolHandler, ToolError, schemars::{self, JsonSchema}};
///
/// /// Says hello.
/// #[derive(Deserialize, JsonSchema, toolmodel::Tool)]
/// struct Greet { name: String }
///
/// impl SyncToolHandler for Greet {
///     type Reply = String; // no output type: one text block
///     fn call_sync(&self, args: Greet, _cx: &CallContext) -> Result<String, ToolError> {
///         Ok(format!("Hello, {}!", args.name))
///     }
/// }
/// ```
pub trait SyncToolHandler: ToolDefinition + Send + Sync + 'static {
    /// What `call_sync` returns on success; see [`ToolHandler::Reply`].
    type Reply: IntoCallToolResult<Self::Output> + Send;

    /// Runs the tool.
    ///
    /// # Errors
    ///
    /// The tool's failure, as a [`ToolError`].
    fn call_sync(&self, input: Self::Input, cx: &CallContext) -> Result<Self::Reply, ToolError>;
}

impl<T> ToolHandler for T
where
    T: SyncToolHandler,
    T::Input: Send,
{
    type Reply = <T as SyncToolHandler>::Reply;

    fn call(
        &self,
        input: Self::Input,
        cx: &CallContext,
    ) -> impl Future<Output = Result<Self::Reply, ToolError>> + Send {
        std::future::ready(self.call_sync(input, cx))
    }
}

/// What a handler may return, for a tool whose output type is `O`
/// ([`ToolDefinition::Output`]); the `axum` `IntoResponse` of tools.
///
/// Implemented for:
/// - `O` itself, for every [`ToolOutput`]: `structuredContent` checked against the output
///   schema, plus its JSON text;
/// - [`CallToolResult`] (sent as it is), [`ContentBlock`] and [`TextContent`], for any `O`
///   (`Vec<ContentBlock>` cannot be one: `schemars` could make a `Vec` a [`ToolOutput`]; use
///   [`CallToolResult::from_content`]);
/// - `String` and `&'static str`, for tools with no output type ([`NoOutput`]): one text
///   block.
///
/// The method is not public API; the list above is the contract.
pub trait IntoCallToolResult<O> {
    /// Not public API: the result, given how to make `structuredContent` from an `O` (the
    /// toolbox checks every successful result against the output schema afterwards).
    #[doc(hidden)]
    fn __into_result(
        self,
        structured: fn(&O) -> Result<Value, Error>,
    ) -> Result<CallToolResult, Error>;
}

impl<O: ToolOutput> IntoCallToolResult<O> for O {
    fn __into_result(
        self,
        structured: fn(&O) -> Result<Value, Error>,
    ) -> Result<CallToolResult, Error> {
        Ok(CallToolResult::structured(structured(&self)?))
    }
}

impl<O> IntoCallToolResult<O> for CallToolResult {
    fn __into_result(self, _: fn(&O) -> Result<Value, Error>) -> Result<CallToolResult, Error> {
        Ok(self)
    }
}

impl<O> IntoCallToolResult<O> for ContentBlock {
    fn __into_result(self, _: fn(&O) -> Result<Value, Error>) -> Result<CallToolResult, Error> {
        Ok(CallToolResult::from_content([self]))
    }
}

impl<O> IntoCallToolResult<O> for TextContent {
    fn __into_result(self, _: fn(&O) -> Result<Value, Error>) -> Result<CallToolResult, Error> {
        Ok(CallToolResult::from_content([ContentBlock::Text(self)]))
    }
}

impl IntoCallToolResult<NoOutput> for String {
    fn __into_result(
        self,
        _: fn(&NoOutput) -> Result<Value, Error>,
    ) -> Result<CallToolResult, Error> {
        Ok(CallToolResult::text(self))
    }
}

impl IntoCallToolResult<NoOutput> for &'static str {
    fn __into_result(
        self,
        _: fn(&NoOutput) -> Result<Value, Error>,
    ) -> Result<CallToolResult, Error> {
        Ok(CallToolResult::text(self))
    }
}
