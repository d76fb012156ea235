//! Criterion benchmarks of argument validation over real corpus schemas (see `corpus/mod.rs`):
//! the raw precompiled `jsonschema` baseline, `toolmodel`'s cached
//! `DefaultValidator::validate_arguments`, and compiling per call, for valid and for invalid
//! arguments; and the cost of cloning and reading a corpus tool.
//!
//! Run with `cargo bench -p toolmodel --bench validation`. `ratios` prints the same comparison
//! as ratios in one process.

mod corpus;

use std::{hint::black_box, time::Duration};

use corpus::{Case, raw_validate};
use criterion::{BenchmarkId, Criterion, SamplingMode, criterion_group, criterion_main};
use serde_json::Value;
use toolmodel::{DefaultValidator, SchemaValidator};

/// The valid or the invalid arguments of a case.
type Pick = fn(&Case) -> &Value;

/// Validating every case's valid (then invalid) arguments, one pass over the set per iteration.
fn validation(c: &mut Criterion) {
    let validator = DefaultValidator::new();
    let cases = corpus::cases(&validator);
    let picks: [(&str, Pick); 2] = [
        ("valid", |case| &case.valid),
        ("invalid", |case| &case.invalid),
    ];
    for (name, pick) in picks {
        let mut group = c.benchmark_group(format!("arguments_{name}"));
        group.bench_function(BenchmarkId::new("raw", cases.len()), |b| {
            b.iter(|| {
                for case in &cases {
                    black_box(raw_validate(&case.raw, black_box(pick(case)))).ok();
                }
            });
        });
        group.bench_function(BenchmarkId::new("cached", cases.len()), |b| {
            b.iter(|| {
                for case in &cases {
                    black_box(validator.validate_arguments(&case.tool, black_box(pick(case)))).ok();
                }
            });
        });
        // Compiling per call takes milliseconds per pass: fewer, equal samples.
        group.sampling_mode(SamplingMode::Flat).sample_size(10);
        group.bench_function(BenchmarkId::new("per_call", cases.len()), |b| {
            b.iter(|| {
                for case in &cases {
                    let schema = case.tool.input_schema.as_value();
                    black_box(validator.validate(schema, black_box(pick(case)))).ok();
                }
            });
        });
        group.finish();
    }
}

/// Cloning a corpus tool (the schemas are shared, the rest is copied) and reading its display
/// name, for the smallest, the median and the largest tool of the set by JSON size.
fn tool_access(c: &mut Criterion) {
    let validator = DefaultValidator::new();
    let mut cases = corpus::cases(&validator);
    cases.sort_by_key(|case| case.tool.to_mcp_json().to_string().len());
    let chosen = [
        ("smallest", cases.first()),
        ("median", cases.get(cases.len() / 2)),
        ("largest", cases.last()),
    ];
    let mut group = c.benchmark_group("tool");
    for (size, case) in chosen {
        let Some(case) = case else { continue };
        let id = format!("{size}/{}", case.label);
        group.bench_function(BenchmarkId::new("clone", &id), |b| {
            b.iter(|| black_box(&case.tool).clone());
        });
        group.bench_function(BenchmarkId::new("display_name", &id), |b| {
            b.iter(|| black_box(&case.tool).display_name().len());
        });
    }
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(30);
    targets = validation, tool_access
}
criterion_main!(benches);
