//! The calls the `toolbox` and `provider_calls` benches make: each quickstart tool once, with
//! valid arguments.

use serde_json::{Map, Value, json};

/// The requests of the `call` measurement: each quickstart tool, valid arguments.
pub fn requests() -> Vec<(&'static str, Map<String, Value>)> {
    let object = |value: Value| match value {
        Value::Object(map) => map,
        _ => Map::new(),
    };
    vec![
        (
            "weather.get_weather",
            object(json!({"city": "Paris", "days": 2, "unit": "fahrenheit"})),
        ),
        (
            "docs.search_docs",
            object(json!({"query": "tool", "limit": 2})),
        ),
        ("ping", Map::new()),
    ]
}
