//! The quickstart example, run as a test: its derived tools' MCP JSON validates against
//! `#/$defs/Tool` of the official MCP 2025-11-25 schema, and its calls behave as it prints.

#[allow(dead_code)]
#[path = "../../examples/quickstart.rs"]
mod quickstart;

use quickstart::{GetWeather, Ping, SearchDocs, Unit};
use serde_json::json;
use toolmodel::{Error, ToolDefinition};

#[test]
fn every_quickstart_tool_is_a_valid_mcp_tool() {
    let list = quickstart::tools_list();
    let tools = list["tools"].as_array().expect("a tools array");
    assert_eq!(tools.len(), 3);
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
            ("", "additionalProperties"),
            ("", "required"),
            ("/days", "maximum"),
            ("/unit", "anyOf")
        ]
    );

    let result = quickstart::call_tool(SearchDocs::NAME, &json!({"query": "tool", "limit": 1}))
        .expect("a result");
    assert_eq!(result["structuredContent"]["total"], json!(2));
    assert_eq!(
        result["structuredContent"]["hits"].as_array().map(Vec::len),
        Some(1)
    );
    assert!(matches!(
        quickstart::call_tool(SearchDocs::NAME, &json!({"query": "tool", "limit": 0})),
        Err(Error::InvalidInstance { .. })
    ));
    assert_eq!(
        quickstart::call_tool(Ping::NAME, &json!({})).expect("pong")["content"][0]["text"],
        json!("pong")
    );
    assert!(quickstart::call_tool("nope", &json!({})).is_err());
}

#[test]
fn the_quickstart_runs() {
    quickstart::main().expect("the example runs");
}
