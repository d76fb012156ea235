use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(version = "1.0")]
struct GetIssue {
    number: u64,
}

fn main() {}
