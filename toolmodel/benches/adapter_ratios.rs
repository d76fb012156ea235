//! The cost of converting a tool, against the floor of any conversion: a deep clone of the
//! schemas it converts. Over every valid MCP tool of the corpus (`../shared/corpus`, read as
//! `corpus::mcp_tools` does), for each profile, side by side in one process (see
//! `timing/mod.rs` for the rounds).
//!
//! For each profile the bench takes the tools that profile converts (a strict conversion
//! refuses some schemas; those are counted and left out, so that a quick refusal does not
//! flatter the figure), and times:
//!
//! - `clone`: a deep clone of each tool's `inputSchema` (and, for Gemini, which converts it
//!   too, its `outputSchema`): the copy every conversion starts from;
//! - `convert`: `adapters::convert(&tool, target, &options)` of each tool, warnings and all.
//!
//! Per profile it prints the tools converted and refused, the best time per tool of each way,
//! and `convert/clone`: the median of the rounds' ratios, its interquartile range and whether
//! the goal is met (`timing/spread.rs`). The last line is `adapters/clone: openai=<x.xx>±<r>
//! openai-strict=... anthropic=... anthropic-strict=... gemini=...` (median ± half the
//! interquartile range). Goals (issue 11): at most 3 for every profile, at most 2 for the plain
//! ones. Run with `cargo bench -p toolmodel --bench adapter_ratios`.
//!
//! `adapter_ratios profile <name> <way> <n>` (the bench binary run directly, `<name>` a profile
//! of the last line, `<way>` `clone` or `convert`) runs `n` passes of one way over that
//! profile's tools and nothing else, for instruction counts under `valgrind --tool=callgrind`:
//! the instructions of one pass are the difference between two runs' totals over the
//! difference of their `n`.

mod corpus;
mod timing;

use std::{hint::black_box, time::Duration};

use timing::spread::Goal;

use toolmodel::{
    Tool,
    adapters::{ConvertOptions, Profile, Target, convert},
};

/// How long one round of one way over a profile's tools should take.
const ROUND: Duration = Duration::from_millis(60);

/// The profiles of the last line, in its order, each with its goal for `convert/clone`.
const PROFILES: [(&str, Profile, Goal); 5] = [
    (
        "openai",
        Profile::plain(Target::OpenAiChat),
        Goal::AtMost(2.0),
    ),
    (
        "openai-strict",
        Profile::strict(Target::OpenAiChat),
        Goal::AtMost(3.0),
    ),
    (
        "anthropic",
        Profile::plain(Target::Anthropic),
        Goal::AtMost(2.0),
    ),
    (
        "anthropic-strict",
        Profile::strict(Target::Anthropic),
        Goal::AtMost(3.0),
    ),
    ("gemini", Profile::plain(Target::Gemini), Goal::AtMost(2.0)),
];

/// The deep copies a conversion to `target` starts from.
fn clone_schemas(tool: &Tool, target: Target) -> usize {
    let input = tool.input_schema.to_value();
    let output = (target == Target::Gemini)
        .then(|| {
            tool.output_schema
                .as_ref()
                .map(toolmodel::ToolSchema::to_value)
        })
        .flatten();
    black_box((input, output))
        .0
        .as_object()
        .map_or(0, |m| m.len())
}

/// `profile <name> <way> <n>` (see the module docs).
fn profile(tools: &[(String, Tool)], args: &[String]) {
    let (_, profile, _) = PROFILES
        .iter()
        .find(|(name, ..)| args.first().is_some_and(|arg| arg == name))
        .expect("a profile of the last line");
    let convert_way = match args.get(1).map(String::as_str) {
        Some("clone") => false,
        Some("convert") => true,
        _ => panic!("a way: clone or convert"),
    };
    let n: usize = args
        .get(2)
        .and_then(|n| n.parse().ok())
        .expect("a number of passes");
    let options = ConvertOptions::default().with_strict(profile.strict);
    let converted: Vec<&Tool> = tools
        .iter()
        .map(|(_, tool)| tool)
        .filter(|tool| convert(tool, profile.target, &options).is_ok())
        .collect();
    for _ in 0..n {
        for tool in &converted {
            if convert_way {
                black_box(convert(black_box(tool), profile.target, &options).ok());
            } else {
                black_box(clone_schemas(black_box(tool), profile.target));
            }
        }
    }
}

fn main() {
    let Some(tools) = corpus::mcp_tools() else {
        println!("notice: nothing to measure without the corpus");
        return;
    };
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(at) = args.iter().position(|arg| arg == "profile") {
        profile(&tools, args.get(at + 1..).unwrap_or_default());
        return;
    }
    println!("{} valid MCP tools in the corpus", tools.len());
    let mut figures = Vec::new();
    // For profiling one profile: `TOOLMODEL_BENCH_ONLY=openai-strict`.
    let only = std::env::var("TOOLMODEL_BENCH_ONLY").ok();
    for (name, profile, goal) in PROFILES {
        if only.as_deref().is_some_and(|only| only != name) {
            continue;
        }
        let options = ConvertOptions::default().with_strict(profile.strict);
        let target = profile.target;
        let converted: Vec<&Tool> = tools
            .iter()
            .map(|(_, tool)| tool)
            .filter(|tool| convert(tool, target, &options).is_ok())
            .collect();
        let refused = tools.len() - converted.len();
        let timing = timing::side_by_side(
            &mut [
                &mut || timing::each(&converted, |tool| clone_schemas(tool, target)),
                &mut || timing::each(&converted, |tool| convert(tool, target, &options)),
            ],
            ROUND,
        );
        let per_tool = |d: Duration| d.as_secs_f64() * 1e6 / converted.len().max(1) as f64;
        let spread = timing.spread(1, 0);
        println!(
            "{name:<17} {:4} converted, {refused:3} refused: clone {:6.2} us/tool, convert {:6.2} us/tool (best), {}",
            converted.len(),
            per_tool(timing.best[0]),
            per_tool(timing.best[1]),
            spread.line("convert/clone", 2, goal)
        );
        figures.push(spread.short(name, 2));
    }
    println!("adapters/clone: {}", figures.join(" "));
}
