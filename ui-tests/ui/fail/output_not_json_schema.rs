use serde::{Deserialize, Serialize};
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema)]
struct Args {
    query: String,
}

#[derive(Serialize)]
struct Results {
    hits: Vec<String>,
}

#[derive(Tool)]
#[tool(input = Args, output = Results)]
struct Search;

fn main() {}
