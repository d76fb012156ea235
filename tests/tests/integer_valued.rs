//! Issue 21, finding 7: `"days": 3.0` passed the input schema (`"type": "integer"` accepts
//! 3.0 in JSON Schema 2020-12) and was then refused by serde (`expected u8`). Integer-valued
//! numbers now reach integer fields as the integers they are, through `parse` and through a
//! `Toolbox` call; a number with a fraction, or one out of the field's range, is still refused.

use serde::Deserialize;
use serde_json::json;
use toolmodel::{
    CallContext, Error, SyncToolHandler, ToolDefinition, ToolError, Toolbox,
    schemars::{self, JsonSchema},
};

/// Current weather for a city.
#[derive(Debug, Default, Deserialize, JsonSchema, toolmodel::Tool)]
struct GetWeather {
    city: String,
    /// Days ahead.
    #[serde(default)]
    #[schemars(range(max = 7))]
    days: u8,
    #[serde(default)]
    offsets: Vec<i64>,
}

impl SyncToolHandler for GetWeather {
    type Reply = String;
    fn call_sync(&self, args: GetWeather, _cx: &CallContext) -> Result<String, ToolError> {
        Ok(format!(
            "{} in {} days {:?}",
            args.city, args.days, args.offsets
        ))
    }
}

#[test]
fn integer_valued_floats_parse_into_integer_fields() {
    let call = GetWeather::parse(&json!({"city": "Paris", "days": 3.0, "offsets": [-2.0, 1e1]}))
        .expect("3.0 is an integer in JSON Schema 2020-12");
    assert_eq!(call.days, 3);
    assert_eq!(call.offsets, [-2, 10]);
}

#[test]
fn fractions_are_still_refused_by_the_schema() {
    let Err(Error::InvalidInstance { errors }) =
        GetWeather::parse(&json!({"city": "Paris", "days": 3.5}))
    else {
        panic!("3.5 is not an integer")
    };
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].instance_path, "/days");
}

#[test]
fn a_toolbox_call_with_3_0_succeeds() {
    let toolbox = Toolbox::builder()
        .with(GetWeather::default())
        .build()
        .unwrap();
    let arguments = json!({"city": "Paris", "days": 3.0}).as_object().cloned();
    let result = pollster::block_on(toolbox.call("get_weather", arguments, &CallContext::new()))
        .expect("a result");
    assert!(!result.is_error(), "{}", result.text_content());
    assert_eq!(result.text_content(), "Paris in 3 days []");
}
