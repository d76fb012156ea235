//! The default ranker: BM25 over a tool's fields, each weighted (BM25F), scored by the `bm25`
//! crate's [`Scorer`](bm25::Scorer).

use std::collections::HashMap;
use std::fmt;

use bm25::{Embedding, Scorer, TokenEmbedding};

use super::document::{Document, Field};
use super::query::Query;
use super::ranker::Ranker;
use super::tokenize;

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// BM25 ranking of tools: each term's frequency in a tool is the sum over its fields of the
/// field's weight times the term's count there, normalized by the field's length against the
/// index's average (BM25F, Robertson and Zaragoza, "The Probabilistic Relevance Framework:
/// BM25 and Beyond", 2009, §3.3); the `bm25` crate's [`Scorer`](bm25::Scorer) keeps the
/// inverted index and weighs each term by its inverse document frequency.
///
/// The terms are those of [`Query`]: words split at `_`, `-`, `.`, `/` and case changes,
/// lower-cased, English stop words dropped, English words stemmed (Snowball); Chinese,
/// Japanese and Korean text as single characters and pairs of neighbours; other scripts as
/// lower-cased words.
///
/// The field weights ([`Bm25::weight`]) and the two BM25 parameters `k1` = 1.2 and `b` = 0.75
/// were chosen on the Berkeley Function Calling Leaderboard's questions (the repository's
/// `search/run.sh`). Average field lengths are those of the tools indexed when each tool is
/// embedded; a tool's score does not move when others are added later (the `bm25` crate's
/// documented drift), and [`ToolIndex::from_tools`](super::ToolIndex::from_tools) measures
/// them over the whole set first.
pub struct Bm25 {
    scorer: Scorer<u32, u32>,
    vocabulary: FastMap<String, u32>,
    /// Per indexed key, its field lengths (in terms), to take out of the totals on removal.
    lengths: FastMap<u32, [u32; Field::ALL.len()]>,
    /// Per field, the sum of its lengths over indexed tools.
    total_lengths: [u64; Field::ALL.len()],
    k1: f32,
    b: f32,
}

impl Default for Bm25 {
    fn default() -> Self {
        Bm25 {
            scorer: Scorer::new(),
            vocabulary: FastMap::default(),
            lengths: FastMap::default(),
            total_lengths: [0; Field::ALL.len()],
            k1: 1.2,
            b: 0.75,
        }
    }
}

impl fmt::Debug for Bm25 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bm25")
            .field("tools", &self.lengths.len())
            .field("terms", &self.vocabulary.len())
            .finish_non_exhaustive()
    }
}

impl Bm25 {
    /// An empty ranker.
    pub fn new() -> Self {
        Bm25::default()
    }

    /// How much a term found in `field` counts against one found in the description (1.0).
    pub const fn weight(field: Field) -> f32 {
        match field {
            Field::Name => 3.0,
            Field::Title => 2.0,
            Field::Description => 1.0,
            Field::ParameterName => 1.0,
            Field::ParameterDescription => 0.4,
            Field::Label => 1.5,
            Field::ServerName => 1.0,
            Field::ServerDescription => 0.3,
        }
    }

    fn average(&self, field: Field, with: usize) -> f32 {
        let total = self.total_lengths.get(field.index()).copied().unwrap_or(0);
        if total == 0 || with == 0 {
            return 1.0;
        }
        total as f32 / with as f32
    }
}

/// Each term of the document with its count per field, and the length of each field.
fn field_terms(document: &Document<'_>) -> (Counts, [u32; Field::ALL.len()]) {
    let mut counts = Counts::default();
    let mut lengths = [0u32; Field::ALL.len()];
    document.texts(&mut |field, text| {
        tokenize::terms(text, &mut |term| {
            if let Some(length) = lengths.get_mut(field.index()) {
                *length += 1;
            }
            let entry = match counts.get_mut(term) {
                Some(entry) => entry,
                None => counts.entry(term.to_owned()).or_default(),
            };
            if let Some(count) = entry.get_mut(field.index()) {
                *count = count.saturating_add(1);
            }
        });
    });
    (counts, lengths)
}

type Counts = FastMap<String, [u16; Field::ALL.len()]>;

impl Bm25 {
    /// Counts `lengths` into the index's totals.
    fn add_lengths(&mut self, key: u32, lengths: [u32; Field::ALL.len()]) {
        for (total, length) in self.total_lengths.iter_mut().zip(lengths) {
            *total += u64::from(length);
        }
        self.lengths.insert(key, lengths);
    }

    /// Scores each term of a tool against the current averages and hands it to the scorer.
    fn embed(&mut self, key: u32, counts: Counts, lengths: [u32; Field::ALL.len()]) {
        let tools = self.lengths.len();
        let averages = Field::ALL.map(|field| self.average(field, tools));
        let mut embedding = Vec::with_capacity(counts.len());
        for (term, per_field) in counts {
            let mut frequency = 0.0f32;
            for field in Field::ALL {
                let count = per_field.get(field.index()).copied().unwrap_or(0);
                if count == 0 {
                    continue;
                }
                let length = lengths.get(field.index()).copied().unwrap_or(0) as f32;
                let average = averages.get(field.index()).copied().unwrap_or(1.0);
                let norm = 1.0 - self.b + self.b * length / average;
                frequency += Bm25::weight(field) * f32::from(count) / norm.max(f32::EPSILON);
            }
            let next = u32::try_from(self.vocabulary.len()).unwrap_or(u32::MAX);
            let id = *self.vocabulary.entry(term).or_insert(next);
            embedding.push(TokenEmbedding {
                index: id,
                value: frequency * (self.k1 + 1.0) / (self.k1 + frequency),
            });
        }
        self.scorer.upsert(&key, Embedding(embedding));
    }
}

impl Ranker for Bm25 {
    fn upsert(&mut self, key: u32, document: &Document<'_>) {
        self.remove(key);
        let (counts, lengths) = field_terms(document);
        self.add_lengths(key, lengths);
        self.embed(key, counts, lengths);
    }

    /// Measures the whole batch into the average field lengths first, then embeds each tool,
    /// so that every tool of a batch is scored against the same averages.
    fn upsert_all(&mut self, documents: &[(u32, Document<'_>)]) {
        let mut measured = Vec::with_capacity(documents.len());
        for (key, document) in documents {
            self.remove(*key);
            let (counts, lengths) = field_terms(document);
            self.add_lengths(*key, lengths);
            measured.push((*key, counts, lengths));
        }
        for (key, counts, lengths) in measured {
            self.embed(key, counts, lengths);
        }
    }

    fn remove(&mut self, key: u32) {
        if let Some(lengths) = self.lengths.remove(&key) {
            self.scorer.remove(&key);
            for (total, length) in self.total_lengths.iter_mut().zip(lengths) {
                *total = total.saturating_sub(u64::from(length));
            }
        }
    }

    fn rank(&self, query: &Query<'_>, limit: usize) -> Vec<(u32, f32)> {
        let indices: Vec<TokenEmbedding<u32>> = query
            .terms()
            .iter()
            .filter_map(|term| self.vocabulary.get(term))
            .map(|&index| TokenEmbedding { index, value: 1.0 })
            .collect();
        if indices.is_empty() || limit == 0 {
            return Vec::new();
        }
        let mut found: Vec<(u32, f32)> = self
            .scorer
            .matches(&Embedding(indices))
            .into_iter()
            .map(|scored| (scored.id, scored.score))
            .collect();
        // The scorer's order among equal scores is its hash set's: make it the keys'.
        found.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        found.truncate(limit);
        found
    }
}
