//! Acceptance tests of `toolmodel::adapters` on real input: every valid MCP tool of
//! `../shared/corpus` to every target, plain and strict; round trips; BFCL's function
//! definitions read strictly and leniently; and a property test of round trips.
//!
//! Run with `--nocapture` to see the counts per target and per feature.

use std::collections::BTreeMap;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolmodel::{
    DefaultValidator, Error, Tool, ToolSchema,
    adapters::{Action, ConvertOptions, ReadOptions, Target, Warning, convert, read},
};

/// The valid MCP tools of the corpus ([`toolmodel_tests::corpus_tools`]: BFCL and the PostHog
/// schema dump are not MCP tools).
fn corpus_tools() -> Option<Vec<(String, Tool)>> {
    let tools: Vec<(String, Tool)> = toolmodel_tests::corpus_tools()?
        .into_iter()
        .filter_map(|(label, value)| {
            Tool::from_mcp_json(&value)
                .ok()
                .filter(|tool| tool.validate().is_ok())
                .map(|tool| (label, tool))
        })
        .collect();
    assert!(
        tools.len() > 900,
        "only {} valid tools found in the corpus",
        tools.len()
    );
    Some(tools)
}

/// Reading keeps the `strict` marker a strict or Responses conversion writes (documented);
/// the comparison leaves it out when the original tool did not have it.
fn mcp_form_without_strict_marker(tool: &Tool, original: &Tool) -> Value {
    let mut tool = tool.clone();
    if !original.extra.contains_key("strict") {
        tool.extra.remove("strict");
    }
    tool.to_mcp_json()
}

fn error_kind(err: &Error) -> String {
    match err {
        Error::Conversion { reason, .. } => {
            // The reason without the specifics, to group similar errors.
            let first = reason.split(';').next().unwrap_or(reason);
            format!("Conversion: {first}")
        }
        Error::RecursiveSchema { .. } => "RecursiveSchema".into(),
        Error::SchemaTooLarge { .. } => "SchemaTooLarge".into(),
        Error::SchemaTooDeep { .. } => "SchemaTooDeep".into(),
        Error::ExternalRef { .. } => "ExternalRef".into(),
        other => format!("{other}"),
    }
}

#[test]
fn corpus_converts_to_every_target_and_round_trips_where_no_warning() {
    let Some(tools) = corpus_tools() else {
        return;
    };
    let validator = DefaultValidator::new();
    println!("{} valid MCP tools in the corpus", tools.len());
    println!(
        "{:<26} {:>6} {:>6} {:>9} {:>10} {:>10}",
        "target", "ok", "errors", "warnings", "no-warning", "round-trip"
    );
    let mut per_feature: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    let mut per_error: BTreeMap<String, BTreeMap<String, usize>> = BTreeMap::new();
    for (column, target, options) in toolmodel_tests::adapter_columns() {
        let (mut ok, mut errors, mut warnings, mut clean, mut round_trips) = (0, 0, 0, 0, 0);
        for (origin, tool) in &tools {
            match convert(tool, target, &options) {
                Err(err) => {
                    errors += 1;
                    *per_error
                        .entry(column.clone())
                        .or_default()
                        .entry(error_kind(&err))
                        .or_default() += 1;
                    // Errors name where: a pointer into the tool (or the reference).
                    let named = match &err {
                        Error::Conversion { pointer, .. }
                        | Error::RecursiveSchema { pointer, .. } => pointer.starts_with('/'),
                        Error::ExternalRef { reference } => !reference.is_empty(),
                        _ => true,
                    };
                    assert!(named, "{column} {origin}: {err}");
                }
                Ok(conversion) => {
                    ok += 1;
                    warnings += conversion.warnings.len();
                    let mut sorted = conversion.warnings.clone();
                    sorted.sort();
                    sorted.dedup();
                    assert_eq!(
                        sorted, conversion.warnings,
                        "{column} {origin}: warnings not sorted"
                    );
                    for warning in &conversion.warnings {
                        assert!(
                            warning.pointer.starts_with('/'),
                            "{column} {origin}: {warning}"
                        );
                        *per_feature
                            .entry(column.clone())
                            .or_default()
                            .entry(format!("{} ({})", warning.feature, warning.action))
                            .or_default() += 1;
                    }
                    if options.strict {
                        let schema = match target {
                            Target::OpenAiChat => &conversion.value["function"]["parameters"],
                            Target::OpenAiResponses => &conversion.value["parameters"],
                            _ => &conversion.value["input_schema"],
                        };
                        if let Err(err) = validator.compile(schema) {
                            panic!(
                                "{column} {origin}: the strict schema is not valid JSON Schema: {err}\n{schema:#}"
                            );
                        }
                        check_strict_rules(target, schema, &format!("{column} {origin}"));
                    }
                    // Every output reads back, in the default (strict) reading.
                    let back = read(target, &conversion.value, &ReadOptions::default())
                        .unwrap_or_else(|err| {
                            panic!("{column} {origin}: the output does not read back: {err}")
                        });
                    if conversion.warnings.is_empty() {
                        clean += 1;
                        assert_eq!(
                            mcp_form_without_strict_marker(&back.tool, tool),
                            tool.to_mcp_json(),
                            "{column} {origin}: no warning, yet the round trip changed the tool"
                        );
                        round_trips += 1;
                    }
                }
            }
        }
        println!("{column:<26} {ok:>6} {errors:>6} {warnings:>9} {clean:>10} {round_trips:>10}");
        assert_eq!(ok + errors, tools.len());
        if !options.strict {
            // A plain conversion of a valid tool fails only on recursion the target cannot
            // take, and allowing widening turns that into warnings.
            for (origin, tool) in &tools {
                if let Err(err) = convert(tool, target, &options) {
                    assert!(
                        matches!(err, Error::RecursiveSchema { .. }),
                        "{column} {origin}: {err}"
                    );
                    let widened = convert(tool, target, &options.clone().with_allow_widening(true))
                        .unwrap_or_else(|err| {
                            panic!("{column} {origin}: widening allowed, still {err}")
                        });
                    assert!(
                        widened.warnings.iter().any(|w| w.feature == "$ref"
                            && w.action == Action::Dropped { widened: true })
                    );
                }
            }
        }
    }
    println!("\nwarnings per target and feature:");
    for (column, features) in &per_feature {
        let mut list: Vec<_> = features.iter().collect();
        list.sort_by(|a, b| b.1.cmp(a.1).then(a.0.cmp(b.0)));
        let shown: Vec<String> = list
            .iter()
            .take(12)
            .map(|(f, n)| format!("{f}: {n}"))
            .collect();
        println!("  {column}: {}", shown.join(", "));
    }
    println!("\nerrors per target:");
    for (column, kinds) in &per_error {
        for (kind, n) in kinds {
            println!("  {column}: {n} x {kind}");
        }
    }
}

/// The OpenAI rules as the Agents SDK's `ensure_strict_json_schema` applies them, ported
/// (openai/openai-agents-python, src/agents/strict_schema.py): applied to our strict output it
/// must change nothing (up to the order of `required`), and the output uses only the keywords
/// OpenAI documents. For Anthropic: every object closed, only the documented keywords.
fn check_strict_rules(target: Target, schema: &Value, what: &str) {
    if target == Target::Anthropic {
        walk_objects(schema, &mut |map| {
            for key in map.keys() {
                assert!(
                    ANTHROPIC_KEYWORDS.contains(&key.as_str()),
                    "{what}: {key} in an Anthropic strict schema"
                );
            }
            if map.get("type") == Some(&json!("object")) {
                assert_eq!(
                    map.get("additionalProperties"),
                    Some(&json!(false)),
                    "{what}: open object"
                );
            }
        });
        return;
    }
    let mut again = schema.clone();
    sdk_ensure_strict(&mut again, schema);
    assert_eq!(
        sorted_required(again),
        sorted_required(schema.clone()),
        "{what}: the SDK would still change the schema"
    );
    walk_objects(schema, &mut |map| {
        for key in map.keys() {
            assert!(
                OPENAI_KEYWORDS.contains(&key.as_str()),
                "{what}: {key} in an OpenAI strict schema"
            );
        }
    });
}

const OPENAI_KEYWORDS: &[&str] = &[
    "type",
    "enum",
    "const",
    "anyOf",
    "$ref",
    "$defs",
    "definitions",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "title",
    "description",
    "pattern",
    "format",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "minItems",
    "maxItems",
];

const ANTHROPIC_KEYWORDS: &[&str] = &[
    "type",
    "enum",
    "const",
    "anyOf",
    "allOf",
    "$ref",
    "$defs",
    "definitions",
    "properties",
    "required",
    "additionalProperties",
    "items",
    "minItems",
    "format",
    "pattern",
    "title",
    "description",
];

/// Calls `f` on every schema object (following the keywords strict schemas use).
fn walk_objects(schema: &Value, f: &mut impl FnMut(&Map<String, Value>)) {
    let Value::Object(map) = schema else {
        return;
    };
    f(map);
    for (key, value) in map {
        match (key.as_str(), value) {
            ("properties" | "$defs" | "definitions", Value::Object(entries)) => {
                entries.values().for_each(|v| walk_objects(v, f));
            }
            ("items" | "additionalProperties", v) => walk_objects(v, f),
            ("anyOf" | "allOf", Value::Array(items)) => {
                items.iter().for_each(|v| walk_objects(v, f))
            }
            _ => {}
        }
    }
}

fn sorted_required(mut schema: Value) -> Value {
    fn walk(value: &mut Value) {
        match value {
            Value::Object(map) => {
                if let Some(Value::Array(required)) = map.get_mut("required") {
                    required.sort_by_key(ToString::to_string);
                }
                // The SDK writes `required: []` for an empty `properties`; absent means the same.
                if map.get("required") == Some(&json!([])) {
                    map.remove("required");
                }
                map.values_mut().for_each(walk);
            }
            Value::Array(items) => items.iter_mut().for_each(walk),
            _ => {}
        }
    }
    walk(&mut schema);
    schema
}

/// A port of `_ensure_strict_json_schema` (same behaviour, same order of steps).
fn sdk_ensure_strict(schema: &mut Value, root: &Value) {
    let Value::Object(map) = schema else {
        panic!("Expected {schema} to be a dictionary");
    };
    for defs in ["$defs", "definitions"] {
        if let Some(Value::Object(entries)) = map.get_mut(defs) {
            entries
                .values_mut()
                .for_each(|v| sdk_ensure_strict(v, root));
        }
    }
    if map.get("type") == Some(&json!("object")) {
        match map.get("additionalProperties") {
            None => {
                map.insert("additionalProperties".into(), json!(false));
            }
            Some(Value::Bool(false) | Value::Null) => {}
            Some(Value::Object(o)) if o.is_empty() => {}
            Some(other) => panic!("additionalProperties should be set to False, found {other}"),
        }
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        let keys: Vec<Value> = properties.keys().map(|k| json!(k)).collect();
        properties
            .values_mut()
            .for_each(|v| sdk_ensure_strict(v, root));
        map.insert("required".into(), Value::Array(keys));
    }
    if let Some(items @ Value::Object(_)) = map.get_mut("items") {
        sdk_ensure_strict(items, root);
    }
    if let Some(Value::Array(any_of)) = map.get_mut("anyOf") {
        any_of.iter_mut().for_each(|v| sdk_ensure_strict(v, root));
    }
    if let Some(Value::Array(mut one_of)) = map.remove("oneOf") {
        one_of.iter_mut().for_each(|v| sdk_ensure_strict(v, root));
        let mut any_of = match map.remove("anyOf") {
            Some(Value::Array(list)) => list,
            _ => Vec::new(),
        };
        any_of.extend(one_of);
        map.insert("anyOf".into(), Value::Array(any_of));
    }
    if let Some(Value::Array(all_of)) = map.get("allOf").cloned() {
        if all_of.len() == 1 {
            let mut only = all_of[0].clone();
            sdk_ensure_strict(&mut only, root);
            map.remove("allOf");
            if let Value::Object(only) = only {
                map.extend(only);
            }
        } else if let Some(Value::Array(list)) = map.get_mut("allOf") {
            list.iter_mut().for_each(|v| sdk_ensure_strict(v, root));
        }
    }
    if map.get("default") == Some(&Value::Null) {
        map.remove("default");
    }
    if let Some(Value::String(reference)) = map.get("$ref").cloned()
        && map.len() > 1
    {
        let path = reference.strip_prefix("#/").expect("a #/ reference");
        let mut resolved = root;
        for key in path.split('/') {
            resolved = &resolved[key];
        }
        let mut merged = resolved.as_object().expect("a dictionary").clone();
        for (k, v) in map.iter() {
            merged.insert(k.clone(), v.clone());
        }
        merged.remove("$ref");
        *map = merged;
        sdk_ensure_strict(schema, root);
    }
}

#[test]
fn bfcl_is_invalid_read_strictly_and_maps_read_leniently() {
    let Some(functions) = toolmodel_tests::bfcl_functions() else {
        return;
    };
    let (mut strict_ok, mut strict_invalid, mut issues) = (0usize, 0usize, 0usize);
    let (mut lenient_ok, mut lenient_valid) = (0usize, 0usize);
    let mut per_feature: BTreeMap<String, usize> = BTreeMap::new();
    for (origin, function) in &functions {
        match read(Target::OpenAiChat, function, &ReadOptions::default()) {
            Ok(_) => strict_ok += 1,
            Err(Error::InvalidSchema { issues: found }) => {
                strict_invalid += 1;
                issues += found.len();
                assert!(
                    found.iter().all(|i| i.pointer.starts_with("/parameters")),
                    "{origin}: {found:?}"
                );
            }
            Err(other) => panic!("{origin}: {other}"),
        }
        let reading = read(
            Target::OpenAiChat,
            function,
            &ReadOptions::default().with_lenient(true),
        )
        .unwrap_or_else(|err| panic!("{origin}: lenient reading failed: {err}"));
        lenient_ok += 1;
        for warning in &reading.warnings {
            *per_feature.entry(warning.detail.to_string()).or_default() += 1;
        }
        if reading.tool.validate().is_ok() {
            lenient_valid += 1;
        }
        // A lenient reading is a standard schema: the default reading takes it.
        let mut again = reading.tool.to_mcp_json();
        again["parameters"] = again["inputSchema"].take();
        read(Target::OpenAiChat, &again, &ReadOptions::default())
            .unwrap_or_else(|err| panic!("{origin}: the lenient result is not standard: {err}"));
    }
    println!("{} BFCL function definitions", functions.len());
    println!(
        "default (strict) reading: {strict_ok} read, {strict_invalid} invalid ({issues} non-standard types)"
    );
    println!("lenient reading: {lenient_ok} read, {lenient_valid} of them valid MCP tools");
    let mut list: Vec<_> = per_feature.into_iter().collect();
    list.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (detail, n) in list.iter().take(20) {
        println!("  {n:>6} x {detail}");
    }
    assert!(functions.len() > 3000, "{}", functions.len());
    // Every BFCL root is `"type": "dict"`.
    assert_eq!(strict_invalid, functions.len());
    assert_eq!(lenient_ok, functions.len());
    assert_eq!(lenient_valid, functions.len());
}

#[test]
fn names_route_back_across_a_batch() {
    let tools: Vec<Tool> = ["math.factorial", "math_factorial", "a b", &"x".repeat(80)]
        .iter()
        .map(|name| Tool::new(*name, ToolSchema::empty_object()))
        .collect();
    for target in Target::ALL {
        let batch = toolmodel::adapters::convert_all(&tools, target, &ConvertOptions::default());
        for (index, result) in batch.results.iter().enumerate() {
            let conversion = result.as_ref().unwrap();
            let entry = batch.names.get(&conversion.name).unwrap();
            assert_eq!(entry.index, index);
            assert_eq!(entry.original, tools[index].name);
            let back = read(target, &conversion.value, &ReadOptions::default()).unwrap();
            assert_eq!(
                batch.names.get(&back.tool.name).unwrap().original,
                tools[index].name
            );
            let renamed = conversion.warnings.iter().any(|w| w.feature == "name");
            assert_eq!(renamed, entry.is_renamed(), "{target} {}", conversion.name);
        }
    }
}

#[test]
fn tool_level_data_and_target_keys() {
    let tool = Tool::from_mcp_json(&json!({
        "name": "get_weather",
        "title": "Weather",
        "description": "Current weather",
        "inputSchema": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
        "outputSchema": {"type": "object", "properties": {"temp": {"type": "number"}}},
        "annotations": {"readOnlyHint": true},
        "_meta": {"ui": {}},
        "x-vendor": 1
    }))
    .unwrap();
    let anthropic = convert(&tool, Target::Anthropic, &ConvertOptions::default()).unwrap();
    let dropped: Vec<_> = anthropic
        .warnings
        .iter()
        .map(|w| (w.pointer.as_str(), w.action))
        .collect();
    let no = Action::Dropped { widened: false };
    assert_eq!(
        dropped,
        [
            ("/_meta", no),
            ("/annotations", no),
            ("/outputSchema", no),
            ("/title", no),
            ("/x-vendor", no)
        ]
    );
    let gemini = convert(&tool, Target::Gemini, &ConvertOptions::default()).unwrap();
    assert_eq!(
        gemini.value["response"]["properties"]["temp"]["type"],
        json!("NUMBER")
    );
    assert!(!gemini.warnings.iter().any(|w| w.feature == "outputSchema"));

    // Anthropic keys are carried through: read, keep in extra, write again.
    let wire = json!({
        "name": "lookup",
        "description": "Look up",
        "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"], "additionalProperties": false},
        "strict": true,
        "input_examples": [{"q": "rust"}],
        "cache_control": {"type": "ephemeral"}
    });
    let reading = read(Target::Anthropic, &wire, &ReadOptions::default()).unwrap();
    assert_eq!(
        reading.tool.extra["cache_control"],
        json!({"type": "ephemeral"})
    );
    let again = convert(&reading.tool, Target::Anthropic, &ConvertOptions::default()).unwrap();
    assert_eq!(again.value, wire);
    assert!(again.warnings.is_empty());
    let as_openai = convert(
        &reading.tool,
        Target::OpenAiChat,
        &ConvertOptions::default(),
    )
    .unwrap();
    assert_eq!(as_openai.value["function"]["strict"], json!(true));
    let dropped: Vec<_> = as_openai
        .warnings
        .iter()
        .map(|w| w.pointer.as_str())
        .collect();
    assert_eq!(dropped, ["/cache_control", "/input_examples"]);
}

#[test]
fn every_reader_reports_wrong_shapes_with_a_pointer() {
    let cases = [
        (
            Target::OpenAiChat,
            json!({"type": "function", "function": {"description": "x"}}),
            "/function",
        ),
        (
            Target::OpenAiChat,
            json!({"type": "function", "function": {"name": "a", "parameters": []}}),
            "/function/parameters",
        ),
        (
            Target::OpenAiResponses,
            json!({"type": "custom", "name": "a"}),
            "/type",
        ),
        (Target::Anthropic, json!({"name": "a"}), ""),
        (
            Target::Anthropic,
            json!({"name": 3, "input_schema": {}}),
            "/name",
        ),
        (
            Target::Gemini,
            json!({"name": "a", "parameters": {}, "parametersJsonSchema": {}}),
            "/parametersJsonSchema",
        ),
        (Target::Gemini, json!(["not", "an", "object"]), ""),
    ];
    for (target, value, pointer) in cases {
        match read(target, &value, &ReadOptions::default()) {
            Err(Error::Json { path, .. }) => assert_eq!(path, pointer, "{target} {value}"),
            other => panic!("{target} {value}: expected a JSON error, got {other:?}"),
        }
    }
    let bfcl = json!({"name": "f", "parameters": {"type": "dict", "properties": {"x": {"type": "float"}}}});
    let Err(Error::InvalidSchema { issues }) =
        read(Target::OpenAiChat, &bfcl, &ReadOptions::default())
    else {
        panic!("expected InvalidSchema");
    };
    let pointers: Vec<_> = issues.iter().map(|i| i.pointer.as_str()).collect();
    assert_eq!(
        pointers,
        ["/parameters/type", "/parameters/properties/x/type"]
    );
}

#[test]
fn strict_mode_on_a_target_without_one_is_an_error() {
    let tool = Tool::new("t", ToolSchema::empty_object());
    for target in [Target::Mcp, Target::Gemini] {
        let err = convert(&tool, target, &ConvertOptions::default().with_strict(true)).unwrap_err();
        assert!(
            matches!(err, Error::Conversion { reason, .. } if reason.contains("no strict mode"))
        );
    }
}

// ---- property test: round trips wherever no warning is issued ----

fn leaf() -> impl Strategy<Value = Value> {
    let ty = prop_oneof![
        Just("string"),
        Just("integer"),
        Just("number"),
        Just("boolean"),
        Just("null")
    ];
    (
        ty,
        proptest::option::of("[a-z ]{0,12}"),
        proptest::option::of(0u8..3),
        proptest::option::of(prop_oneof![
            Just(json!(["a", "b"])),
            Just(json!([1, 2])),
            Just(json!("c"))
        ]),
        any::<bool>(),
    )
        .prop_map(|(ty, description, bound, values, nullable)| {
            let mut map = Map::new();
            if nullable && ty != "null" {
                map.insert("type".into(), json!([ty, "null"]));
            } else {
                map.insert("type".into(), json!(ty));
            }
            if let Some(d) = description {
                map.insert("description".into(), json!(d));
            }
            match (ty, bound) {
                ("string", Some(n)) => {
                    map.insert("maxLength".into(), json!(n + 1));
                }
                ("integer" | "number", Some(n)) => {
                    map.insert("minimum".into(), json!(n));
                }
                _ => {}
            }
            match (ty, values) {
                ("string", Some(v @ Value::Array(_))) if v[0].is_string() => {
                    map.insert("enum".into(), v);
                }
                ("integer", Some(v @ Value::Array(_))) if v[0].is_number() => {
                    map.insert("enum".into(), v);
                }
                ("string", Some(v @ Value::String(_))) => {
                    map.insert("const".into(), v);
                }
                _ => {}
            }
            Value::Object(map)
        })
}

fn schema() -> impl Strategy<Value = Value> {
    leaf().prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            (
                proptest::collection::btree_map("[a-z]{1,6}", inner.clone(), 0..4),
                any::<bool>(),
                any::<bool>()
            )
                .prop_map(|(properties, all_required, closed)| {
                    let required: Vec<Value> = if all_required {
                        properties.keys().map(|k| json!(k)).collect()
                    } else {
                        properties.keys().take(1).map(|k| json!(k)).collect()
                    };
                    let mut map = Map::new();
                    map.insert("type".into(), json!("object"));
                    map.insert(
                        "properties".into(),
                        Value::Object(properties.into_iter().collect()),
                    );
                    map.insert("required".into(), Value::Array(required));
                    if closed {
                        map.insert("additionalProperties".into(), json!(false));
                    }
                    Value::Object(map)
                }),
            inner
                .clone()
                .prop_map(|items| json!({"type": "array", "items": items})),
            proptest::collection::vec(inner, 2..3).prop_map(|branches| json!({"anyOf": branches})),
        ]
    })
}

fn tool_strategy() -> impl Strategy<Value = Value> {
    (
        prop_oneof![4 => "[a-z_]{1,20}", 1 => "[a-z.]{1,20}"],
        proptest::option::of("[A-Za-z ]{0,30}"),
        proptest::collection::btree_map("[a-z]{1,6}", schema(), 0..4),
        any::<bool>(),
    )
        .prop_map(|(name, description, properties, closed)| {
            let required: Vec<Value> = properties.keys().take(2).map(|k| json!(k)).collect();
            let mut input =
                json!({"type": "object", "properties": properties, "required": required});
            if closed {
                input["additionalProperties"] = json!(false);
            }
            let mut tool = json!({"name": name, "inputSchema": input});
            if let Some(d) = description {
                tool["description"] = json!(d);
            }
            tool
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn round_trips_wherever_no_warning(wire in tool_strategy()) {
        let tool = Tool::from_mcp_json(&wire).unwrap();
        for (column, target, options) in toolmodel_tests::adapter_columns() {
            let Ok(conversion) = convert(&tool, target, &options) else {
                continue;
            };
            let back = read(target, &conversion.value, &ReadOptions::default());
            prop_assert!(back.is_ok(), "{} {}: {:?}", column, conversion.value, back);
            if conversion.warnings.is_empty() {
                let back = back.unwrap().tool;
                prop_assert_eq!(mcp_form_without_strict_marker(&back, &tool), tool.to_mcp_json(), "{}", column);
            }
            // Only schema changes can widen: tool-level warnings never do.
            let widening: Vec<&Warning> = conversion.warnings.iter().filter(|w| w.action.widens()).collect();
            for warning in widening {
                prop_assert!(warning.slot.is_some(), "{}", warning);
            }
        }
    }
}
