//! The cost of the call layer, side by side in one process:
//!
//! - `call`: `Toolbox::call` on the quickstart's three tools (a typed structured output, a
//!   text reply from an arguments struct, a tool with no arguments) against the same work
//!   written by hand for each tool: `T::parse`, the handler, `T::structured_content`, and the
//!   `CallToolResult` (structured value plus its JSON text). Both paths start from an owned copy
//!   of the request's arguments (a server owns them), and both are `async` (a server awaits
//!   either in its request handler), each call run to completion by
//!   `futures::executor::block_on`; by hand, the synchronous handlers are called directly.
//!   Goal: at most 1.15x.
//! - `list`: `Toolbox::list` of 1,000 tools (every valid tool of `../shared/corpus`, then
//!   renamed copies up to 1,000; synthetic tools when the corpus is missing), serialized to
//!   JSON text page by page with a page size of 1,000, against serializing a prebuilt `Value`
//!   of the same `{"tools": [...]}`. Goal: at most 1.5x.
//!
//! Each measurement runs both ways in many short interleaved rounds; the ratio printed is the
//! median of the rounds' ratios. The last line printed is exactly
//! `toolbox: call/hand=<x.xx> list/prebuilt=<y.yy>`.
//! Run with `cargo bench -p toolmodel --bench toolbox`.

mod corpus;
#[allow(dead_code)]
#[path = "../../examples/quickstart.rs"]
mod quickstart;
mod requests;

use std::{
    hint::black_box,
    time::{Duration, Instant},
};

use quickstart::{GetWeather, Ping, SearchDocs, Unit};
use requests::requests;
use serde_json::{Map, Value, json};
use toolmodel::{
    CallContext, CallToolResult, SyncToolHandler, Tool, ToolDefinition, ToolHandler, Toolbox,
};

/// Rounds per measurement (odd, for a plain median).
const ROUNDS: usize = 31;
/// How long one round of one way should take.
const ROUND: Duration = Duration::from_millis(20);

/// The hand-written server: find the tool by name, parse, run, shape the result. An `async fn`
/// like `Toolbox::call`, since a server awaits either inside its request handler.
async fn by_hand(
    search: &SearchDocs,
    weather: &GetWeather,
    name: &str,
    arguments: Map<String, Value>,
    cx: &CallContext,
) -> CallToolResult {
    let arguments = Value::Object(arguments);
    let result = match name {
        "weather.get_weather" => {
            let args = GetWeather::parse(&arguments).map(|args| weather.call_sync(args, cx));
            match args {
                Ok(Ok(text)) => CallToolResult::text(text),
                _ => CallToolResult::error("failed"),
            }
        }
        "docs.search_docs" => {
            let outcome = SearchDocs::parse(&arguments)
                .ok()
                .map(|args| search.call(args, cx));
            let output = match outcome {
                Some(future) => future.await.ok(),
                None => None,
            };
            output
                .and_then(|output| SearchDocs::structured_content(&output).ok())
                .map(CallToolResult::structured)
                .unwrap_or_else(|| CallToolResult::error("failed"))
        }
        "ping" => match Ping::parse(&arguments).map(|args| Ping.call_sync(args, cx)) {
            Ok(Ok(text)) => CallToolResult::text(text),
            _ => CallToolResult::error("failed"),
        },
        _ => CallToolResult::error("unknown"),
    };
    black_box(result)
}

/// Runs `work` `iterations` times and returns how long that took.
fn timed(iterations: u64, mut work: impl FnMut()) -> Duration {
    let start = Instant::now();
    for _ in 0..iterations {
        work();
    }
    start.elapsed().max(Duration::from_nanos(1))
}

/// Both ways, interleaved: returns (best time per iteration of each way, median ratio b/a).
fn compare(mut a: impl FnMut(), mut b: impl FnMut()) -> (Duration, Duration, f64) {
    let once = timed(10, &mut a) / 10;
    let iterations = (ROUND.as_nanos() / once.as_nanos().max(1)).clamp(1, 1_000_000) as u64;
    let (mut best_a, mut best_b) = (Duration::MAX, Duration::MAX);
    let mut ratios = Vec::with_capacity(ROUNDS);
    for round in 0..ROUNDS {
        // Alternate which way goes first, so that neither always runs on a warmer cache.
        let (time_a, time_b) = if round % 2 == 0 {
            let time_a = timed(iterations, &mut a);
            (time_a, timed(iterations, &mut b))
        } else {
            let time_b = timed(iterations, &mut b);
            (timed(iterations, &mut a), time_b)
        };
        best_a = best_a.min(time_a / iterations as u32);
        best_b = best_b.min(time_b / iterations as u32);
        ratios.push(time_b.as_secs_f64() / time_a.as_secs_f64());
    }
    ratios.sort_by(f64::total_cmp);
    (best_a, best_b, ratios[ROUNDS / 2])
}

/// Every valid corpus tool whose schemas compile ([`corpus::mcp_tools`]); none, after a
/// notice, when the corpus is missing (a failure under `CI`).
fn corpus_tools() -> Vec<Tool> {
    let Some(tools) = corpus::mcp_tools() else {
        assert!(
            std::env::var_os("CI").is_none(),
            "the corpus is missing and CI is set"
        );
        return Vec::new();
    };
    tools
        .into_iter()
        .map(|(_, tool)| tool)
        .filter(compiles)
        .collect()
}

/// Whether the tool's schemas compile (a hand-built tool in a toolbox must).
fn compiles(tool: &Tool) -> bool {
    let validator = toolmodel::DefaultValidator::new();
    validator.compile(tool.input_schema.as_value()).is_ok()
        && tool
            .output_schema
            .as_ref()
            .is_none_or(|schema| validator.compile(schema.as_value()).is_ok())
}

/// 1,000 tools with distinct names: the corpus's, then renamed copies.
fn thousand_tools() -> Vec<Tool> {
    let mut base = corpus_tools();
    if base.is_empty() {
        base.push(GetWeather::tool().clone());
        base.push(SearchDocs::tool().clone());
    }
    (0..1000)
        .filter_map(|index| {
            let mut tool = base.get(index % base.len())?.clone();
            tool.name = format!(
                "t{index:04}_{}",
                tool.name.chars().take(100).collect::<String>()
            );
            tool.namespace = None;
            Some(tool)
        })
        .collect()
}

fn main() {
    // call
    let toolbox = quickstart::toolbox().expect("the quickstart toolbox builds");
    let (search, weather) = (SearchDocs::new(), GetWeather::default());
    let requests = requests();
    let cx = CallContext::new();
    for (name, arguments) in &requests {
        let served = futures_executor::block_on(toolbox.call(name, Some(arguments.clone()), &cx))
            .expect("a result");
        let hand =
            futures_executor::block_on(by_hand(&search, &weather, name, arguments.clone(), &cx));
        assert_eq!(served, hand, "{name}: both ways give the same result");
        assert!(!served.is_error(), "{name}");
    }
    let _ = Unit::Celsius;
    let (hand, served, call_ratio) = compare(
        || {
            for (name, arguments) in &requests {
                black_box(futures_executor::block_on(by_hand(
                    &search,
                    &weather,
                    name,
                    arguments.clone(),
                    &cx,
                )));
            }
        },
        || {
            for (name, arguments) in &requests {
                let result =
                    futures_executor::block_on(toolbox.call(name, Some(arguments.clone()), &cx));
                black_box(result.ok());
            }
        },
    );
    println!(
        "call (3 quickstart tools): by hand {:.2} us, Toolbox::call {:.2} us, ratio {call_ratio:.2}",
        hand.as_secs_f64() * 1e6,
        served.as_secs_f64() * 1e6
    );

    // list
    let tools = thousand_tools();
    assert_eq!(tools.len(), 1000);
    let mut builder = Toolbox::builder().with_page_size(1000);
    for tool in &tools {
        builder = builder.with_tool(tool.clone(), |_, _| async {
            Ok(CallToolResult::text(String::new()))
        });
    }
    let big = builder.build().expect("1,000 distinct tools build");
    let mut sorted: Vec<&Tool> = tools.iter().collect();
    sorted.sort_by(|a, b| a.name.cmp(&b.name));
    // What `list` writes: each tool for the newest protocol version, with its cache hints.
    let latest = toolmodel::ProtocolVersion::LATEST;
    let prebuilt = json!({
        "resultType": "complete",
        "tools": sorted
            .iter()
            .map(|tool| tool.to_mcp_json_for(latest).expect("writable").json)
            .collect::<Vec<_>>(),
        "ttlMs": 0,
        "cacheScope": "private",
    });
    let listed = serde_json::to_string(&big.list(None).expect("one page")).expect("JSON");
    assert_eq!(
        serde_json::from_str::<serde_json::Value>(&listed).expect("JSON"),
        prebuilt,
        "the same JSON"
    );
    let bytes = listed.len();
    let (floor, list, list_ratio) = compare(
        || {
            black_box(serde_json::to_string(&prebuilt).ok());
        },
        || {
            let page = big.list(None).ok();
            black_box(page.and_then(|page| serde_json::to_string(&page).ok()));
        },
    );
    println!(
        "list (1,000 tools, {bytes} bytes): prebuilt Value {:.2} ms, Toolbox::list {:.2} ms, ratio {list_ratio:.2}",
        floor.as_secs_f64() * 1e3,
        list.as_secs_f64() * 1e3
    );
    println!("toolbox: call/hand={call_ratio:.2} list/prebuilt={list_ratio:.2}");
}
