//! Derived input schemas are closed by default: a misspelt argument is refused by name, where
//! `serde` would drop it. `schema(keep_open_objects)` opens them again.
use serde::Deserialize;
use serde_json::json;
use toolmodel::{Error, Tool, ToolDefinition, schemars::{self, JsonSchema}};

/// Finds notes.
#[derive(Debug, Deserialize, JsonSchema, Tool)]
struct SearchNotes {
    query: String,
    #[serde(default)]
    tags: Vec<String>,
}

/// Finds notes, ignoring keys it does not know.
#[derive(Debug, Deserialize, JsonSchema, Tool)]
#[tool(schema(keep_open_objects))]
struct SearchNotesOpen {
    query: String,
    #[serde(default)]
    tags: Vec<String>,
}

fn main() {
    let closed = SearchNotes::tool().input_schema.as_value();
    assert_eq!(closed["additionalProperties"], json!(false));
    let Err(Error::InvalidInstance { errors }) =
        SearchNotes::parse(&json!({"query": "rust", "tgas": ["x"]}))
    else {
        panic!("a misspelt argument must be refused");
    };
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].instance_path, "/tgas");
    assert!(errors[0].message.contains("\"tgas\""), "{}", errors[0].message);
    assert!(errors[0].message.contains("\"tags\""), "{}", errors[0].message);

    let open = SearchNotesOpen::tool().input_schema.as_value();
    assert_eq!(open.get("additionalProperties"), None);
    let parsed = SearchNotesOpen::parse(&json!({"query": "rust", "tgas": ["x"]})).unwrap();
    assert!(parsed.tags.is_empty()); // ignored, as serde does
    assert_eq!(parsed.query, "rust");
}
