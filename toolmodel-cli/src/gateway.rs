//! `toolmodel gateway`: the tools, prompts, resources and completion of the MCP servers of a
//! configuration file, served as one MCP server ([`toolmodel_rmcp::federation::Federation`]
//! behind a [`ToolboxServer`]), over stdio or Streamable HTTP, as an OAuth 2.1 resource server
//! with `--auth-issuer` ([`Authorization`]).

use std::{
    io::{self, Write},
    net::SocketAddr,
};

use toolmodel_rmcp::{
    ToolboxServer,
    auth::Authorization,
    federation::Federation,
    server::{MCP_PATH, REQUEST_STATE_KEY_ENV, RequestStateKey},
};

use crate::cli::GatewayArgs;
use crate::status::Status;

/// Runs the gateway until its client leaves (stdio: end of input) or SIGINT/SIGTERM (HTTP),
/// then closes every upstream session and kills each child's process group. Errors go to
/// `errors` (stdout belongs to the MCP session over stdio). Over HTTP the line
/// `serving MCP on http://ADDR/mcp` (the address bound, a port 0 resolved) goes to stderr.
///
/// The `requestState` of MCP 2026-07-28 input rounds is sealed with the key of
/// `MCP_REQUEST_STATE_KEY` (base64, at least 32 bytes) when it is set, so that replicas of the
/// gateway continue each other's rounds; with a random key of the process otherwise.
///
/// # Errors
///
/// Writing to `errors` failed.
pub fn run(args: &GatewayArgs, errors: &mut dyn Write) -> io::Result<Status> {
    let Some((config, runtime)) = crate::live::prepare(&args.config, errors)? else {
        return Ok(Status::Failure);
    };
    let key = match std::env::var(REQUEST_STATE_KEY_ENV) {
        Ok(text) => match RequestStateKey::from_base64(&text) {
            Ok(key) => Some(key),
            Err(err) => {
                writeln!(errors, "error: {REQUEST_STATE_KEY_ENV}: {err}")?;
                return Ok(Status::Failure);
            }
        },
        Err(std::env::VarError::NotPresent) => None,
        Err(err) => {
            writeln!(errors, "error: {REQUEST_STATE_KEY_ENV}: {err}")?;
            return Ok(Status::Failure);
        }
    };
    let outcome = runtime.block_on(async {
        // The HTTP front first: a bad address or authorization configuration starts no server.
        let front = match args.http {
            None => None,
            Some(addr) => Some(HttpFront::bind(addr, args).await?),
        };
        let federation = Federation::start(config).await?;
        for status in federation.status().await {
            if let Err(cause) = &status.session {
                eprintln!("warning: server {:?} is unavailable: {cause}", status.name);
            }
        }
        let mut server = ToolboxServer::new(federation.toolbox())
            .with_server_info("toolmodel-gateway", env!("CARGO_PKG_VERSION"))
            .with_handler(federation.passthrough());
        if let Some(key) = key {
            server = server.with_request_state_key(key);
        }
        let served = match front {
            None => {
                federation.serve(&server);
                server.serve_stdio().await
            }
            Some(front) => {
                let server = match front.authorization {
                    Some(authorization) => server.with_authorization(authorization),
                    None => server,
                };
                federation.serve(&server);
                eprintln!("serving MCP on {}", front.url);
                server.serve_http_until(front.listener, stop_signal()).await
            }
        };
        federation.shutdown().await;
        served
    });
    match outcome {
        Ok(()) => Ok(Status::Clean),
        Err(err) => {
            writeln!(errors, "error: {err}")?;
            Ok(Status::Failure)
        }
    }
}

/// The gateway's Streamable HTTP endpoint before it serves: its listener, its URL, and the
/// [`Authorization`] of `--auth-issuer`.
struct HttpFront {
    listener: tokio::net::TcpListener,
    /// `http://ADDR/mcp`, with the port bound.
    url: String,
    authorization: Option<Authorization>,
}

impl HttpFront {
    /// Binds `addr` and reads `--auth-issuer` and `--resource` from `args` (the resource
    /// defaults to the bound URL).
    ///
    /// # Errors
    ///
    /// [`Error::Io`](toolmodel_rmcp::Error::Io) when `addr` cannot be bound;
    /// [`Authorization::new`]'s errors for `--auth-issuer` and `--resource`.
    async fn bind(addr: SocketAddr, args: &GatewayArgs) -> Result<Self, toolmodel_rmcp::Error> {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(toolmodel_rmcp::Error::Io)?;
        let bound = listener.local_addr().map_err(toolmodel_rmcp::Error::Io)?;
        let url = format!("http://{bound}{MCP_PATH}");
        let authorization = match &args.auth_issuer {
            None => None,
            Some(issuer) => {
                let resource = args.resource.as_deref().unwrap_or(&url);
                let authorization = Authorization::new(issuer, resource)?;
                eprintln!("authorization: tokens from {issuer} for {resource}");
                Some(authorization)
            }
        };
        Ok(Self {
            listener,
            url,
            authorization,
        })
    }
}

/// Completes on SIGINT or SIGTERM (Ctrl-C only where there is no SIGTERM).
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
