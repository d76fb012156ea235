//! Tool search in `toolmodel::model_calls` ([`ToolSearch`]): for each provider, a model loop
//! over recorded responses that defer tools and search them (Anthropic `tool_reference`, its
//! server search's blocks; OpenAI Responses `tool_search_call` / `tool_search_output`; the
//! `search_tools` / `call_tool` pair of OpenAI Chat and Gemini), every request body checked
//! against the provider's published types as `tests/tests/model_calls.rs` checks them
//! (`tests/data/providers/`, and `tests/data/tool_search/` for the tool search types:
//! see its README); and the rules of reading, writing and running, one by one.

use std::{path::PathBuf, sync::OnceLock};

use serde_json::{Map, Value, json};
use toolmodel::adapters::ConvertOptions;
use toolmodel::model_calls::{
    AnthropicSearch, CallArguments, CallKind, ModelCall, ModelTools, Provider, ToolListOptions,
    ToolOutcome, ToolSearch, answer, extend_request, model_turn, read_calls, read_calls_from_slice,
    read_server_searches, run_calls,
};
use toolmodel::{CallContext, CallToolResult, Error, Tool, ToolSchema, Toolbox};

// ---------------------------------------------------------------------------------------------
// The providers' types.

/// The JSON file at `path` under the crate.
fn read_json(path: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(path);
    let text =
        std::fs::read_to_string(&path).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    serde_json::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()))
}

/// A schema document: `anthropic` (the SDK's types of `tests/data/providers/`, the tool
/// search types merged in), `openai` (OpenAI's OpenAPI document), `gemini`, or
/// `openai-python` (the openai-python tool search types).
fn document(name: &str) -> &'static Value {
    static DOCS: OnceLock<Vec<(&'static str, Value)>> = OnceLock::new();
    let docs = DOCS.get_or_init(|| {
        let mut anthropic = read_json("data/providers/anthropic.schema.json");
        let search = read_json("data/tool_search/anthropic.schema.json");
        for (key, def) in search["$defs"].as_object().expect("$defs") {
            anthropic["$defs"][key] = def.clone();
        }
        for (path, value) in search["patch"].as_object().expect("patch") {
            *anthropic
                .pointer_mut(&format!("/$defs/{path}"))
                .unwrap_or_else(|| panic!("no {path}")) = value.clone();
        }
        vec![
            ("anthropic", anthropic),
            ("openai", read_json("data/providers/openai.schema.json")),
            ("gemini", read_json("data/providers/gemini.schema.json")),
            (
                "openai-python",
                read_json("data/tool_search/openai.schema.json"),
            ),
        ]
    });
    &docs
        .iter()
        .find(|(n, _)| *n == name)
        .expect("a known document")
        .1
}

/// The errors of `value` against `#/$defs/<definition>` of a document.
fn errors(doc: &str, definition: &str, value: &Value) -> Vec<String> {
    let mut schema = document(doc).clone();
    assert!(
        schema["$defs"].get(definition).is_some(),
        "{doc} has no {definition}"
    );
    schema["$ref"] = json!(format!("#/$defs/{definition}"));
    let validator = jsonschema::validator_for(&schema).expect("the schema compiles");
    validator
        .iter_errors(value)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect()
}

/// Checks `value` against `#/$defs/<definition>` of a document; panics naming every error.
fn check(doc: &str, definition: &str, value: &Value) {
    let errors = errors(doc, definition, value);
    assert!(
        errors.is_empty(),
        "{doc} {definition}: {errors:#?}\n{}",
        serde_json::to_string_pretty(value).unwrap()
    );
}

/// A whole request body of `provider`, checked.
fn check_request(provider: Provider, body: &Value) {
    match provider {
        Provider::Anthropic => check("anthropic", "MessageCreateParams", body),
        Provider::OpenAiChat => check("openai", "CreateChatCompletionRequest", body),
        Provider::OpenAiResponses => {
            check("openai", "CreateResponse", body);
            for tool in body["tools"].as_array().expect("tools") {
                check("openai-python", "ToolParam", tool);
            }
            for item in body["input"].as_array().into_iter().flatten() {
                if item["type"] == "tool_search_output" {
                    check("openai-python", "ResponseToolSearchOutputItemParam", item);
                }
            }
        }
        Provider::Gemini => check("gemini", "GenerateContentRequest", body),
        other => unreachable!("{other}"),
    }
}

#[test]
fn the_transcriptions_catch_what_they_should() {
    let bad = [
        // A `tool_reference` without its name; a search tool with a name of another type.
        (
            "anthropic",
            "ToolResultBlockParam",
            json!({"type": "tool_result", "tool_use_id": "t", "content": [{"type": "tool_reference"}]}),
        ),
        (
            "anthropic",
            "ToolUnionParam",
            json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_regex"}),
        ),
        (
            "anthropic",
            "MessageParam",
            json!({"role": "assistant", "content": [{"type": "tool_search_tool_result",
                "tool_use_id": "s", "content": {"type": "tool_search_tool_search_result"}}]}),
        ),
        (
            "anthropic",
            "MessageParam",
            json!({"role": "assistant", "content": [{"type": "server_tool_use", "id": "s",
                "name": "search", "input": {}}]}),
        ),
        // `execution` of a kind OpenAI has not; a namespace's function with an unknown key.
        (
            "openai-python",
            "ToolParam",
            json!({"type": "tool_search", "execution": "remote"}),
        ),
        (
            "openai-python",
            "ToolParam",
            json!({"type": "namespace", "name": "n", "description": "d",
                "tools": [{"type": "function", "name": "f", "deferred": true}]}),
        ),
        (
            "openai-python",
            "ResponseToolSearchCall",
            json!({"type": "tool_search_call", "id": "i", "arguments": {}, "status": "completed"}),
        ),
        (
            "openai",
            "CreateResponse",
            json!({"model": "m", "input": [{"type": "tool_search_output"}]}),
        ),
    ];
    for (doc, definition, value) in bad {
        assert!(
            !errors(doc, definition, &value).is_empty(),
            "{doc} {definition} accepts {value}"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// The catalog.

/// A catalog of ten tools: `read_file` (pinned in the loops), two in the `weather` namespace,
/// two of a gateway's GitHub server flattened as `github__*` (no namespace), five flat ones.
/// Each answers `<its MCP name> <its arguments>`.
fn catalog() -> Toolbox {
    let tools: [(&str, Option<&str>, &str, Value); 10] = [
        (
            "read_file",
            None,
            "Read a text file from the workspace.",
            json!({"path": {"type": "string"}}),
        ),
        (
            "get_forecast",
            Some("weather"),
            "Weather forecast for a city, up to 7 days ahead.",
            json!({"city": {"type": "string"}, "days": {"type": "integer", "minimum": 0, "maximum": 7}}),
        ),
        (
            "get_alerts",
            Some("weather"),
            "Severe weather alerts for a region.",
            json!({"region": {"type": "string"}}),
        ),
        (
            "github__create_issue",
            None,
            "Open a new issue in a GitHub repository.",
            json!({"repo": {"type": "string"}, "title": {"type": "string"}, "body": {"type": "string"}}),
        ),
        (
            "github__list_pull_requests",
            None,
            "List the open pull requests of a GitHub repository.",
            json!({"repo": {"type": "string"}}),
        ),
        (
            "send_email",
            None,
            "Send an email message to a recipient.",
            json!({"to": {"type": "string"}, "subject": {"type": "string"}, "body": {"type": "string"}}),
        ),
        (
            "calendar_create_event",
            None,
            "Create an event in the user's calendar.",
            json!({"title": {"type": "string"}, "start": {"type": "string"}}),
        ),
        (
            "translate_text",
            None,
            "Translate text between languages.",
            json!({"text": {"type": "string"}, "target": {"type": "string"}}),
        ),
        (
            "stock_quote",
            None,
            "Latest stock price for a ticker symbol.",
            json!({"symbol": {"type": "string"}}),
        ),
        (
            "convert_currency",
            None,
            "Convert an amount of money between currencies.",
            json!({"amount": {"type": "number"}, "from": {"type": "string"}, "to": {"type": "string"}}),
        ),
    ];
    let mut builder = Toolbox::builder();
    for (name, namespace, description, properties) in tools {
        let schema = ToolSchema::try_from(json!({"type": "object", "properties": properties}))
            .expect("a schema");
        let mut tool = Tool::new(name, schema);
        tool.namespace = namespace.map(str::to_owned);
        tool.description = Some(description.to_owned());
        let served = match namespace {
            Some(ns) => format!("{ns}.{name}"),
            None => name.to_owned(),
        };
        builder = builder.with_tool(tool, move |args, _cx| {
            let text = format!("{served} {}", Value::Object(args));
            async move { Ok(CallToolResult::text(text)) }
        });
    }
    builder.build().expect("the catalog builds")
}

/// Search on, `read_file` pinned.
fn searching() -> ToolListOptions {
    ToolListOptions::default().with_search(ToolSearch::default().with_pinned(["read_file"]))
}

/// A recorded response.
fn recorded(name: &str) -> Value {
    read_json(&format!("data/tool_search/{name}.response.json"))
}

/// The first request body of a loop: the tools and the user's question.
fn first_request(provider: Provider, tools: &ModelTools, question: &str) -> Value {
    match provider {
        Provider::Anthropic => json!({"model": "claude-sonnet-4-5", "max_tokens": 1024,
            "tools": tools.to_value(), "messages": [{"role": "user", "content": question}]}),
        Provider::OpenAiChat => json!({"model": "gpt-4.1", "tools": tools.to_value(),
            "messages": [{"role": "user", "content": question}]}),
        Provider::OpenAiResponses => {
            json!({"model": "gpt-5.4", "tools": tools.to_value(), "input": question})
        }
        Provider::Gemini => json!({"model": "models/gemini-2.5-pro", "tools": tools.to_value(),
            "contents": [{"role": "user", "parts": [{"text": question}]}]}),
        other => unreachable!("{other}"),
    }
}

/// One turn of a loop: the calls of `response`, run, and the next body.
fn turn(
    toolbox: &Toolbox,
    tools: &ModelTools,
    body: &mut Value,
    response: &Value,
) -> Vec<ToolOutcome> {
    let provider = tools.provider();
    let calls = read_calls(provider, response).unwrap();
    let text = read_calls_from_slice(provider, response.to_string().as_bytes()).unwrap();
    assert_eq!(
        text, calls,
        "{provider}: read from the text as from the value"
    );
    let outcomes = pollster::block_on(run_calls(toolbox, tools, calls, &CallContext::new()));
    extend_request(provider, body, response, &outcomes).unwrap();
    check_request(provider, body);
    outcomes
}

/// The names `found` holds.
fn found(outcome: &ToolOutcome) -> Vec<&str> {
    outcome
        .found
        .as_ref()
        .expect("a search ran")
        .iter()
        .map(|hit| hit.tool.as_str())
        .collect()
}

// ---------------------------------------------------------------------------------------------
// The loops.

#[test]
fn anthropic_defers_and_its_client_search_loads_tools_by_tool_reference() {
    let toolbox = catalog();
    let tools = ModelTools::new(&toolbox, Provider::Anthropic, &searching()).unwrap();
    let listed = tools.tools();
    // Every tool but the pinned one deferred; the search tool last, not deferred.
    for tool in listed {
        let name = tool["name"].as_str().unwrap();
        let deferred = tool.get("defer_loading") == Some(&json!(true));
        assert_eq!(
            deferred,
            !matches!(name, "read_file" | "search_tools"),
            "{name}"
        );
    }
    assert_eq!(listed.last().unwrap()["name"], "search_tools");
    assert!(tools.warnings().is_empty(), "{:?}", tools.warnings());
    let mut body = first_request(Provider::Anthropic, &tools, "Will it rain in Paris soon?");
    check_request(Provider::Anthropic, &body);

    let outcomes = turn(&toolbox, &tools, &mut body, &recorded("anthropic_client_1"));
    assert_eq!(outcomes.len(), 1);
    assert_eq!(found(&outcomes[0]).first(), Some(&"weather.get_forecast"));
    assert!(
        !found(&outcomes[0]).contains(&"read_file"),
        "pinned tools are never found"
    );
    // The answer: one `tool_reference` per tool found, by its Anthropic name.
    let result = &body["messages"][2]["content"][0];
    assert_eq!(result["tool_use_id"], "toolu_01A9c3Pq7LmZ2xKd5RtYv8Hw");
    assert_eq!(
        result["content"][0],
        json!({"type": "tool_reference", "tool_name": "weather_get_forecast"})
    );
    assert_eq!(
        result["content"].as_array().unwrap().len(),
        found(&outcomes[0]).len()
    );

    let outcomes = turn(&toolbox, &tools, &mut body, &recorded("anthropic_client_2"));
    assert_eq!(outcomes[0].tool.as_deref(), Some("weather.get_forecast"));
    assert_eq!(
        outcomes[0].result.text_content(),
        r#"weather.get_forecast {"city":"Paris","days":3}"#
    );
    assert_eq!(body["messages"].as_array().unwrap().len(), 5);
}

#[test]
fn anthropic_server_search_blocks_are_read_back_not_run_and_kept() {
    let toolbox = catalog();
    for (variant, kind, name) in [
        (
            AnthropicSearch::Bm25,
            "tool_search_tool_bm25_20251119",
            "tool_search_tool_bm25",
        ),
        (
            AnthropicSearch::Regex,
            "tool_search_tool_regex_20251119",
            "tool_search_tool_regex",
        ),
    ] {
        let options = ToolListOptions::default().with_search(
            ToolSearch::default()
                .with_pinned(["read_file"])
                .with_anthropic(variant),
        );
        let tools = ModelTools::new(&toolbox, Provider::Anthropic, &options).unwrap();
        assert_eq!(
            tools.tools().last(),
            Some(&json!({"type": kind, "name": name}))
        );
        assert!(
            tools
                .tools()
                .iter()
                .all(|tool| tool["name"] != "search_tools"),
            "no client search beside the server's"
        );
        let body = first_request(Provider::Anthropic, &tools, "File an issue for the docs.");
        check_request(Provider::Anthropic, &body);
    }

    let options = ToolListOptions::default().with_search(
        ToolSearch::default()
            .with_pinned(["read_file"])
            .with_anthropic(AnthropicSearch::Bm25),
    );
    let tools = ModelTools::new(&toolbox, Provider::Anthropic, &options).unwrap();
    let mut body = first_request(Provider::Anthropic, &tools, "File an issue for the docs.");
    let response = recorded("anthropic_server_bm25");
    for block in response["content"].as_array().unwrap() {
        match block["type"].as_str() {
            Some("server_tool_use") => check("anthropic", "ServerToolUseBlock", block),
            Some("tool_search_tool_result") => {
                check("anthropic", "ToolSearchToolResultBlock", block);
            }
            _ => {}
        }
    }
    // What Anthropic's search found, read back and routed to MCP names.
    let searches = read_server_searches(Provider::Anthropic, &response).unwrap();
    assert_eq!(searches.len(), 1);
    assert_eq!(
        searches[0].id.as_deref(),
        Some("srvtoolu_01Gk8Wm2Rt5Xz3Nc7Qv4Lp9B")
    );
    assert_eq!(
        searches[0].arguments,
        json!({"query": "create github issue"})
    );
    assert_eq!(searches[0].pointer, "/content/1");
    let routed: Vec<Option<&str>> = searches[0]
        .tools
        .iter()
        .map(|(ns, name)| tools.mcp_name(ns.as_deref(), name))
        .collect();
    assert_eq!(
        routed,
        [
            Some("github__create_issue"),
            Some("github__list_pull_requests")
        ]
    );
    let outcomes = turn(&toolbox, &tools, &mut body, &response);
    // Only the `tool_use` is run: the server's search is Anthropic's.
    assert_eq!(outcomes.len(), 1);
    assert_eq!(outcomes[0].tool.as_deref(), Some("github__create_issue"));
    assert_eq!(outcomes[0].found, None);
    // The turn repeats the server's blocks as they came.
    assert_eq!(body["messages"][1]["content"], response["content"]);
    assert_eq!(
        body["messages"][2]["content"][0]["tool_use_id"],
        "toolu_01Rz4Yb9Mc2Kw7Tq5Nx3Vs8H"
    );
}

#[test]
fn openai_responses_searches_with_tool_search_call_and_loads_namespaces() {
    let toolbox = catalog();
    let tools = ModelTools::new(&toolbox, Provider::OpenAiResponses, &searching()).unwrap();
    let listed = tools.tools();
    // Namespaces: `weather` (the tools' own) and `github` (the gateway's `github__` prefix);
    // every function in them deferred; the pinned `read_file` flat and loaded.
    let namespace = |name: &str| {
        listed
            .iter()
            .find(|tool| tool["type"] == "namespace" && tool["name"] == name)
            .unwrap_or_else(|| panic!("no namespace {name}"))
    };
    let names = |ns: &str| -> Vec<Value> {
        let functions = namespace(ns)["tools"].as_array().unwrap().iter();
        functions.map(|function| function["name"].clone()).collect()
    };
    assert_eq!(names("weather"), ["get_alerts", "get_forecast"]);
    assert_eq!(names("github"), ["create_issue", "list_pull_requests"]);
    for ns in ["weather", "github"] {
        for function in namespace(ns)["tools"].as_array().unwrap() {
            assert_eq!(function["defer_loading"], true, "{ns}: {function}");
        }
    }
    let read_file = listed
        .iter()
        .find(|tool| tool["name"] == "read_file")
        .unwrap();
    assert_eq!(read_file.get("defer_loading"), None);
    assert_eq!(
        listed
            .last()
            .map(|tool| (&tool["type"], &tool["execution"])),
        Some((&json!("tool_search"), &json!("client")))
    );
    assert_eq!(
        tools.mcp_name(Some("github"), "create_issue"),
        Some("github__create_issue")
    );
    let mut body = first_request(
        Provider::OpenAiResponses,
        &tools,
        "File an issue for the docs.",
    );
    check_request(Provider::OpenAiResponses, &body);

    let response = recorded("openai_responses_1");
    check(
        "openai-python",
        "ResponseToolSearchCall",
        &response["output"][1],
    );
    let outcomes = turn(&toolbox, &tools, &mut body, &response);
    assert_eq!(outcomes.len(), 1);
    assert_eq!(outcomes[0].kind, CallKind::ToolSearch);
    assert_eq!(found(&outcomes[0]).first(), Some(&"github__create_issue"));
    // The answer: a `tool_search_output` with the found functions in their namespace, as the
    // request's `tools` holds them.
    let output = body["input"].as_array().unwrap().last().unwrap().clone();
    assert_eq!(output["type"], "tool_search_output");
    assert_eq!(output["call_id"], "call_Tq8vZ2mK4xR7nB1c");
    assert_eq!(output["execution"], "client");
    assert_eq!(output["tools"][0]["type"], "namespace");
    assert_eq!(output["tools"][0]["name"], "github");
    assert_eq!(
        output["tools"][0]["tools"][0],
        namespace("github")["tools"][0]
    );

    let response = recorded("openai_responses_2");
    check(
        "openai-python",
        "ResponseFunctionToolCall",
        &response["output"][0],
    );
    let outcomes = turn(&toolbox, &tools, &mut body, &response);
    // `function_call.namespace` routes the call.
    assert_eq!(outcomes[0].namespace.as_deref(), Some("github"));
    assert_eq!(outcomes[0].tool.as_deref(), Some("github__create_issue"));
    assert!(!outcomes[0].result.is_error(), "{:?}", outcomes[0].result);
    let last = body["input"].as_array().unwrap().last().unwrap();
    assert_eq!(last["type"], "function_call_output");
}

#[test]
fn openai_chat_and_gemini_search_with_search_tools_and_call_with_call_tool() {
    let toolbox = catalog();
    for (provider, first, second, expected, called) in [
        (
            Provider::OpenAiChat,
            "openai_chat_1",
            "openai_chat_2",
            "weather.get_forecast",
            r#"weather.get_forecast {"city":"Paris","days":3}"#,
        ),
        (
            Provider::Gemini,
            "gemini_1",
            "gemini_2",
            "convert_currency",
            r#"convert_currency {"amount":100,"from":"EUR","to":"USD"}"#,
        ),
    ] {
        let tools = ModelTools::new(&toolbox, provider, &searching()).unwrap();
        assert!(
            tools.warnings().is_empty(),
            "{provider}: {:?}",
            tools.warnings()
        );
        // Only the pinned tool and the two functions are sent.
        let sent: Vec<&str> = match provider {
            Provider::Gemini => tools.tools()[0]["functionDeclarations"]
                .as_array()
                .unwrap()
                .iter()
                .map(|f| f["name"].as_str().unwrap())
                .collect(),
            _ => tools
                .tools()
                .iter()
                .map(|f| f["function"]["name"].as_str().unwrap())
                .collect(),
        };
        assert_eq!(
            sent,
            ["read_file", "search_tools", "call_tool"],
            "{provider}"
        );
        assert!(tools.is_deferred("weather.get_forecast"), "{provider}");
        assert!(!tools.is_deferred("read_file"), "{provider}");
        if provider == Provider::Gemini {
            // Gemini's API answers 400 to an OBJECT without properties in `parameters`:
            // `call_tool` takes its arguments as a JSON string there.
            let call_tool = &tools.tools()[0]["functionDeclarations"][2];
            assert_eq!(
                call_tool["parameters"]["properties"]["arguments"]["type"], "STRING",
                "{call_tool}"
            );
            let json_schema =
                searching().with_convert(ConvertOptions::default().with_gemini_json_schema(true));
            let tools = ModelTools::new(&toolbox, provider, &json_schema).unwrap();
            let call_tool = &tools.tools()[0]["functionDeclarations"][2];
            assert_eq!(
                call_tool["parametersJsonSchema"]["properties"]["arguments"]["type"], "object",
                "{call_tool}"
            );
        }
        let mut body = first_request(provider, &tools, "Help me.");
        check_request(provider, &body);

        let outcomes = turn(&toolbox, &tools, &mut body, &recorded(first));
        assert_eq!(found(&outcomes[0]).first(), Some(&expected), "{provider}");
        // The result: the found tools as `tools/list` lists them (FastMCP's JSON).
        let listed: Value = serde_json::from_str(&outcomes[0].result.text_content()).unwrap();
        assert_eq!(listed[0]["name"], expected, "{provider}");
        assert!(listed[0]["inputSchema"].is_object(), "{provider}");
        assert_eq!(
            listed.as_array().map(Vec::len),
            Some(found(&outcomes[0]).len())
        );

        let outcomes = turn(&toolbox, &tools, &mut body, &recorded(second));
        assert_eq!(
            outcomes[0].name, "call_tool",
            "{provider}: answered as called"
        );
        assert_eq!(outcomes[0].tool.as_deref(), Some(expected), "{provider}");
        assert_eq!(outcomes[0].result.text_content(), called, "{provider}");
    }
}

// ---------------------------------------------------------------------------------------------
// The rules, one by one.

#[test]
fn no_search_at_or_below_the_threshold() {
    let toolbox = catalog();
    let options = ToolListOptions::default().with_search(ToolSearch::default().with_threshold(10));
    for provider in Provider::ALL {
        let plain = ModelTools::new(&toolbox, provider, &ToolListOptions::default()).unwrap();
        let tools = ModelTools::new(&toolbox, provider, &options).unwrap();
        assert_eq!(tools.tools(), plain.tools(), "{provider}");
        assert!(tools.search().is_none(), "{provider}");
    }
    // One more tool than the threshold: on.
    let options = ToolListOptions::default().with_search(ToolSearch::default().with_threshold(9));
    let tools = ModelTools::new(&toolbox, Provider::Anthropic, &options).unwrap();
    assert_eq!(tools.search().map(|search| search.threshold), Some(9));
    // Every tool pinned: nothing to search.
    let all: Vec<String> = toolbox
        .tools()
        .iter()
        .map(|tool| tool.name.clone())
        .collect();
    let options = ToolListOptions::default().with_search(ToolSearch::default().with_pinned(all));
    let tools = ModelTools::new(&toolbox, Provider::Anthropic, &options).unwrap();
    assert!(tools.search().is_none());
}

#[test]
fn search_decides_what_is_deferred_over_defer_loading() {
    let toolbox = catalog();
    let options = searching().with_defer_loading(true);
    let tools = ModelTools::new(&toolbox, Provider::Anthropic, &options).unwrap();
    assert!(!tools.is_deferred("read_file"));
    assert!(tools.is_deferred("send_email"));
    assert!(!tools.is_deferred("no_such_tool"));
    // Without search, `defer_loading` defers every tool, as before.
    let options = ToolListOptions::default().with_defer_loading(true);
    let tools = ModelTools::new(&toolbox, Provider::Anthropic, &options).unwrap();
    assert!(tools.is_deferred("read_file"));
}

#[test]
fn a_pinned_name_no_tool_has_is_an_error_with_the_nearest() {
    let toolbox = catalog();
    let options =
        ToolListOptions::default().with_search(ToolSearch::default().with_pinned(["read_files"]));
    match ModelTools::new(&toolbox, Provider::OpenAiChat, &options) {
        Err(Error::UnknownTool { name, nearest }) => {
            assert_eq!(name, "read_files");
            assert_eq!(nearest.as_deref(), Some("read_file"));
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_pinned_typo_is_an_error_below_the_threshold_too() {
    let toolbox = catalog();
    let options = ToolListOptions::default().with_search(
        ToolSearch::default()
            .with_pinned(["send_mail"])
            .with_threshold(100),
    );
    assert!(matches!(
        ModelTools::new(&toolbox, Provider::Anthropic, &options),
        Err(Error::UnknownTool { nearest: Some(near), .. }) if near == "send_email"
    ));
}

#[test]
fn a_tool_not_sent_is_neither_converted_into_warnings_nor_errors() {
    // A free-form object cannot be strict, nor does Gemini's schema take its `title`.
    let mut tool = Tool::new(
        "free_form",
        ToolSchema::try_from(json!({"type": "object", "properties": {"meta": {"type": "object"}}}))
            .unwrap(),
    );
    tool.title = Some("Free form".into());
    let toolbox = Toolbox::builder()
        .with_tool(tool, |_, _| async { Ok(CallToolResult::text("ok")) })
        .with_tool(
            Tool::new("plain", ToolSchema::empty_object()),
            |_, _| async { Ok(CallToolResult::text("ok")) },
        )
        .build()
        .unwrap();
    let strict = ToolListOptions::default()
        .with_convert(toolmodel::adapters::ConvertOptions::default().with_strict(true));
    assert!(matches!(
        ModelTools::new(&toolbox, Provider::OpenAiChat, &strict),
        Err(Error::ToolList { tool, .. }) if tool == "free_form"
    ));
    let search = strict.with_search(ToolSearch::default().with_pinned(["plain"]));
    let tools = ModelTools::new(&toolbox, Provider::OpenAiChat, &search).unwrap();
    assert!(tools.is_deferred("free_form"));
    assert_eq!(tools.provider_name("free_form"), Some((None, "free_form")));
    let gemini = ModelTools::new(&toolbox, Provider::Gemini, &ToolListOptions::default()).unwrap();
    assert!(gemini.warnings().iter().any(|w| w.tool == "free_form"));
    let options =
        ToolListOptions::default().with_search(ToolSearch::default().with_pinned(["plain"]));
    let gemini = ModelTools::new(&toolbox, Provider::Gemini, &options).unwrap();
    assert!(gemini.warnings().is_empty(), "{:?}", gemini.warnings());
}

#[test]
fn a_tool_named_as_the_search_is_refused() {
    let handler = |_args, _cx| async { Ok(CallToolResult::text("mine")) };
    for (name, provider, search) in [
        ("search_tools", Provider::OpenAiChat, ToolSearch::default()),
        ("call_tool", Provider::Gemini, ToolSearch::default()),
        ("search_tools", Provider::Anthropic, ToolSearch::default()),
        (
            "tool_search_tool_regex",
            Provider::Anthropic,
            ToolSearch::default().with_anthropic(AnthropicSearch::Regex),
        ),
    ] {
        let toolbox = Toolbox::builder()
            .with_tool(Tool::new(name, ToolSchema::empty_object()), handler)
            .with_tool(Tool::new("other", ToolSchema::empty_object()), handler)
            .build()
            .unwrap();
        let options = ToolListOptions::default().with_search(search);
        match ModelTools::new(&toolbox, provider, &options) {
            Err(Error::ToolList { tool, source, .. }) => {
                assert_eq!(tool, name);
                assert!(
                    matches!(*source, Error::DuplicateTool { name: ref n, .. } if n == name),
                    "{source:?}"
                );
            }
            other => panic!("{provider} {name}: {other:?}"),
        }
    }
    // The names are free when the provider does not take them: OpenAI Responses' search is
    // a tool type, and Anthropic's server search adds no `search_tools`.
    let toolbox = Toolbox::builder()
        .with_tool(
            Tool::new("search_tools", ToolSchema::empty_object()),
            handler,
        )
        .build()
        .unwrap();
    let options = ToolListOptions::default().with_search(ToolSearch::default());
    ModelTools::new(&toolbox, Provider::OpenAiResponses, &options).unwrap();
    let options = ToolListOptions::default()
        .with_search(ToolSearch::default().with_anthropic(AnthropicSearch::Bm25));
    let tools = ModelTools::new(&toolbox, Provider::Anthropic, &options).unwrap();
    // And a call to that tool runs the tool, not a search.
    let call = ModelCall::new("search_tools", CallArguments::Object(Map::new())).with_id("t");
    let outcomes = pollster::block_on(run_calls(&toolbox, &tools, [call], &CallContext::new()));
    assert_eq!(outcomes[0].result.text_content(), "mine");
    assert_eq!(outcomes[0].found, None);
}

#[test]
fn the_gateway_prefix_makes_a_namespace_only_with_search() {
    let toolbox = catalog();
    let plain = ModelTools::new(
        &toolbox,
        Provider::OpenAiResponses,
        &ToolListOptions::default(),
    )
    .unwrap();
    assert_eq!(
        plain.provider_name("github__create_issue"),
        Some((None, "github__create_issue"))
    );
    let tools = ModelTools::new(&toolbox, Provider::OpenAiResponses, &searching()).unwrap();
    assert_eq!(
        tools.provider_name("github__create_issue"),
        Some((Some("github"), "create_issue"))
    );
    // A tool's own namespace wins, with search or without.
    assert_eq!(
        tools.provider_name("weather.get_forecast"),
        Some((Some("weather"), "get_forecast"))
    );
}

#[test]
fn responses_tool_search_calls_are_read_written_and_answered() {
    let response = json!({"output": [
        {"type": "tool_search_call", "id": "tsc_1", "execution": "server", "call_id": null,
         "status": "completed", "arguments": {"query": "x"}},
        {"type": "tool_search_output", "id": "tso_1", "execution": "server", "status": "completed",
         "tools": []},
        {"type": "tool_search_call", "id": "tsc_2", "execution": "client", "call_id": "call_2",
         "status": "completed", "arguments": {"query": "weather"}},
    ]});
    // The server's search is skipped; the client's is a call of its own kind.
    let calls = read_calls(Provider::OpenAiResponses, &response).unwrap();
    assert_eq!(calls.len(), 1);
    assert_eq!(calls[0].kind, CallKind::ToolSearch);
    assert_eq!(calls[0].name, "tool_search");
    assert_eq!(calls[0].id.as_deref(), Some("call_2"));
    assert_eq!(calls[0].pointer, "/output/2");
    assert_eq!(
        read_calls_from_slice(Provider::OpenAiResponses, response.to_string().as_bytes()).unwrap(),
        calls
    );
    // Written back as it came (but for the item's own ID).
    let written = calls[0].to_json(Provider::OpenAiResponses);
    assert_eq!(
        written,
        json!({"type": "tool_search_call", "call_id": "call_2", "execution": "client",
            "arguments": {"query": "weather"}, "status": "completed"})
    );
    assert_eq!(
        read_calls(Provider::OpenAiResponses, &json!([written])).unwrap()[0].arguments,
        calls[0].arguments
    );
    // A client search without its `call_id` cannot be answered: a shape error.
    let missing = json!({"output": [{"type": "tool_search_call", "execution": "client",
        "arguments": {}}]});
    match read_calls(Provider::OpenAiResponses, &missing) {
        Err(Error::Json { path, .. }) => assert_eq!(path, "/output/0"),
        other => panic!("{other:?}"),
    }
    // The model turn keeps every item.
    assert_eq!(
        model_turn(Provider::OpenAiResponses, &response).unwrap(),
        response["output"].as_array().unwrap().clone()
    );
}

#[test]
fn a_failed_search_is_answered_in_the_providers_shape() {
    let toolbox = catalog();
    for provider in [
        Provider::Anthropic,
        Provider::OpenAiResponses,
        Provider::OpenAiChat,
    ] {
        let tools = ModelTools::new(&toolbox, provider, &searching()).unwrap();
        let (name, kind) = match provider {
            Provider::OpenAiResponses => ("tool_search", CallKind::ToolSearch),
            _ => ("search_tools", CallKind::Function),
        };
        let call = |arguments: Value| {
            ModelCall::new(name, CallArguments::from_value(Some(&arguments)))
                .with_id("c")
                .with_kind(kind)
        };
        let calls = [
            call(json!({"query": "   "})),
            call(json!({"q": "weather"})),
            call(json!({"query": "zzzz qqqq"})),
        ];
        let outcomes = pollster::block_on(run_calls(&toolbox, &tools, calls, &CallContext::new()));
        // An empty query: the search's error, for the host too.
        assert!(outcomes[0].result.is_error(), "{provider}");
        assert!(outcomes[0].error.is_some(), "{provider}");
        assert_eq!(outcomes[0].found, None, "{provider}");
        // No `query`: invalid arguments.
        assert!(
            outcomes[1]
                .result
                .text_content()
                .starts_with(&format!("invalid arguments for tool {name:?}")),
            "{provider}: {:?}",
            outcomes[1].result
        );
        // Nothing found: said so.
        assert_eq!(outcomes[2].found, Some(Vec::new()), "{provider}");
        assert_eq!(
            outcomes[2].result.text_content(),
            "No tools matched the query."
        );
        let answered = answer(provider, &outcomes).to_values();
        match provider {
            Provider::Anthropic => {
                let blocks = &answered[0]["content"];
                assert_eq!(blocks[0]["is_error"], true);
                assert_eq!(blocks[2]["content"][0]["type"], "text");
                check("anthropic", "MessageParam", &answered[0]);
            }
            Provider::OpenAiResponses => {
                for item in &answered {
                    assert_eq!(item["type"], "tool_search_output");
                    assert_eq!(item["tools"], json!([]));
                    check("openai-python", "ResponseToolSearchOutputItemParam", item);
                }
            }
            _ => {
                assert!(
                    answered[0]["content"]
                        .as_str()
                        .unwrap()
                        .starts_with("Error: ")
                );
            }
        }
    }
}

#[test]
fn call_tool_runs_the_named_tool_and_refuses_what_it_cannot_route() {
    let toolbox = catalog();
    let tools = ModelTools::new(&toolbox, Provider::OpenAiChat, &searching()).unwrap();
    let call = |arguments: Value| {
        ModelCall::new("call_tool", CallArguments::from_value(Some(&arguments))).with_id("c")
    };
    let calls = [
        // By MCP name, with arguments; with no arguments (`{}`), or `null`.
        call(json!({"name": "stock_quote", "arguments": {"symbol": "ACME"}})),
        call(json!({"name": "translate_text"})),
        call(json!({"name": "translate_text", "arguments": null})),
        // By the provider's name of a namespaced tool.
        call(json!({"name": "weather_get_alerts", "arguments": {"region": "Alps"}})),
        // Unknown, with the nearest name; the search functions themselves are no tools.
        call(json!({"name": "stock_quotes"})),
        call(json!({"name": "search_tools", "arguments": {"query": "x"}})),
        // Arguments of the wrong shape; no name; arguments that fail the tool's schema.
        call(json!({"name": "stock_quote", "arguments": "ACME"})),
        call(json!({"arguments": {}})),
        call(json!({"name": "weather.get_forecast", "arguments": {"city": "Oslo", "days": 9}})),
    ];
    let outcomes = pollster::block_on(run_calls(&toolbox, &tools, calls, &CallContext::new()));
    let text = |i: usize| outcomes[i].result.text_content();
    assert_eq!(text(0), r#"stock_quote {"symbol":"ACME"}"#);
    assert_eq!(text(1), "translate_text {}");
    assert_eq!(text(2), "translate_text {}");
    assert_eq!(outcomes[3].tool.as_deref(), Some("weather.get_alerts"));
    assert!(
        text(4).starts_with(r#"unknown tool "stock_quotes""#),
        "{}",
        text(4)
    );
    assert!(
        text(4).ends_with(r#"did you mean "stock_quote"?"#),
        "{}",
        text(4)
    );
    assert!(matches!(outcomes[4].error, Some(Error::UnknownTool { .. })));
    assert!(
        text(5).starts_with(r#"unknown tool "search_tools""#),
        "{}",
        text(5)
    );
    assert_eq!(
        text(6),
        r#"invalid arguments for tool "call_tool": `arguments` is a string that is not JSON: expected value at line 1 column 1"#
    );
    assert_eq!(
        text(7),
        r#"invalid arguments for tool "call_tool": expected an object with a `name` string"#
    );
    assert!(outcomes[8].result.is_error());
    assert!(text(8).contains("/days"), "{}", text(8));
    for outcome in &outcomes {
        assert_eq!(outcome.name, "call_tool");
    }
    // Without search, `call_tool` is no function of the list.
    let plain =
        ModelTools::new(&toolbox, Provider::OpenAiChat, &ToolListOptions::default()).unwrap();
    let outcomes = pollster::block_on(run_calls(
        &toolbox,
        &plain,
        [call(json!({"name": "stock_quote"}))],
        &CallContext::new(),
    ));
    assert!(
        outcomes[0]
            .result
            .text_content()
            .starts_with(r#"unknown tool "call_tool""#)
    );
}

#[test]
fn a_deferred_tool_called_by_its_own_name_runs() {
    // OpenAI Chat and Gemini do not list it, but a model that read it in a search's result
    // and calls it directly is answered as for any tool.
    let toolbox = catalog();
    for provider in [Provider::OpenAiChat, Provider::Gemini] {
        let tools = ModelTools::new(&toolbox, provider, &searching()).unwrap();
        let name = tools.provider_name("stock_quote").unwrap().1.to_owned();
        let call = ModelCall::new(
            name,
            CallArguments::from_value(Some(&json!({"symbol": "X"}))),
        );
        let outcomes = pollster::block_on(run_calls(&toolbox, &tools, [call], &CallContext::new()));
        assert_eq!(
            outcomes[0].result.text_content(),
            r#"stock_quote {"symbol":"X"}"#
        );
    }
}

#[test]
fn the_limit_bounds_what_a_search_finds() {
    let toolbox = catalog();
    let options = ToolListOptions::default().with_search(
        ToolSearch::default()
            .with_pinned(["read_file"])
            .with_limit(1),
    );
    let tools = ModelTools::new(&toolbox, Provider::Anthropic, &options).unwrap();
    let call = ModelCall::new(
        "search_tools",
        CallArguments::from_value(Some(&json!({"query": "weather"}))),
    )
    .with_id("c");
    let outcomes = pollster::block_on(run_calls(&toolbox, &tools, [call], &CallContext::new()));
    assert_eq!(outcomes[0].found.as_ref().map(Vec::len), Some(1));
    // A limit past any catalog: every match, and no more work than that.
    let options = ToolListOptions::default().with_search(
        ToolSearch::default()
            .with_pinned(["read_file"])
            .with_limit(usize::MAX),
    );
    let tools = ModelTools::new(&toolbox, Provider::Anthropic, &options).unwrap();
    let call = ModelCall::new(
        "search_tools",
        CallArguments::from_value(Some(&json!({"query": "weather"}))),
    );
    let outcomes = pollster::block_on(run_calls(&toolbox, &tools, [call], &CallContext::new()));
    let mut all = found(&outcomes[0]);
    all.sort_unstable();
    assert_eq!(all, ["weather.get_alerts", "weather.get_forecast"]);
    // A limit of 0 is taken as 1.
    let options = ToolListOptions::default().with_search(ToolSearch::default().with_limit(0));
    let tools = ModelTools::new(&toolbox, Provider::Anthropic, &options).unwrap();
    let call = ModelCall::new(
        "search_tools",
        CallArguments::from_value(Some(&json!({"query": "weather"}))),
    );
    let outcomes = pollster::block_on(run_calls(&toolbox, &tools, [call], &CallContext::new()));
    assert_eq!(outcomes[0].found.as_ref().map(Vec::len), Some(1));
}

#[test]
fn server_searches_are_read_back_with_what_they_found() {
    // Anthropic: a failed search, a result whose search is not in the message, another
    // server tool (not a search).
    let message = json!({"content": [
        {"type": "server_tool_use", "id": "s1", "name": "tool_search_tool_regex",
         "input": {"pattern": "weather.*"}},
        {"type": "tool_search_tool_result", "tool_use_id": "s1",
         "content": {"type": "tool_search_tool_result_error", "error_code": "invalid_tool_input"}},
        {"type": "server_tool_use", "id": "w1", "name": "web_search", "input": {"query": "q"}},
        {"type": "tool_search_tool_result", "tool_use_id": "s0",
         "content": {"type": "tool_search_tool_search_result",
                     "tool_references": [{"type": "tool_reference", "tool_name": "a"}]}},
    ]});
    let searches = read_server_searches(Provider::Anthropic, &message).unwrap();
    assert_eq!(searches.len(), 2);
    assert_eq!(searches[0].error.as_deref(), Some("invalid_tool_input"));
    assert!(searches[0].tools.is_empty());
    assert_eq!(searches[1].id.as_deref(), Some("s0"));
    assert_eq!(searches[1].arguments, Value::Null);
    assert_eq!(searches[1].pointer, "/content/3");
    assert_eq!(searches[1].tools, [(None, "a".to_owned())]);
    check(
        "anthropic",
        "ToolSearchToolResultBlock",
        &message["content"][1],
    );
    assert!(
        read_calls(Provider::Anthropic, &message)
            .unwrap()
            .is_empty()
    );
    // A reference without its name: the pointer says where.
    let bad = json!([{"type": "tool_search_tool_result", "tool_use_id": "s",
        "content": {"type": "tool_search_tool_search_result", "tool_references": [{"type": "tool_reference"}]}}]);
    match read_server_searches(Provider::Anthropic, &bad) {
        Err(Error::Json { path, .. }) => assert_eq!(path, "/0/content/tool_references/0"),
        other => panic!("{other:?}"),
    }

    // OpenAI Responses: the hosted search (paired with its output by order when `call_id` is
    // null), not the client's.
    let response = json!({"output": [
        {"type": "tool_search_call", "id": "tsc_1", "execution": "server", "call_id": null,
         "status": "completed", "arguments": {"query": "issues"}},
        {"type": "tool_search_output", "id": "tso_1", "execution": "server", "call_id": null,
         "status": "completed", "tools": [
            {"type": "namespace", "name": "github", "description": "GitHub.",
             "tools": [{"type": "function", "name": "create_issue", "defer_loading": true}]},
            {"type": "function", "name": "send_email", "parameters": null, "strict": null}]},
        {"type": "tool_search_call", "id": "tsc_2", "execution": "client", "call_id": "c2",
         "status": "completed", "arguments": {"query": "x"}},
    ]});
    check(
        "openai-python",
        "ResponseToolSearchCall",
        &response["output"][0],
    );
    let searches = read_server_searches(Provider::OpenAiResponses, &response).unwrap();
    assert_eq!(searches.len(), 1);
    assert_eq!(searches[0].id.as_deref(), Some("tsc_1"));
    assert_eq!(
        searches[0].tools,
        [
            (Some("github".to_owned()), "create_issue".to_owned()),
            (None, "send_email".to_owned())
        ]
    );
    let toolbox = catalog();
    let tools = ModelTools::new(&toolbox, Provider::OpenAiResponses, &searching()).unwrap();
    assert_eq!(
        tools.mcp_name(Some("github"), "create_issue"),
        Some("github__create_issue")
    );
    // OpenAI Chat and Gemini have no search of their own.
    for provider in [Provider::OpenAiChat, Provider::Gemini] {
        let response = recorded(if provider == Provider::Gemini {
            "gemini_1"
        } else {
            "openai_chat_1"
        });
        assert!(
            read_server_searches(provider, &response)
                .unwrap()
                .is_empty()
        );
    }
}
