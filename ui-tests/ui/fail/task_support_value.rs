use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(task_support = "sometimes")]
struct GetIssue {
    number: u64,
}

fn main() {}
