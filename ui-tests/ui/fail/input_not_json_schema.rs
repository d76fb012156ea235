use serde::Deserialize;
use toolmodel::Tool;

#[derive(Deserialize)]
struct Args {
    query: String,
}

#[derive(Tool)]
#[tool(input = Args)]
struct Search;

fn main() {}
