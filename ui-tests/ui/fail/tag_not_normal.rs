use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(tags("github", "Issue Tracking"))]
struct GetIssue {
    number: u64,
}

fn main() {}
