//! An output type whose schema is not an object builds (MCP 2026-07-28: `outputSchema` may be
//! any JSON Schema), and writing it for 2025-11-25 or older, whose root rule it breaks, is an
//! error naming the pointer.
use serde::Deserialize;
use toolmodel::{Error, ProtocolVersion, Tool, ToolDefinition, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema)]
struct Args {
    query: String,
}

#[derive(Tool)]
#[tool(input = Args, output = Vec<String>)]
struct Search;

fn main() {
    let tool = Search::try_tool().unwrap();
    assert_eq!(tool.validate(), Ok(()));
    let written = tool.to_mcp_json_for(ProtocolVersion::V2026_07_28).unwrap();
    assert_eq!(written.json["outputSchema"]["type"], "array");
    let err = tool.to_mcp_json_for(ProtocolVersion::V2025_11_25).unwrap_err();
    assert!(matches!(err, Error::Unwritable { .. }));
    assert_eq!(
        err.to_string(),
        "tool \"search\" cannot be written for MCP 2025-11-25: /outputSchema/type: the root must be \"type\": \"object\" up to MCP 2025-11-25"
    );
    assert_eq!(
        Search::structured_content(&vec!["a".to_owned()]),
        Ok(serde_json::json!(["a"]))
    );
}
