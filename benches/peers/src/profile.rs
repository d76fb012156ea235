//! One side of one comparison `n` times, for instruction counts under
//! `valgrind --tool=callgrind` (load-independent, unlike the timed rounds):
//! `toolmodel-peers profile <work> <n>`, where `<work>` is `tier-a-rig`, `tier-a-toolmodel`,
//! `tier-b-rig`, `tier-b-toolmodel`, `strict-toolmodel` (the corpus tools, once each),
//! `clone` (a deep clone of each corpus tool's `inputSchema`), or `valid-raw` / `valid-cached`
//! (the valid arguments of `toolmodel`'s `ratios` bench cases, once each: raw `jsonschema`
//! `is_valid` / `DefaultValidator::validate_arguments`). The instructions of one pass are
//! the difference between the totals of two runs with different `n`, over the difference of
//! `n` (setup cancels out).

use std::hint::black_box;

use futures_executor::block_on;
use toolmodel::{
    CallContext, DefaultValidator, SchemaValidator,
    adapters::{ConvertOptions, Target, convert},
    model_calls::{ModelTools, Provider, ToolListOptions},
};

use crate::{calls, corpus, rig_side, toolmodel_side};

/// Runs `work` `n` times (see the module docs); `false` when `work` is not one of them.
pub fn run(work: &str, n: usize) -> bool {
    let toolset = rig_side::toolset(0);
    let toolbox = toolmodel_side::toolbox(0);
    let cx = CallContext::new();
    let options = ToolListOptions::default();
    let openai = ModelTools::new(&toolbox, Provider::OpenAiChat, &options).expect("tools");
    let anthropic = ModelTools::new(&toolbox, Provider::Anthropic, &options).expect("tools");
    let tools = match work {
        "strict-toolmodel" | "clone" => corpus::mcp_tools().unwrap_or_default(),
        _ => Vec::new(),
    };
    let validator = DefaultValidator::new();
    let cases = match work {
        "valid-raw" | "valid-cached" => corpus::cases(&validator),
        _ => Vec::new(),
    };
    let strict = ConvertOptions::default().with_strict(true);
    let mut out = Vec::new();
    for _ in 0..n {
        match work {
            "tier-a-rig" => {
                black_box(block_on(calls::rig_tier_a(&toolset)));
            }
            "tier-a-toolmodel" => {
                black_box(block_on(calls::toolmodel_tier_a(&toolbox, &cx)));
            }
            "tier-b-rig" => block_on(async {
                out.clear();
                calls::rig_openai(&toolset, black_box(calls::OPENAI_BODY), &mut out).await;
                out.clear();
                calls::rig_anthropic(&toolset, black_box(calls::ANTHROPIC_BODY), &mut out).await;
            }),
            "tier-b-toolmodel" => block_on(async {
                out.clear();
                calls::toolmodel_tier_b(&toolbox, &openai, calls::OPENAI_BODY, &cx, &mut out).await;
                out.clear();
                calls::toolmodel_tier_b(&toolbox, &anthropic, calls::ANTHROPIC_BODY, &cx, &mut out)
                    .await;
            }),
            "strict-toolmodel" => {
                for (_, tool) in &tools {
                    black_box(convert(black_box(tool), Target::OpenAiChat, &strict).ok());
                }
            }
            "clone" => {
                for (_, tool) in &tools {
                    black_box(black_box(tool).input_schema.to_value());
                }
            }
            "valid-raw" => {
                for case in &cases {
                    black_box(case.raw.is_valid(black_box(&case.valid)));
                }
            }
            "valid-cached" => {
                for case in &cases {
                    let valid =
                        validator.validate_arguments(black_box(&case.tool), black_box(&case.valid));
                    black_box(valid.is_ok());
                }
            }
            _ => return false,
        }
    }
    true
}
