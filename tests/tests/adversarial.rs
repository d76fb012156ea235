//! Hostile input: schemas any MCP server may send, arguments any model may write, text any peer
//! may send. Each test states the case and the typed error it must give: never a panic, a
//! stack overflow, a hang, unbounded memory, a fetch, or a silent change.
//!
//! Values nested 100,000 levels deep are built in code and taken apart with
//! [`toolmodel::validate::dismantle`] (dropping them would recurse). Everything runs on the test
//! harness's threads (2 MB of stack), which is itself part of what is tested. Timing claims
//! live in `cargo bench -p toolmodel --bench hostile`, not here.

use std::{fmt::Write as _, process::Command};

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use toolmodel::{
    DefaultValidator, Error, SchemaValidator, Tool, ToolSchema, Violation,
    adapters::{self, ConvertOptions, ReadOptions, Target},
    model::{
        name::{NameError, NameProblem, check_name},
        parse_tool_id,
        tags::normalize_tags,
    },
    validate::{ValidationLimits, dismantle},
    wire::catalog::tool_values,
};
use toolmodel_tests::external_reference_cases;

fn tool_with(schema: Value) -> Tool {
    Tool::new("t", ToolSchema::try_from(schema).unwrap())
}

/// `levels` arrays around `1`.
fn nested_arrays(levels: usize) -> Value {
    let mut value = json!(1);
    for _ in 0..levels {
        value = Value::Array(vec![value]);
    }
    value
}

/// `levels` schemas, each the `items` of the one around it.
fn nested_items(levels: usize) -> Value {
    let mut value = json!({"type": "integer"});
    for _ in 1..levels {
        let mut map = Map::new();
        map.insert("items".into(), value);
        value = Value::Object(map);
    }
    value
}

/// Takes the tool's schemas out and dismantles them, so that dropping the tool does not recurse.
fn dismantle_tool(mut tool: Tool) {
    if let Some(output) = tool.output_schema.take() {
        // A clone of the input schema is one allocation with it: only the last owner takes
        // the value apart (`Value::from` would copy a shared one, recursively).
        if output.identity() != tool.input_schema.identity() {
            dismantle(Value::from(output));
        }
    }
    let input = std::mem::replace(&mut tool.input_schema, ToolSchema::empty_object());
    dismantle(Value::from(input));
    if let Some(meta) = tool.meta.take() {
        dismantle(Value::Object(meta));
    }
    dismantle(Value::Object(std::mem::take(&mut tool.extra)));
}

// ---------------------------------------------------------------------------------------------
// External references: never fetched, always `Error::ExternalRef` (or `UnsupportedSchema` for a
// `$schema` the validator does not hold).
// ---------------------------------------------------------------------------------------------

/// Every reference form to a resource outside the schema (`http:`, `https:`, `file:`, `urn:`,
/// relative without a base, rebased by a root or embedded `$id`, `$dynamicRef`, a meta-schema
/// the validator does not hold, a `$schema` naming a remote or file meta-schema) gives its
/// typed error from `compile`, `validate` and `validate_arguments` alike. `no_network.rs` runs
/// the same cases in a process without network.
#[test]
fn every_external_reference_form_is_a_typed_error() {
    let validator = DefaultValidator::new();
    for (what, schema, expected) in external_reference_cases() {
        assert_eq!(
            validator.compile(&schema).unwrap_err(),
            expected,
            "compile: {what}"
        );
        assert_eq!(
            validator.validate(&schema, &json!({"a": 1})).unwrap_err(),
            expected,
            "validate: {what}"
        );
        let tool = tool_with(schema);
        for _ in 0..2 {
            assert_eq!(
                validator
                    .validate_arguments(&tool, &json!({"a": 1}))
                    .unwrap_err(),
                expected,
                "validate_arguments (compiled, then cached): {what}"
            );
        }
    }
}

/// A reference to the meta-schema the validator holds for the schema's own dialect is local:
/// it validates instances as schemas.
#[test]
fn a_reference_to_the_held_meta_schema_works() {
    let compiled = DefaultValidator::new()
        .compile(&json!({"$ref": "https://json-schema.org/draft/2020-12/schema"}))
        .unwrap();
    assert!(compiled.is_valid(&json!({"type": "string"})));
    assert!(matches!(
        compiled.validate(&json!({"type": 5})),
        Err(Error::InvalidInstance { .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// Reference cycles and expansions.
// ---------------------------------------------------------------------------------------------

/// `$ref` cycles that consume no part of the instance (`{"$ref": "#"}`, `allOf` back to the
/// root, two definitions referring to each other, a `not` paradox, a `$dynamicRef` to its own
/// anchor) compile, and `jsonschema` cuts the cycle where it comes back to the same subschema
/// at the same place of the instance, which then counts as passing: every instance is valid,
/// and validation finishes.
#[test]
fn reference_cycles_that_consume_nothing_are_cut() {
    let validator = DefaultValidator::new();
    for schema in [
        json!({"$ref": "#"}),
        json!({"allOf": [{"$ref": "#"}]}),
        json!({"$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}}, "$ref": "#/$defs/a"}),
        json!({"$defs": {"a": {"anyOf": [{"$ref": "#/$defs/b"}]}, "b": {"not": {"$ref": "#/$defs/a"}}},
               "$ref": "#/$defs/a"}),
        json!({"$dynamicAnchor": "n", "anyOf": [{"$dynamicRef": "#n"}]}),
    ] {
        let compiled = validator.compile(&schema).unwrap();
        for instance in [json!(null), json!([1, [2]]), json!({"a": {"b": "c"}})] {
            assert_eq!(compiled.validate(&instance), Ok(()), "{schema} {instance}");
        }
    }
}

/// A cycle that consumes the instance (a tree) validates at every level, and reports a
/// violation at its place.
#[test]
fn a_recursive_schema_validates_every_level() {
    let schema = json!({"type": "object", "required": ["v"],
        "properties": {"v": {"type": "integer"}, "children": {"type": "array", "items": {"$ref": "#"}}}});
    let compiled = DefaultValidator::new().compile(&schema).unwrap();
    assert_eq!(compiled.max_instance_depth(), 128);
    let mut tree = json!({"v": "leaf"});
    let mut pointer = String::new();
    for _ in 0..60 {
        tree = json!({"v": 1, "children": [tree]});
        pointer.push_str("/children/0");
    }
    let Err(Error::InvalidInstance { errors }) = compiled.validate(&tree) else {
        panic!("expected InvalidInstance")
    };
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert_eq!(errors[0].instance_path, format!("{pointer}/v"));
}

fn laughs(levels: usize) -> Value {
    let mut defs = Map::new();
    for k in 0..levels {
        let next = format!("#/$defs/a{}", k + 1);
        defs.insert(
            format!("a{k}"),
            json!({"allOf": [{"$ref": next}, {"$ref": next}]}),
        );
    }
    defs.insert(format!("a{levels}"), json!({"type": "integer"}));
    json!({"$defs": defs, "$ref": "#/$defs/a0"})
}

/// A "billion laughs" of definitions that each refer twice to the next: 2 KB of schema that
/// `jsonschema` would make validation visit 2^40 subschemas for (and report as many errors)
/// is refused at compile time with `SchemaTooLarge`, naming the first definition whose
/// expansion alone exceeds the budget; with fewer levels it compiles and validates.
#[test]
fn a_billion_laughs_is_too_large() {
    let validator = DefaultValidator::new();
    let Err(Error::SchemaTooLarge { pointer, limit }) = validator.compile(&laughs(40)) else {
        panic!("expected SchemaTooLarge")
    };
    assert_eq!(limit, 100_000);
    assert!(pointer.starts_with("/$defs/a"), "{pointer}");
    let compiled = validator.compile(&laughs(8)).unwrap();
    assert_eq!(compiled.validate(&json!(1)), Ok(()));
    let Err(Error::InvalidInstance { errors }) = compiled.validate(&json!("x")) else {
        panic!("expected InvalidInstance")
    };
    assert_eq!(errors.len(), 256, "2^8 paths reach the leaf");
    // The budget is a limit: lowered, fewer levels are refused.
    let mut limits = ValidationLimits::default();
    limits.max_expansion = 100;
    assert!(matches!(
        DefaultValidator::new()
            .with_limits(limits)
            .compile(&laughs(8)),
        Err(Error::SchemaTooLarge { limit: 100, .. })
    ));
    // The adapters inline references for Gemini within a budget of JSON values (100,000 by
    // default): a tree of 20 levels whose every level refers twice to the next (2^20 leaves;
    // `allOf` laughs are merged away before inlining) stops with `SchemaTooLarge`.
    let mut defs = Map::new();
    for k in 0..20 {
        let next = json!({"$ref": format!("#/$defs/t{}", k + 1)});
        defs.insert(
            format!("t{k}"),
            json!({"type": "object", "properties": {"l": next, "r": next}}),
        );
    }
    defs.insert("t20".into(), json!({"type": "integer"}));
    let tool = tool_with(json!({"type": "object", "$defs": defs,
                                "properties": {"a": {"$ref": "#/$defs/t0"}}}));
    let err = adapters::convert(&tool, Target::Gemini, &ConvertOptions::default()).unwrap_err();
    let Error::SchemaTooLarge { pointer, limit } = &err else {
        panic!("expected SchemaTooLarge, got {err:?}")
    };
    assert_eq!(*limit, 100_000);
    assert!(pointer.starts_with("/inputSchema"), "{pointer}");
}

fn chain_of_refs(length: usize, closing: Value) -> Value {
    let mut defs = Map::new();
    for k in 0..length {
        defs.insert(
            format!("a{k}"),
            json!({"$ref": format!("#/$defs/a{}", k + 1)}),
        );
    }
    defs.insert(format!("a{length}"), closing);
    json!({"$defs": defs, "$ref": "#/$defs/a0"})
}

/// A chain of 100,000 references (JSON depth 3) would make `jsonschema` take 55 s to compile
/// and overflow the stack validating: refused as `SchemaTooDeep` where the chain starts.
/// Closed into a cycle through `items`, the same, at the `items` that leads back.
#[test]
fn a_long_chain_of_references_is_too_deep() {
    let validator = DefaultValidator::new();
    for (length, closing, pointer) in [
        (100_000, json!({"type": "integer"}), String::new()),
        (
            1_000,
            json!({"type": "array", "items": {"$ref": "#"}}),
            "/$defs/a1000/items".to_owned(),
        ),
    ] {
        assert_eq!(
            validator
                .compile(&chain_of_refs(length, closing))
                .unwrap_err(),
            Error::SchemaTooDeep {
                pointer,
                limit: 128
            }
        );
    }
}

/// A chain at one place of the instance repeats at every level of a recursive schema:
/// validation nests (chain + 1) × (depth + 1) subschemas. The instance depth allowed shrinks
/// so that this stays within `max_recursion` (4,096): the longest chain allowed (128) with the
/// deepest instance it allows (30) validates here, on a 2 MB test thread of a debug build;
/// one level more is `InstanceTooDeep` naming the lowered limit.
#[test]
fn long_chains_lower_the_instance_depth_and_validation_fits_a_small_stack() {
    let validator = DefaultValidator::new();
    // The chain: the `items` subschema, the root, and the `length + 1` definitions.
    for (length, depth) in [(10, 128), (30, 119), (60, 63), (125, 30)] {
        let compiled = validator
            .compile(&chain_of_refs(
                length,
                json!({"type": "array", "items": {"$ref": "#"}}),
            ))
            .unwrap();
        assert_eq!(compiled.max_instance_depth(), depth, "chain of {length}");
        let mut instance = json!([]);
        for _ in 1..depth {
            instance = json!([instance]);
        }
        assert_eq!(compiled.validate(&instance), Ok(()), "chain of {length}");
        let too_deep = json!([instance]);
        assert_eq!(
            compiled.validate(&too_deep),
            Err(Error::InstanceTooDeep {
                pointer: "/0".repeat(depth),
                limit: depth
            })
        );
        assert!(!compiled.is_valid(&too_deep));
    }
}

// ---------------------------------------------------------------------------------------------
// Depth: values nested 100,000 deep, built in code.
// ---------------------------------------------------------------------------------------------

/// A schema nested 100,000 levels deep (`jsonschema` alone overflows near 30,000) is
/// `SchemaTooDeep` from `compile`, `validate`, `validate_arguments` and `validate_result`,
/// pointing at the first value beyond 128 levels.
#[test]
fn a_schema_nested_100_000_deep_is_too_deep() {
    let validator = DefaultValidator::new();
    let expected = Error::SchemaTooDeep {
        pointer: "/items".repeat(128),
        limit: 128,
    };
    let deep = nested_items(100_000);
    assert_eq!(validator.compile(&deep).unwrap_err(), expected);
    assert_eq!(validator.validate(&deep, &json!([])).unwrap_err(), expected);
    let mut tool = tool_with(deep);
    assert_eq!(
        validator.validate_arguments(&tool, &json!({})).unwrap_err(),
        expected
    );
    tool.output_schema = Some(tool.input_schema.clone());
    assert_eq!(
        validator.validate_result(&tool, &json!({})).unwrap_err(),
        expected
    );
    dismantle_tool(tool);
}

/// An instance nested 100,000 levels deep is `InstanceTooDeep` (nothing validated) from every
/// entry point, and not valid for `is_valid`, even against `{}`, which accepts anything.
#[test]
fn an_instance_nested_100_000_deep_is_too_deep() {
    let validator = DefaultValidator::new();
    let expected = Error::InstanceTooDeep {
        pointer: "/0".repeat(128),
        limit: 128,
    };
    let deep = nested_arrays(100_000);
    let compiled = validator.compile(&json!({})).unwrap();
    assert_eq!(compiled.validate(&deep).unwrap_err(), expected);
    assert!(!compiled.is_valid(&deep));
    assert_eq!(
        validator
            .validate(&json!({"items": {"$ref": "#"}}), &deep)
            .unwrap_err(),
        expected
    );
    let mut tool = tool_with(json!({"type": "object"}));
    // Not `json!({"a": deep})`: `json!` copies an expression through `serde_json::to_value`,
    // which recurses.
    let mut arguments = json!({});
    arguments["a"] = deep;
    assert_eq!(
        validator.validate_arguments(&tool, &arguments).unwrap_err(),
        Error::InstanceTooDeep {
            pointer: format!("/a{}", "/0".repeat(127)),
            limit: 128
        }
    );
    tool.output_schema = Some(ToolSchema::try_from(json!({})).unwrap());
    assert_eq!(
        validator.validate_result(&tool, &arguments).unwrap_err(),
        Error::InstanceTooDeep {
            pointer: format!("/a{}", "/0".repeat(127)),
            limit: 128
        }
    );
    dismantle(arguments);
}

/// Reading a tool from a `Value` nested 100,000 deep (`serde` would recurse once per level) is
/// `Error::Json` at the first value beyond 128 levels of the tool, for both JSON forms; text
/// nested that deep is refused by `serde_json` itself (128 levels), with line and column.
#[test]
fn reading_a_tool_nested_100_000_deep_is_an_error() {
    let mut wire = json!({"name": "t"});
    wire["inputSchema"] = nested_items(100_000);
    let expected = Error::Json {
        path: format!("/inputSchema{}", "/items".repeat(127)),
        line: 0,
        column: 0,
        message: "nested more than 128 levels".into(),
    };
    assert_eq!(Tool::from_mcp_json(&wire).unwrap_err(), expected);
    assert_eq!(Tool::from_json(&wire).unwrap_err(), expected);
    dismantle(wire);

    let text = format!(
        r#"{{"name": "t", "inputSchema": {{"x": {}1{}}}}}"#,
        "[".repeat(100_000),
        "]".repeat(100_000)
    );
    let Err(Error::Json {
        line,
        column,
        message,
        ..
    }) = Tool::from_mcp_str(&text)
    else {
        panic!("expected Error::Json")
    };
    // The 128th container: the 126th `[`, which starts at column 36.
    assert_eq!((line, column), (1, 161));
    assert!(message.starts_with("recursion limit exceeded"), "{message}");
}

/// `Tool::validate` reports a value nested too deep (it could not be written and read back)
/// as `Violation::TooDeep` at its pointer, in a schema, `_meta` or an unknown key, and prints
/// a deep root `type` without recursing.
#[test]
fn tool_validate_reports_values_nested_too_deep() {
    let mut schema = json!({});
    schema["type"] = nested_arrays(100_000);
    let mut tool = tool_with(schema);
    let mut meta = Map::new();
    meta.insert("deep".into(), nested_arrays(100_000));
    tool.meta = Some(meta);
    tool.extra.insert("x/y".into(), nested_arrays(100_000));
    let violations = tool.violations();
    let found: Vec<String> = violations.iter().map(Violation::pointer).collect();
    assert_eq!(
        found,
        [
            "/inputSchema/type".to_owned(),
            format!("/inputSchema/type{}", "/0".repeat(126)),
        ]
    );
    assert_eq!(
        violations[0].to_string(),
        "/inputSchema/type: inputSchema root has \"type\": a value nested more than 128 levels; MCP requires \"type\": \"object\""
    );
    // With a shallow schema, the next deep value is reported.
    let input = std::mem::replace(&mut tool.input_schema, ToolSchema::empty_object());
    dismantle(Value::from(input));
    assert_eq!(
        tool.violations(),
        [Violation::TooDeep {
            pointer: format!("/_meta/deep{}", "/0".repeat(126)),
            limit: 128
        }]
    );
    dismantle(Value::Object(tool.meta.take().unwrap()));
    assert_eq!(
        tool.validate(),
        Err(Error::InvalidTool {
            name: "t".into(),
            violations: vec![Violation::TooDeep {
                pointer: format!("/x~1y{}", "/0".repeat(127)),
                limit: 128
            }]
        })
    );
    dismantle_tool(tool);
}

/// The catalog walk and the adapters (both directions) refuse values nested 100,000 deep with
/// their own typed errors.
#[test]
fn catalog_and_adapters_refuse_values_nested_100_000_deep() {
    let deep = nested_arrays(100_000);
    assert_eq!(
        tool_values(&deep).unwrap_err(),
        Error::UnrecognizedDocument {
            pointer: "/0".repeat(128),
            reason: "nested more than 128 levels".into()
        }
    );
    let mut document = json!({"name": "t", "input_schema": {"type": "object"}});
    document["cache_control"] = deep;
    assert_eq!(
        adapters::read(Target::Anthropic, &document, &ReadOptions::default()).unwrap_err(),
        Error::Json {
            path: format!("/cache_control{}", "/0".repeat(127)),
            line: 0,
            column: 0,
            message: "nested more than 128 levels".into()
        }
    );
    dismantle(document);

    let tool = tool_with(nested_items(100_000));
    let options = ConvertOptions::default();
    assert_eq!(
        adapters::convert(&tool, Target::OpenAiChat, &options).unwrap_err(),
        Error::SchemaTooDeep {
            pointer: format!("/inputSchema{}", "/items".repeat(121)),
            limit: 120
        }
    );
    dismantle_tool(tool);
    let mut tool = tool_with(json!({"type": "object"}));
    tool.extra.insert("x".into(), nested_arrays(100_000));
    for target in Target::ALL {
        assert_eq!(
            adapters::convert(&tool, target, &options).unwrap_err(),
            Error::Conversion {
                target: target.as_str(),
                pointer: format!("/x{}", "/0".repeat(127)),
                reason: "nested more than 128 levels".into()
            },
            "{target}"
        );
    }
    dismantle_tool(tool);
}

// ---------------------------------------------------------------------------------------------
// Regular expressions.
// ---------------------------------------------------------------------------------------------

fn a_times(n: usize) -> String {
    let mut text = "a".repeat(n);
    text.push('!');
    text
}

/// The classic catastrophic pattern `(a+)+$` against 30,000 `a`s and a `!` runs on the
/// linear-time engine: it finishes (0.004 s in release; see the `hostile` bench) with the
/// plain violation of `pattern`.
#[test]
fn a_catastrophic_pattern_finishes_with_a_pattern_violation() {
    let compiled = DefaultValidator::new()
        .compile(&json!({"type": "string", "pattern": "(a+)+$"}))
        .unwrap();
    let Err(Error::InvalidInstance { errors }) = compiled.validate(&json!(a_times(30_000))) else {
        panic!("expected InvalidInstance")
    };
    assert_eq!(errors.len(), 1);
    assert_eq!(
        (errors[0].keyword.as_str(), errors[0].schema_path.as_str()),
        ("pattern", "/pattern")
    );
    assert!(compiled.is_valid(&json!("aaaa")));
}

/// By default a pattern that needs backtracking (lookahead, lookbehind, a backreference) is
/// refused when the schema is compiled: `InvalidSchema` at the pattern, saying why.
#[test]
fn backtracking_patterns_are_refused_by_default() {
    let validator = DefaultValidator::new();
    for (schema, pointer) in [
        (json!({"pattern": "^(a+)+\\1$"}), "/pattern"),
        (json!({"pattern": "(?=a)(a+)+$"}), "/pattern"),
        (
            json!({"properties": {"p": {"pattern": "(?<!x)y"}}}),
            "/properties/p/pattern",
        ),
        (
            json!({"patternProperties": {"^(?!tmp)": true}}),
            "/patternProperties",
        ),
    ] {
        let Err(Error::InvalidSchema { issues }) = validator.compile(&schema) else {
            panic!("expected InvalidSchema for {schema}")
        };
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert!(
            issues[0].pointer.starts_with(pointer),
            "{schema}: {:?}",
            issues[0]
        );
        assert!(
            issues[0].message.contains("linear-time engine"),
            "{}",
            issues[0].message
        );
    }
}

fn backtracking(limit: usize) -> DefaultValidator {
    let mut limits = ValidationLimits::default();
    limits.pattern_backtrack_limit = Some(limit);
    DefaultValidator::new().with_limits(limits)
}

/// With backtracking allowed (here at most 10,000 steps per match), a match that needs more
/// steps and decides the outcome is `PatternUndecided` at the string and the keyword; a
/// violation that holds whatever the match would give is reported as `InvalidInstance`.
#[test]
fn a_match_beyond_the_backtracking_limit_is_undecided() {
    let validator = backtracking(10_000);
    let compiled = validator
        .compile(
            &json!({"properties": {"s": {"pattern": "^(a|a)*\\1b"}, "n": {"type": "integer"}}}),
        )
        .unwrap();
    assert_eq!(
        compiled.validate(&json!({"s": a_times(30_000)})),
        Err(Error::PatternUndecided {
            instance_path: "/s".into(),
            schema_path: "/properties/s/pattern".into(),
            reason: "it needs more than 10000 backtracking steps".into()
        })
    );
    assert!(!compiled.is_valid(&json!({"s": a_times(30_000)})));
    let Err(Error::InvalidInstance { errors }) =
        compiled.validate(&json!({"s": a_times(30_000), "n": "x"}))
    else {
        panic!("expected InvalidInstance")
    };
    let at: Vec<&str> = errors.iter().map(|e| e.instance_path.as_str()).collect();
    assert_eq!(at, ["/n"]);
    // Short strings finish within the limit and get a plain answer.
    assert_eq!(compiled.validate(&json!({"s": "aab"})), Ok(()));
    assert!(matches!(
        compiled.validate(&json!({"s": "aaa"})),
        Err(Error::InvalidInstance { .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// Text: repeated keys, numbers, encodings, truncation.
// ---------------------------------------------------------------------------------------------

fn json_error(result: Result<Tool, Error>) -> (String, usize, usize, String) {
    match result {
        Err(Error::Json {
            path,
            line,
            column,
            message,
        }) => (path, line, column, message),
        other => panic!("expected Error::Json, got {other:?}"),
    }
}

/// The rule for repeated keys: `serde_json` keeps the last value of a repeated key in a
/// `Value`; reading a tool from text, `toolmodel` refuses a repeated key anywhere (the tool,
/// the schemas, `_meta`, annotations, unknown keys), naming the key, its line and column, and
/// the JSON Pointer of its object.
#[test]
fn repeated_keys_are_refused_when_reading_text() {
    let last: Value = serde_json::from_str(r#"{"type": "object", "type": "string"}"#).unwrap();
    assert_eq!(last, json!({"type": "string"}), "serde_json keeps the last");
    for (text, path, key) in [
        (
            "{\"name\": \"a\",\n \"name\": \"b\", \"inputSchema\": {}}",
            "",
            "name",
        ),
        (
            r#"{"name": "a", "inputSchema": {"type": "object", "type": "string"}}"#,
            "/inputSchema",
            "type",
        ),
        (
            r#"{"name": "a", "inputSchema": {"properties": {"x": {}, "x": {"type": "string"}}}}"#,
            "/inputSchema/properties",
            "x",
        ),
        (
            r#"{"name": "a", "inputSchema": {}, "_meta": {"k": 1, "k": 2}}"#,
            "/_meta",
            "k",
        ),
        (
            r#"{"name": "a", "inputSchema": {}, "annotations": {"readOnlyHint": true, "readOnlyHint": false}}"#,
            "/annotations",
            "readOnlyHint",
        ),
        (
            r#"{"name": "a", "inputSchema": {}, "x-vendor": 1, "x-vendor": 2}"#,
            "",
            "x-vendor",
        ),
    ] {
        // The place reported: the closing quote of the key's second occurrence.
        let quoted = format!("{key:?}");
        let end = text.rfind(&quoted).unwrap() + quoted.len();
        let line = text[..end].matches('\n').count() + 1;
        let column = end - text[..end].rfind('\n').map_or(0, |at| at + 1);
        for result in [Tool::from_mcp_str(text), Tool::from_json_str(text)] {
            let (found_path, found_line, found_column, message) = json_error(result);
            assert_eq!(
                (found_path.as_str(), found_line, found_column),
                (path, line, column),
                "{text}"
            );
            assert!(
                message.starts_with(&format!("duplicate key {key:?}")),
                "{message}"
            );
        }
    }
}

/// A number beyond the range of `f64` (`1e400`, `-1e400`) is `Error::Json` with its line,
/// column (of its last character) and pointer: never an infinity, never a silent change.
#[test]
fn numbers_beyond_f64_are_errors_with_their_place() {
    for (text, path, column) in [
        (
            r#"{"name": "a", "inputSchema": {"maximum": 1e400}}"#,
            "/inputSchema/maximum",
            46,
        ),
        (
            r#"{"name": "a", "inputSchema": {"enum": [1, -1e400]}}"#,
            "/inputSchema/enum/1",
            48,
        ),
        (r#"{"name": "a", "inputSchema": {}, "n": 1e400}"#, "/n", 43),
    ] {
        let (found_path, line, found_column, message) = json_error(Tool::from_mcp_str(text));
        assert_eq!(
            (found_path.as_str(), line, found_column),
            (path, 1, column),
            "{text}"
        );
        assert!(message.starts_with("number out of range"), "{message}");
    }
    // Large integers beyond u64 read as the nearest f64, as JSON allows.
    let tool = Tool::from_mcp_str(
        r#"{"name": "a", "inputSchema": {"maximum": 100000000000000000000000000000}}"#,
    )
    .unwrap();
    assert_eq!(tool.input_schema.get("maximum"), Some(&json!(1e29)));
}

/// Bytes that are not UTF-8 (`Tool::from_mcp_slice`) and lone surrogates in escapes are
/// `Error::Json` with line and column; valid bytes read as the text does.
#[test]
fn invalid_utf8_and_lone_surrogates_are_errors() {
    let mut bytes = b"{\"name\": \"a\",\n \"description\": \"caf".to_vec();
    bytes.push(0xE9); // Latin-1 é: not UTF-8
    bytes.extend_from_slice(b"\", \"inputSchema\": {}}");
    let (path, line, column, message) = json_error(Tool::from_mcp_slice(&bytes));
    assert_eq!(
        (path.as_str(), line, column),
        ("/description", 2, 21),
        "{message}"
    );
    assert!(
        message.starts_with("invalid unicode code point"),
        "{message}"
    );
    let (path, line, _, message) = json_error(Tool::from_json_slice(&bytes));
    assert_eq!((path.as_str(), line), ("/description", 2), "{message}");

    let text = r#"{"name": "a\ud800", "inputSchema": {}}"#;
    let (path, line, _, message) = json_error(Tool::from_mcp_str(text));
    assert_eq!((path.as_str(), line), ("/name", 1));
    assert!(
        message.starts_with("unexpected end of hex escape"),
        "{message}"
    );

    let good = r#"{"name": "caf\u00e9 ☕", "inputSchema": {"type": "object"}}"#;
    assert_eq!(
        Tool::from_mcp_slice(good.as_bytes()),
        Tool::from_mcp_str(good)
    );
}

/// Every truncation of a tool's text (at every character) is `Error::Json` with a line and
/// column; only the whole text reads.
#[test]
fn every_truncated_document_is_an_error() {
    let text = r#"{
  "name": "get_weather",
  "description": "Weather ☀ for a city",
  "inputSchema": {"type": "object", "properties": {"city": {"type": "string", "minLength": 1}},
                  "required": ["city"]},
  "annotations": {"readOnlyHint": true, "title": null},
  "_meta": {"x": [1.5, -2e10, false, null]}
}"#;
    assert!(Tool::from_mcp_str(text).is_ok());
    for (end, _) in text.char_indices().skip(1) {
        let prefix = &text[..end];
        for result in [
            Tool::from_mcp_str(prefix),
            Tool::from_mcp_slice(prefix.as_bytes()),
        ] {
            // At the start of a line `serde_json` reports column 0.
            let (_, line, _, message) = json_error(result);
            assert!(line >= 1, "{prefix:?}");
            assert!(message.contains(" at line "), "{message}");
        }
    }
    assert!(matches!(Tool::from_mcp_str(""), Err(Error::Json { .. })));
}

// ---------------------------------------------------------------------------------------------
// Names and tags.
// ---------------------------------------------------------------------------------------------

/// NUL, zero-width characters and look-alikes (a Cyrillic `а` in `weаther`) are each named
/// with their position, in the name, the namespace and a tool ID.
#[test]
fn invisible_and_look_alike_characters_are_each_reported() {
    let name = "get\u{0}we\u{0430}ther\u{200B}\u{FEFF}";
    let expected = NameError {
        name: name.into(),
        problems: vec![
            NameProblem::InvalidChar {
                ch: '\u{0}',
                position: 3,
            },
            NameProblem::InvalidChar {
                ch: '\u{0430}',
                position: 6,
            },
            NameProblem::InvalidChar {
                ch: '\u{200B}',
                position: 11,
            },
            NameProblem::InvalidChar {
                ch: '\u{FEFF}',
                position: 12,
            },
        ],
    };
    assert_eq!(check_name(name), Err(Error::InvalidName(expected.clone())));
    let mut tool = tool_with(json!({"type": "object"}));
    tool.name = name.into();
    tool.namespace = Some(name.into());
    assert_eq!(
        tool.violations(),
        [
            Violation::Name(expected.clone()),
            Violation::Namespace(expected.clone())
        ]
    );
    assert_eq!(
        expected.to_string(),
        "\"get\\0weаther\\u{200b}\\u{feff}\" is not a valid name: character '\\0' (U+0000) at position 3 is not one of [A-Za-z0-9_.-]; character 'а' (U+0430) at position 6 is not one of [A-Za-z0-9_.-]; character '\\u{200b}' (U+200B) at position 11 is not one of [A-Za-z0-9_.-]; character '\\u{feff}' (U+FEFF) at position 12 is not one of [A-Za-z0-9_.-]"
    );
    assert!(matches!(
        parse_tool_id(&format!("ns:{name}")),
        Err(Error::InvalidToolId { .. })
    ));
    // Read from text, the escapes arrive as the characters and are reported the same way.
    let read = Tool::from_mcp_str(
        r#"{"name": "get\u0000we\u0430ther\u200b\ufeff", "inputSchema": {"type": "object"}}"#,
    )
    .unwrap();
    assert_eq!(read.violations(), [Violation::Name(expected)]);
}

/// A name of 130 characters (limit 128) is `TooLong { length: 130 }`, counted in characters.
#[test]
fn a_130_character_name_is_too_long() {
    assert_eq!(check_name(&"a".repeat(128)), Ok(()));
    for name in ["a".repeat(130), "é".repeat(130)] {
        let Err(Error::InvalidName(err)) = check_name(&name) else {
            panic!("expected InvalidName")
        };
        assert_eq!(err.problems[0], NameProblem::TooLong { length: 130 });
    }
}

/// A 100,000-character name converts under a mapped name of at most 64 characters, and the
/// rename warning quotes only its first 64 characters and its length.
#[test]
fn a_huge_name_is_mapped_and_not_copied_into_its_warning() {
    let tool = Tool::new(
        "n".repeat(100_000),
        ToolSchema::try_from(json!({"type": "object"})).unwrap(),
    );
    for target in [Target::OpenAiChat, Target::Anthropic, Target::Gemini] {
        let out = adapters::convert(&tool, target, &ConvertOptions::default()).unwrap();
        let rename = out.warnings.iter().find(|w| w.pointer == "/name").unwrap();
        assert!(rename.detail.len() < 300, "{target}: {}", rename.detail);
        assert!(
            rename.detail.contains(&format!(
                "{:?}… (100000 characters) sent as",
                "n".repeat(64)
            )),
            "{}",
            rename.detail
        );
    }
}

/// 10,000 tags normalize to the first 20 distinct ones; `Tool::validate` reports a raw list as
/// `Violation::Tags` with that normal form.
#[test]
fn ten_thousand_tags_keep_twenty() {
    let raw: Vec<String> = (0..10_000).map(|i| format!("Tag {i}")).collect();
    let normal = normalize_tags(&raw);
    assert_eq!(normal.len(), 20);
    assert_eq!(normal[19], "tag-19");
    assert_eq!(normalize_tags(&normal), normal);
    let mut tool = tool_with(json!({"type": "object"}));
    tool.tags = raw;
    assert_eq!(tool.violations(), [Violation::Tags { normal }]);
}

// ---------------------------------------------------------------------------------------------
// Size.
// ---------------------------------------------------------------------------------------------

/// A schema of 100,000 properties (8 MB of JSON) compiles (it is large, not an expansion) and
/// validates: every property, and every violation with its pointer.
#[test]
fn a_100_000_property_schema_compiles_and_validates() {
    let properties: Map<String, Value> = (0..100_000)
        .map(|i| (format!("p{i}"), json!({"type": "integer", "minimum": 0})))
        .collect();
    let tool = tool_with(
        json!({"type": "object", "properties": properties, "required": ["p0", "p99999"]}),
    );
    let validator = DefaultValidator::new();
    let mut arguments: Map<String, Value> =
        (0..100_000).map(|i| (format!("p{i}"), json!(i))).collect();
    assert_eq!(
        validator.validate_arguments(&tool, &Value::Object(arguments.clone())),
        Ok(())
    );
    arguments.insert("p5".into(), json!(-1));
    arguments.insert("p77777".into(), json!("x"));
    arguments.remove("p99999");
    let Err(Error::InvalidInstance { errors }) =
        validator.validate_arguments(&tool, &Value::Object(arguments))
    else {
        panic!("expected InvalidInstance")
    };
    let mut at: Vec<(&str, &str)> = errors
        .iter()
        .map(|e| (e.instance_path.as_str(), e.keyword.as_str()))
        .collect();
    at.sort_unstable();
    assert_eq!(
        at,
        [("", "required"), ("/p5", "minimum"), ("/p77777", "type")]
    );
}

/// The environment variable that makes this binary, started again by
/// [`a_50_mb_argument_document_validates_in_memory_proportional_to_its_size`], run the
/// measurement in a fresh process.
const LARGE_CHILD: &str = "TOOLMODEL_ADVERSARIAL_LARGE_CHILD";

/// Peak resident memory of this process, in bytes (`VmHWM`).
fn peak_rss() -> Option<usize> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kb: usize = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kb * 1024)
}

/// Resets the peak to the current resident memory (Linux: `5` to `/proc/self/clear_refs`).
fn reset_peak() -> bool {
    std::fs::write("/proc/self/clear_refs", "5").is_ok()
}

/// The measurement, in the child process: a 50 MB `tools/call` arguments document (500,000
/// rows of an array) is read, then validated, valid and with one bad row. Prints one line of
/// figures, which the parent checks.
#[test]
#[ignore = "run in a child process by a_50_mb_argument_document_validates_in_memory_proportional_to_its_size"]
fn large_arguments_child() {
    assert!(
        std::env::var_os(LARGE_CHILD).is_some(),
        "run by the parent test, with {LARGE_CHILD} set"
    );
    let tool = tool_with(json!({
        "type": "object",
        "properties": {"rows": {"type": "array", "items": {
            "type": "object",
            "properties": {
                "id": {"type": "integer", "minimum": 0},
                "name": {"type": "string", "maxLength": 64},
                "tags": {"type": "array", "items": {"type": "string"}},
                "score": {"type": "number"}
            },
            "required": ["id", "name"],
            "additionalProperties": false
        }}},
        "required": ["rows"]
    }));
    let mut text = String::from("{\"rows\": [");
    let mut rows = 0usize;
    while text.len() < 50 << 20 {
        if rows > 0 {
            text.push(',');
        }
        let _ = write!(
            text,
            r#"{{"id": {rows}, "name": "row number {rows} of the document", "tags": ["alpha", "beta"], "score": {}.5}}"#,
            rows % 1000
        );
        rows += 1;
    }
    text.push_str("]}");
    let bytes = text.len();
    let validator = DefaultValidator::new();
    validator
        .validate_arguments(&tool, &json!({"rows": []}))
        .unwrap();

    let reset = reset_peak();
    let before = peak_rss().unwrap();
    let mut arguments: Value = serde_json::from_str(&text).unwrap();
    let parsed = peak_rss().unwrap();
    reset_peak();
    let resident = peak_rss().unwrap();
    assert_eq!(validator.validate_arguments(&tool, &arguments), Ok(()));
    let validated = peak_rss().unwrap();

    arguments["rows"][rows / 2]["id"] = json!(-1);
    let Err(Error::InvalidInstance { errors }) = validator.validate_arguments(&tool, &arguments)
    else {
        panic!("expected InvalidInstance")
    };
    assert_eq!(errors.len(), 1);
    assert_eq!(errors[0].instance_path, format!("/rows/{}/id", rows / 2));
    let invalid = peak_rss().unwrap();
    println!(
        "figures: bytes={bytes} rows={rows} reset={reset} parse_growth={} validate_growth={} invalid_growth={}",
        parsed.saturating_sub(before),
        validated.saturating_sub(resident),
        invalid.saturating_sub(resident)
    );
}

/// A 50 MB arguments document validates, valid and invalid, and validation adds at most a
/// quarter of the document's size to the peak memory (measured in a fresh child process:
/// `VmHWM`, reset after reading with `/proc/self/clear_refs`; measured: 68 KB for 50 MB).
/// Reading it into a `serde_json::Value`, which is `serde_json`'s work, takes at most 12 times
/// its size (measured: 10.3 times, for rows of small objects). Time per MB is in the `hostile` bench.
#[test]
fn a_50_mb_argument_document_validates_in_memory_proportional_to_its_size() {
    if peak_rss().is_none() {
        println!("notice: no /proc/self/status here: the 50 MB document is not measured");
        return;
    }
    // That one test of this test binary: its exact name.
    let child = toolmodel_test_support::test_name(module_path!(), "large_arguments_child");
    let output = Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            child.as_str(),
            "--ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(LARGE_CHILD, "1")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        output.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let figures = stdout
        .lines()
        .find_map(|line| line.split_once("figures: ").map(|(_, figures)| figures))
        .unwrap_or_else(|| panic!("no figures in {stdout}"));
    println!("{figures}");
    let figure = |name: &str| -> usize {
        figures
            .split_whitespace()
            .find_map(|pair| pair.strip_prefix(&format!("{name}=")))
            .unwrap()
            .parse()
            .unwrap()
    };
    let bytes = figure("bytes");
    assert!(bytes >= 50 << 20);
    assert!(figure("parse_growth") <= 12 * bytes, "{figures}");
    if figures.contains("reset=true") {
        assert!(figure("validate_growth") <= bytes / 4, "{figures}");
        assert!(figure("invalid_growth") <= bytes / 4, "{figures}");
    }
}

// ---------------------------------------------------------------------------------------------
// Properties: validation never panics.
// ---------------------------------------------------------------------------------------------

/// Values for keywords: right and wrong types, odd numbers, odd patterns, references.
fn keyword_value() -> impl Strategy<Value = Value> {
    prop_oneof![
        Just(json!("string")),
        Just(json!("object")),
        Just(json!(["integer", "null"])),
        Just(json!("#")),
        Just(json!("#/$defs/a")),
        Just(json!("#/properties/x")),
        Just(json!("https://example.com/x")),
        Just(json!("(a+)+$")),
        Just(json!("^(?=x)")),
        Just(json!("[")),
        Just(json!("\\p{L}+")),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        Just(json!(0)),
        Just(json!(-1)),
        Just(json!(1e308)),
        any::<bool>().prop_map(Value::from),
        Just(json!(null)),
        Just(json!([])),
        Just(json!(["a", "a"])),
    ]
}

const KEYWORDS: &[&str] = &[
    "type",
    "properties",
    "items",
    "prefixItems",
    "required",
    "enum",
    "const",
    "minimum",
    "maximum",
    "exclusiveMinimum",
    "multipleOf",
    "minLength",
    "maxLength",
    "pattern",
    "format",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "$ref",
    "$defs",
    "$id",
    "$anchor",
    "$dynamicRef",
    "$dynamicAnchor",
    "additionalProperties",
    "patternProperties",
    "propertyNames",
    "uniqueItems",
    "contains",
    "minContains",
    "dependentRequired",
    "dependentSchemas",
    "unevaluatedProperties",
    "unevaluatedItems",
    "$schema",
    "x-unknown",
];

/// Schema-shaped JSON: objects of keywords whose values are keyword values or nested schemas.
fn schema() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        any::<bool>().prop_map(Value::from),
        proptest::collection::btree_map(
            proptest::sample::select(KEYWORDS).prop_map(str::to_owned),
            keyword_value(),
            0..4
        )
        .prop_map(|map| Value::Object(map.into_iter().collect())),
    ];
    leaf.prop_recursive(4, 48, 6, |inner| {
        prop_oneof![
            proptest::collection::btree_map(
                proptest::sample::select(KEYWORDS).prop_map(str::to_owned),
                prop_oneof![
                    inner.clone(),
                    keyword_value(),
                    proptest::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                    proptest::collection::btree_map("[a-z]{1,3}", inner.clone(), 0..3)
                        .prop_map(|map| Value::Object(map.into_iter().collect())),
                ],
                0..5
            )
            .prop_map(|map| Value::Object(map.into_iter().collect())),
            inner,
        ]
    })
}

/// Any JSON instance, a little nested.
fn instance() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<f64>()
            .prop_filter("finite", |f| f.is_finite())
            .prop_map(Value::from),
        "[a-z()+!]{0,12}".prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 5, |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..5).prop_map(Value::Array),
            proptest::collection::btree_map("[a-z]{1,3}", inner, 0..5)
                .prop_map(|map| Value::Object(map.into_iter().collect())),
        ]
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, failure_persistence: None, ..ProptestConfig::default() })]

    /// `compile` and `validate` never panic on schema-shaped input, and agree with `is_valid`:
    /// a schema compiles or is one of the schema errors, and an instance is accepted, or
    /// rejected with its violations.
    #[test]
    fn validation_never_panics(schema in schema(), instances in proptest::collection::vec(instance(), 1..4)) {
        for validator in [DefaultValidator::new(), backtracking(1_000)] {
            match validator.compile(&schema) {
                Ok(compiled) => {
                    for instance in &instances {
                        let outcome = compiled.validate(instance);
                        prop_assert_eq!(outcome.is_ok(), compiled.is_valid(instance), "{} {}", schema, instance);
                        prop_assert!(
                            matches!(outcome, Ok(()) | Err(Error::InvalidInstance { .. } | Error::PatternUndecided { .. })),
                            "{} {}: {:?}", schema, instance, outcome
                        );
                        if let Err(Error::InvalidInstance { errors }) = &outcome {
                            prop_assert!(!errors.is_empty());
                        }
                    }
                }
                Err(err) => prop_assert!(
                    matches!(err, Error::InvalidSchema { .. } | Error::UnsupportedSchema { .. } | Error::ExternalRef { .. }
                        | Error::SchemaTooDeep { .. } | Error::SchemaTooLarge { .. }),
                    "{}: {:?}", schema, err
                ),
            }
        }
    }
}
