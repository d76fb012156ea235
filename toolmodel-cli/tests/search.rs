//! `toolmodel search`: catalogs written to a temporary folder (every shape `lint` reads), the
//! shared corpus (skipped with a notice when missing, unless `CI` is set), a gateway
//! configuration's live tools (`mcp-server-time`, installed by `serve/install_upstreams.sh`;
//! skipped without it, unless `CI` is set), and bad input: empty and oversized queries, lines
//! that are not JSON or not `{"id", "query"}`, unreadable tools. Every test asserts the exit
//! status and what stdout and stderr say.

use std::{
    fs,
    path::Path,
    time::{Duration, Instant},
};

use assert_cmd::{Command, cargo::cargo_bin_cmd};
use proptest::prelude::*;
use serde_json::{Value, json};
use tempfile::TempDir;
use toolmodel_cli::search::{QueriesError, parse_queries};
use toolmodel_test_support::upstreams::upstreams;

/// Three tools in two files of two shapes: an array, and a `tools/list` result.
fn catalog() -> TempDir {
    let dir = tempfile::tempdir().unwrap();
    fs::write(
        dir.path().join("weather.json"),
        json!([{
            "name": "get_weather",
            "description": "Current weather and forecast for a city",
            "inputSchema": {"type": "object", "properties": {"city": {"type": "string", "description": "City name"}}}
        }])
        .to_string(),
    )
    .unwrap();
    fs::write(
        dir.path().join("github.json"),
        json!({"tools": [
            {"name": "createIssue", "description": "Open an issue in a GitHub repository",
             "inputSchema": {"type": "object", "properties": {"repo": {"type": "string"}, "title": {"type": "string"}}}},
            {"name": "files.read", "description": "Read a file from the disk",
             "inputSchema": {"type": "object", "properties": {"path": {"type": "string"}}}}
        ]})
        .to_string(),
    )
    .unwrap();
    dir
}

fn search(dir: &Path) -> Command {
    let mut command = cargo_bin_cmd!("toolmodel");
    command.arg("search").arg(dir);
    command
}

/// Runs `command`, which must exit 2 (a usage error) naming `message` on stderr.
fn refused(command: &mut Command, message: &str) {
    let (code, _, stderr) = run(command);
    assert_eq!(code, 2, "{stderr}");
    assert!(stderr.contains(message), "{message:?} not in {stderr}");
}

/// Exit status, stdout, stderr.
fn run(command: &mut Command) -> (i32, String, String) {
    let output = command.output().unwrap();
    (
        output.status.code().unwrap(),
        String::from_utf8(output.stdout).unwrap(),
        String::from_utf8(output.stderr).unwrap(),
    )
}

/// Each line of stdout as JSON.
fn json_lines(stdout: &str) -> Vec<Value> {
    stdout
        .lines()
        .map(|line| serde_json::from_str(line).unwrap_or_else(|err| panic!("{err}: {line}")))
        .collect()
}

/// A queries file in `dir` holding `text`.
fn queries(dir: &TempDir, text: &str) -> std::path::PathBuf {
    let path = dir.path().join("queries.jsonl");
    fs::write(&path, text).unwrap();
    path
}

#[test]
fn a_query_prints_the_matching_tools_best_first_with_score_and_description() {
    let dir = catalog();
    let (code, stdout, stderr) = run(search(dir.path()).args(["--query", "weather in Paris"]));
    assert_eq!(code, 0, "{stderr}");
    assert!(stderr.is_empty(), "{stderr}");
    let first = stdout.lines().next().unwrap();
    assert!(first.starts_with("1. get_weather "), "{stdout}");
    assert!(
        first.ends_with("Current weather and forecast for a city"),
        "{stdout}"
    );
    // Neither other tool has a term of the query.
    assert_eq!(stdout.lines().count(), 1, "{stdout}");

    let (code, stdout, _) = run(search(dir.path()).args(["--query", "flying to the moon"]));
    assert_eq!((code, stdout.as_str()), (0, "(no tool matches)\n"));
}

#[test]
fn queries_in_json_give_one_line_each_with_the_id_tools_and_scores() {
    let dir = catalog();
    let file = queries(
        &dir,
        "{\"id\": \"q1\", \"query\": \"open a GitHub issue\", \"relevant\": [\"createIssue\"]}\n\
         \n\
         {\"id\": 7, \"query\": \"read the file at this path\"}\r\n\
         {\"query\": \"weather forecast\"}\n",
    );
    let (code, stdout, stderr) = run(search(dir.path())
        .arg("--queries")
        .arg(&file)
        .args(["--format", "json"]));
    assert_eq!(code, 0, "{stderr}");
    let lines = json_lines(&stdout);
    assert_eq!(lines.len(), 3, "{stdout}");
    assert_eq!(lines[0]["id"], "q1");
    assert_eq!(lines[0]["tools"][0], "createIssue");
    assert_eq!(lines[1]["id"], 7);
    assert_eq!(lines[1]["tools"][0], "files.read");
    assert_eq!(lines[2]["id"], Value::Null);
    assert_eq!(lines[2]["tools"], json!(["get_weather"]));
    for line in &lines {
        let scores: Vec<f64> = line["scores"]
            .as_array()
            .unwrap()
            .iter()
            .map(|score| score.as_f64().unwrap())
            .collect();
        assert_eq!(scores.len(), line["tools"].as_array().unwrap().len());
        assert!(scores.windows(2).all(|pair| pair[0] >= pair[1]), "{line}");
        assert!(scores.iter().all(|score| *score > 0.0), "{line}");
    }

    // --query in JSON: the id is null.
    let (code, stdout, _) =
        run(search(dir.path()).args(["--query", "weather", "--format", "json"]));
    assert_eq!(code, 0);
    assert_eq!(json_lines(&stdout)[0]["id"], Value::Null);
}

#[test]
fn limit_bounds_the_tools_per_query_and_must_be_at_least_one() {
    let dir = catalog();
    let (code, stdout, _) = run(search(dir.path()).args([
        "--query",
        "read a GitHub file from the disk, weather",
        "--format",
        "json",
        "--limit",
        "2",
    ]));
    assert_eq!(code, 0);
    assert_eq!(json_lines(&stdout)[0]["tools"].as_array().unwrap().len(), 2);

    refused(
        search(dir.path()).args(["--query", "x", "--limit", "0"]),
        "\"0\" is not a number from 1 to 10000",
    );
}

#[test]
fn queries_in_text_are_headed_by_their_id_and_query() {
    let dir = catalog();
    let file = queries(
        &dir,
        "{\"id\": \"weather\", \"query\": \"weather forecast\"}\n{\"query\": \"nothing at all\"}\n",
    );
    let (code, stdout, stderr) = run(search(dir.path()).arg("--queries").arg(&file));
    assert_eq!(code, 0, "{stderr}");
    let label = file.display();
    let expected_start = "weather: weather forecast\n  1. get_weather";
    assert!(stdout.starts_with(expected_start), "{stdout}");
    assert!(
        stdout.ends_with(&format!(
            "\n\n{label}:2: nothing at all\n  (no tool matches)\n"
        )),
        "{stdout}"
    );
}

#[test]
fn an_empty_query_is_an_error_naming_where_it_is_and_nothing_is_searched() {
    let dir = catalog();
    let (code, stdout, stderr) = run(search(dir.path()).args(["--query", " \t "]));
    assert_eq!(code, 2);
    assert!(stdout.is_empty(), "{stdout}");
    assert_eq!(stderr, "error: --query: the search query is empty\n");

    let file = queries(
        &dir,
        "{\"id\": 1, \"query\": \"weather\"}\n{\"id\": 2, \"query\": \"\"}\n{\"id\": 3, \"query\": \"   \"}\n",
    );
    let (code, stdout, stderr) = run(search(dir.path())
        .arg("--queries")
        .arg(&file)
        .args(["--format", "json"]));
    assert_eq!(code, 2);
    assert!(stdout.is_empty(), "{stdout}");
    let label = file.display();
    assert_eq!(
        stderr,
        format!(
            "error: {label}:2: the search query is empty\nerror: {label}:3: the search query is empty\n"
        )
    );
}

#[test]
fn bad_lines_of_a_queries_file_are_each_reported_at_their_line() {
    let dir = catalog();
    let file = queries(
        &dir,
        "{\"id\": 1, \"query\": \"weather\"}\n\
         {\"id\": 2, \"query\": \"weather\"\n\
         [\"weather\"]\n\
         {\"id\": 4, \"query\": 5}\n\
         {\"id\": 5, \"text\": \"weather\"}\n\
         {\"query\": \"a\", \"query\": \"b\"}\n\
         {\"query\": \"a\"} {\"query\": \"b\"}\n",
    );
    let (code, stdout, stderr) = run(search(dir.path()).arg("--queries").arg(&file));
    assert_eq!(code, 2);
    assert!(stdout.is_empty(), "{stdout}");
    let label = file.display().to_string();
    let lines: Vec<&str> = stderr.lines().collect();
    assert_eq!(lines.len(), 6, "{stderr}");
    assert_eq!(
        lines[0],
        format!("error: {label}:2:28: EOF while parsing an object")
    );
    assert!(
        lines[1].starts_with(&format!(
            "error: {label}:3#: expected an object {{\"id\": ..., \"query\": \"...\"}}, found [\"weather\"]"
        )),
        "{}",
        lines[1]
    );
    assert_eq!(
        lines[2],
        format!("error: {label}:4#/query: expected a string, found 5")
    );
    assert_eq!(
        lines[3],
        format!(
            "error: {label}:5#: no \"query\": each line is {{\"id\": ..., \"query\": \"...\"}}"
        )
    );
    assert!(
        lines[4].starts_with(&format!("error: {label}:6:")) && lines[4].contains("duplicate key"),
        "{}",
        lines[4]
    );
    assert!(
        lines[5].starts_with(&format!(
            "error: {label}:7:16: trailing characters: a line holds one JSON object"
        )),
        "{}",
        lines[5]
    );

    let empty = queries(&dir, "\n  \n");
    let (code, _, stderr) = run(search(dir.path()).arg("--queries").arg(&empty));
    assert_eq!(code, 2);
    assert!(
        stderr.contains(&format!("{}: no queries", empty.display())),
        "{stderr}"
    );

    let (code, _, stderr) = run(search(dir.path()).args(["--queries", "/nonexistent/q.jsonl"]));
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: /nonexistent/q.jsonl: cannot read:"),
        "{stderr}"
    );
}

/// `count` distinct words of letters (`qaaa`, `qaab`, ...): distinct terms for any tokenizer.
fn distinct_words(count: usize) -> String {
    (0..count)
        .map(|mut i| {
            let mut word = String::from("q");
            for _ in 0..4 {
                word.push(char::from(b'a' + u8::try_from(i % 26).unwrap()));
                i /= 26;
            }
            word + " "
        })
        .collect()
}

#[test]
fn an_oversized_query_is_refused_at_once() {
    let dir = catalog();
    let file = queries(
        &dir,
        &format!(
            "{}\n{}\n",
            json!({"id": "long", "query": "weather ".repeat(12_500)}), // 100,000 bytes
            json!({"id": "many", "query": distinct_words(10_000)})
        ),
    );
    let started = Instant::now();
    let (code, stdout, stderr) = run(search(dir.path()).arg("--queries").arg(&file));
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(code, 2);
    assert!(stdout.is_empty(), "{stdout}");
    let label = file.display();
    assert_eq!(
        stderr,
        format!(
            "error: {label}:1: the search query has 100000 bytes, more than the 16384 a query may have\n\
             error: {label}:2: the search query has 60000 bytes, more than the 16384 a query may have\n"
        )
    );

    // Many distinct terms within the byte limit.
    let (code, stdout, stderr) = run(search(dir.path()).args(["--query", &distinct_words(2_000)]));
    assert_eq!(code, 2);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.starts_with("error: --query: the search query has ")
            && stderr.contains(" distinct terms, more than the 512 a query may have"),
        "{stderr}"
    );
}

#[test]
fn catalog_errors_name_the_file_and_the_position() {
    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.json");
    fs::write(
        &broken,
        r#"{"tools": [{"name": "ok", "inputSchema": {"type": "object"}}, {"name": "bad", "inputSchema": 5}]}"#,
    )
    .unwrap();
    let (code, stdout, stderr) = run(search(&broken).args(["--query", "ok"]));
    assert_eq!(code, 2);
    assert!(stdout.is_empty(), "{stdout}");
    assert!(
        stderr.starts_with(&format!(
            "{}#/tools/1/inputSchema: error[tool-shape]: \"bad\": not an MCP tool:",
            broken.display()
        )),
        "{stderr}"
    );

    // BFCL's JSON Lines is not a tool document: reported where the second value starts.
    let lines = dir.path().join("bfcl.json");
    fs::write(
        &lines,
        "{\"name\": \"a\", \"inputSchema\": {\"type\": \"object\"}}\n{\"name\": \"b\", \"inputSchema\": {\"type\": \"object\"}}\n",
    )
    .unwrap();
    let (code, _, stderr) = run(search(&lines).args(["--query", "a"]));
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with(&format!(
            "error: {}:2:1: trailing characters",
            lines.display()
        )),
        "{stderr}"
    );

    let (code, _, stderr) =
        run(search(Path::new("/nonexistent/tools.json")).args(["--query", "a"]));
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: /nonexistent/tools.json: cannot read:"),
        "{stderr}"
    );
}

#[test]
fn a_name_defined_twice_is_a_warning_and_the_later_definition_is_searched() {
    let dir = tempfile::tempdir().unwrap();
    let tool = |description: &str| json!({"name": "lookup", "description": description, "inputSchema": {"type": "object"}});
    fs::write(
        dir.path().join("a.json"),
        json!([tool("Find a word in the dictionary")]).to_string(),
    )
    .unwrap();
    fs::write(
        dir.path().join("b.json"),
        json!([tool("Resolve a host name with DNS")]).to_string(),
    )
    .unwrap();
    let (code, stdout, stderr) = run(search(dir.path()).args(["--query", "dictionary word"]));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(stdout, "(no tool matches)\n");
    let a = dir.path().join("a.json");
    let b = dir.path().join("b.json");
    assert_eq!(
        stderr,
        format!(
            "warning: 1 tool names are defined more than once; the last definition of each is searched: \"lookup\" ({}#/0, {}#/0)\n",
            a.display(),
            b.display()
        )
    );
    let (code, stdout, _) = run(search(dir.path()).args(["--query", "DNS host name"]));
    assert_eq!(code, 0);
    assert!(stdout.starts_with("1. lookup "), "{stdout}");
}

#[test]
fn the_catalog_and_the_queries_can_come_from_standard_input_but_not_both() {
    let dir = catalog();
    let tools = fs::read_to_string(dir.path().join("weather.json")).unwrap();
    let (code, stdout, stderr) = run(cargo_bin_cmd!("toolmodel")
        .args(["search", "-", "--query", "weather"])
        .write_stdin(tools));
    assert_eq!(code, 0, "{stderr}");
    assert!(stdout.starts_with("1. get_weather "), "{stdout}");

    let (code, stdout, stderr) = run(search(dir.path())
        .args(["--queries", "-", "--format", "json"])
        .write_stdin("{\"id\": \"s\", \"query\": \"weather\"}\n"));
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(json_lines(&stdout)[0]["id"], "s");

    refused(
        cargo_bin_cmd!("toolmodel").args(["search", "-", "--queries", "-"]),
        "standard input can be read only once",
    );
}

#[test]
fn usage_needs_one_query_option_and_a_catalog_or_a_config() {
    let dir = catalog();
    for args in [
        vec!["search", "--query", "x"],
        vec!["search", "CATALOG", "--query", "x", "--queries", "q.jsonl"],
        vec!["search", "CATALOG"],
        vec!["search", "CATALOG", "--config", "c.json", "--query", "x"],
    ] {
        let args: Vec<String> = args
            .iter()
            .map(|arg| {
                if *arg == "CATALOG" {
                    dir.path().display().to_string()
                } else {
                    (*arg).to_owned()
                }
            })
            .collect();
        let (code, stdout, stderr) = run(cargo_bin_cmd!("toolmodel").args(&args));
        assert_eq!(code, 2, "{args:?}: {stderr}");
        assert!(stdout.is_empty());
        assert!(stderr.starts_with("error: "), "{args:?}: {stderr}");
    }
}

#[test]
fn the_corpus_formats_are_searched_together() {
    let Some(corpus) = toolmodel_tests::shared_dir("corpus") else {
        return;
    };
    // `.snap` files of a folder, a golden tools/list array, tools/list captures.
    let (code, stdout, stderr) = run(cargo_bin_cmd!("toolmodel")
        .arg("search")
        .arg(corpus.join("github-mcp-server"))
        .arg(corpus.join("kubernetes-mcp-server/toolsets-full-tools.json"))
        .arg(corpus.join("mcp-proxy-snapshots/server-filesystem.json"))
        .args(["--limit", "3", "--format", "json", "--queries", "-"])
        .write_stdin(
            "{\"id\": \"branch\", \"query\": \"create a new branch in a repository\"}\n\
             {\"id\": \"pods\", \"query\": \"list the pods of a namespace\"}\n",
        ));
    assert_eq!(code, 0, "{stderr}");
    let lines = json_lines(&stdout);
    assert_eq!(lines[0]["tools"][0], "create_branch", "{stdout}");
    assert_eq!(lines[1]["tools"][0], "pods_list_in_namespace", "{stdout}");
}

#[test]
fn config_searches_the_live_tools_of_the_servers_and_names_an_unavailable_one() {
    let Some(up) = upstreams() else { return };
    let file = tempfile::NamedTempFile::new().unwrap();
    let config = json!({"mcpServers": {
        "time": {"command": up["TIME"]},
        "gone": {"command": "/nonexistent/server"}
    }});
    fs::write(file.path(), config.to_string()).unwrap();
    let (code, stdout, stderr) = run(cargo_bin_cmd!("toolmodel")
        .args(["search", "--config"])
        .arg(file.path())
        .args([
            "--query",
            "convert a time between timezones",
            "--format",
            "json",
        ]));
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("gone: unavailable: cannot start \"/nonexistent/server\""),
        "{stderr}"
    );
    assert!(stderr.contains("time: 2 tools"), "{stderr}");
    let lines = json_lines(&stdout);
    assert_eq!(lines.len(), 1, "{stdout}");
    assert_eq!(lines[0]["tools"][0], "convert_time", "{stdout}");

    let (code, _, stderr) = run(cargo_bin_cmd!("toolmodel").args([
        "search",
        "--config",
        "/nonexistent/config.json",
        "--query",
        "time",
    ]));
    assert_eq!(code, 2);
    assert!(
        stderr.starts_with("error: /nonexistent/config.json: "),
        "{stderr}"
    );
}

/// A queries file whose bytes are mutated below.
const QUERIES: &str =
    "{\"id\": \"a\", \"query\": \"weather in Paris\"}\n{\"id\": 2, \"query\": \"open an issue\"}\n";

/// The line an error names, within the text's lines.
fn assert_line_inside(bytes: &[u8], err: &QueriesError) {
    let lines = bytes.split(|&b| b == b'\n').count();
    let line = match err {
        QueriesError::Syntax { line, .. } | QueriesError::Shape { line, .. } => *line,
        QueriesError::NoQueries { .. } => return,
        other => panic!("parse_queries gave {other:?}"),
    };
    assert!((1..=lines).contains(&line), "line {line} of {lines}: {err}");
    assert!(
        err.to_string().starts_with(&format!("q.jsonl:{line}")),
        "{err}"
    );
}

proptest! {
    #[test]
    fn any_bytes_are_read_as_queries_or_rejected_at_a_line_without_panic(
        bytes in proptest::collection::vec(any::<u8>(), 0..300)
    ) {
        match parse_queries("q.jsonl", &bytes) {
            Ok(queries) => prop_assert!(!queries.is_empty()),
            Err(errors) => {
                prop_assert!(!errors.is_empty());
                for err in &errors {
                    assert_line_inside(&bytes, err);
                }
            }
        }
    }

    #[test]
    fn mutated_query_files_never_panic(index in 0..QUERIES.len(), byte in any::<u8>()) {
        let mut bytes = QUERIES.as_bytes().to_vec();
        bytes[index] = byte;
        match parse_queries("q.jsonl", &bytes) {
            Ok(queries) => prop_assert!(queries.iter().all(|q| q.origin.starts_with("q.jsonl:"))),
            Err(errors) => {
                for err in &errors {
                    assert_line_inside(&bytes, err);
                }
            }
        }
    }
}
