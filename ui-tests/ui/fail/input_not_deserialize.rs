use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(JsonSchema)]
struct Args {
    query: String,
}

#[derive(Tool)]
#[tool(input = Args)]
struct Search;

fn main() {}
