//! What the two server examples share: reading `--http ADDRESS` from the command line,
//! running a [`ToolboxServer`] over stdio or Streamable HTTP, and telling the person who
//! started it, on stderr, how to connect a client.

use std::{fmt, net::SocketAddr};

use serde_json::json;
use toolmodel_rmcp::{
    ToolboxServer,
    server::{MCP_PATH, RequestStateKey},
    tasks::task_store_from_url,
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
/// `MCP_REQUEST_STATE_KEY` ([`with_request_state_key`]).
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
    let url = std::env::var(TASK_STORE_ENV).ok();
    Ok(server.with_task_store(task_store_from_url(url.as_deref()).await?))
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
