use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(icon(src = "javascript:alert(1)"))]
struct GetIssue {
    number: u64,
}

fn main() {}
