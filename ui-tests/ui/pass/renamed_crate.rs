//! `crate = "..."` for a renamed `toolmodel`.
use serde::Deserialize;
use toolmodel as tm;
use tm::schemars::{self, JsonSchema};

#[derive(Deserialize, JsonSchema, tm::Tool)]
#[tool(crate = "tm")]
struct Ping {
    #[allow(dead_code)]
    message: String,
}

fn main() {
    use tm::ToolDefinition as _;
    assert_eq!(Ping::tool().name, "ping");
}
