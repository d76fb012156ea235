//! Tool search: find the few tools of a large catalog that fit a request.
//!
//! A model handed a thousand tool definitions pays for them in every turn and picks worse
//! among them; clients and providers now send a handful and let the model search for the
//! rest (Anthropic's tool search tool, OpenAI's `tool_search`, FastMCP's
//! `BM25SearchTransform`). A [`ToolIndex`] is that search over [`Tool`](struct@crate::Tool)s:
//! it reads each tool's name (split into words at `_`, `-`, `.`, `/` and case changes), title,
//! description, parameter names, descriptions and `enum` strings, namespace, tags and
//! category, and for a federated tool its upstream server's name and description
//! ([`Server`]), and ranks them with BM25 ([`Bm25`]), or with a [`Ranker`] of your own. The
//! guide's chapter [Large catalogs](crate::guide::large_catalogs) shows it at work, with the
//! providers' own search.
//!
//! ```
//! use toolmodel::search::ToolIndex;
//! use toolmodel::{Tool, ToolSchema};
//!
//! let mut weather = Tool::new("get_weather", ToolSchema::empty_object());
//! weather.description = Some("Current weather for a city".into());
//! let mut issue = Tool::new("createIssue", ToolSchema::empty_object());
//! issue.description = Some("Open an issue in a GitHub repository".into());
//!
//! let index = ToolIndex::from_tools([&weather, &issue]);
//! let hits = index.search("Will it rain in Paris? Check the weather", 5)?;
//! assert_eq!(hits[0].tool.name, "get_weather");
//! assert_eq!(hits.len(), 1); // nothing in `createIssue` matches
//!
//! let hits = index.search("create a new issue", 5)?;
//! assert_eq!(hits[0].tool.name, "createIssue");
//! # Ok::<(), toolmodel::Error>(())
//! ```
//!
//! [`Toolbox::search`](crate::Toolbox::search) searches a toolbox's tools (its index is built
//! on the first search). A catalog that changes (a gateway's upstream sends
//! `notifications/tools/list_changed`) is kept current with [`ToolIndex::sync`], which
//! re-indexes only the tools whose searched text changed.
//!
//! # Limits
//!
//! A query is refused ([`QueryError`], in [`Error::SearchQuery`]) when it is empty or
//! whitespace, longer than [`MAX_QUERY_BYTES`] or has more than [`MAX_QUERY_TERMS`] distinct
//! terms; so a search costs at most that many posting-list walks, whatever a model sends.
//! An index holds up to `u32::MAX` tools. Indexing takes about 12 µs a tool, and the index
//! about 2.8 KiB a tool, its copy of the tool's definition included: 100,000
//! tools of the Berkeley Function Calling Leaderboard index in 1.3 s into 275 MiB (the
//! repository's `BENCHMARKS.md`, section `search`).

mod bm25;
mod document;
mod query;
mod ranker;
mod tokenize;

#[cfg(test)]
mod tests;

use std::collections::HashMap;
use std::fmt;
use std::hash::{DefaultHasher, Hash, Hasher};

pub use self::bm25::Bm25;
pub use self::document::{Document, Field, Server};
pub use self::query::{MAX_QUERY_BYTES, MAX_QUERY_TERMS, Query, QueryError};
pub use self::ranker::Ranker;

use crate::{Error, Tool};

/// A tool found by a search, and its score (higher is better; compare only within one search).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SearchHit<'a> {
    /// The tool, as indexed; `tool.name` is the name it is served and called by.
    pub tool: &'a Tool,
    /// Its score for the query (BM25's for [`Bm25`]).
    pub score: f32,
}

/// What [`ToolIndex::upsert`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Change {
    /// The name was new.
    Added,
    /// A text the tool is searched by changed: it was indexed again.
    Reindexed,
    /// Its searched texts are as they were: the stored definition was replaced, the ranker
    /// not called.
    Unchanged,
}

/// What [`ToolIndex::sync`] did: counts of tools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SyncReport {
    /// Names that were new.
    pub added: usize,
    /// Tools indexed again because a searched text changed.
    pub reindexed: usize,
    /// Tools whose searched texts were unchanged.
    pub unchanged: usize,
    /// Names no longer in the catalog, removed.
    pub removed: usize,
}

struct Entry {
    tool: Tool,
    server: Option<(String, Option<String>)>,
    /// A hash of every searched text and its field: equal means nothing to re-index.
    fingerprint: u64,
}

impl Entry {
    fn document(&self) -> Document<'_> {
        Document {
            tool: &self.tool,
            server: self.server.as_ref().map(|(name, description)| Server {
                name,
                description: description.as_deref(),
            }),
        }
    }
}

/// An index of tools by name, searched by [`ToolIndex::search`]; see the [module](self).
///
/// Tools are keyed by `name`: upserting a tool of a name already held replaces it. Searches
/// take `&self` and may run from many threads at once; changes take `&mut self`.
pub struct ToolIndex<R: Ranker = Bm25> {
    ranker: R,
    /// By key; `None` for a removed tool whose key waits in `free`.
    entries: Vec<Option<Entry>>,
    by_name: HashMap<String, u32, foldhash::fast::RandomState>,
    free: Vec<u32>,
}

impl<R: Ranker> fmt::Debug for ToolIndex<R> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolIndex")
            .field("tools", &self.by_name.len())
            .finish_non_exhaustive()
    }
}

impl Default for ToolIndex<Bm25> {
    fn default() -> Self {
        ToolIndex::new()
    }
}

impl ToolIndex<Bm25> {
    /// An empty index ranked by [`Bm25`].
    pub fn new() -> Self {
        ToolIndex::with_ranker(Bm25::new())
    }

    /// An index of `tools` ranked by [`Bm25`], measured as one batch (every tool scored
    /// against the average field lengths of all). Of two tools with one name, the later is
    /// kept.
    pub fn from_tools<'a>(tools: impl IntoIterator<Item = &'a Tool>) -> Self {
        let mut index = ToolIndex::new();
        index.sync_from(tools.into_iter().map(|tool| (tool, None)));
        index
    }
}

impl<R: Ranker> ToolIndex<R> {
    /// An empty index ranked by `ranker`.
    pub fn with_ranker(ranker: R) -> Self {
        ToolIndex {
            ranker,
            entries: Vec::new(),
            by_name: HashMap::default(),
            free: Vec::new(),
        }
    }

    /// The number of tools held.
    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    /// Whether it holds no tool.
    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// The tool named `name`.
    pub fn get(&self, name: &str) -> Option<&Tool> {
        let key = *self.by_name.get(name)?;
        self.entry(key).map(|entry| &entry.tool)
    }

    /// The tools held, in no particular order.
    pub fn tools(&self) -> impl Iterator<Item = &Tool> {
        self.entries.iter().flatten().map(|entry| &entry.tool)
    }

    /// Adds `tool`, or replaces the tool of its name; re-indexes only when a searched text
    /// changed.
    pub fn upsert(&mut self, tool: &Tool) -> Change {
        self.upsert_entry(tool, None)
    }

    /// [`ToolIndex::upsert`] for a federated tool: it is also found by `server`'s name and
    /// description.
    pub fn upsert_from(&mut self, tool: &Tool, server: &Server<'_>) -> Change {
        self.upsert_entry(tool, Some(server))
    }

    /// Removes the tool named `name`; `false` when there was none.
    pub fn remove(&mut self, name: &str) -> bool {
        let Some(key) = self.by_name.remove(name) else {
            return false;
        };
        if let Some(slot) = self.entries.get_mut(key as usize) {
            *slot = None;
        }
        self.ranker.remove(key);
        self.free.push(key);
        true
    }

    /// Makes the index hold exactly `tools` (a catalog after `notifications/tools/list_changed`):
    /// new names are added, tools whose searched texts changed re-indexed (as one batch),
    /// unchanged ones left alone, names no longer there removed.
    pub fn sync<'a>(&mut self, tools: impl IntoIterator<Item = &'a Tool>) -> SyncReport {
        self.sync_from(tools.into_iter().map(|tool| (tool, None)))
    }

    /// [`ToolIndex::sync`] for a catalog that mixes federated tools, each with its upstream
    /// server ([`ToolIndex::upsert_from`]), and local ones (`None`).
    pub fn sync_from_servers<'a, 's>(
        &mut self,
        tools: impl IntoIterator<Item = (&'a Tool, Option<Server<'s>>)>,
    ) -> SyncReport {
        self.sync_from(tools.into_iter())
    }

    /// Up to `limit` tools that match `query`, best first (equal scores by name). Tools with
    /// no term of the query are not returned, so fewer than `limit` (or none) may come back.
    ///
    /// # Errors
    ///
    /// [`Error::SearchQuery`] when the query is empty or whitespace, longer than
    /// [`MAX_QUERY_BYTES`], or has more than [`MAX_QUERY_TERMS`] distinct terms.
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit<'_>>, Error> {
        let query = Query::new(query).map_err(Error::SearchQuery)?;
        Ok(self.search_query(&query, limit))
    }

    /// [`ToolIndex::search`] with a query already checked.
    pub fn search_query(&self, query: &Query<'_>, limit: usize) -> Vec<SearchHit<'_>> {
        let mut hits: Vec<SearchHit<'_>> = self
            .ranker
            .rank(query, limit)
            .into_iter()
            .filter_map(|(key, score)| {
                self.entry(key).map(|entry| SearchHit {
                    tool: &entry.tool,
                    score,
                })
            })
            .collect();
        hits.sort_by(|a, b| {
            b.score
                .total_cmp(&a.score)
                .then_with(|| a.tool.name.cmp(&b.tool.name))
        });
        hits.truncate(limit);
        hits
    }

    fn entry(&self, key: u32) -> Option<&Entry> {
        self.entries.get(key as usize).and_then(Option::as_ref)
    }

    fn upsert_entry(&mut self, tool: &Tool, server: Option<&Server<'_>>) -> Change {
        let (key, change) = self.store(tool, server);
        if change != Change::Unchanged
            && let Some(entry) = self.entries.get(key as usize).and_then(Option::as_ref)
        {
            self.ranker.upsert(key, &entry.document());
        }
        change
    }

    /// Stores the tool under its key (a new one for a new name) and says whether the ranker
    /// must see it.
    fn store(&mut self, tool: &Tool, server: Option<&Server<'_>>) -> (u32, Change) {
        let server = server.map(|s| (s.name.to_owned(), s.description.map(str::to_owned)));
        let fingerprint = fingerprint(&Document {
            tool,
            server: server.as_ref().map(|(name, description)| Server {
                name,
                description: description.as_deref(),
            }),
        });
        let entry = Entry {
            tool: tool.clone(),
            server,
            fingerprint,
        };
        if let Some(&key) = self.by_name.get(&tool.name) {
            let slot = self.entries.get_mut(key as usize);
            let change = match slot {
                Some(Some(old)) if old.fingerprint == fingerprint => Change::Unchanged,
                _ => Change::Reindexed,
            };
            if let Some(slot) = self.entries.get_mut(key as usize) {
                *slot = Some(entry);
            }
            return (key, change);
        }
        let key = match self.free.pop() {
            Some(key) => {
                if let Some(slot) = self.entries.get_mut(key as usize) {
                    *slot = Some(entry);
                }
                key
            }
            None => {
                let key = u32::try_from(self.entries.len()).unwrap_or(u32::MAX);
                self.entries.push(Some(entry));
                key
            }
        };
        self.by_name.insert(tool.name.clone(), key);
        (key, Change::Added)
    }

    fn sync_from<'a, 's>(
        &mut self,
        tools: impl Iterator<Item = (&'a Tool, Option<Server<'s>>)>,
    ) -> SyncReport {
        let mut report = SyncReport::default();
        let mut seen: HashMap<&str, (), foldhash::fast::RandomState> = HashMap::default();
        let mut changed = Vec::new();
        for (tool, server) in tools {
            seen.insert(&tool.name, ());
            let (key, change) = self.store(tool, server.as_ref());
            match change {
                Change::Added => report.added += 1,
                Change::Reindexed => report.reindexed += 1,
                Change::Unchanged => report.unchanged += 1,
            }
            if change != Change::Unchanged {
                changed.push(key);
            }
        }
        let gone: Vec<String> = self
            .by_name
            .keys()
            .filter(|name| !seen.contains_key(name.as_str()))
            .cloned()
            .collect();
        for name in gone {
            self.remove(&name);
            report.removed += 1;
        }
        // A name given twice is stored twice under one key: index it once.
        changed.sort_unstable();
        changed.dedup();
        let documents: Vec<(u32, Document<'_>)> = changed
            .iter()
            .filter_map(|&key| {
                let entry = self.entries.get(key as usize).and_then(Option::as_ref)?;
                Some((key, entry.document()))
            })
            .collect();
        self.ranker.upsert_all(&documents);
        report
    }
}

/// A hash of every text a tool is searched by, with its field (SipHash with fixed keys:
/// equal texts hash equal in every process).
fn fingerprint(document: &Document<'_>) -> u64 {
    let mut hasher = DefaultHasher::new();
    document.texts(&mut |field, text| {
        field.hash(&mut hasher);
        text.hash(&mut hasher);
    });
    hasher.finish()
}
