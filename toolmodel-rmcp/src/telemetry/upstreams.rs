//! A gateway's upstreams as gauges (features `otel` and `federation`).

use opentelemetry::{KeyValue, global, metrics::AsyncInstrument};

use super::attributes as attr;
use crate::federation::{Federation, history::Record};

/// Reports `federation`'s upstreams as gauges of the global meter provider (install it first:
/// [`Telemetry::init`](super::otel::Telemetry::init)), read from each upstream's history at
/// each collection (a scrape, an export), without waiting for any session:
///
/// - `toolmodel.upstream.up` (`toolmodel.upstream`, `toolmodel.upstream.state`: `starting`,
///   `up`, `restarting`, `down` or `shut_down`): 1 while its session is open, else 0;
/// - `toolmodel.upstream.restarts` (`toolmodel.upstream`): sessions opened after the first;
/// - `toolmodel.upstream.failures` (`toolmodel.upstream`): failed attempts to open a session
///   and sessions that closed under the gateway, since it started;
/// - `toolmodel.upstream.tools` (`toolmodel.upstream`): the tools it serves through the
///   gateway.
///
/// The gauges keep only a weak reference: once the federation is dropped they report nothing.
pub fn observe_federation(federation: &Federation) {
    let meter = global::meter("toolmodel-rmcp");
    let gauge = |name: &'static str,
                 unit: &'static str,
                 description: &'static str,
                 value: fn(&Record, usize) -> u64,
                 with_state: bool| {
        let weak = federation.downgrade();
        let builder = meter
            .u64_observable_gauge(name)
            .with_description(description);
        // No unit for the 0-or-1 gauge: Prometheus' name would end in `_ratio`.
        let builder = if unit.is_empty() {
            builder
        } else {
            builder.with_unit(unit)
        };
        builder
            .with_callback(move |observer: &dyn AsyncInstrument<u64>| {
                let Some(federation) = Federation::upgrade(&weak) else {
                    return;
                };
                for (upstream, tools) in federation.upstreams_served() {
                    let record = upstream.history.snapshot();
                    let name =
                        KeyValue::new(attr::TOOLMODEL_UPSTREAM, upstream.config.name.clone());
                    if with_state {
                        let state =
                            KeyValue::new(attr::TOOLMODEL_UPSTREAM_STATE, record.phase.as_str());
                        observer.observe(value(&record, tools), &[name, state]);
                    } else {
                        observer.observe(value(&record, tools), &[name]);
                    }
                }
            })
            .build();
    };
    gauge(
        "toolmodel.upstream.up",
        "",
        "1 while the upstream server's session is open, else 0.",
        |record, _| u64::from(record.phase == crate::federation::history::Phase::Up),
        true,
    );
    gauge(
        "toolmodel.upstream.restarts",
        "{session}",
        "Sessions with the upstream server opened after the first.",
        |record, _| record.restarts,
        false,
    );
    gauge(
        "toolmodel.upstream.failures",
        "{failure}",
        "Failed attempts to open a session with the upstream server, and sessions that closed under the gateway.",
        |record, _| record.failures,
        false,
    );
    gauge(
        "toolmodel.upstream.tools",
        "{tool}",
        "The tools the upstream server serves through the gateway.",
        |_, tools| u64::try_from(tools).unwrap_or(u64::MAX),
        false,
    );
}
