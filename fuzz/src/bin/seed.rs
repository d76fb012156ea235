//! Builds the seed corpora of the fuzz targets from the tool corpus in `../shared/corpus` (or
//! `$TOOLMODEL_SHARED/corpus`), into `fuzz/corpus/<target>/` (git-ignored). Nothing is copied
//! into the repository.
//!
//! Run: `cargo run --release --manifest-path fuzz/Cargo.toml --bin seed` (stable Rust).
//!
//! Per target:
//! - `tool_json`: every MCP tool of the corpus, alone, as compact JSON;
//! - `adapter_<target>`: the same tools (the conversion path), each tool converted to the
//!   target (the reading path), and BFCL's function definitions (OpenAI's plain form);
//! - `schema_validate`: every `inputSchema`, followed by `{}` as the instance;
//! - `tool_id`: `<source>:<name>` for every tool;
//! - `tags`: the words of each tool's name and title, one per line;
//! - `cli_input`: every corpus file up to 256 KiB, whole (tool lists, captures, snapshots);
//! - `uri_template`: a template of each expression kind with a URI it matches, NUL between.

use std::{
    collections::hash_map::DefaultHasher,
    fs,
    hash::{Hash, Hasher},
    path::{Path, PathBuf},
};

use serde_json::Value;
use toolmodel::{
    Tool,
    adapters::{ConvertOptions, Target, convert},
    wire::catalog::tool_values,
};

fn files(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                pending.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out.sort();
    out
}

/// The JSON documents of a file: the whole file, or one per line (JSON Lines).
fn documents(bytes: &[u8]) -> Vec<Value> {
    if let Ok(value) = serde_json::from_slice(bytes) {
        return vec![value];
    }
    bytes
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice(line).ok())
        .collect()
}

struct Seeds {
    root: PathBuf,
    written: usize,
}

impl Seeds {
    fn add(&mut self, target: &str, bytes: &[u8]) {
        let dir = self.root.join(target);
        let mut hasher = DefaultHasher::new();
        bytes.hash(&mut hasher);
        let path = dir.join(format!("{:016x}", hasher.finish()));
        if !path.exists() {
            fs::create_dir_all(&dir).expect("create the corpus folder");
            fs::write(&path, bytes).expect("write a seed");
            self.written += 1;
        }
    }
}

/// Corpus files up to this size (bytes) seed `cli_input` whole.
const MAX_FILE_SEED: usize = 256 * 1024;

const ADAPTERS: [(&str, Target); 5] = [
    ("adapter_mcp", Target::Mcp),
    ("adapter_openai_chat", Target::OpenAiChat),
    ("adapter_openai_responses", Target::OpenAiResponses),
    ("adapter_anthropic", Target::Anthropic),
    ("adapter_gemini", Target::Gemini),
];

/// Resource templates of each RFC 6570 expression kind, with a URI each matches.
const URI_TEMPLATES: [(&str, &str); 5] = [
    ("weather://{city}-{date}", "weather://paris-2026"),
    ("file:///{+path}", "file:///a/b/c.txt"),
    ("demo://resource/dynamic/text{/index}", "demo://resource/dynamic/text/7"),
    ("search://items{?q,limit}", "search://items?q=x&limit=2"),
    ("doc://{#section}{.ext}{;p}{&q}", "doc://#a.md;p=1&q=2"),
];

fn main() {
    let here = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let shared = std::env::var_os("TOOLMODEL_SHARED")
        .map_or_else(|| here.join("../../shared"), PathBuf::from);
    let corpus = shared.join("corpus");
    assert!(
        corpus.is_dir(),
        "no tool corpus at {} (set TOOLMODEL_SHARED)",
        corpus.display()
    );
    let mut seeds = Seeds {
        root: here.join("corpus"),
        written: 0,
    };
    let mut tools = 0usize;
    for path in files(&corpus) {
        let source = path
            .strip_prefix(&corpus)
            .ok()
            .and_then(|p| p.components().next())
            .map(|c| c.as_os_str().to_string_lossy().replace(|c: char| !c.is_ascii_alphanumeric(), "-"))
            .unwrap_or_default();
        let Ok(bytes) = fs::read(&path) else {
            continue;
        };
        if bytes.len() <= MAX_FILE_SEED {
            seeds.add("cli_input", &bytes);
        }
        for document in documents(&bytes) {
            // BFCL: `{"function": [{name, description, parameters}]}` per line.
            if let Some(Value::Array(functions)) = document.get("function") {
                for function in functions {
                    let text = function.to_string();
                    for (target, _) in &ADAPTERS[1..3] {
                        seeds.add(target, text.as_bytes());
                    }
                }
                continue;
            }
            let Ok(found) = tool_values(&document) else {
                continue;
            };
            for (_, value) in found {
                tools += 1;
                let text = value.to_string();
                seeds.add("tool_json", text.as_bytes());
                for (target, _) in ADAPTERS {
                    seeds.add(target, text.as_bytes());
                }
                if let Some(schema) = value.get("inputSchema") {
                    seeds.add("schema_validate", format!("{schema}\n{{}}").as_bytes());
                }
                let Ok(tool) = Tool::from_mcp_json(value) else {
                    continue;
                };
                seeds.add("tool_id", format!("{source}:{}", tool.name).as_bytes());
                let words: Vec<&str> = tool
                    .name
                    .split(['_', '-', '.'])
                    .chain(tool.title.iter().flat_map(|t| t.split(' ')))
                    .collect();
                seeds.add("tags", words.join("\n").as_bytes());
                for (target, to) in ADAPTERS {
                    if let Ok(conversion) = convert(&tool, to, &ConvertOptions::default()) {
                        seeds.add(target, conversion.value.to_string().as_bytes());
                    }
                }
            }
        }
    }
    for (template, uri) in URI_TEMPLATES {
        seeds.add("uri_template", format!("{template}\0{uri}").as_bytes());
    }
    println!(
        "{tools} tools read from {}; {} seeds written to {}",
        corpus.display(),
        seeds.written,
        seeds.root.display()
    );
}
