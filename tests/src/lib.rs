//! Shared helpers of the integration and conformance tests: where `../shared` is, and the
//! official MCP schema's `Tool` definition, compiled.

use std::path::PathBuf;

use serde_json::{Value, json};

/// The `shared/` data folder: `$TOOLMODEL_SHARED`, else `../shared` beside the workspace.
///
/// Returns `None` (after printing a notice) when it is missing and `CI` is not set; panics when
/// it is missing and `CI` is set, because then a missing data folder is a test failure.
#[must_use]
pub fn shared_dir(what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("TOOLMODEL_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
        PathBuf::from,
    );
    let target = dir.join(what);
    if target.exists() {
        return Some(target);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "shared data {} is missing and CI is set",
        target.display()
    );
    println!(
        "notice: skipping, shared data {} is missing",
        target.display()
    );
    None
}

/// A validator for `#/$defs/Tool` of the official MCP 2025-11-25 schema
/// (`mcp-spec/2025-11-25/schema.json` of `../shared`), compiled with `jsonschema` as JSON
/// Schema 2020-12: the schema document itself with its root pointed at `#/$defs/Tool`, so that
/// the definitions it refers to resolve.
///
/// Returns `None` when the shared data is missing, as [`shared_dir`] does (a panic under
/// `CI`). Panics when the file is unreadable, not JSON, or does not compile: broken shared
/// data is a test failure.
#[must_use]
pub fn mcp_tool_validator() -> Option<jsonschema::Validator> {
    let path = shared_dir("mcp-spec/2025-11-25/schema.json")?;
    let text = std::fs::read_to_string(&path).expect("schema.json is readable");
    let mut schema: Value = serde_json::from_str(&text).expect("schema.json is JSON");
    schema["$ref"] = json!("#/$defs/Tool");
    Some(jsonschema::draft202012::new(&schema).expect("the MCP schema compiles"))
}

/// The README's Rust examples, compiled and run as doc tests.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
