//! What the adapters give back: a [`Conversion`], a [`Batch`] of them, a [`Reading`] of a
//! provider's tool, a [`ProfileReport`] column.

use serde_json::Value;

use crate::adapters::names::NameMap;
use crate::adapters::target::{Profile, Target};
use crate::adapters::warning::Warning;
use crate::error::Error;
use crate::model::tool::Tool;

/// One tool converted to one target.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Conversion {
    /// The target.
    pub target: Target,
    /// Whether the strict transform was applied.
    pub strict: bool,
    /// The tool's name on the target (also in [`value`](Self::value)).
    pub name: String,
    /// The converted tool: one entry of the target's `tools` (or `functionDeclarations`) list.
    pub value: Value,
    /// Everything the conversion changed, sorted, without duplicates.
    pub warnings: Vec<Warning>,
}

/// A batch of tools converted to one target ([`convert_all`](crate::adapters::convert_all)).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Batch {
    /// One result per tool, in the order given.
    pub results: Vec<Result<Conversion, Error>>,
    /// The target name of every tool (failed ones included), collision-free across the batch.
    pub names: NameMap,
}

/// A tool read from a provider's JSON.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Reading {
    /// The tool, with the provider's name (route it with a [`NameMap`] if you renamed it).
    pub tool: Tool,
    /// What lenient reading mapped (empty otherwise), with pointers into the document read.
    pub warnings: Vec<Warning>,
}

/// One column of a portability report: a profile and what converting to it would give.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ProfileReport {
    /// The target and strictness.
    pub profile: Profile,
    /// The warnings of the conversion, or the error that stops it.
    pub outcome: Result<Vec<Warning>, Error>,
}
