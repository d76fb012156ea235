use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema)]
struct Args {
    number: u64,
}

#[derive(Tool)]
#[tool(input = "Args")]
struct GetIssue;

fn main() {}
