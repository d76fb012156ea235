use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(timeout = "18446744073709551615m")]
struct WriteNote {
    text: String,
}

fn main() {}
