use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(colour = "red")]
struct GetIssue {
    number: u64,
}

fn main() {}
