//! Regression tests for the six places where our strict and plain conversions disagreed with
//! the providers' own SDK normalizers (issue 11), each on the corpus tool it was found on
//! (`../shared/corpus`; skipped with a notice when missing, a failure under `CI`).

use serde_json::{Value, json};
use toolmodel::{
    DefaultValidator, Error, Tool,
    adapters::{Action, Conversion, ConvertOptions, Target, convert},
    wire::catalog::tool_values,
};
use toolmodel_tests::shared_dir;

/// The tool named `name` in the corpus file `file`, parsed as MCP; `None` when the corpus is
/// missing (after a notice).
fn corpus_tool(file: &str, name: &str) -> Option<Tool> {
    let path = shared_dir(&format!("corpus/{file}"))?;
    let text = std::fs::read_to_string(&path).expect("corpus file is readable");
    let document: Value = serde_json::from_str(&text).expect("corpus file is JSON");
    let found = tool_values(&document)
        .expect("corpus file holds tools")
        .into_iter()
        .find(|(_, value)| value["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not in {file}"));
    Some(Tool::from_mcp_json(found.1).expect("the corpus tool reads"))
}

fn strict() -> ConvertOptions {
    ConvertOptions::default().with_strict(true)
}

/// The converted input schema of a conversion's JSON.
fn schema_of(target: Target, value: &Value) -> &Value {
    match target {
        Target::OpenAiChat => &value["function"]["parameters"],
        Target::Anthropic => &value["input_schema"],
        Target::Gemini => &value["parameters"],
        _ => &value["parameters"],
    }
}

/// Every schema object of a converted schema (values of its keywords, recursively), with its
/// pointer.
fn each_object<'v>(value: &'v Value, pointer: String, out: &mut Vec<(String, &'v Value)>) {
    match value {
        Value::Object(map) => {
            out.push((pointer.clone(), value));
            for (key, child) in map {
                each_object(child, format!("{pointer}/{key}"), out);
            }
        }
        Value::Array(items) => {
            for (index, child) in items.iter().enumerate() {
                each_object(child, format!("{pointer}/{index}"), out);
            }
        }
        _ => {}
    }
}

/// Asserts that the conversion warns of an exact rewrite at `at`.
fn assert_exact_rewrite(out: &Conversion, at: &str) {
    assert!(
        out.warnings
            .iter()
            .any(|w| w.pointer == at && w.action == Action::Rewritten { exact: true }),
        "{}: no exact rewrite at {at}: {:#?}",
        out.target,
        out.warnings
    );
}

/// 1. A free-form nested object is refused in strict mode whether it is spelled
///    `{"type": "object"}` or `{"type": "object", "properties": {}}`: closing either would
///    leave only `{}`. At the root both spellings are MCP's no-parameter tool, closed alike.
#[test]
fn finding1_objects_listing_no_properties_are_one_rule_in_strict_mode() {
    let cases = [
        (
            "github-mcp-server/actions_run_trigger.snap",
            "actions_run_trigger",
            "/inputSchema/properties/inputs",
        ),
        (
            "kubernetes-mcp-server/toolsets-helm-tools.json",
            "helm_install",
            "/inputSchema/properties/values",
        ),
    ];
    for (file, name, at) in cases {
        let Some(tool) = corpus_tool(file, name) else {
            return;
        };
        for target in [Target::OpenAiChat, Target::Anthropic] {
            let err = convert(&tool, target, &strict()).unwrap_err();
            let Error::Conversion {
                pointer, reason, ..
            } = &err
            else {
                panic!("{name} {target}: {err:?}")
            };
            assert_eq!(pointer, at, "{name} {target}");
            assert!(reason.contains("lists no properties"), "{reason}");
            // The other spelling of the same meaning gets the same answer.
            let mut other = tool.clone();
            let mut schema = other.input_schema.to_value();
            let property = at.rsplit('/').next().unwrap();
            schema["properties"][property]
                .as_object_mut()
                .unwrap()
                .remove("properties");
            other.input_schema = schema.try_into().unwrap();
            assert_eq!(convert(&other, target, &strict()).unwrap_err(), err);
        }
    }
    for root in [
        json!({"type": "object"}),
        json!({"type": "object", "properties": {}}),
    ] {
        let tool = Tool::new("t", root.try_into().unwrap());
        let out = convert(&tool, Target::OpenAiChat, &strict()).unwrap();
        assert_eq!(
            schema_of(Target::OpenAiChat, &out.value)["additionalProperties"],
            json!(false)
        );
        assert!(
            out.warnings
                .iter()
                .any(|w| w.action == Action::Narrowed && w.detail.contains("takes no arguments"))
        );
    }
}

/// 2. `{"not": {}}` matches nothing: an `anyOf` branch of it is removed exactly (strict and
///    Gemini), not refused as "accepts any value" nor written as an unconstrained schema.
#[test]
fn finding2_a_branch_matching_nothing_is_removed_exactly() {
    let Some(tool) = corpus_tool("livemcpbench/tools.json", "generate_histogram_chart") else {
        return;
    };
    let at = "/inputSchema/properties/binNumber/anyOf/1";
    for (target, options, null) in [
        (Target::OpenAiChat, strict(), "null"),
        (Target::Anthropic, strict(), "null"),
        (Target::Gemini, ConvertOptions::default(), "NULL"),
    ] {
        let out = convert(&tool, target, &options).unwrap();
        let bin = &schema_of(target, &out.value)["properties"]["binNumber"];
        if target == Target::Gemini {
            // Left with one schema and null, the `anyOf` is that schema, `nullable` (the
            // form Google's definition takes: every `Schema` has a `type`).
            assert_eq!(bin["nullable"], true, "{bin}");
            assert!(bin.get("anyOf").is_none(), "{bin}");
            assert!(bin["type"].as_str().is_some_and(|t| t != "NULL"), "{bin}");
            assert!(!bin.to_string().contains("not"), "{bin}");
            assert_exact_rewrite(&out, at);
            continue;
        }
        let types: Vec<&Value> = bin["anyOf"]
            .as_array()
            .unwrap_or_else(|| panic!("{target}: {bin}"))
            .iter()
            .map(|branch| &branch["type"])
            .collect();
        assert_eq!(types.len(), 2, "{target}: {bin}");
        assert_eq!(types[1], &Value::from(null), "{target}: {bin}");
        assert!(!bin.to_string().contains("not"), "{target}: {bin}");
        assert_exact_rewrite(&out, at);
        assert!(
            !out.warnings
                .iter()
                .any(|w| w.pointer.starts_with(at) && w.action.widens()),
            "{target}"
        );
    }
}

/// 3. `{"type": "string", "anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]}`: the sibling
///    type constrains every branch, so the branches are typed, not refused as untyped.
#[test]
fn finding3_the_sibling_type_types_the_branches() {
    let Some(tool) = corpus_tool("livemcpbench/tools.json", "whois_ip") else {
        return;
    };
    for target in [Target::OpenAiChat, Target::Anthropic] {
        let out = convert(&tool, target, &strict()).unwrap();
        let ip = &schema_of(target, &out.value)["properties"]["ip"];
        assert_eq!(
            ip["anyOf"],
            json!([{"type": "string", "format": "ipv4"}, {"type": "string", "format": "ipv6"}]),
            "{target}"
        );
    }
}

/// 4. Anthropic strict output has no type lists (the Anthropic SDK's `transform_schema`
///    refuses them): one `anyOf` branch per type, each with its type's keywords.
#[test]
fn finding4_anthropic_strict_writes_type_lists_as_any_of() {
    let cases = [
        ("livemcpbench/tools.json", "get_text_file_contents"),
        ("github-mcp-server/issue_write.snap", "issue_write"),
    ];
    for (file, name) in cases {
        let Some(tool) = corpus_tool(file, name) else {
            return;
        };
        let out = convert(&tool, Target::Anthropic, &strict()).unwrap();
        let schema = schema_of(Target::Anthropic, &out.value);
        let mut objects = Vec::new();
        each_object(schema, String::new(), &mut objects);
        for (pointer, object) in &objects {
            assert!(
                !object.get("type").is_some_and(Value::is_array),
                "{name}: a type list at {pointer}"
            );
        }
        assert!(DefaultValidator::new().compile(schema).is_ok(), "{name}");
    }
    let Some(tool) = corpus_tool("livemcpbench/tools.json", "get_text_file_contents") else {
        return;
    };
    let out = convert(&tool, Target::Anthropic, &strict()).unwrap();
    let end = &schema_of(Target::Anthropic, &out.value)["properties"]["files"]["items"]["properties"]
        ["ranges"]["items"]["properties"]["end"];
    assert_eq!(end["anyOf"], json!([{"type": "integer"}, {"type": "null"}]));
}

/// 5. OpenAI strict output has no reference that is not recursive: the Agents SDK refuses
///    them for MCP tools.
#[test]
fn finding5_openai_strict_inlines_every_non_recursive_reference() {
    let Some(tool) = corpus_tool("livemcpbench/tools.json", "generate_district_map") else {
        return;
    };
    let out = convert(&tool, Target::OpenAiChat, &strict()).unwrap();
    let schema = schema_of(Target::OpenAiChat, &out.value);
    assert!(!schema.to_string().contains("$ref"), "{schema:#}");
    let name =
        &schema["properties"]["data"]["properties"]["subdistricts"]["items"]["properties"]["name"];
    assert_eq!(name["type"], json!("string"), "{name}");
    assert!(
        out.warnings
            .iter()
            .any(|w| w.feature == "$ref" && w.action == Action::Rewritten { exact: true })
    );
}

/// 6. Draft-04's boolean `exclusiveMinimum` (invalid in 2020-12) is rewritten with a warning
///    for every provider target, plain and strict, never passed through silently.
#[test]
fn finding6_draft04_exclusive_minimum_is_rewritten_with_a_warning() {
    let Some(tool) = corpus_tool("livemcpbench/tools.json", "read_pdf") else {
        return;
    };
    assert!(
        DefaultValidator::new()
            .compile(tool.input_schema.as_value())
            .is_err()
    );
    let at =
        "/inputSchema/properties/sources/items/properties/pages/anyOf/0/items/exclusiveMinimum";
    for (target, options) in [
        (Target::OpenAiChat, ConvertOptions::default()),
        (Target::Anthropic, ConvertOptions::default()),
        (Target::OpenAiChat, strict()),
        (Target::Gemini, ConvertOptions::default()),
    ] {
        let out = convert(&tool, target, &options).unwrap();
        assert_exact_rewrite(&out, at);
        let schema = schema_of(target, &out.value);
        if target != Target::Gemini {
            let items = &schema["properties"]["sources"]["items"]["properties"]["pages"]["anyOf"]
                [0]["items"];
            assert_eq!(items["exclusiveMinimum"], json!(0), "{target}: {items}");
            assert!(items.get("minimum").is_none(), "{target}: {items}");
            assert!(DefaultValidator::new().compile(schema).is_ok(), "{target}");
        }
    }
}

/// Found while making the Gemini conversion faster: a type list written as an `anyOf` of
/// Gemini types was converted again, so each branch (`{"type": "STRING"}`) was moved into a
/// description as an unknown type and accepted anything.
#[test]
fn gemini_type_list_branches_are_not_converted_twice() {
    let Some(tool) = corpus_tool("github-mcp-server/issue_write.snap", "issue_write") else {
        return;
    };
    let out = convert(&tool, Target::Gemini, &ConvertOptions::default()).unwrap();
    let value = &schema_of(Target::Gemini, &out.value)["properties"]["issue_fields"]["items"]["properties"]
        ["value"];
    assert_eq!(
        value["anyOf"],
        json!([{"type": "STRING"}, {"type": "NUMBER"}, {"type": "BOOLEAN"}]),
        "{value}"
    );
    assert!(
        !out.warnings
            .iter()
            .any(|w| w.detail == "not a JSON Schema type"),
        "{:?}",
        out.warnings
    );
}
