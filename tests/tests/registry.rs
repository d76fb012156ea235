//! `#[tool(register)]` with the `inventory` feature: every registered tool is found by
//! `registered_tools()`, in ID order, with its tool and local backend binding; unregistered
//! tools are not; a type that cannot be a tool is reported as an error among the others.
//! (`inventory` collects per program: the registrations of this test binary, `integration`,
//! are all of this file; the tests that register others are programs of their own.)

use serde::Deserialize;
use serde_json::json;
use toolmodel::{
    Backend, Error, Tool, ToolDefinition, registered_tools,
    schemars::{self, JsonSchema},
};

/// Reads a file.
#[derive(Deserialize, JsonSchema, Tool)]
#[tool(register, namespace = "fs", local = "fs-handler")]
struct ReadFile {
    path: String,
}

/// Says hello.
#[derive(Deserialize, JsonSchema, Tool)]
#[tool(register)]
struct Hello {
    name: String,
}

/// Pings.
#[derive(Tool)]
#[tool(register, namespace = "admin")]
struct Ping;

/// Not registered.
#[derive(Tool)]
struct Hidden;

#[derive(Deserialize, JsonSchema)]
struct Lines(#[allow(dead_code)] Vec<String>);

/// Registered, but its input is an array (arguments are an object in every MCP version; an
/// array output would be fine from 2026-07-28).
#[derive(Tool)]
#[tool(register, namespace = "zz", input = Lines)]
struct Broken;

#[test]
fn registered_tools_are_listed_in_id_order() {
    let entries: Vec<Result<toolmodel::RegisteredTool, Error>> = registered_tools().collect();
    assert_eq!(entries.len(), 4);
    let ok: Vec<_> = entries.iter().filter_map(|e| e.as_ref().ok()).collect();
    let ids: Vec<String> = ok.iter().map(|e| e.id.to_string()).collect();
    assert_eq!(ids, ["admin:ping", "fs:read_file", "hello"]);
    for entry in &ok {
        assert_eq!(entry.tool.backends, std::slice::from_ref(entry.backend));
    }
    assert!(std::ptr::eq(ok[1].tool, ReadFile::tool()));
    assert_eq!(ok[1].backend, &Backend::local("fs-handler"));
    assert_eq!(ok[1].id.namespace(), Some("fs"));
    assert_eq!(ok[2].backend, &Backend::local("hello"));
    assert!(ok.iter().all(|e| e.tool.name != Hidden::NAME));

    let Some(Err(Error::ToolType { tool, problems })) = entries.last() else {
        panic!("the broken tool is last (`zz:`), as an error: {entries:?}")
    };
    assert_eq!(tool, "broken");
    assert!(problems[0].type_name.ends_with("Lines"), "{problems:?}");
}

#[test]
fn a_registered_tool_is_also_usable_directly() {
    assert_eq!(
        ReadFile::parse(&json!({"path": "/x"})).map(|a| a.path),
        Ok("/x".to_owned())
    );
    assert_eq!(Hello::tool().description.as_deref(), Some("Says hello."));
    assert_eq!(
        Hello::parse(&json!({"name": "Ada"})).map(|a| a.name),
        Ok("Ada".to_owned())
    );
    assert_eq!(Ping::ID, "admin:ping");
}
