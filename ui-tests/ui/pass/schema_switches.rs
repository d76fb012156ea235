//! `schema(...)` switches keep what schemars generates, point by point; several `#[tool]`
//! attributes merge (a key is given once across them).
use serde::Deserialize;
use serde_json::json;
use toolmodel::{Tool, ToolDefinition, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema)]
struct Point {
    x: i32,
}

/// Draws.
#[derive(Deserialize, JsonSchema, Tool)]
#[tool(schema(keep_refs, keep_formats, keep_integer_widths = true, keep_schema_uri, keep_title, keep_description = true))]
#[tool(version = "1.0.0")]
struct Draw {
    #[allow(dead_code)]
    at: Point,
}

/// Draws.
#[derive(Deserialize, JsonSchema, Tool)]
struct DrawDefault {
    #[allow(dead_code)]
    at: Point,
}

fn main() {
    assert_eq!(Draw::tool().version.as_deref(), Some("1.0.0"));
    let kept = Draw::tool().input_schema.as_value();
    assert_eq!(kept["$schema"], json!("https://json-schema.org/draft/2020-12/schema"));
    assert_eq!(kept["title"], json!("Draw"));
    assert_eq!(kept["description"], json!("Draws."));
    assert_eq!(kept["properties"]["at"], json!({"$ref": "#/$defs/Point"}));
    assert_eq!(kept["$defs"]["Point"]["properties"]["x"], json!({"type": "integer", "format": "int32"}));
    assert_eq!(Draw::tool().description.as_deref(), Some("Draws."));

    let default = DrawDefault::tool().input_schema.as_value();
    assert_eq!(
        default,
        &json!({
            "type": "object",
            "properties": {
                "at": {
                    "type": "object",
                    "properties": {"x": {"type": "integer", "minimum": -2147483648i64, "maximum": 2147483647}},
                    "required": ["x"],
                    "additionalProperties": false
                }
            },
            "required": ["at"],
            "additionalProperties": false
        })
    );
}
