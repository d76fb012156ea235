use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
struct ExecuteSql {
    #[tool(header = "Re gion")]
    region: String,
}

fn main() {}
