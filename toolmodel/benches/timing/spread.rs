//! The median of per-round ratios with their interquartile range, and whether a goal is met.
//!
//! A bench that compares two ways runs them in many short interleaved rounds; each round gives
//! one ratio, taken back to back under the same machine load. The figure reported is the
//! median of those ratios, and its spread is their interquartile range (the 25th to the 75th
//! percentile, linear interpolation between ranks): half the rounds fall inside it. A goal is
//! met when the whole range is inside it, not met when the whole range is outside it, and
//! undecided otherwise (the bench cannot tell; run it on a quieter machine or longer).

use std::fmt;

/// The median and interquartile range of a set of ratios.
#[derive(Clone, Copy, Debug)]
pub struct Spread {
    /// The 25th percentile.
    pub low: f64,
    /// The median.
    pub median: f64,
    /// The 75th percentile.
    pub high: f64,
    /// How many ratios.
    pub rounds: usize,
}

impl Spread {
    /// The spread of `ratios` (NaN figures when it is empty).
    pub fn of(ratios: &[f64]) -> Self {
        let mut sorted = ratios.to_vec();
        sorted.sort_by(f64::total_cmp);
        Self {
            low: percentile(&sorted, 0.25),
            median: percentile(&sorted, 0.5),
            high: percentile(&sorted, 0.75),
            rounds: sorted.len(),
        }
    }

    /// Whether the spread lies inside `goal`.
    pub fn against(&self, goal: Goal) -> Verdict {
        let inside = |x: f64| match goal {
            Goal::AtMost(limit) => x <= limit,
            Goal::AtLeast(limit) => x >= limit,
        };
        match (inside(self.low), inside(self.high)) {
            (true, true) => Verdict::Met,
            (false, false) => Verdict::NotMet,
            _ => Verdict::Undecided,
        }
    }

    /// `name=<median>±<half the range> (<low>–<high>, goal <goal>: <verdict>)`, the figures
    /// with `decimals` decimals.
    pub fn line(&self, name: &str, decimals: usize, goal: Goal) -> String {
        format!(
            "{name}={:.decimals$}±{:.decimals$} ({:.decimals$}–{:.decimals$} over {} rounds, goal {goal}: {})",
            self.median,
            (self.high - self.low) / 2.0,
            self.low,
            self.high,
            self.rounds,
            self.against(goal),
        )
    }

    /// `name=<median>±<half the range>`, the short form of a bench's last line.
    pub fn short(&self, name: &str, decimals: usize) -> String {
        format!(
            "{name}={:.decimals$}±{:.decimals$}",
            self.median,
            (self.high - self.low) / 2.0
        )
    }
}

/// The `p`-th quantile of sorted figures, interpolating between neighbouring ranks.
fn percentile(sorted: &[f64], p: f64) -> f64 {
    let Some(last) = sorted.len().checked_sub(1) else {
        return f64::NAN;
    };
    #[allow(clippy::cast_precision_loss)]
    let rank = p * last as f64;
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    let below = rank.floor() as usize;
    let above = (below + 1).min(last);
    let fraction = rank - rank.floor();
    sorted[below] + (sorted[above] - sorted[below]) * fraction
}

/// A bench's goal for a ratio.
#[derive(Clone, Copy, Debug)]
pub enum Goal {
    /// The ratio must not exceed this.
    AtMost(f64),
    /// The ratio must reach this.
    AtLeast(f64),
}

impl fmt::Display for Goal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::AtMost(limit) => write!(f, "<= {limit}"),
            Self::AtLeast(limit) => write!(f, ">= {limit}"),
        }
    }
}

/// What a spread says of a goal.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// The whole interquartile range is inside the goal.
    Met,
    /// The whole interquartile range is outside it.
    NotMet,
    /// The range straddles the goal.
    Undecided,
}

impl fmt::Display for Verdict {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Self::Met => "met",
            Self::NotMet => "not met",
            Self::Undecided => "undecided",
        })
    }
}
