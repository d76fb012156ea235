use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(timeout = "s")]
struct WriteNote {
    text: String,
}

fn main() {}
