//! `category`, `scopes(...)` and `timeout`: the tool carries them, its full JSON writes them
//! (`category`, `requiredScopes`, `timeoutMs`), its MCP JSON leaves them out.
use std::time::Duration;

use serde::Deserialize;
use serde_json::json;
use toolmodel::{Tool, ToolDefinition, schemars::{self, JsonSchema}};

/// Write a note.
#[derive(Deserialize, JsonSchema, Tool)]
#[tool(
    category = "Notes",
    scopes("notes:read", "notes:write"),
    timeout = "2m"
)]
struct WriteNote {
    text: String,
}

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(timeout = "1500ms")]
struct Quick {}

fn main() {
    let tool = WriteNote::tool();
    assert_eq!(tool.category.as_deref(), Some("Notes"));
    assert_eq!(tool.required_scopes, ["notes:read", "notes:write"]);
    assert_eq!(tool.timeout, Some(Duration::from_secs(120)));
    let full = tool.to_json();
    assert_eq!(full["category"], json!("Notes"));
    assert_eq!(full["requiredScopes"], json!(["notes:read", "notes:write"]));
    assert_eq!(full["timeoutMs"], json!(120_000));
    let mcp = tool.to_mcp_json();
    for key in ["category", "requiredScopes", "timeoutMs"] {
        assert!(mcp.get(key).is_none(), "{key} is not MCP");
    }
    assert_eq!(Quick::tool().timeout, Some(Duration::from_millis(1500)));
    assert!(Quick::tool().required_scopes.is_empty() && Quick::tool().category.is_none());
}
