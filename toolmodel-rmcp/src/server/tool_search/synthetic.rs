//! The two tools a disclosed catalog is served as, `search_tools` and `call_tool`, and the
//! result of a search: names, input schemas, output schema and result JSON as FastMCP's
//! `BM25SearchTransform` writes them (`fastmcp.server.transforms.search`, FastMCP 4.2), so
//! that a client written for it works unchanged.

use serde_json::{Map, Value, json};
use toolmodel::{CallToolResult, Tool, Toolbox};

/// The name of the tool that searches the catalog (FastMCP's default `search_tool_name`).
pub const SEARCH_TOOLS: &str = "search_tools";

/// The name of the tool that calls a tool of the catalog by name (FastMCP's default
/// `call_tool_name`).
pub const CALL_TOOL: &str = "call_tool";

/// Whether `name` is one of the two tools of a disclosed catalog.
pub(crate) fn is_synthetic(name: &str) -> bool {
    name == SEARCH_TOOLS || name == CALL_TOOL
}

/// `search_tools` and `call_tool` as MCP JSON, as FastMCP lists them (without its own
/// `_meta.fastmcp.tags`).
fn definitions() -> [Value; 2] {
    [
        json!({
            "name": SEARCH_TOOLS,
            "title": "Search Tools",
            "description": "Search for tools using natural language.\n\n\
                Returns matching tool definitions ranked by relevance,\n\
                in the same format as list_tools.",
            "inputSchema": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "query": {
                        "description": "Natural language query to search for tools",
                        "type": "string"
                    }
                },
                "required": ["query"]
            },
            "outputSchema": {
                "properties": {
                    "result": {
                        "anyOf": [
                            {"type": "string"},
                            {"items": {"additionalProperties": true, "type": "object"}, "type": "array"}
                        ]
                    }
                },
                "required": ["result"],
                "type": "object",
                "x-fastmcp-wrap-result": true
            }
        }),
        json!({
            "name": CALL_TOOL,
            "title": "Call Tool",
            "description": "Call a tool by name with the given arguments.\n\n\
                Use this to execute tools discovered via search_tools.",
            "inputSchema": {
                "type": "object",
                "additionalProperties": false,
                "properties": {
                    "name": {"description": "The name of the tool to call", "type": "string"},
                    "arguments": {
                        "anyOf": [{"additionalProperties": true, "type": "object"}, {"type": "null"}],
                        "default": null,
                        "description": "Arguments to pass to the tool"
                    }
                },
                "required": ["name"]
            }
        }),
    ]
}

/// The two tools' definitions.
///
/// # Errors
///
/// None in practice (the definitions are constants, a unit test builds them); the error of
/// [`Tool::from_mcp_json`] otherwise.
pub(crate) fn tools() -> Result<[Tool; 2], toolmodel::Error> {
    let [search, call] = definitions();
    Ok([Tool::from_mcp_json(&search)?, Tool::from_mcp_json(&call)?])
}

/// A toolbox of `tools`, each with a handler that is never run (the server answers the two
/// tools itself, and calls a listed tool in the toolbox it serves): what validates their
/// arguments, and what a disclosed catalog is listed from.
///
/// # Errors
///
/// What [`ToolboxBuilder::build`](toolmodel::ToolboxBuilder::build) returns.
pub(crate) fn listing<'a>(
    tools: impl IntoIterator<Item = &'a Tool>,
) -> Result<Toolbox, toolmodel::Error> {
    let mut builder = Toolbox::builder();
    for tool in tools {
        builder = builder.with_tool(tool.clone(), |_, _| async {
            Ok(CallToolResult::error("this tool is answered by the server"))
        });
    }
    builder.build()
}

/// The result of `search_tools`, as FastMCP writes it: `structuredContent` is
/// `{"result": [definitions]}`, `content` one text block of the definitions' JSON (compact),
/// and `_meta.fastmcp.wrap_result: true`, which tells a FastMCP client to unwrap `result`.
/// (FastMCP sends no content block for no match; this sends `[]`.)
pub(crate) fn found(definitions: Vec<Value>) -> CallToolResult {
    let definitions = Value::Array(definitions);
    let mut result = CallToolResult::text(definitions.to_string());
    result.structured_content = Some(json!({ "result": definitions }));
    let mut meta = Map::new();
    meta.insert("fastmcp".into(), json!({"wrap_result": true}));
    result.meta = Some(meta);
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_tools_build_into_a_toolbox_that_checks_their_arguments() {
        let tools = tools().unwrap();
        let toolbox = listing(&tools).unwrap();
        assert!(
            toolbox
                .check_arguments(SEARCH_TOOLS, &json!({"query": "x"}))
                .unwrap()
                .is_none()
        );
        let refused = toolbox
            .check_arguments(CALL_TOOL, &json!({"name": 3, "arguments": [], "other": 1}))
            .unwrap()
            .expect("refused");
        assert!(refused.is_error());
        let text = refused.text_content();
        assert!(text.contains("3 violations"), "{text}");
    }

    #[test]
    fn a_search_result_is_wrapped_as_fastmcp_wraps_it() {
        let result = found(vec![json!({"name": "add"})]);
        assert_eq!(result.text_content(), r#"[{"name":"add"}]"#);
        assert_eq!(
            result.structured_content,
            Some(json!({"result": [{"name": "add"}]}))
        );
        assert_eq!(
            result.meta.unwrap()["fastmcp"],
            json!({"wrap_result": true})
        );
    }
}
