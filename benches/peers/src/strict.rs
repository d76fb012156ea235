//! OpenAI strict conversion of the corpus, toolmodel against the OpenAI Agents SDK.
//!
//! The tools: every valid MCP tool of the corpus (`corpus::mcp_tools`) that both sides
//! convert. toolmodel: `adapters::convert(&tool, Target::OpenAiChat, strict)`, the whole
//! provider tool (name, description, the strict `parameters`, `strict: true`) built from the
//! MCP tool, which it leaves as it was. The Agents SDK, in a Python child (`strict.py`,
//! `PEERS_PYTHON` names the interpreter, default `python3`): what its MCP path does to a
//! tool's `inputSchema` (`ensure_strict_json_schema(_copy_json_schema(schema))`, the copy
//! keeping the tool's schema as it was), and, the second figure, `ensure_strict_json_schema`
//! alone on copies made before the clock starts.
//!
//! The two sides alternate in rounds of about [`ROUND`] each (which goes first alternates
//! too); each side's time in a round is its fastest pass over the tools, and each round's ratio
//! is the SDK's time over toolmodel's. Goal: at least 10.

use std::{
    io::{BufRead, BufReader, Write},
    process::{Command, Stdio},
    time::{Duration, Instant},
};

use serde_json::Value;
use toolmodel::{
    Tool,
    adapters::{ConvertOptions, Target, convert},
};

use crate::{
    corpus,
    timing::{
        self,
        spread::{Goal, Spread},
    },
};

/// How long one side's round should take.
const ROUND: Duration = Duration::from_millis(40);

/// The Python child: `strict.py` over a file of schemas.
struct Sdk {
    child: std::process::Child,
    stdin: std::process::ChildStdin,
    stdout: BufReader<std::process::ChildStdout>,
}

impl Sdk {
    /// Starts `strict.py` on `schemas`; returns it with the SDK's version and the indices of
    /// the schemas it converts.
    fn start(schemas: &[&Value]) -> (Self, String, Vec<usize>) {
        let path =
            std::env::temp_dir().join(format!("toolmodel-peers-{}.json", std::process::id()));
        std::fs::write(&path, serde_json::to_vec(schemas).expect("JSON")).expect("written");
        let python = std::env::var("PEERS_PYTHON").unwrap_or_else(|_| "python3".to_owned());
        let mut child = Command::new(python)
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/strict.py"))
            .arg(&path)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("python starts");
        let stdin = child.stdin.take().expect("stdin");
        let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
        let mut first = String::new();
        stdout.read_line(&mut first).expect("the accepted indices");
        let _ = std::fs::remove_file(&path);
        let first: Value = serde_json::from_str(&first).expect("strict.py's first line");
        let version = first["version"].as_str().unwrap_or("?").to_owned();
        let accepted = first["accepted"]
            .as_array()
            .expect("indices")
            .iter()
            .filter_map(Value::as_u64)
            .filter_map(|i| usize::try_from(i).ok())
            .collect();
        (
            Self {
                child,
                stdin,
                stdout,
            },
            version,
            accepted,
        )
    }

    /// The SDK's times for one pass, the fastest of `passes`: with the copy, and the
    /// conversion alone.
    fn round(&mut self, passes: u32) -> [Duration; 2] {
        writeln!(self.stdin, "{passes}").expect("sent");
        self.stdin.flush().expect("sent");
        let mut line = String::new();
        self.stdout.read_line(&mut line).expect("a time");
        let mut times = line
            .split_whitespace()
            .map(|n| Duration::from_nanos(n.parse().expect("nanoseconds")));
        [(); 2].map(|()| times.next().expect("two times"))
    }
}

impl Drop for Sdk {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// toolmodel's time for one pass: the fastest of `passes` (as the SDK's side keeps its
/// fastest).
fn toolmodel_round(tools: &[&Tool], options: &ConvertOptions, passes: u32) -> Duration {
    (0..passes)
        .map(|_| {
            let start = Instant::now();
            timing::each(tools, |tool| convert(tool, Target::OpenAiChat, options));
            start.elapsed()
        })
        .min()
        .unwrap_or_default()
}

/// How many passes of `once` fill a round.
fn passes(once: Duration) -> u32 {
    u32::try_from(ROUND.as_nanos() / once.as_nanos().max(1))
        .unwrap_or(u32::MAX)
        .max(1)
}

/// Prints the per-tool times and `peers: agents-sdk strict=...`.
pub fn run() {
    let Some(tools) = corpus::mcp_tools() else {
        println!("notice: no corpus, no agents-sdk line");
        return;
    };
    let options = ConvertOptions::default().with_strict(true);
    let converted: Vec<&Tool> = tools
        .iter()
        .map(|(_, tool)| tool)
        .filter(|tool| convert(tool, Target::OpenAiChat, &options).is_ok())
        .collect();
    let schemas: Vec<&Value> = converted
        .iter()
        .map(|tool| tool.input_schema.as_value())
        .collect();
    let (mut sdk, version, accepted) = Sdk::start(&schemas);
    let both: Vec<&Tool> = accepted
        .iter()
        .filter_map(|&i| converted.get(i).copied())
        .collect();
    println!(
        "{} valid MCP tools; toolmodel converts {} strict, openai-agents {version} {} of those",
        tools.len(),
        converted.len(),
        both.len()
    );

    let rounds = if timing::quick() { 7 } else { 31 };
    let rust_passes = passes(toolmodel_round(&both, &options, 1));
    let sdk_passes = passes(sdk.round(1)[0]).max(timing::CHUNKS);
    // Per round: toolmodel's time, the SDK's with its copy and without.
    let mut times: Vec<[f64; 3]> = Vec::new();
    for round in 0..rounds {
        let (rust, [with_copy, alone]) = if round % 2 == 0 {
            let rust = toolmodel_round(&both, &options, rust_passes);
            (rust, sdk.round(sdk_passes))
        } else {
            let sdk_times = sdk.round(sdk_passes);
            (toolmodel_round(&both, &options, rust_passes), sdk_times)
        };
        times.push([rust, with_copy, alone].map(|d| d.as_secs_f64()));
    }
    let column = |i: usize| -> Vec<f64> { times.iter().map(|t| t[i]).collect() };
    let per_tool = |i: usize| Spread::of(&column(i)).median * 1e6 / both.len().max(1) as f64;
    let ratio =
        |i: usize| -> Spread { Spread::of(&times.iter().map(|t| t[i] / t[0]).collect::<Vec<_>>()) };
    let (headline, alone) = (ratio(1), ratio(2));
    println!(
        "strict, per tool (medians): toolmodel {:.2} us; SDK's MCP path (copy + ensure_strict_json_schema) {:.2} us, ensure_strict_json_schema alone {:.2} us",
        per_tool(0),
        per_tool(1),
        per_tool(2)
    );
    println!(
        "  {}",
        headline.line("sdk/toolmodel", 1, Goal::AtLeast(10.0))
    );
    println!(
        "  {}",
        alone.line("ensure_strict_alone/toolmodel", 1, Goal::AtLeast(10.0))
    );
    println!(
        "peers: agents-sdk {} {}",
        headline.short("strict", 1),
        alone.short("ensure_strict_alone", 1)
    );
}
