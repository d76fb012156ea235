//! `ToolboxBuilder::with_registered`: every `#[tool(register)]` type that is a handler and a
//! unit struct or `Default` is served; a registered handler with state must be added with
//! `with`, or the build names it. (The test binary's registrations are all of this file: `inventory`
//! collects per program.)

use serde::Deserialize;
use serde_json::json;
use toolmodel::{
    CallContext, Error, SyncToolHandler, ToolError, Toolbox,
    schemars::{self, JsonSchema},
};

/// Says hello.
#[derive(Deserialize, JsonSchema, toolmodel::Tool, Default)]
#[tool(register, namespace = "demo")]
struct Hello {
    name: String,
}

impl SyncToolHandler for Hello {
    type Reply = String;
    fn call_sync(&self, args: Hello, _cx: &CallContext) -> Result<String, ToolError> {
        Ok(format!("hello {}", args.name))
    }
}

/// Echoes its arguments: a unit struct, so registered without `Default`.
#[derive(toolmodel::Tool)]
#[tool(register, input = EchoArgs)]
struct Echo;

#[derive(Deserialize, JsonSchema)]
struct EchoArgs {
    text: String,
}

impl SyncToolHandler for Echo {
    type Reply = String;
    fn call_sync(&self, args: EchoArgs, _cx: &CallContext) -> Result<String, ToolError> {
        Ok(args.text)
    }
}

/// Counts from a start the server chooses: state, so no `Default`.
#[derive(toolmodel::Tool)]
#[tool(register, input = toolmodel::NoArguments)]
struct Counter {
    start: u32,
}

impl SyncToolHandler for Counter {
    type Reply = String;
    fn call_sync(&self, _: toolmodel::NoArguments, _cx: &CallContext) -> Result<String, ToolError> {
        Ok(self.start.to_string())
    }
}

#[test]
fn registered_default_handlers_are_served_and_stateful_ones_added_by_hand() {
    let toolbox = Toolbox::builder()
        .with_registered()
        .with(Counter { start: 7 })
        .build()
        .expect("builds");
    let names: Vec<&str> = toolbox.tools().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(names, ["counter", "demo.hello", "echo"]);
    let cx = CallContext::new();
    let hello = pollster::block_on(toolbox.call(
        "demo.hello",
        json!({"name": "Ada"}).as_object().cloned(),
        &cx,
    ))
    .unwrap();
    assert_eq!(hello.text_content(), "hello Ada");
    let count = pollster::block_on(toolbox.call("counter", None, &cx)).unwrap();
    assert_eq!(count.text_content(), "7");
    let echo =
        pollster::block_on(toolbox.call("echo", json!({"text": "unit"}).as_object().cloned(), &cx))
            .unwrap();
    assert_eq!(echo.text_content(), "unit");
}

#[test]
fn a_registered_handler_with_state_not_added_by_hand_is_named() {
    let err = Toolbox::builder().with_registered().build().unwrap_err();
    let Error::InvalidToolbox { problems } = &err else {
        panic!("{err:?}")
    };
    let [Error::Unservable { type_name, reason }] = &problems[..] else {
        panic!("{err}")
    };
    assert_eq!(type_name, "registered_toolbox::Counter");
    assert!(reason.contains("no `Default`"), "{reason}");
}
