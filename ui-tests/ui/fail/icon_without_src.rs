use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(icon(mime_type = "image/png", sizes = ["48x48"]))]
struct GetIssue {
    number: u64,
}

fn main() {}
