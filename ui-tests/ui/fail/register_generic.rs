use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema)]
struct Args {
    query: String,
}

#[derive(Tool)]
#[tool(input = Args, register)]
struct Search<C> {
    client: C,
}

fn main() {}
