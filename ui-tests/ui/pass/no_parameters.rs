//! Shape 3: a unit struct without `input` is a tool with no parameters.
use serde_json::json;
use toolmodel::{NoArguments, Tool, ToolDefinition};

/// Returns the server time.
#[derive(Tool)]
#[tool(annotations(read_only))]
struct Now;

fn main() {
    let tool = Now::tool();
    assert_eq!(tool.name, "now");
    assert_eq!(tool.description.as_deref(), Some("Returns the server time."));
    assert_eq!(
        tool.input_schema.as_value(),
        &json!({"type": "object", "additionalProperties": false})
    );
    assert!(tool.output_schema.is_none());
    let _: NoArguments = Now::parse(&json!({})).unwrap();
    assert!(Now::parse(&json!({"extra": 1})).is_err());
    assert!(Now::parse(&json!(null)).is_err());
}
