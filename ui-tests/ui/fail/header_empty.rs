use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
struct ExecuteSql {
    #[tool(header = "")]
    region: String,
}

fn main() {}
