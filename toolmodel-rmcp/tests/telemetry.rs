//! The spans a server makes for each MCP request (feature `otel`): names, kinds, the
//! conventions' attributes, `error.type`, and the parent taken from `params._meta`, read back
//! from the OpenTelemetry SDK's in-memory exporter. Each test runs on one thread under a
//! subscriber of that thread only (the binary's other tests are not traced).

use std::net::SocketAddr;

use opentelemetry::{
    KeyValue,
    trace::{SpanId, SpanKind, Status, TraceId, TracerProvider as _},
};
use opentelemetry_sdk::{
    propagation::TraceContextPropagator,
    trace::{InMemorySpanExporter, SdkTracerProvider, SpanData},
};
use serde_json::{Value, json};
use toolmodel::{CallToolResult, Tool, Toolbox};
use toolmodel_rmcp::ToolboxServer;
use tracing_subscriber::layer::SubscriberExt as _;

use crate::support::raw_http::{post_head, raw, session, start};

const TRACE_ID: &str = "4bf92f3577b34da6a3ce929d0e0e4736";
const PARENT_ID: &str = "00f067aa0ba902b7";

/// A server of `echo` (answers) and `broken` (an `isError` result).
fn server() -> ToolboxServer {
    let tool = |name: &str| {
        Tool::from_mcp_json(&json!({"name": name, "inputSchema": {"type": "object"}})).unwrap()
    };
    let toolbox = Toolbox::builder()
        .with_tool(tool("echo"), |_, _| async {
            Ok(CallToolResult::text("echoed"))
        })
        .with_tool(tool("broken"), |_, _| async {
            Ok(CallToolResult::error("the backend is down"))
        })
        .build()
        .unwrap();
    ToolboxServer::new(toolbox)
}

/// Runs `exchange` against `server()` on a one-thread runtime whose thread alone is traced;
/// the spans it made.
fn traced<F>(exchange: impl FnOnce(SocketAddr) -> F) -> Vec<SpanData>
where
    F: Future<Output = ()>,
{
    traced_with(server(), exchange)
}

/// [`traced`] against `server`.
fn traced_with<F>(server: ToolboxServer, exchange: impl FnOnce(SocketAddr) -> F) -> Vec<SpanData>
where
    F: Future<Output = ()>,
{
    opentelemetry::global::set_text_map_propagator(TraceContextPropagator::new());
    let exporter = InMemorySpanExporter::default();
    let provider = SdkTracerProvider::builder()
        .with_simple_exporter(exporter.clone())
        .build();
    let subscriber = tracing_subscriber::registry()
        .with(tracing_opentelemetry::layer().with_tracer(provider.tracer("test")));
    let _default = tracing::subscriber::set_default(subscriber);
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let addr = start(server).await;
        exchange(addr).await;
    });
    drop(runtime);
    provider.force_flush().unwrap();
    exporter.get_finished_spans().unwrap()
}

fn call(id: u64, tool: &str, meta: Value) -> String {
    json!({"jsonrpc": "2.0", "id": id, "method": "tools/call",
        "params": {"name": tool, "arguments": {}, "_meta": meta}})
    .to_string()
}

fn attribute<'a>(span: &'a SpanData, key: &str) -> Option<&'a opentelemetry::Value> {
    span.attributes
        .iter()
        .find(|KeyValue { key: name, .. }| name.as_str() == key)
        .map(|KeyValue { value, .. }| value)
}

fn text(span: &SpanData, key: &str) -> Option<String> {
    attribute(span, key).map(|value| value.as_str().into_owned())
}

fn named<'a>(spans: &'a [SpanData], name: &str) -> &'a SpanData {
    spans
        .iter()
        .find(|span| span.name == name)
        .unwrap_or_else(|| panic!("no span {name:?} in {:?}", names(spans)))
}

fn names(spans: &[SpanData]) -> Vec<&str> {
    spans.iter().map(|span| span.name.as_ref()).collect()
}

#[test]
fn a_tool_call_is_a_server_span_under_the_callers_trace_context() {
    let spans = traced(|addr| async move {
        let id = session(addr).await;
        let traceparent = format!("00-{TRACE_ID}-{PARENT_ID}-01");
        let body = call(
            7,
            "echo",
            json!({"traceparent": traceparent, "tracestate": "rojo=1"}),
        );
        let reply = raw(addr, &post_head(addr, Some(&id), ""), &body).await;
        assert_eq!(reply.json()["result"]["content"][0]["text"], "echoed");
    });
    let span = named(&spans, "tools/call echo");
    assert_eq!(span.span_kind, SpanKind::Server);
    assert_eq!(
        span.span_context.trace_id(),
        TraceId::from_hex(TRACE_ID).unwrap()
    );
    assert_eq!(span.parent_span_id, SpanId::from_hex(PARENT_ID).unwrap());
    assert!(span.parent_span_is_remote);
    assert_eq!(span.status, Status::Unset);
    for (key, value) in [
        ("mcp.method.name", "tools/call"),
        ("gen_ai.tool.name", "echo"),
        ("gen_ai.operation.name", "execute_tool"),
        ("jsonrpc.request.id", "7"),
        ("mcp.protocol.version", "2025-11-25"),
        ("network.transport", "tcp"),
        ("network.protocol.name", "http"),
        ("network.protocol.version", "1.1"),
        ("client.address", "127.0.0.1"),
    ] {
        assert_eq!(text(span, key).as_deref(), Some(value), "{key}: {span:?}");
    }
    assert!(text(span, "mcp.session.id").is_some_and(|id| !id.is_empty()));
    assert!(attribute(span, "client.port").is_some());
    assert_eq!(attribute(span, "error.type"), None);
    // Arguments and results are recorded only when the server opts in.
    assert_eq!(attribute(span, "gen_ai.tool.call.arguments"), None);
    assert_eq!(attribute(span, "gen_ai.tool.call.result"), None);
    // The session's own requests are spans too, each of its own trace (no `_meta` context).
    let initialize = named(&spans, "initialize");
    assert_eq!(initialize.span_kind, SpanKind::Server);
    assert_ne!(
        initialize.span_context.trace_id(),
        TraceId::from_hex(TRACE_ID).unwrap()
    );
}

#[test]
fn failures_carry_error_type_and_status_error() {
    let spans = traced(|addr| async move {
        let id = session(addr).await;
        for (n, tool) in [(8, "broken"), (9, "no_such_tool")] {
            let reply = raw(
                addr,
                &post_head(addr, Some(&id), ""),
                &call(n, tool, json!({})),
            )
            .await;
            assert_eq!(reply.status, 200, "{reply:?}");
        }
    });
    let broken = named(&spans, "tools/call broken");
    assert_eq!(text(broken, "error.type").as_deref(), Some("tool_error"));
    assert!(matches!(broken.status, Status::Error { .. }), "{broken:?}");
    assert_eq!(attribute(broken, "rpc.response.status_code"), None);

    let unknown = named(&spans, "tools/call no_such_tool");
    assert_eq!(text(unknown, "error.type").as_deref(), Some("-32602"));
    assert_eq!(
        text(unknown, "rpc.response.status_code").as_deref(),
        Some("-32602")
    );
    let Status::Error { description } = &unknown.status else {
        panic!("{unknown:?}");
    };
    assert!(description.contains("no_such_tool"), "{description}");
}

#[test]
fn bad_trace_context_starts_a_new_trace_and_the_call_is_served() {
    let oversized = format!("a={}", "b".repeat(9_000));
    let spans = traced(|addr| async move {
        let id = session(addr).await;
        let head = post_head(addr, Some(&id), "");
        for (n, meta) in [
            (10, json!({"traceparent": "00-not-a-trace-01"})),
            (
                11,
                json!({"traceparent": format!("00-{}-{PARENT_ID}-01", "0".repeat(32))}),
            ),
            (12, json!({"traceparent": 42})),
            (
                13,
                json!({"traceparent": format!("00-{TRACE_ID}-{PARENT_ID}-01"), "tracestate": oversized, "baggage": "k=".repeat(5_000)}),
            ),
        ] {
            let reply = raw(addr, &head, &call(n, "echo", meta)).await;
            assert_eq!(
                reply.json()["result"]["content"][0]["text"],
                "echoed",
                "{reply:?}"
            );
        }
    });
    let calls: Vec<&SpanData> = spans
        .iter()
        .filter(|span| span.name == "tools/call echo")
        .collect();
    assert_eq!(calls.len(), 4, "{:?}", names(&spans));
    let by_id = |id: &str| {
        *calls
            .iter()
            .find(|span| text(span, "jsonrpc.request.id").as_deref() == Some(id))
            .unwrap()
    };
    // No parent from `_meta`: a root, of a trace of its own.
    for id in ["10", "11", "12"] {
        let span = by_id(id);
        assert_eq!(
            span.parent_span_id,
            SpanId::INVALID,
            "request {id}: {span:?}"
        );
        assert_ne!(
            span.span_context.trace_id(),
            TraceId::from_hex(TRACE_ID).unwrap()
        );
    }
    // An oversized tracestate and baggage are not read; the valid traceparent still parents.
    let span = by_id("13");
    assert_eq!(span.parent_span_id, SpanId::from_hex(PARENT_ID).unwrap());
    assert_eq!(span.span_context.trace_state().header(), "");
}

#[test]
fn arguments_and_results_are_recorded_when_the_server_opts_in() {
    let spans = traced_with(
        server().with_recorded_tool_content(true),
        |addr| async move {
            let id = session(addr).await;
            let body = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call",
            "params": {"name": "echo", "arguments": {"city": "Paris"}}})
            .to_string();
            raw(addr, &post_head(addr, Some(&id), ""), &body).await;
        },
    );
    let span = named(&spans, "tools/call echo");
    assert_eq!(
        text(span, "gen_ai.tool.call.arguments").as_deref(),
        Some(r#"{"city":"Paris"}"#)
    );
    assert!(
        text(span, "gen_ai.tool.call.result").is_some_and(|result| result.contains("echoed")),
        "{span:?}"
    );
}
