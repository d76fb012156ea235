//! What the two server examples share: reading `--http ADDRESS` from the command line,
//! running a [`ToolboxServer`] over stdio or Streamable HTTP, and telling the person who
//! started it, on stderr, how to connect a client.

use std::{fmt, net::SocketAddr, sync::Arc};

use serde_json::json;
use toolmodel_rmcp::{
    ToolboxServer,
    admin::Admin,
    server::{MCP_PATH, RequestStateKey},
    sessions::{SESSION_STORE_ENV, session_store_from_url},
    tasks::{TaskStore, task_store_from_url},
    telemetry::otel::{LogFormat, Telemetry, TelemetryConfig},
};

/// The environment variable of the key every replica shares for MCP 2026-07-28 input rounds
/// (base64 of at least 32 bytes: [`RequestStateKey::from_base64`]).
pub const REQUEST_STATE_KEY_ENV: &str = "MCP_REQUEST_STATE_KEY";

/// The environment variable of the task store's URL (`redis://HOST:PORT[/DB]`; the memory
/// store when unset): [`task_store_from_url`].
pub const TASK_STORE_ENV: &str = "MCP_TASK_STORE";

/// How to serve.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    /// stdio: the client starts this program and talks on its stdin and stdout.
    Stdio,
    /// Streamable HTTP at `http://ADDRESS/mcp`; port 0 picks a free port.
    Http(SocketAddr),
}

/// A command line these examples do not understand.
#[derive(Debug, PartialEq, Eq)]
pub struct Usage(pub String);

impl fmt::Display for Usage {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}\nusage: [--http 127.0.0.1:PORT] (stdio when absent; port 0 picks a free one)",
            self.0
        )
    }
}

impl std::error::Error for Usage {}

/// Reads the arguments after the program name: nothing (stdio) or `--http ADDRESS`, a
/// loopback address (the examples serve no one but this machine).
///
/// # Errors
///
/// [`Usage`] naming the argument that is wrong.
pub fn transport_from_args(mut args: impl Iterator<Item = String>) -> Result<Transport, Usage> {
    let transport = match args.next().as_deref() {
        None => Transport::Stdio,
        Some("--http") => {
            let text = args
                .next()
                .ok_or_else(|| Usage("--http needs an address, e.g. 127.0.0.1:8080".into()))?;
            let address: SocketAddr = text
                .parse()
                .map_err(|err| Usage(format!("--http {text:?}: {err}")))?;
            if !address.ip().is_loopback() {
                return Err(Usage(format!(
                    "--http {text:?}: the examples listen on loopback addresses only (127.0.0.1, ::1)"
                )));
            }
            Transport::Http(address)
        }
        Some(other) => return Err(Usage(format!("unknown argument {other:?}"))),
    };
    match args.next() {
        None => Ok(transport),
        Some(extra) => Err(Usage(format!("unexpected argument {extra:?}"))),
    }
}

/// Serves `server` over `transport` until the client leaves (stdio) or forever (HTTP), after
/// printing on stderr how to connect a client, with a client configuration snippet
/// (`mcpServers`, the format of Claude Desktop, Claude Code's `.mcp.json`, Cursor and others).
/// `name` is the server's key in that snippet. The `requestState` key comes from
/// `MCP_REQUEST_STATE_KEY` ([`with_request_state_key`]); over HTTP, its sessions in the store
/// `MCP_SESSION_STORE` names ([`session_store_from_url`]: `redis://HOST:PORT[/DB]`, this process
/// only when unset).
///
/// # Errors
///
/// Binding the address, or what [`ToolboxServer::serve_stdio`] and
/// [`ToolboxServer::serve_http`] return.
pub async fn run(
    server: ToolboxServer,
    name: &str,
    transport: Transport,
) -> Result<(), Box<dyn std::error::Error>> {
    let server = with_request_state_key(server)?;
    let tools = server.toolbox().len();
    match transport {
        Transport::Stdio => {
            let program = std::env::current_exe()?.display().to_string();
            let config = json!({"mcpServers": {name: {"command": program}}});
            eprintln!(
                "{name}: serving {tools} tools over stdio (MCP messages on stdin/stdout).\n\
                 A client starts this program itself; add it to the client's configuration:\n\
                 {}\n\
                 (or pass --http 127.0.0.1:PORT to serve over Streamable HTTP)",
                pretty(&config)
            );
            server.serve_stdio().await?;
        }
        Transport::Http(address) => {
            // Sessions of 2025-era clients in the store MCP_SESSION_STORE names (this process
            // only when unset): replicas behind one balancer share a Redis one.
            let url = std::env::var(SESSION_STORE_ENV).ok();
            let server = server.with_session_store(session_store_from_url(url.as_deref()).await?);
            let listener = tokio::net::TcpListener::bind(address).await?;
            let url = format!("http://{}{MCP_PATH}", listener.local_addr()?);
            let config = json!({"mcpServers": {name: {"type": "http", "url": url}}});
            eprintln!(
                "{name}: serving {tools} tools over Streamable HTTP\nlistening on {url}\n\
                 Add it to the client's configuration:\n{}",
                pretty(&config)
            );
            server.serve_http(listener).await?;
        }
    }
    Ok(())
}

/// The `requestState` key of MCP 2026-07-28 input rounds from the environment variable
/// `MCP_REQUEST_STATE_KEY` (base64 of at least 32 bytes, e.g. `openssl rand -base64 32`; give
/// every replica the same one), or the server's random key per process when it is unset.
///
/// # Errors
///
/// [`toolmodel_rmcp::Error::RequestStateKey`] when the variable is set but is not base64 of
/// at least 32 bytes; a variable that is not UTF-8.
pub fn with_request_state_key(
    server: ToolboxServer,
) -> Result<ToolboxServer, Box<dyn std::error::Error>> {
    match std::env::var(REQUEST_STATE_KEY_ENV) {
        Ok(text) => Ok(server.with_request_state_key(RequestStateKey::from_base64(&text)?)),
        Err(std::env::VarError::NotPresent) => Ok(server),
        Err(err) => Err(format!("{REQUEST_STATE_KEY_ENV}: {err}").into()),
    }
}

/// The same server on the task store named by `MCP_TASK_STORE`
/// ([`task_store_from_url`]): `redis://HOST:PORT[/DB]` for Redis (give every replica the same one,
/// so that any of them answers for any task), the memory store when it is unset or empty.
///
/// # Errors
///
/// [`toolmodel_rmcp::Error::TaskStoreUrl`] for a URL that is not `redis://`;
/// [`toolmodel_rmcp::Error::TaskStore`] when the Redis server cannot be reached.
pub async fn with_task_store(
    server: ToolboxServer,
) -> Result<ToolboxServer, Box<dyn std::error::Error>> {
    Ok(server.with_task_store(task_store().await?))
}

/// The task store `MCP_TASK_STORE` names (memory when unset).
pub async fn task_store() -> Result<Arc<dyn TaskStore>, Box<dyn std::error::Error>> {
    let url = std::env::var(TASK_STORE_ENV).ok();
    Ok(task_store_from_url(url.as_deref()).await?)
}

/// What an operator sets on the command line: `--log-format text|json`, `--otlp-endpoint URL`,
/// `--admin ADDRESS` (`/healthz`, `/readyz`, `/metrics` on a loopback port of its own).
#[derive(Debug, Default)]
pub struct Operations {
    /// `--log-format`: how log lines are written to stderr.
    pub log_format: LogFormat,
    /// `--otlp-endpoint`: the OTLP/HTTP collector's base URL.
    pub otlp_endpoint: Option<String>,
    /// `--admin`: the admin listener's address.
    pub admin: Option<SocketAddr>,
}

/// The value after flag `name` in `args`, removed from them with it.
pub fn take_flag(args: &mut Vec<String>, name: &str) -> Result<Option<String>, Usage> {
    let Some(at) = args.iter().position(|arg| arg == name) else {
        return Ok(None);
    };
    args.remove(at);
    if at < args.len() {
        Ok(Some(args.remove(at)))
    } else {
        Err(Usage(format!("{name} needs a value")))
    }
}

impl Operations {
    /// `--log-format`, `--otlp-endpoint` and `--admin`, taken out of `args`.
    pub fn from_args(args: &mut Vec<String>) -> Result<Self, Usage> {
        let log_format = match take_flag(args, "--log-format")? {
            Some(text) => text.parse().map_err(Usage)?,
            None => LogFormat::Text,
        };
        let admin = match take_flag(args, "--admin")? {
            Some(text) => {
                let address: SocketAddr = text
                    .parse()
                    .map_err(|err| Usage(format!("--admin {text:?}: {err}")))?;
                if !address.ip().is_loopback() {
                    return Err(Usage(format!(
                        "--admin {text:?}: the admin listener is for loopback addresses only"
                    )));
                }
                Some(address)
            }
            None => None,
        };
        Ok(Self {
            log_format,
            otlp_endpoint: take_flag(args, "--otlp-endpoint")?,
            admin,
        })
    }

    /// Installs logs, traces and metrics for the service `name` (call it before the tokio
    /// runtime starts: the OTLP exporters' HTTP client is built here).
    pub fn start(&self, name: &str) -> Result<Telemetry, toolmodel_rmcp::Error> {
        let mut config = TelemetryConfig::new()
            .with_service_name(name)
            .with_log_format(self.log_format);
        if let Some(endpoint) = &self.otlp_endpoint {
            config = config.with_otlp_endpoint(endpoint.clone());
        }
        Telemetry::init(config)
    }

    /// With `--admin`: serves `/healthz`, `/readyz` (the task store reachable) and `/metrics`
    /// on its own task, and says where on stderr.
    pub async fn serve_admin(
        &self,
        telemetry: &Telemetry,
        store: Arc<dyn TaskStore>,
    ) -> Result<(), Box<dyn std::error::Error>> {
        let Some(address) = self.admin else {
            return Ok(());
        };
        let listener = tokio::net::TcpListener::bind(address).await?;
        eprintln!("admin: http://{}/metrics", listener.local_addr()?);
        let admin = Admin::new()
            .with_metrics(telemetry.prometheus_renderer())
            .with_task_store(store);
        tokio::spawn(admin.serve(listener).into_future());
        Ok(())
    }
}

fn pretty(value: &serde_json::Value) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Transport, Usage> {
        transport_from_args(args.iter().map(|arg| (*arg).to_owned()))
    }

    #[test]
    fn arguments_choose_the_transport() {
        assert_eq!(parse(&[]), Ok(Transport::Stdio));
        assert_eq!(
            parse(&["--http", "127.0.0.1:0"]),
            Ok(Transport::Http("127.0.0.1:0".parse().unwrap()))
        );
        assert_eq!(
            parse(&["--http", "[::1]:8080"]),
            Ok(Transport::Http("[::1]:8080".parse().unwrap()))
        );
        assert!(
            parse(&["--http"])
                .unwrap_err()
                .0
                .contains("needs an address")
        );
        assert!(
            parse(&["--http", "0.0.0.0:80"])
                .unwrap_err()
                .0
                .contains("loopback")
        );
        assert!(
            parse(&["--http", "localhost"])
                .unwrap_err()
                .0
                .contains("localhost")
        );
        assert!(parse(&["--stdio"]).unwrap_err().0.contains("--stdio"));
        assert!(
            parse(&["--http", "127.0.0.1:1", "x"])
                .unwrap_err()
                .0
                .contains("\"x\"")
        );
    }
}
