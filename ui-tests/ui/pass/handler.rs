//! Shape 2: a handler struct with `input` and `output`; its own fields are in no schema.
use serde::{Deserialize, Serialize};
use serde_json::json;
use toolmodel::{Backend, Tool, ToolDefinition, schemars::{self, JsonSchema}};

/// Search arguments.
#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    query: String,
    limit: Option<u8>,
}

#[derive(Serialize, JsonSchema)]
struct SearchResults {
    hits: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    next: Option<String>,
}

#[derive(Tool)]
#[tool(input = SearchArgs, output = SearchResults)]
struct Search {
    #[allow(dead_code)]
    index: Vec<String>,
}

fn main() {
    assert_eq!(Search::ID, "search");
    let tool = Search::tool();
    // No doc comment on the handler: the input type's description is the tool's.
    assert_eq!(tool.description.as_deref(), Some("Search arguments."));
    assert_eq!(
        tool.input_schema.as_value(),
        &json!({
            "type": "object",
            "properties": {
                "query": {"type": "string"},
                "limit": {"type": ["integer", "null"], "minimum": 0, "maximum": 255}
            },
            "required": ["query"],
            "additionalProperties": false
        })
    );
    assert_eq!(
        tool.output_schema.as_ref().unwrap().as_value(),
        &json!({
            "type": "object",
            "properties": {
                "hits": {"type": "array", "items": {"type": "string"}},
                "next": {"type": ["string", "null"]}
            },
            "required": ["hits"]
        })
    );
    assert_eq!(Search::backend(), &Backend::local("search"));

    let args: SearchArgs = Search::parse(&json!({"query": "mcp"})).unwrap();
    assert_eq!((args.query.as_str(), args.limit), ("mcp", None));
    assert!(Search::parse(&json!({"query": "mcp", "limit": 256})).is_err());

    let value = Search::structured_content(&SearchResults { hits: vec!["a".into()], next: None }).unwrap();
    assert_eq!(value, json!({"hits": ["a"]}));
}
