//! `ToolboxBuilder::with_registered` with a registered type that is no handler: the build
//! names it. (A binary of its own: `inventory` collects per program.)

use serde::Deserialize;
use toolmodel::{
    Error, Toolbox,
    schemars::{self, JsonSchema},
};

/// A definition only: registered for listing, never given a handler.
#[derive(Deserialize, JsonSchema, toolmodel::Tool, Default)]
#[tool(register)]
#[allow(dead_code)]
struct DefinitionOnly {
    query: String,
}

/// A unit struct, definition only: served as itself when it is a handler, so named too.
#[derive(toolmodel::Tool)]
#[tool(register, input = toolmodel::NoArguments)]
#[allow(dead_code)]
struct UnitDefinitionOnly;

#[test]
fn a_registered_type_that_is_not_a_handler_is_named() {
    let err = Toolbox::builder().with_registered().build().unwrap_err();
    let Error::InvalidToolbox { problems } = &err else {
        panic!("{err:?}")
    };
    let named: Vec<&str> = problems
        .iter()
        .map(|problem| {
            let Error::Unservable { type_name, reason } = problem else {
                panic!("{problem}")
            };
            assert!(
                reason.contains("does not implement `ToolHandler`"),
                "{reason}"
            );
            type_name.as_str()
        })
        .collect();
    assert_eq!(
        named,
        [
            "registered_unservable::DefinitionOnly",
            "registered_unservable::UnitDefinitionOnly"
        ]
    );
    // The definition is still registered for listing.
    let ids: Vec<String> = toolmodel::registered_tools()
        .map(|found| found.unwrap().id.to_string())
        .collect();
    assert_eq!(ids, ["definition_only", "unit_definition_only"]);
}
