//! Bench cases from the shared corpus: every distinct input schema of the corpus's valid MCP
//! tools that compiles, each with a valid and an invalid argument object generated from the
//! schema (deterministically; checked with the validator), and the raw `jsonschema` baseline.
//!
//! The corpus is found at `$TOOLMODEL_SHARED/corpus`, else `../shared/corpus` beside the
//! workspace. When it is missing, a notice is printed and a built-in set of schemas is used, so
//! the benches still run. [`mcp_tools`] gives every valid MCP tool of the corpus, for the
//! adapter benches.
//!
//! Each bench uses a part of this module; the rest would be dead code in it.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use serde_json::{Map, Value, json};
use toolmodel::{
    DefaultValidator, Error, SchemaValidator, Tool, ToolSchema,
    validate::{Dialect, InstanceError},
    wire::catalog::tool_values,
};

/// How deep the argument generator follows nested schemas and `$ref`s.
const MAX_DEPTH: usize = 8;

/// One tool with a valid and an invalid argument object for its `inputSchema`.
pub struct Case {
    /// `<corpus folder>/<file stem>/<tool name>` (the stem left out when it is the name).
    pub label: String,
    /// The tool, parsed from the corpus with [`Tool::from_mcp_json`].
    pub tool: Tool,
    /// Arguments that match the input schema.
    pub valid: Value,
    /// Arguments that do not match it.
    pub invalid: Value,
    /// The input schema compiled once by `jsonschema` directly: the raw baseline.
    pub raw: jsonschema::Validator,
}

/// The bench cases: every distinct input schema of [`mcp_tools`] (or the built-in fallback
/// set), each checked so that its valid arguments pass and its invalid ones fail under every
/// way of validating, with the raw baseline reporting exactly the violations `toolmodel`
/// reports. Schemas that do not compile (the validator refuses them) are counted and left out,
/// and so is a schema no arguments can be generated for (printed by name; none in the corpus
/// at the time of writing).
///
/// # Panics
///
/// When a case does not behave as its name says: the benches would measure something else.
pub fn cases(validator: &DefaultValidator) -> Vec<Case> {
    let tools = match mcp_tools() {
        Some(tools) => distinct(tools),
        None => fallback_tools(),
    };
    let mut cases = Vec::new();
    let (mut refused, mut without) = (0usize, Vec::new());
    for (index, (label, tool)) in tools.into_iter().enumerate() {
        if validator.compile(tool.input_schema.as_value()).is_err() {
            refused += 1;
            continue;
        }
        let valid = arguments(&tool.input_schema)
            .filter(|valid| validator.validate_arguments(&tool, valid).is_ok());
        let Some(valid) = valid else {
            without.push(format!("{label} (valid)"));
            continue;
        };
        let Some(invalid) = invalid_for(validator, &tool, &valid, index) else {
            without.push(format!("{label} (invalid)"));
            continue;
        };
        let raw = raw_compile(validator, tool.input_schema.as_value());
        let case = Case {
            label,
            tool,
            valid,
            invalid,
            raw,
        };
        check(validator, &case);
        cases.push(case);
    }
    println!(
        "{} cases: distinct input schemas with generated valid and invalid arguments; {refused} \
         schemas the validator refuses left out; {} without generated arguments{}",
        cases.len(),
        without.len(),
        if without.is_empty() {
            String::new()
        } else {
            format!(": {}", without.join(", "))
        }
    );
    assert!(!cases.is_empty(), "no bench cases");
    cases
}

/// The tools with distinct input schemas, first of each kept.
fn distinct(tools: Vec<(String, Tool)>) -> Vec<(String, Tool)> {
    let mut seen: std::collections::HashSet<String> = std::collections::HashSet::new();
    tools
        .into_iter()
        .filter(|(_, tool)| seen.insert(tool.input_schema.as_value().to_string()))
        .collect()
}

/// Invalid arguments for `tool`: [`invalid_arguments`]' wrong type or missing property, else
/// an unexpected property (refused by a closed object), else a value that is not an object;
/// the first the validator refuses.
fn invalid_for(
    validator: &DefaultValidator,
    tool: &Tool,
    valid: &Value,
    index: usize,
) -> Option<Value> {
    let mut extra = valid.clone();
    if let Value::Object(map) = &mut extra {
        map.insert("unexpected_argument".into(), json!(1));
    }
    [
        invalid_arguments(&tool.input_schema, valid, index),
        Some(extra),
        Some(json!([])),
        Some(json!("not an object")),
    ]
    .into_iter()
    .flatten()
    .find(|candidate| {
        matches!(
            validator.validate_arguments(tool, candidate),
            Err(Error::InvalidInstance { .. })
        )
    })
}

/// The raw baseline: `jsonschema` with a precompiled validator, doing the work `toolmodel` does
/// for the same outcome. A valid instance costs one `is_valid`. An invalid one costs `is_valid`,
/// then every error of `iter_errors` collected with its instance path, schema path, keyword and
/// message as owned strings, into the same [`Error::InvalidInstance`]: a baseline that stopped
/// at `is_valid` would compare a yes/no answer with a full error report.
///
/// # Errors
///
/// [`Error::InvalidInstance`] with every violation.
pub fn raw_validate(raw: &jsonschema::Validator, instance: &Value) -> Result<(), Error> {
    if raw.is_valid(instance) {
        return Ok(());
    }
    raw_errors(raw, instance)
}

/// The raw baseline for arguments known to be invalid: every error of `iter_errors` collected
/// with its instance path, schema path, keyword and message as owned strings, into the same
/// [`Error::InvalidInstance`] `toolmodel` gives, without an `is_valid` first.
///
/// # Errors
///
/// [`Error::InvalidInstance`] with every violation.
pub fn raw_errors(raw: &jsonschema::Validator, instance: &Value) -> Result<(), Error> {
    let errors: Vec<InstanceError> = raw
        .iter_errors(instance)
        .map(|err| InstanceError {
            instance_path: err.instance_path().as_str().to_owned(),
            schema_path: err.schema_path().as_str().to_owned(),
            keyword: err.kind().keyword().to_owned(),
            message: err.to_string(),
        })
        .collect();
    if errors.is_empty() {
        Ok(())
    } else {
        Err(Error::InvalidInstance { errors })
    }
}

/// Each violation's schema path.
fn located(outcome: &Result<(), Error>) -> Vec<&str> {
    match outcome {
        Err(Error::InvalidInstance { errors }) => {
            errors.iter().map(|err| err.schema_path.as_str()).collect()
        }
        _ => Vec::new(),
    }
}

/// Compiles a schema with `jsonschema` directly, with the options `toolmodel` uses (its dialect,
/// `format` as annotation, unknown formats ignored, the linear-time regular expression engine),
/// so that both validate with the same keywords and the same engine.
fn raw_compile(validator: &DefaultValidator, schema: &Value) -> jsonschema::Validator {
    let draft = match validator.dialect_of(schema) {
        Ok(Dialect::Draft7) => jsonschema::Draft::Draft7,
        _ => jsonschema::Draft::Draft202012,
    };
    jsonschema::options()
        .with_draft(draft)
        .should_validate_formats(false)
        .should_ignore_unknown_formats(true)
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(schema)
        .unwrap_or_else(|err| panic!("jsonschema rejects a schema toolmodel compiles: {err}"))
}

/// `$TOOLMODEL_SHARED/corpus`, else `../shared/corpus` beside the workspace; `None` (after a
/// notice) when missing.
pub fn corpus_dir() -> Option<PathBuf> {
    let shared = std::env::var_os("TOOLMODEL_SHARED").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
        PathBuf::from,
    );
    let corpus = shared.join("corpus");
    if corpus.is_dir() {
        Some(corpus)
    } else {
        println!(
            "notice: {} is missing; using the built-in fallback schemas",
            corpus.display()
        );
        None
    }
}

/// Every valid MCP tool of the corpus (`Tool::from_mcp_json` and `Tool::validate` accept it),
/// found in each file with `catalog::tool_values`, files in path order, each labelled
/// `<file path>/<tool name>`. BFCL and the PostHog schema dump are not MCP tools and are left
/// out. `None` when the corpus is missing.
pub fn mcp_tools() -> Option<Vec<(String, Tool)>> {
    fn files(dir: &Path, out: &mut Vec<PathBuf>) {
        let Ok(entries) = std::fs::read_dir(dir) else {
            return;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                files(&path, out);
            } else {
                out.push(path);
            }
        }
    }
    let corpus = corpus_dir()?;
    let mut paths = Vec::new();
    files(&corpus, &mut paths);
    paths.sort();
    let mut tools = Vec::new();
    for path in paths {
        let relative = path
            .strip_prefix(&corpus)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        if relative.starts_with("bfcl") || relative.starts_with("posthog-mcp") {
            continue;
        }
        let Some(document) = std::fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        else {
            continue;
        };
        for (_, value) in tool_values(&document).unwrap_or_default() {
            if let Ok(tool) = Tool::from_mcp_json(value)
                && tool.validate().is_ok()
            {
                tools.push((format!("{relative}/{}", tool.name), tool));
            }
        }
    }
    Some(tools)
}

/// Schemas in the style of the corpus, for when it is missing.
fn fallback_tools() -> Vec<(String, Tool)> {
    let schemas = [
        (
            "get_weather",
            json!({"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}),
        ),
        (
            "list_issues",
            json!({
                "type": "object",
                "properties": {
                    "owner": {"type": "string", "description": "Repository owner"},
                    "repo": {"type": "string", "description": "Repository name"},
                    "state": {"type": "string", "enum": ["open", "closed", "all"]},
                    "perPage": {"type": "number", "minimum": 1, "maximum": 100},
                    "labels": {"type": "array", "items": {"type": "string"}}
                },
                "required": ["owner", "repo", "state"]
            }),
        ),
        (
            "resources_create_or_update",
            json!({
                "$schema": "http://json-schema.org/draft-07/schema#",
                "type": "object",
                "properties": {
                    "resource": {"type": "string"},
                    "namespace": {"type": "string"},
                    "dryRun": {"type": "boolean"}
                },
                "required": ["resource", "dryRun"],
                "additionalProperties": false
            }),
        ),
        (
            "create_entities",
            json!({
                "type": "object",
                "properties": {
                    "entities": {
                        "type": "array",
                        "minItems": 1,
                        "items": {"$ref": "#/$defs/entity"}
                    }
                },
                "required": ["entities"],
                "$defs": {
                    "entity": {
                        "type": "object",
                        "properties": {
                            "name": {"type": "string", "minLength": 1},
                            "entityType": {"type": "string"},
                            "observations": {"type": "array", "items": {"type": "string"}}
                        },
                        "required": ["name", "entityType", "observations"]
                    }
                }
            }),
        ),
    ];
    schemas
        .into_iter()
        .map(|(name, schema)| {
            let schema = ToolSchema::try_from(schema).expect("fallback schemas are objects");
            (format!("fallback/{name}"), Tool::new(name, schema))
        })
        .collect()
}

/// Asserts that the case measures what it says: valid arguments pass and invalid ones fail in
/// all three ways, and the raw baseline reports exactly `toolmodel`'s violations.
fn check(validator: &DefaultValidator, case: &Case) {
    let label = &case.label;
    let schema = case.tool.input_schema.as_value();
    let valid = [
        ("raw", raw_validate(&case.raw, &case.valid)),
        (
            "cached",
            validator.validate_arguments(&case.tool, &case.valid),
        ),
        ("per_call", validator.validate(schema, &case.valid)),
    ];
    for (way, outcome) in valid {
        assert!(
            outcome.is_ok(),
            "{label}: valid arguments {} fail ({way}): {outcome:?}",
            case.valid
        );
    }
    let cached = validator.validate_arguments(&case.tool, &case.invalid);
    assert!(
        matches!(&cached, Err(Error::InvalidInstance { errors }) if !errors.is_empty()),
        "{label}: invalid arguments {} pass or fail otherwise: {cached:?}",
        case.invalid
    );
    // The same violations: the same schema paths. Messages, some instance paths and some
    // keyword names differ by design (`toolmodel` words an `enum` or a `const` branch for a
    // model, points an `additionalProperties` violation at the property and names it
    // `additionalProperties` where `jsonschema` says `falseSchema`: `validate/feedback.rs`).
    assert_eq!(
        located(&raw_errors(&case.raw, &case.invalid)),
        located(&cached),
        "{label}: the raw baseline reports other violations"
    );
    assert_eq!(
        validator.validate(schema, &case.invalid),
        cached,
        "{label}: compiling per call reports other violations"
    );
}

/// Arguments for an object schema: its required properties, each with a value of its declared
/// type (or its first `enum` value); when nothing is required, its first property that a value
/// can be made for. `None` when a required property gets no value.
fn arguments(schema: &ToolSchema) -> Option<Value> {
    value_for(schema.as_value(), schema.as_value(), 0)
}

/// A value matching `schema` (a part of `root`), or `None` when the generator cannot tell.
fn value_for(schema: &Value, root: &Value, depth: usize) -> Option<Value> {
    if depth > MAX_DEPTH {
        return None;
    }
    let Value::Object(schema) = schema else {
        return (schema == &Value::Bool(true)).then(|| json!("x"));
    };
    if let Some(Value::String(reference)) = schema.get("$ref") {
        let target = root.pointer(reference.strip_prefix('#')?)?;
        return value_for(target, root, depth + 1);
    }
    if let Some(value) = schema.get("const") {
        return Some(value.clone());
    }
    if let Some(Value::Array(values)) = schema.get("enum") {
        return values.first().cloned();
    }
    for key in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = schema.get(key) {
            return branches.iter().find_map(|b| value_for(b, root, depth + 1));
        }
    }
    let kind = match schema.get("type") {
        Some(Value::String(kind)) => kind.as_str(),
        Some(Value::Array(kinds)) => kinds.iter().find_map(Value::as_str)?,
        _ if schema.contains_key("properties") => "object",
        _ => "string",
    };
    match kind {
        "object" => object_for(schema, root, depth),
        "array" => {
            let count = schema.get("minItems").and_then(Value::as_u64).unwrap_or(1);
            let unique = schema.get("uniqueItems") == Some(&Value::Bool(true));
            if count > 1 && unique {
                return None;
            }
            let item = match schema.get("items") {
                Some(items) => value_for(items, root, depth + 1)?,
                None => json!("x"),
            };
            Some(Value::Array(vec![item; usize::try_from(count).ok()?]))
        }
        "string" => {
            if let Some(pattern) = schema.get("pattern") {
                return pattern
                    .as_str()
                    .and_then(matching_string)
                    .map(Value::String);
            }
            let min = schema.get("minLength").and_then(Value::as_u64).unwrap_or(0);
            let max = schema
                .get("maxLength")
                .and_then(Value::as_u64)
                .unwrap_or(u64::MAX);
            if min > max {
                return None;
            }
            let len = usize::try_from(7.clamp(min, max)).ok()?;
            Some(Value::String("example".chars().cycle().take(len).collect()))
        }
        "integer" | "number" => {
            let low = match (schema.get("minimum"), schema.get("exclusiveMinimum")) {
                (Some(min), _) => min.as_f64()?.ceil(),
                (None, Some(min)) => min.as_f64()?.floor() + 1.0,
                (None, None) => 1.0,
            };
            let fits_max = schema
                .get("maximum")
                .and_then(Value::as_f64)
                .is_none_or(|max| low <= max);
            let fits_exclusive_max = schema
                .get("exclusiveMaximum")
                .and_then(Value::as_f64)
                .is_none_or(|max| low < max);
            (fits_max && fits_exclusive_max).then(|| json!(low as i64))
        }
        "boolean" => Some(Value::Bool(true)),
        "null" => Some(Value::Null),
        _ => None,
    }
}

/// An object with the required properties (else the first property that a value can be made
/// for) of an object schema.
fn object_for(schema: &Map<String, Value>, root: &Value, depth: usize) -> Option<Value> {
    let empty = Map::new();
    let properties = match schema.get("properties") {
        Some(Value::Object(properties)) => properties,
        _ => &empty,
    };
    let required: Vec<&str> = match schema.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    };
    let mut out = Map::new();
    if required.is_empty()
        && let Some((name, value)) = properties
            .iter()
            .find_map(|(name, s)| Some((name, value_for(s, root, depth + 1)?)))
    {
        out.insert(name.clone(), value);
    }
    for name in required {
        let value = match properties.get(name) {
            Some(property) => value_for(property, root, depth + 1)?,
            None => json!("x"),
        };
        out.insert(name.to_owned(), value);
    }
    Some(Value::Object(out))
}

/// Arguments that break the schema: on even cases a property of the wrong type, on odd ones a
/// missing required property (whichever the schema allows when it allows only one).
fn invalid_arguments(schema: &ToolSchema, valid: &Value, index: usize) -> Option<Value> {
    let Value::Object(valid) = valid else {
        return None;
    };
    let properties = schema.get("properties").and_then(Value::as_object);
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let wrong_type = || {
        valid.keys().find_map(|name| {
            let declared = properties?.get(name)?.get("type")?;
            let mut out = valid.clone();
            out.insert(name.clone(), wrong_value(declared)?);
            Some(Value::Object(out))
        })
    };
    let missing = || {
        let name = required.first()?;
        let mut out = valid.clone();
        out.remove(*name);
        Some(Value::Object(out))
    };
    if index.is_multiple_of(2) {
        wrong_type().or_else(missing)
    } else {
        missing().or_else(wrong_type)
    }
}

/// A value of none of the declared `type`s.
fn wrong_value(declared: &Value) -> Option<Value> {
    let kinds: Vec<&str> = match declared {
        Value::String(kind) => vec![kind.as_str()],
        Value::Array(kinds) => kinds.iter().filter_map(Value::as_str).collect(),
        _ => return None,
    };
    [
        ("string", json!(42)),
        ("integer", json!("forty-two")),
        ("number", json!("forty-two")),
        ("boolean", json!("yes")),
        ("array", json!({"not": "an array"})),
        ("object", json!(["not", "an", "object"])),
    ]
    .into_iter()
    .find(|(kind, candidate)| kinds.contains(kind) && !kinds.iter().any(|k| is_type(candidate, k)))
    .map(|(_, candidate)| candidate)
}

/// Whether a value is of a JSON Schema `type` (a number is both `integer` and `number` here,
/// as the values [`wrong_value`] makes are whole numbers).
fn is_type(value: &Value, kind: &str) -> bool {
    match value {
        Value::Null => kind == "null",
        Value::Bool(_) => kind == "boolean",
        Value::Number(_) => kind == "integer" || kind == "number",
        Value::String(_) => kind == "string",
        Value::Array(_) => kind == "array",
        Value::Object(_) => kind == "object",
    }
}

/// A string `pattern` matches: the shortest spelling of the parsed regular expression (each
/// repetition its minimum, each alternation its first branch, each class its first
/// character), unanchored patterns padded with nothing. `None` when `regex-syntax` cannot
/// parse it (lookaround, backreferences).
fn matching_string(pattern: &str) -> Option<String> {
    use regex_syntax::hir::{Class, Hir, HirKind};
    fn spell(hir: &Hir, out: &mut String) -> Option<()> {
        match hir.kind() {
            HirKind::Empty | HirKind::Look(_) => {}
            HirKind::Literal(literal) => out.push_str(std::str::from_utf8(&literal.0).ok()?),
            HirKind::Class(Class::Unicode(class)) => out.push(class.ranges().first()?.start()),
            HirKind::Class(Class::Bytes(class)) => {
                out.push(char::from(class.ranges().first()?.start()));
            }
            HirKind::Repetition(repetition) => {
                for _ in 0..repetition.min {
                    spell(&repetition.sub, out)?;
                }
            }
            HirKind::Capture(capture) => spell(&capture.sub, out)?,
            HirKind::Concat(parts) => {
                for part in parts {
                    spell(part, out)?;
                }
            }
            HirKind::Alternation(branches) => spell(branches.first()?, out)?,
        }
        Some(())
    }
    let hir = regex_syntax::parse(pattern).ok()?;
    let mut out = String::new();
    spell(&hir, &mut out)?;
    Some(out)
}
