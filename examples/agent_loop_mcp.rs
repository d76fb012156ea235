//! The tool loop of `agent_loop.rs` with an MCP server beside the local tools: the quickstart's
//! tools and those of `mcp-server-time` (a real MCP server, over stdio) in one `Toolbox`, made
//! by `toolmodel-rmcp`'s `Federation` (feature `federation`). The loop is the same code as for
//! local tools alone: `model_calls` neither knows nor cares where a tool runs. The model is a
//! recorded OpenAI Chat Completions conversation (`fixtures/model_calls/openai-chat-mcp.json`)
//! that calls one tool of each kind.
//!
//! ```text
//! bash serve/install_upstreams.sh                         # installs mcp-server-time into .upstreams/
//! cargo run --example agent_loop_mcp                      # then runs it from there
//! cargo run --example agent_loop_mcp -- uvx mcp-server-time   # or runs the server this command starts
//! ```
//!
//! Without the server it prints a notice and exits successfully; with the environment
//! variable `CI` set, it fails instead.

#[allow(dead_code)]
#[path = "quickstart.rs"]
mod quickstart;

use std::path::Path;

use serde_json::Value;
use toolmodel::CallContext;
use toolmodel::model_calls::{
    ModelTools, Provider, ToolListOptions, extend_request, read_calls, run_calls,
};
use toolmodel_rmcp::federation::{Federation, FederationConfig, StdioTransport, UpstreamConfig};

/// The recorded conversation: `{"source", "request", "responses"}`.
const FIXTURE: &str = include_str!("fixtures/model_calls/openai-chat-mcp.json");

type Failure = Box<dyn std::error::Error>;

#[tokio::main]
async fn main() -> Result<(), Failure> {
    let Some(time_server) = time_server()? else {
        return Ok(());
    };

    // The local tools and the MCP server's, in one toolbox.
    let config = FederationConfig::builder()
        .with_upstream(UpstreamConfig::stdio("time", time_server))
        .build()?;
    let federation = Federation::start_with(config, quickstart::with_tools).await?;
    for status in federation.status().await {
        if !status.session.is_open() {
            federation.shutdown().await;
            let (name, cause) = (status.name, status.session);
            return Err(format!("the MCP server {name:?} did not start: {cause}").into());
        }
    }
    let toolbox = federation.toolbox();

    // The loop of agent_loop.rs, unchanged.
    let provider = Provider::OpenAiChat;
    let fixture: Value = serde_json::from_str(FIXTURE)?;
    let mut recorded = fixture["responses"]
        .as_array()
        .ok_or("no responses")?
        .iter();
    let tools = ModelTools::new(&toolbox, provider, &ToolListOptions::default())?;
    let names: Vec<&str> = tools
        .tools()
        .iter()
        .filter_map(|tool| tool["function"]["name"].as_str())
        .collect();
    println!("== {provider}, tools: {}", names.join(", "));
    let mut body = fixture["request"].clone();
    body["tools"] = tools.to_value();
    let cx = CallContext::new();
    loop {
        let response = recorded.next().ok_or("the model did not finish")?; // send(&body)
        let calls = read_calls(provider, response)?;
        if calls.is_empty() {
            println!("final answer: {response}");
            break;
        }
        let outcomes = run_calls(&toolbox, &tools, calls, &cx).await;
        for outcome in &outcomes {
            println!("{} -> {}", outcome.name, outcome.result.text_content());
        }
        extend_request(provider, &mut body, response, &outcomes)?;
    }

    // Stops the server (its whole process group).
    federation.shutdown().await;
    Ok(())
}

/// How to start `mcp-server-time`: the command given on the command line, else the one
/// `serve/install_upstreams.sh` installed. `None` after a notice when there is neither
/// (an error under `CI`).
fn time_server() -> Result<Option<StdioTransport>, Failure> {
    let mut args = std::env::args().skip(1);
    if let Some(command) = args.next() {
        return Ok(Some(StdioTransport::new(command).with_args(args)));
    }
    let installed = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.upstreams/env");
    let command = std::fs::read_to_string(&installed).ok().and_then(|text| {
        text.lines()
            .find_map(|line| line.strip_prefix("TIME="))
            .map(str::to_owned)
    });
    match command {
        Some(command) => Ok(Some(
            StdioTransport::new(command).with_arg("--local-timezone=UTC"),
        )),
        None if std::env::var_os("CI").is_some() => Err(format!(
            "mcp-server-time is not installed ({} has no TIME=): run serve/install_upstreams.sh",
            installed.display()
        )
        .into()),
        None => {
            eprintln!(
                "notice: skipped, mcp-server-time is not installed: run `bash serve/install_upstreams.sh`, \
                 or give a command that starts it (`cargo run --example agent_loop_mcp -- uvx mcp-server-time`)"
            );
            Ok(None)
        }
    }
}
