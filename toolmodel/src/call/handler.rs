//! [`ToolHandler`]: a tool defined by `#[derive(Tool)]` that can be called; what it may
//! return ([`IntoCallToolResult`]) and how it fails ([`ToolError`]).

use std::{fmt, future::Future};

use serde_json::Value;

use crate::call::content::{ContentBlock, TextContent};
use crate::call::context::CallContext;
use crate::call::input::InputRequired;
use crate::call::result::CallToolResult;
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
/// Blocking work (file or network I/O, long computations) belongs in the host's blocking
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
    /// Not public API: the result, given how to make and check `structuredContent`, and
    /// whether its `structuredContent` was checked against the output schema already.
    #[doc(hidden)]
    fn __into_result(
        self,
        structured: fn(&O) -> Result<Value, Error>,
    ) -> Result<(CallToolResult, Checked), Error>;
}

/// Not public API: whether a reply's `structuredContent` was checked against the output
/// schema when it was made.
#[doc(hidden)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Checked {
    /// Made by `ToolDefinition::structured_content`, which checks it.
    Yes,
    /// Made by the handler: the toolbox checks it.
    No,
}

impl<O: ToolOutput> IntoCallToolResult<O> for O {
    fn __into_result(
        self,
        structured: fn(&O) -> Result<Value, Error>,
    ) -> Result<(CallToolResult, Checked), Error> {
        Ok((CallToolResult::structured(structured(&self)?), Checked::Yes))
    }
}

impl<O> IntoCallToolResult<O> for CallToolResult {
    fn __into_result(
        self,
        _: fn(&O) -> Result<Value, Error>,
    ) -> Result<(CallToolResult, Checked), Error> {
        Ok((self, Checked::No))
    }
}

impl<O> IntoCallToolResult<O> for ContentBlock {
    fn __into_result(
        self,
        _: fn(&O) -> Result<Value, Error>,
    ) -> Result<(CallToolResult, Checked), Error> {
        Ok((CallToolResult::from_content([self]), Checked::No))
    }
}

impl<O> IntoCallToolResult<O> for TextContent {
    fn __into_result(
        self,
        _: fn(&O) -> Result<Value, Error>,
    ) -> Result<(CallToolResult, Checked), Error> {
        Ok((
            CallToolResult::from_content([ContentBlock::Text(self)]),
            Checked::No,
        ))
    }
}

impl IntoCallToolResult<NoOutput> for String {
    fn __into_result(
        self,
        _: fn(&NoOutput) -> Result<Value, Error>,
    ) -> Result<(CallToolResult, Checked), Error> {
        Ok((CallToolResult::text(self), Checked::No))
    }
}

impl IntoCallToolResult<NoOutput> for &'static str {
    fn __into_result(
        self,
        _: fn(&NoOutput) -> Result<Value, Error>,
    ) -> Result<(CallToolResult, Checked), Error> {
        Ok((CallToolResult::text(self), Checked::No))
    }
}

/// How a handler fails.
///
/// - [`ToolError::Execution`] (from [`ToolError::new`], or any `std::error::Error` through
///   `?`): the tool ran and failed. The caller gets a result with `isError: true` and the
///   message as text, so that the model can read it and correct itself (MCP 2025-11-25,
///   "Error Handling": errors from the tool are reported in the result).
/// - [`ToolError::Protocol`] (from [`ToolError::protocol`]): a JSON-RPC error instead of a
///   result, for what MCP says is not a tool error (the server cannot serve the request at
///   all); it becomes [`Error::Protocol`].
/// - [`ToolError::Cancelled`]: the handler stopped because the request was cancelled; it
///   becomes [`Error::Cancelled`], and no response is sent (MCP "Cancellation").
/// - [`ToolError::InputRequired`] (from [`CallContext::input`](crate::CallContext::input)):
///   MCP 2026-07-28, the client must answer requests first; it becomes
///   [`Error::InputRequired`].
///
/// Like `anyhow::Error`, it deliberately does not implement `std::error::Error`, so that
/// every error type converts into it with `?`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ToolError {
    /// The tool failed: an `isError` result with this message.
    Execution {
        /// What went wrong, for the model.
        message: String,
    },
    /// A JSON-RPC error instead of a result.
    Protocol {
        /// The JSON-RPC error code (e.g. `-32602` invalid params, `-32603` internal error).
        code: i64,
        /// The message.
        message: String,
        /// The error's `data`, if any.
        data: Option<Value>,
    },
    /// The handler stopped because the request was cancelled.
    Cancelled,
    /// The call needs input from the client first (MCP 2026-07-28 multi round-trip
    /// requests): what [`CallContext::input`](crate::CallContext::input) returns for requests
    /// the client has not answered yet. Return it with `?`; it becomes
    /// [`Error::InputRequired`], which the server answers with an `InputRequiredResult`.
    InputRequired(InputRequired),
}

impl ToolError {
    /// A tool failure with this message: an `isError: true` result.
    pub fn new(message: impl Into<String>) -> Self {
        Self::Execution {
            message: message.into(),
        }
    }

    /// A JSON-RPC error with this code and message instead of a result.
    pub fn protocol(code: i64, message: impl Into<String>) -> Self {
        Self::Protocol {
            code,
            message: message.into(),
            data: None,
        }
    }

    /// What the failure becomes (MCP 2025-11-25, "Error Handling"): [`ToolError::Execution`]
    /// an `isError: true` result with the message as text; [`ToolError::Protocol`] an
    /// [`Error::Protocol`] (a JSON-RPC error); [`ToolError::Cancelled`] [`Error::Cancelled`]
    /// (no response); [`ToolError::InputRequired`] [`Error::InputRequired`] (an
    /// `InputRequiredResult`).
    pub(crate) fn into_result(self) -> Result<CallToolResult, Error> {
        match self {
            Self::Execution { message } => Ok(CallToolResult::error(message)),
            Self::Protocol {
                code,
                message,
                data,
            } => Err(Error::Protocol {
                code,
                message,
                data,
            }),
            Self::Cancelled => Err(Error::Cancelled),
            Self::InputRequired(required) => Err(Error::InputRequired(required)),
        }
    }
}

impl fmt::Display for ToolError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Execution { message } => f.write_str(message),
            Self::Protocol { code, message, .. } => write!(f, "protocol error {code}: {message}"),
            Self::Cancelled => f.write_str("the call was cancelled"),
            Self::InputRequired(required) => write!(
                f,
                "the call needs input from the client: {}",
                required.keys()
            ),
        }
    }
}

/// Any error becomes a tool failure whose message is the error's, followed by each of its
/// sources (`"reading config: file not found"`).
impl<E: std::error::Error> From<E> for ToolError {
    fn from(error: E) -> Self {
        let mut message = error.to_string();
        let mut source = error.source();
        while let Some(cause) = source {
            message.push_str(": ");
            message.push_str(&cause.to_string());
            source = cause.source();
        }
        Self::Execution { message }
    }
}
