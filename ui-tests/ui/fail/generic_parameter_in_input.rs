use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema)]
struct Args<T> {
    query: T,
}

#[derive(Tool)]
#[tool(input = Args<Q>)]
struct Search<Q> {
    last: Option<Q>,
}

fn main() {}
