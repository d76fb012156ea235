use serde::Deserialize;
use toolmodel::Tool;

#[derive(Deserialize)]
struct Args {
    query: String,
}

// An attribute error and a missing derive are reported in the same build.
#[derive(Tool)]
#[tool(name = "search docs", input = Args)]
struct Search;

fn main() {}
