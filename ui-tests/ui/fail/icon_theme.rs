use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(icon(src = "https://example.com/issue.png", theme = "blue"))]
struct GetIssue {
    number: u64,
}

fn main() {}
