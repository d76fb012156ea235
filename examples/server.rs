//! The quickstart's tools as an MCP server, with `toolmodel-rmcp`.
//!
//! `cargo run --example server` serves them over stdio (the client starts the program);
//! `cargo run --example server -- --http 127.0.0.1:8080` over Streamable HTTP at
//! `http://127.0.0.1:8080/mcp`. Either way it prints on stderr how to connect a client.
//!
//! `--auth-issuer URL` (with `--http`) makes it an OAuth 2.1 resource server (MCP,
//! "Authorization"): every request needs an access token from that issuer for `--resource`
//! (default `http://ADDRESS/mcp`), and a tool of its own, `whoami`, needs the scope
//! `profile:read` and says who called: the subject, issuer, client, audience and scopes of
//! the token. `--help` says so.

// The quickstart example's tools, reused as they are (its `main` is not called here).
#[allow(dead_code)]
#[path = "quickstart.rs"]
mod quickstart;

use toolmodel::{CallContext, SyncToolHandler, ToolError, Toolbox};
use toolmodel_examples::serve::{Operations, Transport, run, task_store, transport_from_args};
use toolmodel_rmcp::{ToolboxServer, auth::ResourceServer, server::MCP_PATH};

const HELP: &str = "\
usage: server [--http 127.0.0.1:PORT [--auth-issuer URL [--resource URL]]]
              [--log-format text|json] [--otlp-endpoint URL] [--admin 127.0.0.1:PORT]

  (nothing)           serve over stdio
  --http ADDRESS      serve over Streamable HTTP at http://ADDRESS/mcp (loopback only)
  --auth-issuer URL   require OAuth 2.1 access tokens from this authorization server
                      (MCP Authorization); adds the tool `whoami`, which needs the scope
                      `profile:read`
  --resource URL      the audience tokens must be issued for (default http://ADDRESS/mcp)
  --log-format FORMAT log lines on stderr as text (default) or json; RUST_LOG filters them
  --otlp-endpoint URL export traces and metrics over OTLP/HTTP to this collector
                      (OTEL_EXPORTER_OTLP_ENDPOINT when absent)
  --admin ADDRESS     /healthz, /readyz and /metrics on this loopback address
  --help              this text";

/// Says who calls: the subject, client and scopes of the caller's access token, and the
/// audience it was verified for (the server's `--resource`: a token of another audience is
/// refused before any tool runs).
#[derive(toolmodel::Tool)]
#[tool(input = toolmodel::NoArguments, scopes("profile:read"))]
struct Whoami {
    audience: String,
}

impl SyncToolHandler for Whoami {
    type Reply = String;
    fn call_sync(&self, _: toolmodel::NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        let caller = cx
            .caller()
            .ok_or_else(|| ToolError::new("no verified caller: serve with --auth-issuer"))?;
        Ok(format!(
            "subject {} of {}, client {}, audience {}, scopes {}",
            caller.subject(),
            caller.issuer(),
            caller.client_id().unwrap_or("(none)"),
            self.audience,
            caller.scopes().collect::<Vec<_>>().join(" ")
        ))
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|arg| arg == "--help") {
        println!("{HELP}");
        return Ok(());
    }
    let issuer = take_flag(&mut args, "--auth-issuer")?;
    let resource = take_flag(&mut args, "--resource")?;
    let operations = Operations::from_args(&mut args)?;
    let transport = transport_from_args(args.into_iter())?;
    // Before the runtime: the OTLP exporters' blocking HTTP client is built outside it.
    let telemetry = operations.start("toolmodel-quickstart")?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    let served = runtime.block_on(async {
        let store = task_store().await?;
        operations.serve_admin(&telemetry, store.clone()).await?;
        serve(issuer, resource, transport, store).await
    });
    drop(runtime);
    drop(telemetry);
    served
}

/// The value after flag `name` in `args`, removed from them with it.
fn take_flag(args: &mut Vec<String>, name: &str) -> Result<Option<String>, String> {
    toolmodel_examples::serve::take_flag(args, name)
        .map_err(|usage| format!("{}\n\n{HELP}", usage.0))
}

async fn serve(
    issuer: Option<String>,
    resource: Option<String>,
    transport: Transport,
    store: std::sync::Arc<dyn toolmodel_rmcp::tasks::TaskStore>,
) -> Result<(), Box<dyn std::error::Error>> {
    let Some(issuer) = issuer else {
        if resource.is_some() {
            return Err(format!("--resource needs --auth-issuer\n\n{HELP}").into());
        }
        let server = ToolboxServer::new(quickstart::toolbox()?)
            .with_server_info("toolmodel-quickstart", env!("CARGO_PKG_VERSION"));
        // Tasks in the store MCP_TASK_STORE names (memory when unset).
        let server = server.with_task_store(store);
        return run(server, "toolmodel-quickstart", transport).await;
    };
    let Transport::Http(address) = transport else {
        return Err(format!("--auth-issuer needs --http\n\n{HELP}").into());
    };
    if resource.is_none() && address.port() == 0 {
        return Err(format!("--auth-issuer needs a fixed port or --resource\n\n{HELP}").into());
    }
    let resource = resource.unwrap_or_else(|| format!("http://{address}{MCP_PATH}"));
    let toolbox = Toolbox::builder()
        .with(quickstart::GetWeather::default())
        .with(quickstart::SearchDocs::new())
        .with(quickstart::Ping)
        .with(Whoami {
            audience: resource.clone(),
        })
        .build()?;
    let server = ToolboxServer::new(toolbox)
        .with_server_info("toolmodel-quickstart", env!("CARGO_PKG_VERSION"))
        .with_authorization(ResourceServer::new(&issuer, &resource)?);
    let server = server.with_task_store(store);
    eprintln!("authorization: tokens from {issuer} for {resource}; whoami needs profile:read");
    run(server, "toolmodel-quickstart", transport).await
}
