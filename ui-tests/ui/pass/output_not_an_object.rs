//! An output type whose schema is not an object compiles (a derive cannot see schemas), and
//! is rejected when the tool is first built, naming the type.
use serde::Deserialize;
use toolmodel::{Error, Tool, ToolDefinition, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema)]
struct Args {
    query: String,
}

#[derive(Tool)]
#[tool(input = Args, output = Vec<String>)]
struct Search;

fn main() {
    let err = Search::try_tool().unwrap_err();
    assert!(matches!(err, Error::ToolType { .. }));
    assert_eq!(
        err.to_string(),
        "tool \"search\" cannot be built: the output type `alloc::vec::Vec<alloc::string::String>` has a schema whose root is \"type\": \"array\", but MCP 2025-11-25 requires outputSchema to be \"type\": \"object\": make the structured output a struct with named fields"
    );
    // The same error again, from the cache; parsing reports it too instead of panicking.
    assert_eq!(Search::try_tool().unwrap_err(), err);
    assert_eq!(Search::parse(&serde_json::json!({"query": "x"})).err(), Some(err));
}
