//! The three tools in rig 0.40 (`rig::tool::Tool`, dispatched by `ToolSet::call(name,
//! String)`): `add {a, b}`, `echo {text}`, `lookup {key}`, with `fillers` more tools
//! registered beside them (the schema of `echo`). rig validates no arguments against the
//! schema: it deserializes them into the arguments type.

use rig_core::tool::{Tool, ToolSet};
use serde::Deserialize;
use serde_json::{Value, json};

/// What `lookup` finds, on both sides.
pub const TABLE: [(&str, &str); 3] = [
    ("paris", "Paris: 2,102,650 inhabitants (2023)"),
    ("lyon", "Lyon: 520,774 inhabitants (2023)"),
    ("nice", "Nice: 357,737 inhabitants (2023)"),
];

/// A tool's failure.
#[derive(Debug)]
pub struct Failure(String);

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Failure {}

/// The arguments of `add`.
#[derive(Deserialize)]
pub struct AddArgs {
    a: i64,
    b: i64,
}

/// Adds two integers.
pub struct Add;

impl Tool for Add {
    const NAME: &'static str = "add";
    type Error = Failure;
    type Args = AddArgs;
    type Output = String;

    fn description(&self) -> String {
        "Adds two integers.".to_owned()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]})
    }

    async fn call(&self, args: AddArgs) -> Result<String, Failure> {
        Ok(args.a.wrapping_add(args.b).to_string())
    }
}

/// The arguments of `echo` and of the fillers.
#[derive(Deserialize)]
pub struct TextArgs {
    text: String,
}

fn text_schema() -> Value {
    json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
}

/// Returns the text it is given.
pub struct Echo;

impl Tool for Echo {
    const NAME: &'static str = "echo";
    type Error = Failure;
    type Args = TextArgs;
    type Output = String;

    fn description(&self) -> String {
        "Returns the text it is given.".to_owned()
    }

    fn parameters(&self) -> Value {
        text_schema()
    }

    async fn call(&self, args: TextArgs) -> Result<String, Failure> {
        Ok(args.text)
    }
}

/// The arguments of `lookup`.
#[derive(Deserialize)]
pub struct LookupArgs {
    key: String,
}

/// Looks a key up in a small table.
pub struct Lookup;

impl Tool for Lookup {
    const NAME: &'static str = "lookup";
    type Error = Failure;
    type Args = LookupArgs;
    type Output = String;

    fn description(&self) -> String {
        "Looks a key up in a small table.".to_owned()
    }

    fn parameters(&self) -> Value {
        json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]})
    }

    async fn call(&self, args: LookupArgs) -> Result<String, Failure> {
        TABLE
            .iter()
            .find(|(key, _)| *key == args.key)
            .map(|(_, value)| (*value).to_owned())
            .ok_or_else(|| Failure(format!("no entry for {:?}", args.key)))
    }
}

/// A tool beside the three, named `filler_<i>`, doing what `echo` does.
pub struct Filler(String);

impl Tool for Filler {
    const NAME: &'static str = "filler";
    type Error = Failure;
    type Args = TextArgs;
    type Output = String;

    fn name(&self) -> String {
        self.0.clone()
    }

    fn description(&self) -> String {
        "Returns the text it is given.".to_owned()
    }

    fn parameters(&self) -> Value {
        text_schema()
    }

    async fn call(&self, args: TextArgs) -> Result<String, Failure> {
        Ok(args.text)
    }
}

/// The three tools and `fillers` others.
pub fn toolset(fillers: usize) -> ToolSet {
    let mut builder = ToolSet::builder()
        .static_tool(Add)
        .static_tool(Echo)
        .static_tool(Lookup);
    for i in 0..fillers {
        builder = builder.static_tool(Filler(format!("filler_{i}")));
    }
    builder.build()
}
