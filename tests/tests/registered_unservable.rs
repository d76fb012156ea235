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

#[test]
fn a_registered_type_that_is_not_a_handler_is_named() {
    let err = Toolbox::builder().with_registered().build().unwrap_err();
    let Error::InvalidToolbox { problems } = &err else {
        panic!("{err:?}")
    };
    let [Error::Unservable { type_name, reason }] = &problems[..] else {
        panic!("{err}")
    };
    assert_eq!(type_name, "registered_unservable::DefinitionOnly");
    assert!(
        reason.contains("does not implement `ToolHandler`"),
        "{reason}"
    );
    // The definition is still registered for listing.
    let ids: Vec<String> = toolmodel::registered_tools()
        .map(|found| found.unwrap().id.to_string())
        .collect();
    assert_eq!(ids, ["definition_only"]);
}
