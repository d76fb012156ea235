//! The quickstart example, run as a test: its derived tools' MCP JSON validates against
//! `#/$defs/Tool` of the official MCP 2025-11-25 schema, and its calls behave as it prints.

use serde_json::json;
use toolmodel::{Error, ToolDefinition};

use crate::support::quickstart::{self, GetWeather, Unit};

#[test]
fn every_quickstart_tool_is_a_valid_mcp_tool() {
    let toolbox = quickstart::toolbox().expect("the toolbox builds");
    let list = serde_json::to_value(toolbox.list(None).expect("first page")).expect("JSON");
    let tools = list["tools"].as_array().expect("a tools array");
    assert_eq!(tools.len(), 3);
    assert_eq!(list.get("nextCursor"), None, "one page");
    for tool in tools {
        let parsed = toolmodel::Tool::from_mcp_json(tool).expect("reads back");
        parsed.validate().expect("valid by toolmodel's rules");
        assert_eq!(&parsed.to_mcp_json(), tool, "round trip");
        let text = tool.to_string();
        for banned in ["$schema", "$ref", "$defs", "\"format\""] {
            assert!(!text.contains(banned), "{banned} in {text}");
        }
        for slot in ["inputSchema", "outputSchema"] {
            assert_eq!(tool[slot].get("title"), None, "{text}");
            assert_eq!(tool[slot].get("description"), None, "{text}");
        }
    }
    let Some(validator) = toolmodel_tests::mcp_tool_validator() else {
        return;
    };
    for tool in tools {
        let errors: Vec<String> = validator.iter_errors(tool).map(|e| e.to_string()).collect();
        assert!(errors.is_empty(), "{}: {errors:?}", tool["name"]);
    }
    // The validator does reject a broken tool, so the loop above can fail.
    assert!(!validator.is_valid(&json!({"name": "x", "inputSchema": {"type": "array"}})));
}

#[test]
fn the_quickstart_calls() {
    let args = GetWeather::parse(&json!({"city": "Paris", "days": 2, "unit": "fahrenheit"}))
        .expect("valid arguments");
    assert_eq!(
        (args.city.as_str(), args.days, args.unit),
        ("Paris", 2, Some(Unit::Fahrenheit))
    );

    let Err(Error::InvalidInstance { errors }) =
        GetWeather::parse(&json!({"days": 9, "unit": "kelvin", "country": "FR"}))
    else {
        panic!("expected violations")
    };
    let mut found: Vec<(&str, &str)> = errors
        .iter()
        .map(|e| (e.instance_path.as_str(), e.keyword.as_str()))
        .collect();
    found.sort_unstable();
    assert_eq!(
        found,
        [
            ("", "required"),
            ("/country", "additionalProperties"),
            ("/days", "maximum"),
            ("/unit", "anyOf")
        ]
    );

    let toolbox = quickstart::toolbox().expect("the toolbox builds");
    let result = quickstart::call(
        &toolbox,
        "docs.search_docs",
        json!({"query": "tool", "limit": 1}),
    )
    .expect("a result");
    let structured = result.structured_content.expect("structured content");
    assert_eq!(structured["total"], json!(2));
    assert_eq!(structured["hits"].as_array().map(Vec::len), Some(1));

    let result = quickstart::call(
        &toolbox,
        "docs.search_docs",
        json!({"query": "tool", "limit": 0}),
    )
    .expect("an isError result, not an error");
    assert!(result.is_error());
    assert_eq!(
        result.text_content(),
        "invalid arguments for tool \"docs.search_docs\": 1 violation\n\
         /limit: 0 is less than the minimum of 1 (schema /properties/limit/minimum)"
    );

    let pong = quickstart::call(&toolbox, "ping", json!({})).expect("pong");
    assert_eq!(pong.text_content(), "pong");
    assert!(!pong.is_error());

    let weather = quickstart::call(&toolbox, "weather.get_weather", json!({"city": "Oslo"}))
        .expect("weather");
    assert_eq!(weather.text_content(), "Oslo in 0 days: 21 degrees Celsius");

    let err = quickstart::call(&toolbox, "nope", json!({})).expect_err("unknown tool");
    assert!(matches!(&err, Error::UnknownTool { name, .. } if name == "nope"));
    assert_eq!(err.jsonrpc_code(), -32602);
    // The tool is served under its MCP name only: "namespace.name".
    assert!(quickstart::call(&toolbox, "get_weather", json!({"city": "Oslo"})).is_err());
}

#[test]
fn the_quickstart_runs() {
    quickstart::main().expect("the example runs");
}
