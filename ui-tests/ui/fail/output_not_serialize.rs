use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema)]
struct Args {
    query: String,
}

#[derive(JsonSchema)]
struct Results {
    hits: Vec<String>,
}

#[derive(Tool)]
#[tool(input = Args, output = Results)]
struct Search;

fn main() {}
