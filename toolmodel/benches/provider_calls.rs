//! The cost of the provider layer (`toolmodel::model_calls`), side by side in one process:
//! a model response holding three tool calls (the quickstart's tools: a text reply, a typed
//! structured output, a tool without arguments) read with `read_calls`, run with `run_calls`
//! and answered with `answer` written as JSON bytes, against calling the Toolbox directly with
//! the same arguments (`Toolbox::call` per call, awaited in turn, from an owned copy of each
//! call's arguments, as a server owns them: the equivalent of the bridged side's reading, which
//! copies each call's arguments out of the response, or parses OpenAI's argument strings). Each way is one
//! `futures::executor::block_on`. Neither side keeps its results: the bridged side's answer is
//! written into a byte buffer (reused across rounds, as a request body's buffer would be),
//! the bytes the request sends, so their writing is part of its cost; the direct side's
//! `CallToolResult` is its final form.
//!
//! One measurement per provider (Anthropic, OpenAI Chat, whose arguments are JSON strings to
//! parse, OpenAI Responses and Gemini); the ratios are of the best times of interleaved rounds
//! (`timing`). The last line printed is exactly
//! `provider_calls: parse+dispatch+answer/call=<x.xx>`, the largest of the four ratios.
//! Goal: at most 1.3. Run with `cargo bench -p toolmodel --bench provider_calls`
//! (`TOOLMODEL_BENCH_QUICK=1` for a short run).

#[allow(dead_code)]
#[path = "../../examples/quickstart.rs"]
mod quickstart;
mod requests;
mod timing;

use std::{hint::black_box, time::Duration};

use requests::requests;
use serde_json::{Value, json};
use toolmodel::CallContext;
use toolmodel::model_calls::{
    ModelCall, ModelTools, Provider, ToolListOptions, answer, read_calls, run_calls,
};

/// A response of `provider` making the calls, written as the model writes them.
fn response(provider: Provider, tools: &ModelTools) -> Value {
    let calls: Vec<Value> = requests()
        .into_iter()
        .enumerate()
        .map(|(i, (mcp_name, arguments))| {
            let (namespace, name) = tools.provider_name(mcp_name).expect("listed");
            let mut call = ModelCall::new(
                name,
                toolmodel::model_calls::CallArguments::Object(arguments),
            )
            .with_id(format!("call_{i}"));
            if let Some(namespace) = namespace {
                call = call.with_namespace(namespace);
            }
            call.to_json(provider)
        })
        .collect();
    match provider {
        Provider::Anthropic => json!({"role": "assistant", "content": calls}),
        Provider::OpenAiChat => {
            json!({"choices": [{"message": {"role": "assistant", "content": null, "tool_calls": calls}}]})
        }
        Provider::OpenAiResponses => json!({"output": calls}),
        _ => json!({"candidates": [{"content": {"role": "model", "parts": calls}}]}),
    }
}

fn main() {
    let toolbox = quickstart::toolbox().expect("the quickstart toolbox builds");
    let requests = requests();
    let cx = CallContext::new();
    let mut worst: f64 = 0.0;
    for provider in Provider::ALL {
        let tools = ModelTools::new(&toolbox, provider, &ToolListOptions::default())
            .expect("the quickstart tools convert");
        let response = response(provider, &tools);
        // Both ways give the same results.
        let calls = read_calls(provider, &response).expect("calls");
        let outcomes = futures_executor::block_on(run_calls(&toolbox, &tools, calls, &cx));
        for ((name, arguments), outcome) in requests.iter().zip(&outcomes) {
            let direct =
                futures_executor::block_on(toolbox.call(name, Some(arguments.clone()), &cx))
                    .expect("a result");
            assert_eq!(outcome.result, direct, "{provider} {name}");
            assert!(!direct.is_error(), "{name}");
        }
        let values = answer(provider, &outcomes).to_values();
        assert_eq!(
            values.len(),
            match provider {
                Provider::Anthropic | Provider::Gemini => 1,
                _ => 3,
            }
        );
        let bytes = serde_json::to_vec(&answer(provider, &outcomes)).expect("written");
        assert_eq!(
            serde_json::from_slice::<Value>(&bytes).expect("JSON"),
            Value::Array(values)
        );

        // One `block_on` per side: the calls awaited one after the other, as an async caller
        // makes them (a `block_on` per call would charge the direct side three executor
        // entries to the bridged side's one).
        let mut direct = || {
            futures_executor::block_on(async {
                for (name, arguments) in &requests {
                    let result = toolbox.call(name, Some(arguments.clone()), &cx).await;
                    black_box(result.ok());
                }
            });
        };
        let mut buffer = Vec::new();
        let mut bridged = || {
            let calls = read_calls(provider, black_box(&response)).expect("calls");
            let outcomes = futures_executor::block_on(run_calls(&toolbox, &tools, calls, &cx));
            buffer.clear();
            serde_json::to_writer(&mut buffer, &answer(provider, &outcomes)).expect("written");
            black_box(&buffer);
        };
        let timing =
            timing::side_by_side(&mut [&mut direct, &mut bridged], Duration::from_millis(40));
        let ratio = timing.ratio_of(1, 0);
        println!(
            "{provider}: Toolbox::call x3 {:.2} us, read_calls + run_calls + answer {:.2} us, ratio {ratio:.2}",
            timing.best[0].as_secs_f64() * 1e6,
            timing.best[1].as_secs_f64() * 1e6,
        );
        worst = worst.max(ratio);
    }
    println!("provider_calls: parse+dispatch+answer/call={worst:.2}");
}
