//! `toolmodel gateway`: the tools of the MCP servers of a configuration file, served as one
//! MCP server ([`toolmodel_rmcp::federation::Federation`] behind a
//! [`ToolboxServer`]), over stdio or Streamable HTTP, as an OAuth 2.1 resource server with
//! `--auth-issuer` ([`Authorization`]).

use std::{
    io::{self, Write},
    net::SocketAddr,
};

use toolmodel_rmcp::{
    ToolboxServer, auth::Authorization, federation::Federation, server::MCP_PATH,
};

use crate::cli::GatewayArgs;
use crate::status::Status;

/// Runs the gateway until its client leaves (stdio: end of input) or SIGINT/SIGTERM (HTTP),
/// then closes every upstream session and kills each child's process group. Errors go to
/// `errors` (stdout belongs to the MCP session over stdio).
///
/// # Errors
///
/// Writing to `errors` failed.
pub fn run(args: &GatewayArgs, errors: &mut dyn Write) -> io::Result<Status> {
    let Some((config, runtime)) = crate::live::prepare(&args.config, errors)? else {
        return Ok(Status::Failure);
    };
    let outcome = runtime.block_on(async {
        let federation = Federation::start(config).await?;
        for status in federation.status().await {
            if let Err(cause) = &status.session {
                eprintln!("warning: server {:?} is unavailable: {cause}", status.name);
            }
        }
        let server = ToolboxServer::new(federation.toolbox())
            .with_server_info("toolmodel-gateway", env!("CARGO_PKG_VERSION"));
        let served = match args.http {
            None => {
                federation.serve(&server);
                server.serve_stdio().await
            }
            Some(addr) => serve_http(&federation, server, addr, args).await,
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

/// Serves `server` over Streamable HTTP on `addr` until SIGINT or SIGTERM, with authorization
/// when `args` has `--auth-issuer` (the resource `--resource`, else `http://ADDR/mcp` with the
/// port bound).
///
/// # Errors
///
/// Binding `addr`; [`Authorization::new`]'s errors for `--auth-issuer` and `--resource`;
/// what [`ToolboxServer::serve_http_until`] returns.
async fn serve_http(
    federation: &Federation,
    server: ToolboxServer,
    addr: SocketAddr,
    args: &GatewayArgs,
) -> Result<(), toolmodel_rmcp::Error> {
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(toolmodel_rmcp::Error::Io)?;
    let bound = listener.local_addr().map_err(toolmodel_rmcp::Error::Io)?;
    let url = format!("http://{bound}{MCP_PATH}");
    let server = match &args.auth_issuer {
        None => server,
        Some(issuer) => {
            let resource = args.resource.as_deref().unwrap_or(&url);
            eprintln!("authorization: tokens from {issuer} for {resource}");
            server.with_authorization(Authorization::new(issuer, resource)?)
        }
    };
    federation.serve(&server);
    eprintln!("serving MCP on {url}");
    server.serve_http_until(listener, stop_signal()).await
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
