//! The cost of validating tool arguments three ways, side by side in one process, over real
//! corpus schemas with valid and invalid arguments (see `corpus/mod.rs` for the cases):
//!
//! - `raw`: a `jsonschema::Validator` compiled once, doing the work `toolmodel` does for the same
//!   outcome (`is_valid`; for invalid arguments also every error collected into owned strings,
//!   see `corpus::raw_validate`);
//! - `cached`: `DefaultValidator::validate_arguments(&tool, &args)`, which compiles a tool's
//!   schema once and finds it again by the schema's identity;
//! - `per_call`: `DefaultValidator::validate(schema, &args)`, which compiles on every call.
//!
//! Every measurement runs the three ways in many short interleaved rounds: the times printed are
//! the best round's (per pass over the cases), the ratios the median of the rounds' ratios, each
//! round's ratio comparing times taken back to back. One line per case, then the valid
//! arguments of all cases, the invalid ones, and both; the last line printed is `ratios: cached/raw=<x.xx> per_call/cached=<y.y>`, over every case's
//! valid and invalid arguments. Run with `cargo bench -p toolmodel --bench ratios`.

mod corpus;

use std::{
    hint::black_box,
    time::{Duration, Instant},
};

use corpus::{Case, raw_validate};
use serde_json::Value;
use toolmodel::{DefaultValidator, SchemaValidator};

/// Rounds per measurement (odd, for a plain median).
const ROUNDS: usize = 15;
/// How long one round of one way over the whole set should take.
const SET_ROUND: Duration = Duration::from_millis(30);
/// How long one round of one way over one case should take.
const CASE_ROUND: Duration = Duration::from_millis(3);

/// The ways of validating that are compared.
#[derive(Clone, Copy)]
enum Way {
    Raw,
    Cached,
    PerCall,
}

const WAYS: [Way; 3] = [Way::Raw, Way::Cached, Way::PerCall];

/// Which arguments of each case a pass validates.
#[derive(Clone, Copy)]
enum Arguments {
    Valid,
    Invalid,
    Both,
}

impl Arguments {
    fn of(self, case: &Case) -> [Option<&Value>; 2] {
        match self {
            Self::Valid => [Some(&case.valid), None],
            Self::Invalid => [None, Some(&case.invalid)],
            Self::Both => [Some(&case.valid), Some(&case.invalid)],
        }
    }
}

/// One pass: every chosen argument object of every case, validated one way.
fn pass(way: Way, validator: &DefaultValidator, cases: &[Case], arguments: Arguments) {
    for case in cases {
        for instance in arguments.of(case).into_iter().flatten() {
            let outcome = match way {
                Way::Raw => raw_validate(black_box(&case.raw), black_box(instance)),
                Way::Cached => {
                    validator.validate_arguments(black_box(&case.tool), black_box(instance))
                }
                Way::PerCall => validator.validate(
                    black_box(case.tool.input_schema.as_value()),
                    black_box(instance),
                ),
            };
            black_box(outcome).ok();
        }
    }
}

/// What [`measure`] found.
struct Measurement {
    /// The best time of one pass of each way (raw, cached, per call) over all rounds.
    best: [Duration; 3],
    /// The median over the rounds of each round's `cached/raw`.
    cached_raw: f64,
    /// The median over the rounds of each round's `per_call/cached`.
    per_call_cached: f64,
}

/// Times one pass of each way (raw, cached, per call) in [`ROUNDS`] rounds. A round runs raw,
/// cached, cached, raw, then per call, each for about `round` after some untimed passes (so
/// that no way pays for the caches and allocator state the way before it left), so that its
/// ratios compare times taken back to back under the same machine load, with raw and cached
/// in symmetric positions. The ratios reported are the medians of the rounds' ratios, robust
/// to a round disturbed by other processes; the times are the best blocks'.
fn measure(
    validator: &DefaultValidator,
    cases: &[Case],
    arguments: Arguments,
    round: Duration,
) -> Measurement {
    let passes = WAYS.map(|way| {
        let start = Instant::now();
        pass(way, validator, cases, arguments);
        let once = start.elapsed().max(Duration::from_nanos(1));
        u32::try_from(round.as_nanos() / once.as_nanos())
            .unwrap_or(u32::MAX)
            .max(1)
    });
    let mut best = [Duration::MAX; 3];
    let mut cached_raw = Vec::with_capacity(ROUNDS);
    let mut per_call_cached = Vec::with_capacity(ROUNDS);
    for _ in 0..ROUNDS {
        let mut total = [Duration::ZERO; 3];
        for i in [0, 1, 1, 0, 2] {
            for _ in 0..passes[i].div_ceil(8) {
                pass(WAYS[i], validator, cases, arguments);
            }
            let start = Instant::now();
            for _ in 0..passes[i] {
                pass(WAYS[i], validator, cases, arguments);
            }
            let time = start.elapsed() / passes[i];
            total[i] += time;
            best[i] = best[i].min(time);
        }
        let [raw, cached, per_call] = total.map(|t| t.as_secs_f64());
        cached_raw.push(cached / raw);
        per_call_cached.push(2.0 * per_call / cached);
    }
    Measurement {
        best,
        cached_raw: median(cached_raw),
        per_call_cached: median(per_call_cached),
    }
}

/// The median of some ratios.
fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(f64::total_cmp);
    values[values.len() / 2]
}

/// Prints one measurement: best times per pass and median ratios.
fn line(what: &str, measurement: &Measurement) {
    let [raw, cached, per_call] = measurement.best.map(|t| t.as_secs_f64() * 1e6);
    println!(
        "{what:<60} raw={raw:>9.3}us cached={cached:>9.3}us per_call={per_call:>10.1}us \
         cached/raw={:.2} per_call/cached={:.1}",
        measurement.cached_raw, measurement.per_call_cached
    );
}

fn main() {
    let validator = DefaultValidator::new();
    let cases = corpus::cases(&validator);
    println!(
        "{} tools, each with valid and invalid arguments, checked; times are per pass",
        cases.len()
    );
    for case in &cases {
        line(
            &format!("case {}", case.label),
            &measure(
                &validator,
                std::slice::from_ref(case),
                Arguments::Both,
                CASE_ROUND,
            ),
        );
    }
    line(
        "all valid arguments",
        &measure(&validator, &cases, Arguments::Valid, SET_ROUND),
    );
    line(
        "all invalid arguments",
        &measure(&validator, &cases, Arguments::Invalid, SET_ROUND),
    );
    let all = measure(&validator, &cases, Arguments::Both, SET_ROUND);
    line("all arguments", &all);
    println!(
        "ratios: cached/raw={:.2} per_call/cached={:.1}",
        all.cached_raw, all.per_call_cached
    );
}
