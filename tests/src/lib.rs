//! Shared helpers of the integration and conformance tests: where `../shared` is, and the
//! official MCP schema's `Tool` definition, compiled, the corpus's MCP tools and BFCL
//! functions, the adapter conversions the acceptance tests cover, and the external-reference
//! cases that the adversarial suite and the no-network test share.

use std::{
    fs,
    path::{Path, PathBuf},
};

use serde_json::{Value, json};
use toolmodel::{
    Error,
    adapters::{ConvertOptions, Profile, Target},
};

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
/// (`mcp-spec/2025-11-25/schema.json` of `../shared`); see [`mcp_definition_validator`].
///
/// Returns `None` when the shared data is missing, as [`shared_dir`] does (a panic under
/// `CI`). Panics when the file is unreadable, not JSON, or does not compile: broken shared
/// data is a test failure.
#[must_use]
pub fn mcp_tool_validator() -> Option<jsonschema::Validator> {
    let validator = mcp_definition_validator("2025-11-25", "Tool")?;
    // The wrapper really is `Tool`: it rejects what the spec's `Tool` rejects.
    assert!(validator.is_valid(&json!({"name": "x", "inputSchema": {"type": "object"}})));
    assert!(!validator.is_valid(&json!({"name": "x", "inputSchema": {"type": "array"}})));
    assert!(!validator.is_valid(&json!({"inputSchema": {"type": "object"}})));
    assert!(
        !validator.is_valid(
            &json!({"name": "x", "inputSchema": {"type": "object"}, "annotations": null})
        )
    );
    Some(validator)
}

/// A validator for the definition `definition` (`Tool`, `CallToolResult`, ...) of the official
/// MCP schema of `version` (`mcp-spec/{version}/schema.json` of `../shared`): the schema
/// document itself with its root pointed at the definition (`#/$defs/...` for 2020-12,
/// `#/definitions/...` for the draft-07 schemas before 2025-11-25), compiled with `jsonschema`
/// in the dialect the document declares, so that the definitions it refers to resolve.
///
/// Returns `None` when the shared data is missing, as [`shared_dir`] does. Panics when the
/// file is unreadable, not JSON, lacks the definition, or does not compile.
#[must_use]
pub fn mcp_definition_validator(version: &str, definition: &str) -> Option<jsonschema::Validator> {
    let path = shared_dir(&format!("mcp-spec/{version}/schema.json"))?;
    let text = fs::read_to_string(&path).expect("schema.json is readable");
    let mut schema: Value = serde_json::from_str(&text).expect("schema.json is JSON");
    let defs = if schema.get("$defs").is_some() {
        "$defs"
    } else {
        "definitions"
    };
    assert!(
        schema[defs].get(definition).is_some(),
        "{version} has no {definition}"
    );
    schema["$ref"] = json!(format!("#/{defs}/{definition}"));
    Some(jsonschema::validator_for(&schema).expect("the MCP schema compiles"))
}

/// The sources of `corpus/` that hold MCP tools, by folder.
pub const MCP_SOURCES: &[&str] = &[
    "github-mcp-server",
    "kubernetes-mcp-server",
    "mcp-proxy-snapshots",
    "docker-mcp-registry",
    "livemcpbench",
    "mcp-spec-examples",
    "rmcp-test-fixtures",
];

/// Corpus paths (a folder, or a folder under a source) that hold no MCP tools, and why.
pub const EXCLUDED: &[(&str, &str)] = &[
    (
        "bfcl",
        "BFCL function definitions as JSON Lines ({id, question, function: [{name, description, parameters}]}), not MCP tools",
    ),
    (
        "posthog-mcp",
        "tool metadata without schemas, and one draft-07 document of unattributed input schemas: no MCP Tool objects",
    ),
    (
        "mcp-spec-examples/CallToolRequest",
        "tools/call requests: arguments, not tools",
    ),
    (
        "mcp-spec-examples/CallToolRequestParams",
        "tools/call params: arguments, not tools",
    ),
];

/// Every file under `root`, sorted.
///
/// # Panics
///
/// When a folder cannot be read.
#[must_use]
pub fn corpus_files(root: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                pending.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// `path` relative to `root`, with `/` between the parts.
///
/// # Panics
///
/// When `path` is not under `root`.
#[must_use]
pub fn relative(root: &Path, path: &Path) -> String {
    let parts: Vec<String> = path
        .strip_prefix(root)
        .unwrap()
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    parts.join("/")
}

/// The entry of [`EXCLUDED`] a corpus path falls under, if any.
#[must_use]
pub fn exclusion(rel: &str) -> Option<&'static (&'static str, &'static str)> {
    EXCLUDED.iter().find(|(prefix, _)| {
        rel.strip_prefix(prefix)
            .is_some_and(|rest| rest.starts_with('/'))
    })
}

/// Every MCP tool of the corpus's [`MCP_SOURCES`], as `("file#pointer", tool JSON)`, found by
/// [`toolmodel::wire::catalog::tool_values`]; files that are not JSON or hold no tools are skipped
/// (the corpus test reports them). `None` when the shared data is missing.
///
/// # Panics
///
/// When a file cannot be read.
#[must_use]
pub fn corpus_tools() -> Option<Vec<(String, Value)>> {
    let root = shared_dir("corpus")?;
    let mut out = Vec::new();
    for path in corpus_files(&root) {
        let rel = relative(&root, &path);
        let source = rel.split('/').next().unwrap_or_default();
        if exclusion(&rel).is_some() || !MCP_SOURCES.contains(&source) {
            continue;
        }
        let Ok(document) = serde_json::from_str::<Value>(&fs::read_to_string(&path).unwrap())
        else {
            continue;
        };
        let Ok(found) = toolmodel::wire::catalog::tool_values(&document) else {
            continue;
        };
        out.extend(
            found
                .into_iter()
                .map(|(pointer, value)| (format!("{rel}#{pointer}"), value.clone())),
        );
    }
    Some(out)
}

/// Every function definition of the BFCL data (`corpus/bfcl`, JSON Lines), as
/// `("file:line/function/i", JSON)` with the file relative to `corpus/bfcl`: question files
/// carry a `function` list per line, `multi_turn_func_doc` files one function per line; the
/// `possible_answer` files are left out. `None` when the shared data is missing.
///
/// # Panics
///
/// When a file cannot be read or a line is not JSON.
#[must_use]
pub fn bfcl_functions() -> Option<Vec<(String, Value)>> {
    let bfcl = shared_dir("corpus/bfcl")?;
    let mut out = Vec::new();
    for path in corpus_files(&bfcl) {
        let relative = relative(&bfcl, &path);
        if relative.starts_with("possible_answer") {
            continue;
        }
        for (line_no, line) in fs::read_to_string(&path).unwrap().lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let record: Value = serde_json::from_str(line).unwrap();
            match record.get("function") {
                Some(Value::Array(functions)) => {
                    for (i, function) in functions.iter().enumerate() {
                        out.push((
                            format!("{relative}:{}/function/{i}", line_no + 1),
                            function.clone(),
                        ));
                    }
                }
                _ => out.push((format!("{relative}:{}", line_no + 1), record)),
            }
        }
    }
    Some(out)
}

/// The adapter conversions the acceptance tests cover, each named: every [`Profile`] (its
/// text), plus Gemini's JSON Schema mode (`gemini-json-schema`).
#[must_use]
pub fn adapter_columns() -> Vec<(String, Target, ConvertOptions)> {
    let mut out: Vec<_> = Profile::ALL
        .iter()
        .map(|p| {
            (
                p.to_string(),
                p.target,
                ConvertOptions::default().with_strict(p.strict),
            )
        })
        .collect();
    out.push((
        "gemini-json-schema".into(),
        Target::Gemini,
        ConvertOptions::default().with_gemini_json_schema(true),
    ));
    out
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

/// Asserts that `printed`, what `command` printed, is byte for byte the file `shown` (a path
/// from the workspace root) that the guide shows as its output; on a difference, the message
/// names the first differing line and the file to rewrite if the new output is right.
///
/// # Panics
///
/// When `shown` cannot be read, or differs from `printed`.
pub fn assert_shown(shown: &str, command: &str, printed: &str) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("..").join(shown);
    let expected = fs::read_to_string(&path)
        .unwrap_or_else(|err| panic!("cannot read {}: {err}", path.display()));
    if expected == printed {
        return;
    }
    let (expected_lines, printed_lines): (Vec<&str>, Vec<&str>) =
        (expected.lines().collect(), printed.lines().collect());
    let line = expected_lines
        .iter()
        .zip(&printed_lines)
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| expected_lines.len().min(printed_lines.len()));
    panic!(
        "`{command}` no longer prints what the guide shows ({shown}); first difference at line \
         {}:\n  shown:   {}\n  printed: {}\nIf the new output is right, write it to {shown}.",
        line + 1,
        expected_lines.get(line).unwrap_or(&"(end of file)"),
        printed_lines.get(line).unwrap_or(&"(end of output)"),
    );
}

/// The README's Rust examples, compiled and run as doc tests.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
