//! Trace context in `params._meta` (SEP-414; OpenTelemetry's MCP conventions, "Context
//! propagation"): W3C `traceparent`, `tracestate` and `baggage` keys. A server span takes its
//! parent from the request's `_meta`, not from the HTTP request that carried it; a client span
//! writes its own context into the `_meta` of the request it sends. With feature `otel`
//! through the global text map propagator ([`Telemetry`](super::otel::Telemetry) installs
//! W3C Trace Context and Baggage); without it, nothing is read or written.
//!
//! What a stranger sends is bounded before any parser sees it: a `traceparent` longer than
//! [`MAX_TRACEPARENT`] bytes, a `tracestate` longer than [`MAX_TRACESTATE`] or a `baggage`
//! longer than [`MAX_BAGGAGE`] is dropped, and a `traceparent` the W3C parser refuses
//! (malformed, all-zero ids, version `ff`) is no parent: the span starts a new trace, the call
//! is served as ever. A dropped `tracestate` or `baggage` leaves a valid `traceparent` the
//! parent (W3C Trace Context, 3.3: a vendor that cannot parse `tracestate` still continues the
//! trace).

use rmcp::model::MetaObject;

/// The longest `traceparent` read: version `00` is 55 bytes; later versions may append fields.
pub const MAX_TRACEPARENT: usize = 256;
/// The longest `tracestate` read: W3C Trace Context's 32 list members of up to 256 bytes each,
/// with their commas.
pub const MAX_TRACESTATE: usize = 8_223;
/// The longest `baggage` read: W3C Baggage's limit of 8,192 bytes.
pub const MAX_BAGGAGE: usize = 8_192;

/// The keys of trace context in `_meta`, with the longest value read of each.
const KEYS: [(&str, usize); 3] = [
    ("traceparent", MAX_TRACEPARENT),
    ("tracestate", MAX_TRACESTATE),
    ("baggage", MAX_BAGGAGE),
];

/// The trace context of `meta`, bounded: each key whose value is a string no longer than its
/// limit.
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
fn carried(meta: &MetaObject) -> Vec<(&'static str, &str)> {
    KEYS.iter()
        .filter_map(|&(key, max)| {
            let value = meta.get(key)?.as_str()?;
            (value.len() <= max).then_some((key, value))
        })
        .collect()
}

/// Makes the trace context of `meta` (if valid) the parent of `span`.
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn adopt(span: &tracing::Span, meta: &MetaObject) {
    #[cfg(feature = "otel")]
    {
        use opentelemetry::trace::TraceContextExt as _;
        use tracing_opentelemetry::OpenTelemetrySpanExt as _;

        let carried = carried(meta);
        if carried.is_empty() {
            return;
        }
        let carrier = Carrier(carried);
        // Extracted onto an empty context, not the current one: with tracing-opentelemetry's
        // context activation the current one is the span entered (rmcp's `serve_inner`, the
        // session's), which a `traceparent` the parser refuses would leave the parent.
        let context = opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.extract_with_context(&opentelemetry::Context::new(), &carrier)
        });
        if context.span().span_context().is_valid() {
            let _ = span.set_parent(context);
        }
    }
}

/// Writes the context of `span` into `meta` (nothing when the span is not sampled or no
/// propagator is installed).
#[cfg(feature = "federation")]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn inject(span: &tracing::Span, meta: &mut MetaObject) {
    #[cfg(feature = "otel")]
    {
        use tracing_opentelemetry::OpenTelemetrySpanExt as _;

        let context = span.context();
        opentelemetry::global::get_text_map_propagator(|propagator| {
            propagator.inject_context(&context, &mut Injector(meta));
        });
    }
}

#[cfg(feature = "otel")]
struct Carrier<'a>(Vec<(&'static str, &'a str)>);

#[cfg(feature = "otel")]
impl opentelemetry::propagation::Extractor for Carrier<'_> {
    fn get(&self, key: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(name, _)| *name == key)
            .map(|(_, value)| *value)
    }

    fn keys(&self) -> Vec<&str> {
        self.0.iter().map(|(name, _)| *name).collect()
    }
}

#[cfg(all(feature = "otel", feature = "federation"))]
struct Injector<'a>(&'a mut MetaObject);

#[cfg(all(feature = "otel", feature = "federation"))]
impl opentelemetry::propagation::Injector for Injector<'_> {
    fn set(&mut self, key: &str, value: String) {
        self.0
            .insert(key.to_owned(), serde_json::Value::String(value));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_past_their_limit_are_not_read() {
        let mut meta = MetaObject::new();
        meta.set_traceparent("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01");
        meta.set_tracestate("a=".to_owned() + &"b".repeat(MAX_TRACESTATE));
        meta.set_baggage("k=v");
        meta.insert("progressToken".into(), serde_json::json!(1));
        let keys: Vec<_> = carried(&meta).into_iter().map(|(key, _)| key).collect();
        assert_eq!(keys, ["traceparent", "baggage"]);
        meta.insert("traceparent".into(), serde_json::json!(7));
        let keys: Vec<_> = carried(&meta).into_iter().map(|(key, _)| key).collect();
        assert_eq!(keys, ["baggage"]);
    }
}
