//! The call layer: handlers, the `Toolbox`, the call context and results. Every result a test
//! gets is checked against `#/$defs/CallToolResult` of the official MCP 2025-11-25 schema, and
//! the same handlers run under three executors (tokio's multi-thread and current-thread
//! runtimes, `futures::executor` and `pollster`), since `toolmodel` assumes none.

use std::{
    future::Future,
    sync::{Arc, Mutex, OnceLock},
    time::Duration,
};

use proptest::prelude::*;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use toolmodel::{
    CallContext, CallToolResult, Cancellation, Error, SyncToolHandler, Tool, ToolDefinition,
    ToolError, ToolHandler, ToolId, ToolSchema, Toolbox,
    content::ContentBlock,
    content::{AudioContent, EmbeddedResource, ImageContent, ResourceLink, TextResourceContents},
    peer::{CallPeer, LogNotification, LoggingLevel, ProgressNotification},
    schemars::{self, JsonSchema},
};

// ---------------------------------------------------------------- tools under test

#[derive(Deserialize, JsonSchema)]
struct AddArgs {
    a: i64,
    #[schemars(range(min = 0))]
    b: i64,
}

#[derive(Serialize, JsonSchema)]
struct Sum {
    sum: i64,
}

/// Adds two integers.
#[derive(toolmodel::Tool)]
#[tool(namespace = "math", input = AddArgs, output = Sum)]
struct Add;

impl ToolHandler for Add {
    type Reply = Sum;
    async fn call(&self, args: AddArgs, _cx: &CallContext) -> Result<Sum, ToolError> {
        let sum = args
            .a
            .checked_add(args.b)
            .ok_or(ToolError::new("the sum overflows an i64"))?;
        Ok(Sum { sum })
    }
}

/// Echoes text; fails on request, in each way a handler can fail.
#[derive(Deserialize, JsonSchema, toolmodel::Tool, Default)]
struct Echo {
    text: String,
}

impl ToolHandler for Echo {
    type Reply = String;
    async fn call(&self, args: Echo, _cx: &CallContext) -> Result<String, ToolError> {
        match args.text.as_str() {
            "fail" => Err(ToolError::new("asked to fail")),
            "protocol" => Err(ToolError::protocol(-32001, "not now")),
            "io" => Err(std::io::Error::other("disk on fire"))?,
            "cancel" => Err(ToolError::Cancelled),
            _ => Ok(args.text),
        }
    }
}

/// A date that serde checks but the schema does not: deserialization fails after validation.
#[derive(Deserialize, JsonSchema, toolmodel::Tool, Default)]
struct Schedule {
    #[serde(deserialize_with = "iso_date")]
    date: String,
}

fn iso_date<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    let text = String::deserialize(deserializer)?;
    let ok = text.len() == 10 && text.chars().filter(|&c| c == '-').count() == 2;
    if ok {
        Ok(text)
    } else {
        Err(serde::de::Error::custom(format!(
            "{text:?} is not YYYY-MM-DD"
        )))
    }
}

impl SyncToolHandler for Schedule {
    type Reply = String;
    fn call_sync(&self, args: Schedule, _cx: &CallContext) -> Result<String, ToolError> {
        Ok(format!("scheduled on {}", args.date))
    }
}

#[derive(Serialize, JsonSchema)]
struct Percent {
    #[schemars(range(max = 100))]
    value: u32,
}

/// Returns a percentage; a bug makes it return 150 for "bug".
#[derive(Deserialize, JsonSchema, toolmodel::Tool, Default)]
#[tool(output = Percent)]
struct Gauge {
    name: String,
}

impl SyncToolHandler for Gauge {
    type Reply = Percent;
    fn call_sync(&self, args: Gauge, _cx: &CallContext) -> Result<Percent, ToolError> {
        Ok(Percent {
            value: if args.name == "bug" { 150 } else { 42 },
        })
    }
}

/// Declares an output type but replies with a whole result it builds itself.
#[derive(Deserialize, JsonSchema, toolmodel::Tool, Default)]
#[tool(output = Percent)]
struct RawGauge {
    mode: String,
}

impl SyncToolHandler for RawGauge {
    type Reply = CallToolResult;
    fn call_sync(&self, args: RawGauge, _cx: &CallContext) -> Result<CallToolResult, ToolError> {
        Ok(match args.mode.as_str() {
            "good" => CallToolResult::structured(json!({"value": 7})),
            "bad" => CallToolResult::structured(json!({"value": 700})),
            "failed" => CallToolResult::error("sensor offline"),
            _ => CallToolResult::text("no structure"),
        })
    }
}

/// Returns every kind of content block.
#[derive(toolmodel::Tool, Default)]
struct Gallery;

impl SyncToolHandler for Gallery {
    type Reply = CallToolResult;
    fn call_sync(
        &self,
        _: toolmodel::NoArguments,
        _cx: &CallContext,
    ) -> Result<CallToolResult, ToolError> {
        let mut link = ResourceLink::new("file:///notes.md", "notes");
        link.mime_type = Some("text/markdown".into());
        Ok(CallToolResult::from_content([
            ContentBlock::text("caption"),
            ImageContent::from_bytes(&[0x89, b'P', b'N', b'G'], "image/png").into(),
            AudioContent::from_bytes(b"RIFF", "audio/wav").into(),
            link.into(),
            EmbeddedResource::new(TextResourceContents::new("file:///a.txt", "hello")).into(),
        ]))
    }
}

/// Reports progress, logs, and asks the client for a completion and for input.
#[derive(toolmodel::Tool, Default)]
#[tool(namespace = "host")]
struct Chatty;

impl ToolHandler for Chatty {
    type Reply = String;
    async fn call(&self, _: toolmodel::NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        for step in 1..=3 {
            cx.progress(f64::from(step), Some(3.0), Some("working"))
                .await?;
        }
        cx.log(LoggingLevel::Info, json!({"step": "done"})).await?;
        let sampled = cx
            .create_message(json!({"messages": [], "maxTokens": 5}))
            .await?;
        let elicited = cx.elicit(json!({"message": "name?"})).await?;
        let tool = cx.tool().map(|tool| tool.name.clone()).unwrap_or_default();
        Ok(format!("{tool}: {sampled} {elicited}"))
    }
}

/// Waits until the call is cancelled.
#[derive(toolmodel::Tool, Default)]
struct Sleeper;

impl ToolHandler for Sleeper {
    type Reply = String;
    async fn call(&self, _: toolmodel::NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        cx.cancelled().await;
        Err(ToolError::Cancelled)
    }
}

fn toolbox() -> Toolbox {
    Toolbox::builder()
        .with(Add)
        .with(Echo::default())
        .with(Schedule::default())
        .with(Gauge::default())
        .with(RawGauge::default())
        .with(Gallery)
        .with(Chatty)
        .with(Sleeper)
        .build()
        .expect("the toolbox builds")
}

fn args(value: Value) -> Option<Map<String, Value>> {
    match value {
        Value::Object(map) => Some(map),
        _ => None,
    }
}

/// Checks a result against `#/$defs/CallToolResult` (when `../shared` is there) and that it
/// reads back to itself.
fn checked(result: CallToolResult) -> CallToolResult {
    static VALIDATOR: OnceLock<Option<jsonschema::Validator>> = OnceLock::new();
    let json = serde_json::to_value(&result).expect("a result serializes");
    if let Some(validator) = VALIDATOR
        .get_or_init(|| toolmodel_tests::mcp_definition_validator("2025-11-25", "CallToolResult"))
    {
        let errors: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{json}: {errors:?}");
    }
    assert_eq!(
        CallToolResult::from_value(&json).expect("reads back"),
        result
    );
    result
}

fn block_on<F: Future>(future: F) -> F::Output {
    pollster::block_on(future)
}

async fn call(toolbox: &Toolbox, name: &str, arguments: Value) -> Result<CallToolResult, Error> {
    toolbox
        .call(name, args(arguments), &CallContext::new())
        .await
        .map(checked)
}

// ---------------------------------------------------------------- results

#[test]
fn typed_output_becomes_structured_content_and_its_text() {
    let result = block_on(call(&toolbox(), "math.add", json!({"a": 2, "b": 3}))).unwrap();
    assert_eq!(result.structured_content, Some(json!({"sum": 5})));
    assert_eq!(result.text_content(), r#"{"sum":5}"#);
    assert!(!result.is_error());
    assert_eq!(result.is_error, None, "isError is left out on success");
}

#[test]
fn every_content_block_is_written_as_mcp_defines_it() {
    let result = block_on(call(&toolbox(), "gallery", json!({}))).unwrap();
    let json = serde_json::to_value(&result).unwrap();
    let kinds: Vec<&str> = json["content"]
        .as_array()
        .unwrap()
        .iter()
        .map(|block| block["type"].as_str().unwrap())
        .collect();
    assert_eq!(
        kinds,
        ["text", "image", "audio", "resource_link", "resource"]
    );
    assert_eq!(json["content"][1]["data"], "iVBORw==");
    assert_eq!(json["content"][1]["mimeType"], "image/png");
    assert_eq!(json["content"][4]["resource"]["text"], "hello");
    let ContentBlock::Image(image) = &result.content[1] else {
        panic!("an image")
    };
    assert_eq!(image.bytes().unwrap(), [0x89, b'P', b'N', b'G']);
}

#[test]
fn reading_results_checks_base64_priority_and_type_with_pointers() {
    let cases = [
        (
            json!({"content": [{"type": "image", "data": "not base64!", "mimeType": "image/png"}]}),
            "/content/0",
            "base64",
        ),
        (
            json!({"content": [{"type": "text", "text": "x", "annotations": {"priority": 1.5}}]}),
            "/content/0",
            "priority 1.5",
        ),
        (
            json!({"content": [{"type": "video", "url": "x"}]}),
            "/content/0/type",
            "video",
        ),
        (
            json!({"content": [{"type": "resource", "resource": {"uri": "a:b"}}]}),
            "/content/0",
            "`text`",
        ),
        (json!({"isError": true}), "", "content"),
    ];
    for (value, pointer, needle) in cases {
        let err = CallToolResult::from_value(&value).unwrap_err();
        let Error::Json { path, message, .. } = &err else {
            panic!("{value}: {err:?}")
        };
        assert_eq!(path, pointer, "{value}: {err}");
        assert!(message.contains(needle), "{value}: {message}");
    }
}

#[test]
fn reading_keeps_unknown_keys_and_reads_nulls_as_absent() {
    let value = json!({
        "content": [{"type": "text", "text": "hi", "annotations": null, "x-extra": 1}],
        "structuredContent": null,
        "isError": null,
        "resultType": "complete"
    });
    let result = CallToolResult::from_value(&value).unwrap();
    assert_eq!(result.structured_content, None);
    assert_eq!(result.extra["resultType"], "complete");
    assert_eq!(
        serde_json::to_value(&result).unwrap(),
        json!({
            "content": [{"type": "text", "text": "hi", "x-extra": 1}],
            "resultType": "complete"
        })
    );
}

#[test]
fn the_spec_examples_of_results_and_content_read_and_round_trip() {
    let Some(dir) = toolmodel_tests::shared_dir("mcp-spec/2026-07-28/examples") else {
        return;
    };
    let mut seen = 0;
    for (folder, is_result) in [
        ("CallToolResult", true),
        ("TextContent", false),
        ("ImageContent", false),
        ("AudioContent", false),
        ("ResourceLink", false),
        ("EmbeddedResource", false),
    ] {
        let Ok(entries) = std::fs::read_dir(dir.join(folder)) else {
            continue;
        };
        for entry in entries {
            let path = entry.unwrap().path();
            let value: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap())
                .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
            let written = if is_result {
                let result = CallToolResult::from_value(&value)
                    .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
                serde_json::to_value(result).unwrap()
            } else {
                let block: ContentBlock = serde_json::from_value(value.clone())
                    .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
                serde_json::to_value(block).unwrap()
            };
            assert_eq!(written, value, "{}", path.display());
            seen += 1;
        }
    }
    assert!(seen >= 4, "only {seen} examples found");
}

// ---------------------------------------------------------------- arguments (SEP-1303)

#[test]
fn bad_arguments_are_an_is_error_result_with_every_violation_and_its_pointer() {
    let result = block_on(call(&toolbox(), "math.add", json!({"a": "1", "b": -1}))).unwrap();
    assert!(result.is_error());
    assert_eq!(result.structured_content, None);
    assert_eq!(
        result.text_content(),
        "invalid arguments for tool \"math.add\": 2 violations\n\
         /a: \"1\" is not of type \"integer\" (schema /properties/a/type)\n\
         /b: -1 is less than the minimum of 0 (schema /properties/b/minimum)"
    );
}

#[test]
fn absent_arguments_are_the_empty_object() {
    let toolbox = toolbox();
    let absent = block_on(toolbox.call("gallery", None, &CallContext::new())).unwrap();
    let empty = block_on(call(&toolbox, "gallery", json!({}))).unwrap();
    assert_eq!(absent, empty);
    // For a tool with required arguments, absent arguments fail like `{}` does.
    let absent = block_on(toolbox.call("math.add", None, &CallContext::new())).unwrap();
    let empty = block_on(call(&toolbox, "math.add", json!({}))).unwrap();
    assert_eq!(absent, empty);
    assert!(absent.is_error());
    assert_eq!(
        absent.text_content().lines().count(),
        3,
        "{}",
        absent.text_content()
    );
}

#[test]
fn arguments_that_validate_but_do_not_deserialize_are_an_is_error_result_with_the_pointer() {
    let result = block_on(call(&toolbox(), "schedule", json!({"date": "tomorrow"}))).unwrap();
    assert!(result.is_error());
    assert_eq!(
        result.text_content(),
        "invalid arguments for tool \"schedule\": 1 violation\n\
         /date: \"tomorrow\" is not YYYY-MM-DD"
    );
    let ok = block_on(call(&toolbox(), "schedule", json!({"date": "2026-11-22"}))).unwrap();
    assert_eq!(ok.text_content(), "scheduled on 2026-11-22");
}

// ---------------------------------------------------------------- failures

#[test]
fn unknown_tools_are_a_protocol_error_32602() {
    let toolbox = toolbox();
    let err = block_on(call(&toolbox, "math.sub", json!({}))).unwrap_err();
    assert_eq!(
        err,
        Error::UnknownTool {
            name: "math.sub".into(),
            nearest: None
        }
    );
    assert_eq!(err.jsonrpc_code(), -32602);
    // The plain name of a namespaced tool is not its MCP name.
    assert!(block_on(call(&toolbox, "add", json!({"a": 1, "b": 1}))).is_err());
}

#[test]
fn handler_failures_become_is_error_results_or_protocol_errors() {
    let toolbox = toolbox();
    let failed = block_on(call(&toolbox, "echo", json!({"text": "fail"}))).unwrap();
    assert!(failed.is_error());
    assert_eq!(failed.text_content(), "asked to fail");

    let io = block_on(call(&toolbox, "echo", json!({"text": "io"}))).unwrap();
    assert!(io.is_error());
    assert_eq!(io.text_content(), "disk on fire");

    let overflow = block_on(call(&toolbox, "math.add", json!({"a": i64::MAX, "b": 1}))).unwrap();
    assert_eq!(overflow.text_content(), "the sum overflows an i64");

    let err = block_on(call(&toolbox, "echo", json!({"text": "protocol"}))).unwrap_err();
    assert_eq!(
        err,
        Error::Protocol {
            code: -32001,
            message: "not now".into(),
            data: None
        }
    );
    assert_eq!(err.jsonrpc_code(), -32001);

    let err = block_on(call(&toolbox, "echo", json!({"text": "cancel"}))).unwrap_err();
    assert_eq!(err, Error::Cancelled);
}

#[test]
fn output_that_fails_the_output_schema_is_an_error_to_the_host_never_a_result() {
    let toolbox = toolbox();
    let err = block_on(call(&toolbox, "gauge", json!({"name": "bug"}))).unwrap_err();
    let Error::InvalidOutput { tool, errors } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(tool, "gauge");
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].instance_path, "/value");
    assert_eq!(errors[0].schema_path, "/properties/value/maximum");
    assert_eq!(err.jsonrpc_code(), -32603);
    let fine = block_on(call(&toolbox, "gauge", json!({"name": "fuel"}))).unwrap();
    assert_eq!(fine.structured_content, Some(json!({"value": 42})));
}

#[test]
fn whole_results_of_a_tool_with_an_output_schema_are_checked_too() {
    let toolbox = toolbox();
    let good = block_on(call(&toolbox, "raw_gauge", json!({"mode": "good"}))).unwrap();
    assert_eq!(good.structured_content, Some(json!({"value": 7})));
    // A failed result needs no structured content.
    let failed = block_on(call(&toolbox, "raw_gauge", json!({"mode": "failed"}))).unwrap();
    assert!(failed.is_error());

    let err = block_on(call(&toolbox, "raw_gauge", json!({"mode": "bad"}))).unwrap_err();
    let Error::InvalidOutput { errors, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(errors[0].instance_path, "/value");

    let err = block_on(call(&toolbox, "raw_gauge", json!({"mode": "text"}))).unwrap_err();
    let Error::InvalidOutput { tool, errors } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(tool, "raw_gauge");
    assert_eq!(errors[0].keyword, "outputSchema");
    assert!(errors[0].message.contains("no structuredContent"), "{err}");
}

/// The reply `RawGauge` gives for `mode`, as a hand-built tool's function gives it.
fn raw_gauge_reply(mode: &str) -> CallToolResult {
    RawGauge::default()
        .call_sync(
            RawGauge {
                mode: mode.to_owned(),
            },
            &CallContext::new(),
        )
        .expect("RawGauge never fails")
}

#[test]
fn derived_and_hand_built_tools_follow_one_output_rule() {
    // The same tool twice: derived (`RawGauge`), and hand-built from its definition with a
    // function that replies as it does. MCP 2025-11-25, "Output Schema": with an outputSchema,
    // servers MUST provide structured results that conform to it.
    let mut by_hand = RawGauge::tool().clone();
    by_hand.name = "raw_gauge_by_hand".into();
    let toolbox = Toolbox::builder()
        .with(RawGauge::default())
        .with_tool(by_hand, |arguments, _cx| async move {
            Ok(raw_gauge_reply(
                arguments["mode"].as_str().unwrap_or_default(),
            ))
        })
        .build()
        .unwrap();
    for mode in ["good", "bad", "failed", "text"] {
        let derived = block_on(call(&toolbox, "raw_gauge", json!({"mode": mode})));
        let hand = block_on(call(&toolbox, "raw_gauge_by_hand", json!({"mode": mode})));
        match (&derived, &hand) {
            (Ok(derived), Ok(hand)) => assert_eq!(derived, hand, "{mode}"),
            (
                Err(Error::InvalidOutput { tool, errors }),
                Err(Error::InvalidOutput {
                    tool: hand_tool,
                    errors: hand_errors,
                }),
            ) => {
                assert_eq!(
                    (tool.as_str(), hand_tool.as_str()),
                    ("raw_gauge", "raw_gauge_by_hand")
                );
                assert_eq!(errors, hand_errors, "{mode}");
            }
            _ => panic!("{mode}: the pipelines disagree: {derived:?} / {hand:?}"),
        }
        // Which outcome each mode gets: only a matching structuredContent or an isError
        // result passes.
        assert_eq!(
            derived.is_ok(),
            mode == "good" || mode == "failed",
            "{mode}"
        );
    }
    // A result without structuredContent is refused at the root, on both paths.
    let err = block_on(call(&toolbox, "raw_gauge_by_hand", json!({"mode": "text"}))).unwrap_err();
    let Error::InvalidOutput { errors, .. } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].keyword, "outputSchema");
    assert_eq!(errors[0].instance_path, "");
    assert!(errors[0].message.contains("no structuredContent"), "{err}");
    assert_eq!(err.jsonrpc_code(), -32603);
}

// ---------------------------------------------------------------- the toolbox

/// A second tool named `echo`, in another module.
mod other {
    use super::*;

    /// Another echo.
    #[derive(Deserialize, JsonSchema, toolmodel::Tool, Default)]
    pub struct Echo {
        pub text: String,
    }

    impl SyncToolHandler for Echo {
        type Reply = String;
        fn call_sync(&self, args: Echo, _cx: &CallContext) -> Result<String, ToolError> {
            Ok(args.text)
        }
    }

    /// Served as `math.add`, like the namespaced `Add`.
    #[derive(toolmodel::Tool, Default)]
    #[tool(name = "math.add")]
    pub struct DottedAdd;

    impl SyncToolHandler for DottedAdd {
        type Reply = String;
        fn call_sync(
            &self,
            _: toolmodel::NoArguments,
            _cx: &CallContext,
        ) -> Result<String, ToolError> {
            Ok(String::new())
        }
    }
}

#[test]
fn a_second_tool_with_one_mcp_name_is_an_error_naming_both_rust_types() {
    let err = Toolbox::builder()
        .with(Echo::default())
        .with(other::Echo::default())
        .with(Add)
        .with(other::DottedAdd)
        .build()
        .unwrap_err();
    let Error::InvalidToolbox { problems } = &err else {
        panic!("{err:?}")
    };
    assert_eq!(problems.len(), 2, "{err}");
    let Error::DuplicateTool {
        name,
        first,
        second,
    } = &problems[0]
    else {
        panic!("{err:?}")
    };
    assert_eq!(name, "echo");
    // Their type names: this module of the `integration` test binary.
    assert_eq!(
        (*first, *second),
        ("integration::call::Echo", "integration::call::other::Echo")
    );
    // `namespace.name` collides with a plain name that has a dot.
    assert!(
        matches!(&problems[1], Error::DuplicateTool { name, .. } if name == "math.add"),
        "{err}"
    );
}

#[test]
fn tools_are_listed_sorted_by_mcp_name_with_their_local_backend_and_routed_by_id() {
    let toolbox = toolbox();
    let names: Vec<&str> = toolbox.tools().iter().map(|t| t.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "echo",
            "gallery",
            "gauge",
            "host.chatty",
            "math.add",
            "raw_gauge",
            "schedule",
            "sleeper"
        ]
    );
    let add = toolbox.get("math.add").unwrap();
    // Listed as served: the MCP name holds the namespace (issue 19), and its ID routes too.
    assert_eq!(add.namespace, None);
    assert_eq!(add.backends, [toolmodel::Backend::local("math:add")]);
    let listed_id = add.id().unwrap();
    let result = block_on(toolbox.call_id(
        &listed_id,
        args(json!({"a": 1, "b": 2})),
        &CallContext::new(),
    ));
    assert_eq!(result.unwrap().structured_content, Some(json!({"sum": 3})));
    let defined = toolbox.definitions().find(|t| t.name == "add").unwrap();
    assert_eq!(defined.namespace.as_deref(), Some("math"));
    // Routing by ID: the namespace and name as declared.
    let id: ToolId = "math:add".parse().unwrap();
    let result = block_on(toolbox.call_id(&id, args(json!({"a": 1, "b": 1})), &CallContext::new()));
    assert_eq!(result.unwrap().structured_content, Some(json!({"sum": 2})));
    let err = block_on(toolbox.call_id(&"math:sub".parse().unwrap(), None, &CallContext::new()));
    assert_eq!(
        err.unwrap_err(),
        Error::UnknownTool {
            name: "math:sub".into(),
            nearest: None
        }
    );
    // Every listed tool is a valid MCP tool.
    if let Some(validator) = toolmodel_tests::mcp_tool_validator() {
        for tool in toolbox.list(None).unwrap().tools() {
            assert!(validator.is_valid(tool), "{tool}");
        }
    }
}

#[test]
fn the_toolbox_is_send_sync_and_clone_and_its_call_future_is_send() {
    fn send_sync_clone<T: Send + Sync + Clone + 'static>() {}
    fn send<T: Send>(_: &T) {}
    send_sync_clone::<Toolbox>();
    let toolbox = toolbox();
    let cx = CallContext::new();
    send(&toolbox.call("echo", None, &cx));
}

fn hand_built(count: usize) -> Toolbox {
    let mut builder = Toolbox::builder().with_page_size(7);
    for index in 0..count {
        let tool = Tool::new(
            format!("tool_{index:04}"),
            ToolSchema::try_from(json!({
                "type": "object",
                "properties": {"n": {"type": "integer"}},
                "required": ["n"]
            }))
            .unwrap(),
        );
        builder = builder.with_tool(tool, move |arguments, _cx| async move {
            Ok(CallToolResult::text(format!("{index}:{}", arguments["n"])))
        });
    }
    builder.build().unwrap()
}

/// `check_arguments` refuses what a call refuses, with the same `isError` result, for derived
/// and hand-built tools; what a call accepts it passes; an unknown name is the call's error.
#[test]
fn checking_arguments_refuses_what_a_call_refuses_with_the_same_result() {
    let derived = toolbox();
    let hand = hand_built(1);
    let cases = [
        (&derived, "math.add", json!({"a": "1", "b": -1})),
        (&derived, "math.add", json!({})),
        (&derived, "math.add", json!({"a": 1, "b": 2})),
        (&derived, "gallery", json!({})),
        (&hand, "tool_0000", json!({"n": "5"})),
        (&hand, "tool_0000", json!({"n": 5})),
    ];
    for (toolbox, name, arguments) in cases {
        let checked = toolbox.check_arguments(name, &arguments).unwrap();
        let called = block_on(call(toolbox, name, arguments.clone())).unwrap();
        match checked {
            Some(refused) => assert_eq!(refused, called, "{name} {arguments}"),
            None => assert!(!called.is_error(), "{name} {arguments}: {called:?}"),
        }
    }
    assert_eq!(
        derived.check_arguments("math.sub", &json!({})).unwrap_err(),
        block_on(call(&derived, "math.sub", json!({}))).unwrap_err()
    );
}

#[test]
fn hand_built_tools_validate_arguments_and_output() {
    let toolbox = hand_built(3);
    assert_eq!(
        toolbox.get("tool_0002").unwrap().backends,
        [toolmodel::Backend::local("tool_0002")],
        "a hand-built tool gets its local binding"
    );
    let ok = block_on(call(&toolbox, "tool_0002", json!({"n": 5}))).unwrap();
    assert_eq!(ok.text_content(), "2:5");
    let bad = block_on(call(&toolbox, "tool_0002", json!({"n": "5"}))).unwrap();
    assert_eq!(
        bad.text_content(),
        "invalid arguments for tool \"tool_0002\": 1 violation\n\
         /n: \"5\" is not of type \"integer\" (schema /properties/n/type)"
    );

    let mut strict = Tool::new("strict", ToolSchema::empty_object());
    strict.output_schema =
        Some(ToolSchema::try_from(json!({"type": "object", "required": ["ok"]})).unwrap());
    let toolbox = Toolbox::builder()
        .with_tool(strict, |_, _| async {
            Ok(CallToolResult::structured(json!({"nope": 1})))
        })
        .build()
        .unwrap();
    let err = block_on(call(&toolbox, "strict", json!({}))).unwrap_err();
    assert!(
        matches!(err, Error::InvalidOutput { ref errors, .. } if errors.len() == 1),
        "{err}"
    );

    let broken = Tool::new("bad name", ToolSchema::empty_object());
    let err = Toolbox::builder()
        .with_tool(broken, |_, _| async { Ok(CallToolResult::text("")) })
        .build()
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidToolbox { problems } if matches!(problems[..], [Error::InvalidTool { .. }])),
        "{err}"
    );
}

#[test]
fn a_hand_built_tool_bound_elsewhere_keeps_exactly_its_bindings_and_a_bare_one_gets_local() {
    use toolmodel::Backend;

    let mut upstream = Tool::new("search", ToolSchema::empty_object());
    upstream.namespace = Some("github".into());
    upstream.backends = vec![
        Backend::mcp("github-server"),
        Backend::provider("openai", "web_search"),
    ];
    let bare = Tool::new("echo", ToolSchema::empty_object());
    let toolbox = Toolbox::builder()
        .with_tool(upstream, |_, _| async { Ok(CallToolResult::text("found")) })
        .with_tool(bare, |_, _| async { Ok(CallToolResult::text("echo")) })
        .build()
        .unwrap();
    assert_eq!(
        toolbox.get("github.search").unwrap().backends,
        [
            Backend::mcp("github-server"),
            Backend::provider("openai", "web_search")
        ],
        "no Local binding is added to a tool bound to an MCP server"
    );
    assert_eq!(
        toolbox.get("echo").unwrap().backends,
        [Backend::local("echo")],
        "a tool with no binding is served locally"
    );
    // Both are served by their handlers all the same.
    let found = block_on(call(&toolbox, "github.search", json!({}))).unwrap();
    assert_eq!(found.text_content(), "found");
}

#[test]
fn listing_pages_through_every_tool_and_refuses_foreign_cursors() {
    let toolbox = hand_built(20);
    let mut seen = Vec::new();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let page = toolbox.list(cursor.as_deref()).unwrap();
        let json = serde_json::to_value(&page).unwrap();
        assert_eq!(json["tools"].as_array().unwrap().len(), page.tools().len());
        seen.extend(
            page.tools()
                .iter()
                .map(|t| t["name"].as_str().unwrap().to_owned()),
        );
        pages += 1;
        match page.next_cursor() {
            Some(next) => {
                assert_eq!(json["nextCursor"], next);
                cursor = Some(next.to_owned());
            }
            None => {
                assert_eq!(json.get("nextCursor"), None);
                break;
            }
        }
    }
    assert_eq!(pages, 3);
    let expected: Vec<String> = (0..20).map(|i| format!("tool_{i:04}")).collect();
    assert_eq!(seen, expected);
    for bad in ["", "0", "3", "21", "140", "-7", "x"] {
        assert_eq!(
            toolbox.list(Some(bad)).unwrap_err(),
            Error::InvalidCursor { cursor: bad.into() },
            "{bad:?}"
        );
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(32))]

    /// Whatever the page size, the pages hold every tool once, in order.
    #[test]
    fn pages_partition_the_tools(count in 0usize..40, size in 1usize..12) {
        let mut builder = Toolbox::builder().with_page_size(size);
        for index in 0..count {
            let tool = Tool::new(format!("t{index:03}"), ToolSchema::empty_object());
            builder = builder.with_tool(tool, |_, _| async { Ok(CallToolResult::text("")) });
        }
        let toolbox = builder.build().unwrap();
        let mut names = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let page = toolbox.list(cursor.as_deref()).unwrap();
            prop_assert!(page.tools().len() <= size);
            names.extend(page.tools().iter().map(|t| t["name"].as_str().unwrap().to_owned()));
            match page.next_cursor() {
                Some(next) => cursor = Some(next.to_owned()),
                None => break,
            }
        }
        let expected: Vec<String> = (0..count).map(|i| format!("t{i:03}")).collect();
        prop_assert_eq!(names, expected);
    }

    /// Any object of wrong-typed arguments gives one violation line per offending key,
    /// each with its pointer, never an error to the host.
    #[test]
    fn wrong_typed_arguments_report_every_key(a in any::<bool>(), b in "[a-z]{0,8}") {
        let result = block_on(call(&toolbox(), "math.add", json!({"a": a, "b": b}))).unwrap();
        prop_assert!(result.is_error());
        let text = result.text_content();
        let lines: Vec<&str> = text.lines().collect();
        prop_assert_eq!(lines.len(), 3);
        prop_assert!(lines[1].starts_with("/a: "));
        prop_assert!(lines[2].starts_with("/b: "));
    }
}

// ---------------------------------------------------------------- the context and its host

#[derive(Default)]
struct RecordingHost {
    progress: Mutex<Vec<ProgressNotification>>,
    logs: Mutex<Vec<LogNotification>>,
}

impl CallPeer for RecordingHost {
    fn progress(
        &self,
        n: ProgressNotification,
    ) -> toolmodel::peer::BoxFuture<'_, Result<(), Error>> {
        self.progress.lock().unwrap().push(n);
        Box::pin(async { Ok(()) })
    }
    fn log(&self, n: LogNotification) -> toolmodel::peer::BoxFuture<'_, Result<(), Error>> {
        self.logs.lock().unwrap().push(n);
        Box::pin(async { Ok(()) })
    }
    fn create_message(
        &self,
        params: Value,
    ) -> toolmodel::peer::BoxFuture<'_, Result<Value, Error>> {
        Box::pin(async move { Ok(json!({"maxTokens": params["maxTokens"]})) })
    }
    fn elicit(&self, _: Value) -> toolmodel::peer::BoxFuture<'_, Result<Value, Error>> {
        Box::pin(async { Ok(json!({"action": "decline"})) })
    }
}

#[test]
fn the_host_gets_progress_for_the_requests_token_logs_and_client_requests() {
    let host = Arc::new(RecordingHost::default());
    let meta = json!({"progressToken": "p-1"}).as_object().unwrap().clone();
    let cx = CallContext::new()
        .with_peer(host.clone())
        .with_meta(meta)
        .unwrap();
    let result = block_on(toolbox().call("host.chatty", None, &cx))
        .map(checked)
        .unwrap();
    assert_eq!(
        result.text_content(),
        r#"chatty: {"maxTokens":5} {"action":"decline"}"#
    );
    let progress = host.progress.lock().unwrap();
    let sent: Vec<Value> = progress
        .iter()
        .map(|n| serde_json::to_value(n).unwrap())
        .collect();
    assert_eq!(
        sent,
        [1, 2, 3]
            .map(|step| json!({"progressToken": "p-1", "progress": step as f64, "total": 3.0, "message": "working"}))
    );
    let logs = host.logs.lock().unwrap();
    assert_eq!(
        serde_json::to_value(&logs[0]).unwrap(),
        json!({"level": "info", "logger": "host.chatty", "data": {"step": "done"}})
    );
}

#[test]
fn without_a_token_no_progress_is_sent_and_without_a_peer_client_requests_fail() {
    let host = Arc::new(RecordingHost::default());
    let cx = CallContext::new().with_peer(host.clone());
    block_on(toolbox().call("host.chatty", None, &cx)).unwrap();
    assert!(host.progress.lock().unwrap().is_empty());
    assert_eq!(host.logs.lock().unwrap().len(), 1);

    // No peer: progress and logs are dropped, sampling is an error to the handler, which `?`
    // turns into an isError result.
    let meta = json!({"progressToken": 1}).as_object().unwrap().clone();
    let cx = CallContext::new().with_meta(meta).unwrap();
    let result = block_on(toolbox().call("host.chatty", None, &cx)).unwrap();
    assert!(result.is_error());
    assert_eq!(
        result.text_content(),
        "no peer to send \"sampling/createMessage\" to: the call has no connection to a client"
    );
    let err = block_on(CallContext::new().elicit(json!({}))).unwrap_err();
    assert_eq!(
        err,
        Error::NoPeer {
            method: "elicitation/create".into()
        }
    );
}

#[test]
fn a_progress_token_that_is_neither_string_nor_integer_is_refused_with_its_pointer() {
    for token in [json!(1.5), json!({"a": 1}), json!([1]), json!(true)] {
        let meta = json!({"progressToken": token}).as_object().unwrap().clone();
        let err = CallContext::new().with_meta(meta).unwrap_err();
        assert!(
            matches!(&err, Error::Json { path, .. } if path == "/_meta/progressToken"),
            "{token}: {err:?}"
        );
    }
}

// ---------------------------------------------------------------- executors and cancellation

/// The calls of [`same_answers`], as one future an executor runs.
type Calls = toolmodel::peer::BoxFuture<'static, Vec<String>>;

/// The same calls, run to completion by whichever executor `run` is.
fn same_answers(run: &dyn Fn(Calls) -> Vec<String>) {
    let toolbox = toolbox();
    let answers = run(Box::pin(async move {
        let mut out = Vec::new();
        for (name, arguments) in [
            ("math.add", json!({"a": 40, "b": 2})),
            ("echo", json!({"text": "hi"})),
            ("echo", json!({"text": "fail"})),
            ("schedule", json!({"date": "2026-01-01"})),
            ("math.add", json!({"a": "x"})),
        ] {
            let result = toolbox
                .call(name, args(arguments), &CallContext::new())
                .await
                .unwrap();
            out.push(format!("{}|{}", result.is_error(), result.text_content()));
        }
        out
    }));
    assert_eq!(
        answers,
        [
            "false|{\"sum\":42}",
            "false|hi",
            "true|asked to fail",
            "false|scheduled on 2026-01-01",
            "true|invalid arguments for tool \"math.add\": 2 violations\n(root): \"b\" is a required property (schema /required)\n/a: \"x\" is not of type \"integer\" (schema /properties/a/type)",
        ]
    );
}

#[test]
fn handlers_run_under_tokio_multi_thread() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .build()
        .unwrap();
    same_answers(&|future| runtime.block_on(async { tokio::spawn(future).await.unwrap() }));
}

#[test]
fn handlers_run_under_tokio_current_thread() {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .build()
        .unwrap();
    same_answers(&|future| runtime.block_on(future));
}

#[test]
fn handlers_run_under_futures_executor() {
    same_answers(&|future| futures_executor::block_on(future));
}

#[test]
fn handlers_run_under_pollster() {
    same_answers(&|future| pollster::block_on(future));
}

#[test]
fn cancellation_wakes_a_waiting_handler_under_tokio() {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_time()
        .build()
        .unwrap();
    runtime.block_on(async {
        let toolbox = toolbox();
        let flag = Cancellation::new();
        let cx = CallContext::new().with_cancellation(flag.clone());
        let call = tokio::spawn(async move { toolbox.call("sleeper", None, &cx).await });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(
            !call.is_finished(),
            "the handler waits for the cancellation"
        );
        flag.cancel();
        let outcome = tokio::time::timeout(Duration::from_secs(5), call)
            .await
            .expect("woken by the cancellation")
            .unwrap();
        assert_eq!(outcome.unwrap_err(), Error::Cancelled);
    });
}

#[test]
fn cancellation_wakes_a_waiting_handler_under_futures_executor() {
    let toolbox = toolbox();
    let flag = Cancellation::new();
    let cx = CallContext::new().with_cancellation(flag.clone());
    let canceller = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        flag.cancel();
    });
    let outcome = futures_executor::block_on(toolbox.call("sleeper", None, &cx));
    canceller.join().unwrap();
    assert_eq!(outcome.unwrap_err(), Error::Cancelled);
    assert!(cx.is_cancelled());
}

/// A pattern that does not compile: the schema cannot be compiled.
#[derive(Deserialize, JsonSchema, toolmodel::Tool, Default)]
struct BadPattern {
    #[schemars(regex(pattern = "(unclosed"))]
    code: String,
}

impl SyncToolHandler for BadPattern {
    type Reply = String;
    fn call_sync(&self, args: BadPattern, _cx: &CallContext) -> Result<String, ToolError> {
        Ok(args.code)
    }
}

#[test]
fn a_schema_that_does_not_compile_is_a_build_problem_not_a_failing_call() {
    let err = Toolbox::builder()
        .with(BadPattern::default())
        .build()
        .unwrap_err();
    assert!(
        matches!(&err, Error::InvalidToolbox { problems } if matches!(problems[..], [Error::InvalidSchema { .. }])),
        "{err:?}"
    );
}

// ---------------------------------------------------------------- timeouts

/// A host whose only service is tokio's timer: what `toolmodel-rmcp`'s hosts give.
struct TokioTimer;

impl CallPeer for TokioTimer {
    fn sleep(&self, duration: Duration) -> Option<toolmodel::peer::BoxFuture<'static, ()>> {
        Some(Box::pin(tokio::time::sleep(duration)))
    }
}

/// A hand-built tool with a 50 ms timeout whose handler waits `delay`, or until cancelled,
/// and leaves its context's cancellation flag in `seen`.
fn slow_toolbox(delay: Duration, seen: Arc<Mutex<Option<Cancellation>>>) -> Toolbox {
    let mut tool = Tool::new("slow", ToolSchema::empty_object());
    tool.timeout = Some(Duration::from_millis(50));
    Toolbox::builder()
        .with_tool(tool, move |_, cx| {
            *seen.lock().unwrap() = Some(cx.cancellation().clone());
            async move {
                tokio::select! {
                    () = tokio::time::sleep(delay) => Ok(CallToolResult::text("done")),
                    () = cx.cancelled() => Err(ToolError::Cancelled),
                }
            }
        })
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_call_past_its_timeout_is_an_error_result_naming_the_limit_and_cancels_the_handler() {
    let seen = Arc::new(Mutex::new(None));
    let toolbox = slow_toolbox(Duration::from_secs(30), Arc::clone(&seen));
    let cx = CallContext::new().with_peer(Arc::new(TokioTimer));
    let started = std::time::Instant::now();
    let result = checked(toolbox.call("slow", None, &cx).await.unwrap());
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(result.is_error());
    assert_eq!(
        result.text_content(),
        "tool \"slow\" did not finish within its timeout of 50ms (timeoutMs 50); the call was cancelled"
    );
    let handler_flag = seen.lock().unwrap().clone().unwrap();
    assert!(handler_flag.is_cancelled());
    assert!(cx.is_cancelled());
}

#[tokio::test]
async fn a_call_within_its_timeout_returns_its_own_result_uncancelled() {
    let seen = Arc::new(Mutex::new(None));
    let toolbox = slow_toolbox(Duration::from_millis(1), Arc::clone(&seen));
    let cx = CallContext::new().with_peer(Arc::new(TokioTimer));
    let result = toolbox.call("slow", None, &cx).await.unwrap();
    assert_eq!(result.text_content(), "done");
    assert!(!cx.is_cancelled());
}

#[tokio::test]
async fn without_a_timer_the_timeout_is_not_enforced() {
    let seen = Arc::new(Mutex::new(None));
    let toolbox = slow_toolbox(Duration::from_millis(150), Arc::clone(&seen));
    let result = toolbox
        .call("slow", None, &CallContext::new())
        .await
        .unwrap();
    assert_eq!(result.text_content(), "done");
    assert!(!seen.lock().unwrap().clone().unwrap().is_cancelled());
}

/// Waits until cancelled.
#[derive(Deserialize, JsonSchema, toolmodel::Tool)]
#[tool(timeout = "20ms")]
struct Stuck {}

impl ToolHandler for Stuck {
    type Reply = String;

    async fn call(&self, _: Stuck, cx: &CallContext) -> Result<String, ToolError> {
        cx.cancelled().await;
        Err(ToolError::Cancelled)
    }
}

#[tokio::test(flavor = "current_thread")]
async fn a_derived_tool_s_timeout_is_enforced_too() {
    let toolbox = Toolbox::builder().with(Stuck {}).build().unwrap();
    assert_eq!(
        toolbox.get("stuck").unwrap().timeout,
        Some(Duration::from_millis(20))
    );
    let cx = CallContext::new().with_peer(Arc::new(TokioTimer));
    let result = toolbox.call("stuck", None, &cx).await.unwrap();
    assert!(
        result
            .text_content()
            .contains("timeout of 20ms (timeoutMs 20)")
    );
    assert!(cx.is_cancelled());
}
