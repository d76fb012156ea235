use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(category = "notes ")]
struct WriteNote {
    text: String,
}

fn main() {}
