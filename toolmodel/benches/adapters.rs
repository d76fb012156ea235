//! Converting the MCP corpus (`../shared/corpus`) with `toolmodel::adapters`: per-tool throughput
//! for every target, plain and strict, and reading back.
//!
//! `cargo bench -p toolmodel --bench adapters`. One iteration converts every valid MCP tool of
//! the corpus, so the time per iteration is the time for the whole corpus, and the throughput
//! is in tools per second. Without the shared data the bench prints a notice and measures
//! nothing.

use std::{
    fs,
    hint::black_box,
    path::{Path, PathBuf},
};

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use serde_json::Value;
use toolmodel::{
    Tool,
    adapters::{ConvertOptions, Profile, ReadOptions, Target, convert, read},
    catalog::tool_values,
};

fn corpus_dir() -> Option<PathBuf> {
    let shared = std::env::var_os("TOOLMODEL_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
        PathBuf::from,
    );
    let corpus = shared.join("corpus");
    corpus.exists().then_some(corpus)
}

fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            files(&path, out);
        } else {
            out.push(path);
        }
    }
}

/// The valid MCP tools of the corpus (BFCL and the PostHog schema dump are not MCP tools).
fn corpus_tools(corpus: &Path) -> Vec<Tool> {
    let mut paths = Vec::new();
    files(corpus, &mut paths);
    paths.sort();
    let mut tools = Vec::new();
    for path in paths {
        let relative = path
            .strip_prefix(corpus)
            .unwrap_or(&path)
            .to_string_lossy()
            .into_owned();
        if relative.starts_with("bfcl") || relative.starts_with("posthog-mcp") {
            continue;
        }
        let Some(document) = fs::read_to_string(&path)
            .ok()
            .and_then(|text| serde_json::from_str::<Value>(&text).ok())
        else {
            continue;
        };
        for (_, value) in tool_values(&document).unwrap_or_default() {
            if let Ok(tool) = Tool::from_mcp_json(value)
                && tool.validate().is_ok()
            {
                tools.push(tool);
            }
        }
    }
    tools
}

fn bench(c: &mut Criterion) {
    let Some(corpus) = corpus_dir() else {
        println!("notice: ../shared/corpus is missing; nothing to measure");
        return;
    };
    let tools = corpus_tools(&corpus);
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
