use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
struct ExecuteSql {
    #[tool(header = "Region")]
    region: String,
    #[tool(header = "REGION")]
    zone: String,
}

fn main() {}
