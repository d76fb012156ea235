//! `toolmodel gateway`: the tools of the MCP servers of a configuration file, served as one
//! MCP server ([`toolmodel_rmcp::federation::Federation`] behind a
//! [`ToolboxServer`]), over stdio or Streamable HTTP.

use std::io::{self, Write};

use toolmodel_rmcp::{
    ToolboxServer,
    federation::Federation,
    server::{REQUEST_STATE_KEY_ENV, RequestStateKey},
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
        let federation = Federation::start(config).await?;
        for status in federation.status().await {
            if let Err(cause) = &status.session {
                eprintln!("warning: server {:?} is unavailable: {cause}", status.name);
            }
        }
        let mut server = ToolboxServer::new(federation.toolbox())
            .with_server_info("toolmodel-gateway", env!("CARGO_PKG_VERSION"));
        if let Some(key) = key {
            server = server.with_request_state_key(key);
        }
        federation.serve(&server);
        let served = match args.http {
            None => server.serve_stdio().await,
            Some(addr) => match tokio::net::TcpListener::bind(addr).await {
                Ok(listener) => {
                    let bound = listener.local_addr().unwrap_or(addr);
                    eprintln!("serving MCP on http://{bound}/mcp");
                    server.serve_http_until(listener, stop_signal()).await
                }
                Err(err) => Err(toolmodel_rmcp::Error::Io(err)),
            },
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
