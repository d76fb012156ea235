//! The run-time behaviour of derived tools beyond the UI pass cases: every error path of
//! `parse`, `structured_content` and the first build.

use serde::{Deserialize, Serialize};
use serde_json::json;
use toolmodel::{
    Error, ProtocolVersion, Tool, ToolDefinition,
    schemars::{self, JsonSchema},
    validate::SchemaSlot,
};

/// A schema cannot tell an even number; a custom `Deserialize` can.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(try_from = "u32")]
struct Even(u32);

impl TryFrom<u32> for Even {
    type Error = String;

    fn try_from(value: u32) -> Result<Self, String> {
        if value.is_multiple_of(2) {
            Ok(Self(value))
        } else {
            Err(format!("{value} is odd"))
        }
    }
}

#[derive(Debug, Deserialize, JsonSchema)]
struct Pair {
    left: Even,
}

/// Takes pairs.
#[derive(Debug, Deserialize, JsonSchema, Tool)]
struct TakePairs {
    pairs: Vec<Pair>,
}

#[test]
fn a_serde_error_after_validation_names_its_pointer() {
    assert_eq!(
        TakePairs::parse(&json!({"pairs": [{"left": 2}]})).map(|t| t.pairs[0].left.0),
        Ok(2)
    );
    let err = TakePairs::parse(&json!({"pairs": [{"left": 2}, {"left": 3}]})).unwrap_err();
    let Error::Json { path, message, .. } = &err else {
        panic!("{err}")
    };
    assert_eq!(path, "/pairs/1/left");
    assert!(message.contains("3 is odd"), "{message}");
}

#[derive(Deserialize, JsonSchema)]
struct Query {
    q: String,
}

#[derive(Serialize, JsonSchema)]
struct Scores {
    #[schemars(range(max = 100))]
    best: u32,
    #[serde(serialize_with = "refuse")]
    #[schemars(with = "String")]
    secret: (),
}

fn refuse<S: serde::Serializer>(_: &(), _: S) -> Result<S::Ok, S::Error> {
    Err(serde::ser::Error::custom("not serializable"))
}

#[derive(Serialize, JsonSchema)]
struct Plain {
    #[schemars(range(max = 100))]
    best: u32,
}

/// Scores.
#[derive(Tool)]
#[tool(input = Query, output = Plain)]
struct Score;

/// Scores, badly.
#[derive(Tool)]
#[tool(input = Query, output = Scores)]
struct BadScore;

#[test]
fn structured_content_is_validated_against_the_output_schema() {
    assert_eq!(
        Score::parse(&json!({"q": "x"})).map(|q| q.q),
        Ok("x".to_owned())
    );
    assert_eq!(
        Score::structured_content(&Plain { best: 99 }),
        Ok(json!({"best": 99}))
    );
    let Err(Error::InvalidInstance { errors }) = Score::structured_content(&Plain { best: 101 })
    else {
        panic!("101 is above the maximum")
    };
    assert_eq!(errors[0].instance_path, "/best");
    assert_eq!(errors[0].keyword, "maximum");

    let err = BadScore::structured_content(&Scores {
        best: 1,
        secret: (),
    })
    .unwrap_err();
    let Error::Json { path, message, .. } = &err else {
        panic!("{err}")
    };
    assert_eq!(path, "/secret");
    assert!(message.contains("not serializable"), "{message}");
}

#[derive(Deserialize, JsonSchema)]
struct Pattern {
    #[schemars(regex(pattern = "(unclosed"))]
    #[allow(dead_code)]
    text: String,
}

/// A broken pattern.
#[derive(Tool)]
#[tool(input = Pattern)]
struct BrokenPattern;

#[test]
fn a_schema_that_does_not_compile_is_an_error_from_parse() {
    // The tool itself builds; its schema fails when compiled.
    assert!(BrokenPattern::try_tool().is_ok());
    let err = BrokenPattern::parse(&json!({"text": "a"})).err();
    assert!(matches!(err, Some(Error::InvalidSchema { .. })), "{err:?}");
}

#[derive(Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum Mode {
    Fast,
    Slow,
}

/// An enum as arguments.
#[derive(Tool)]
#[tool(input = Mode, output = String)]
struct EnumArguments;

#[test]
fn a_non_object_input_is_reported_and_any_output_is_allowed() {
    let Err(Error::ToolType { tool, problems }) = EnumArguments::try_tool() else {
        panic!("expected a type error")
    };
    assert_eq!(tool, "enum_arguments");
    let found: Vec<(SchemaSlot, bool, Option<&str>)> = problems
        .iter()
        .map(|p| (p.slot, p.type_name.ends_with("Mode"), p.found.as_deref()))
        .collect();
    // MCP 2026-07-28 allows any outputSchema: only the input is reported.
    assert_eq!(found, [(SchemaSlot::Input, true, Some("\"string\""))]);
    assert!(matches!(
        EnumArguments::parse(&json!("fast")),
        Err(Error::ToolType { .. })
    ));
}

/// Lists things.
#[derive(Tool)]
#[tool(input = Query, output = Vec<Plain>)]
struct ListPlain;

#[test]
fn an_array_output_builds_and_is_refused_only_when_written_for_an_older_version() {
    let tool = ListPlain::try_tool().unwrap();
    assert_eq!(
        tool.output_schema.as_ref().unwrap().get("type"),
        Some(&json!("array"))
    );
    assert_eq!(tool.validate(), Ok(()));
    assert!(tool.validate_for(ProtocolVersion::V2025_11_25).is_err());
    let written = tool.to_mcp_json_for(ProtocolVersion::V2026_07_28).unwrap();
    assert_eq!(written.json["outputSchema"]["type"], "array");
    let Err(Error::Unwritable {
        pointer, version, ..
    }) = tool.to_mcp_json_for(ProtocolVersion::V2025_11_25)
    else {
        panic!("an array output cannot be written for 2025-11-25")
    };
    assert_eq!(
        (pointer, version),
        ("/outputSchema/type", ProtocolVersion::V2025_11_25)
    );
    assert_eq!(
        ListPlain::structured_content(&vec![Plain { best: 1 }]),
        Ok(json!([{"best": 1}]))
    );
}

#[test]
#[should_panic(
    expected = "the input type `integration::derive::Mode` has a schema whose root is \"type\": \"string\""
)]
fn tool_panics_with_the_build_error() {
    let _ = EnumArguments::tool();
}

#[test]
fn concurrent_first_calls_build_one_tool() {
    /// Built from many threads at once.
    #[derive(Deserialize, JsonSchema, Tool)]
    struct Raced {
        #[allow(dead_code)]
        n: u8,
    }
    let addresses: Vec<usize> = std::thread::scope(|scope| {
        let handles: Vec<_> = (0..8)
            .map(|_| scope.spawn(|| std::ptr::from_ref(Raced::tool()) as usize))
            .collect();
        handles.into_iter().map(|h| h.join().unwrap()).collect()
    });
    assert!(addresses.windows(2).all(|w| w[0] == w[1]));
}
