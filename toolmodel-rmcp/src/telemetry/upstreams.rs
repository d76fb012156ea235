//! A gateway's upstreams as gauges (features `otel` and `federation`).

use std::{
    sync::{Arc, Mutex},
    time::Duration,
};

use opentelemetry::{KeyValue, global};

use super::attributes as attr;
use crate::federation::{Federation, SessionState, UpstreamStatus};
use crate::lock::lock;

/// How often the upstreams' states are read for the gauges.
const REFRESH: Duration = Duration::from_secs(2);

/// What `observe_federation` keeps running: the refresh of the upstreams' states, stopped
/// when dropped (the gauges then report the last states read).
#[derive(Debug)]
#[must_use = "the gauges stop following the upstreams when this is dropped"]
pub struct ObservedFederation {
    refresh: tokio::task::JoinHandle<()>,
}

impl Drop for ObservedFederation {
    fn drop(&mut self) {
        self.refresh.abort();
    }
}

/// Reports `federation`'s upstreams as gauges of the global meter provider (install it first:
/// [`Telemetry::init`](super::otel::Telemetry::init)), their states read every 2 seconds:
///
/// - `toolmodel.upstream.up` (`toolmodel.upstream`, `toolmodel.upstream.state`: `up`,
///   `down` or `shut_down`): 1 while the session is open, else 0;
/// - `toolmodel.upstream.failures` (`toolmodel.upstream`): attempts to open its session that
///   failed in a row;
/// - `toolmodel.upstream.tools` (`toolmodel.upstream`): the tools it serves.
///
/// Call it inside a tokio runtime (the refresh is a task on it).
pub fn observe_federation(federation: &Federation) -> ObservedFederation {
    let states: Arc<Mutex<Vec<UpstreamStatus>>> = Arc::default();
    let meter = global::meter("toolmodel-rmcp");
    let read = Arc::clone(&states);
    let _up = meter
        .u64_observable_gauge("toolmodel.upstream.up")
        .with_description("1 while the upstream server's session is open, else 0.")
        .with_callback(move |observer| {
            for status in lock(&read).iter() {
                let (up, state) = match &status.session {
                    SessionState::Open => (1, "up"),
                    SessionState::ShutDown => (0, "shut_down"),
                    _ => (0, "down"),
                };
                observer.observe(
                    up,
                    &[
                        KeyValue::new(attr::TOOLMODEL_UPSTREAM, status.name.clone()),
                        KeyValue::new(attr::TOOLMODEL_UPSTREAM_STATE, state),
                    ],
                );
            }
        })
        .build();
    let read = Arc::clone(&states);
    let _failures = meter
        .u64_observable_gauge("toolmodel.upstream.failures")
        .with_description("Attempts to open the upstream server's session that failed in a row.")
        .with_callback(move |observer| {
            for status in lock(&read).iter() {
                let failures = match &status.session {
                    SessionState::Down { failures, .. } => u64::from(*failures),
                    _ => 0,
                };
                observer.observe(
                    failures,
                    &[KeyValue::new(attr::TOOLMODEL_UPSTREAM, status.name.clone())],
                );
            }
        })
        .build();
    let read = Arc::clone(&states);
    let _tools = meter
        .u64_observable_gauge("toolmodel.upstream.tools")
        .with_unit("{tool}")
        .with_description("The tools the upstream server serves through the gateway.")
        .with_callback(move |observer| {
            for status in lock(&read).iter() {
                observer.observe(
                    u64::try_from(status.tools).unwrap_or(u64::MAX),
                    &[KeyValue::new(attr::TOOLMODEL_UPSTREAM, status.name.clone())],
                );
            }
        })
        .build();
    let federation = federation.clone();
    let refresh = tokio::spawn(async move {
        loop {
            let read = federation.status().await;
            *lock(&states) = read;
            tokio::time::sleep(REFRESH).await;
        }
    });
    ObservedFederation { refresh }
}
