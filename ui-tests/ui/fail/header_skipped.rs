use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
struct ExecuteSql {
    #[tool(header = "Region")]
    #[serde(skip)]
    region: String,
    query: String,
}

fn main() {}
