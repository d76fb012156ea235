use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(scopes("notes:read", ""))]
struct WriteNote {
    text: String,
}

fn main() {}
