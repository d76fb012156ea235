//! Shared helpers of the integration and conformance tests: where `../shared` is, and the
//! official MCP schema's `Tool` definition, compiled, and the external-reference cases that
//! the adversarial suite and the no-network test share.

use std::path::PathBuf;

use serde_json::{Value, json};
use toolmodel::Error;

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
    mcp_definition_validator("2025-11-25", "Tool")
}

/// A validator for `#/$defs/{definition}` of the official MCP schema of `version`
/// (`mcp-spec/{version}/schema.json` of `../shared`), compiled as [`mcp_tool_validator`]
/// compiles `Tool`. `None` and panics as there.
#[must_use]
pub fn mcp_definition_validator(version: &str, definition: &str) -> Option<jsonschema::Validator> {
    let path = shared_dir(&format!("mcp-spec/{version}/schema.json"))?;
    let text = std::fs::read_to_string(&path).expect("schema.json is readable");
    let mut schema: Value = serde_json::from_str(&text).expect("schema.json is JSON");
    schema["$ref"] = json!(format!("#/$defs/{definition}"));
    Some(jsonschema::draft202012::new(&schema).expect("the MCP schema compiles"))
}

/// Every form of reference to a resource outside the schema, each with the error
/// [`toolmodel::DefaultValidator`] gives for it: `(what, schema, error)`. The schema is a tool
/// `inputSchema`; nothing may be fetched or read for any of them.
///
/// The reference in [`Error::ExternalRef`] is the one `jsonschema` failed to retrieve: written
/// as is, resolved against an `$id` when there is one, without its fragment when it is
/// absolute.
#[must_use]
pub fn external_reference_cases() -> Vec<(&'static str, Value, Error)> {
    let external = |reference: &str| Error::ExternalRef {
        reference: reference.into(),
    };
    let object = |property: Value| json!({"type": "object", "properties": {"a": property}});
    vec![
        (
            "http:",
            object(json!({"$ref": "http://example.com/s.json"})),
            external("http://example.com/s.json"),
        ),
        (
            "https: with a fragment",
            object(json!({"$ref": "https://example.com/s.json#/$defs/a"})),
            external("https://example.com/s.json"),
        ),
        (
            "file:",
            object(json!({"$ref": "file:///etc/passwd"})),
            external("file:///etc/passwd"),
        ),
        (
            "urn:",
            object(json!({"$ref": "urn:example:thing"})),
            external("urn:example:thing"),
        ),
        (
            "relative, no base",
            object(json!({"$ref": "other.json"})),
            external("other.json"),
        ),
        (
            "relative with `..` and an anchor, no base",
            object(json!({"$ref": "../up.json#frag"})),
            external("../up.json#frag"),
        ),
        (
            "relative, rebased by the root $id",
            json!({"$id": "https://example.com/root/schema.json", "type": "object",
                   "properties": {"a": {"$ref": "other.json"}}}),
            external("https://example.com/root/other.json"),
        ),
        (
            "relative, rebased by an embedded $id",
            json!({"type": "object", "$defs": {"x": {"$id": "https://example.org/x/", "$ref": "y.json"}},
                   "properties": {"a": {"$ref": "https://example.org/x/"}}}),
            external("https://example.org/x/y.json"),
        ),
        (
            "$dynamicRef",
            object(json!({"$dynamicRef": "https://example.com/meta#node"})),
            external("https://example.com/meta"),
        ),
        (
            "a meta-schema the validator does not hold",
            object(json!({"$ref": "https://json-schema.org/draft/2019-09/schema"})),
            external("https://json-schema.org/draft/2019-09/schema"),
        ),
        (
            "$schema naming a remote meta-schema",
            json!({"$schema": "https://example.com/my-meta", "type": "object"}),
            Error::UnsupportedSchema {
                uri: "https://example.com/my-meta".into(),
                pointer: "/$schema".into(),
            },
        ),
        (
            "$schema naming a file",
            json!({"type": "object", "properties": {"a": {"$schema": "file:///etc/passwd"}}}),
            Error::UnsupportedSchema {
                uri: "file:///etc/passwd".into(),
                pointer: "/properties/a/$schema".into(),
            },
        ),
    ]
}

/// The README's Rust examples, compiled and run as doc tests.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
