//! Running a model's calls against a [`Toolbox`]: routed, concurrent, in order, and every
//! failure an answer the model can read.

use std::{
    fmt::Write as _,
    future::Future,
    pin::Pin,
    task::{Context, Poll},
};

use serde_json::Value;

use super::join::join_all;
use super::model_call::{CallArguments, CallKind, ModelCall};
use super::tool_search::{self, FoundTool, Role};
use super::tools::ModelTools;
use crate::call::context::CallContext;
use crate::call::result::CallToolResult;
use crate::call::toolbox::Toolbox;
use crate::error::Error;
use crate::model::name::nearest::nearest_tool;

/// What running one [`ModelCall`] gave: the result to answer with, and the call's identity
/// the answer echoes.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ToolOutcome {
    /// The call's ID ([`ModelCall::id`]).
    pub id: Option<String>,
    /// The function name the model used ([`ModelCall::name`]).
    pub name: String,
    /// Its namespace ([`ModelCall::namespace`], OpenAI Responses).
    pub namespace: Option<String>,
    /// Gemini's `thoughtSignature` of the call ([`ModelCall::thought_signature`]).
    pub thought_signature: Option<String>,
    /// The MCP name of the tool run; `None` when the name routes to no tool.
    pub tool: Option<String>,
    /// What the model gets: the tool's result, or an `isError` result saying what went wrong.
    pub result: CallToolResult,
    /// For a failure that is neither the tool's own `isError` result nor bad arguments, the
    /// error behind it ([`Error::UnknownTool`], [`Error::InvalidOutput`], [`Error::Protocol`],
    /// [`Error::Cancelled`], ...), for the host to log: the model only sees
    /// [`result`](Self::result).
    pub error: Option<Error>,
    /// What was called ([`ModelCall::kind`]): an OpenAI Responses tool search is answered
    /// with a `tool_search_output` item.
    pub kind: CallKind,
    /// For a tool search ([`ToolSearch`](super::ToolSearch): `search_tools`, an OpenAI
    /// Responses `tool_search_call`) that ran: the tools found, best first (none is
    /// `Some(vec![])`); `None` for any other call, and for a search whose arguments or query
    /// were refused (then [`result`](Self::result) says why).
    pub found: Option<Vec<FoundTool>>,
    /// What the answer to a search loads: Anthropic `tool_reference` blocks, OpenAI Responses
    /// tool definitions (empty for the other providers and calls).
    pub(crate) load: Vec<Value>,
}

/// How many tool names an unknown-tool answer lists at most.
const LISTED_NAMES: usize = 32;

/// Runs the calls against `toolbox`, concurrently, and gives one [`ToolOutcome`] per call in
/// the order of `calls`.
///
/// Each call's name (and namespace) goes through `tools` to the MCP name, then to
/// [`Toolbox::call`] with the call's arguments and `cx`. Nothing fails as a whole: every
/// failure becomes an `isError` result naming what was wrong, since a protocol error means
/// nothing to a model:
///
/// - a name no listed tool has: ``unknown tool "x"; the tools are: a, b`` (up to 32 names);
/// - [`CallArguments::Invalid`]: ``invalid arguments for tool "x": <problem>``;
/// - arguments that fail the input schema: the toolbox's own `isError` result (one line per
///   violation with its JSON Pointer);
/// - [`Error::InvalidOutput`], [`Error::Protocol`], [`Error::Cancelled`] and any other error
///   of the call: ``tool "x" failed: <error>``, with the error in [`ToolOutcome::error`].
///
/// With tool search on ([`ModelTools::search`]), a search (`search_tools` where the list has
/// it, an OpenAI Responses [`CallKind::ToolSearch`] call) runs [`Toolbox::search`] at once and
/// gives the tools found in [`ToolOutcome::found`] (a `query` missing, or refused by the
/// search with [`Error::SearchQuery`], is an `isError` result), and `call_tool {name,
/// arguments}` (OpenAI Chat, Gemini) is routed to the tool it names, by MCP name or by the
/// provider's name, as a call of that tool (the outcome keeps the name `call_tool`).
///
/// The calls run side by side on the executor that polls the returned future (no runtime is
/// assumed: it is a `std` future that polls every unfinished call when woken).
pub fn run_calls<'a>(
    toolbox: &'a Toolbox,
    tools: &'a ModelTools,
    calls: impl IntoIterator<Item = ModelCall>,
    cx: &'a CallContext,
) -> impl Future<Output = Vec<ToolOutcome>> + Send + 'a {
    join_all(
        calls
            .into_iter()
            .map(|call| start(toolbox, tools, call, cx))
            .collect::<Vec<_>>(),
    )
}

/// One call: routed and refused (unknown tool, invalid arguments) at once, else running the
/// toolbox's future for it, whose result [`finish`] turns into the outcome.
struct Running<F> {
    outcome: ToolOutcome,
    call: Option<F>,
}

impl<F> Future for Running<F>
where
    F: Future<Output = Result<CallToolResult, Error>> + Unpin,
{
    type Output = ToolOutcome;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<ToolOutcome> {
        let this = self.get_mut();
        if let Some(call) = &mut this.call {
            let Poll::Ready(result) = Pin::new(call).poll(cx) else {
                return Poll::Pending;
            };
            this.call = None;
            finish(&mut this.outcome, result);
        }
        Poll::Ready(std::mem::replace(&mut this.outcome, ToolOutcome::taken()))
    }
}

impl ToolOutcome {
    /// What a [`Running`] call leaves behind once its outcome is given (allocates nothing).
    fn taken() -> Self {
        Self {
            id: None,
            name: String::new(),
            namespace: None,
            thought_signature: None,
            tool: None,
            result: CallToolResult::default(),
            error: None,
            kind: CallKind::Function,
            found: None,
            load: Vec::new(),
        }
    }
}

/// Routes `call` and starts it on the toolbox (the toolbox's future is boxed already, so it
/// is polled where it is).
fn start<'a>(
    toolbox: &'a Toolbox,
    tools: &'a ModelTools,
    call: ModelCall,
    cx: &'a CallContext,
) -> Running<impl Future<Output = Result<CallToolResult, Error>> + Send + Unpin + 'a> {
    let ModelCall {
        id,
        name,
        namespace,
        arguments,
        thought_signature,
        pointer: _,
        kind,
    } = call;
    let mut outcome = ToolOutcome {
        id,
        name,
        namespace,
        thought_signature,
        tool: None,
        result: CallToolResult::default(),
        error: None,
        kind,
        found: None,
        load: Vec::new(),
    };
    let refused = |outcome| Running {
        outcome,
        call: None,
    };
    // The tool search's own functions (`search_tools`, `call_tool`, Responses' `tool_search`).
    let (routed, arguments) = match tools.search_role(&outcome) {
        None => (None, arguments),
        Some(Role::Search) => {
            tool_search::search(toolbox, tools, &mut outcome, arguments);
            return refused(outcome);
        }
        Some(Role::CallTool) => match tool_search::proxied(arguments) {
            Ok((name, arguments)) => (Some(name), CallArguments::Object(arguments)),
            Err(problem) => {
                outcome.result = CallToolResult::error(format!(
                    "invalid arguments for tool {:?}: {problem}",
                    outcome.name
                ));
                return refused(outcome);
            }
        },
    };
    let mcp_name = match &routed {
        // `call_tool` names a tool as search results show it: its MCP name (or its name for
        // the provider).
        Some(name) => toolbox
            .get(name)
            .map(|tool| tool.name.as_str())
            .or_else(|| tools.mcp_name(None, name)),
        None => tools.mcp_name(outcome.namespace.as_deref(), &outcome.name),
    };
    let Some(mcp_name) = mcp_name else {
        let called = match (routed, &outcome.namespace) {
            (Some(name), _) => name,
            (None, Some(ns)) => format!("{ns}.{}", outcome.name),
            (None, None) => outcome.name.clone(),
        };
        unknown_tool(tools, &mut outcome, called);
        return refused(outcome);
    };
    outcome.tool = Some(mcp_name.to_owned());
    let arguments = match arguments {
        CallArguments::Object(map) => map,
        CallArguments::Invalid { problem, .. } => {
            outcome.result = CallToolResult::error(format!(
                "invalid arguments for tool {mcp_name:?}: {problem}"
            ));
            return refused(outcome);
        }
    };
    Running {
        outcome,
        call: Some(toolbox.call(mcp_name, Some(arguments), cx)),
    }
}

/// The `isError` answer to a call whose name (`called`, with its namespace) routes to no
/// listed tool, with the nearest name.
fn unknown_tool(tools: &ModelTools, outcome: &mut ToolOutcome, called: String) {
    let names: Vec<String> = tools
        .names()
        .map(|(namespace, name)| match namespace {
            Some(ns) => format!("{ns}.{name}"),
            None => name.to_owned(),
        })
        .collect();
    let nearest = nearest_tool(&called, names.iter().map(String::as_str)).map(str::to_owned);
    let mut message = unknown_tool_message(tools, &called);
    if let Some(nearest) = &nearest {
        let _ = write!(message, "; did you mean {nearest:?}?");
    }
    outcome.result = CallToolResult::error(message);
    outcome.error = Some(Error::UnknownTool {
        name: called,
        nearest,
    });
}

/// The outcome of a call the toolbox ran: its result, or the `isError` answer to its error.
fn finish(outcome: &mut ToolOutcome, result: Result<CallToolResult, Error>) {
    let mcp_name = outcome.tool.as_deref().unwrap_or_default();
    match result {
        Ok(result) => outcome.result = result,
        Err(err) => {
            outcome.result = CallToolResult::error(match &err {
                Error::Protocol { message, .. } => format!("tool {mcp_name:?} failed: {message}"),
                Error::Cancelled => format!("tool {mcp_name:?} was cancelled"),
                Error::InvalidOutput { .. } => {
                    format!("tool {mcp_name:?} failed: its output does not match its outputSchema")
                }
                other => format!("tool {mcp_name:?} failed: {other}"),
            });
            outcome.error = Some(err);
        }
    }
}

/// ``unknown tool "x"; the tools are: a, b, ...``.
fn unknown_tool_message(tools: &ModelTools, called: &str) -> String {
    let mut message = format!("unknown tool {called:?}; the tools are: ");
    let mut count = 0;
    for (i, (namespace, name)) in tools.names().enumerate() {
        if i == LISTED_NAMES {
            message.push_str(", ...");
            break;
        }
        if i > 0 {
            message.push_str(", ");
        }
        match namespace {
            Some(ns) => {
                let _ = write!(message, "{ns}.{name}");
            }
            None => message.push_str(name),
        }
        count += 1;
    }
    if count == 0 {
        message.push_str("(none)");
    }
    message
}
