//! Converting the MCP corpus (`../shared/corpus`) with `toolmodel::adapters`: per-tool throughput
//! for every target, plain and strict, and reading back.
//!
//! `cargo bench -p toolmodel --bench adapters`. One iteration converts every valid MCP tool of
//! the corpus, so the time per iteration is the time for the whole corpus, and the throughput
//! is in tools per second. Without the shared data the bench prints a notice and measures
//! nothing.

mod corpus;

use std::hint::black_box;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;
use toolmodel::adapters::{ConvertOptions, Profile, ReadOptions, Target, convert, read};

fn bench(c: &mut Criterion) {
    let Some(tools) = corpus::mcp_tools() else {
        println!("notice: nothing to measure without the corpus");
        return;
    };
    let tools: Vec<_> = tools.into_iter().map(|(_, tool)| tool).collect();
    let count = u64::try_from(tools.len()).unwrap_or(u64::MAX);
    println!("{count} valid MCP tools in the corpus");

    let mut group = c.benchmark_group("convert_corpus");
    group.throughput(Throughput::Elements(count));
    let mut columns: Vec<(String, Target, ConvertOptions)> = Profile::ALL
        .iter()
        .map(|p| {
            (
                p.to_string(),
                p.target,
                ConvertOptions::default().with_strict(p.strict),
            )
        })
        .collect();
    columns.push((
        "gemini-json-schema".into(),
        Target::Gemini,
        ConvertOptions::default().with_gemini_json_schema(true),
    ));
    for (name, target, options) in &columns {
        group.bench_function(name.as_str(), |b| {
            b.iter(|| {
                let mut converted = 0usize;
                for tool in &tools {
                    if convert(black_box(tool), *target, options).is_ok() {
                        converted += 1;
                    }
                }
                converted
            });
        });
    }
    group.finish();

    let outputs: Vec<Value> = tools
        .iter()
        .filter_map(|t| {
            convert(
                t,
                Target::OpenAiChat,
                &ConvertOptions::default().with_strict(true),
            )
            .ok()
        })
        .map(|c| c.value)
        .collect();
    let mut group = c.benchmark_group("read_corpus");
    group.throughput(Throughput::Elements(
        u64::try_from(outputs.len()).unwrap_or(u64::MAX),
    ));
    group.bench_function("openai-strict", |b| {
        b.iter(|| {
            outputs
                .iter()
                .filter(|v| read(Target::OpenAiChat, black_box(v), &ReadOptions::default()).is_ok())
                .count()
        });
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
