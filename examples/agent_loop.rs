//! A tool loop with four model APIs: Anthropic Messages, OpenAI Chat Completions, OpenAI
//! Responses and Gemini, on recorded model responses (`examples/fixtures/model_calls/`, each
//! naming the documentation it was written from), with the quickstart's tools.
//!
//! ```text
//! cargo run --example agent_loop                 # prints each step
//! cargo run --example agent_loop -- --dump DIR   # also writes every request body it would
//!                                                # send as DIR/<provider>/<n>.json
//! ```
//!
//! The loop is the same for every provider; only the HTTP call is missing (each "sent"
//! request gets the next recorded response).

#[allow(dead_code)]
#[path = "quickstart.rs"]
mod quickstart;

use std::path::{Path, PathBuf};

use serde_json::Value;
use toolmodel::CallContext;
use toolmodel::model_calls::{
    ModelTools, Provider, ToolListOptions, extend_request, read_calls, run_calls,
};

/// The recorded conversation of each provider: `{"source", "request", "responses"}`.
const FIXTURES: [(Provider, &str); 4] = [
    (
        Provider::Anthropic,
        include_str!("fixtures/model_calls/anthropic.json"),
    ),
    (
        Provider::OpenAiChat,
        include_str!("fixtures/model_calls/openai-chat.json"),
    ),
    (
        Provider::OpenAiResponses,
        include_str!("fixtures/model_calls/openai-responses.json"),
    ),
    (
        Provider::Gemini,
        include_str!("fixtures/model_calls/gemini.json"),
    ),
];

type Failure = Box<dyn std::error::Error>;

fn main() -> Result<(), Failure> {
    let args: Vec<String> = std::env::args().collect();
    let dump = match args.iter().position(|arg| arg == "--dump") {
        Some(i) => Some(PathBuf::from(
            args.get(i + 1).ok_or("--dump needs a directory")?,
        )),
        None => None,
    };
    let toolbox = quickstart::toolbox()?;
    for (provider, fixture) in FIXTURES {
        let fixture: Value = serde_json::from_str(fixture)?;
        let mut recorded = fixture["responses"]
            .as_array()
            .ok_or("no responses")?
            .iter();
        println!(
            "== {provider} ({})",
            fixture["source"].as_str().unwrap_or_default()
        );

        // The user code of the loop, the same for every provider.
        let tools = ModelTools::new(&toolbox, provider, &ToolListOptions::default())?;
        let mut body = fixture["request"].clone();
        body["tools"] = tools.to_value();
        let cx = CallContext::new();
        for n in 0.. {
            save(dump.as_deref(), provider, n, &body)?;
            let response = recorded.next().ok_or("the model did not finish")?; // send(&body)
            let calls = read_calls(provider, response)?;
            if calls.is_empty() {
                println!("final answer: {response}");
                break;
            }
            let outcomes = pollster::block_on(run_calls(&toolbox, &tools, calls, &cx));
            for outcome in &outcomes {
                println!("{} -> {}", outcome.name, outcome.result.text_content());
            }
            extend_request(provider, &mut body, response, &outcomes)?;
        }
    }
    Ok(())
}

/// Writes `body` as `DIR/<provider>/<n>.json` when `--dump DIR` was given.
fn save(dir: Option<&Path>, provider: Provider, n: usize, body: &Value) -> Result<(), Failure> {
    if let Some(dir) = dir {
        let dir = dir.join(provider.as_str());
        std::fs::create_dir_all(&dir)?;
        std::fs::write(
            dir.join(format!("{n}.json")),
            serde_json::to_vec_pretty(body)?,
        )?;
    }
    Ok(())
}
