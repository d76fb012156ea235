//! The MCP 2026-07-28 client of the example servers' tests: it declares form elicitation,
//! sampling and roots, and answers nothing itself (2026-07-28 servers ask by
//! `InputRequiredResult`, which the tests answer).

use rmcp::{ClientHandler, model::ClientConfig};
use serde_json::json;

/// The client.
#[derive(Clone, Copy)]
pub struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        serde_json::from_value(json!({
            "protocolVersion": "2026-07-28",
            "capabilities": {"elicitation": {}, "sampling": {}, "roots": {}},
            "clientInfo": {"name": "toolmodel-example-servers-test", "version": "0.1.0"}
        }))
        .expect("a client config")
    }
}
