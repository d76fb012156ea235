//! Argument feedback a model can act on (issue 20): every violation names where (the instance
//! location, or the key) and what would be accepted (the values, the type, the keys, the
//! limit).
//!
//! The measure: over every distinct corpus `inputSchema` that compiles, bad arguments are
//! generated per tool (unexpected keys, a wrong type per property, a value outside each enum
//! however it is written, nothing at all for the required keys), validated, and each violation
//! is checked against its schema keyword by a rule written here, independently of how the
//! messages are built. The share of violations that pass is printed; the goal is 100%.

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use toolmodel::{
    CallContext, DefaultValidator, Error, SyncToolHandler, Tool, ToolError, Toolbox,
    schemars::{self, JsonSchema},
    validate::InstanceError,
};

fn violations(schema: &Value, instance: &Value) -> Vec<InstanceError> {
    match DefaultValidator::new()
        .compile(schema)
        .unwrap()
        .validate(instance)
    {
        Err(Error::InvalidInstance { errors }) => errors,
        other => panic!("{instance} against {schema}: expected violations, got {other:?}"),
    }
}

#[test]
fn every_unexpected_key_is_named_at_its_own_pointer() {
    // The issue's `ping`: no properties, closed; two unexpected keys.
    let ping = json!({"type": "object", "additionalProperties": false});
    let errors = violations(&ping, &json!({"a": 1, "b": "x"}));
    let paths: Vec<_> = errors.iter().map(|e| e.instance_path.as_str()).collect();
    assert_eq!(paths, ["/a", "/b"], "{errors:?}");
    assert_eq!(
        errors[0].to_string(),
        "/a: unexpected property \"a\": this object takes no properties (schema /additionalProperties)"
    );
    assert_eq!(errors[1].keyword, "additionalProperties");

    // With properties: the keys it takes, and the closest one for a typo.
    let search = json!({
        "type": "object",
        "properties": {"query": {"type": "string"}, "tags": {"type": "array"}},
        "additionalProperties": false
    });
    let errors = violations(&search, &json!({"query": "x", "tgas": [], "a/b": 1}));
    let found: Vec<_> = errors.iter().map(ToString::to_string).collect();
    assert_eq!(
        found,
        [
            "/a~1b: unexpected property \"a/b\"; expected one of \"query\" or \"tags\" (schema /additionalProperties)",
            "/tgas: unexpected property \"tgas\"; expected one of \"query\" or \"tags\" (did you mean \"tags\"?) (schema /additionalProperties)",
        ]
    );

    // `patternProperties` keys are taken; nested objects are named at their own depth.
    let nested = json!({
        "type": "object",
        "properties": {"filter": {
            "type": "object",
            "properties": {"since": {}},
            "patternProperties": {"^x-": {}},
            "additionalProperties": false
        }}
    });
    let errors = violations(
        &nested,
        &json!({"filter": {"since": 1, "x-ok": 1, "until": 2}}),
    );
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].instance_path, "/filter/until");

    // `unevaluatedProperties: false` the same way.
    let unevaluated = json!({
        "type": "object",
        "allOf": [{"properties": {"a": {}}}],
        "unevaluatedProperties": false
    });
    let errors = violations(&unevaluated, &json!({"a": 1, "z": 2}));
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].instance_path, "/z");
    assert!(errors[0].message.contains("\"z\""), "{}", errors[0].message);
}

#[test]
fn enums_list_every_allowed_value_however_written() {
    let units = ["celsius", "fahrenheit", "kelvin_no", "rankine", "reaumur"];
    let as_enum = json!({"properties": {"unit": {"enum": units}}});
    let as_any_of = json!({"properties": {"unit": {"anyOf": units.map(|u| json!({"const": u, "description": u}))}}});
    let as_one_of = json!({"properties": {"unit": {"type": "string", "oneOf": units.map(|u| json!({"const": u}))}}});
    let bad = json!({"unit": "kelvin"});
    for schema in [as_enum, as_any_of, as_one_of] {
        let errors = violations(&schema, &bad);
        assert_eq!(errors.len(), 1, "{errors:?}");
        assert_eq!(errors[0].instance_path, "/unit");
        assert_eq!(
            errors[0].message,
            "\"kelvin\" is not one of \"celsius\", \"fahrenheit\", \"kelvin_no\", \"rankine\" or \"reaumur\"",
            "{schema}"
        );
    }
}

#[test]
fn a_union_says_what_each_branch_wanted() {
    let schema = json!({"properties": {"limit": {"anyOf": [{"type": "integer", "maximum": 10}, {"type": "null"}]}}});
    let errors = violations(&schema, &json!({"limit": "ten"}));
    assert_eq!(
        errors[0].message,
        "\"ten\" matches none of the 2 schemas of 'anyOf': #0: \"ten\" is not of type \"integer\"; #1: \"ten\" is not of type \"null\""
    );
    let errors = violations(&schema, &json!({"limit": 11}));
    assert!(
        errors[0]
            .message
            .contains("#0: 11 is greater than the maximum of 10"),
        "{errors:?}"
    );
}

/// Notes, searched.
#[derive(Debug, Default, Deserialize, JsonSchema, toolmodel::Tool)]
#[tool(namespace = "notes")]
struct SearchNotes {
    query: String,
}

impl SyncToolHandler for SearchNotes {
    type Reply = String;
    fn call_sync(&self, args: SearchNotes, _cx: &CallContext) -> Result<String, ToolError> {
        Ok(args.query)
    }
}

#[test]
fn an_unknown_tool_gets_the_nearest_served_name() {
    let toolbox = Toolbox::builder()
        .with(SearchNotes::default())
        .build()
        .unwrap();
    let cx = CallContext::new();
    let call = |name: &str| pollster::block_on(toolbox.call(name, None, &cx)).unwrap_err();
    let err = call("search_notes");
    assert_eq!(
        err,
        Error::UnknownTool {
            name: "search_notes".into(),
            nearest: Some("notes.search_notes".into())
        }
    );
    assert_eq!(
        err.to_string(),
        "unknown tool \"search_notes\" (did you mean \"notes.search_notes\"?)"
    );
    assert_eq!(err.jsonrpc_code(), -32602);
    assert!(
        matches!(call("notes.serch_notes"), Error::UnknownTool { nearest: Some(n), .. } if n == "notes.search_notes")
    );
    assert!(matches!(
        call("delete_all"),
        Error::UnknownTool { nearest: None, .. }
    ));
    let by_id = pollster::block_on(toolbox.call_id(&"search_notes".parse().unwrap(), None, &cx));
    // The suggestion is an ID that routes: `notes:search_notes`, or the listed tool's own ID
    // `notes.search_notes` (a listed tool has no namespace, and its ID is its MCP name).
    let Err(Error::UnknownTool {
        nearest: Some(nearest),
        ..
    }) = by_id
    else {
        panic!("no suggestion: {by_id:?}");
    };
    assert!(
        ["notes:search_notes", "notes.search_notes"].contains(&nearest.as_str()),
        "{nearest}"
    );
    let routed = pollster::block_on(toolbox.call_id(
        &nearest.parse().unwrap(),
        json!({"query": "x"}).as_object().cloned(),
        &cx,
    ));
    assert!(routed.is_ok(), "{nearest} does not route: {routed:?}");
    // A misspelt argument of a derived tool is named (closed input schema).
    let result = pollster::block_on(toolbox.call(
        "notes.search_notes",
        json!({"query": "x", "qeury": "y"}).as_object().cloned(),
        &cx,
    ))
    .unwrap();
    assert!(result.is_error());
    assert!(
        result
            .text_content()
            .contains("/qeury: unexpected property \"qeury\""),
        "{}",
        result.text_content()
    );
}

// ---- the measure over the corpus ----

/// The JSON type names a value has (an integer is a number too).
fn types_of(value: &Value) -> &'static [&'static str] {
    match value {
        Value::Null => &["null"],
        Value::Bool(_) => &["boolean"],
        Value::Number(n) if n.is_i64() || n.is_u64() => &["integer", "number"],
        Value::Number(_) => &["number"],
        Value::String(_) => &["string"],
        Value::Array(_) => &["array"],
        Value::Object(_) => &["object"],
    }
}

/// The type names a schema's `type` allows, or of its `anyOf`/`oneOf` branches; `None` when
/// some part allows any type.
fn allowed_types(schema: &Value) -> Option<BTreeSet<String>> {
    if let Some(types) = schema.get("type") {
        return Some(match types {
            Value::String(one) => [one.clone()].into(),
            Value::Array(many) => many
                .iter()
                .filter_map(Value::as_str)
                .map(str::to_owned)
                .collect(),
            _ => return None,
        });
    }
    let branches = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))?
        .as_array()?;
    let mut all = BTreeSet::new();
    for branch in branches {
        all.extend(allowed_types(branch)?);
    }
    Some(all)
}

/// The values an enum allows, written as `enum`, or as `anyOf`/`oneOf` of `const`s / `enum`s.
fn enum_values(schema: &Value) -> Option<Vec<Value>> {
    if let Some(values) = schema.get("enum").and_then(Value::as_array) {
        return Some(values.clone());
    }
    let branches = schema
        .get("anyOf")
        .or_else(|| schema.get("oneOf"))?
        .as_array()?;
    let mut values = Vec::new();
    for branch in branches {
        if let Some(value) = branch.get("const") {
            values.push(value.clone());
        } else {
            values.extend(branch.get("enum")?.as_array()?.iter().cloned());
        }
    }
    Some(values)
}

/// Bad arguments for one input schema: `(what, arguments)`.
fn bad_arguments(schema: &Value) -> Vec<(String, Value)> {
    let mut cases = vec![
        ("missing required keys".to_owned(), json!({})),
        (
            "unexpected keys".to_owned(),
            json!({"zz_unexpected": 1, "another_unknown_key": "x"}),
        ),
    ];
    let properties = schema
        .get("properties")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    let candidates = [
        json!(true),
        json!("zz"),
        json!(12.5),
        json!([]),
        json!({}),
        json!(null),
        json!(7),
    ];
    for (key, property) in &properties {
        if let Some(types) = allowed_types(property) {
            // An integer is a number too (`types_of`), so "number" takes every number.
            let wrong = candidates
                .iter()
                .find(|value| !types_of(value).iter().any(|t| types.contains(*t)));
            if let Some(wrong) = wrong {
                let mut args = Map::new();
                args.insert(key.clone(), wrong.clone());
                cases.push((format!("wrong type for {key:?}"), Value::Object(args)));
            }
        }
        if let Some(values) = enum_values(property) {
            let outside = if values.iter().all(Value::is_string) {
                json!("zz_not_an_allowed_value")
            } else {
                json!(987_654_321)
            };
            if !values.contains(&outside) {
                let mut args = Map::new();
                args.insert(key.clone(), outside);
                cases.push((format!("outside the enum of {key:?}"), Value::Object(args)));
            }
        }
    }
    cases
}

/// The quoted JSON text of a name, as messages write it.
fn quoted(name: &str) -> String {
    Value::from(name).to_string()
}

/// Whether a violation names the offending key or location and what would be accepted; the
/// reason when not.
fn actionable(schema: &Value, instance: &Value, error: &InstanceError) -> Result<(), String> {
    let keyword_value = schema.pointer(&error.schema_path);
    let parent = error
        .schema_path
        .rsplit_once('/')
        .and_then(|(parent, _)| schema.pointer(parent));
    let message = &error.message;
    let names_a_key = |object: Option<&Value>| {
        object
            .and_then(|o| o.get("properties"))
            .and_then(Value::as_object)
            .is_some_and(|p| p.keys().any(|k| message.contains(&quoted(k))))
    };
    let located = !error.instance_path.is_empty()
        || names_a_key(parent)
        || names_a_key(Some(schema))
        || key_names(parent.unwrap_or(schema))
            .iter()
            .any(|k| message.contains(&quoted(k)));
    if !located {
        return Err("names neither a location nor a key".into());
    }
    let contains_all = |values: &[Value]| values.iter().all(|v| message.contains(&v.to_string()));
    let accepted = match error.keyword.as_str() {
        "type" => keyword_value
            .and_then(allowed_types_of_keyword)
            .is_some_and(|types| types.iter().all(|t| message.contains(&quoted(t)))),
        "enum" => keyword_value
            .and_then(Value::as_array)
            .is_some_and(|v| contains_all(v)),
        "const" => keyword_value.is_some_and(|v| message.contains(&v.to_string())),
        "anyOf" | "oneOf" => match parent.and_then(enum_values) {
            Some(values) => contains_all(&values),
            None => keyword_value
                .and_then(Value::as_array)
                .is_some_and(|branches| {
                    branches.iter().enumerate().all(|(index, branch)| {
                        let types = branch.get("type").and_then(allowed_types_of_keyword);
                        let value = instance.pointer(&error.instance_path);
                        let matches_type = types.as_ref().is_none_or(|types| {
                            value.is_some_and(|v| types_of(v).iter().any(|t| types.contains(*t)))
                        });
                        message.contains(&format!("#{index}: "))
                            && (matches_type
                                || types.is_some_and(|types| {
                                    types.iter().any(|t| message.contains(&quoted(t)))
                                }))
                    })
                }),
        },
        "additionalProperties" | "unevaluatedProperties" => {
            let key = error
                .instance_path
                .rsplit('/')
                .next()
                .unwrap_or_default()
                .replace("~1", "/")
                .replace("~0", "~");
            let known: Vec<String> = parent
                .and_then(|p| p.get("properties"))
                .and_then(Value::as_object)
                .map(|p| p.keys().cloned().collect())
                .unwrap_or_default();
            message.contains(&quoted(&key))
                && (if known.is_empty() {
                    message.contains("takes no properties")
                } else {
                    known.iter().all(|k| message.contains(&quoted(k)))
                })
        }
        "required" => {
            let object = instance
                .pointer(&error.instance_path)
                .and_then(Value::as_object);
            let missing_named = |required: &Vec<Value>| {
                required.iter().filter_map(Value::as_str).any(|key| {
                    !object.is_some_and(|o| o.contains_key(key)) && message.contains(&quoted(key))
                })
            };
            match keyword_value {
                Some(Value::Array(required)) => missing_named(required),
                // `dependentRequired`: a missing key, and the present key that requires it.
                Some(Value::Object(dependencies)) => {
                    dependencies.iter().any(|(trigger, needed)| {
                        object.is_some_and(|o| o.contains_key(trigger))
                            && message.contains(&quoted(trigger))
                            && needed.as_array().is_some_and(missing_named)
                    })
                }
                _ => false,
            }
        }
        "falseSchema" => message.contains("accepts no value"),
        // Limits, patterns, formats...: the keyword's value is in the message.
        _ => keyword_value.is_some_and(|v| {
            let text = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            message.contains(&text)
        }),
    };
    if accepted {
        Ok(())
    } else {
        Err("does not say what would be accepted".into())
    }
}

/// Every property name a schema mentions, in `properties` or `required`, at any depth.
fn key_names(schema: &Value) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut stack = vec![schema];
    while let Some(value) = stack.pop() {
        match value {
            Value::Object(object) => {
                if let Some(Value::Object(properties)) = object.get("properties") {
                    names.extend(properties.keys().cloned());
                }
                if let Some(Value::Array(required)) = object.get("required") {
                    names.extend(required.iter().filter_map(Value::as_str).map(str::to_owned));
                }
                stack.extend(object.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    names
}

/// The type names of a `type` keyword's value.
fn allowed_types_of_keyword(value: &Value) -> Option<BTreeSet<String>> {
    allowed_types(&json!({"type": value}))
}

#[test]
fn corpus_feedback_names_where_and_what_is_accepted() {
    let Some(tools) = toolmodel_tests::corpus_tools() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI: the corpus (../shared/corpus) is missing"
        );
        eprintln!("skipped: the corpus (../shared/corpus) is missing; set TOOLMODEL_SHARED");
        return;
    };
    let validator = DefaultValidator::new();
    let mut seen = BTreeSet::new();
    let (mut schemas, mut cases, mut total, mut good) = (0, 0, 0usize, 0usize);
    let mut by_keyword = std::collections::BTreeMap::<String, (usize, usize)>::new();
    let mut failures = Vec::new();
    for (source, value) in &tools {
        let Ok(tool) = Tool::from_mcp_json(value) else {
            continue;
        };
        let schema = tool.input_schema.as_value().clone();
        if !seen.insert(schema.to_string()) {
            continue;
        }
        let Ok(compiled) = validator.compile(&schema) else {
            continue;
        };
        schemas += 1;
        for (what, arguments) in bad_arguments(&schema) {
            let Err(Error::InvalidInstance { errors }) = compiled.validate(&arguments) else {
                continue;
            };
            cases += 1;
            for error in &errors {
                total += 1;
                let entry = by_keyword.entry(error.keyword.clone()).or_default();
                entry.0 += 1;
                match actionable(&schema, &arguments, error) {
                    Ok(()) => {
                        good += 1;
                        entry.1 += 1;
                    }
                    Err(why) => failures.push(format!("{source} ({what}): {error}: {why}")),
                }
            }
        }
    }
    let share = 100.0 * good as f64 / total.max(1) as f64;
    println!(
        "feedback: {schemas} distinct input schemas, {cases} bad arguments, {total} violations, \
         {good} name where and what is accepted: {share:.1}%"
    );
    for (keyword, (count, ok)) in &by_keyword {
        println!("  {keyword:<24} {ok:>6} of {count:>6}");
    }
    for failure in failures.iter().take(20) {
        println!("  not actionable: {failure}");
    }
    assert!(total > 1000, "too few violations generated: {total}");
    assert_eq!(
        good,
        total,
        "{} violations are not actionable",
        failures.len()
    );
}
