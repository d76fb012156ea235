use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

// Several `#[tool]` attributes are merged; a key is given once across them.
#[derive(Deserialize, JsonSchema, Tool)]
#[tool(name = "get_issue")]
#[tool(namespace = "github", name = "issue")]
struct GetIssue {
    number: u64,
}

fn main() {}
