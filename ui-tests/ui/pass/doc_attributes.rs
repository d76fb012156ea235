//! Descriptions: `description` wins over the doc comment; doc comments written as
//! attributes (even macros) are read as the compiler sees them.
use serde::Deserialize;
use toolmodel::{Tool, ToolDefinition, schemars::{self, JsonSchema}};

/// Not this.
#[derive(Deserialize, JsonSchema, Tool)]
#[tool(description = "This one.")]
struct Explicit {
    #[allow(dead_code)]
    a: u8,
}

#[doc = concat!("Built by ", "a macro.")]
#[doc = ""]
#[doc = "  Indented line."]
#[derive(Deserialize, JsonSchema, Tool)]
struct FromMacro {
    #[allow(dead_code)]
    a: u8,
}

#[derive(Deserialize, JsonSchema, Tool)]
#[schemars(description = "From schemars.")]
struct FromSchemars {
    #[allow(dead_code)]
    a: u8,
}

#[derive(Deserialize, JsonSchema, Tool)]
struct Undocumented {
    #[allow(dead_code)]
    a: u8,
}

fn main() {
    assert_eq!(Explicit::tool().description.as_deref(), Some("This one."));
    assert_eq!(
        FromMacro::tool().description.as_deref(),
        Some("Built by a macro.\n\n Indented line.")
    );
    assert_eq!(FromSchemars::tool().description.as_deref(), Some("From schemars."));
    assert_eq!(Undocumented::tool().description, None);
    // The description never stays in the schema by default.
    assert!(Explicit::tool().input_schema.get("description").is_none());
    assert!(FromSchemars::tool().input_schema.get("description").is_none());
}
