use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

// Every problem is reported in one build, each on its token.
#[derive(Deserialize, JsonSchema, Tool)]
#[tool(name = "get issue", version = "1.0", tags("GitHub"), colour = "red")]
#[tool(icon(src = "file:///etc/passwd", theme = "blue"), name = "again")]
struct GetIssue {
    number: u64,
}

fn main() {}
