//! The CLIENT span of each `tools/call` a gateway sends an upstream server (OpenTelemetry's
//! MCP conventions, "Client") and its `mcp.client.operation.duration`: the span's context goes
//! into the request's `params._meta`, so the upstream's SERVER span is its child.

use std::time::Instant;

use rmcp::model::{NumberOrString, RequestMetaObject};
use tracing::field::Empty;

use super::{
    metrics,
    server_operation::{MAX_ATTRIBUTE_BYTES, MAX_CONTENT_BYTES, bounded, spans_at_info},
    trace_context,
};

/// Where an upstream is, for `network.transport`, `server.address` and `server.port`: read
/// once from its configuration, not at each call.
#[derive(Clone, Debug)]
pub(crate) struct PeerAddress {
    /// `pipe` (a child over stdio) or `tcp` (Streamable HTTP).
    transport: &'static str,
    /// The HTTP server's host.
    address: Option<String>,
    /// Its port, explicit or the scheme's (an int attribute: tracing-opentelemetry records a
    /// `u64` as a string).
    port: Option<i64>,
}

impl PeerAddress {
    /// A child process over stdio.
    pub(crate) fn pipe() -> Self {
        Self {
            transport: "pipe",
            address: None,
            port: None,
        }
    }

    /// A Streamable HTTP server at `url` (no address or port when it is not a URL).
    pub(crate) fn http(url: &str) -> Self {
        let url = url::Url::parse(url).ok();
        Self {
            transport: "tcp",
            address: url.as_ref().and_then(url::Url::host_str).map(str::to_owned),
            port: url
                .as_ref()
                .and_then(url::Url::port_or_known_default)
                .map(i64::from),
        }
    }
}

/// One `tools/call` of an upstream, from its sending to its answer.
#[derive(Debug)]
pub(crate) struct ClientOperation {
    span: tracing::Span,
    started: Instant,
    upstream: String,
    tool: String,
    transport: &'static str,
    protocol_version: Option<String>,
    /// Why the call failed, when it failed other than by an `isError` result of the server.
    failure: Option<Failure>,
}

/// How a call failed other than by the server's own `isError` result, for `error.type`.
#[derive(Debug)]
pub(crate) enum Failure {
    /// A JSON-RPC error answer.
    JsonRpc { code: i32, message: String },
    /// No answer within the upstream's timeout: `timeout`.
    Timeout,
    /// The session failed or could not be opened: `unavailable`.
    Unavailable { message: String },
}

impl ClientOperation {
    /// The call of `tool` (its name on the upstream `upstream`, at `peer`), starting now, under
    /// the current span (the SERVER span of the request being served).
    pub(crate) fn start(upstream: &str, tool: &str, peer: &PeerAddress) -> Self {
        let tool = bounded(tool, MAX_ATTRIBUTE_BYTES);
        let transport = peer.transport;
        let address = peer.address.as_deref();
        let port = peer.port;
        let name = if spans_at_info() {
            format!("tools/call {tool}")
        } else {
            String::new()
        };
        let span = tracing::info_span!(
            target: "toolmodel_rmcp::mcp",
            "mcp.client",
            otel.name = name.as_str(),
            otel.kind = "client",
            otel.status_code = Empty,
            otel.status_description = Empty,
            mcp.method.name = "tools/call",
            gen_ai.tool.name = tool,
            gen_ai.operation.name = "execute_tool",
            jsonrpc.request.id = Empty,
            mcp.protocol.version = Empty,
            network.transport = transport,
            network.protocol.name = address.map(|_| "http"),
            server.address = address,
            server.port = port,
            toolmodel.upstream = upstream,
            error.type = Empty,
            rpc.response.status_code = Empty,
        );
        Self {
            span,
            started: Instant::now(),
            upstream: upstream.to_owned(),
            tool: tool.to_owned(),
            transport,
            protocol_version: None,
            failure: None,
        }
    }

    /// The session the call goes on speaks `version`.
    pub(crate) fn negotiated(&mut self, version: &str) {
        self.span.record("mcp.protocol.version", version);
        self.protocol_version = Some(version.to_owned());
    }

    /// The call failed so (an `isError` result stands for it, made here, not by the server).
    pub(crate) fn failed(&mut self, failure: Failure) {
        self.failure = Some(failure);
    }

    /// The span, to run the call in.
    pub(crate) fn span(&self) -> &tracing::Span {
        &self.span
    }

    /// Writes the span's trace context into the request's `_meta`.
    pub(crate) fn inject(&self, meta: &mut RequestMetaObject) {
        trace_context::inject(&self.span, meta);
    }

    /// The request went out with `id`.
    pub(crate) fn sent(&self, id: &NumberOrString) {
        self.span
            .record("jsonrpc.request.id", tracing::field::display(id));
    }

    /// Ends the span and records the call's duration; `tool_error` says whether the answer
    /// was an `isError` result (of the server, unless [`failed`](Self::failed) said otherwise).
    pub(crate) fn finish(self, tool_error: bool) {
        let (error_type, status_code, message) = match &self.failure {
            None if tool_error => (Some("tool_error".to_owned()), None, None),
            None => (None, None, None),
            Some(Failure::JsonRpc { code, message }) => {
                let code = code.to_string();
                (Some(code.clone()), Some(code), Some(message.as_str()))
            }
            Some(Failure::Timeout) => (Some("timeout".to_owned()), None, None),
            Some(Failure::Unavailable { message }) => {
                (Some("unavailable".to_owned()), None, Some(message.as_str()))
            }
        };
        if let Some(error_type) = &error_type {
            self.span.record("error.type", error_type.as_str());
            self.span.record("otel.status_code", "error");
            if let Some(message) = message {
                self.span.record(
                    "otel.status_description",
                    bounded(message, MAX_CONTENT_BYTES),
                );
            }
        }
        if let Some(code) = &status_code {
            self.span.record("rpc.response.status_code", code.as_str());
        }
        metrics::client_operation(
            self.started.elapsed(),
            &metrics::OperationAttributes {
                method: "tools/call",
                tool: Some(&self.tool),
                prompt: None,
                error_type: error_type.as_deref(),
                status_code: status_code.as_deref(),
                protocol_version: self.protocol_version.as_deref(),
                transport: Some(self.transport),
                upstream: Some(&self.upstream),
            },
        );
    }
}
