//! A tuple struct is a fine handler when `input` names the arguments.
use serde::Deserialize;
use serde_json::json;
use toolmodel::{Tool, ToolDefinition, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema)]
struct Args {
    path: String,
}

/// Reads a file.
#[derive(Tool)]
#[tool(input = Args, namespace = "fs")]
struct ReadFile(#[allow(dead_code)] std::path::PathBuf);

fn main() {
    assert_eq!(ReadFile::ID, "fs:read_file");
    assert_eq!(ReadFile::parse(&json!({"path": "/tmp/x"})).unwrap().path, "/tmp/x");
}
