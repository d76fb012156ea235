//! The SERVER span of each MCP request a [`ToolboxServer`] handles
//! (OpenTelemetry's MCP conventions, "Server"), its `mcp.server.operation.duration`, and the
//! access log line of a tool call.
//!
//! The span is `tracing`'s `mcp.server` at INFO (target `toolmodel_rmcp::mcp`); with
//! `tracing-opentelemetry` it is an OpenTelemetry span of kind SERVER named
//! `{mcp.method.name} {target}` (`tools/call get_weather`), its parent the trace context of
//! the request's `params._meta` ([`super::trace_context`]), its status ERROR
//! with the JSON-RPC message as description whenever `error.type` is set.

use std::{future::Future, net::SocketAddr, time::Instant};

use rmcp::{
    ErrorData, RoleServer,
    model::{CallToolResponse, NumberOrString},
    service::RequestContext,
};
use tracing::field::Empty;

use super::{metrics, trace_context};
use crate::server::ToolboxServer;

/// The longest tool or prompt name, resource URI or request id recorded as it is (longer
/// ones are cut at a character boundary): what a client sends is bounded before it reaches
/// an exporter.
pub(crate) const MAX_ATTRIBUTE_BYTES: usize = 256;
/// The longest `gen_ai.tool.call.arguments` or `.result` recorded (opt-in), in bytes.
pub(crate) const MAX_CONTENT_BYTES: usize = 4_096;

/// The address of the peer of an HTTP connection, in each request's extensions
/// (`serve_http` puts it there).
#[derive(Clone, Copy, Debug)]
pub(crate) struct ClientAddress(pub(crate) SocketAddr);

/// What a request names, for its span: the target of its name and its attributes.
#[derive(Debug, Default)]
pub(crate) struct Target<'a> {
    pub(crate) tool: Option<&'a str>,
    pub(crate) prompt: Option<&'a str>,
    pub(crate) resource: Option<&'a str>,
    /// The call's arguments, recorded only when the server opted in.
    pub(crate) arguments: Option<&'a serde_json::Map<String, serde_json::Value>>,
}

/// `text`, or its longest prefix of at most `max` bytes that ends on a character boundary.
pub(crate) fn bounded(text: &str, max: usize) -> &str {
    if text.len() <= max {
        return text;
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    text.get(..end).unwrap_or_default()
}

/// How a result ended, for `error.type`: what the conventions say each outcome is.
pub(crate) trait Outcome {
    /// `Some(error.type)` for a result that is a failure inside a success (`tool_error`).
    fn error_type(&self) -> Option<&'static str> {
        None
    }
    /// The result as JSON, for the opt-in `gen_ai.tool.call.result`.
    fn content(&self) -> Option<String> {
        None
    }
}

impl Outcome for CallToolResponse {
    fn error_type(&self) -> Option<&'static str> {
        match self {
            CallToolResponse::Complete(result) if result.is_error == Some(true) => {
                Some("tool_error")
            }
            _ => None,
        }
    }

    fn content(&self) -> Option<String> {
        match self {
            CallToolResponse::Complete(result) => serde_json::to_string(result).ok(),
            CallToolResponse::InputRequired(result) => serde_json::to_string(result).ok(),
            CallToolResponse::Task(result) => serde_json::to_string(result).ok(),
            _ => None,
        }
    }
}

macro_rules! plain_outcomes {
    ($($type:ty),* $(,)?) => { $(impl Outcome for $type {})* };
}

plain_outcomes!(
    (),
    rmcp::model::InitializeResult,
    rmcp::model::ListToolsResult,
    rmcp::model::GetTaskResult,
    rmcp::model::CompleteResult,
    rmcp::model::GetPromptResponse,
    rmcp::model::ListPromptsResult,
    rmcp::model::ListResourcesResult,
    rmcp::model::ListResourceTemplatesResult,
    rmcp::model::ReadResourceResponse,
    rmcp::model::CustomResult,
);

/// One request being handled: its span and what its metrics and access line need, owned
/// (the request's context may be moved into the handling).
#[derive(Debug)]
pub(crate) struct ServerOperation {
    span: tracing::Span,
    started: Instant,
    method: &'static str,
    tool: Option<String>,
    prompt: Option<String>,
    /// Whether `tool` is one this server serves (only those are metric attributes).
    served: bool,
    protocol_version: Option<String>,
    transport: &'static str,
    subject: Option<String>,
    record_content: bool,
}

impl ToolboxServer {
    /// The operation of the request `method` of `context`, which names `target`: its SERVER
    /// span, started now. Run the handling with [`ServerOperation::run`].
    pub(crate) fn operation(
        &self,
        method: &'static str,
        target: &Target<'_>,
        context: &RequestContext<RoleServer>,
    ) -> ServerOperation {
        let parts = context.extensions.get::<http::request::Parts>();
        let transport = if parts.is_some() { "tcp" } else { "pipe" };
        let protocol_version = context
            .protocol_version()
            .map(|version| version.as_str().to_owned());
        let tool = target.tool.map(|tool| bounded(tool, MAX_ATTRIBUTE_BYTES));
        let prompt = target
            .prompt
            .map(|prompt| bounded(prompt, MAX_ATTRIBUTE_BYTES));
        let client = parts
            .and_then(|parts| parts.extensions.get::<ClientAddress>())
            .map(|ClientAddress(address)| *address);
        let (name, request_id) = if spans_at_info() {
            let name = match tool.or(prompt) {
                Some(name) => format!("{method} {name}"),
                None => method.to_owned(),
            };
            (name, request_id(&context.id))
        } else {
            (String::new(), String::new())
        };
        // A root unless `params._meta` names a parent (`adopt` below): not a child of whatever
        // span is current, which is `rmcp`'s `serve_inner`, the span of the whole session
        // (every request of a session would be one trace, a malformed `traceparent` a child).
        // Every attribute known now is a field's value here, strings as `&str`: each later
        // `record` and each `%` (formatted again into a new string) costs the OpenTelemetry
        // layer more (`benches/telemetry.rs`).
        let span = tracing::info_span!(
            target: "toolmodel_rmcp::mcp",
            parent: None,
            "mcp.server",
            otel.name = name.as_str(),
            otel.kind = "server",
            otel.status_code = Empty,
            otel.status_description = Empty,
            mcp.method.name = method,
            gen_ai.tool.name = tool,
            gen_ai.prompt.name = prompt,
            gen_ai.operation.name = tool.map(|_| "execute_tool"),
            gen_ai.tool.call.arguments = Empty,
            gen_ai.tool.call.result = Empty,
            mcp.resource.uri = target.resource.map(|uri| bounded(uri, MAX_ATTRIBUTE_BYTES)),
            jsonrpc.request.id = request_id.as_str(),
            mcp.protocol.version = protocol_version.as_deref(),
            mcp.session.id = parts
                .and_then(|parts| parts.headers.get("mcp-session-id"))
                .and_then(|id| id.to_str().ok())
                .map(|id| bounded(id, MAX_ATTRIBUTE_BYTES)),
            network.transport = transport,
            network.protocol.name = parts.map(|_| "http"),
            network.protocol.version = parts.map(|_| "1.1"),
            client.address = client.map(|address| tracing::field::display(address.ip())),
            // An int attribute: tracing-opentelemetry records a u64 as a string.
            client.port = client.map(|address| i64::from(address.port())),
            error.type = Empty,
            rpc.response.status_code = Empty,
        );
        let record_content = self.telemetry.record_content;
        if !span.is_disabled() {
            if record_content
                && let Some(arguments) = target.arguments
                && let Ok(json) = serde_json::to_string(arguments)
            {
                span.record(
                    "gen_ai.tool.call.arguments",
                    bounded(&json, MAX_CONTENT_BYTES),
                );
            }
            trace_context::adopt(&span, &context.meta);
        }
        // Only the names of tools this server serves become metric attributes: a name a
        // stranger made up would be a new time series.
        let served = tool.is_some_and(|name| self.tools.current().toolbox.get(name).is_some());
        ServerOperation {
            span,
            started: Instant::now(),
            method,
            tool: tool.map(str::to_owned),
            prompt: prompt.map(str::to_owned),
            served,
            protocol_version,
            transport,
            subject: crate::server::tool_call::caller(context)
                .map(|caller| caller.subject().to_owned()),
            record_content,
        }
    }
}

impl ServerOperation {
    /// Runs `handle` inside the span, then records how it ended: `error.type`, the span's
    /// status, `mcp.server.operation.duration`, and for a tool call the access log line.
    pub(crate) async fn run<T: Outcome>(
        self,
        handle: impl Future<Output = Result<T, ErrorData>>,
    ) -> Result<T, ErrorData> {
        // The span is entered at each poll (a handler's events and spans are its children),
        // as `Instrument` does, but not again to drop the finished future (`Instrumented`
        // enters its span in `drop` too: 1.3 k instructions a request, `benches/telemetry.rs`).
        let span = &self.span;
        let mut handle = std::pin::pin!(handle);
        let result = std::future::poll_fn(|context| {
            let _entered = span.enter();
            handle.as_mut().poll(context)
        })
        .await;
        self.finish(&result);
        result
    }

    fn finish<T: Outcome>(&self, result: &Result<T, ErrorData>) {
        let span = &self.span;
        let (error_type, status_code, message) = match result {
            Ok(outcome) => (outcome.error_type().map(str::to_owned), None, None),
            Err(error) => {
                let code = error.code.0.to_string();
                (Some(code.clone()), Some(code), Some(error.message.as_ref()))
            }
        };
        if !span.is_disabled() {
            if let Some(error_type) = &error_type {
                span.record("error.type", error_type.as_str());
                span.record("otel.status_code", "error");
                if let Some(message) = message {
                    span.record(
                        "otel.status_description",
                        bounded(message, MAX_CONTENT_BYTES),
                    );
                }
            }
            if let Some(code) = &status_code {
                span.record("rpc.response.status_code", code.as_str());
            }
            if self.record_content
                && let Ok(outcome) = result
                && let Some(json) = outcome.content()
            {
                span.record("gen_ai.tool.call.result", bounded(&json, MAX_CONTENT_BYTES));
            }
        }
        let elapsed = self.started.elapsed();
        metrics::server_operation(
            elapsed,
            &metrics::OperationAttributes {
                method: self.method,
                tool: self.tool.as_deref().filter(|_| self.served),
                // A prompt that exists (one a stranger named that does not is an error).
                prompt: self.prompt.as_deref().filter(|_| result.is_ok()),
                error_type: error_type.as_deref(),
                status_code: status_code.as_deref(),
                protocol_version: self.protocol_version.as_deref(),
                transport: Some(self.transport),
                upstream: None,
            },
        );
        if let Some(tool) = &self.tool {
            tracing::info!(
                target: "toolmodel_rmcp::access",
                parent: span,
                tool = tool.as_str(),
                duration_ms = elapsed.as_secs_f64() * 1e3,
                outcome = error_type.as_deref().unwrap_or("ok"),
                subject = self.subject.as_deref(),
                "tools/call"
            );
        }
    }
}

/// Whether a span at INFO can be enabled at all: the values built for a span's fields are not
/// built when no subscriber (or none at INFO) is installed, where the span is disabled before
/// its fields are looked at.
pub(crate) fn spans_at_info() -> bool {
    tracing::Level::INFO <= tracing::level_filters::LevelFilter::current()
}

/// `jsonrpc.request.id`: the id as a string, bounded.
fn request_id(id: &NumberOrString) -> String {
    match id {
        NumberOrString::Number(number) => number.to_string(),
        NumberOrString::String(text) => bounded(text, MAX_ATTRIBUTE_BYTES).to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::bounded;

    #[test]
    fn bounded_cuts_at_a_character_boundary() {
        assert_eq!(bounded("abc", 5), "abc");
        assert_eq!(bounded("abcdef", 3), "abc");
        // "é" is two bytes: a cut inside it goes back to before it.
        assert_eq!(bounded("aé", 2), "a");
    }
}
