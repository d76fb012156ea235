//! The metrics this crate records, with feature `otel`, through the `opentelemetry` API's
//! global meter provider (scope `toolmodel-rmcp`); a no-op until a binary installs one
//! ([`Telemetry`](super::otel::Telemetry) does), and without the feature nothing is compiled.
//! The instruments are made on first use: install the meter provider before serving.
//!
//! | instrument | kind, unit | attributes |
//! |---|---|---|
//! | `mcp.server.operation.duration` | histogram, s ([`DURATION_BUCKETS`](super::DURATION_BUCKETS)) | `mcp.method.name`, `gen_ai.tool.name` (tools this server serves; no name a stranger made up), `gen_ai.prompt.name`, `gen_ai.operation.name`, `error.type`, `rpc.response.status_code`, `mcp.protocol.version`, `network.transport`, `network.protocol.name` |
//! | `mcp.client.operation.duration` | histogram, s | the same, for a gateway's calls of its upstreams, and `toolmodel.upstream` |
//! | `mcp.server.session.duration` | histogram, s | `mcp.protocol.version`, `network.transport`: a 2025-era session (one that began with `initialize`), from `initialize` to its end |
//! | `mcp.client.session.duration` | histogram, s | `error.type` (`session_closed` when it closed under the gateway: a crashed child, a dropped connection): a gateway's session with an upstream, from its opening to its end |
//! | `toolmodel.server.sessions` | up-down counter | `network.transport`: 2025-era sessions open |
//! | `toolmodel.http.refusals` | counter | `toolmodel.refusal`: requests the HTTP front refused, by reason: `connections` (`max_connections`: a connection refused, or an idle one closed to make room), `header_timeout` (a request header slower than `header_read_timeout`: slowloris), `path` (not the MCP path), `host` (`Host` missing, malformed or not allowed), `origin`, `body` (too large, too slow, unreadable), `limit` (`HttpLimits`' sessions and calls in flight; a shared session store's limit), `session` (a `DELETE` of an unknown session; with a shared session store, any request in a session the store does not have, and a client's answer no replica waits for), `session_store` (a shared session store out of reach), `authorization` (401), `scope` (403 `insufficient_scope`), `authorization_unavailable` (the authorization server unreachable), `rate` (introspection rate spent), `rate_limit` (a [`RateLimits`](crate::server::RateLimits) request rule's bucket empty: 429), `shutting_down` |
//! | `toolmodel.rate_limits.refused` | counter | calls and requests [`RateLimits`](crate::server::RateLimits) refused (`isError` results and 429s; the 429s are counted in `toolmodel.http.refusals` too, reason `rate_limit`) |
//! | `toolmodel.rate_limits.fallbacks` | counter | checks of shared rate limits counted in this replica's own buckets because Redis was out of reach |
//! | `toolmodel.tasks.running` | up-down counter | tasks running on this replica |
//! | `toolmodel.tasks.finished` | counter | `toolmodel.task.status`: `completed`, `failed`, `cancelled`, `input_required` |
//! | `toolmodel.upstream.up` | gauge (1 or 0) | `toolmodel.upstream`, `toolmodel.upstream.state` (`starting`, `up`, `restarting`, `down`, `shut_down`) ([`observe_federation`](super::observe_federation)) |
//! | `toolmodel.upstream.restarts` | gauge | `toolmodel.upstream`: sessions opened after the first |
//! | `toolmodel.upstream.failures` | gauge | `toolmodel.upstream`: failed attempts to open a session and sessions closed under the gateway |
//! | `toolmodel.upstream.tools` | gauge | `toolmodel.upstream`: the tools it serves |

use std::time::Duration;

/// What an MCP operation's metrics carry (the span carries more).
#[derive(Debug, Default)]
#[cfg_attr(not(feature = "otel"), allow(dead_code))]
pub(crate) struct OperationAttributes<'a> {
    /// Always a method name of MCP's (`tools/call`): a static string, no allocation.
    pub(crate) method: &'static str,
    pub(crate) tool: Option<&'a str>,
    pub(crate) prompt: Option<&'a str>,
    pub(crate) error_type: Option<&'a str>,
    pub(crate) status_code: Option<&'a str>,
    pub(crate) protocol_version: Option<&'a str>,
    pub(crate) transport: Option<&'static str>,
    pub(crate) upstream: Option<&'a str>,
}

#[cfg(feature = "otel")]
mod recorded {
    use std::sync::OnceLock;

    use opentelemetry::{
        KeyValue, global,
        metrics::{Counter, Histogram, UpDownCounter},
    };

    use super::super::{DURATION_BUCKETS, attributes as attr};
    use super::OperationAttributes;

    pub(super) struct Instruments {
        pub(super) server_operation: Histogram<f64>,
        #[cfg_attr(not(feature = "federation"), allow(dead_code))]
        pub(super) client_operation: Histogram<f64>,
        pub(super) server_session: Histogram<f64>,
        #[cfg_attr(not(feature = "federation"), allow(dead_code))]
        pub(super) client_session: Histogram<f64>,
        pub(super) sessions: UpDownCounter<i64>,
        pub(super) refusals: Counter<u64>,
        pub(super) tasks_running: UpDownCounter<i64>,
        pub(super) tasks_finished: Counter<u64>,
        pub(super) rate_limited: Counter<u64>,
        #[cfg_attr(not(feature = "redis"), allow(dead_code))]
        pub(super) rate_limit_fallbacks: Counter<u64>,
    }

    pub(super) fn instruments() -> &'static Instruments {
        static INSTRUMENTS: OnceLock<Instruments> = OnceLock::new();
        INSTRUMENTS.get_or_init(|| {
            let meter = global::meter("toolmodel-rmcp");
            let duration = |name: &'static str, description: &'static str| {
                meter
                    .f64_histogram(name)
                    .with_unit("s")
                    .with_description(description)
                    .with_boundaries(DURATION_BUCKETS.to_vec())
                    .build()
            };
            Instruments {
                server_operation: duration(
                    "mcp.server.operation.duration",
                    "MCP request or notification duration as observed on the receiver from the time it was received until the result or ack is sent.",
                ),
                client_operation: duration(
                    "mcp.client.operation.duration",
                    "The duration of the MCP request or notification as observed on the sender from the time it was sent until the response or ack is received.",
                ),
                server_session: duration(
                    "mcp.server.session.duration",
                    "The duration of the MCP session as observed on the MCP server.",
                ),
                client_session: duration(
                    "mcp.client.session.duration",
                    "The duration of the MCP session as observed on the MCP client.",
                ),
                sessions: meter
                    .i64_up_down_counter("toolmodel.server.sessions")
                    .with_unit("{session}")
                    .with_description("MCP sessions (2025-era protocol) open on this server.")
                    .build(),
                refusals: meter
                    .u64_counter("toolmodel.http.refusals")
                    .with_unit("{request}")
                    .with_description("HTTP requests the MCP endpoint refused, by reason.")
                    .build(),
                tasks_running: meter
                    .i64_up_down_counter("toolmodel.tasks.running")
                    .with_unit("{task}")
                    .with_description("Tasks running on this server.")
                    .build(),
                tasks_finished: meter
                    .u64_counter("toolmodel.tasks.finished")
                    .with_unit("{task}")
                    .with_description("Tasks that ended on this server, by status.")
                    .build(),
                rate_limited: meter
                    .u64_counter("toolmodel.rate_limits.refused")
                    .with_unit("{call}")
                    .with_description("Calls and requests the rate limits refused.")
                    .build(),
                rate_limit_fallbacks: meter
                    .u64_counter("toolmodel.rate_limits.fallbacks")
                    .with_unit("{check}")
                    .with_description(
                        "Checks of shared rate limits counted locally: Redis out of reach.",
                    )
                    .build(),
            }
        })
    }

    pub(super) fn operation(attributes: &OperationAttributes<'_>) -> Vec<KeyValue> {
        let mut values = Vec::with_capacity(9);
        values.push(KeyValue::new(attr::MCP_METHOD_NAME, attributes.method));
        if let Some(tool) = attributes.tool {
            values.push(KeyValue::new(attr::GEN_AI_TOOL_NAME, tool.to_owned()));
            values.push(KeyValue::new(attr::GEN_AI_OPERATION_NAME, "execute_tool"));
        }
        let optional = [
            (attr::GEN_AI_PROMPT_NAME, attributes.prompt),
            (attr::ERROR_TYPE, attributes.error_type),
            (attr::RPC_RESPONSE_STATUS_CODE, attributes.status_code),
            (attr::MCP_PROTOCOL_VERSION, attributes.protocol_version),
            (attr::TOOLMODEL_UPSTREAM, attributes.upstream),
        ];
        for (key, value) in optional {
            if let Some(value) = value {
                values.push(KeyValue::new(key, value.to_owned()));
            }
        }
        if let Some(transport) = attributes.transport {
            values.push(KeyValue::new(attr::NETWORK_TRANSPORT, transport));
        }
        if attributes.transport == Some("tcp") {
            values.push(KeyValue::new(attr::NETWORK_PROTOCOL_NAME, "http"));
        }
        values
    }
}

/// Records `mcp.server.operation.duration`.
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn server_operation(elapsed: Duration, attributes: &OperationAttributes<'_>) {
    #[cfg(feature = "otel")]
    recorded::instruments()
        .server_operation
        .record(elapsed.as_secs_f64(), &recorded::operation(attributes));
}

/// Records `mcp.client.operation.duration`.
#[cfg(feature = "federation")]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn client_operation(elapsed: Duration, attributes: &OperationAttributes<'_>) {
    #[cfg(feature = "otel")]
    recorded::instruments()
        .client_operation
        .record(elapsed.as_secs_f64(), &recorded::operation(attributes));
}

/// A 2025-era session opened (`+1`) or ended (`-1`, with its duration).
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn session(
    change: i64,
    ended_after: Option<Duration>,
    protocol_version: Option<&str>,
    transport: &'static str,
) {
    #[cfg(feature = "otel")]
    {
        use opentelemetry::KeyValue;
        let instruments = recorded::instruments();
        let transport = KeyValue::new(super::attributes::NETWORK_TRANSPORT, transport);
        instruments
            .sessions
            .add(change, std::slice::from_ref(&transport));
        if let Some(elapsed) = ended_after {
            let mut values = vec![transport];
            if let Some(version) = protocol_version {
                values.push(KeyValue::new(
                    super::attributes::MCP_PROTOCOL_VERSION,
                    version.to_owned(),
                ));
            }
            instruments
                .server_session
                .record(elapsed.as_secs_f64(), &values);
        }
    }
}

/// A gateway's session with an upstream ended after `elapsed`; `error` is its `error.type`
/// when it ended by closing under the gateway (`session_closed`).
#[cfg(feature = "federation")]
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn client_session(elapsed: Duration, error: Option<&'static str>) {
    #[cfg(feature = "otel")]
    {
        let attributes: Vec<opentelemetry::KeyValue> = error
            .map(|error| opentelemetry::KeyValue::new(super::attributes::ERROR_TYPE, error))
            .into_iter()
            .collect();
        recorded::instruments()
            .client_session
            .record(elapsed.as_secs_f64(), &attributes);
    }
}

/// The HTTP front refused a request for `reason`.
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn refused(reason: &'static str) {
    #[cfg(feature = "otel")]
    recorded::instruments().refusals.add(
        1,
        &[opentelemetry::KeyValue::new(
            super::attributes::TOOLMODEL_REFUSAL,
            reason,
        )],
    );
}

/// A task started (`+1`) or ended (`-1`).
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn task_running(change: i64) {
    #[cfg(feature = "otel")]
    recorded::instruments().tasks_running.add(change, &[]);
}

/// A task ended in `status`.
#[cfg_attr(not(feature = "otel"), allow(unused_variables))]
pub(crate) fn task_finished(status: &'static str) {
    #[cfg(feature = "otel")]
    recorded::instruments().tasks_finished.add(
        1,
        &[opentelemetry::KeyValue::new(
            super::attributes::TOOLMODEL_TASK_STATUS,
            status,
        )],
    );
}

/// A call or request was refused by a rate limit.
pub(crate) fn rate_limited() {
    #[cfg(feature = "otel")]
    recorded::instruments().rate_limited.add(1, &[]);
}

/// A check of shared rate limits was counted locally (Redis out of reach).
#[cfg(feature = "redis")]
pub(crate) fn rate_limit_fallback() {
    #[cfg(feature = "otel")]
    recorded::instruments().rate_limit_fallbacks.add(1, &[]);
}
