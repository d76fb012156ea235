//! Side-by-side timing for the `harness = false` benches: several ways of doing the same work,
//! timed in many short interleaved rounds, so that each round's ratios compare times taken
//! back to back under the same machine load (two cores shared with other builds).
//!
//! A round runs the ways forwards then backwards (`0, 1, ..., n-1, n-1, ..., 1, 0`), each for
//! about a third of `round` after a few untimed passes, so that no way pays for the caches and
//! allocator state the way before it left, timed in [`CHUNKS`] chunks of passes. A way's time
//! in a round is its fastest chunk of the round: another process only ever adds time, and on
//! two cores shared with other builds a chunk is often interrupted, so the fastest one is the
//! way's own cost at that moment. There are 45 rounds. Each round gives every pair of ways a
//! ratio; [`Timing::spread`] is their median and interquartile range ([`spread`]), the figure
//! the benches report and hold against their goals. Each way's best time over the rounds is
//! kept too.
//!
//! `TOOLMODEL_BENCH_QUICK=1` runs 9 shorter rounds, for development.
//!
//! Each bench uses a part of this module; the rest would be dead code in it.
#![allow(dead_code)]

pub mod spread;

use std::{
    hint::black_box,
    time::{Duration, Instant},
};

use spread::Spread;

/// What [`side_by_side`] found.
pub struct Timing {
    /// The best time of one pass of each way over all rounds.
    pub best: Vec<Duration>,
    /// For each way, its best time divided by way 0's (1.0 for way 0).
    pub ratio: Vec<f64>,
    /// For each round, each way's time per pass in it (its fastest chunk).
    pub rounds: Vec<Vec<Duration>>,
}

impl Timing {
    /// Way `i`'s best time divided by way `j`'s.
    pub fn ratio_of(&self, i: usize, j: usize) -> f64 {
        self.best[i].as_secs_f64() / self.best[j].as_secs_f64()
    }

    /// The median and interquartile range of way `i`'s time divided by way `j`'s, per round.
    pub fn spread(&self, i: usize, j: usize) -> Spread {
        let ratios: Vec<f64> = self
            .rounds
            .iter()
            .map(|round| round[i].as_secs_f64() / round[j].as_secs_f64())
            .collect();
        Spread::of(&ratios)
    }
}

/// Whether `TOOLMODEL_BENCH_QUICK` asks for a short run.
pub fn quick() -> bool {
    std::env::var_os("TOOLMODEL_BENCH_QUICK").is_some_and(|v| v != "0")
}

/// How many timed chunks a way's turn in a round is split into.
pub const CHUNKS: u32 = 4;

/// Times one pass of each of `ways` in rounds of about `round` per way (see the module docs).
pub fn side_by_side(ways: &mut [&mut dyn FnMut()], round: Duration) -> Timing {
    let (rounds, round) = if quick() {
        (9, round / 6)
    } else {
        (45, round / 3)
    };
    let passes: Vec<u32> = ways
        .iter_mut()
        .map(|way| {
            let start = Instant::now();
            way();
            let once = start.elapsed().max(Duration::from_nanos(1));
            u32::try_from(round.as_nanos() / once.as_nanos())
                .unwrap_or(u32::MAX)
                .max(1)
        })
        .collect();
    let n = ways.len();
    let mut best = vec![Duration::MAX; n];
    let mut times = Vec::with_capacity(rounds);
    let order: Vec<usize> = (0..n).chain((0..n).rev()).collect();
    for _ in 0..rounds {
        let mut round_times = vec![Duration::MAX; n];
        for &i in &order {
            let way = &mut ways[i];
            for _ in 0..passes[i].div_ceil(8) {
                way();
            }
            let chunk = passes[i].div_ceil(CHUNKS);
            for _ in 0..CHUNKS {
                let start = Instant::now();
                for _ in 0..chunk {
                    way();
                }
                let time = start.elapsed() / chunk;
                round_times[i] = round_times[i].min(time);
            }
            best[i] = best[i].min(round_times[i]);
        }
        times.push(round_times);
    }
    let ratio = best
        .iter()
        .map(|time| time.as_secs_f64() / best[0].as_secs_f64())
        .collect();
    Timing {
        best,
        ratio,
        rounds: times,
    }
}

/// Runs `f` on every item, keeping the results from being optimized away.
pub fn each<T, R>(items: &[T], mut f: impl FnMut(&T) -> R) {
    for item in items {
        black_box(f(black_box(item)));
    }
}
