//! A crate with `schemars` as a dependency of its own, named by the extern prelude: the
//! `schemars` that `#[derive(Tool)]` glob-imports is the same crate, so nothing is ambiguous.
use schemars::JsonSchema;
use serde::Deserialize;
use toolmodel::{Tool, ToolDefinition};

/// Finds notes.
#[derive(Deserialize, JsonSchema, Tool)]
struct SearchNotes {
    #[allow(dead_code)]
    query: String,
}

mod nested {
    use toolmodel::schemars::{self, JsonSchema};

    /// Explicit `schemars` in scope: the glob import is shadowed.
    #[derive(serde::Deserialize, JsonSchema, toolmodel::Tool)]
    pub struct Explicit {
        #[allow(dead_code)]
        pub id: u32,
    }

    #[allow(dead_code)]
    fn uses_the_explicit_one() -> schemars::Schema {
        schemars::schema_for!(Explicit)
    }
}

fn main() {
    assert_eq!(SearchNotes::tool().input_schema.as_value()["required"][0], "query");
    assert_eq!(nested::Explicit::tool().name, "explicit");
}
