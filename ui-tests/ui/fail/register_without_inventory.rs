use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

// `toolmodel` is built here without its `inventory` feature.
#[derive(Deserialize, JsonSchema, Tool)]
#[tool(register)]
struct GetIssue {
    number: u64,
}

fn main() {}
