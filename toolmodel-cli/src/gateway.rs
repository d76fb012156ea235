//! `toolmodel gateway`: the tools, prompts, resources and completion of the MCP servers of a
//! configuration file, served as one MCP server ([`toolmodel_rmcp::federation::Federation`]
//! behind a [`ToolboxServer`]), over stdio or Streamable HTTP, as an OAuth 2.1 resource server
//! with `--auth-issuer` ([`ResourceServer`]); `--check-config` checks all of it and exits.
//! The configuration file reloads while the gateway serves, on `SIGHUP` and when it changes
//! (`reload`).
//!
//! **Host names.** Over HTTP, a request's `Host` must name the gateway (MCP, Streamable HTTP,
//! against DNS rebinding; [`ToolboxServer::with_allowed_hosts`]). `--allowed-hosts` lists the
//! names; without it the gateway answers to the loopback names, and to the host of
//! `--resource` when that is not loopback: the resource is the URL clients connect to, so its
//! host is the one they send (`--resource https://mcp.example.com/mcp` behind a proxy that
//! passes `Host: mcp.example.com` works without `--allowed-hosts`). `--allowed-hosts`
//! replaces that default; when it leaves out the host of `--resource`, a warning says so.

use std::{
    io::{self, Write},
    net::SocketAddr,
};

use toolmodel_rmcp::{
    ToolboxServer,
    admin::Admin,
    auth::ResourceServer,
    federation::{Credentials, Federation, FederationConfig},
    server::{MCP_PATH, RequestStateKey, ToolSearch},
    sessions::{SESSION_STORE_ENV, session_store_from_url},
    telemetry::{
        observe_federation,
        otel::{Telemetry, TelemetryConfig},
    },
};

use crate::cli::GatewayArgs;
use crate::gateway_config::{self, Checked};
use crate::reload;
use crate::status::Status;
use crate::text::Chain;

/// The environment variable `--introspection-client-id`'s secret is read from: a secret on
/// the command line would show in `ps` and in shell histories.
pub const INTROSPECTION_SECRET_ENV: &str = "MCP_INTROSPECTION_CLIENT_SECRET";

/// The environment variable `--exchange-client-id`'s secret is read from (never the command
/// line).
pub const EXCHANGE_SECRET_ENV: &str = "MCP_EXCHANGE_CLIENT_SECRET";

/// The environment variable of the key replicas of the gateway share for MCP 2026-07-28
/// input rounds and forwarded task IDs (base64 of at least 32 bytes).
pub const REQUEST_STATE_KEY_ENV: &str = "MCP_REQUEST_STATE_KEY";

/// The host names a gateway answers to without `--allowed-hosts` (the library's default).
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Runs the gateway until its client leaves (stdio: end of input) or SIGINT/SIGTERM (HTTP),
/// then closes every upstream session and kills each child's process group. Meanwhile the
/// configuration file is reloaded on SIGHUP and when its content changes (read every second):
/// checked as `--check-config` checks it, refused with a log line naming each problem (the
/// running configuration kept), or handed to
/// [`Federation::reconfigure`] with a log line `reloaded FILE: added [..] removed [..]
/// changed [..]`. The options (the address, `--auth-issuer`, ...) are not reloaded. Errors go to
/// `errors` (stdout belongs to the MCP session over stdio). Over HTTP the line
/// `serving MCP on http://ADDR/mcp` (the address bound, a port 0 resolved) goes to stderr.
/// With `--check-config`, checks what the gateway would start with (the configuration, each
/// option, `MCP_REQUEST_STATE_KEY` and [`INTROSPECTION_SECRET_ENV`]; each problem written to
/// `errors`), writes a summary to `out` and returns without starting or binding anything.
///
/// The `requestState` of MCP 2026-07-28 input rounds is sealed with the key of
/// `MCP_REQUEST_STATE_KEY` (base64, at least 32 bytes) when it is set, so that replicas of the
/// gateway continue each other's rounds; with a random key of the process otherwise.
///
/// Returns [`Status::Clean`] when the gateway stopped cleanly or the check found nothing;
/// [`Status::Findings`] when the check found a problem; [`Status::Failure`] when the gateway
/// could not start or serve.
///
/// # Errors
///
/// Writing to `out` or `errors` failed, or no tokio runtime could be built.
pub fn run(args: &GatewayArgs, out: &mut dyn Write, errors: &mut dyn Write) -> io::Result<Status> {
    // What a reload compares the file with: the content the gateway starts with.
    let seen = reload::read(args);
    let Some(plan) = Plan::read(args, errors)? else {
        return Ok(if args.check_config {
            Status::Findings
        } else {
            Status::Failure
        });
    };
    if args.check_config {
        plan.summarize(args, out)?;
        return Ok(Status::Clean);
    }
    // Before the runtime: the OTLP exporters' blocking HTTP client is built here, outside it.
    let mut telemetry = TelemetryConfig::new()
        .with_service_name("toolmodel-gateway")
        .with_log_format(args.log_format)
        .with_access_log(args.access_log);
    if let Some(endpoint) = &args.otlp_endpoint {
        telemetry = telemetry.with_otlp_endpoint(endpoint.clone());
    }
    let telemetry = match Telemetry::init(telemetry) {
        Ok(telemetry) => telemetry,
        Err(err) => {
            writeln!(errors, "error: {}", Chain(&err))?;
            return Ok(Status::Failure);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let Plan {
        mut config,
        key,
        allowed_hosts,
    } = plan;
    let outcome = runtime.block_on(async {
        // SIGHUP reloads from now on (its default action would end the process).
        let hangups = reload::Hangups::register();
        // The HTTP front first: a bad address or authorization configuration starts no server.
        let front = match args.http {
            None => None,
            Some(addr) => Some(HttpFront::bind(addr, args).await?),
        };
        // Sessions of 2025-era clients in the store MCP_SESSION_STORE names (this process
        // only when unset): replicas behind one balancer share a Redis one.
        let sessions = match &front {
            None => None,
            Some(_) => {
                let url = std::env::var(SESSION_STORE_ENV).ok();
                Some(session_store_from_url(url.as_deref()).await?)
            }
        };
        let admin = match args.admin {
            None => None,
            Some(addr) => Some(AdminListener::bind(addr).await?),
        };
        share_rate_limits(&mut config).await?;
        let federation = Federation::start(config).await?;
        for status in federation.status().await {
            if !status.session.is_open() {
                let (name, cause) = (&status.name, &status.session);
                tracing::warn!(target: "toolmodel::gateway", server = name.as_str(), %cause, "server {name:?} is unavailable: {cause}");
            }
        }
        observe_federation(&federation);
        if let Some(admin) = admin {
            let listener = admin.listener;
            let mut routes = Admin::new()
                .with_metrics(telemetry.prometheus_renderer())
                .with_federation(&federation);
            if let Some(store) = sessions.as_ref().filter(|store| store.is_shared()) {
                routes = routes.with_session_store(std::sync::Arc::clone(store));
            }
            let served = routes.serve(listener);
            tokio::spawn(served.into_future());
            tracing::info!(target: "toolmodel::gateway", url = %admin.url, "admin listener on {}", admin.url);
        }
        let mut server = ToolboxServer::gateway(&federation)
            .with_server_info("toolmodel-gateway", env!("CARGO_PKG_VERSION"))
            .with_recorded_tool_content(args.record_tool_content);
        if let Some(threshold) = args.tool_search {
            server = server.with_tool_search(
                ToolSearch::new()
                    .with_threshold(threshold)
                    .with_always_visible(args.always_visible.iter().cloned()),
            );
        }
        if let Some(key) = key {
            server = server.with_request_state_key(key);
        }
        let serving = async {
            match front {
            None => server.serve_stdio().await,
            Some(front) => {
                if let Some(hosts) = allowed_hosts {
                    server = server.with_allowed_hosts(hosts);
                }
                if !args.allowed_origins.is_empty() {
                    server = server.with_allowed_origins(args.allowed_origins.iter().cloned());
                }
                if let Some(authorization) = front.authorization {
                    server = server.with_authorization(authorization);
                }
                if let Some(store) = sessions {
                    server = server.with_session_store(store);
                }
                tracing::info!(target: "toolmodel::gateway", url = %front.url, "serving MCP on {}", front.url);
                server
                    .serve_http(front.listener)
                    .with_graceful_shutdown(stop_signal())
                    .await
            }
        }
        };
        // The configuration reloads while the gateway serves, and no longer once it stopped.
        let served = tokio::select! {
            served = serving => served,
            never = reload::watch(args, &federation, seen, hangups) => match never {},
        };
        federation.shutdown().await;
        served
    });
    drop(runtime);
    // Flushes the spans and metrics still queued.
    drop(telemetry);
    match outcome {
        Ok(()) => Ok(Status::Clean),
        Err(err) => {
            writeln!(errors, "error: {}", Chain(&err))?;
            Ok(Status::Failure)
        }
    }
}

/// The environment variable naming the Redis server that shares the rate limits
/// (`toolmodelLimits`) of the replicas of a gateway: `redis://HOST:PORT[/DB]`.
pub const LIMIT_STORE_ENV: &str = "MCP_LIMIT_STORE";

/// Shares the rate limits of `config` with the other replicas through the Redis
/// [`LIMIT_STORE_ENV`] names (else [`SESSION_STORE_ENV`]'s, when that is Redis); without
/// either they stay this process's own.
///
/// # Errors
///
/// What [`RateLimits::shared_through_redis`](toolmodel_rmcp::server::RateLimits::shared_through_redis)
/// returns for a URL that cannot be used.
pub(crate) async fn share_rate_limits(
    config: &mut FederationConfig,
) -> Result<(), toolmodel_rmcp::Error> {
    if let Some(url) = limit_store_url()
        && let Some(limits) = config.rate_limits.take()
    {
        config.rate_limits = Some(limits.shared_through_redis(&url).await?);
    }
    Ok(())
}

/// The Redis URL the rate limits are shared through: [`LIMIT_STORE_ENV`]'s, else the
/// session store's ([`SESSION_STORE_ENV`]) when that is a Redis URL; `None`: each process
/// keeps its own buckets.
fn limit_store_url() -> Option<String> {
    let set = |name| {
        std::env::var(name)
            .ok()
            .map(|url| url.trim().to_owned())
            .filter(|url| !url.is_empty())
    };
    set(LIMIT_STORE_ENV).or_else(|| {
        set(SESSION_STORE_ENV)
            .filter(|url| url.starts_with("redis://") || url.starts_with("rediss://"))
    })
}

/// What a gateway starts with, checked: the configuration, the `requestState` key, and the
/// host names it answers to over HTTP.
struct Plan {
    config: FederationConfig,
    key: Option<RequestStateKey>,
    /// The `Host` names allowed (`None`: the library's loopback default).
    allowed_hosts: Option<Vec<String>>,
}

impl Plan {
    /// Reads and checks everything the gateway would start with, writing each problem to
    /// `errors` as `error: ...` and each doubtful setting as `warning: ...`; `None` when there
    /// was a problem. The problems: a configuration that cannot be read or used (naming the
    /// file, the server and the JSON Pointer), a bad `MCP_REQUEST_STATE_KEY`, an
    /// `--auth-issuer` or `--resource` that [`ResourceServer::new`] refuses (checked against
    /// `http://ADDR/mcp` when `--resource` is not given), an introspection secret missing from
    /// [`INTROSPECTION_SECRET_ENV`], an `--introspection-rate` of 0, and over HTTP without
    /// `--auth-issuer` a server with `requiredScopes` (nothing would check them), and without
    /// `--auth-issuer` a `toolmodelPolicy` rule with `when` (no request would have a caller);
    /// a server with `toolmodelCredentials` without `--http`, `--auth-issuer` and
    /// `--exchange-client-id` (with [`EXCHANGE_SECRET_ENV`] set).
    ///
    /// # Errors
    ///
    /// Writing to `errors` failed.
    fn read(args: &GatewayArgs, errors: &mut dyn Write) -> io::Result<Option<Self>> {
        let Checked {
            config,
            mut problems,
            notes,
        } = gateway_config::check(args);
        for note in &notes {
            writeln!(errors, "note: {note}")?;
        }
        let key = request_state_key().unwrap_or_else(|problem| {
            problems.push(problem);
            None
        });
        if let Some(addr) = args.http {
            let resource = format!("http://{addr}{MCP_PATH}");
            if let Err(problem) = authorization(args, args.resource.as_deref().unwrap_or(&resource))
            {
                problems.push(problem);
            }
        }
        let (allowed_hosts, warning) = allowed_hosts(args);
        if let Some(warning) = warning {
            writeln!(errors, "warning: {warning}")?;
        }
        for problem in &problems {
            writeln!(errors, "error: {problem}")?;
        }
        Ok(match (problems.is_empty(), config) {
            (true, Some(config)) => Some(Self {
                config,
                key,
                allowed_hosts,
            }),
            _ => None,
        })
    }

    /// `--check-config`'s summary, to `out`: the servers, and over HTTP the address, the
    /// issuer, the scopes and the host names.
    fn summarize(&self, args: &GatewayArgs, out: &mut dyn Write) -> io::Result<()> {
        let enabled: Vec<&str> = self
            .config
            .enabled()
            .map(|server| server.name.as_str())
            .collect();
        writeln!(
            out,
            "ok: {}: {} servers, {} enabled ({})",
            args.config.display(),
            self.config.upstreams.len(),
            enabled.len(),
            enabled.join(", ")
        )?;
        if let Some(limits) = &self.config.rate_limits {
            let shared = if limit_store_url().is_some() {
                "shared through Redis"
            } else {
                "this process's own buckets"
            };
            writeln!(out, "  rate limits: {} rules, {shared}", limits.len())?;
        }
        for server in self.config.enabled() {
            match &server.credentials {
                Some(Credentials::TokenExchange(_)) => {
                    if let Some(client) = &args.exchange_client_id {
                        writeln!(
                            out,
                            "  server {:?}: each user's own token, exchanged as {client}",
                            server.name
                        )?;
                    }
                }
                Some(Credentials::OAuth(client)) => writeln!(
                    out,
                    "  server {:?}: each user authorizes {} at its authorization server, redirected to {}",
                    server.name,
                    client.client_id,
                    self.config.redirect_uri.as_deref().unwrap_or("-")
                )?,
                _ => {}
            }
            if !server.required_scopes.is_empty() {
                writeln!(
                    out,
                    "  server {:?}: tools need scopes {}",
                    server.name,
                    server.required_scopes.join(" ")
                )?;
            }
        }
        if let Some(threshold) = args.tool_search {
            writeln!(
                out,
                "  tool search above {threshold} tools, always visible: {}",
                args.always_visible.join(", ")
            )?;
        }
        let Some(addr) = args.http else {
            return writeln!(out, "  over stdio");
        };
        writeln!(out, "  over Streamable HTTP on http://{addr}{MCP_PATH}")?;
        if let Some(issuer) = &args.auth_issuer {
            let resource = args
                .resource
                .clone()
                .unwrap_or_else(|| format!("http://{addr}{MCP_PATH} (the port bound)"));
            writeln!(out, "  tokens from {issuer} for {resource}")?;
            if !args.scopes.is_empty() {
                writeln!(
                    out,
                    "  every request needs scopes {}",
                    args.scopes.join(" ")
                )?;
            }
            if let Some(client) = &args.introspection_client_id {
                writeln!(out, "  opaque tokens introspected as {client}")?;
            }
        }
        let hosts = self
            .allowed_hosts
            .clone()
            .unwrap_or_else(|| LOOPBACK_HOSTS.map(str::to_owned).to_vec());
        writeln!(out, "  allowed hosts: {}", hosts.join(", "))?;
        if !args.allowed_origins.is_empty() {
            writeln!(
                out,
                "  allowed origins: {}",
                args.allowed_origins.join(", ")
            )?;
        }
        Ok(())
    }
}

/// The key of `MCP_REQUEST_STATE_KEY`, `None` when it is not set.
///
/// # Errors
///
/// The sentence naming the variable and what is wrong with its value.
fn request_state_key() -> Result<Option<RequestStateKey>, String> {
    match std::env::var(REQUEST_STATE_KEY_ENV) {
        Ok(text) => RequestStateKey::from_base64(&text)
            .map(Some)
            .map_err(|err| format!("{REQUEST_STATE_KEY_ENV}: {}", Chain(&err))),
        Err(std::env::VarError::NotPresent) => Ok(None),
        Err(err) => Err(format!("{REQUEST_STATE_KEY_ENV}: {err}")),
    }
}

/// The [`ResourceServer`] of `--auth-issuer` for `resource`, with `--scopes` and the
/// introspection settings; `None` without `--auth-issuer`.
///
/// # Errors
///
/// A sentence naming the value: what [`ResourceServer::new`] and
/// [`ResourceServer::with_introspection_rate`] refuse, or [`INTROSPECTION_SECRET_ENV`] not set
/// (or empty, or not Unicode) with `--introspection-client-id`.
fn authorization(args: &GatewayArgs, resource: &str) -> Result<Option<ResourceServer>, String> {
    let Some(issuer) = &args.auth_issuer else {
        return Ok(None);
    };
    let mut authorization = ResourceServer::new(issuer, resource)
        .map_err(|err| err.to_string())?
        .with_scopes(args.scopes.iter().cloned());
    if let Some(client) = &args.introspection_client_id {
        let secret = std::env::var(INTROSPECTION_SECRET_ENV)
            .ok()
            .filter(|secret| !secret.is_empty())
            .ok_or_else(|| {
                format!(
                    "--introspection-client-id {client:?}: {INTROSPECTION_SECRET_ENV} is not set (the client's secret is read from it, never from the command line)"
                )
            })?;
        authorization = authorization.with_introspection(client, secret);
    }
    if let Some(rate) = args.introspection_rate {
        authorization = authorization
            .with_introspection_rate(rate)
            .map_err(|err| format!("--introspection-rate {rate}: {err}"))?;
    }
    Ok(Some(authorization))
}

/// The `Host` names the gateway answers to (see the [module docs](self)): `--allowed-hosts`;
/// else the loopback names and the host of `--resource` when it is not loopback; else `None`
/// (the library's loopback default). Beside it, a warning when `--allowed-hosts` leaves out
/// the host of `--resource`.
fn allowed_hosts(args: &GatewayArgs) -> (Option<Vec<String>>, Option<String>) {
    let resource_host = args.resource.as_deref().and_then(host_of);
    if !args.allowed_hosts.is_empty() {
        let warning = resource_host
            .filter(|host| !is_loopback(host))
            .filter(|host| {
                !args
                    .allowed_hosts
                    .iter()
                    .any(|allowed| same_host(allowed, host))
            })
            .map(|host| {
                format!(
                    "--allowed-hosts leaves out {host:?}, the host of --resource: a client that connects to the resource gets 403 unless a proxy in front rewrites Host"
                )
            });
        return (Some(args.allowed_hosts.clone()), warning);
    }
    let hosts = resource_host.filter(|host| !is_loopback(host)).map(|host| {
        std::iter::once(host.to_owned())
            .chain(LOOPBACK_HOSTS.map(str::to_owned))
            .collect()
    });
    (hosts, None)
}

/// The host of an absolute URL (`https://user@mcp.example.com:8443/mcp` gives
/// `mcp.example.com`; an IPv6 address keeps its brackets), `None` when it has none.
fn host_of(url: &str) -> Option<&str> {
    let (_, rest) = url.split_once("://")?;
    let authority = rest.split(['/', '?', '#']).next()?;
    let host_port = authority
        .rsplit_once('@')
        .map_or(authority, |(_, after)| after);
    let host = match host_port.strip_prefix('[') {
        Some(_) => &host_port[..=host_port.find(']')?],
        None => host_port.split(':').next()?,
    };
    (!host.is_empty()).then_some(host)
}

/// Whether `host` (from a URL) is a loopback name the gateway answers to by default.
fn is_loopback(host: &str) -> bool {
    let bare = host.trim_start_matches('[').trim_end_matches(']');
    bare.eq_ignore_ascii_case("localhost")
        || bare == "::1"
        || bare
            .parse::<std::net::Ipv4Addr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Whether the `--allowed-hosts` entry `allowed` (`host` or `host:port`) names `host`.
fn same_host(allowed: &str, host: &str) -> bool {
    let url = format!("http://{allowed}");
    host_of(&url).unwrap_or(allowed).eq_ignore_ascii_case(host)
}

/// The gateway's Streamable HTTP endpoint before it serves: its listener, its URL, and the
/// [`ResourceServer`] of `--auth-issuer`.
struct HttpFront {
    listener: tokio::net::TcpListener,
    /// `http://ADDR/mcp`, with the port bound.
    url: String,
    authorization: Option<ResourceServer>,
}

impl HttpFront {
    /// Binds `addr` and builds the [`ResourceServer`] of `args` (the resource defaults to the
    /// bound URL).
    ///
    /// # Errors
    ///
    /// [`Error::Io`](toolmodel_rmcp::Error::Io) when `addr` cannot be bound;
    /// [`Error::ResourceServer`](toolmodel_rmcp::Error::ResourceServer) with the sentence of
    /// [`authorization`] (which [`Plan::read`] checked already, against the port asked for).
    async fn bind(addr: SocketAddr, args: &GatewayArgs) -> Result<Self, toolmodel_rmcp::Error> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(toolmodel_rmcp::Error::Io)?;
        let bound = listener.local_addr().map_err(toolmodel_rmcp::Error::Io)?;
        let url = format!("http://{bound}{MCP_PATH}");
        let resource = args.resource.as_deref().unwrap_or(&url);
        let authorization = authorization(args, resource).map_err(|message| {
            toolmodel_rmcp::Error::ResourceServer {
                message,
                source: None,
            }
        })?;
        if let Some(authorization) = &authorization {
            tracing::info!(
                target: "toolmodel::gateway",
                issuer = authorization.issuer(),
                resource = authorization.resource(),
                "authorization: tokens from {} for {}",
                authorization.issuer(),
                authorization.resource()
            );
        }
        Ok(Self {
            listener,
            url,
            authorization,
        })
    }
}

/// Completes on SIGINT or SIGTERM (Ctrl-C only where there is no SIGTERM).
/// The admin listener's socket, bound before anything starts (a taken port fails the start).
struct AdminListener {
    listener: tokio::net::TcpListener,
    url: String,
}

impl AdminListener {
    async fn bind(addr: SocketAddr) -> Result<Self, toolmodel_rmcp::Error> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(toolmodel_rmcp::Error::Io)?;
        let url = format!(
            "http://{}",
            listener.local_addr().map_err(toolmodel_rmcp::Error::Io)?
        );
        Ok(Self { listener, url })
    }
}

async fn stop_signal() {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        match (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) {
            (Ok(mut interrupt), Ok(mut terminate)) => {
                tokio::select! {
                    _ = interrupt.recv() => {}
                    _ = terminate.recv() => {}
                }
            }
            _ => std::future::pending().await,
        }
    }
    #[cfg(not(unix))]
    {
        let _ = tokio::signal::ctrl_c().await;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_host_of_a_resource_url_is_read_with_or_without_user_port_and_brackets() {
        assert_eq!(
            host_of("https://mcp.example.com/mcp"),
            Some("mcp.example.com")
        );
        assert_eq!(
            host_of("https://user@mcp.example.com:8443/mcp?x#y"),
            Some("mcp.example.com")
        );
        assert_eq!(host_of("http://[::1]:8080/mcp"), Some("[::1]"));
        assert_eq!(host_of("http:///mcp"), None);
        assert_eq!(host_of("mcp.example.com"), None);
        assert!(is_loopback("[::1]") && is_loopback("127.0.0.2") && is_loopback("LOCALHOST"));
        assert!(!is_loopback("mcp.example.com") && !is_loopback("10.0.0.1"));
        assert!(same_host("MCP.example.com:443", "mcp.example.com"));
        assert!(same_host("[2001:db8::1]:80", "[2001:db8::1]"));
        assert!(!same_host("example.com", "mcp.example.com"));
    }
}
