//! End-to-end tests of the `toolmodel` binary: on `../shared/corpus` (skipped with a notice
//! when it is missing, unless `CI` is set) and on broken files written to a temporary folder.
//! Every test asserts the exact exit status and the key parts of stdout and stderr.

use std::{
    fs,
    path::{Path, PathBuf},
};

use assert_cmd::{Command, cargo::cargo_bin_cmd};
use predicates::prelude::*;
use serde_json::{Value, json};
use tempfile::TempDir;

fn toolmodel() -> Command {
    cargo_bin_cmd!("toolmodel")
}

/// A temporary folder holding `files` (name, text).
fn folder(files: &[(&str, &str)]) -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        let path = dir.path().join(name);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
    }
    dir
}

fn stdout_of(command: &mut Command) -> (i32, String, String) {
    let output = command.output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

fn json_stdout(command: &mut Command) -> (i32, Value) {
    let (code, stdout, stderr) = stdout_of(command);
    let value = serde_json::from_str(&stdout)
        .unwrap_or_else(|err| panic!("stdout is not JSON ({err}):\n{stdout}\nstderr:\n{stderr}"));
    (code, value)
}

const GOOD: &str = r#"{"name": "get_weather", "description": "Weather", "inputSchema": {
    "type": "object",
    "properties": {"city": {"type": "string", "minLength": 1}, "days": {"type": "integer", "maximum": 7}},
    "required": ["city"]
}}"#;

// ---------------------------------------------------------------------------------------------
// The corpus

fn corpus() -> Option<PathBuf> {
    toolmodel_tests::shared_dir("corpus")
}

/// The `*.json` and `*.snap` files under `dir`, as `lint` expands a folder.
fn tool_files(dir: &Path) -> Vec<PathBuf> {
    toolmodel_tests::corpus_files(dir)
        .into_iter()
        .filter(|path| path.extension().is_some_and(|e| e == "json" || e == "snap"))
        .collect()
}

#[test]
fn lint_a_folder_of_snapshots_is_clean_with_a_table_per_target() {
    let Some(corpus) = corpus() else { return };
    let dir = corpus.join("github-mcp-server");
    let count = tool_files(&dir).len();
    let (code, stdout, stderr) = stdout_of(toolmodel().arg("lint").arg(&dir));
    assert_eq!(code, 0, "{stdout}\n{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    assert!(
        stdout.contains(&format!(
            "{}: {count} files, {count} tools, 0 errors",
            dir.display()
        )),
        "{stdout}"
    );
    for profile in [
        "openai-chat ",
        "openai-chat-strict ",
        "openai-responses ",
        "openai-responses-strict ",
        "anthropic ",
        "anthropic-strict ",
        "gemini ",
    ] {
        assert!(
            stdout.lines().any(|l| l.trim_start().starts_with(profile)),
            "no row for {profile}:\n{stdout}"
        );
    }
    // Without --target, neither rejections nor warnings are listed one per line.
    assert!(!stdout.contains("warning["), "{stdout}");
}

#[test]
fn lint_finds_the_corpus_defects_with_pointers() {
    let Some(corpus) = corpus() else { return };
    let live = corpus.join("livemcpbench/tools.json");
    toolmodel()
        .arg("lint")
        .arg(&live)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "error[invalid-schema]: \"read_pdf\"",
        ))
        .stdout(predicate::str::contains(
            "/exclusiveMinimum: error[invalid-schema]",
        ))
        .stdout(predicate::str::contains(format!("{}#/", live.display())));
    let vectra = corpus.join("docker-mcp-registry/vectra-ai-rux-mcp-server/tools.json");
    toolmodel()
        .arg("lint")
        .arg(&vectra)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "/name: error[name]: \"Summarize Detection\": not a valid MCP tool name: character ' ' (U+0020) at position 9",
        ));
    // An array-rooted outputSchema is legal in 2026-07-28 (the default) and an error for
    // 2025-11-25; the version table shows it either way.
    let array_output = corpus.join("mcp-spec-examples/Tool/tool-with-array-output-schema.json");
    toolmodel()
        .arg("lint")
        .arg(&array_output)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "  2025-11-25            0          0          1",
        ))
        .stdout(predicate::str::contains(
            "  2026-07-28            1          0          0",
        ));
    toolmodel()
        .args(["lint", "--protocol", "2025-11-25"])
        .arg(&array_output)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "#/outputSchema/type: error[schema-root]: \"list_users\"",
        ));
    toolmodel()
        .args(["lint", "--verbose"])
        .arg(&array_output)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "#/outputSchema/type: note[mcp-2025-06-18]: \"list_users\": breaks: outputSchema root has \"type\": \"array\"",
        ));
}

#[test]
fn convert_to_mcp_writes_for_the_protocol_and_reports_what_it_leaves_out() {
    let Some(corpus) = corpus() else { return };
    let file = corpus.join("mcp-proxy-snapshots/server-filesystem.json");
    let document: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    let tools = document["tools"].as_array().unwrap();
    let with_execution = tools
        .iter()
        .filter(|t| t.get("execution").is_some())
        .count();
    assert!(with_execution > 0);
    // Default, 2026-07-28: `execution` left out of each tool, one warning each.
    let (code, stdout, stderr) = stdout_of(toolmodel().args(["convert", "--to", "mcp"]).arg(&file));
    assert_eq!(code, 0, "{stderr}");
    let converted: Vec<Value> = serde_json::from_str(&stdout).unwrap();
    let expected: Vec<Value> = tools
        .iter()
        .map(|tool| {
            let mut tool = tool.clone();
            tool.as_object_mut().unwrap().remove("execution");
            tool
        })
        .collect();
    assert_eq!(converted, expected);
    let warnings: Vec<&str> = stderr.lines().collect();
    assert_eq!(warnings.len(), with_execution, "{stderr}");
    assert!(
        warnings
            .iter()
            .all(|line| line.contains("/execution: warning[mcp-2026-07-28]: ")),
        "{stderr}"
    );
    // 2024-11-05: title, outputSchema, annotations go too; an unknown version is a usage error.
    let (code, stdout, _) = stdout_of(
        toolmodel()
            .args(["convert", "--to", "mcp", "--protocol", "2024-11-05"])
            .arg(&file),
    );
    assert_eq!(code, 0);
    let old: Vec<Value> = serde_json::from_str(&stdout).unwrap();
    assert!(old.iter().all(|tool| {
        let keys: Vec<&String> = tool.as_object().unwrap().keys().collect();
        keys.iter()
            .all(|k| ["name", "description", "inputSchema"].contains(&k.as_str()))
    }));
    toolmodel()
        .args(["convert", "--to", "mcp", "--protocol", "2025-01-01"])
        .arg(&file)
        .assert()
        .code(2);
    toolmodel()
        .args(["convert", "--to", "openai", "--protocol", "2025-11-25"])
        .arg(&file)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("applies to --to mcp only"));
    // A tool the version cannot express is an error, left out.
    let array_output = corpus.join("mcp-spec-examples/Tool/tool-with-array-output-schema.json");
    let (code, stdout, stderr) = stdout_of(
        toolmodel()
            .args(["convert", "--to", "mcp", "--protocol", "2025-11-25"])
            .arg(&array_output),
    );
    assert_eq!((code, stdout.trim()), (1, "[]"));
    assert!(
        stderr.contains("cannot be written for MCP 2025-11-25: /outputSchema/type"),
        "{stderr}"
    );
}

#[test]
fn lint_reports_json_lines_as_not_a_tool_document_at_line_two() {
    let Some(corpus) = corpus() else { return };
    let bfcl = corpus.join("bfcl/BFCL_v4_simple_python.json");
    toolmodel()
        .arg("lint")
        .arg(&bfcl)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "error: {}:2:1: trailing characters",
            bfcl.display()
        )))
        .stderr(predicate::str::contains("JSON Lines"));
}

#[test]
fn lint_the_whole_corpus_as_json() {
    let Some(corpus) = corpus() else { return };
    let files = tool_files(&corpus);
    let (code, report) = json_stdout(toolmodel().args(["lint", "--format", "json"]).arg(&corpus));
    // BFCL (JSON Lines) and the PostHog schema dump are not tool documents.
    assert_eq!(code, 2);
    assert_eq!(report["status"], 2);
    let listed: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["path"].as_str().unwrap())
        .collect();
    let expected: Vec<String> = files.iter().map(|p| p.display().to_string()).collect();
    assert_eq!(listed, expected, "every file, in sorted order");
    let tools: usize = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| f["tools"].as_array().unwrap().len())
        .sum();
    assert_eq!(report["summary"]["tools"], tools);
    assert!(tools > 900, "{tools}");
    for file in report["files"].as_array().unwrap() {
        let path = file["path"].as_str().unwrap();
        if path.contains("/bfcl/") {
            assert_eq!(file["error"]["kind"], "syntax", "{path}");
            assert_eq!(file["error"]["line"], 2, "{path}");
        }
        for tool in file["tools"].as_array().unwrap() {
            let pointer = tool["pointer"].as_str().unwrap();
            for finding in tool["errors"].as_array().unwrap() {
                assert!(
                    finding["pointer"].as_str().unwrap().starts_with(pointer),
                    "{finding}"
                );
            }
            // Readable tools get one report per provider profile.
            if tool["errors"]
                .as_array()
                .unwrap()
                .iter()
                .all(|e| e["kind"] != "tool-shape")
            {
                assert_eq!(tool["targets"].as_array().unwrap().len(), 7, "{path}");
            }
        }
    }
}

#[test]
fn convert_corpus_files_to_every_target() {
    let Some(corpus) = corpus() else { return };
    let file = corpus.join("mcp-proxy-snapshots/server-filesystem.json");
    let document: Value = serde_json::from_str(&fs::read_to_string(&file).unwrap()).unwrap();
    let count = document["tools"].as_array().unwrap().len();
    for (target, strict) in [
        ("mcp", false),
        ("openai", false),
        ("openai", true),
        ("openai-responses", false),
        ("openai-responses", true),
        ("anthropic", false),
        ("anthropic", true),
        ("gemini", false),
    ] {
        let mut command = toolmodel();
        command.args(["convert", "--to", target]).arg(&file);
        if target == "mcp" {
            // The version whose Tool the file's tools are: the identity.
            command.args(["--protocol", "2025-11-25"]);
        }
        if strict {
            command.arg("--strict");
        }
        let (code, stdout, stderr) = stdout_of(&mut command);
        assert_eq!(code, 0, "{target} {strict}: {stderr}");
        let converted: Vec<Value> = serde_json::from_str(&stdout).unwrap();
        assert_eq!(converted.len(), count, "{target}");
        for line in stderr.lines() {
            assert!(
                line.starts_with(&format!("{}#/tools/", file.display())),
                "{line}"
            );
            assert!(line.contains(": warning["), "{line}");
        }
        if strict {
            let strict_flag = |v: &Value| {
                v.get("function")
                    .and_then(|f| f.get("strict"))
                    .or_else(|| v.get("strict"))
                    .cloned()
            };
            assert!(
                converted
                    .iter()
                    .all(|v| strict_flag(v) == Some(json!(true)))
            );
        }
        if target == "mcp" {
            assert_eq!(converted, *document["tools"].as_array().unwrap());
        }
    }
}

#[test]
fn validate_against_a_corpus_tool() {
    let Some(corpus) = corpus() else { return };
    let file = corpus.join("github-mcp-server/list_issues.snap");
    toolmodel()
        .args(["validate", "--tool", "list_issues", "--args"])
        .arg(r#"{"owner": "rust-lang", "repo": "rust"}"#)
        .arg(&file)
        .assert()
        .code(0)
        .stdout(predicate::str::starts_with(
            "ok: the arguments match the inputSchema of \"list_issues\"",
        ));
    toolmodel()
        .args(["validate", "--tool", "list_issues", "--args"])
        .arg(r#"{"owner": "rust-lang", "perPage": 500}"#)
        .arg(&file)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("invalid: 2 violations"))
        .stdout(predicate::str::contains(
            "  /perPage: 500 is greater than the maximum of 100",
        ))
        .stdout(predicate::str::contains(
            "  (root): \"repo\" is a required property",
        ));
}

// ---------------------------------------------------------------------------------------------
// Broken input

#[test]
fn truncated_json_is_reported_at_its_line_and_column() {
    let text = "{\n  \"tools\": [\n    {\"name\": \"a\", \"inputSchema\": {\"type\": \"obj";
    let err = serde_json::from_str::<Value>(text).unwrap_err();
    assert_eq!(err.line(), 3);
    let dir = folder(&[("trunc.json", text)]);
    let path = dir.path().join("trunc.json");
    toolmodel()
        .arg("lint")
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "error: {}:3:{}: EOF while parsing a string",
            path.display(),
            err.column()
        )))
        .stdout(predicate::str::contains("1 file (1 unreadable), 0 tools"));
    let (code, report) = json_stdout(toolmodel().args(["lint", "--format", "json"]).arg(&path));
    assert_eq!(code, 2);
    assert_eq!(report["files"][0]["error"]["kind"], "syntax");
    assert_eq!(report["files"][0]["error"]["line"], 3);
    assert_eq!(report["files"][0]["error"]["column"], err.column());
}

#[test]
fn a_repeated_key_is_a_syntax_error_at_its_place() {
    let text = "{\"tools\": [\n  {\"name\": \"a\", \"inputSchema\": {\"type\": \"object\"},\n   \"name\": \"b\"}]}";
    let one = r#"{"name": "a", "inputSchema": {"type": "object"}}"#;
    let dir = folder(&[("twice.json", text), ("one.json", one)]);
    let path = dir.path().join("twice.json");
    toolmodel()
        .arg("lint")
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(format!(
            "error: {}:3:9: duplicate key \"name\" (a key may appear once in an object) in the object at /tools/0: JSON leaves",
            path.display()
        )));
    toolmodel()
        .args(["validate", "--tool", "a", "--args", r#"{"a": 1, "a": 2}"#])
        .arg(dir.path().join("one.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: --args:1:12: duplicate key \"a\" (a key may appear once in an object) at the top level",
        ));
}

#[test]
fn empty_deep_and_non_utf8_files_are_syntax_errors() {
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    let dir = folder(&[("empty.json", ""), ("deep.json", &deep)]);
    fs::write(dir.path().join("latin1.json"), b"{\"name\": \"caf\xe9\"}").unwrap();
    toolmodel()
        .arg("lint")
        .arg(dir.path().join("empty.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "empty.json:1:0: EOF while parsing a value",
        ));
    toolmodel()
        .arg("lint")
        .arg(dir.path().join("deep.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "deep.json:1:128: recursion limit exceeded",
        ));
    toolmodel()
        .arg("lint")
        .arg(dir.path().join("latin1.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("latin1.json:1:"))
        .stderr(predicate::str::contains("invalid unicode"));
}

#[test]
fn wrong_shapes_are_not_tool_documents() {
    let dir = folder(&[
        ("string.json", r#""get_weather""#),
        ("numbers.json", "[1, 2, 3]"),
        ("tools5.json", r#"{"tools": 5}"#),
        (
            "schema.json",
            r#"{"$schema": "http://json-schema.org/draft-07/schema#", "definitions": {}}"#,
        ),
    ]);
    for (file, pointer, found) in [
        ("string.json", "", "found string"),
        ("numbers.json", "/0", "found integer"),
        (
            "tools5.json",
            "/tools",
            "expected `tools` to hold tools (an array or an object), found integer",
        ),
        ("schema.json", "", "an object with `tools` or `result`"),
    ] {
        let path = dir.path().join(file);
        toolmodel()
            .arg("lint")
            .arg(&path)
            .assert()
            .code(2)
            .stderr(predicate::str::contains(format!(
                "error: {}#{pointer}: not an MCP tool document: ",
                path.display()
            )))
            .stderr(predicate::str::contains(found));
    }
}

#[test]
fn a_bad_tool_inside_a_good_document_is_pointed_at_and_the_others_are_linted() {
    let text = format!(r#"{{"tools": [{{"name": "broken", "inputSchema": 5}}, {GOOD}]}}"#);
    let dir = folder(&[("list.json", &text)]);
    let path = dir.path().join("list.json");
    toolmodel()
        .arg("lint")
        .arg(&path)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(format!(
            "{}#/tools/0/inputSchema: error[tool-shape]: \"broken\": not an MCP tool: ",
            path.display()
        )))
        .stdout(predicate::str::contains("2 tools, 1 error in 1 tool"));
}

#[test]
fn huge_names_are_one_readable_error() {
    let long = "x".repeat(10_000);
    let accented = "é".repeat(10_000);
    let text = json!([
        {"name": long, "inputSchema": {"type": "object"}},
        {"name": accented, "inputSchema": {"type": "object"}}
    ])
    .to_string();
    let dir = folder(&[("huge.json", &text)]);
    let path = dir.path().join("huge.json");
    let (code, stdout, stderr) =
        stdout_of(toolmodel().args(["lint", "--target", "openai"]).arg(&path));
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    assert!(
        stdout.contains("#/0/name: error[name]: \"xxxx")
            && stdout.contains("it is 10000 characters long (at most 128)"),
        "{stdout}"
    );
    assert!(
        stdout.contains("#/1/name: error[name]: \"éééé")
            && stdout.contains("and 9996 more problems"),
        "{stdout}"
    );
    // The adapters map both names (with a warning); nothing prints a 10,000-character line.
    assert!(stdout.contains("warning[openai-chat]"), "{stdout}");
    assert!(stdout.lines().all(|l| l.chars().count() < 1000), "{stdout}");
    let (_, report) = json_stdout(toolmodel().args(["lint", "--format", "json"]).arg(&path));
    assert_eq!(
        report["files"][0]["tools"][0]["name"]
            .as_str()
            .unwrap()
            .len(),
        10_000
    );
}

#[test]
fn duplicate_names_are_errors_within_a_server_only() {
    let dir = folder(&[
        (
            "dup.json",
            r#"{"tools": [
                {"name": "a", "inputSchema": {"type": "object"}},
                {"name": "b", "inputSchema": {"type": "object"}},
                {"name": "a", "inputSchema": {"type": "object"}}
            ]}"#,
        ),
        (
            "servers.json",
            r#"[{"name": "one", "tools": {"s1": {"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}}},
                {"name": "two", "tools": {"s2": {"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}}}]"#,
        ),
    ]);
    toolmodel()
        .arg("lint")
        .arg(dir.path().join("dup.json"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "#/tools/2/name: error[duplicate-name]: \"a\": name \"a\" is also the name of the tool at #/tools/0",
        ));
    toolmodel()
        .arg("lint")
        .arg(dir.path().join("servers.json"))
        .assert()
        .code(0)
        .stdout(predicate::str::contains("2 tools, 0 errors"));
}

#[test]
fn schema_errors_external_refs_dialects_roots_and_icons() {
    let dir = folder(&[
        (
            "ext.json",
            r#"{"name": "r", "inputSchema": {"type": "object",
                "properties": {"x": {"$ref": "https://example.com/s.json#/defs/x"}}}}"#,
        ),
        (
            "draft4.json",
            r#"{"name": "d4", "inputSchema": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}}"#,
        ),
        (
            "invalid.json",
            r#"{"name": "bad", "inputSchema": {"type": "object", "properties": {"n": {"type": "integer", "minimum": "zero"}}}}"#,
        ),
        (
            "icon.json",
            r#"{"name": "ic", "icons": [{"src": "javascript:alert(1)"}], "inputSchema": {"type": "array"}}"#,
        ),
    ]);
    let lint = |file: &str| {
        let mut command = toolmodel();
        command.arg("lint").arg(dir.path().join(file));
        command
    };
    lint("ext.json").assert().code(1).stdout(predicate::str::contains(
        "#/inputSchema/properties/x/$ref: error[external-ref]: \"r\": inputSchema refers to the external resource \"https://example.com/s.json",
    ));
    lint("draft4.json").assert().code(1).stdout(predicate::str::contains(
        "#/inputSchema/$schema: error[schema-dialect]: \"d4\": inputSchema declares the JSON Schema dialect \"http://json-schema.org/draft-04/schema#\"",
    ));
    lint("invalid.json").assert().code(1).stdout(predicate::str::contains(
        "#/inputSchema/properties/n/minimum: error[invalid-schema]: \"bad\": invalid inputSchema: ",
    ));
    lint("icon.json")
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "#/inputSchema/type: error[schema-root]: \"ic\": inputSchema root has \"type\": \"array\"",
        ))
        .stdout(predicate::str::contains(
            "#/icons/0/src: error[icon-uri]: \"ic\": icon src \"javascript:alert(1)\"",
        ));
}

#[test]
fn target_focus_lists_changes_and_counts_rejections_as_errors() {
    let open = r#"[{"name": "search", "title": "Search", "inputSchema": {"type": "object",
        "properties": {"filters": {"type": "object"}, "q": {"type": "string", "minLength": 1}}}}]"#;
    let dir = folder(&[("open.json", open)]);
    let path = dir.path().join("open.json");
    // Unfocused: counted in the table, not an error.
    let (code, stdout, _) = stdout_of(toolmodel().arg("lint").arg(&path));
    assert_eq!(code, 0, "{stdout}");
    let row = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("openai-chat-strict "))
        .unwrap();
    let cells: Vec<&str> = row.split_whitespace().collect();
    assert_eq!(
        cells,
        ["openai-chat-strict", "0", "0", "1", "0", "0"],
        "{stdout}"
    );
    // Verbose: every rejection and warning listed, still not errors.
    toolmodel()
        .args(["lint", "-v"])
        .arg(&path)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "#/0/inputSchema/properties/filters: rejected[openai-chat-strict]: \"search\": rejected: ",
        ))
        .stdout(
            predicate::str::contains("#/0/inputSchema/properties/q/minLength: warning[gemini]: ")
                .not(),
        )
        .stdout(predicate::str::contains(
            "#/0/title: warning[gemini]: \"search\": title: dropped: ",
        ));
    // Focused: the rejection is an error, with the pointer of the open object (`openai-strict`
    // is read as `openai-chat-strict`).
    toolmodel()
        .args(["lint", "--target", "openai-strict,gemini"])
        .arg(&path)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "#/0/inputSchema/properties/filters: error[openai-chat-strict]: \"search\": rejected: ",
        ))
        .stdout(predicate::str::contains("1 tool, 1 error in 1 tool"))
        .stdout(predicate::str::contains("  gemini "))
        .stdout(predicate::str::contains("  openai-chat ").not());
    // Focused on a target that takes it: the changes are listed, exit 0.
    toolmodel()
        .args(["lint", "--target", "anthropic"])
        .arg(&path)
        .assert()
        .code(0);
    toolmodel()
        .args(["lint", "--target", "openai-strict", "--allow-widening"])
        .arg(&path)
        .assert()
        .code(1);
    toolmodel()
        .args(["lint", "--target", "gemini-strict"])
        .arg(&path)
        .assert()
        .code(2)
        .stderr(predicate::str::contains("\"gemini-strict\" is not one of"));
}

#[test]
fn folders_are_read_sorted_and_an_unreadable_file_does_not_stop_the_others() {
    let dir = folder(&[
        ("b/second.snap", GOOD),
        (
            "a.json",
            r#"[{"name": "bad name", "inputSchema": {"type": "object"}}]"#,
        ),
        ("c.json", "{"),
        ("notes.txt", "not read"),
    ]);
    let (code, stdout, stderr) = stdout_of(toolmodel().arg("lint").arg(dir.path()));
    assert_eq!(code, 2, "an unreadable file wins over errors");
    assert!(stdout.contains("a.json#/0/name: error[name]"), "{stdout}");
    assert!(
        stdout.contains("3 files (1 unreadable), 2 tools, 1 error in 1 tool"),
        "{stdout}"
    );
    assert!(
        stderr.contains("c.json:1:1: EOF while parsing an object"),
        "{stderr}"
    );
    assert!(!stdout.contains("notes.txt") && !stderr.contains("notes.txt"));
    let (_, report) = json_stdout(
        toolmodel()
            .args(["lint", "--format", "json"])
            .arg(dir.path()),
    );
    let names: Vec<&str> = report["files"]
        .as_array()
        .unwrap()
        .iter()
        .map(|f| {
            Path::new(f["path"].as_str().unwrap())
                .file_name()
                .unwrap()
                .to_str()
                .unwrap()
        })
        .collect();
    assert_eq!(names, ["a.json", "second.snap", "c.json"]);

    let empty = tempfile::tempdir().unwrap();
    toolmodel()
        .arg("lint")
        .arg(empty.path())
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no *.json or *.snap file in this folder",
        ));
    toolmodel()
        .arg("lint")
        .arg(empty.path().join("missing.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.json: cannot read: "));
}

#[test]
fn lint_reads_standard_input_and_several_paths() {
    let dir = folder(&[("one.json", GOOD)]);
    toolmodel()
        .args(["lint", "-"])
        .arg(dir.path().join("one.json"))
        .write_stdin(r#"{"jsonrpc": "2.0", "id": 1, "result": {"tools": [{"name": "x y", "inputSchema": {"type": "object"}}]}}"#)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "<stdin>#/result/tools/0/name: error[name]: \"x y\"",
        ))
        .stdout(predicate::str::contains("total: 2 paths, 2 files, 2 tools, 1 error in 1 tool"));
}

#[test]
fn usage_errors_exit_2_and_help_documents_the_exit_status() {
    toolmodel().assert().code(2);
    toolmodel().arg("lint").assert().code(2);
    toolmodel()
        .args(["convert", "--to", "claude", "x.json"])
        .assert()
        .code(2)
        .stderr(predicate::str::contains("target \"claude\" is not one of"));
    for command in [
        &["--help"][..],
        &["lint", "--help"],
        &["convert", "--help"],
        &["validate", "--help"],
    ] {
        toolmodel()
            .args(command)
            .assert()
            .code(0)
            .stdout(predicate::str::contains("Exit status:"))
            .stdout(predicate::str::contains(
                "2  the command could not run as asked",
            ));
    }
}

#[test]
fn the_summary_names_every_command_and_gateway_help_its_exit_status() {
    let help = toolmodel().arg("--help").assert().code(0);
    let summary = String::from_utf8_lossy(&help.get_output().stdout)
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned();
    for command in ["Lint", "convert", "validate", "(gateway)", "(tools)"] {
        assert!(summary.contains(command), "{command} in {summary:?}");
    }
    toolmodel()
        .args(["gateway", "--help"])
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "1  with --check-config: a problem in the configuration or the options",
        ))
        .stdout(predicate::str::contains("--allowed-hosts <HOST[,HOST...]>"))
        .stdout(predicate::str::contains("MCP_INTROSPECTION_CLIENT_SECRET"))
        .stdout(predicate::str::contains("SIGHUP"));
}

// ---------------------------------------------------------------------------------------------
// convert

#[test]
fn convert_each_target_plain_and_strict() {
    let text = format!(
        r#"[{GOOD}, {{"name": "weather.alerts", "title": "Alerts", "inputSchema": {{"type": "object", "properties": {{"region": {{"const": "EU"}}}}}}}}]"#
    );
    let dir = folder(&[("tools.json", &text)]);
    let path = dir.path().join("tools.json");
    for target in [
        "mcp",
        "openai-chat",
        "openai-responses",
        "anthropic",
        "gemini",
    ] {
        for strict in [false, true] {
            let mut command = toolmodel();
            command.args(["convert", "--to", target]).arg(&path);
            if strict {
                command.arg("--strict");
            }
            let (code, stdout, stderr) = stdout_of(&mut command);
            let has_strict = matches!(target, "openai-chat" | "openai-responses" | "anthropic");
            if strict && !has_strict {
                assert_eq!(code, 2, "{target}");
                assert!(stdout.is_empty());
                assert!(
                    stderr.contains(&format!("error: {target} has no strict mode")),
                    "{stderr}"
                );
                continue;
            }
            assert_eq!(code, 0, "{target} {strict}: {stderr}");
            let converted: Vec<Value> = serde_json::from_str(&stdout).unwrap();
            assert_eq!(converted.len(), 2);
            let profile = if strict {
                format!("{target}-strict")
            } else {
                target.to_owned()
            };
            match target {
                "mcp" => {
                    assert!(stderr.is_empty(), "{stderr}");
                    assert_eq!(converted[1]["name"], "weather.alerts");
                }
                "gemini" => {
                    // Gemini names may hold dots; the title is dropped with a warning.
                    assert!(stdout.contains("\"weather.alerts\""), "{stdout}");
                    assert!(
                        stderr.contains(
                            "#/1/title: warning[gemini]: \"weather.alerts\": title: dropped: "
                        ),
                        "{stderr}"
                    );
                }
                _ => {
                    // The dotted name is mapped, and the title is dropped, each with a warning.
                    assert!(
                        stderr.contains(&format!(
                            "#/1/name: warning[{profile}]: \"weather.alerts\": name: rewritten-exact: "
                        )),
                        "{stderr}"
                    );
                    assert!(
                        stderr.contains(&format!(
                            "#/1/title: warning[{profile}]: \"weather.alerts\": title: dropped: "
                        )),
                        "{stderr}"
                    );
                    assert!(!stdout.contains("weather.alerts"), "{stdout}");
                }
            }
            for line in stderr.lines() {
                assert!(line.starts_with(&format!("{}#/", path.display())), "{line}");
            }
        }
    }
    let (code, stdout, _) = stdout_of(
        toolmodel()
            .args(["convert", "--to", "openai", "--compact"])
            .arg(&path),
    );
    assert_eq!(code, 0);
    assert_eq!(stdout.lines().count(), 1);
}

#[test]
fn convert_leaves_out_a_tool_the_target_rejects() {
    let text = format!(
        r#"[{GOOD}, {{"name": "open", "inputSchema": {{"type": "object", "properties": {{"f": {{"type": "object"}}}}}}}}, {{"name": "broken", "inputSchema": []}}]"#
    );
    let dir = folder(&[("tools.json", &text)]);
    let path = dir.path().join("tools.json");
    let (code, stdout, stderr) = stdout_of(
        toolmodel()
            .args(["convert", "--to", "openai", "--strict"])
            .arg(&path),
    );
    assert_eq!(code, 1);
    let converted: Vec<Value> = serde_json::from_str(&stdout).unwrap();
    assert_eq!(converted.len(), 1);
    assert_eq!(converted[0]["function"]["name"], "get_weather");
    assert!(
        stderr.contains(
            "#/1/inputSchema/properties/f: error[openai-chat-strict]: \"open\": rejected: "
        ),
        "{stderr}"
    );
    assert!(
        stderr.contains("#/2/inputSchema: error[tool-shape]: \"broken\": not an MCP tool: "),
        "{stderr}"
    );
    // An input error converts nothing.
    let broken = folder(&[("t.json", "[{")]);
    toolmodel()
        .args(["convert", "--to", "openai"])
        .arg(broken.path().join("t.json"))
        .assert()
        .code(2)
        .stdout(predicate::str::is_empty())
        .stderr(predicate::str::contains("t.json:1:2: "));
}

// ---------------------------------------------------------------------------------------------
// validate

#[test]
fn validate_inline_and_file_arguments() {
    let dir = folder(&[
        ("tools.json", &format!("[{GOOD}]")),
        ("good.json", r#"{"city": "Paris", "days": 3}"#),
        ("bad.json", r#"{"city": "", "days": 9, "extra": true}"#),
        ("broken.json", "{\n  \"city\": \n"),
    ]);
    let tools = dir.path().join("tools.json");
    let validate = |args: &str| {
        let mut command = toolmodel();
        command
            .args(["validate", "--tool", "get_weather", "--args", args])
            .arg(&tools);
        command
    };
    validate(r#"{"city": "Paris"}"#)
        .assert()
        .code(0)
        .stdout(predicate::str::contains(
            "ok: the arguments match the inputSchema of \"get_weather\"",
        ))
        .stdout(predicate::str::contains(format!(
            "({}#/0)",
            tools.display()
        )));
    validate(r#"{"days": "3"}"#)
        .assert()
        .code(1)
        .stdout(predicate::str::contains("invalid: 2 violations"))
        .stdout(predicate::str::contains(
            "  (root): \"city\" is a required property (schema /required)",
        ))
        .stdout(predicate::str::contains(
            "  /days: \"3\" is not of type \"integer\" (schema /properties/days/type)",
        ));
    let at = |file: &str| format!("@{}", dir.path().join(file).display());
    validate(&at("good.json")).assert().code(0);
    validate(&at("bad.json"))
        .assert()
        .code(1)
        .stdout(predicate::str::contains("  /city: "))
        .stdout(predicate::str::contains(
            "(schema /properties/city/minLength)",
        ))
        .stdout(predicate::str::contains(
            "  /days: 9 is greater than the maximum of 7",
        ));
    validate(&at("broken.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "broken.json:3:0: EOF while parsing a value",
        ));
    validate(r#"{"city": "Par"#)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "error: --args:1:13: EOF while parsing a string",
        ));
    validate(&at("missing.json"))
        .assert()
        .code(2)
        .stderr(predicate::str::contains("missing.json: cannot read: "));
    // @- reads standard input.
    let mut stdin = validate("@-");
    stdin
        .write_stdin(r#"{"city": 5}"#)
        .assert()
        .code(1)
        .stdout(predicate::str::contains(
            "  /city: 5 is not of type \"string\"",
        ));

    let (code, report) = json_stdout(&mut {
        let mut command = validate(r#"{"city": 5}"#);
        command.args(["--format", "json"]);
        command
    });
    assert_eq!(code, 1);
    assert_eq!(report["valid"], false);
    assert_eq!(report["errors"][0]["instance_path"], "/city");
    assert_eq!(report["errors"][0]["keyword"], "type");
    assert_eq!(report["status"], 1);
}

#[test]
fn validate_needs_exactly_one_usable_tool() {
    let dir = folder(&[
        ("tools.json", &format!("[{GOOD}]")),
        ("twice.json", &format!("[{GOOD}, {GOOD}]")),
        (
            "draft4.json",
            r#"[{"name": "d4", "inputSchema": {"$schema": "http://json-schema.org/draft-04/schema#", "type": "object"}}]"#,
        ),
        ("shape.json", r#"[{"name": "s", "inputSchema": "object"}]"#),
    ]);
    let validate = |tool: &str, file: &str| {
        let mut command = toolmodel();
        command
            .args(["validate", "--tool", tool, "--args", "{}"])
            .arg(dir.path().join(file));
        command
    };
    validate("nope", "tools.json")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "no tool named \"nope\"; the tools are: \"get_weather\"",
        ));
    validate("get_weather", "twice.json")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "2 tools are named \"get_weather\": ",
        ))
        .stderr(predicate::str::contains("twice.json#/1"));
    validate("d4", "draft4.json")
        .assert()
        .code(2)
        .stderr(predicate::str::contains("draft4.json#/0: the inputSchema of \"d4\" cannot be used: unsupported JSON Schema dialect"));
    validate("s", "shape.json")
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "shape.json#/0: tool \"s\" cannot be read: ",
        ));
    toolmodel()
        .args(["validate", "--tool", "get_weather", "--args", "@-", "-"])
        .write_stdin(GOOD)
        .assert()
        .code(2)
        .stderr(predicate::str::contains(
            "standard input can be read only once",
        ));
}

// ---------------------------------------------------------------------------------------------
// The toolmodel extensions a registry sends beside the MCP keys

const WITH_EXTENSIONS: &str = r#"{"tools": [
  {"name": "write_note", "inputSchema": {"type": "object"},
   "category": "Notes", "requiredScopes": ["notes:read", "notes:write"], "timeoutMs": 30000},
  {"name": "bad_note", "inputSchema": {"type": "object"},
   "category": " Notes", "requiredScopes": ["notes write", "a", "a"], "timeoutMs": 0},
  {"name": "unreadable", "inputSchema": {"type": "object"}, "timeoutMs": "30s"}
]}"#;

#[test]
fn lint_shows_category_scopes_and_timeout_and_reports_their_rules() {
    let dir = folder(&[("tools.json", WITH_EXTENSIONS)]);
    let path = dir.path().join("tools.json");
    let (code, stdout, _) = stdout_of(toolmodel().args(["lint", "--verbose"]).arg(&path));
    assert_eq!(code, 1, "{stdout}");
    let file = path.display();
    for line in [
        format!(
            "{file}#/tools/0: note[extensions]: \"write_note\": category \"Notes\", scopes notes:read notes:write, timeout 30000ms"
        ),
        format!(
            "{file}#/tools/1/category: error[extension]: \"bad_note\": category \" Notes\" starts or ends with whitespace"
        ),
        format!(
            "{file}#/tools/1/requiredScopes/0: error[extension]: \"bad_note\": required scope \"notes write\" holds ' ' (U+0020) at position 5"
        ),
        format!(
            "{file}#/tools/1/requiredScopes/2: error[extension]: \"bad_note\": required scope \"a\" repeats requiredScopes/1"
        ),
        format!(
            "{file}#/tools/1/timeoutMs: error[extension]: \"bad_note\": timeout 0ns must be a whole, non-zero number of milliseconds"
        ),
        format!(
            "{file}#/tools/2/timeoutMs: error[extension]: \"unreadable\": unreadable extension: "
        ),
    ] {
        assert!(stdout.contains(&line), "missing {line:?} in:\n{stdout}");
    }

    let (_, report) = json_stdout(toolmodel().args(["lint", "--format", "json"]).arg(&path));
    let tools = &report["files"][0]["tools"];
    assert_eq!(
        tools[0]["extensions"],
        json!({"category": "Notes", "requiredScopes": ["notes:read", "notes:write"], "timeoutMs": 30000})
    );
    assert!(tools[0]["errors"].as_array().unwrap().is_empty());
    assert_eq!(tools[1]["errors"].as_array().unwrap().len(), 4);
    assert!(tools[2].get("extensions").is_none());
}
