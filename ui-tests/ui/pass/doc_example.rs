//! The example of `#[derive(Tool)]`'s own documentation (toolmodel-derive/src/lib.rs), compiled
//! and run here: a proc-macro crate cannot depend on the crate its code expands against
//! without a dependency cycle that `cargo package` cannot resolve.
use serde::{Deserialize, Serialize};
use toolmodel::{Tool, ToolDefinition, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema)]
struct SearchArgs {
    /// What to look for.
    query: String,
    /// At most this many results (1 to 100).
    #[schemars(range(min = 1, max = 100))]
    limit: Option<u32>,
}

#[derive(Serialize, JsonSchema)]
struct SearchResults {
    hits: Vec<String>,
}

/// Searches the index.
#[derive(Tool)]
#[tool(
    namespace = "docs",
    version = "1.2.0",
    input = SearchArgs,
    output = SearchResults,
    tags("search", "docs"),
    annotations(read_only, open_world = false),
)]
struct Search {
    #[allow(dead_code)]
    index: Vec<String>,
}

fn main() {
    assert_eq!(Search::ID, "docs:search");
    let tool = Search::tool();
    assert_eq!(tool.description.as_deref(), Some("Searches the index."));
    assert_eq!(tool.annotations.as_ref().and_then(|a| a.read_only_hint), Some(true));
}
