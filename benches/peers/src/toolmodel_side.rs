//! The three tools in toolmodel: `add {a, b}` (the one `toolmodel-rmcp`'s tests and `serve`
//! bench serve), `echo {text}`, `lookup {key}`, each derived, with `fillers` more tools
//! registered beside them (hand-built, the schema of `echo`).

use serde::Deserialize;
use serde_json::{Map, Value, json};
use toolmodel::{
    CallContext, CallToolResult, SyncToolHandler, Tool, ToolError, ToolSchema, Toolbox,
    schemars::{self, JsonSchema},
};

use crate::rig_side::TABLE;

/// `add`: the tool `toolmodel-rmcp`'s `serve` bench serves.
#[path = "../../../toolmodel-rmcp/tests/support/add.rs"]
mod add;

use add::Add;

/// Returns the text it is given.
#[derive(Default, Deserialize, JsonSchema, Tool)]
pub struct Echo {
    text: String,
}

impl SyncToolHandler for Echo {
    type Reply = String;
    fn call_sync(&self, args: Echo, _cx: &CallContext) -> Result<String, ToolError> {
        Ok(args.text)
    }
}

/// The arguments of [`Lookup`].
#[derive(Deserialize, JsonSchema)]
pub struct LookupArgs {
    key: String,
}

/// Looks a key up in a small table.
#[derive(Default, Tool)]
#[tool(input = LookupArgs)]
pub struct Lookup;

impl SyncToolHandler for Lookup {
    type Reply = String;
    fn call_sync(&self, args: LookupArgs, _cx: &CallContext) -> Result<String, ToolError> {
        TABLE
            .iter()
            .find(|(key, _)| *key == args.key)
            .map(|(_, value)| (*value).to_owned())
            .ok_or_else(|| ToolError::new(format!("no entry for {:?}", args.key)))
    }
}

/// The three tools and `fillers` others (`filler_0`, ...).
pub fn toolbox(fillers: usize) -> Toolbox {
    let mut builder = Toolbox::builder()
        .with(Add::default())
        .with(Echo::default())
        .with(Lookup);
    let schema = ToolSchema::try_from(json!({
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"]
    }))
    .expect("an object schema");
    for i in 0..fillers {
        let tool = Tool::new(format!("filler_{i}"), schema.clone());
        builder = builder.with_tool(tool, |args: Map<String, Value>, _cx| async move {
            let text = args.get("text").and_then(Value::as_str).unwrap_or_default();
            Ok(CallToolResult::text(text))
        });
    }
    builder.build().expect("the tools build")
}
