//! `toolmodel-rmcp`'s conversions on real tools (the MCP corpus) and on generated ones.
//!
//! What is checked, per tool:
//! - to `rmcp`: `serde_json::to_value(&rmcp_tool)` is `tool.to_mcp_json()` minus exactly the
//!   pointers `to_rmcp_lossy` lists, and equals what `rmcp`'s own deserializer reads from
//!   `tool.to_mcp_json()`; the strict conversion fails exactly when that list is not empty;
//! - back from `rmcp`: the tool again, minus the listed values.

use std::{fs, path::Path};

use proptest::prelude::*;
use rmcp::model;
use serde_json::{Map, Value, json};
use toolmodel::{
    Tool, ToolAnnotations, ToolSchema,
    model::{Icon, IconTheme, TaskSupport, ToolExecution},
    wire::catalog::tool_values,
};
use toolmodel_rmcp::{Error, TryFromRmcp, TryIntoRmcp, to_rmcp_lossy};
use toolmodel_tests::shared_dir;

/// The corpus folders that hold MCP `Tool` objects (see `corpus/SOURCES.md`).
const MCP_FOLDERS: &[&str] = &[
    "github-mcp-server",
    "kubernetes-mcp-server",
    "mcp-proxy-snapshots",
    "docker-mcp-registry",
    "livemcpbench",
    "rmcp-test-fixtures",
];

/// Every tool under a corpus folder, with `file#pointer`.
fn corpus_tools(folder: &str) -> Option<Vec<(String, Tool)>> {
    let dir = shared_dir(&format!("corpus/{folder}"))?;
    let mut tools = Vec::new();
    collect(&dir, &mut tools);
    assert!(!tools.is_empty(), "no tools in {}", dir.display());
    Some(tools)
}

fn collect(path: &Path, tools: &mut Vec<(String, Tool)>) {
    if path.is_dir() {
        let mut entries: Vec<_> = fs::read_dir(path)
            .unwrap()
            .map(|entry| entry.unwrap().path())
            .collect();
        entries.sort();
        for entry in entries {
            collect(&entry, tools);
        }
        return;
    }
    let text = fs::read_to_string(path).unwrap();
    let document: Value =
        serde_json::from_str(&text).unwrap_or_else(|err| panic!("{}: {err}", path.display()));
    for (pointer, value) in tool_values(&document).unwrap() {
        let at = format!("{}#{pointer}", path.display());
        let tool = Tool::from_mcp_json(value).unwrap_or_else(|err| panic!("{at}: {err}"));
        tools.push((at, tool));
    }
}

/// Removes the value at a JSON Pointer; panics when there is none.
fn remove(document: &mut Value, pointer: &str) {
    let (parent, token) = pointer.rsplit_once('/').unwrap();
    let key = token.replace("~1", "/").replace("~0", "~");
    let removed = document
        .pointer_mut(parent)
        .and_then(Value::as_object_mut)
        .and_then(|object| object.remove(&key));
    assert!(removed.is_some(), "nothing at {pointer}");
}

/// The tool without the values `rmcp` cannot hold, and without the extensions.
fn rmcp_part(tool: &Tool) -> Tool {
    let mut part = Tool::from_mcp_json(&tool.to_mcp_json()).unwrap();
    part.execution = None;
    part.extra = Map::new();
    if let Some(annotations) = &mut part.annotations {
        annotations.extra = Map::new();
    }
    for icon in part.icons.iter_mut().flatten() {
        icon.extra = Map::new();
    }
    part
}

/// Checks every guarantee of the conversions on one tool; returns the dropped pointers.
fn check(at: &str, tool: &Tool) -> Vec<String> {
    let (converted, lost) = to_rmcp_lossy(tool);

    let mut expected = tool.to_mcp_json();
    for pointer in &lost {
        remove(&mut expected, pointer);
    }
    assert_eq!(serde_json::to_value(&converted).unwrap(), expected, "{at}");
    let read_by_rmcp: model::Tool = serde_json::from_value(tool.to_mcp_json()).unwrap();
    assert_eq!(converted, read_by_rmcp, "{at}");

    match tool.try_into_rmcp() {
        Ok(strict) => {
            assert!(lost.is_empty(), "{at}: {lost:?}");
            assert_eq!(strict, converted, "{at}");
        }
        Err(Error::Lossy {
            target,
            lost: refused,
        }) => {
            assert_eq!(target, "rmcp::model::Tool", "{at}");
            assert_eq!(refused, lost, "{at}");
        }
        Err(other) => panic!("{at}: {other}"),
    }

    let back = Tool::try_from_rmcp(converted).unwrap();
    assert_eq!(back, rmcp_part(tool), "{at}");
    assert_eq!(back.to_mcp_json(), expected, "{at}");
    lost
}

#[test]
fn github_corpus_converts_to_rmcp_and_back_without_loss() {
    let Some(tools) = corpus_tools("github-mcp-server") else {
        return;
    };
    let snaps = fs::read_dir(shared_dir("corpus/github-mcp-server").unwrap())
        .unwrap()
        .filter(|entry| entry.as_ref().unwrap().path().extension() == Some("snap".as_ref()))
        .count();
    assert_eq!(tools.len(), snaps);
    for (at, tool) in &tools {
        assert_eq!(check(at, tool), Vec::<String>::new(), "{at}");
        let strict = tool.clone().try_into_rmcp().unwrap();
        assert_eq!(
            serde_json::to_value(&strict).unwrap(),
            tool.to_mcp_json(),
            "{at}"
        );
        assert_eq!(&Tool::try_from_rmcp(strict).unwrap(), tool, "{at}");
    }
}

#[test]
fn every_mcp_corpus_tool_converts_with_only_the_documented_losses() {
    for folder in MCP_FOLDERS {
        let Some(tools) = corpus_tools(folder) else {
            continue;
        };
        let mut lossy = 0;
        for (at, tool) in &tools {
            let lost = check(at, tool);
            lossy += usize::from(!lost.is_empty());
            for pointer in lost {
                let documented = pointer == "/execution"
                    || tool.extra.contains_key(&pointer[1..])
                    || pointer.starts_with("/annotations/")
                    || pointer.starts_with("/icons/");
                assert!(documented, "{at}: {pointer}");
            }
        }
        println!(
            "{folder}: {} tools, {lossy} lose something going to rmcp",
            tools.len()
        );
    }
}

#[test]
fn execution_in_real_captures_is_refused_by_the_strict_conversion() {
    let Some(tools) = corpus_tools("rmcp-test-fixtures") else {
        return;
    };
    let (at, tool) = tools
        .iter()
        .find(|(_, tool)| tool.execution.is_some())
        .expect("rmcp's own fixture declares execution");
    match tool.try_into_rmcp() {
        Err(Error::Lossy { target, lost }) => {
            assert_eq!(target, "rmcp::model::Tool", "{at}");
            assert_eq!(lost, ["/execution"], "{at}");
        }
        other => panic!("{at}: {other:?}"),
    }
}

fn text() -> impl Strategy<Value = String> {
    "[a-z~/ ]{0,8}"
}

fn extra() -> impl Strategy<Value = Map<String, Value>> {
    prop::collection::btree_map("x-[a-z~/]{1,6}", any::<i32>().prop_map(Value::from), 0..3)
        .prop_map(|map| map.into_iter().collect())
}

fn annotations() -> impl Strategy<Value = ToolAnnotations> {
    (
        prop::option::of(text()),
        [any::<Option<bool>>(), any::<Option<bool>>()],
        [any::<Option<bool>>(), any::<Option<bool>>()],
        extra(),
    )
        .prop_map(
            |(title, [read_only, destructive], [idempotent, open_world], extra)| {
                let mut annotations = ToolAnnotations::default();
                annotations.title = title;
                annotations.read_only_hint = read_only;
                annotations.destructive_hint = destructive;
                annotations.idempotent_hint = idempotent;
                annotations.open_world_hint = open_world;
                annotations.extra = extra;
                annotations
            },
        )
}

fn icon() -> impl Strategy<Value = Icon> {
    (
        "https://[a-z]{1,5}\\.example/[a-z]{1,5}\\.png",
        prop::option::of("image/(png|svg\\+xml)"),
        prop::option::of(prop::collection::vec("[0-9]{1,3}x[0-9]{1,3}|any", 0..3)),
        prop::option::of(prop_oneof![Just(IconTheme::Light), Just(IconTheme::Dark)]),
        extra(),
    )
        .prop_map(|(src, mime_type, sizes, theme, extra)| {
            let mut icon = Icon::new(src);
            icon.mime_type = mime_type;
            icon.sizes = sizes;
            icon.theme = theme;
            icon.extra = extra;
            icon
        })
}

fn execution() -> impl Strategy<Value = ToolExecution> {
    prop::option::of(prop_oneof![
        Just(TaskSupport::Forbidden),
        Just(TaskSupport::Optional),
        Just(TaskSupport::Required),
    ])
    .prop_map(|task_support| {
        let mut execution = ToolExecution::default();
        execution.task_support = task_support;
        execution
    })
}

fn schema() -> impl Strategy<Value = ToolSchema> {
    prop::collection::btree_map("[a-z]{1,4}", "[a-z]{0,4}", 0..3).prop_map(|properties| {
        let properties: Map<String, Value> = properties
            .into_iter()
            .map(|(name, description)| (name, json!({"description": description})))
            .collect();
        ToolSchema::try_from(json!({"type": "object", "properties": properties})).unwrap()
    })
}

fn tool() -> impl Strategy<Value = Tool> {
    (
        (
            "[a-z_]{1,10}",
            prop::option::of(text()),
            prop::option::of(text()),
        ),
        (schema(), prop::option::of(schema())),
        prop::option::of(annotations()),
        prop::option::of(prop::collection::vec(icon(), 0..3)),
        prop::option::of(execution()),
        prop::option::of(extra()),
        extra(),
        (
            prop::option::of("[a-z]{1,5}"),
            prop::collection::vec("[a-z]{1,5}", 0..2),
        ),
    )
        .prop_map(
            |(
                (name, title, description),
                (input, output),
                annotations,
                icons,
                execution,
                meta,
                extra,
                (namespace, tags),
            )| {
                let mut tool = Tool::new(name, input);
                tool.title = title;
                tool.description = description;
                tool.output_schema = output;
                tool.annotations = annotations;
                tool.icons = icons;
                tool.execution = execution;
                tool.meta = meta;
                tool.extra = extra;
                tool.namespace = namespace;
                tool.tags = tags;
                tool
            },
        )
}

proptest! {
    #[test]
    fn conversions_keep_everything_rmcp_can_hold(tool in tool()) {
        let lost = check("generated", &tool);
        let annotation_keys = tool.annotations.as_ref().map_or(0, |a| a.extra.len());
        let icon_keys: usize = tool.icons.iter().flatten().map(|icon| icon.extra.len()).sum();
        prop_assert_eq!(
            lost.len(),
            usize::from(tool.execution.is_some()) + tool.extra.len() + annotation_keys + icon_keys
        );
    }

    #[test]
    fn rmcp_tools_convert_to_toolmodel_and_back_unchanged(tool in tool()) {
        let source = to_rmcp_lossy(&tool).0;
        let converted = Tool::try_from_rmcp(source.clone()).unwrap();
        prop_assert_eq!(converted.to_mcp_json(), serde_json::to_value(&source).unwrap());
        prop_assert_eq!(converted.try_into_rmcp().unwrap(), source);
    }
}
