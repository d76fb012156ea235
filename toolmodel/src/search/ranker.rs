//! The seam a ranker plugs into: BM25 by default, an embedding model or a hybrid in its place.

use super::document::Document;
use super::query::Query;

/// Ranks the tools of a [`ToolIndex`](super::ToolIndex) against a query.
///
/// The index owns the tools and hands the ranker each one's texts ([`Document::texts`]) under
/// a key (`u32`) it chose; the ranker keeps what it needs to score them. Every method is called
/// with `&mut self` or `&self` from one thread at a time per index, and never re-entered.
///
/// ```
/// use toolmodel::search::{Document, Query, Ranker, ToolIndex};
/// use toolmodel::{Tool, ToolSchema};
///
/// /// Finds tools whose name contains the query, as is.
/// #[derive(Default)]
/// struct NameContains(Vec<(u32, String)>);
///
/// impl Ranker for NameContains {
///     fn upsert(&mut self, key: u32, document: &Document<'_>) {
///         self.remove(key);
///         self.0.push((key, document.tool.name.clone()));
///     }
///     fn remove(&mut self, key: u32) {
///         self.0.retain(|(k, _)| *k != key);
///     }
///     fn rank(&self, query: &Query<'_>, limit: usize) -> Vec<(u32, f32)> {
///         let needle = query.text().trim();
///         // Every match scores 1.0: all are tied, so all are returned.
///         self.0.iter().filter(|(_, name)| name.contains(needle)).map(|(k, _)| (*k, 1.0)).collect()
///     }
/// }
///
/// let mut index = ToolIndex::with_ranker(NameContains::default());
/// index.upsert(&Tool::new("get_weather", ToolSchema::empty_object()));
/// let hits = index.search("weather", 5)?;
/// assert_eq!(hits[0].tool.name, "get_weather");
/// # Ok::<(), toolmodel::Error>(())
/// ```
pub trait Ranker: Send + Sync {
    /// Adds the tool `document` under `key`, or replaces what `key` held.
    fn upsert(&mut self, key: u32, document: &Document<'_>);

    /// Adds or replaces many tools at once (building an index, syncing a changed catalog).
    /// The default calls [`Ranker::upsert`] for each; a ranker whose scores depend on the
    /// whole collection (BM25's average lengths) measures the batch first.
    fn upsert_all(&mut self, documents: &[(u32, Document<'_>)]) {
        for (key, document) in documents {
            self.upsert(*key, document);
        }
    }

    /// Forgets `key` (nothing when it is not held).
    fn remove(&mut self, key: u32);

    /// The keys of the best `limit` tools that match `query`, each with its score (higher is
    /// better; only the order is compared), and of any tool whose score equals the last of
    /// those: the index orders equal scores by name and cuts at `limit` itself. Tools that do
    /// not match at all are left out. The order of the list does not matter.
    fn rank(&self, query: &Query<'_>, limit: usize) -> Vec<(u32, f32)>;
}
