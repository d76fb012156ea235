//! `#[derive(Tool)]` at run time.
//!
//! - `tool_accessor`: the second and later calls of `T::tool()` against returning a reference
//!   to a `static` (the floor for "returning a reference").
//! - `parse`: `T::parse` (cached compiled validator, then deserialization) against the raw
//!   work it wraps: a precompiled `jsonschema::Validator` plus `serde_json::from_value` (which
//!   takes its input by value, so the raw path clones the arguments), and plus deserializing
//!   from the borrowed `&Value` (no clone), for the tightest floor. Target: at most 1.5x the
//!   raw path.
//!
//! Run with `cargo bench -p toolmodel --bench derive`.

use std::{hint::black_box, sync::LazyLock};

use criterion::{Criterion, criterion_group, criterion_main};
use serde::Deserialize;
use serde_json::{Value, json};
use toolmodel::{
    Tool, ToolDefinition,
    schemars::{self, JsonSchema},
};

/// Typical arguments: strings, numbers, an option, an enum, a list.
#[derive(Debug, Deserialize, JsonSchema, Tool)]
#[tool(namespace = "github")]
#[allow(dead_code)]
struct ListIssues {
    /// Repository owner.
    owner: String,
    /// Repository name.
    repo: String,
    /// Issue state.
    state: Option<State>,
    /// Labels to filter by.
    labels: Vec<String>,
    /// Results per page (1 to 100).
    #[schemars(range(min = 1, max = 100))]
    per_page: Option<u8>,
    /// Page number.
    page: u32,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
enum State {
    Open,
    Closed,
    All,
}

static REFERENCE: LazyLock<&'static Tool> = LazyLock::new(ListIssues::tool);

fn arguments() -> Value {
    json!({
        "owner": "modelcontextprotocol",
        "repo": "rust-sdk",
        "state": "open",
        "labels": ["bug", "good first issue"],
        "per_page": 30,
        "page": 2
    })
}

fn tool_accessor(c: &mut Criterion) {
    let _ = ListIssues::tool();
    let floor: &'static Tool = *REFERENCE;
    let mut group = c.benchmark_group("tool_accessor");
    group.bench_function("ToolDefinition::tool (built)", |b| {
        b.iter(|| black_box(ListIssues::tool()));
    });
    group.bench_function("reference to a static (floor)", |b| {
        b.iter(|| black_box(black_box(floor)));
    });
    group.finish();
}

fn parse(c: &mut Criterion) {
    let args = arguments();
    let schema = ListIssues::tool().input_schema.to_value();
    let raw = jsonschema::validator_for(&schema).expect("the derived schema compiles");
    assert!(ListIssues::parse(&args).is_ok());
    assert!(raw.is_valid(&args));

    let mut group = c.benchmark_group("parse");
    group.bench_function("ToolDefinition::parse", |b| {
        b.iter(|| black_box(ListIssues::parse(black_box(&args))));
    });
    group.bench_function("raw: validator + serde_json::from_value(clone)", |b| {
        b.iter(|| {
            let args = black_box(&args);
            let valid = raw.is_valid(args);
            let parsed: Result<ListIssues, _> = serde_json::from_value(args.clone());
            black_box((valid, parsed))
        });
    });
    group.bench_function("raw: validator + Deserialize from &Value", |b| {
        b.iter(|| {
            let args = black_box(&args);
            let valid = raw.is_valid(args);
            let parsed = ListIssues::deserialize(args);
            black_box((valid, parsed))
        });
    });
    group.finish();
}

criterion_group!(benches, tool_accessor, parse);
criterion_main!(benches);
