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

/// The arguments of `echo` and of the fillers.
#[derive(Deserialize)]
pub struct TextArgs {
    text: String,
}

/// The arguments of `lookup`.
#[derive(Deserialize)]
pub struct LookupArgs {
    key: String,
}

/// The input schema of `echo` and of the fillers.
fn text_schema() -> Value {
    json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]})
}

/// A rig tool: its unit struct, name, description, arguments type, input schema, and the body
/// of `call` (a closure from the arguments to `Result<String, Failure>`).
macro_rules! rig_tool {
    ($tool:ident, $name:literal, $description:literal, $args:ty, $schema:expr, $call:expr) => {
        #[doc = $description]
        pub struct $tool;

        impl Tool for $tool {
            const NAME: &'static str = $name;
            type Error = Failure;
            type Args = $args;
            type Output = String;

            fn description(&self) -> String {
                $description.to_owned()
            }

            fn parameters(&self) -> Value {
                $schema
            }

            async fn call(&self, args: $args) -> Result<String, Failure> {
                let call: fn($args) -> Result<String, Failure> = $call;
                call(args)
            }
        }
    };
}

rig_tool!(
    Add,
    "add",
    "Adds two integers.",
    AddArgs,
    json!({"type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}),
    |args| Ok(args.a.wrapping_add(args.b).to_string())
);

rig_tool!(
    Echo,
    "echo",
    "Returns the text it is given.",
    TextArgs,
    text_schema(),
    |args| Ok(args.text)
);

rig_tool!(
    Lookup,
    "lookup",
    "Looks a key up in a small table.",
    LookupArgs,
    json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}),
    |args| {
        TABLE
            .iter()
            .find(|(key, _)| *key == args.key)
            .map(|(_, value)| (*value).to_owned())
            .ok_or_else(|| Failure(format!("no entry for {:?}", args.key)))
    }
);

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
        Echo.description()
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
