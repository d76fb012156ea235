use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
struct Scale {
    #[tool(header = "Factor")]
    factor: Option<f64>,
}

fn main() {}
