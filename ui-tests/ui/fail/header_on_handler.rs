use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema)]
struct Args {
    region: String,
}

#[derive(Tool)]
#[tool(input = Args)]
struct Handler {
    #[tool(header = "Region")]
    region: String,
}

fn main() {}
