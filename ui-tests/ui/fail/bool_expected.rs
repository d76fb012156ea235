use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(annotations(read_only = "yes"))]
struct GetIssue {
    number: u64,
}

fn main() {}
