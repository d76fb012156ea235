use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(namespace = "github:v2")]
struct GetIssue {
    number: u64,
}

fn main() {}
