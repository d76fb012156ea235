//! toolmodel side by side with what users would pick instead (issue 30), one line each:
//!
//! - `peers: agents-sdk strict=<x.x>±<r>`: OpenAI strict conversion of every corpus tool both
//!   convert, toolmodel's `adapters::convert` against the OpenAI Agents SDK's
//!   `ensure_strict_json_schema` (a Python child, `strict.py`), per tool (`strict.rs`);
//! - `peers: rig tier_a=<x.xx>±<r> tier_b=<y.yy>±<r> ...`: the same three tools in rig and in
//!   toolmodel, from an argument string to the text the model sees (tier A) and from a
//!   response body to the bytes of the tool-result messages (tier B), with 3, 30 and 300
//!   tools registered (`calls.rs`);
//! - `peers: fastmcp gateway calls_per_s=<a.a>±<r> p50=<b.bb>±<r>`: one tool of
//!   `examples/server` called through toolmodel's gateway and through FastMCP's proxy by the
//!   same rmcp client, ratios toolmodel/FastMCP (`gateway.rs`).
//!
//! Each figure is the median of many short interleaved rounds' ratios with half their
//! interquartile range after `±`; a line before it says whether the whole range is inside the
//! goal (`toolmodel/benches/timing/`, shared with toolmodel's benches). `run.sh` builds this
//! and sets up the Python side; `cargo run --release -- strict`, `-- rig` or `-- fastmcp` runs
//! one part, and `-- profile <work> <n>` one side for instruction counts (`profile.rs`).

#[path = "../../../toolmodel/benches/corpus/mod.rs"]
mod corpus;
#[path = "../../../toolmodel/benches/timing/mod.rs"]
mod timing;

mod calls;
mod gateway;
mod profile;
mod rig_side;
mod strict;
mod toolmodel_side;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let [profile, work, n] = args.as_slice()
        && profile == "profile"
    {
        let n = n.parse().expect("a count");
        assert!(profile::run(work, n), "no such work: {work}");
        return;
    }
    let part = args.first().cloned().unwrap_or_default();
    if part.is_empty() || part == "strict" {
        strict::run();
    }
    if part.is_empty() || part == "rig" {
        calls::run();
    }
    if part.is_empty() || part == "fastmcp" {
        gateway::run();
    }
}
