//! The cost of tool search ([`ToolIndex`]) on a large catalog, beside FastMCP's
//! `BM25SearchTransform` index measured in the same run:
//!
//! - the catalog: every distinct function of the BFCL v4 categories `search/bfcl.py` pools
//!   (simple_python, simple_java, simple_javascript, multiple, live_simple, live_multiple of
//!   `$TOOLMODEL_SHARED/corpus/bfcl`, else `../shared/corpus/bfcl`; the first definition of
//!   each name, BFCL's `"type": "dict"` written `"object"`), 1,246 tools, repeated under
//!   distinct names (`NAME_2`, `NAME_3`, ...) up to 10,000;
//! - `index_ms`: [`ToolIndex::from_tools`] of the 10,000 tools, the median of
//!   [`INDEX_RUNS`] builds;
//! - `query_p50_us`: the median time of one [`ToolIndex::search`] (limit 10) over every BFCL
//!   question's user turn (2,061 queries), each timed alone, [`QUERY_ROUNDS`] rounds;
//! - `fastmcp_query_p50_us`: the same catalog and queries given to `search/bfcl.py time` in
//!   the virtual environment `search/run.sh` creates (`target/search/venv`): the median time
//!   of FastMCP's BM25 ranking (`_BM25Index.query`, the transform's whole `_search` is
//!   printed beside it). Without that environment it prints `fastmcp_query_p50_us=skipped`
//!   after a notice (run `bash search/run.sh` once to create it);
//! - the same catalog repeated to 100,000 tools: the index's build time and the growth of the
//!   process's resident memory (`VmRSS`) while it is built, the tools already in memory.
//!
//! When the shared data is missing the bench prints a notice and stops (under `CI` it fails).
//! The last line printed is exactly
//! `search: tools=10000 index_ms=<t> query_p50_us=<t> fastmcp_query_p50_us=<t>`.
//! Run with `cargo bench -p toolmodel --bench search`.

use std::{
    hint::black_box,
    path::{Path, PathBuf},
    process::Command,
    time::{Duration, Instant},
};

use serde_json::{Map, Value, json};
use toolmodel::{Tool, search::ToolIndex};

/// The BFCL categories pooled, as `search/bfcl.py` pools them.
const CATEGORIES: [&str; 6] = [
    "simple_python",
    "simple_java",
    "simple_javascript",
    "multiple",
    "live_simple",
    "live_multiple",
];
/// The catalog size of the headline figures.
const TOOLS: usize = 10_000;
/// The catalog size of the memory figure.
const LARGE: usize = 100_000;
/// Builds of the 10,000-tool index timed.
const INDEX_RUNS: usize = 5;
/// Times every query is searched and timed.
const QUERY_ROUNDS: usize = 3;
/// Tools returned per search, as `search/run.sh` asks.
const LIMIT: usize = 10;

fn main() {
    let Some(bfcl) = bfcl_dir() else { return };
    let (functions, queries) = pool(&bfcl);
    println!(
        "bfcl: {} distinct functions, {} queries",
        functions.len(),
        queries.len()
    );

    let large = repeated(&functions, LARGE);
    let before = rss_kib();
    let started = Instant::now();
    let index = ToolIndex::from_tools(&large);
    let large_ms = started.elapsed().as_secs_f64() * 1e3;
    let grown = rss_kib().zip(before).map(|(after, before)| after - before);
    black_box(index.len());
    drop(index);
    let catalog_bytes: usize = large
        .iter()
        .map(|tool| tool.to_mcp_json().to_string().len())
        .sum();
    drop(large);
    println!(
        "search: tools={LARGE} index_ms={large_ms:.0} index_rss_mib={} catalog_json_mib={:.0}",
        grown.map_or_else(
            || "unknown".to_owned(),
            |kib| format!("{:.0}", kib as f64 / 1024.0)
        ),
        catalog_bytes as f64 / (1024.0 * 1024.0)
    );

    let tools = repeated(&functions, TOOLS);
    let mut builds: Vec<Duration> = (0..INDEX_RUNS)
        .map(|_| {
            let started = Instant::now();
            let index = ToolIndex::from_tools(&tools);
            let took = started.elapsed();
            black_box(index.len());
            took
        })
        .collect();
    let index_ms = median(&mut builds).as_secs_f64() * 1e3;

    let index = ToolIndex::from_tools(&tools);
    let mut timings = Vec::with_capacity(queries.len() * QUERY_ROUNDS);
    let mut found = 0usize;
    for _ in 0..QUERY_ROUNDS {
        for query in &queries {
            let started = Instant::now();
            let hits = index.search(query, LIMIT);
            timings.push(started.elapsed());
            if hits.is_ok_and(|hits| !hits.is_empty()) {
                found += 1;
            }
        }
    }
    assert!(
        found * 10 > timings.len() * 9,
        "fewer than 90% of the queries found anything: the bench would time empty searches"
    );
    let query_us = median(&mut timings).as_secs_f64() * 1e6;

    let fastmcp = fastmcp_p50_us(&tools, &queries);
    if let Some(theirs) = fastmcp
        .as_deref()
        .and_then(|line| figure(line, "fastmcp_query_p50_us"))
    {
        println!("fastmcp/toolmodel per query: {:.0}x", theirs / query_us);
    }
    println!(
        "search: tools={TOOLS} index_ms={index_ms:.0} query_p50_us={query_us:.0} fastmcp_query_p50_us={}",
        fastmcp
            .as_deref()
            .and_then(|line| figure(line, "fastmcp_query_p50_us"))
            .map_or_else(|| "skipped".to_owned(), |us| format!("{us:.0}"))
    );
}

/// `$TOOLMODEL_SHARED/corpus/bfcl`, else `../shared/corpus/bfcl` beside the workspace; `None`
/// after a notice when it is missing (a panic under `CI`).
fn bfcl_dir() -> Option<PathBuf> {
    let shared = std::env::var_os("TOOLMODEL_SHARED").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
        PathBuf::from,
    );
    let bfcl = shared.join("corpus/bfcl");
    if bfcl.is_dir() {
        return Some(bfcl);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "{} is missing and CI is set",
        bfcl.display()
    );
    println!(
        "notice: {} is missing; the search bench needs it (set TOOLMODEL_SHARED)",
        bfcl.display()
    );
    None
}

/// The pooled functions as MCP tool JSON (first definition of each name, categories in
/// order), and every question's user turn.
fn pool(bfcl: &Path) -> (Vec<Value>, Vec<String>) {
    let mut functions: Vec<Value> = Vec::new();
    let mut names = std::collections::HashSet::new();
    let mut queries = Vec::new();
    for category in CATEGORIES {
        let path = bfcl.join(format!("BFCL_v4_{category}.json"));
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|err| panic!("{}: {err}", path.display()));
        for (number, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let row: Value = serde_json::from_str(line)
                .unwrap_or_else(|err| panic!("{}:{}: {err}", path.display(), number + 1));
            let user: Vec<&str> = row["question"][0]
                .as_array()
                .into_iter()
                .flatten()
                .filter(|message| message["role"] == "user")
                .filter_map(|message| message["content"].as_str())
                .collect();
            queries.push(user.join("\n"));
            for function in row["function"].as_array().into_iter().flatten() {
                let Some(name) = function["name"].as_str() else {
                    continue;
                };
                if names.insert(name.to_owned()) {
                    functions.push(mcp_tool(function));
                }
            }
        }
    }
    (functions, queries)
}

/// A BFCL function definition as MCP tool JSON.
fn mcp_tool(function: &Value) -> Value {
    let mut tool = Map::new();
    tool.insert("name".into(), function["name"].clone());
    if let Some(description) = function.get("description").filter(|d| d.is_string()) {
        tool.insert("description".into(), description.clone());
    }
    let parameters = function
        .get("parameters")
        .filter(|p| p.is_object())
        .cloned()
        .unwrap_or_else(|| json!({"type": "object"}));
    tool.insert("inputSchema".into(), objects_for_mcp(parameters));
    Value::Object(tool)
}

/// A BFCL schema with every `"type": "dict"` written `"object"`.
fn objects_for_mcp(schema: Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| {
                    let value = if key == "type" && value == "dict" {
                        Value::from("object")
                    } else {
                        objects_for_mcp(value)
                    };
                    (key, value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(objects_for_mcp).collect()),
        other => other,
    }
}

/// `count` tools: the functions in order, then again as `NAME_2`, `NAME_3`, ... until there
/// are `count`.
fn repeated(functions: &[Value], count: usize) -> Vec<Tool> {
    (0..count)
        .map(|i| {
            let mut json = functions[i % functions.len()].clone();
            let copy = i / functions.len();
            if copy > 0 {
                let name = format!("{}_{}", json["name"].as_str().unwrap_or_default(), copy + 1);
                json["name"] = Value::from(name);
            }
            Tool::from_mcp_json(&json).unwrap_or_else(|err| panic!("{}: {err}", json["name"]))
        })
        .collect()
}

/// The median of `times`.
fn median(times: &mut [Duration]) -> Duration {
    times.sort_unstable();
    times[times.len() / 2]
}

/// The process's resident memory in KiB (`VmRSS` of `/proc/self/status`; `None` elsewhere).
fn rss_kib() -> Option<i64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| line.starts_with("VmRSS:"))?;
    line.split_whitespace().nth(1)?.parse().ok()
}

/// `search/bfcl.py time` on the same catalog and queries, in the virtual environment of
/// `search/run.sh`: its output line, or `None` after a notice when the environment is missing
/// or the script fails.
fn fastmcp_p50_us(tools: &[Tool], queries: &[String]) -> Option<String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let python = root.join("target/search/venv/bin/python");
    if !python.exists() {
        println!(
            "notice: {} is missing (bash search/run.sh creates it): FastMCP not measured",
            python.display()
        );
        return None;
    }
    let dir = std::env::temp_dir().join(format!("toolmodel-search-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).ok()?;
    let catalog = dir.join("catalog.json");
    let listed: Vec<Value> = tools.iter().map(Tool::to_mcp_json).collect();
    std::fs::write(&catalog, json!({ "tools": listed }).to_string()).ok()?;
    let lines: String = queries
        .iter()
        .enumerate()
        .map(|(id, query)| format!("{}\n", json!({"id": id, "query": query})))
        .collect();
    let queries_file = dir.join("queries.jsonl");
    std::fs::write(&queries_file, lines).ok()?;
    let output = Command::new(&python)
        .arg(root.join("search/bfcl.py"))
        .arg("time")
        .arg("--catalog")
        .arg(&catalog)
        .arg("--queries")
        .arg(&queries_file)
        .output();
    let _ = std::fs::remove_dir_all(&dir);
    match output {
        Ok(output) if output.status.success() => {
            let line = String::from_utf8_lossy(&output.stdout).trim().to_owned();
            println!("fastmcp: {line}");
            Some(line)
        }
        Ok(output) => {
            println!(
                "notice: search/bfcl.py time failed: FastMCP not measured: {}",
                String::from_utf8_lossy(&output.stderr).trim()
            );
            None
        }
        Err(err) => {
            println!(
                "notice: cannot run {}: {err}: FastMCP not measured",
                python.display()
            );
            None
        }
    }
}

/// The number after `key=` in `line`.
fn figure(line: &str, key: &str) -> Option<f64> {
    line.split_whitespace()
        .find_map(|pair| pair.strip_prefix(key)?.strip_prefix('='))?
        .parse()
        .ok()
}
