use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

// The default name is the struct name in snake_case, here "météo".
#[derive(Deserialize, JsonSchema, Tool)]
struct Météo {
    city: String,
}

fn main() {}
