//! A handler may be generic when `input` and `output` do not use its parameters.
use serde::{Deserialize, Serialize};
use serde_json::json;
use toolmodel::{Tool, ToolDefinition, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema)]
struct Args {
    key: String,
}

#[derive(Serialize, JsonSchema)]
struct Value {
    value: Option<String>,
}

trait Store {}
struct Memory;
impl Store for Memory {}
struct Disk;
impl Store for Disk {}

/// Gets a key.
#[derive(Tool)]
#[tool(input = Args, output = Value)]
struct Get<'a, S: Store, const N: usize> {
    #[allow(dead_code)]
    store: &'a [S; N],
}

fn main() {
    // One tool, whatever the parameters.
    let a = <Get<'static, Memory, 1>>::tool();
    let b = <Get<'static, Disk, 2>>::tool();
    assert_eq!(a, b);
    assert_eq!(a.name, "get");
    assert_eq!(<Get<'static, Memory, 1>>::parse(&json!({"key": "k"})).unwrap().key, "k");
}
