//! The cost of validating tool arguments, side by side in one process, over every distinct
//! input schema of the corpus's valid MCP tools that compiles (see `corpus/mod.rs`: each with a
//! valid and an invalid argument object generated from the schema), four ways:
//!
//! - `raw`: a `jsonschema::Validator` compiled once (same dialect, format and regex options),
//!   doing the least that gives the same outcome: `is_valid` on valid arguments; on invalid
//!   ones `iter_errors`, every error collected with its paths, keyword and message
//!   (`corpus::raw_errors`), without an `is_valid` first;
//! - `cached`: `DefaultValidator::validate_arguments(&tool, &args)`, the tool path: a tool's
//!   schema compiled once and found again by its identity;
//! - `raw_value`: `DefaultValidator::validate(&schema, &args)` on the tool's schema `Value`,
//!   found again in the content-keyed cache;
//! - `per_call`: `DefaultValidator::compile(&schema)` then `validate`, compiling every call
//!   (what `validate(&schema, ..)` cost before the content cache).
//!
//! Three sets: the valid arguments of every case, the invalid ones, and both. The rounds are
//! those of `timing/mod.rs`; each ratio is the median of the rounds' ratios with its
//! interquartile range (`timing/spread.rs`), and each goal's line says whether the whole range
//! is inside it. The last line printed is `ratios: cached/raw=<x.xx>±<r> per_call/cached=<y.y>±<r>
//! valid=<a.aa>±<r> invalid=<b.bb>±<r> raw_value/cached=<c.cc>±<r>` (median ± half the
//! interquartile range): `cached/raw`, `per_call/cached` and `raw_value/cached` over both sets,
//! `valid` and `invalid` the `cached/raw` of each set. Goals (issue 11): `valid` at most 1.15,
//! `invalid` at most 1.3, `raw_value/cached` at most 1.3. Run with
//! `cargo bench -p toolmodel --bench ratios`.
//!
//! `ratios profile <way> <set> <n>` (the bench binary run directly, `<way>` one of `raw`,
//! `cached`, `raw_value`, `per_call`, `<set>` one of `valid`, `invalid`, `both`) runs `n` passes
//! of one way and nothing else, for instruction counts under `valgrind --tool=callgrind`: the
//! instructions of one pass are the difference between two runs' totals over the difference
//! of their `n` (the setup cancels out).

mod corpus;
mod timing;

use std::{hint::black_box, time::Duration};

use corpus::{Case, raw_errors};
use serde_json::Value;
use timing::{Timing, spread::Goal};
use toolmodel::{DefaultValidator, SchemaValidator};

/// How long one round of one way over a set should take.
const ROUND: Duration = Duration::from_millis(40);

/// Which arguments of each case a pass validates.
#[derive(Clone, Copy)]
enum Arguments {
    Valid,
    Invalid,
    Both,
}

impl Arguments {
    /// The chosen arguments of a case, each with whether it is valid.
    fn of(self, case: &Case) -> [Option<(&Value, bool)>; 2] {
        let valid = Some((&case.valid, true));
        let invalid = Some((&case.invalid, false));
        match self {
            Self::Valid => [valid, None],
            Self::Invalid => [None, invalid],
            Self::Both => [valid, invalid],
        }
    }
}

/// The ways, in the order of [`Timing`]'s figures.
const RAW: usize = 0;
const CACHED: usize = 1;
const RAW_VALUE: usize = 2;
const PER_CALL: usize = 3;

/// One pass of way `way` over the chosen arguments of every case.
fn pass(way: usize, validator: &DefaultValidator, cases: &[Case], arguments: Arguments) {
    for case in cases {
        for (instance, valid) in arguments.of(case).into_iter().flatten() {
            let instance = black_box(instance);
            let schema = black_box(case.tool.input_schema.as_value());
            let ok = match way {
                RAW if valid => case.raw.is_valid(instance),
                RAW => raw_errors(&case.raw, instance).is_ok(),
                CACHED => validator
                    .validate_arguments(black_box(&case.tool), instance)
                    .is_ok(),
                RAW_VALUE => validator.validate(schema, instance).is_ok(),
                _ => validator
                    .compile(schema)
                    .and_then(|compiled| compiled.validate(instance))
                    .is_ok(),
            };
            black_box(ok);
        }
    }
}

fn measure(validator: &DefaultValidator, cases: &[Case], arguments: Arguments) -> Timing {
    let mut ways: Vec<Box<dyn FnMut()>> = (0..4)
        .map(|way| -> Box<dyn FnMut()> { Box::new(move || pass(way, validator, cases, arguments)) })
        .collect();
    let mut refs: Vec<&mut dyn FnMut()> = ways
        .iter_mut()
        .map(|w| &mut **w as &mut dyn FnMut())
        .collect();
    timing::side_by_side(&mut refs, ROUND)
}

/// Prints one set's figures: best times per argument object and the rounds' ratios.
fn line(what: &str, timing: &Timing, objects: usize) {
    let [raw, cached, raw_value, per_call] = [RAW, CACHED, RAW_VALUE, PER_CALL]
        .map(|i| timing.best[i].as_secs_f64() * 1e6 / objects as f64);
    println!(
        "{what:<22} per object (best): raw {raw:6.3} us, cached {cached:6.3} us, raw_value {raw_value:6.3} us, \
         per_call {per_call:7.1} us; {} {} {}",
        timing.spread(CACHED, RAW).short("cached/raw", 2),
        timing
            .spread(RAW_VALUE, CACHED)
            .short("raw_value/cached", 2),
        timing.spread(PER_CALL, CACHED).short("per_call/cached", 1),
    );
}

/// `profile <way> <set> <n>` (see the module docs): `n` passes of one way over one set.
fn profile(validator: &DefaultValidator, cases: &[Case], args: &[String]) {
    let way = ["raw", "cached", "raw_value", "per_call"]
        .iter()
        .position(|way| args.first().is_some_and(|arg| arg == way))
        .expect("a way: raw, cached, raw_value or per_call");
    let arguments = match args.get(1).map(String::as_str) {
        Some("valid") => Arguments::Valid,
        Some("invalid") => Arguments::Invalid,
        Some("both") => Arguments::Both,
        _ => panic!("a set: valid, invalid or both"),
    };
    let n: usize = args
        .get(2)
        .and_then(|n| n.parse().ok())
        .expect("a number of passes");
    for _ in 0..n {
        pass(way, validator, cases, arguments);
    }
}

fn main() {
    let validator = DefaultValidator::new();
    let cases = corpus::cases(&validator);
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Some(at) = args.iter().position(|arg| arg == "profile") {
        profile(&validator, &cases, args.get(at + 1..).unwrap_or_default());
        return;
    }
    let valid = measure(&validator, &cases, Arguments::Valid);
    line("valid arguments", &valid, cases.len());
    let invalid = measure(&validator, &cases, Arguments::Invalid);
    line("invalid arguments", &invalid, cases.len());
    let both = measure(&validator, &cases, Arguments::Both);
    line("all arguments", &both, 2 * cases.len());
    let goals = [
        ("valid", valid.spread(CACHED, RAW), Goal::AtMost(1.15)),
        ("invalid", invalid.spread(CACHED, RAW), Goal::AtMost(1.3)),
        (
            "raw_value/cached",
            both.spread(RAW_VALUE, CACHED),
            Goal::AtMost(1.3),
        ),
    ];
    for (name, spread, goal) in goals {
        println!("goal {}", spread.line(name, 2, goal));
    }
    println!(
        "ratios: {} {} {} {} {}",
        both.spread(CACHED, RAW).short("cached/raw", 2),
        both.spread(PER_CALL, CACHED).short("per_call/cached", 1),
        goals[0].1.short("valid", 2),
        goals[1].1.short("invalid", 2),
        goals[2].1.short("raw_value/cached", 2),
    );
}
