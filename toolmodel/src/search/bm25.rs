//! The default ranker: BM25 over a tool's fields, each weighted (BM25F), with posting lists.

use std::collections::HashMap;
use std::fmt;

use super::document::{Document, Field};
use super::query::Query;
use super::ranker::Ranker;
use super::tokenize::Tokenizer;

type FastMap<K, V> = HashMap<K, V, foldhash::fast::RandomState>;

/// Per field, a count or a length.
type PerField<T> = [T; Field::ALL.len()];

/// BM25 ranking of tools, the default [`Ranker`].
///
/// - **Terms** are those of [`Query`]: words split at `_`, `-`, `.`, `/` and case changes,
///   lower-cased, English stop words dropped, English words stemmed (Snowball); Chinese,
///   Japanese and Korean text as single characters and pairs of neighbours; other scripts as
///   lower-cased words.
/// - **Fields** are weighed ([`Bm25::weight`]): a term's frequency in a tool is the sum over its
///   fields of the field's weight times the term's count there, each count normalized by its
///   field's length against the index's average for that field; the sum is saturated with
///   `k1` = 0.9 and the length normalization is `b` = 0.4 (BM25F: Robertson and Zaragoza, "The
///   Probabilistic Relevance Framework: BM25 and Beyond", 2009, §3.3).
/// - **Rare terms count more**: each term's weight is multiplied by its inverse document
///   frequency, `ln(1 + (N − n + 0.5) / (n + 0.5))` for `n` of the `N` tools holding it (the
///   formula of Lucene and of the `bm25` crate; for tools with one field, the scores are that
///   crate's, which a test of this module checks).
/// - **Names matter**: a tool's score is raised by up to 30 % by the share of its name's
///   terms that the query holds, so `todo` beats `todo_update` for "add to my todo list".
///
/// The constants were chosen on the Berkeley Function Calling Leaderboard's questions (the
/// repository's `search/run.sh`), where they rank a relevant tool in the first five for 89 %
/// of 2,061 questions over a catalog of 1,246 functions.
///
/// A search walks the posting lists of the query's terms only, adding each tool's weight into
/// a table of scores, then picks the best: its cost grows with how many tools hold the
/// query's terms, not with the size of the index or of the tools. Average field lengths are
/// those of the tools indexed when each tool is added; a tool's weights do not move when
/// others are added later (as the `bm25` crate documents of its own), and
/// [`ToolIndex::from_tools`](super::ToolIndex::from_tools) and
/// [`ToolIndex::sync`](super::ToolIndex::sync) measure a whole batch first.
pub struct Bm25 {
    /// Term text to term id (the index in `postings`).
    vocabulary: FastMap<String, u32>,
    /// Per term id, each tool holding it.
    postings: Vec<Vec<Posting>>,
    /// Per key, what the index holds of the tool.
    tools: Vec<Option<Indexed>>,
    /// The number of `Some` in `tools`: `N` of the IDF.
    count: usize,
    /// Per field, the sum of its lengths over the indexed tools.
    total_lengths: PerField<u64>,
    tokenizer: Tokenizer,
}

#[derive(Clone, Copy)]
struct Posting {
    key: u32,
    /// The term's saturated, field-weighted frequency in the tool.
    weight: f32,
    /// Whether the term is one of the tool's name.
    in_name: bool,
}

struct Indexed {
    lengths: PerField<u32>,
    /// Its term ids, to take it out of their posting lists.
    terms: Vec<u32>,
    /// The number of distinct terms of its name.
    name_terms: u16,
}

/// BM25's saturation: how soon more of a term stops counting.
const K1: f32 = 0.9;
/// BM25's length normalization: how much a long field's counts are discounted.
const B: f32 = 0.4;
/// How much a query naming every term of a tool's name raises its score (as a share).
const NAME_BONUS: f32 = 0.3;

impl Default for Bm25 {
    fn default() -> Self {
        Bm25 {
            vocabulary: FastMap::default(),
            postings: Vec::new(),
            tools: Vec::new(),
            count: 0,
            total_lengths: [0; Field::ALL.len()],
            tokenizer: Tokenizer::remembering(),
        }
    }
}

impl fmt::Debug for Bm25 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Bm25")
            .field("tools", &self.count)
            .field("terms", &self.vocabulary.len())
            .finish_non_exhaustive()
    }
}

/// Each term of a tool with its count per field, and each field's length (in terms).
type Counts = FastMap<String, PerField<u16>>;

impl Bm25 {
    /// An empty ranker.
    pub fn new() -> Self {
        Bm25::default()
    }

    /// How much a term found in `field` counts against one found in the description (1.0).
    pub const fn weight(field: Field) -> f32 {
        match field {
            Field::Name | Field::Title => 2.0,
            Field::Description | Field::ServerName => 1.0,
            Field::ParameterName | Field::Label => 1.5,
            Field::ParameterDescription => 0.5,
            Field::ServerDescription => 0.3,
        }
    }

    /// The inverse document frequency of a term held by `holders` of the indexed tools.
    fn idf(&self, holders: usize) -> f32 {
        let tools = self.count as f32;
        let holders = holders as f32;
        (1.0 + (tools - holders + 0.5) / (holders + 0.5)).ln()
    }

    /// Takes the tool's counts into the averages and holds its key (before [`Bm25::embed`],
    /// so that a batch is measured whole first).
    fn measure(&mut self, key: u32, lengths: PerField<u32>) {
        for (total, length) in self.total_lengths.iter_mut().zip(lengths) {
            *total += u64::from(length);
        }
        let slot = key as usize;
        if self.tools.len() <= slot {
            self.tools.resize_with(slot + 1, || None);
        }
        if let Some(entry) = self.tools.get_mut(slot) {
            *entry = Some(Indexed {
                lengths,
                terms: Vec::new(),
                name_terms: 0,
            });
            self.count += 1;
        }
    }

    /// Weighs each term of a measured tool against the current averages into the posting lists.
    fn embed(&mut self, key: u32, counts: Counts, lengths: PerField<u32>) {
        let averages = Field::ALL.map(|field| {
            let total = self.total_lengths.get(field.index()).copied().unwrap_or(0);
            if total == 0 || self.count == 0 {
                1.0
            } else {
                total as f32 / self.count as f32
            }
        });
        let mut terms = Vec::with_capacity(counts.len());
        let mut name_terms = 0u16;
        for (term, per_field) in counts {
            let mut frequency = 0.0f32;
            for field in Field::ALL {
                let count = per_field.get(field.index()).copied().unwrap_or(0);
                if count == 0 {
                    continue;
                }
                let length = lengths.get(field.index()).copied().unwrap_or(0) as f32;
                let average = averages.get(field.index()).copied().unwrap_or(1.0);
                let norm = (1.0 - B + B * length / average).max(f32::EPSILON);
                frequency += Bm25::weight(field) * f32::from(count) / norm;
            }
            let in_name = per_field
                .get(Field::Name.index())
                .is_some_and(|&count| count > 0);
            name_terms = name_terms.saturating_add(u16::from(in_name));
            let next = u32::try_from(self.vocabulary.len()).unwrap_or(u32::MAX);
            let id = *self.vocabulary.entry(term).or_insert(next);
            if id as usize == self.postings.len() {
                self.postings.push(Vec::new());
            }
            if let Some(posting) = self.postings.get_mut(id as usize) {
                let weight = frequency * (K1 + 1.0) / (K1 + frequency);
                posting.push(Posting {
                    key,
                    weight,
                    in_name,
                });
            }
            terms.push(id);
        }
        if let Some(Some(indexed)) = self.tools.get_mut(key as usize) {
            indexed.terms = terms;
            indexed.name_terms = name_terms;
        }
    }
}

/// Each term of the document with its count per field, and the length of each field.
fn field_terms(tokenizer: &mut Tokenizer, document: &Document<'_>) -> (Counts, PerField<u32>) {
    let mut counts = Counts::default();
    let mut lengths = [0u32; Field::ALL.len()];
    document.texts(&mut |field, text| {
        tokenizer.terms(text, &mut |term| {
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

impl Ranker for Bm25 {
    fn upsert(&mut self, key: u32, document: &Document<'_>) {
        self.remove(key);
        let (counts, lengths) = field_terms(&mut self.tokenizer, document);
        self.measure(key, lengths);
        self.embed(key, counts, lengths);
    }

    /// Measures the whole batch into the average field lengths first, then weighs each tool,
    /// so that every tool of a batch is scored against the same averages.
    fn upsert_all(&mut self, documents: &[(u32, Document<'_>)]) {
        let mut measured = Vec::with_capacity(documents.len());
        for (key, document) in documents {
            self.remove(*key);
            let (counts, lengths) = field_terms(&mut self.tokenizer, document);
            self.measure(*key, lengths);
            measured.push((*key, counts, lengths));
        }
        for (key, counts, lengths) in measured {
            self.embed(key, counts, lengths);
        }
    }

    fn remove(&mut self, key: u32) {
        let Some(indexed) = self.tools.get_mut(key as usize).and_then(Option::take) else {
            return;
        };
        self.count -= 1;
        for (total, length) in self.total_lengths.iter_mut().zip(indexed.lengths) {
            *total = total.saturating_sub(u64::from(length));
        }
        for id in indexed.terms {
            if let Some(posting) = self.postings.get_mut(id as usize) {
                posting.retain(|p| p.key != key);
            }
        }
    }

    /// Term at a time: each query term's posting list adds its weight times its IDF to the
    /// score of each tool holding it; the name bonus is applied, and the best `limit` picked.
    fn rank(&self, query: &Query<'_>, limit: usize) -> Vec<(u32, f32)> {
        if limit == 0 {
            return Vec::new();
        }
        let mut scores = vec![0.0f32; self.tools.len()];
        let mut name_hits = vec![0u16; self.tools.len()];
        let mut touched: Vec<u32> = Vec::new();
        for term in query.terms() {
            let Some(posting) = self
                .vocabulary
                .get(term)
                .and_then(|&id| self.postings.get(id as usize))
            else {
                continue;
            };
            let idf = self.idf(posting.len());
            for p in posting {
                let (Some(score), Some(hits)) = (
                    scores.get_mut(p.key as usize),
                    name_hits.get_mut(p.key as usize),
                ) else {
                    continue;
                };
                if *score == 0.0 {
                    touched.push(p.key);
                }
                *score += idf * p.weight;
                *hits += u16::from(p.in_name);
            }
        }
        let mut found: Vec<(u32, f32)> = touched
            .into_iter()
            .filter_map(|key| {
                let score = *scores.get(key as usize)?;
                let hits = f32::from(*name_hits.get(key as usize)?);
                let indexed = self.tools.get(key as usize)?.as_ref()?;
                let share = hits / f32::from(indexed.name_terms.max(1));
                Some((key, score * (1.0 + NAME_BONUS * share)))
            })
            .filter(|&(_, score)| score > 0.0)
            .collect();
        let best_first = |a: &(u32, f32), b: &(u32, f32)| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0));
        // The best `limit`, and any tied with the last of them (the index breaks ties by name).
        if found.len() > limit {
            found.select_nth_unstable_by(limit - 1, best_first);
            if let Some(&(_, cut)) = found.get(limit - 1) {
                found.retain(|&(_, score)| score >= cut);
            }
        }
        found.sort_by(best_first);
        found
    }
}
