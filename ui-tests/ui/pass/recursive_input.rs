//! Recursive types keep `$defs` and `$ref`; everything else is inlined.
use serde::Deserialize;
use serde_json::json;
use toolmodel::{Tool, ToolDefinition, schemars::{self, JsonSchema}};

#[derive(Debug, Deserialize, JsonSchema)]
struct Node {
    name: String,
    children: Vec<Node>,
}

/// Stores a tree.
#[derive(Debug, Deserialize, JsonSchema, Tool)]
struct StoreTree {
    root: Node,
}

fn main() {
    let schema = StoreTree::tool().input_schema.as_value();
    // The first use of `Node` is inlined; its recursion refers to the one kept definition.
    assert_eq!(schema["properties"]["root"]["properties"]["children"]["items"], json!({"$ref": "#/$defs/Node"}));
    assert_eq!(schema["$defs"]["Node"]["properties"]["children"]["items"], json!({"$ref": "#/$defs/Node"}));
    let tree = StoreTree::parse(&json!({"root": {"name": "a", "children": [{"name": "b", "children": []}]}})).unwrap();
    assert_eq!(tree.root.children[0].name, "b");
    let err = StoreTree::parse(&json!({"root": {"name": "a", "children": [{"name": 3, "children": []}]}})).unwrap_err();
    assert!(err.to_string().contains("/root/children/0/name"), "{err}");
}
