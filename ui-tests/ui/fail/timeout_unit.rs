use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(timeout = "30sec")]
struct WriteNote {
    text: String,
}

fn main() {}
