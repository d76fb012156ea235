use toolmodel::{Tool, schemars::{self, JsonSchema}};

// The struct is its own input, so it needs `Deserialize` itself.
#[derive(JsonSchema, Tool)]
struct Search {
    query: String,
}

fn main() {}
