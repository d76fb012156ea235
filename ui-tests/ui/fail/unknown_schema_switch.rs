use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(schema(keep_ref))]
struct GetIssue {
    number: u64,
}

fn main() {}
