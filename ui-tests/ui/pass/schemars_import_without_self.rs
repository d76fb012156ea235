//! The `schemars` import trap: `use toolmodel::schemars::JsonSchema;` without `self` used to
//! give four unresolved-path errors from the `JsonSchema` derive (suggesting
//! `std::borrow::Cow`). `#[derive(Tool)]` puts `toolmodel`'s `schemars` in the module for it.
use serde::Deserialize;
use toolmodel::ToolDefinition;
use toolmodel::schemars::JsonSchema;

/// Finds notes.
#[derive(Deserialize, JsonSchema, toolmodel::Tool)]
struct SearchNotes {
    #[allow(dead_code)]
    query: String,
}

#[derive(Deserialize, JsonSchema)]
struct Args {
    #[allow(dead_code)]
    city: String,
}

/// Forecasts.
#[derive(toolmodel::Tool)]
#[tool(input = Args)]
struct Forecast;

fn main() {
    assert_eq!(SearchNotes::tool().input_schema.as_value()["required"][0], "query");
    assert_eq!(Forecast::tool().input_schema.as_value()["required"][0], "city");
}
