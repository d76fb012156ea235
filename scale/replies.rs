//! What the scale clients (`scale_client.rs`, `legacy_client.rs`, each including this file
//! with `#[path]`) read of a result and answer an elicitation form with.

use rmcp::model::CallToolResult;
use serde_json::{Value, json};

/// The text of the first content block of `result` (empty when there is none).
pub fn text(result: &CallToolResult) -> String {
    let json = serde_json::to_value(result).unwrap_or(Value::Null);
    json["content"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned()
}

/// The content of a form answer to `requested_schema`: strings `"Ada"`, booleans `true`,
/// numbers 1.
pub fn form_content(requested_schema: &Value) -> Value {
    let fields = requested_schema["properties"]
        .as_object()
        .cloned()
        .unwrap_or_default();
    fields
        .into_iter()
        .map(|(field, schema)| {
            let value = match schema["type"].as_str() {
                Some("boolean") => json!(true),
                Some("number" | "integer") => json!(1),
                _ => json!("Ada"),
            };
            (field, value)
        })
        .collect::<serde_json::Map<_, _>>()
        .into()
}
