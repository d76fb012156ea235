//! The call pipelines behind [`Toolbox::call`](crate::Toolbox::call): what runs between the
//! routed arguments and the result, for a derived tool ([`Typed`]: a [`ToolHandler`]) and a
//! hand-built one ([`Dynamic`]: [`ToolboxBuilder::with_tool`](crate::ToolboxBuilder::with_tool)),
//! behind one erased handler type the toolbox stores.
//!
//! Both pipelines follow the same steps (MCP 2025-11-25, "Tools"):
//!
//! 1. The arguments are checked against the input schema; a failure is an `isError` result
//!    naming every violation ([`invalid_arguments`]: input validation errors are tool
//!    execution errors, SEP-1303).
//! 2. The handler runs with a [`CallContext`] that knows the tool.
//! 3. A successful result of a tool with an `outputSchema` must carry a `structuredContent`
//!    that matches it ([`check_output`]; "Output Schema": servers MUST provide structured
//!    results that conform to it); otherwise [`Error::InvalidOutput`].
//! 4. A [`ToolError`] becomes what [`ToolError::into_result`] says.

use std::{future::Future, sync::Arc};

use serde_json::{Map, Value};

use crate::call::context::{CallContext, Called};
use crate::call::handler::{IntoCallToolResult, ToolHandler};
use crate::call::peer::BoxFuture;
use crate::call::result::CallToolResult;
use crate::call::tool_error::ToolError;
use crate::error::Error;
use crate::validate::compiled::CompiledSchema;
use crate::validate::issue::InstanceError;

/// One tool of a toolbox: its MCP name and definition, and the pipeline that calls it.
pub(crate) struct Entry {
    /// The MCP name, and the tool as its handler defines it.
    pub(crate) called: Arc<Called>,
    /// The Rust type of the handler, for `Debug` and duplicate reports.
    pub(crate) type_name: &'static str,
    /// The pipeline.
    pub(crate) handler: Box<dyn ErasedHandler>,
}

/// A handler with its types erased, as the toolbox stores it.
pub(crate) trait ErasedHandler: Send + Sync {
    /// Runs the pipeline of `entry` on `arguments` (`{}` when the request had none).
    fn call<'a>(
        &'a self,
        entry: &'a Entry,
        arguments: Value,
        cx: &'a CallContext,
    ) -> BoxFuture<'a, Result<CallToolResult, Error>>;

    /// The compiled `inputSchema` the call checks the arguments against.
    fn input_schema(&self) -> &CompiledSchema;
}

/// A handler of a derived tool, with the tool's schemas compiled (once per program, kept by
/// its definition).
///
/// This is the one part of the pipeline generic over the handler, so the one compiled per
/// tool: it deserializes the arguments and awaits the handler; validation and everything
/// after the handler returns are shared, non-generic functions ([`check_reply`], [`finish`]).
pub(crate) struct Typed<H> {
    /// The handler.
    pub(crate) handler: H,
    /// The compiled `inputSchema`.
    pub(crate) input: &'static CompiledSchema,
    /// The compiled `outputSchema`, for replies that bring their own `structuredContent`.
    pub(crate) output: Option<&'static CompiledSchema>,
}

impl<H: ToolHandler> ErasedHandler for Typed<H> {
    fn call<'a>(
        &'a self,
        entry: &'a Entry,
        arguments: Value,
        cx: &'a CallContext,
    ) -> BoxFuture<'a, Result<CallToolResult, Error>> {
        Box::pin(self.call_typed(entry, arguments, cx))
    }

    fn input_schema(&self) -> &CompiledSchema {
        self.input
    }
}

impl<H: ToolHandler> Typed<H> {
    /// One call: validate and parse (what [`ToolDefinition::parse`] does, with the schema
    /// already at hand), run, shape the result.
    ///
    /// [`ToolDefinition::parse`]: crate::ToolDefinition::parse
    async fn call_typed(
        &self,
        entry: &Entry,
        arguments: Value,
        cx: &CallContext,
    ) -> Result<CallToolResult, Error> {
        let input = match self
            .input
            .validate(&arguments)
            .and_then(|()| H::__deserialize(&arguments))
        {
            Ok(input) => input,
            Err(err) => return invalid_arguments(&entry.called.name, err),
        };
        let reply = self.handler.call(input, &cx.for_tool(&entry.called)).await;
        // The output is serialized here and checked in `check_reply`, against the compiled
        // schema this pipeline holds: what `ToolDefinition::structured_content` does, without
        // compiling that method once more for every tool.
        let made = reply.map(|reply| reply.__into_result(H::__serialize));
        check_reply(&entry.called.name, self.output, made)
    }
}

/// What a derived tool's reply becomes: a successful result is checked against the output
/// schema ([`check_output`]), then [`finish`].
fn check_reply(
    name: &str,
    output: Option<&CompiledSchema>,
    made: Result<Result<CallToolResult, Error>, ToolError>,
) -> Result<CallToolResult, Error> {
    let outcome = made.map(|made| made.and_then(|result| check_output(output, result)));
    finish(name, outcome)
}

/// A hand-built tool and the function that serves it (see
/// [`ToolboxBuilder::with_tool`](crate::ToolboxBuilder::with_tool)).
pub(crate) struct Dynamic<F> {
    /// The compiled `inputSchema`.
    pub(crate) input: CompiledSchema,
    /// The compiled `outputSchema`, if the tool has one.
    pub(crate) output: Option<CompiledSchema>,
    /// The function.
    pub(crate) handler: F,
}

impl<F, Fut> ErasedHandler for Dynamic<F>
where
    F: Fn(Map<String, Value>, CallContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<CallToolResult, ToolError>> + Send + 'static,
{
    fn call<'a>(
        &'a self,
        entry: &'a Entry,
        arguments: Value,
        cx: &'a CallContext,
    ) -> BoxFuture<'a, Result<CallToolResult, Error>> {
        Box::pin(async move {
            if let Err(err) = self.input.validate(&arguments) {
                return invalid_arguments(&entry.called.name, err);
            }
            let Value::Object(arguments) = arguments else {
                return Ok(CallToolResult::error("arguments must be an object"));
            };
            let outcome = (self.handler)(arguments, cx.for_tool(&entry.called)).await;
            let checked = outcome.map(|result| check_output(self.output.as_ref(), result));
            finish(&entry.called.name, checked)
        })
    }

    fn input_schema(&self) -> &CompiledSchema {
        &self.input
    }
}

/// Checks a successful result against the tool's output schema, if it has one: its
/// `structuredContent` must be there and match (MCP 2025-11-25, "Output Schema": servers MUST
/// provide structured results that conform to it). Failed results (`isError`) are not checked.
///
/// # Errors
///
/// [`Error::InvalidInstance`] with the violations of the `structuredContent`, or one at the
/// root (keyword `outputSchema`) when there is none; [`finish`] reports either as
/// [`Error::InvalidOutput`].
fn check_output(
    schema: Option<&CompiledSchema>,
    result: CallToolResult,
) -> Result<CallToolResult, Error> {
    let Some(schema) = schema else {
        return Ok(result);
    };
    if result.is_error() {
        return Ok(result);
    }
    match &result.structured_content {
        Some(value) => schema.validate(value).map(|()| result),
        None => Err(Error::InvalidInstance {
            errors: vec![InstanceError {
                instance_path: String::new(),
                schema_path: String::new(),
                keyword: "outputSchema".into(),
                message: "the result has no structuredContent, but the tool declares an outputSchema (MCP: servers MUST provide structured results that conform to it)".into(),
            }],
        }),
    }
}

/// The `isError` result for arguments that fail the input schema or do not deserialize; other
/// errors (the tool cannot be built) go to the server.
pub(crate) fn invalid_arguments(name: &str, err: Error) -> Result<CallToolResult, Error> {
    match err {
        Error::InvalidInstance { errors } => Ok(CallToolResult::invalid_arguments(name, &errors)),
        Error::Json { path, message, .. } => {
            let at = if path.is_empty() { "(root)" } else { &path };
            Ok(CallToolResult::error(format!(
                "invalid arguments for tool {name:?}: 1 violation\n{at}: {message}"
            )))
        }
        other => Err(other),
    }
}

/// What a handler's outcome becomes: its result (output violations as
/// [`Error::InvalidOutput`] naming the tool), or what its [`ToolError`] becomes.
fn finish(
    name: &str,
    outcome: Result<Result<CallToolResult, Error>, ToolError>,
) -> Result<CallToolResult, Error> {
    match outcome {
        Ok(result) => result.map_err(|err| match err {
            Error::InvalidInstance { errors } => Error::InvalidOutput {
                tool: name.to_owned(),
                errors,
            },
            other => other,
        }),
        Err(err) => err.into_result(),
    }
}
