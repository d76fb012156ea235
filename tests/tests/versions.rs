//! Every MCP protocol version, from 2024-11-05 to 2026-07-28, against its official schema
//! (`../shared/mcp-spec/{version}/schema.json`):
//!
//! - every corpus tool that [`Tool::validate_for`] accepts for a version, written for it by
//!   [`Tool::to_mcp_json_for`], is valid against that version's `Tool`; nothing is left out
//!   that is not reported as a [`Loss`];
//! - every derived tool likewise (or, for an array output before 2026-07-28, refused by both);
//! - every result, written by [`CallToolResult::to_json_for`], is valid against the version's
//!   `CallToolResult`, and a [`Toolbox`]'s `tools/list` pages against its `ListToolsResult`;
//! - the 2026-07-28 examples of `Tool`, `CallToolResult` and `ListToolsResult` read and
//!   round-trip;
//! - the downgrade reports name exactly what each version cannot carry.
//!
//! A test per version prints its figures.

use std::{collections::BTreeSet, fs};

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolmodel::{
    CallToolResult, Error, ProtocolVersion, Tool, ToolDefinition, Toolbox,
    list::{CacheScope, ListCache, ListToolsResult},
    schemars::{self, JsonSchema},
    wire::{Loss, LossKind},
};
use toolmodel_tests::{corpus_tools, mcp_definition_validator, shared_dir};

#[derive(Serialize, JsonSchema)]
struct Forecast {
    /// Degrees Celsius.
    temperature: f64,
}

/// Forecast for a city.
#[derive(Deserialize, JsonSchema, Tool)]
#[tool(
    namespace = "weather",
    title = "Forecast",
    output = Forecast,
    annotations(read_only, title = "Forecast"),
    icon(src = "https://example.com/sun.png", mime_type = "image/png", sizes = ["48x48"]),
    task_support = "optional",
)]
#[allow(dead_code)]
struct GetForecast {
    /// The city.
    #[tool(header = "City")]
    city: String,
    /// Days ahead.
    #[tool(header = "Days")]
    days: Option<u8>,
}

#[derive(Serialize, JsonSchema)]
struct Item {
    id: String,
}

/// Lists items.
#[derive(Deserialize, JsonSchema, Tool)]
#[tool(output = Vec<Item>)]
#[allow(dead_code)]
struct ListItems {
    prefix: Option<String>,
}

/// Takes nothing.
#[derive(Tool)]
struct Ping;

/// Every derived tool: the ones above and the GitHub example's.
fn derived_tools() -> Vec<&'static Tool> {
    let mut tools = vec![GetForecast::tool(), ListItems::tool(), Ping::tool()];
    tools.extend(toolmodel_examples::github::tools());
    tools
}

/// Results of every shape: each content block type, structured content of several types,
/// errors, `_meta`, unknown keys, and what a 2026-07-28 server sends.
fn results() -> Vec<(&'static str, CallToolResult)> {
    let from = |value: Value| CallToolResult::from_value(&value).unwrap();
    let mut out = vec![
        ("text", CallToolResult::text("hello")),
        ("error", CallToolResult::error("failed")),
        (
            "structured object",
            CallToolResult::structured(json!({"sum": 3})),
        ),
        (
            "structured array",
            CallToolResult::structured(json!([1, 2])),
        ),
        ("structured string", CallToolResult::structured(json!("s"))),
        (
            "image with annotations",
            from(
                json!({"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png",
                "annotations": {"audience": ["user"], "priority": 0.5}}]}),
            ),
        ),
        (
            "audio",
            from(json!({"content": [{"type": "text", "text": "a"},
                {"type": "audio", "data": "AAAA", "mimeType": "audio/wav"}]})),
        ),
        (
            "resource link",
            from(
                json!({"content": [{"type": "resource_link", "uri": "file:///a.txt", "name": "a"}]}),
            ),
        ),
        (
            "embedded resources",
            from(json!({"content": [
                {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "a"}},
                {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AAAA", "mimeType": "application/octet-stream"}}
            ]})),
        ),
        (
            "meta and unknown keys",
            from(
                json!({"content": [], "_meta": {"com.example/trace": "x"}, "x-vendor": 1, "isError": false}),
            ),
        ),
        (
            "read from 2026-07-28",
            from(
                json!({"resultType": "complete", "content": [{"type": "text", "text": "t"}],
                "structuredContent": {"a": 1}}),
            ),
        ),
    ];
    if let Some(dir) = shared_dir("mcp-spec/2026-07-28/examples/CallToolResult") {
        for (_, value) in examples(&dir) {
            out.push(("2026-07-28 example", from(value)));
        }
    }
    out
}

/// The JSON files of a folder, by name.
fn examples(dir: &std::path::Path) -> Vec<(String, Value)> {
    let mut out: Vec<(String, Value)> = fs::read_dir(dir)
        .unwrap()
        .map(|entry| {
            let path = entry.unwrap().path();
            let value = serde_json::from_str(&fs::read_to_string(&path).unwrap()).unwrap();
            (
                path.file_name().unwrap().to_string_lossy().into_owned(),
                value,
            )
        })
        .collect();
    out.sort_by(|a, b| a.0.cmp(&b.0));
    out
}

/// The top-level keys of a JSON object.
fn keys(value: &Value) -> BTreeSet<String> {
    value.as_object().unwrap().keys().cloned().collect()
}

/// Checks that `written` left out of `full` exactly what `losses` reports as omitted (at the
/// top level, as tools and results are written).
fn nothing_dropped_silently(full: &Value, written: &Value, losses: &[Loss]) -> Result<(), String> {
    let dropped: BTreeSet<String> = keys(full).difference(&keys(written)).cloned().collect();
    let reported: BTreeSet<String> = losses
        .iter()
        .filter(|loss| loss.kind == LossKind::Omitted && loss.pointer.matches('/').count() == 1)
        .map(|loss| loss.pointer[1..].to_owned())
        .collect();
    if dropped == reported {
        Ok(())
    } else {
        Err(format!("dropped {dropped:?}, reported {reported:?}"))
    }
}

/// The errors of `validator` on `value`, as text.
fn errors(validator: &jsonschema::Validator, value: &Value) -> Vec<String> {
    validator
        .iter_errors(value)
        .map(|err| format!("{err} at {}", err.instance_path().as_str()))
        .collect()
}

fn check_version(version: ProtocolVersion) {
    let Some(tool_spec) = mcp_definition_validator(version.as_str(), "Tool") else {
        return;
    };
    let result_spec = mcp_definition_validator(version.as_str(), "CallToolResult").unwrap();
    let list_spec = mcp_definition_validator(version.as_str(), "ListToolsResult").unwrap();
    let Some(corpus) = corpus_tools() else {
        return;
    };
    // The validators are the version's definitions: they refuse what those refuse.
    assert!(!tool_spec.is_valid(&json!({"name": "x", "inputSchema": {"type": "array"}})));
    assert!(!result_spec.is_valid(&json!({"isError": true})));
    assert!(!list_spec.is_valid(&json!({"tools": {}})));
    assert_eq!(
        result_spec.is_valid(&json!({"content": []})),
        !version.has_result_type(),
        "resultType is required from 2026-07-28"
    );
    let mut failures = Vec::new();

    // Corpus tools.
    let (mut valid, mut invalid, mut written_ok, mut with_losses) = (0, 0, 0, 0);
    for (at, value) in &corpus {
        let tool = match Tool::from_mcp_json(value) {
            Ok(tool) => tool,
            Err(err) => {
                failures.push(format!("{at}: does not parse: {err}"));
                continue;
            }
        };
        if !tool.violations_for(version).is_empty() {
            invalid += 1;
            continue;
        }
        valid += 1;
        let written = match tool.to_mcp_json_for(version) {
            Ok(written) => written,
            Err(err) => {
                failures.push(format!("{at}: valid for {version} but not writable: {err}"));
                continue;
            }
        };
        let found = errors(&tool_spec, &written.json);
        if found.is_empty() {
            written_ok += 1;
        } else {
            failures.push(format!("{at}: written for {version}: {}", found.join("; ")));
        }
        if let Err(err) =
            nothing_dropped_silently(&tool.to_mcp_json(), &written.json, &written.losses)
        {
            failures.push(format!("{at}: {err}"));
        }
        with_losses += usize::from(!written.losses.is_empty());
    }

    // Derived tools.
    let derived = derived_tools();
    let mut derived_ok = 0;
    for tool in &derived {
        let array_output = tool
            .output_schema
            .as_ref()
            .is_some_and(|schema| !schema.has_object_root());
        let refused = array_output && version.requires_object_output();
        match (tool.validate_for(version), tool.to_mcp_json_for(version)) {
            (Ok(()), Ok(written)) if !refused => {
                let found = errors(&tool_spec, &written.json);
                if found.is_empty() {
                    derived_ok += 1;
                } else {
                    failures.push(format!("derived {}: {}", tool.name, found.join("; ")));
                }
                if let Err(err) =
                    nothing_dropped_silently(&tool.to_mcp_json(), &written.json, &written.losses)
                {
                    failures.push(format!("derived {}: {err}", tool.name));
                }
            }
            (Err(_), Err(Error::Unwritable { pointer, .. }))
                if refused && pointer == "/outputSchema/type" => {}
            (valid, written) => failures.push(format!(
                "derived {}: unexpected {valid:?} / {:?}",
                tool.name,
                written.map(|w| w.losses)
            )),
        }
    }

    // Results.
    let all_results = results();
    let mut results_ok = 0;
    for (what, result) in &all_results {
        let structured_not_object = result
            .structured_content
            .as_ref()
            .is_some_and(|value| !value.is_object());
        let refused = structured_not_object
            && version.has_structured_content()
            && version.requires_object_output();
        match result.to_json_for(version) {
            Ok(written) if !refused => {
                let found = errors(&result_spec, &written.json);
                if found.is_empty() {
                    results_ok += 1;
                } else {
                    failures.push(format!("result {what}: {}", found.join("; ")));
                }
                let full = serde_json::to_value(result).unwrap();
                let mut expected_losses = Vec::new();
                if let Err(err) = nothing_dropped_silently(&full, &written.json, &written.losses) {
                    // Content blocks are dropped one by one, each reported at its index.
                    expected_losses.push(err);
                }
                failures.extend(
                    expected_losses
                        .into_iter()
                        .map(|e| format!("result {what}: {e}")),
                );
            }
            Err(Error::Unwritable { pointer, .. })
                if refused && pointer == "/structuredContent" => {}
            other => failures.push(format!("result {what}: unexpected {other:?}")),
        }
    }

    // A toolbox's tools/list pages (without the array-output tool before 2026-07-28, which
    // makes the list fail: checked below).
    let listed: Vec<&Tool> = derived
        .iter()
        .copied()
        .filter(|tool| {
            !version.requires_object_output()
                || tool
                    .output_schema
                    .as_ref()
                    .is_none_or(|s| s.has_object_root())
        })
        .collect();
    let mut builder = Toolbox::builder()
        .with_page_size(5)
        .with_list_cache(ListCache::new(
            std::time::Duration::from_secs(60),
            CacheScope::Public,
        ));
    for tool in &listed {
        builder = builder.with_tool(Tool::clone(tool), |_, _| async {
            Ok(CallToolResult::text("ok"))
        });
    }
    let toolbox = builder.build().unwrap();
    let mut cursor: Option<String> = None;
    let mut pages = 0;
    loop {
        let page = toolbox.list_for(version, cursor.as_deref()).unwrap();
        let json = serde_json::to_value(&page).unwrap();
        let found = errors(&list_spec, &json);
        if !found.is_empty() {
            failures.push(format!("tools/list page {pages}: {}", found.join("; ")));
        }
        assert_eq!(json.get("ttlMs").is_some(), version.has_result_type());
        pages += 1;
        cursor = page.next_cursor().map(str::to_owned);
        if cursor.is_none() {
            break;
        }
    }
    if version.requires_object_output() {
        let with_array = Toolbox::builder()
            .with_tool(ListItems::tool().clone(), |_, _| async {
                Ok(CallToolResult::text("ok"))
            })
            .build()
            .unwrap();
        assert!(matches!(
            with_array.list_for(version, None),
            Err(Error::Unwritable { .. })
        ));
    }

    println!(
        "MCP {version}: corpus {} tools: {valid} valid for {version} ({invalid} not), {written_ok} written and valid against #/$defs/Tool ({with_losses} with losses reported); derived {} tools: {derived_ok} written and valid; results {}: {results_ok} written and valid against CallToolResult; tools/list: {pages} pages valid against ListToolsResult",
        corpus.len(),
        derived.len(),
        all_results.len(),
    );
    assert!(
        failures.is_empty(),
        "{} failure(s):\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(valid > 0 && written_ok == valid);
}

#[test]
fn written_for_2024_11_05_validates() {
    check_version(ProtocolVersion::V2024_11_05);
}

#[test]
fn written_for_2025_03_26_validates() {
    check_version(ProtocolVersion::V2025_03_26);
}

#[test]
fn written_for_2025_06_18_validates() {
    check_version(ProtocolVersion::V2025_06_18);
}

#[test]
fn written_for_2025_11_25_validates() {
    check_version(ProtocolVersion::V2025_11_25);
}

#[test]
fn written_for_2026_07_28_validates() {
    check_version(ProtocolVersion::V2026_07_28);
}

#[test]
fn the_2026_07_28_examples_read_and_round_trip() {
    let Some(root) = shared_dir("mcp-spec/2026-07-28/examples") else {
        return;
    };
    let latest = ProtocolVersion::V2026_07_28;
    let tool_spec = mcp_definition_validator(latest.as_str(), "Tool").unwrap();
    let mut seen = 0;
    for (name, value) in examples(&root.join("Tool")) {
        let tool = Tool::from_mcp_json(&value).unwrap();
        assert_eq!(tool.validate(), Ok(()), "{name}");
        let written = tool.to_mcp_json_for(latest).unwrap();
        assert_eq!(written.json, value, "{name}");
        assert!(written.losses.is_empty(), "{name}");
        assert!(tool_spec.is_valid(&written.json), "{name}");
        seen += 1;
    }
    for (name, value) in examples(&root.join("CallToolResult")) {
        let result = CallToolResult::from_value(&value).unwrap();
        let written = result.to_json_for(latest).unwrap();
        assert_eq!(written.json, value, "{name}");
        assert!(written.losses.is_empty(), "{name}");
        seen += 1;
    }
    for (name, value) in examples(&root.join("ListToolsResult")) {
        let list = ListToolsResult::from_value(&value).unwrap();
        assert_eq!(list.ttl_ms, Some(300_000));
        assert_eq!(list.cache_scope, Some(CacheScope::Public));
        let written = list.to_json_for(latest).unwrap();
        assert_eq!(written.json, value, "{name}");
        assert!(written.losses.is_empty(), "{name}");
        seen += 1;
    }
    assert_eq!(seen, 6 + 4 + 1);
}

/// What each version leaves out of a tool holding every field, and reports.
#[test]
fn downgrade_reports_name_what_each_version_cannot_carry() {
    let tool = Tool::from_mcp_json(&json!({
        "name": "everything",
        "title": "Everything",
        "description": "d",
        "inputSchema": {"type": "object", "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"}}},
        "outputSchema": {"type": "object"},
        "annotations": {"readOnlyHint": true},
        "icons": [{"src": "https://example.com/i.png"}],
        "execution": {"taskSupport": "optional"},
        "_meta": {"com.example/k": 1},
        "x-vendor": true
    }))
    .unwrap();
    let header = "/inputSchema/properties/region/x-mcp-header";
    let expected: [(ProtocolVersion, &[&str], bool); 5] = [
        (
            ProtocolVersion::V2024_11_05,
            &[
                "/title",
                "/outputSchema",
                "/annotations",
                "/icons",
                "/execution",
                "/_meta",
            ],
            true,
        ),
        (
            ProtocolVersion::V2025_03_26,
            &["/title", "/outputSchema", "/icons", "/execution", "/_meta"],
            true,
        ),
        (
            ProtocolVersion::V2025_06_18,
            &["/icons", "/execution"],
            true,
        ),
        (ProtocolVersion::V2025_11_25, &[], true),
        (ProtocolVersion::V2026_07_28, &["/execution"], false),
    ];
    for (version, omitted, header_ignored) in expected {
        let written = tool.to_mcp_json_for(version).unwrap();
        let found: Vec<(&str, LossKind)> = written
            .losses
            .iter()
            .map(|loss| {
                assert_eq!(loss.version, version);
                (loss.pointer.as_str(), loss.kind)
            })
            .collect();
        let mut want: Vec<(&str, LossKind)> =
            omitted.iter().map(|p| (*p, LossKind::Omitted)).collect();
        if header_ignored {
            want.push((header, LossKind::Ignored));
        }
        assert_eq!(found, want, "{version}");
        for pointer in omitted {
            assert!(
                written.json.pointer(pointer).is_none(),
                "{version} {pointer}"
            );
        }
        // Unknown keys and the header keyword are always written.
        assert_eq!(written.json["x-vendor"], json!(true));
        assert_eq!(written.json.pointer(header), Some(&json!("Region")));
    }
    assert_eq!(
        tool.to_mcp_json_for(ProtocolVersion::V2026_07_28)
            .unwrap()
            .losses[0]
            .to_string(),
        "/execution: left out, MCP 2026-07-28 has no such field"
    );

    // Results: resultType and structuredContent, and content blocks a version lacks.
    let result = CallToolResult::from_value(&json!({"resultType": "complete",
        "content": [{"type": "audio", "data": "AAAA", "mimeType": "audio/wav"},
                    {"type": "resource_link", "uri": "file:///a", "name": "a"}],
        "structuredContent": {"a": 1}}))
    .unwrap();
    let lost = |version| -> Vec<String> {
        result
            .to_json_for(version)
            .unwrap()
            .losses
            .into_iter()
            .map(|loss| loss.pointer)
            .collect()
    };
    assert_eq!(
        lost(ProtocolVersion::V2024_11_05),
        [
            "/resultType",
            "/structuredContent",
            "/content/0",
            "/content/1"
        ]
    );
    assert_eq!(
        lost(ProtocolVersion::V2025_03_26),
        ["/resultType", "/structuredContent", "/content/1"]
    );
    assert_eq!(lost(ProtocolVersion::V2025_11_25), ["/resultType"]);
    assert!(lost(ProtocolVersion::V2026_07_28).is_empty());
    let pending =
        CallToolResult::from_value(&json!({"resultType": "input_required", "content": []}))
            .unwrap();
    let Err(Error::Unwritable { pointer, .. }) = pending.to_json_for(ProtocolVersion::V2025_11_25)
    else {
        panic!("input_required has no meaning before 2026-07-28")
    };
    assert_eq!(pointer, "/resultType");
}

#[test]
fn the_toolbox_lists_with_the_default_cache_hints() {
    let toolbox = Toolbox::builder()
        .with_tool(Ping::tool().clone(), |_, _| async {
            Ok(CallToolResult::text("pong"))
        })
        .build()
        .unwrap();
    let latest = serde_json::to_value(toolbox.list(None).unwrap()).unwrap();
    assert_eq!(latest["resultType"], "complete");
    assert_eq!(latest["ttlMs"], 0);
    assert_eq!(latest["cacheScope"], "private");
    let old = serde_json::to_value(
        toolbox
            .list_for(ProtocolVersion::V2025_11_25, None)
            .unwrap(),
    )
    .unwrap();
    assert_eq!(keys(&old), BTreeSet::from(["tools".to_owned()]));
}
