//! Model tool calls, toolmodel against rig 0.40, at two tiers, with 3, 30 and 300 tools
//! registered:
//!
//! - tier A: `(name, argument string)` to the text the model sees, for each of `add`, `echo`
//!   and `lookup`. rig: `ToolSet::call(name, String)` (the string owned, as its API takes it).
//!   toolmodel: the string parsed into an object, `Toolbox::call` (the arguments validated
//!   against the `inputSchema`, then deserialized), the result's text.
//! - tier B: a recorded OpenAI Chat and Anthropic response body (`responses/`, the three
//!   calls) to the bytes of the tool-result messages. rig: the body read into its provider
//!   types (`providers::openai::completion::CompletionResponse`,
//!   `providers::anthropic::completion::CompletionResponse`), each call's arguments written
//!   back to a string for `ToolSet::call` (as rig's agent loop does), the results as its
//!   `Message::ToolResult`s / `Content::ToolResult` blocks, written with `serde_json`.
//!   toolmodel: `read_calls_from_slice` (the calls read from the body's text, no `Value` of
//!   the body), `run_calls`, `answer`, written with `serde_json`.
//!
//! Both sides run each pass in one `futures_executor::block_on`. The ratio is toolmodel's time
//! over rig's per round (`timing`); goal at most 1.0 at both tiers.

use std::{hint::black_box, time::Duration};

use futures_executor::block_on;
use rig_core::{
    OneOrMany,
    providers::{anthropic::completion as anthropic, openai::completion as openai},
    tool::ToolSet,
};
use serde_json::{Map, Value};
use toolmodel::{
    CallContext, Toolbox,
    model_calls::{
        ModelTools, Provider, ToolListOptions, answer, read_calls_from_slice, run_calls,
    },
};

use crate::timing::{self, spread::Goal};
use crate::{rig_side, toolmodel_side};

/// How long one round of one side should take.
const ROUND: Duration = Duration::from_millis(30);

/// The three calls of tier A: a tool name and the argument string a model wrote.
const CALLS: [(&str, &str); 3] = [
    ("add", r#"{"a":40,"b":2}"#),
    (
        "echo",
        r#"{"text":"The quick brown fox jumps over the lazy dog."}"#,
    ),
    ("lookup", r#"{"key":"paris"}"#),
];

/// What the model sees of each of [`CALLS`].
const TEXTS: [&str; 3] = [
    "42",
    "The quick brown fox jumps over the lazy dog.",
    "Paris: 2,102,650 inhabitants (2023)",
];

pub(crate) const OPENAI_BODY: &[u8] = include_bytes!("../responses/openai-chat.json");
pub(crate) const ANTHROPIC_BODY: &[u8] = include_bytes!("../responses/anthropic.json");

/// The tool counts measured: the three tools and this many others.
const FILLERS: [usize; 3] = [0, 27, 297];

/// Tier A on rig: each call's text.
pub(crate) async fn rig_tier_a(toolset: &ToolSet) -> [String; 3] {
    let mut texts: [String; 3] = Default::default();
    for ((name, arguments), text) in CALLS.iter().zip(&mut texts) {
        *text = toolset
            .call(name, (*arguments).to_owned())
            .await
            .unwrap_or_else(|err| err.to_string());
    }
    texts
}

/// Tier A on toolmodel: each call's text.
pub(crate) async fn toolmodel_tier_a(toolbox: &Toolbox, cx: &CallContext) -> [String; 3] {
    let mut texts: [String; 3] = Default::default();
    for ((name, arguments), text) in CALLS.iter().zip(&mut texts) {
        let arguments: Option<Map<String, Value>> = serde_json::from_str(arguments).ok();
        *text = match toolbox.call(name, arguments, cx).await {
            Ok(result) => result.text_content(),
            Err(err) => err.to_string(),
        };
    }
    texts
}

/// Tier B on rig, OpenAI Chat: the `role: "tool"` messages written into `out`.
pub(crate) async fn rig_openai(toolset: &ToolSet, body: &[u8], out: &mut Vec<u8>) {
    let response: openai::CompletionResponse =
        serde_json::from_slice(body).expect("rig reads the OpenAI body");
    let mut messages = Vec::new();
    for choice in &response.choices {
        if let openai::Message::Assistant { tool_calls, .. } = &choice.message {
            for call in tool_calls {
                let text = toolset
                    .call(&call.function.name, call.function.arguments.to_string())
                    .await
                    .unwrap_or_else(|err| err.to_string());
                messages.push(openai::Message::ToolResult {
                    tool_call_id: call.id.clone(),
                    content: openai::ToolResultContentValue::String(text),
                });
            }
        }
    }
    serde_json::to_writer(out, &messages).expect("written");
}

/// Tier B on rig, Anthropic: the `user` message of `tool_result` blocks written into `out`.
pub(crate) async fn rig_anthropic(toolset: &ToolSet, body: &[u8], out: &mut Vec<u8>) {
    let response: anthropic::CompletionResponse =
        serde_json::from_slice(body).expect("rig reads the Anthropic body");
    let mut results = Vec::new();
    for content in &response.content {
        if let anthropic::Content::ToolUse { id, name, input } = content {
            let (text, is_error) = match toolset.call(name, input.to_string()).await {
                Ok(text) => (text, None),
                Err(err) => (err.to_string(), Some(true)),
            };
            results.push(anthropic::Content::ToolResult {
                tool_use_id: id.clone(),
                content: OneOrMany::one(anthropic::ToolResultContent::Text { text }),
                is_error,
                cache_control: None,
            });
        }
    }
    let message = anthropic::Message {
        role: anthropic::Role::User,
        content: OneOrMany::many(results).expect("tool results"),
    };
    serde_json::to_writer(out, &message).expect("written");
}

/// Tier B on toolmodel, either provider: the answer written into `out`.
pub(crate) async fn toolmodel_tier_b(
    toolbox: &Toolbox,
    tools: &ModelTools,
    body: &[u8],
    cx: &CallContext,
    out: &mut Vec<u8>,
) {
    let provider = tools.provider();
    let calls = read_calls_from_slice(provider, body).expect("the calls");
    let outcomes = run_calls(toolbox, tools, calls, cx).await;
    serde_json::to_writer(out, &answer(provider, &outcomes)).expect("written");
}

/// Asserts that tier B's bytes hold each call's text, on both sides.
fn check_tier_b(side: &str, provider: &str, bytes: &[u8]) {
    let text = String::from_utf8_lossy(bytes);
    for expected in TEXTS {
        assert!(
            text.contains(expected),
            "{side} {provider}: {expected:?} missing from {text}"
        );
    }
}

/// One tool count: tier A's and tier B's spreads (toolmodel over rig).
fn measure(fillers: usize) -> [timing::spread::Spread; 2] {
    let toolset = rig_side::toolset(fillers);
    let toolbox = toolmodel_side::toolbox(fillers);
    let cx = CallContext::new();
    let options = ToolListOptions::default();
    let openai_tools =
        ModelTools::new(&toolbox, Provider::OpenAiChat, &options).expect("OpenAI tools");
    let anthropic_tools =
        ModelTools::new(&toolbox, Provider::Anthropic, &options).expect("Anthropic tools");

    assert_eq!(block_on(rig_tier_a(&toolset)), TEXTS, "rig, tier A");
    assert_eq!(
        block_on(toolmodel_tier_a(&toolbox, &cx)),
        TEXTS,
        "toolmodel, tier A"
    );
    let tier_a = timing::side_by_side(
        &mut [
            &mut || {
                black_box(block_on(rig_tier_a(&toolset)));
            },
            &mut || {
                black_box(block_on(toolmodel_tier_a(&toolbox, &cx)));
            },
        ],
        ROUND,
    );

    let (mut rig_out, mut toolmodel_out) = (Vec::new(), Vec::new());
    let rig_b = |out: &mut Vec<u8>, anthropic_out: &mut Vec<u8>| {
        block_on(async {
            out.clear();
            rig_openai(&toolset, black_box(OPENAI_BODY), out).await;
            anthropic_out.clear();
            rig_anthropic(&toolset, black_box(ANTHROPIC_BODY), anthropic_out).await;
        });
    };
    let toolmodel_b = |out: &mut Vec<u8>, anthropic_out: &mut Vec<u8>| {
        block_on(async {
            out.clear();
            toolmodel_tier_b(&toolbox, &openai_tools, black_box(OPENAI_BODY), &cx, out).await;
            anthropic_out.clear();
            toolmodel_tier_b(
                &toolbox,
                &anthropic_tools,
                black_box(ANTHROPIC_BODY),
                &cx,
                anthropic_out,
            )
            .await;
        });
    };
    let (mut rig_anthropic_out, mut toolmodel_anthropic_out) = (Vec::new(), Vec::new());
    rig_b(&mut rig_out, &mut rig_anthropic_out);
    toolmodel_b(&mut toolmodel_out, &mut toolmodel_anthropic_out);
    check_tier_b("rig", "OpenAI Chat", &rig_out);
    check_tier_b("rig", "Anthropic", &rig_anthropic_out);
    check_tier_b("toolmodel", "OpenAI Chat", &toolmodel_out);
    check_tier_b("toolmodel", "Anthropic", &toolmodel_anthropic_out);
    if fillers == 0 {
        for (side, openai, anthropic) in [
            ("rig", &rig_out, &rig_anthropic_out),
            ("toolmodel", &toolmodel_out, &toolmodel_anthropic_out),
        ] {
            println!(
                "{side} OpenAI Chat answer: {}",
                String::from_utf8_lossy(openai)
            );
            println!(
                "{side} Anthropic answer: {}",
                String::from_utf8_lossy(anthropic)
            );
        }
    }
    let tier_b = timing::side_by_side(
        &mut [
            &mut || rig_b(&mut rig_out, &mut rig_anthropic_out),
            &mut || toolmodel_b(&mut toolmodel_out, &mut toolmodel_anthropic_out),
        ],
        ROUND,
    );

    let tools = fillers + 3;
    let goal = Goal::AtMost(1.0);
    let micros = |d: Duration| d.as_secs_f64() * 1e6 / 3.0;
    let spreads = [tier_a.spread(1, 0), tier_b.spread(1, 0)];
    for (tier, timing, spread) in [
        ("tier A", &tier_a, spreads[0]),
        ("tier B", &tier_b, spreads[1]),
    ] {
        println!(
            "{tools:3} tools, {tier}: rig {:.3} us/call, toolmodel {:.3} us/call (best); {}",
            micros(timing.best[0]),
            micros(timing.best[1]),
            spread.line("toolmodel/rig", 2, goal)
        );
    }
    spreads
}

/// Prints the tool-count lines and `peers: rig tier_a=... tier_b=...`.
pub fn run() {
    println!("rig-core 0.40.0 (ToolSet::call(name, String)) against toolmodel (this checkout)");
    let mut fields = Vec::new();
    for fillers in FILLERS {
        let [a, b] = measure(fillers);
        let suffix = if fillers == 0 {
            String::new()
        } else {
            format!("@{}", fillers + 3)
        };
        fields.push(a.short(&format!("tier_a{suffix}"), 2));
        fields.push(b.short(&format!("tier_b{suffix}"), 2));
    }
    println!("peers: rig {}", fields.join(" "));
}
