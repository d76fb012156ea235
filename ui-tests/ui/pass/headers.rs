//! `#[tool(header = "...")]` on arguments fields: each becomes `x-mcp-header` on the field's
//! property (by its serde name), valid for MCP 2026-07-28; the `input = Args` route is
//! `#[schemars(extend("x-mcp-header" = ...))]` on the field of `Args`.
use serde::Deserialize;
use serde_json::json;
use toolmodel::{ProtocolVersion, Tool, ToolDefinition, schemars::{self, JsonSchema}};

/// Runs a query in a region.
#[derive(Deserialize, JsonSchema, Tool)]
#[serde(rename_all = "camelCase")]
struct ExecuteSql {
    #[tool(header = "Region")]
    region_name: String,
    #[tool(header = "Shard-Id")]
    #[serde(rename = "shard")]
    shard_id: Option<i64>,
    #[tool(header = "Dry-Run")]
    dry_run: bool,
    query: String,
}

#[derive(Deserialize, JsonSchema)]
struct Args {
    #[schemars(extend("x-mcp-header" = "Region"))]
    region: String,
}

/// The same route for a handler with `input = Args`.
#[derive(Tool)]
#[tool(input = Args)]
struct Routed;

fn main() {
    let tool = ExecuteSql::tool();
    let properties = &tool.input_schema.as_value()["properties"];
    assert_eq!(properties["regionName"]["x-mcp-header"], json!("Region"));
    assert_eq!(properties["shard"]["x-mcp-header"], json!("Shard-Id"));
    assert_eq!(properties["dryRun"]["x-mcp-header"], json!("Dry-Run"));
    assert!(properties["query"].get("x-mcp-header").is_none());
    assert_eq!(tool.validate_for(ProtocolVersion::V2026_07_28), Ok(()));
    // Older versions write the keyword as an unknown one, and say so.
    let old = tool.to_mcp_json_for(ProtocolVersion::V2025_11_25).unwrap();
    assert_eq!(old.losses.len(), 3);

    let routed = Routed::tool();
    assert_eq!(
        routed.input_schema.as_value()["properties"]["region"]["x-mcp-header"],
        json!("Region")
    );
    assert_eq!(routed.validate(), Ok(()));
}
