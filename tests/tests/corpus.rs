//! Real-input acceptance test: every MCP tool definition in `../shared/corpus`.
//!
//! For every file of the MCP sources (see `corpus/SOURCES.md`), the tools are found with
//! [`tool_values`] and each one must:
//!
//! 1. parse with [`Tool::from_mcp_json`];
//! 2. round-trip: `to_mcp_json(from_mcp_json(x)) == x` as JSON values, after removing from `x`
//!    only the `null`s the documented null policy covers (a `null` optional MCP field is read as
//!    absent and not written back); and `Tool::from_json(&t.to_json()) == t`;
//! 3. when [`Tool::validate_for`] 2025-11-25 accepts it, be valid against `#/$defs/Tool` of the official MCP
//!    2025-11-25 schema.
//!
//! The tools `validate` rejects are grouped by reason, and the schemas of the valid tools are
//! compiled with [`DefaultValidator::compile`]; both are reported, not gated. The sources that
//! hold no MCP tools are skipped with the reason printed, and a file of no known source fails the
//! test, so that new data is classified before it is trusted.

use std::{collections::BTreeMap, fmt::Write as _, fs};

use serde_json::{Value, json};
use toolmodel::{
    DefaultValidator, Error, ProtocolVersion, Tool, Violation, model::name::NameProblem,
    wire::catalog::tool_values,
};
use toolmodel_tests::{EXCLUDED, MCP_SOURCES, corpus_files, exclusion, relative};

/// Optional `Tool` keys whose `null` the null policy reads as absent.
const NULLABLE_TOOL_KEYS: &[&str] = &[
    "title",
    "description",
    "outputSchema",
    "annotations",
    "icons",
    "execution",
    "_meta",
];
/// Optional `ToolAnnotations` keys whose `null` is read as absent.
const NULLABLE_ANNOTATION_KEYS: &[&str] = &[
    "title",
    "readOnlyHint",
    "destructiveHint",
    "idempotentHint",
    "openWorldHint",
];
/// Optional `Icon` keys whose `null` is read as absent.
const NULLABLE_ICON_KEYS: &[&str] = &["mimeType", "sizes", "theme"];
/// Optional `ToolExecution` keys whose `null` is read as absent.
const NULLABLE_EXECUTION_KEYS: &[&str] = &["taskSupport"];

/// Figures of one source folder.
#[derive(Default)]
struct Stats {
    files: usize,
    tools: usize,
    valid: usize,
    invalid: usize,
    invalid_reasons: BTreeMap<String, usize>,
    null_policy: usize,
    /// Outcome of compiling each schema of the valid tools → count.
    compile: BTreeMap<&'static str, usize>,
    /// Every schema that did not compile: `file#pointer/slot: error`.
    compile_notes: Vec<String>,
}

/// How many tool objects a document holds, counted independently of [`tool_values`]: every
/// object with an `inputSchema` key, outside the schemas of another tool.
fn count_tool_objects(value: &Value) -> usize {
    match value {
        Value::Object(object) if object.contains_key("inputSchema") => 1,
        Value::Object(object) => object.values().map(count_tool_objects).sum(),
        Value::Array(items) => items.iter().map(count_tool_objects).sum(),
        _ => 0,
    }
}

/// Removes from `object` the keys in `keys` whose value is `null`; `true` when any was removed.
fn drop_null_keys(object: &mut serde_json::Map<String, Value>, keys: &[&str]) -> bool {
    let before = object.len();
    object.retain(|key, value| !(value.is_null() && keys.contains(&key.as_str())));
    object.len() != before
}

/// The tool JSON as the null policy reads it: `null` optional fields of the tool, its
/// annotations, each icon and its execution removed. Returns the result and whether anything
/// was removed. Nothing else is touched: a `null` under an unknown key stays.
fn apply_null_policy(tool: &Value) -> (Value, bool) {
    let mut out = tool.clone();
    let Value::Object(object) = &mut out else {
        return (out, false);
    };
    let mut changed = drop_null_keys(object, NULLABLE_TOOL_KEYS);
    if let Some(Value::Object(annotations)) = object.get_mut("annotations") {
        changed |= drop_null_keys(annotations, NULLABLE_ANNOTATION_KEYS);
    }
    if let Some(Value::Array(icons)) = object.get_mut("icons") {
        for icon in icons.iter_mut().filter_map(Value::as_object_mut) {
            changed |= drop_null_keys(icon, NULLABLE_ICON_KEYS);
        }
    }
    if let Some(Value::Object(execution)) = object.get_mut("execution") {
        changed |= drop_null_keys(execution, NULLABLE_EXECUTION_KEYS);
    }
    (out, changed)
}

/// A reason label for a violation, to group the invalid tools by.
fn reason(violation: &Violation) -> String {
    match violation {
        Violation::Name(err) => {
            let mut kinds: Vec<String> = err
                .problems
                .iter()
                .map(|problem| match problem {
                    NameProblem::Empty => "empty".to_owned(),
                    NameProblem::TooLong { .. } => "too long".to_owned(),
                    NameProblem::InvalidChar { ch, .. } => format!("char {ch:?}"),
                    other => format!("{other}"),
                })
                .collect();
            kinds.sort();
            kinds.dedup();
            format!("Name ({})", kinds.join(", "))
        }
        Violation::SchemaRoot { slot, found } => format!(
            "SchemaRoot ({slot} type {})",
            found.as_deref().unwrap_or("absent")
        ),
        other => {
            let debug = format!("{other:?}");
            debug
                .split(['(', ' ', '{'])
                .next()
                .unwrap_or_default()
                .to_owned()
        }
    }
}

fn compile_outcome(result: &Result<toolmodel::validate::CompiledSchema, Error>) -> &'static str {
    match result {
        Ok(_) => "ok",
        Err(Error::UnsupportedSchema { .. }) => "UnsupportedSchema",
        Err(Error::InvalidSchema { .. }) => "InvalidSchema",
        Err(Error::ExternalRef { .. }) => "ExternalRef",
        Err(_) => "other error",
    }
}

fn shorten(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", &text[..end]),
        None => text.to_owned(),
    }
}

/// Checks one tool value; updates `stats`, records failures.
fn check_tool(
    at: &str,
    value: &Value,
    spec: &jsonschema::Validator,
    compiler: &DefaultValidator,
    stats: &mut Stats,
    failures: &mut Vec<String>,
) {
    stats.tools += 1;
    let tool = match Tool::from_mcp_json(value) {
        Ok(tool) => tool,
        Err(err) => {
            failures.push(format!("{at}: does not parse: {err}"));
            return;
        }
    };

    // 2. Round trips.
    let (expected, nulls_dropped) = apply_null_policy(value);
    stats.null_policy += usize::from(nulls_dropped);
    let written = tool.to_mcp_json();
    if written != expected {
        failures.push(format!(
            "{at}: MCP round trip differs:\n  read   {expected}\n  wrote  {written}"
        ));
    }
    match Tool::from_json(&tool.to_json()) {
        Ok(back) if back == tool => {}
        Ok(back) => failures.push(format!(
            "{at}: full round trip differs:\n  {tool:?}\n  {back:?}"
        )),
        Err(err) => failures.push(format!("{at}: full form does not read back: {err}")),
    }

    // 3. Valid tools are valid MCP; invalid ones are grouped by reason.
    let violations = tool.violations_for(ProtocolVersion::V2025_11_25);
    if !violations.is_empty() {
        stats.invalid += 1;
        let mut reasons: Vec<String> = violations.iter().map(reason).collect();
        reasons.sort();
        reasons.dedup();
        for r in reasons {
            *stats.invalid_reasons.entry(r).or_default() += 1;
        }
        return;
    }
    stats.valid += 1;
    let errors: Vec<String> = spec
        .iter_errors(&written)
        .map(|err| format!("{} ({})", err, err.instance_path().as_str()))
        .collect();
    if !errors.is_empty() {
        failures.push(format!(
            "{at}: valid tool is not a valid MCP Tool: {}",
            errors.join("; ")
        ));
    }
    let schemas = std::iter::once(("inputSchema", &tool.input_schema))
        .chain(tool.output_schema.iter().map(|s| ("outputSchema", s)));
    for (slot, schema) in schemas {
        let result = compiler.compile(schema.as_value());
        let outcome = compile_outcome(&result);
        *stats.compile.entry(outcome).or_default() += 1;
        if let Err(err) = result {
            stats
                .compile_notes
                .push(format!("{at}/{slot}: {}", shorten(&err.to_string(), 160)));
        }
    }
}

fn summary(stats: &BTreeMap<&str, Stats>, excluded: &BTreeMap<&str, (usize, &str)>) -> String {
    let mut out = String::new();
    let outcomes = [
        "ok",
        "UnsupportedSchema",
        "InvalidSchema",
        "ExternalRef",
        "other error",
    ];
    writeln!(
        out,
        "\n{:<22} {:>5} {:>6} {:>6} {:>8} {:>6}  schema compile (valid tools): {}",
        "source",
        "files",
        "tools",
        "valid",
        "invalid",
        "nulls",
        outcomes.join(" / ")
    )
    .unwrap();
    let mut total = Stats::default();
    for (source, s) in stats {
        let compile: Vec<String> = outcomes
            .iter()
            .map(|o| s.compile.get(o).copied().unwrap_or(0).to_string())
            .collect();
        writeln!(
            out,
            "{source:<22} {:>5} {:>6} {:>6} {:>8} {:>6}  {}",
            s.files,
            s.tools,
            s.valid,
            s.invalid,
            s.null_policy,
            compile.join(" / ")
        )
        .unwrap();
        total.files += s.files;
        total.tools += s.tools;
        total.valid += s.valid;
        total.invalid += s.invalid;
        total.null_policy += s.null_policy;
        for (outcome, n) in &s.compile {
            *total.compile.entry(outcome).or_default() += n;
        }
    }
    let compile: Vec<String> = outcomes
        .iter()
        .map(|o| total.compile.get(o).copied().unwrap_or(0).to_string())
        .collect();
    writeln!(
        out,
        "{:<22} {:>5} {:>6} {:>6} {:>8} {:>6}  {}",
        "total",
        total.files,
        total.tools,
        total.valid,
        total.invalid,
        total.null_policy,
        compile.join(" / ")
    )
    .unwrap();

    writeln!(out, "\ninvalid tools by reason (a tool may have several):").unwrap();
    for (source, s) in stats {
        for (reason, n) in &s.invalid_reasons {
            writeln!(out, "  {source:<22} {n:>4}  {reason}").unwrap();
        }
    }
    writeln!(out, "\nschemas of valid tools that did not compile:").unwrap();
    for s in stats.values() {
        for note in &s.compile_notes {
            writeln!(out, "  {note}").unwrap();
        }
    }
    writeln!(out, "\nexcluded (not MCP tools):").unwrap();
    for (path, (files, why)) in excluded {
        writeln!(out, "  {path:<40} {files:>3} file(s): {why}").unwrap();
    }
    writeln!(
        out,
        "\ncorpus: parsed={} valid={} invalid={}",
        total.valid + total.invalid,
        total.valid,
        total.invalid
    )
    .unwrap();
    out
}

#[test]
fn every_mcp_tool_in_the_corpus_parses_round_trips_and_validates() {
    let Some(root) = toolmodel_tests::shared_dir("corpus") else {
        return;
    };
    let Some(spec) = toolmodel_tests::mcp_tool_validator() else {
        return;
    };
    let compiler = DefaultValidator::new();
    let mut stats: BTreeMap<&str, Stats> = BTreeMap::new();
    let mut excluded: BTreeMap<&str, (usize, &str)> = BTreeMap::new();
    // Everything that fails the test, collected so that the summary prints first.
    let mut failures: Vec<String> = Vec::new();

    for path in corpus_files(&root) {
        let rel = relative(&root, &path);
        if rel == "SOURCES.md" {
            continue;
        }
        if let Some((prefix, why)) = exclusion(&rel) {
            excluded.entry(prefix).or_insert((0, why)).0 += 1;
            continue;
        }
        let source = rel.split('/').next().unwrap();
        let Some(source) = MCP_SOURCES.iter().copied().find(|s| *s == source) else {
            failures.push(format!(
                "{rel}: not in any known source; classify it as MCP or excluded"
            ));
            continue;
        };
        let entry = stats.entry(source).or_default();
        entry.files += 1;
        let text = fs::read_to_string(&path).unwrap();
        let document: Value = match serde_json::from_str(&text) {
            Ok(document) => document,
            Err(err) => {
                failures.push(format!("{rel}: not JSON: {err}"));
                continue;
            }
        };
        let found = match tool_values(&document) {
            Ok(found) => found,
            Err(err) => {
                failures.push(format!("{rel}: no tools found: {err}"));
                continue;
            }
        };
        let expected = count_tool_objects(&document);
        if found.len() != expected || found.is_empty() {
            failures.push(format!(
                "{rel}: tool_values found {} tools, the document holds {expected}",
                found.len()
            ));
        }
        for (pointer, value) in found {
            check_tool(
                &format!("{rel}#{pointer}"),
                value,
                &spec,
                &compiler,
                entry,
                &mut failures,
            );
        }
    }

    for source in MCP_SOURCES {
        if !stats.contains_key(source) {
            failures.push(format!("source {source} has no files"));
        }
    }
    for (prefix, _) in EXCLUDED {
        if !excluded.contains_key(prefix) {
            failures.push(format!("excluded path {prefix} has no files"));
        }
    }

    println!("{}", summary(&stats, &excluded));
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
}

#[test]
fn the_null_policy_removes_only_the_keys_it_covers() {
    let (out, changed) = apply_null_policy(&json!({
        "name": "t",
        "description": null,
        "inputSchema": {"type": "object", "default": null},
        "annotations": {"title": null, "readOnlyHint": true, "x-extra": null},
        "icons": [{"src": "https://a/i.png", "theme": null}],
        "execution": {"taskSupport": null},
        "x-vendor": null
    }));
    assert!(changed);
    assert_eq!(
        out,
        json!({
            "name": "t",
            "inputSchema": {"type": "object", "default": null},
            "annotations": {"readOnlyHint": true, "x-extra": null},
            "icons": [{"src": "https://a/i.png"}],
            "execution": {},
            "x-vendor": null
        })
    );
    let plain = json!({"name": "t", "inputSchema": {"type": "object"}});
    assert_eq!(apply_null_policy(&plain), (plain.clone(), false));
}

#[test]
fn the_independent_tool_count_does_not_look_inside_tools() {
    let doc = json!({"result": {"tools": [
        {"name": "a", "inputSchema": {"type": "object", "properties": {"inputSchema": {"type": "object"}}}},
        {"name": "b", "inputSchema": {"type": "object"}}
    ]}});
    assert_eq!(count_tool_objects(&doc), 2);
    assert_eq!(count_tool_objects(&json!([{"name": "no schema"}])), 0);
}
