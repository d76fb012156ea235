use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(scopes("notes write"))]
struct WriteNote {
    text: String,
}

fn main() {}
