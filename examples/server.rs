//! The quickstart's tools as an MCP server, with `toolmodel-rmcp`.
//!
//! `cargo run --example server` serves them over stdio (the client starts the program);
//! `cargo run --example server -- --http 127.0.0.1:8080` over Streamable HTTP at
//! `http://127.0.0.1:8080/mcp`. Either way it prints on stderr how to connect a client.

// The quickstart example's tools, reused as they are (its `main` is not called here).
#[allow(dead_code)]
#[path = "quickstart.rs"]
mod quickstart;

use toolmodel_examples::serve::{run, transport_from_args, with_task_store};
use toolmodel_rmcp::ToolboxServer;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let transport = transport_from_args(std::env::args().skip(1))?;
    let server = ToolboxServer::new(quickstart::toolbox()?)
        .with_server_info("toolmodel-quickstart", env!("CARGO_PKG_VERSION"));
    // Tasks in the store MCP_TASK_STORE names (memory when unset).
    let server = with_task_store(server).await?;
    run(server, "toolmodel-quickstart", transport).await
}
