//! Bench cases from the shared corpus: real tool input schemas, each with a generated valid and
//! invalid argument object, and the three ways of validating them that the benches compare.
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
    DefaultValidator, Dialect, Error, InstanceError, SchemaValidator, Tool, ToolSchema,
    catalog::tool_values,
};

/// The corpus folders the cases come from, and how many tools to take from each.
const SOURCES: &[(&str, usize)] = &[
    ("github-mcp-server", 12),
    ("kubernetes-mcp-server", 10),
    ("mcp-proxy-snapshots", 10),
];

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

/// The bench cases: tools from [`SOURCES`] (or the built-in fallback set), each checked so that
/// its valid arguments pass and its invalid ones fail under all three ways of validating, with
/// the raw baseline reporting exactly the violations `toolmodel` reports.
///
/// # Panics
///
/// When a case does not behave as its name says: the benches would measure something else.
pub fn cases(validator: &DefaultValidator) -> Vec<Case> {
    let tools = match corpus_dir() {
        Some(dir) => corpus_tools(&dir),
        None => fallback_tools(),
    };
    let cases: Vec<Case> = tools
        .into_iter()
        .enumerate()
        .map(|(index, (label, tool))| {
            let case = make_case(validator, label, tool, index);
            check(validator, &case);
            case
        })
        .collect();
    assert!(!cases.is_empty(), "no bench cases");
    cases
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
    let errors = raw
        .iter_errors(instance)
        .map(|err| InstanceError {
            instance_path: err.instance_path().as_str().to_owned(),
            schema_path: err.schema_path().as_str().to_owned(),
            keyword: err.kind().keyword().to_owned(),
            message: err.to_string(),
        })
        .collect();
    Err(Error::InvalidInstance { errors })
}

/// Compiles a schema with `jsonschema` directly, with the options `toolmodel` uses (its dialect,
/// `format` as annotation, unknown formats ignored), so that both validate with the same keywords.
fn raw_compile(validator: &DefaultValidator, schema: &Value) -> jsonschema::Validator {
    let draft = match validator.dialect_of(schema) {
        Ok(Dialect::Draft7) => jsonschema::Draft::Draft7,
        _ => jsonschema::Draft::Draft202012,
    };
    jsonschema::options()
        .with_draft(draft)
        .should_validate_formats(false)
        .should_ignore_unknown_formats(true)
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

/// The chosen corpus tools: from each source, the distinct tools whose schema compiles and
/// for which arguments can be generated, spread evenly over their schema sizes.
fn corpus_tools(dir: &Path) -> Vec<(String, Tool)> {
    let probe = DefaultValidator::new();
    let mut chosen = Vec::new();
    for &(source, take) in SOURCES {
        let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(source))
            .unwrap_or_else(|err| panic!("reading {source}: {err}"))
            .map(|entry| entry.map(|e| e.path()))
            .collect::<Result<_, _>>()
            .unwrap_or_else(|err| panic!("listing {source}: {err}"));
        files.sort();
        let mut usable: Vec<(usize, String, Tool)> = Vec::new();
        let mut seen: Vec<(String, ToolSchema)> = Vec::new();
        for file in files {
            let text = std::fs::read_to_string(&file)
                .unwrap_or_else(|err| panic!("reading {}: {err}", file.display()));
            let document: Value = serde_json::from_str(&text)
                .unwrap_or_else(|err| panic!("parsing {}: {err}", file.display()));
            let found = tool_values(&document)
                .unwrap_or_else(|err| panic!("finding tools in {}: {err}", file.display()));
            for (_, value) in found {
                let Ok(tool) = Tool::from_mcp_json(value) else {
                    continue;
                };
                let size = tool.input_schema.as_value().to_string().len();
                let duplicate = seen
                    .iter()
                    .any(|(name, schema)| *name == tool.name && *schema == tool.input_schema);
                if duplicate {
                    continue;
                }
                seen.push((tool.name.clone(), tool.input_schema.clone()));
                let generated = arguments(&tool.input_schema)
                    .and_then(|valid| invalid_arguments(&tool.input_schema, &valid, 0));
                if generated.is_none() || probe.compile(tool.input_schema.as_value()).is_err() {
                    continue;
                }
                let stem = file.file_stem().map(|s| s.to_string_lossy());
                let label = match stem {
                    Some(stem) if stem != tool.name => format!("{source}/{stem}/{}", tool.name),
                    _ => format!("{source}/{}", tool.name),
                };
                usable.push((size, label, tool));
            }
        }
        println!(
            "{source}: {} distinct tools, {} that compile and get generated arguments, \
             {} taken",
            seen.len(),
            usable.len(),
            usable.len().min(take)
        );
        usable.sort_by(|a, b| a.0.cmp(&b.0).then_with(|| a.1.cmp(&b.1)));
        chosen.extend(spread(usable, take).into_iter().map(|(_, l, t)| (l, t)));
    }
    chosen
}

/// `take` items spread evenly over `items` (all of them when there are fewer).
fn spread<T>(items: Vec<T>, take: usize) -> Vec<T> {
    let len = items.len();
    if len <= take {
        return items;
    }
    let wanted: Vec<usize> = (0..take)
        .map(|i| i * (len - 1) / (take - 1).max(1))
        .collect();
    items
        .into_iter()
        .enumerate()
        .filter(|(i, _)| wanted.contains(i))
        .map(|(_, item)| item)
        .collect()
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

/// Builds the case of one tool: its arguments, valid and invalid, and its raw validator.
fn make_case(validator: &DefaultValidator, label: String, tool: Tool, index: usize) -> Case {
    let valid = arguments(&tool.input_schema)
        .unwrap_or_else(|| panic!("{label}: no valid arguments could be generated"));
    let invalid = invalid_arguments(&tool.input_schema, &valid, index)
        .unwrap_or_else(|| panic!("{label}: no invalid arguments could be generated"));
    let raw = raw_compile(validator, tool.input_schema.as_value());
    Case {
        label,
        tool,
        valid,
        invalid,
        raw,
    }
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
    assert_eq!(
        raw_validate(&case.raw, &case.invalid),
        cached,
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
            if schema.contains_key("pattern") {
                return None;
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
