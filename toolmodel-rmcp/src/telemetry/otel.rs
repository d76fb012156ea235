//! [`Telemetry`]: the setup of a binary's logs, traces and metrics (feature `otel`), as
//! `toolmodel gateway` and the example server do it.

use std::{fmt, str::FromStr, time::Duration};

use opentelemetry::{global, trace::TracerProvider as _};
use opentelemetry_otlp::WithExportConfig as _;
use opentelemetry_sdk::{
    Resource,
    metrics::{PeriodicReader, SdkMeterProvider},
    propagation::{BaggagePropagator, TraceContextPropagator},
    trace::{BatchConfigBuilder, BatchSpanProcessor, SdkTracerProvider},
};
use tracing_subscriber::{EnvFilter, Layer as _, layer::SubscriberExt as _};

use crate::error::Error;

/// The filter of log lines when `RUST_LOG` is unset: toolmodel's events at INFO (targets
/// `toolmodel*`), rmcp's at ERROR (its own warnings repeat what toolmodel answers), the rest at
/// WARN; no access log (see [`TelemetryConfig::with_access_log`]); and not the MCP spans
/// (`toolmodel_rmcp::mcp`) as log lines' context: formatting their fields for each request
/// would cost a log line nobody writes (they are exported over OTLP all the same).
pub const DEFAULT_FILTER: &str =
    "warn,rmcp=error,toolmodel=info,toolmodel_rmcp::access=off,toolmodel_rmcp::mcp=warn";

/// How log lines are written to stderr.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum LogFormat {
    /// One line of text per event: time, level, target, message, fields.
    #[default]
    Text,
    /// One JSON object per line (`timestamp`, `level`, `target`, `fields`, `span`, `spans`),
    /// for a log collector.
    Json,
}

impl FromStr for LogFormat {
    type Err = String;

    /// `text` or `json`.
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        match text {
            "text" => Ok(Self::Text),
            "json" => Ok(Self::Json),
            other => Err(format!("{other:?} is not a log format: text or json")),
        }
    }
}

impl fmt::Display for LogFormat {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.write_str(match self {
            Self::Text => "text",
            Self::Json => "json",
        })
    }
}

/// What [`Telemetry::init`] sets up. Every field has a builder method; the defaults: text logs,
/// no access log, OTLP only when `OTEL_EXPORTER_OTLP_ENDPOINT` (or the per-signal
/// `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`/`_METRICS_ENDPOINT`) is set, a Prometheus registry
/// always.
#[derive(Clone, Debug, Default)]
#[must_use]
pub struct TelemetryConfig {
    service_name: Option<String>,
    otlp_endpoint: Option<String>,
    log_format: LogFormat,
    access_log: bool,
    metrics_interval: Option<Duration>,
}

impl TelemetryConfig {
    /// The defaults above.
    pub fn new() -> Self {
        Self::default()
    }

    /// `service.name` of the resource when `OTEL_SERVICE_NAME` is unset (the environment
    /// wins, as the OpenTelemetry SDKs do everywhere).
    pub fn with_service_name(mut self, name: impl Into<String>) -> Self {
        self.service_name = Some(name.into());
        self
    }

    /// Exports traces and metrics over OTLP/HTTP (protobuf) to `endpoint`, the collector's base
    /// URL (`http://localhost:4318`: `/v1/traces` and `/v1/metrics` are appended, as for
    /// `OTEL_EXPORTER_OTLP_ENDPOINT`), whatever the environment says.
    pub fn with_otlp_endpoint(mut self, endpoint: impl Into<String>) -> Self {
        self.otlp_endpoint = Some(endpoint.into());
        self
    }

    /// How log lines are written.
    pub fn with_log_format(mut self, format: LogFormat) -> Self {
        self.log_format = format;
        self
    }

    /// A line per tool call (target `toolmodel_rmcp::access`: tool, duration, outcome, the
    /// caller's subject) unless `RUST_LOG` says otherwise.
    pub fn with_access_log(mut self, on: bool) -> Self {
        self.access_log = on;
        self
    }

    /// How often metrics are pushed over OTLP (default: the SDK's, 60 s, or
    /// `OTEL_METRIC_EXPORT_INTERVAL`).
    pub fn with_metrics_interval(mut self, interval: Duration) -> Self {
        self.metrics_interval = Some(interval);
        self
    }
}

/// A binary's telemetry, installed process-wide by [`init`](Self::init): a `tracing`
/// subscriber writing log lines to stderr (filtered by `RUST_LOG`, else [`DEFAULT_FILTER`])
/// with `tracing-opentelemetry` turning spans into OpenTelemetry spans; the W3C Trace Context
/// and Baggage propagators (the `params._meta` trace context of
/// [`trace_context`](super::trace_context)); a meter provider with a Prometheus registry
/// ([`prometheus_text`](Self::prometheus_text), for `/metrics`) and, when an endpoint is
/// configured, OTLP/HTTP exporters of spans and metrics.
///
/// The OpenTelemetry SDK reads the standard environment: `OTEL_SERVICE_NAME`,
/// `OTEL_RESOURCE_ATTRIBUTES`, `OTEL_TRACES_SAMPLER` (and `_ARG`), `OTEL_EXPORTER_OTLP_*`,
/// `OTEL_BSP_*` (the span queue: 2,048 spans by default; when the collector is unreachable the
/// queue fills and further spans are dropped, never waited for). Dropping the value (or
/// [`shutdown`](Self::shutdown)) flushes what is queued.
///
/// ```no_run
/// use toolmodel_rmcp::telemetry::otel::{LogFormat, Telemetry, TelemetryConfig};
///
/// # fn main() -> Result<(), toolmodel_rmcp::Error> {
/// let telemetry = Telemetry::init(
///     TelemetryConfig::new()
///         .with_service_name("my-mcp-server")
///         .with_log_format(LogFormat::Json),
/// )?;
/// // ... serve; on an admin listener, `/metrics` answers `telemetry.prometheus_text()`.
/// # drop(telemetry);
/// # Ok(())
/// # }
/// ```
pub struct Telemetry {
    tracer_provider: SdkTracerProvider,
    meter_provider: SdkMeterProvider,
    registry: prometheus::Registry,
}

impl fmt::Debug for Telemetry {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter.debug_struct("Telemetry").finish_non_exhaustive()
    }
}

fn setup_error(message: &str, source: impl Into<crate::error::BoxError>) -> Error {
    Error::Telemetry {
        message: message.to_owned(),
        source: Some(source.into()),
    }
}

/// Whether the environment names an OTLP endpoint for `signal` (`TRACES`, `METRICS`).
fn endpoint_in_environment(signal: &str) -> bool {
    [
        "OTEL_EXPORTER_OTLP_ENDPOINT".to_owned(),
        format!("OTEL_EXPORTER_OTLP_{signal}_ENDPOINT"),
    ]
    .iter()
    .any(|name| std::env::var_os(name).is_some_and(|value| !value.is_empty()))
}

impl Telemetry {
    /// Installs the subscriber, the propagators and the providers (see the type's docs).
    ///
    /// # Errors
    ///
    /// [`Error::Telemetry`] when `RUST_LOG` does not parse, an OTLP exporter cannot be built
    /// (an endpoint that is not a URL), the Prometheus exporter cannot be registered, or a
    /// global `tracing` subscriber is installed already.
    pub fn init(config: TelemetryConfig) -> Result<Self, Error> {
        let mut resource = Resource::builder();
        if std::env::var_os("OTEL_SERVICE_NAME").is_none()
            && let Some(name) = &config.service_name
        {
            resource = resource.with_service_name(name.clone());
        }
        let resource = resource.build();
        let endpoint = |path: &str| {
            config
                .otlp_endpoint
                .as_ref()
                .map(|base| format!("{}/{path}", base.trim_end_matches('/')))
        };

        let mut tracer_provider = SdkTracerProvider::builder().with_resource(resource.clone());
        if config.otlp_endpoint.is_some() || endpoint_in_environment("TRACES") {
            let mut exporter = opentelemetry_otlp::SpanExporter::builder()
                .with_http()
                .with_protocol(opentelemetry_otlp::Protocol::HttpBinary);
            if let Some(url) = endpoint("v1/traces") {
                exporter = exporter.with_endpoint(url);
            }
            let exporter = exporter
                .build()
                .map_err(|err| setup_error("the OTLP span exporter", err))?;
            let processor = BatchSpanProcessor::builder(exporter)
                .with_batch_config(BatchConfigBuilder::default().build())
                .build();
            tracer_provider = tracer_provider.with_span_processor(processor);
        }
        let tracer_provider = tracer_provider.build();

        let registry = prometheus::Registry::new();
        let prometheus = opentelemetry_prometheus::exporter()
            .with_registry(registry.clone())
            .build()
            .map_err(|err| setup_error("the Prometheus exporter", err))?;
        let mut meter_provider = SdkMeterProvider::builder()
            .with_resource(resource)
            .with_reader(prometheus);
        if config.otlp_endpoint.is_some() || endpoint_in_environment("METRICS") {
            let mut exporter = opentelemetry_otlp::MetricExporter::builder()
                .with_http()
                .with_protocol(opentelemetry_otlp::Protocol::HttpBinary);
            if let Some(url) = endpoint("v1/metrics") {
                exporter = exporter.with_endpoint(url);
            }
            let exporter = exporter
                .build()
                .map_err(|err| setup_error("the OTLP metric exporter", err))?;
            let mut reader = PeriodicReader::builder(exporter);
            if let Some(interval) = config.metrics_interval {
                reader = reader.with_interval(interval);
            }
            meter_provider = meter_provider.with_reader(reader.build());
        }
        let meter_provider = meter_provider.build();

        let filter = match std::env::var("RUST_LOG") {
            Ok(directives) if !directives.is_empty() => EnvFilter::try_new(directives)
                .map_err(|err| setup_error("RUST_LOG does not parse", err))?,
            _ if config.access_log => EnvFilter::new(
                DEFAULT_FILTER.replace("toolmodel_rmcp::access=off", "toolmodel_rmcp::access=info"),
            ),
            _ => EnvFilter::new(DEFAULT_FILTER),
        };
        let logs = match config.log_format {
            LogFormat::Text => tracing_subscriber::fmt::layer()
                .with_writer(std::io::stderr)
                .with_ansi(false)
                .boxed(),
            LogFormat::Json => tracing_subscriber::fmt::layer()
                .json()
                .with_writer(std::io::stderr)
                .boxed(),
        };
        // Spans go to OpenTelemetry whatever the log filter says; only the log lines are
        // filtered by RUST_LOG. Without tracing-opentelemetry's `busy_ns`/`idle_ns` (two clock
        // reads at every enter and exit of a span, and a future instrumented by one enters it
        // at each poll), `thread.id`/`thread.name`, source location and target: none is an MCP
        // convention. Without context activation: the OpenTelemetry context is not switched at
        // each poll of an instrumented future (a handler reaches its span through `tracing`;
        // this crate injects trace context from the span itself). Not rmcp's own session spans,
        // entered at each poll of a session's task and no convention's; nor the access line,
        // a log line, not a span event (`benches/telemetry.rs` measured each).
        let spans = tracing_opentelemetry::layer()
            .with_tracer(tracer_provider.tracer("toolmodel-rmcp"))
            .with_tracked_inactivity(false)
            .with_threads(false)
            .with_location(false)
            .with_target(false)
            .with_context_activation(false)
            .with_filter(
                tracing_subscriber::filter::Targets::new()
                    .with_default(tracing::Level::INFO)
                    .with_target("rmcp", tracing::level_filters::LevelFilter::OFF)
                    .with_target(
                        "toolmodel_rmcp::access",
                        tracing::level_filters::LevelFilter::OFF,
                    ),
            );
        let subscriber = tracing_subscriber::registry()
            .with(logs.with_filter(filter))
            .with(spans);
        tracing::subscriber::set_global_default(subscriber)
            .map_err(|err| setup_error("a tracing subscriber is installed already", err))?;
        global::set_text_map_propagator(
            opentelemetry::propagation::TextMapCompositePropagator::new(vec![
                Box::new(TraceContextPropagator::new()),
                Box::new(BaggagePropagator::new()),
            ]),
        );
        global::set_tracer_provider(tracer_provider.clone());
        global::set_meter_provider(meter_provider.clone());
        Ok(Self {
            tracer_provider,
            meter_provider,
            registry,
        })
    }

    /// Every metric recorded so far in Prometheus' text exposition format (version 0.0.4), for
    /// an admin listener's `/metrics`: instrument names with dots as underscores and the unit
    /// as a suffix (`mcp_server_operation_duration_seconds_bucket{...,le="0.01"}`).
    #[must_use]
    pub fn prometheus_text(&self) -> String {
        render(&self.registry)
    }

    /// [`prometheus_text`](Self::prometheus_text) as a function to hand an admin listener.
    pub fn prometheus_renderer(&self) -> impl Fn() -> String + Send + Sync + 'static {
        let registry = self.registry.clone();
        move || render(&registry)
    }

    /// Flushes and stops the exporters (what [`Drop`] does).
    pub fn shutdown(self) {}
}

fn render(registry: &prometheus::Registry) -> String {
    use prometheus::Encoder as _;
    let mut text = Vec::new();
    // The text encoder writes to a Vec, which does not fail.
    let _ = prometheus::TextEncoder::new().encode(&registry.gather(), &mut text);
    String::from_utf8(text).unwrap_or_default()
}

impl Drop for Telemetry {
    fn drop(&mut self) {
        let _ = self.tracer_provider.shutdown();
        let _ = self.meter_provider.shutdown();
    }
}
