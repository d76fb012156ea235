//! `toolmodel::model_calls` against the providers' published API definitions
//! (`tests/data/providers/`, see its README): every tool list, answer and whole next-request
//! body is validated; calls and results round-trip; the example loop runs for all four
//! providers; the Toolbox traps of issue 19 stay fixed.

use std::{
    future::Future,
    path::PathBuf,
    pin::Pin,
    sync::{
        Arc, OnceLock,
        atomic::{AtomicBool, Ordering},
    },
    task::{Context, Poll},
    time::{Duration, Instant},
};

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolmodel::adapters::{ConvertOptions, Target, convert_all};
use toolmodel::model_calls::{
    CallArguments, ModelCall, ModelTools, Provider, ToolListOptions, ToolOutcome, answer,
    extend_request, model_turn, read_calls, read_calls_from_slice, run_calls,
};
use toolmodel::{
    CallContext, CallToolResult, Error, Tool, ToolError, ToolSchema, Toolbox,
    content::ContentBlock,
    content::{
        AudioContent, BlobResourceContents, EmbeddedResource, ImageContent, ResourceLink,
        TextResourceContents,
    },
};

use crate::support::quickstart;

// ---------------------------------------------------------------------------------------------
// The providers' definitions.

/// The schema document of a provider (`openai`, `gemini`, `anthropic`).
fn document(name: &str) -> &'static Value {
    static DOCS: OnceLock<Vec<(String, Value)>> = OnceLock::new();
    let docs = DOCS.get_or_init(|| {
        ["openai", "gemini", "anthropic"]
            .iter()
            .map(|name| {
                let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
                    .join(format!("data/providers/{name}.schema.json"));
                let text = std::fs::read_to_string(&path).expect("the provider schema is readable");
                (
                    (*name).to_owned(),
                    serde_json::from_str(&text).expect("JSON"),
                )
            })
            .collect()
    });
    &docs
        .iter()
        .find(|(n, _)| n == name)
        .expect("a known document")
        .1
}

/// Validates `value` against `#/$defs/<definition>` of a provider document; panics naming
/// every error.
fn check(doc: &str, definition: &str, value: &Value) {
    let mut schema = document(doc).clone();
    assert!(
        schema["$defs"].get(definition).is_some(),
        "{doc} has no {definition}"
    );
    schema["$ref"] = json!(format!("#/$defs/{definition}"));
    let validator = jsonschema::validator_for(&schema).expect("the provider schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(
        errors.is_empty(),
        "{doc} {definition}: {errors:#?}\n{}",
        serde_json::to_string_pretty(value).unwrap()
    );
}

/// The definition each provider's tool entries, answers and request bodies are checked
/// against.
fn tool_definition(provider: Provider, tool: &Value) -> (&'static str, &'static str) {
    match provider {
        Provider::Anthropic => ("anthropic", "ToolParam"),
        Provider::OpenAiChat => ("openai", "ChatCompletionTool"),
        Provider::OpenAiResponses if tool["type"] == "namespace" => {
            ("openai", "NamespaceToolParam")
        }
        Provider::OpenAiResponses => ("openai", "FunctionToolParam"),
        Provider::Gemini => ("gemini", "Tool"),
        other => unreachable!("{other}"),
    }
}

fn answer_definition(provider: Provider) -> (&'static str, &'static str) {
    match provider {
        Provider::Anthropic => ("anthropic", "MessageParam"),
        Provider::OpenAiChat => ("openai", "ChatCompletionRequestToolMessage"),
        Provider::OpenAiResponses => ("openai", "FunctionCallOutputItemParam"),
        Provider::Gemini => ("gemini", "Content"),
        other => unreachable!("{other}"),
    }
}

fn request_definition(provider: Provider) -> (&'static str, &'static str) {
    match provider {
        Provider::Anthropic => ("anthropic", "MessageCreateParams"),
        Provider::OpenAiChat => ("openai", "CreateChatCompletionRequest"),
        Provider::OpenAiResponses => ("openai", "CreateResponse"),
        Provider::Gemini => ("gemini", "GenerateContentRequest"),
        other => unreachable!("{other}"),
    }
}

#[test]
fn the_definitions_catch_what_they_should() {
    // The checks can fail: wrong shapes are refused by each definition used below.
    let bad = [
        (
            "anthropic",
            "ToolParam",
            json!({"name": "x", "input_schema": {"type": "array"}}),
        ),
        (
            "anthropic",
            "MessageParam",
            json!({"role": "user", "content": [{"type": "tool_result"}]}),
        ),
        (
            "openai",
            "ChatCompletionRequestToolMessage",
            json!({"role": "tool", "content": "x"}),
        ),
        (
            "openai",
            "FunctionCallOutputItemParam",
            json!({"type": "function_call_output", "call_id": "c", "output": 3}),
        ),
        (
            "openai",
            "NamespaceToolParam",
            json!({"type": "namespace", "name": "n", "tools": []}),
        ),
        (
            "gemini",
            "Content",
            json!({"parts": [{"functionResponse": {"name": "f", "response": "text"}}]}),
        ),
        ("gemini", "GenerateContentRequest", json!({"contents": []})),
    ];
    for (doc, definition, value) in bad {
        let result = std::panic::catch_unwind(|| check(doc, definition, &value));
        assert!(result.is_err(), "{doc} {definition} accepted {value}");
    }
}

// ---------------------------------------------------------------------------------------------
// Tools with every kind of result.

const PNG: &[u8] = b"\x89PNG\r\n\x1a\n not really a picture";

fn tool(name: &str, namespace: Option<&str>, schema: Value) -> Tool {
    let mut tool = Tool::new(name, ToolSchema::try_from(schema).unwrap());
    tool.description = Some(format!("The {name} tool."));
    tool.namespace = namespace.map(str::to_owned);
    tool
}

/// Tools returning text, an image, every other content block, structured content (an object
/// and an array), an error, and one that sleeps 150 ms on a thread (runtime-agnostic).
fn rich_toolbox() -> Toolbox {
    let object =
        json!({"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]});
    let mut structured = tool("stats", Some("notes"), json!({"type": "object"}));
    structured.output_schema = Some(ToolSchema::try_from(json!({"type": "object"})).unwrap());
    structured.title = Some("Statistics".into());
    structured.version = Some("2.0.0".into());
    structured.tags = vec!["notes".into()];
    Toolbox::builder()
        .with_tool(
            tool("add_note", Some("notes"), object),
            |args, _cx| async move { Ok(CallToolResult::text(format!("added {}", args["text"]))) },
        )
        .with_tool(structured, |_args, _cx| async move {
            Ok(CallToolResult::structured(json!({"count": 3})))
        })
        .with_tool(
            tool("list", None, json!({"type": "object"})),
            |_args, _cx| async move {
                let mut result = CallToolResult::from_content([]);
                result.structured_content = Some(json!(["a", "b"]));
                Ok(result)
            },
        )
        .with_tool(
            tool("media", None, json!({"type": "object"})),
            |_args, _cx| async move {
                Ok(CallToolResult::from_content([
                    ContentBlock::text("here is everything"),
                    ContentBlock::Image(ImageContent::from_bytes(PNG, "image/png")),
                    ContentBlock::Image(ImageContent::from_bytes(PNG, "image/bmp")),
                    ContentBlock::Audio(AudioContent::from_bytes(b"RIFF", "audio/wav")),
                    ContentBlock::ResourceLink(ResourceLink::new("file:///notes/a.md", "a.md")),
                    ContentBlock::Resource(EmbeddedResource::new(TextResourceContents::new(
                        "file:///notes/b.md",
                        "# B",
                    ))),
                    ContentBlock::Resource(EmbeddedResource::new({
                        let mut blob =
                            BlobResourceContents::from_bytes("file:///docs/c.pdf", b"%PDF-1.7");
                        blob.mime_type = Some("application/pdf".into());
                        blob
                    })),
                ]))
            },
        )
        .with_tool(
            tool("fail", None, json!({"type": "object"})),
            |_args, _cx| async move { Err(ToolError::new("the disk is full")) },
        )
        .with_tool(
            tool("slow", None, json!({"type": "object"})),
            |_args, _cx| async move {
                Delay::new(Duration::from_millis(150)).await;
                Ok(CallToolResult::text("slept"))
            },
        )
        .build()
        .unwrap()
}

/// A future ready after `duration`, woken by a thread of its own: no runtime.
struct Delay {
    done: Arc<AtomicBool>,
    duration: Duration,
    started: bool,
}

impl Delay {
    fn new(duration: Duration) -> Self {
        Self {
            done: Arc::new(AtomicBool::new(false)),
            duration,
            started: false,
        }
    }
}

impl Future for Delay {
    type Output = ();
    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        if self.done.load(Ordering::SeqCst) {
            return Poll::Ready(());
        }
        if !self.started {
            self.started = true;
            let (done, waker, duration) =
                (Arc::clone(&self.done), cx.waker().clone(), self.duration);
            std::thread::spawn(move || {
                std::thread::sleep(duration);
                done.store(true, Ordering::SeqCst);
                waker.wake();
            });
        }
        Poll::Pending
    }
}

/// The provider name of an MCP name, as a call of `provider` carries it.
fn call_to(tools: &ModelTools, mcp_name: &str, arguments: Value, id: &str) -> ModelCall {
    let (namespace, name) = tools.provider_name(mcp_name).expect("a listed tool");
    let mut call = ModelCall::new(
        name,
        match arguments {
            Value::Object(map) => CallArguments::Object(map),
            other => CallArguments::Invalid {
                text: other.to_string(),
                problem: "not an object".into(),
            },
        },
    )
    .with_id(id);
    if let Some(namespace) = namespace {
        call = call.with_namespace(namespace);
    }
    call
}

fn outcomes_of(provider: Provider) -> (Vec<ModelCall>, Vec<ToolOutcome>) {
    let toolbox = rich_toolbox();
    let tools = ModelTools::new(&toolbox, provider, &ToolListOptions::default()).unwrap();
    let mut calls: Vec<ModelCall> = [
        ("notes.add_note", json!({"text": "milk"})),
        ("notes.stats", json!({})),
        ("list", json!({})),
        ("media", json!({})),
        ("fail", json!({})),
        ("notes.add_note", json!({"text": 7})),
    ]
    .into_iter()
    .enumerate()
    .map(|(i, (name, args))| call_to(&tools, name, args, &format!("call_{i}")))
    .collect();
    calls.push(ModelCall::new("nope", CallArguments::Object(Map::new())).with_id("call_6"));
    calls.push(
        ModelCall::new(
            tools.provider_name("list").unwrap().1,
            CallArguments::from_json_text("{\"a\": "),
        )
        .with_id("call_7"),
    );
    let cx = CallContext::new();
    let outcomes = pollster::block_on(run_calls(&toolbox, &tools, calls.clone(), &cx));
    (calls, outcomes)
}

// ---------------------------------------------------------------------------------------------
// 1. Tool lists.

#[test]
fn every_tool_list_is_valid_for_its_provider_and_routes_back() {
    let toolbox = rich_toolbox();
    let quick = quickstart::toolbox().unwrap();
    for provider in Provider::ALL {
        for options in [
            ToolListOptions::default(),
            ToolListOptions::default().with_defer_loading(true),
            ToolListOptions::default()
                .with_convert(ConvertOptions::default().with_gemini_json_schema(true)),
        ] {
            for toolbox in [&toolbox, &quick] {
                let tools = ModelTools::new(toolbox, provider, &options).unwrap();
                assert!(!tools.tools().is_empty());
                for entry in tools.tools() {
                    let (doc, definition) = tool_definition(provider, entry);
                    check(doc, definition, entry);
                }
                // Every listed tool routes back to its MCP name.
                for listed in toolbox.tools() {
                    let (namespace, name) = tools.provider_name(&listed.name).unwrap();
                    assert_eq!(tools.mcp_name(namespace, name), Some(listed.name.as_str()));
                }
                let deferred = tools
                    .tools()
                    .iter()
                    .any(|t| t.to_string().contains("defer_loading"));
                let has_key = matches!(provider, Provider::Anthropic | Provider::OpenAiResponses);
                assert_eq!(deferred, options.defer_loading && has_key, "{provider}");
                assert_eq!(
                    tools
                        .warnings()
                        .iter()
                        .any(|w| w.warning.feature == "defer_loading"),
                    options.defer_loading && !has_key,
                    "{provider}"
                );
            }
        }
    }
}

#[test]
fn gemini_parameters_are_the_default_and_valid_for_googles_definition() {
    // Once a finding: the OpenAPI-subset `parameters` wrote an optional enum as an `anyOf`
    // without `type`, which Google's published definition requires of every `Schema`; the
    // default was `parametersJsonSchema` then.
    let quick = quickstart::toolbox().unwrap();
    let tools = ModelTools::new(&quick, Provider::Gemini, &ToolListOptions::default()).unwrap();
    let declarations = &tools.tools()[0]["functionDeclarations"];
    check("gemini", "Tool", &tools.tools()[0]);
    let weather = declarations
        .as_array()
        .unwrap()
        .iter()
        .find(|d| d["name"] == "weather.get_weather")
        .unwrap();
    assert!(weather.get("parametersJsonSchema").is_none());
    // `unit: Option<Unit>`: an `anyOf` of the enum (its own description kept) and null, typed
    // `STRING` and `nullable` beside it.
    let unit = &weather["parameters"]["properties"]["unit"];
    assert_eq!(unit["type"], "STRING", "{unit}");
    assert_eq!(unit["nullable"], true, "{unit}");
    assert_eq!(unit["anyOf"][0]["type"], "STRING", "{unit}");
    // The JSON Schema form stays one option away.
    let json_schema = ToolListOptions::default()
        .with_convert(ConvertOptions::default().with_gemini_json_schema(true));
    let tools = ModelTools::new(&quick, Provider::Gemini, &json_schema).unwrap();
    assert!(
        tools.tools()[0]["functionDeclarations"][0]
            .get("parametersJsonSchema")
            .is_some()
    );
}

#[test]
fn gemini_parameters_of_every_corpus_tool_are_valid_for_googles_definition() {
    let Some(corpus) = toolmodel_tests::corpus_tools() else {
        return;
    };
    let mut schema = document("gemini").clone();
    schema["$ref"] = json!("#/$defs/Schema");
    let validator = jsonschema::validator_for(&schema).expect("the Gemini schema compiles");
    // The definition refuses what the adapters wrote before: an `anyOf` without `type`, and
    // counts (int64 fields) as JSON numbers.
    assert!(!validator.is_valid(&json!({"anyOf": [{"type": "STRING"}, {"type": "NULL"}]})));
    assert!(!validator.is_valid(&json!({"type": "STRING", "minLength": 1})));
    let (mut converted, mut failures) = (0, Vec::new());
    for options in [
        ConvertOptions::default(),
        ConvertOptions::default().with_allow_widening(true),
    ] {
        for (origin, value) in &corpus {
            let Ok(tool) = Tool::from_mcp_json(value) else {
                continue;
            };
            // Recursion Gemini cannot take is an error without widening: not converted.
            let Ok(conversion) = toolmodel::adapters::convert(&tool, Target::Gemini, &options)
            else {
                continue;
            };
            converted += 1;
            for key in ["parameters", "response"] {
                if let Some(schema) = conversion.value.get(key) {
                    for error in validator.iter_errors(schema) {
                        failures.push(format!("{origin} /{key}{}: {error}", error.instance_path()));
                    }
                }
            }
        }
    }
    println!("{converted} Gemini conversions of corpus tools checked");
    assert!(converted > 1900, "{converted}");
    assert!(failures.is_empty(), "{failures:#?}");
}

#[test]
fn namespaces_are_responses_namespaces_and_prefixed_names_elsewhere() {
    let toolbox = rich_toolbox();
    let names = |provider| {
        let tools = ModelTools::new(&toolbox, provider, &ToolListOptions::default()).unwrap();
        (
            tools
                .provider_name("notes.add_note")
                .map(|(n, s)| (n.map(str::to_owned), s.to_owned())),
            tools,
        )
    };
    assert_eq!(
        names(Provider::Anthropic).0,
        Some((None, "notes_add_note".into()))
    );
    assert_eq!(
        names(Provider::OpenAiChat).0,
        Some((None, "notes_add_note".into()))
    );
    assert_eq!(
        names(Provider::Gemini).0,
        Some((None, "notes.add_note".into()))
    );
    let (name, responses) = names(Provider::OpenAiResponses);
    assert_eq!(name, Some((Some("notes".into()), "add_note".into())));
    let namespace = responses
        .tools()
        .iter()
        .find(|t| t["type"] == "namespace")
        .unwrap();
    assert_eq!(namespace["name"], "notes");
    assert_eq!(namespace["tools"].as_array().unwrap().len(), 2);
    let described = ModelTools::new(
        &toolbox,
        Provider::OpenAiResponses,
        &ToolListOptions::default().with_namespace_description("notes", "Your notes."),
    )
    .unwrap();
    assert!(
        described
            .tools()
            .iter()
            .any(|t| t["description"] == "Your notes.")
    );
}

#[test]
fn tool_lists_report_only_wire_losses() {
    // Issue 19, trap 2: the library's own fields (namespace, version, tags, backends) are no
    // loss; the outputSchema and title a provider drops are.
    let toolbox = rich_toolbox();
    for provider in Provider::ALL {
        let tools = ModelTools::new(&toolbox, provider, &ToolListOptions::default()).unwrap();
        let pointers: Vec<(String, String)> = tools
            .warnings()
            .iter()
            .map(|w| (w.tool.clone(), w.warning.pointer.clone()))
            .collect();
        for own in ["/namespace", "/version", "/tags", "/backends"] {
            assert!(
                !pointers.iter().any(|(_, p)| p == own),
                "{provider}: {pointers:?}"
            );
        }
        assert!(
            pointers.contains(&("notes.stats".into(), "/title".into())),
            "{provider}: {pointers:?}"
        );
        let output_dropped = pointers.contains(&("notes.stats".into(), "/outputSchema".into()));
        assert_eq!(
            output_dropped,
            provider != Provider::Gemini,
            "{provider}: {pointers:?}"
        );
    }
    // The same through the adapters directly, on the toolbox's definitions.
    let definitions: Vec<Tool> = toolbox.definitions().cloned().collect();
    let batch = convert_all(&definitions, Target::Anthropic, &ConvertOptions::default());
    for result in batch.results {
        for warning in result.unwrap().warnings {
            assert!(
                !["/namespace", "/version", "/tags", "/backends"]
                    .contains(&warning.pointer.as_str()),
                "{warning}"
            );
        }
    }
}

#[test]
fn listed_tool_ids_route_with_call_id_and_qualified_names_do_not_repeat_the_namespace() {
    // Issue 19, trap 1.
    let toolbox = rich_toolbox();
    let cx = CallContext::new();
    for listed in toolbox.tools() {
        let id = listed.id().unwrap();
        assert_eq!(listed.namespace, None, "{}", listed.name);
        let result = pollster::block_on(toolbox.call_id(
            &id,
            Some(json!({"text": "x"}).as_object().unwrap().clone()),
            &cx,
        ));
        assert!(result.is_ok(), "{id}: {result:?}");
    }
    // The definitions keep their namespace, and their IDs route too.
    let add = toolbox
        .definitions()
        .find(|t| t.name == "add_note")
        .unwrap();
    assert_eq!(add.id().unwrap().to_string(), "notes:add_note");
    let result = pollster::block_on(toolbox.call_id(
        &add.id().unwrap(),
        Some(json!({"text": "x"}).as_object().unwrap().clone()),
        &cx,
    ));
    assert_eq!(result.unwrap().text_content(), "added \"x\"");
    let batch = convert_all(
        toolbox.tools(),
        Target::OpenAiChat,
        &ConvertOptions::default().with_qualified_names(true),
    );
    assert!(batch.names.get("notes_add_note").is_some());
    assert!(
        batch
            .names
            .iter()
            .all(|e| !e.target_name.contains("notes_notes"))
    );
}

// ---------------------------------------------------------------------------------------------
// 2-4. Reading, running, answering.

#[test]
fn running_keeps_order_and_turns_every_failure_into_an_is_error_result() {
    for provider in Provider::ALL {
        let (calls, outcomes) = outcomes_of(provider);
        assert_eq!(outcomes.len(), calls.len());
        for (call, outcome) in calls.iter().zip(&outcomes) {
            assert_eq!(call.id, outcome.id);
            assert_eq!(call.name, outcome.name);
        }
        let texts: Vec<String> = outcomes.iter().map(|o| o.result.text_content()).collect();
        assert_eq!(texts[0], "added \"milk\"");
        assert!(!outcomes[0].result.is_error());
        assert!(outcomes[4].result.is_error() && texts[4] == "the disk is full");
        // Bad arguments: the toolbox's violation list.
        assert!(outcomes[5].result.is_error());
        assert!(
            texts[5].contains("/text: 7 is not of type \"string\""),
            "{}",
            texts[5]
        );
        // Unknown tool: named, with the tools there are; the error kept for the host.
        assert!(outcomes[6].result.is_error());
        assert!(
            texts[6].starts_with("unknown tool \"nope\"; the tools are: "),
            "{}",
            texts[6]
        );
        assert!(
            matches!(&outcomes[6].error, Some(Error::UnknownTool { name, .. }) if name == "nope")
        );
        assert_eq!(outcomes[6].tool, None);
        // Invalid JSON arguments.
        assert!(outcomes[7].result.is_error());
        assert!(texts[7].starts_with("invalid arguments for tool \"list\": the arguments are not valid JSON: EOF while parsing"), "{}", texts[7]);
    }
}

#[test]
fn every_answer_is_valid_for_its_provider_and_carries_the_results() {
    for provider in Provider::ALL {
        let (_, outcomes) = outcomes_of(provider);
        let written = answer(provider, &outcomes);
        let messages = written.to_values();
        assert_eq!(messages.len(), written.len(), "{provider}");
        let (doc, definition) = answer_definition(provider);
        for message in &messages {
            check(doc, definition, message);
        }
        // The bytes written straight from the outcomes are the values.
        let text = serde_json::to_string(&written).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&text).unwrap(),
            Value::Array(messages.clone()),
            "{provider}"
        );
        // Nothing is dropped silently: what a provider cannot carry is described.
        for described in [
            "audio/wav audio",
            "resource link: file:///notes/a.md",
            "[resource file:///notes/b.md",
        ] {
            assert!(
                text.contains(described),
                "{provider}: {described} in {text}"
            );
        }
        match provider {
            Provider::Anthropic => {
                assert_eq!(messages.len(), 1);
                let blocks = messages[0]["content"].as_array().unwrap();
                assert_eq!(blocks.len(), outcomes.len());
                assert_eq!(blocks[3]["content"][1]["type"], "image");
                assert_eq!(
                    blocks[3]["content"][2]["type"], "text",
                    "BMP is no Anthropic image"
                );
                assert_eq!(blocks[4]["is_error"], true);
                assert_eq!(blocks[0].get("is_error"), None);
                assert_eq!(blocks[2]["content"][0]["text"], "[\"a\",\"b\"]");
            }
            Provider::OpenAiChat => {
                assert_eq!(messages.len(), outcomes.len());
                assert_eq!(messages[4]["content"], "Error: the disk is full");
                assert!(
                    messages[3]["content"]
                        .as_str()
                        .unwrap()
                        .contains("image/png image of")
                );
                assert_eq!(messages[1]["content"], "{\"count\":3}");
            }
            Provider::OpenAiResponses => {
                assert_eq!(messages.len(), outcomes.len());
                assert_eq!(messages[0]["output"], "added \"milk\"");
                let parts = messages[3]["output"].as_array().unwrap();
                assert!(parts.iter().any(|p| {
                    p["type"] == "input_image"
                        && p["image_url"]
                            .as_str()
                            .unwrap()
                            .starts_with("data:image/png;base64,")
                }));
                assert!(
                    parts
                        .iter()
                        .any(|p| p["type"] == "input_file" && p["filename"] == "c.pdf")
                );
                assert_eq!(messages[4]["output"], "Error: the disk is full");
            }
            Provider::Gemini => {
                let parts = messages[0]["parts"].as_array().unwrap();
                assert_eq!(parts.len(), outcomes.len());
                assert_eq!(
                    parts[1]["functionResponse"]["response"],
                    json!({"count": 3})
                );
                assert_eq!(
                    parts[2]["functionResponse"]["response"],
                    json!({"output": ["a", "b"]})
                );
                assert_eq!(
                    parts[4]["functionResponse"]["response"],
                    json!({"error": "the disk is full"})
                );
                assert_eq!(parts[0]["functionResponse"]["id"], "call_0");
                assert_eq!(parts[0]["functionResponse"]["name"], "notes.add_note");
            }
            other => unreachable!("{other}"),
        }
    }
}

#[test]
fn invalid_openai_arguments_never_panic_nor_drop_the_call() {
    let toolbox = rich_toolbox();
    for (provider, response) in [
        (
            Provider::OpenAiChat,
            json!({"choices": [{"message": {"role": "assistant", "tool_calls": [
                {"id": "a", "type": "function", "function": {"name": "list", "arguments": "{\"x\": tru"}},
                {"id": "b", "type": "function", "function": {"name": "list", "arguments": "[1, 2]"}},
                {"id": "c", "type": "function", "function": {"name": "list", "arguments": ""}},
                {"id": "d", "type": "custom", "custom": {"name": "list", "input": "free text"}}
            ]}}]}),
        ),
        (
            Provider::OpenAiResponses,
            json!({"output": [
                {"type": "function_call", "call_id": "a", "name": "list", "arguments": "{\"x\": tru"},
                {"type": "function_call", "call_id": "b", "name": "list", "arguments": "[1, 2]"},
                {"type": "function_call", "call_id": "c", "name": "list", "arguments": ""},
                {"type": "custom_tool_call", "call_id": "d", "name": "list", "input": "free text"}
            ]}),
        ),
    ] {
        let tools = ModelTools::new(&toolbox, provider, &ToolListOptions::default()).unwrap();
        let calls = read_calls(provider, &response).unwrap();
        assert_eq!(calls.len(), 4);
        assert_eq!(
            read_text(provider, &response.to_string()),
            Ok(calls.clone())
        );
        assert!(
            matches!(&calls[0].arguments, CallArguments::Invalid { problem, .. } if problem.contains("line 1 column"))
        );
        assert!(
            matches!(&calls[1].arguments, CallArguments::Invalid { problem, .. } if problem.ends_with("found array"))
        );
        assert_eq!(calls[2].arguments, CallArguments::Object(Map::new()));
        assert!(
            matches!(&calls[3].arguments, CallArguments::Invalid { text, .. } if text == "free text")
        );
        let outcomes = pollster::block_on(run_calls(&toolbox, &tools, calls, &CallContext::new()));
        let errors: Vec<bool> = outcomes.iter().map(|o| o.result.is_error()).collect();
        assert_eq!(errors, [true, true, false, true], "{provider}");
        for message in answer(provider, &outcomes).to_values() {
            let (doc, definition) = answer_definition(provider);
            check(doc, definition, &message);
        }
    }
}

#[test]
fn malformed_responses_are_errors_with_their_pointer() {
    let cases = [
        (
            Provider::Anthropic,
            json!({"content": [{"type": "tool_use", "name": "x", "input": {}}]}),
            "/content/0",
        ),
        (Provider::Anthropic, json!({"content": 3}), "/content"),
        (Provider::OpenAiChat, json!({"choices": []}), "/choices"),
        (
            Provider::OpenAiChat,
            json!({"choices": [{"message": {"role": "assistant", "tool_calls": [{"id": "a", "type": "function", "function": {"name": 3}}]}}]}),
            "/choices/0/message/tool_calls/0/function/name",
        ),
        (
            Provider::OpenAiResponses,
            json!({"output": [{"type": "function_call", "name": "x", "arguments": "{}"}]}),
            "/output/0",
        ),
        (
            Provider::Gemini,
            json!({"candidates": [{"content": {"parts": [{"functionCall": {"args": {}}}]}}]}),
            "/candidates/0/content/parts/0/functionCall",
        ),
        (Provider::Gemini, json!({"text": "hello"}), ""),
    ];
    for (provider, response, pointer) in cases {
        match read_calls(provider, &response) {
            Err(Error::Json { path, .. }) => assert_eq!(path, pointer, "{provider}: {response}"),
            other => panic!("{provider}: {response}: {other:?}"),
        }
        assert_eq!(
            read_text(provider, &response.to_string()),
            Err(format!(
                "{:?}",
                read_calls(provider, &response).unwrap_err()
            ))
        );
    }
}

/// `read_calls_from_slice` of `text`, the error as its `Debug` text, after checking that it
/// is what `read_calls` reads of `text` parsed (when it is JSON).
fn read_text(provider: Provider, text: &str) -> Result<Vec<ModelCall>, String> {
    let read = read_calls_from_slice(provider, text.as_bytes()).map_err(|err| format!("{err:?}"));
    if let Ok(value) = serde_json::from_str::<Value>(text) {
        let expected = read_calls(provider, &value).map_err(|err| format!("{err:?}"));
        assert_eq!(read, expected, "{provider}: {text}");
    }
    read
}

#[test]
fn reading_the_text_is_reading_the_parsed_value_whatever_the_shape() {
    let cases = [
        // The parts of a response that `read_calls` also takes.
        (
            Provider::Anthropic,
            r#"[{"type": "tool_use", "id": "a", "name": "x", "input": {"k": 1}}]"#,
        ),
        (
            Provider::OpenAiChat,
            r#"{"role": "assistant", "tool_calls": [{"id": "a", "function": {"name": "x"}}]}"#,
        ),
        (
            Provider::OpenAiResponses,
            r#"[{"type": "function_call", "call_id": "a", "name": "x"}]"#,
        ),
        (
            Provider::Gemini,
            r#"{"parts": [{"functionCall": {"name": "x", "args": {"k": 1}}}]}"#,
        ),
        // Arrays where objects are expected: skipped or refused, never read in field order.
        (
            Provider::Anthropic,
            r#"{"content": [["tool_use", "a", "x", {}]]}"#,
        ),
        (
            Provider::Anthropic,
            r#"[[{"type": "tool_use", "id": "a", "name": "x"}]]"#,
        ),
        (
            Provider::OpenAiChat,
            r#"{"choices": [{"message": ["a", [["a", "function", ["x", "{}"]]]]}]}"#,
        ),
        (
            Provider::Gemini,
            r#"{"candidates": [{"content": {"parts": [[{"name": "x"}, "sig"]]}}]}"#,
        ),
        // Members of other types than the provider's, in blocks that are not calls and in calls.
        (
            Provider::Anthropic,
            r#"{"content": [{"type": 3, "id": 4}, {"type": "text", "name": []}, {"type": "tool_use", "id": "a", "name": "x", "input": [1]}]}"#,
        ),
        (
            Provider::Anthropic,
            r#"{"content": [{"type": "tool_use", "id": "a", "name": "x", "input": null}]}"#,
        ),
        (
            Provider::OpenAiChat,
            r#"{"choices": [{"message": {"tool_calls": [{"id": "a", "type": 7, "function": {"name": "x", "arguments": null}}]}}, 3]}"#,
        ),
        (
            Provider::OpenAiChat,
            r#"{"choices": [{"message": {"tool_calls": [{"id": "a", "function": null}]}}]}"#,
        ),
        (
            Provider::OpenAiChat,
            r#"{"choices": [{"message": {"tool_calls": null}}]}"#,
        ),
        (
            Provider::OpenAiChat,
            r#"{"choices": [{"message": "hello"}]}"#,
        ),
        (
            Provider::OpenAiResponses,
            r#"{"output": [{"type": "message", "content": [{"type": "output_text", "text": "hi"}]}, {"type": "function_call", "call_id": "a", "name": "x", "arguments": 3}]}"#,
        ),
        (
            Provider::Gemini,
            r#"{"candidates": [{"content": {"parts": [{"functionCall": null}]}}]}"#,
        ),
        (
            Provider::Gemini,
            r#"{"candidates": [{"content": {"parts": [{"text": "hi", "thoughtSignature": "s"}, {"functionCall": {"name": "x", "args": null}, "thoughtSignature": "t"}]}}]}"#,
        ),
        (Provider::Gemini, r#"{"candidates": []}"#),
        // Duplicate members: the last one counts, as in a parsed value.
        (
            Provider::Anthropic,
            r#"{"content": [{"type": "tool_use", "id": "a", "name": "x", "name": "y"}]}"#,
        ),
        // Escapes in the strings read.
        (
            Provider::OpenAiResponses,
            r#"{"output": [{"type": "function_call", "call_id": "a\u0041", "name": "x\"y", "namespace": "n\/s", "arguments": "{\"k\": \"\\u00e9\"}"}]}"#,
        ),
    ];
    for (provider, text) in cases {
        read_text(provider, text).ok();
    }
    // Something read, for each provider, to show the cases above are not all refusals.
    assert_eq!(
        read_text(Provider::Anthropic, cases[0].1).map(|calls| calls.len()),
        Ok(1)
    );
    let escaped = read_text(Provider::OpenAiResponses, cases[cases.len() - 1].1).unwrap();
    assert_eq!(
        (
            escaped[0].id.as_deref(),
            escaped[0].name.as_str(),
            escaped[0].namespace.as_deref()
        ),
        (Some("aA"), "x\"y", Some("n/s"))
    );
    assert!(matches!(&escaped[0].arguments, CallArguments::Object(map) if map["k"] == "é"));
}

#[test]
fn text_that_is_not_json_is_an_error_at_its_line_and_column() {
    for provider in Provider::ALL {
        for (text, line, column) in [("{\"content\": [\n  {,", 2, 4), ("{} x", 1, 4), ("", 1, 0)] {
            match read_calls_from_slice(provider, text.as_bytes()) {
                Err(Error::Json {
                    line: l, column: c, ..
                }) => {
                    assert_eq!((l, c), (line, column), "{provider}: {text:?}");
                }
                other => panic!("{provider}: {text:?}: {other:?}"),
            }
        }
    }
}

#[test]
fn calls_run_concurrently_under_two_executors() {
    let toolbox = rich_toolbox();
    for provider in Provider::ALL {
        let tools = ModelTools::new(&toolbox, provider, &ToolListOptions::default()).unwrap();
        let calls = || {
            (0..4)
                .map(|i| call_to(&tools, "slow", json!({}), &format!("s{i}")))
                .collect::<Vec<_>>()
        };
        let cx = CallContext::new();
        // Four calls of 150 ms each: side by side they take about 150 ms.
        let started = Instant::now();
        let outcomes = futures_executor::block_on(run_calls(&toolbox, &tools, calls(), &cx));
        assert!(
            started.elapsed() < Duration::from_millis(450),
            "{:?}",
            started.elapsed()
        );
        assert!(outcomes.iter().all(|o| o.result.text_content() == "slept"));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let started = Instant::now();
        let outcomes = runtime.block_on(run_calls(&toolbox, &tools, calls(), &cx));
        assert!(
            started.elapsed() < Duration::from_millis(450),
            "{:?}",
            started.elapsed()
        );
        let ids: Vec<_> = outcomes.iter().map(|o| o.id.clone().unwrap()).collect();
        assert_eq!(ids, ["s0", "s1", "s2", "s3"]);
    }
}

// ---------------------------------------------------------------------------------------------
// Round trips.

/// A response of `provider` holding `calls` (as `ModelCall::to_json` writes them).
fn response_with(provider: Provider, calls: &[ModelCall]) -> Value {
    let written: Vec<Value> = calls.iter().map(|c| c.to_json(provider)).collect();
    match provider {
        Provider::Anthropic => json!({"role": "assistant", "content": written}),
        Provider::OpenAiChat => {
            json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": written}}]})
        }
        Provider::OpenAiResponses => json!({"output": written}),
        Provider::Gemini => {
            json!({"candidates": [{"content": {"role": "model", "parts": written}}]})
        }
        other => unreachable!("{other}"),
    }
}

fn arguments() -> impl Strategy<Value = Map<String, Value>> {
    proptest::collection::btree_map(
        "[a-z_]{1,8}",
        prop_oneof![
            any::<i64>().prop_map(Value::from),
            "[ -~]{0,12}".prop_map(Value::from),
            any::<bool>().prop_map(Value::from),
            Just(Value::Null),
        ],
        0..4,
    )
    .prop_map(|map| map.into_iter().collect())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn calls_round_trip_through_every_format(
        items in proptest::collection::vec(("[A-Za-z_][A-Za-z0-9_-]{0,20}", "[a-z0-9_]{1,12}", arguments(), proptest::option::of("[A-Za-z0-9+/]{4,16}")), 1..4),
    ) {
        for provider in Provider::ALL {
            let calls: Vec<ModelCall> = items.iter().map(|(name, id, args, signature)| {
                let mut call = ModelCall::new(name.as_str(), CallArguments::Object(args.clone())).with_id(id.as_str());
                if provider == Provider::Gemini {
                    call.thought_signature = signature.clone();
                }
                if provider == Provider::OpenAiResponses && signature.is_some() {
                    call = call.with_namespace("ns");
                }
                call
            }).collect();
            let response = response_with(provider, &calls);
            let read = read_calls(provider, &response).unwrap();
            prop_assert_eq!(read_text(provider, &response.to_string()), Ok(read.clone()));
            let without_pointer: Vec<ModelCall> = read.into_iter().map(|mut c| { c.pointer.clear(); c }).collect();
            prop_assert_eq!(&without_pointer, &calls);
            // And the model turn carrying them is valid in a request.
            for turn in model_turn(provider, &response).unwrap() {
                let (doc, definition) = match provider {
                    Provider::Anthropic => ("anthropic", "MessageParam"),
                    Provider::OpenAiChat => ("openai", "ChatCompletionRequestAssistantMessage"),
                    Provider::OpenAiResponses => ("openai", "FunctionToolCall"),
                    Provider::Gemini => ("gemini", "Content"),
                    other => unreachable!("{other}"),
                };
                check(doc, definition, &turn);
            }
        }
    }

    #[test]
    fn text_results_round_trip_through_every_answer(text in "[ -~]{0,40}", error in any::<bool>()) {
        let mut result = CallToolResult::text(text.clone());
        if error {
            result.is_error = Some(true);
        }
        let toolbox = rich_toolbox();
        for provider in Provider::ALL {
            let tools = ModelTools::new(&toolbox, provider, &ToolListOptions::default()).unwrap();
            let call = call_to(&tools, "list", json!({}), "r1");
            let mut outcome = pollster::block_on(run_calls(&toolbox, &tools, [call], &CallContext::new())).remove(0);
            outcome.result = result.clone();
            let message = answer(provider, std::slice::from_ref(&outcome)).to_values();
            // Read back as each provider's documentation says the model sees it.
            let (back, back_error) = match provider {
                Provider::Anthropic => {
                    let block = &message[0]["content"][0];
                    (block["content"][0]["text"].as_str().unwrap().to_owned(), block.get("is_error") == Some(&json!(true)))
                }
                Provider::OpenAiChat => {
                    let content = message[0]["content"].as_str().unwrap();
                    (content.strip_prefix("Error: ").unwrap_or(content).to_owned(), content.starts_with("Error: ") && error)
                }
                Provider::OpenAiResponses => {
                    let output = message[0]["output"].as_str().unwrap();
                    (output.strip_prefix("Error: ").unwrap_or(output).to_owned(), output.starts_with("Error: ") && error)
                }
                Provider::Gemini => {
                    let response = &message[0]["parts"][0]["functionResponse"]["response"];
                    match response.get("error") {
                        Some(e) => (e.as_str().unwrap().to_owned(), true),
                        None => (response["output"].as_str().unwrap().to_owned(), false),
                    }
                }
                other => unreachable!("{other}"),
            };
            prop_assert_eq!(&back, &text);
            prop_assert_eq!(back_error, error);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// 5. The example: a whole loop per provider, every request body validated.

#[test]
fn the_agent_loop_example_sends_valid_requests_for_every_provider() {
    let dir = std::env::temp_dir().join(format!("toolmodel-agent-loop-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_example-agent-loop"))
        .arg("--dump")
        .arg(&dir)
        .output()
        .expect("the example runs");
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    for provider in Provider::ALL {
        assert!(stdout.contains(&format!("== {provider}")), "{stdout}");
        let (doc, definition) = request_definition(provider);
        let mut bodies = Vec::new();
        for n in 0..2 {
            let path = dir.join(provider.as_str()).join(format!("{n}.json"));
            let body: Value =
                serde_json::from_slice(&std::fs::read(&path).expect("dumped")).unwrap();
            check(doc, definition, &body);
            bodies.push(body);
        }
        assert!(!dir.join(provider.as_str()).join("2.json").exists());
        // The second request holds the model's calls and one answer per call.
        let list = &bodies[1][provider.conversation_key()];
        let text = list.to_string();
        assert!(text.contains("21 degrees Celsius"), "{provider}: {text}");
        assert!(
            text.contains("modelcontextprotocol.io/specification/2025-11-25/server/tools"),
            "{provider}"
        );
        if provider == Provider::Gemini {
            assert!(
                text.contains(
                    "\"thoughtSignature\":\"CiQBVKhc7nXzBfGZxkEtQqkNcRgQ1x3k0Pa8S5wsZmXG0D2vbWk=\""
                ),
                "{text}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_agent_loop_example_calls_an_mcp_servers_tool_beside_the_local_ones() {
    // The example itself skips with a notice when mcp-server-time is not installed (and fails
    // under CI, where serve/install_upstreams.sh ran first).
    let output = std::process::Command::new(env!("CARGO_BIN_EXE_example-agent-loop-mcp"))
        .output()
        .expect("the example runs");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stderr}");
    if stderr.contains("notice: skipped") {
        eprintln!("{stderr}");
        return;
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    // The model sees the local tools and the server's under the names the toolbox serves
    // them by (the gateway's too): the server's tools keep theirs, no warning about names.
    let (listed, rest) = stdout.split_once('\n').expect("lines");
    assert_eq!(
        listed,
        "== openai-chat, tools: convert_time, docs_search_docs, get_current_time, ping, weather_get_weather",
        "{stdout}"
    );
    assert!(!stderr.contains("sent as"), "{stderr}");
    // One call of each kind answered, in the model's order, then the final answer.
    let (local, rest) = rest.split_once("\nconvert_time -> ").expect("{stdout}");
    assert_eq!(
        local, "weather_get_weather -> Paris in 0 days: 21 degrees Celsius",
        "{stdout}"
    );
    let (remote, last) = rest.split_once("\nfinal answer: ").expect("{stdout}");
    let remote: Value = serde_json::from_str(remote).expect("mcp-server-time's JSON");
    assert!(
        remote["target"]["datetime"]
            .as_str()
            .is_some_and(|time| time.ends_with("T18:00:00+09:00")),
        "{remote}"
    );
    assert!(last.contains("18:00 in Tokyo"), "{stdout}");
}

#[test]
fn extend_request_refuses_bodies_it_cannot_extend() {
    let response = json!({"content": []});
    let err = extend_request(Provider::Anthropic, &mut json!([]), &response, &[]).unwrap_err();
    assert!(matches!(err, Error::Json { path, .. } if path.is_empty()));
    let err = extend_request(
        Provider::Anthropic,
        &mut json!({"messages": "hi"}),
        &response,
        &[],
    )
    .unwrap_err();
    assert!(matches!(err, Error::Json { path, .. } if path == "/messages"));
    let mut body = json!({"input": "hi"});
    extend_request(
        Provider::OpenAiResponses,
        &mut body,
        &json!({"output": []}),
        &[],
    )
    .unwrap();
    assert_eq!(body["input"], json!([{"role": "user", "content": "hi"}]));
}
