//! Progressive disclosure ([`ToolSearch`]): a catalog served as two tools, `search_tools` and
//! `call_tool`, the way FastMCP's `BM25SearchTransform` serves it; and [`ServedSearch`], the
//! search index every clone of a server shares, kept in step with the toolbox it serves.
//!
//! The index is `toolmodel`'s [`ToolIndex`] (BM25 over each tool's name, title, description,
//! parameters, namespace, tags and category). When the toolbox is replaced
//! (`ToolboxServer::set_toolbox`, a gateway's rebuilt toolbox) only the tools whose searched
//! texts changed are indexed again, in one batch, and those that left are removed, before the
//! new toolbox is served: a tool added is found by the next `search_tools`.
//!
//! What the server does with a request is in `disclosure.rs`.

pub(crate) mod synthetic;

use std::{
    collections::{BTreeMap, BTreeSet},
    sync::{Arc, RwLock},
};

use toolmodel::{
    Backend, Tool, Toolbox,
    search::{Query, Server, SyncReport, ToolIndex},
};

use super::tool_list::ServedTools;
use crate::lock::{read, write};

pub use synthetic::{CALL_TOOL, SEARCH_TOOLS};

/// How many tools `search_tools` returns at most unless set
/// ([`ToolSearch::with_max_results`]): FastMCP's default.
pub const DEFAULT_MAX_RESULTS: usize = 5;

/// Progressive disclosure of a large catalog: a [`ToolboxServer`](crate::ToolboxServer) with
/// it ([`with_tool_search`](crate::ToolboxServer::with_tool_search)) lists two tools instead
/// of its whole toolbox, `search_tools` (a query → the definitions of the tools that match it
/// best) and `call_tool` (a tool's name and arguments → its call), with the
/// [always visible](Self::with_always_visible) tools beside them, once the toolbox holds
/// more than [`threshold`](Self::with_threshold) tools. Names, input schemas and results are
/// those of FastMCP's `BM25SearchTransform`, so that clients written for it work unchanged.
///
/// - `search_tools` takes `{"query": string}` and answers `structuredContent`
///   `{"result": [tool, ...]}`, best first, at most [`max_results`](Self::with_max_results),
///   each tool as `tools/list` writes it for the request's protocol version (a tool that
///   version cannot express is left out), and the same array as JSON in one text block. The
///   always visible tools are not searched (they are listed already), nor are the tools the
///   caller cannot call (with [authorization](crate::ToolboxServer::with_authorization): a
///   tool whose [`required_scopes`](toolmodel::Tool::required_scopes) the caller's token does
///   not grant). An empty query, or one too long, is an `isError` result saying why.
/// - `call_tool` takes `{"name": string, "arguments": object | null}` and is the call of that
///   tool, as a `tools/call` of it would be: arguments validated against its `inputSchema`
///   (every violation named in an `isError` result), run as a task or by input rounds as the
///   tool and the request say, a gateway's upstream tool passed on; its result is that
///   call's. A name the caller cannot call (unknown, or hidden by its scopes) is an `isError`
///   result `Unknown tool: '<name>'`; so is `search_tools` or `call_tool` itself.
/// - The tools not listed are still called by their own name with `tools/call`, as before.
///   While disclosure is on, a tool of the toolbox named `search_tools` or `call_tool` is
///   neither listed nor called: the two names are the server's.
///
/// The disclosed list is one page, the same for every caller, with the default caching hints
/// of MCP 2026-07-28 (`ttlMs: 0`, `cacheScope: "private"`).
///
/// ```
/// use toolmodel_rmcp::server::ToolSearch;
///
/// let search = ToolSearch::new().with_threshold(40).with_always_visible(["get_time"]);
/// assert!(!search.is_on_for(40));
/// assert!(search.is_on_for(41));
/// assert_eq!(search.max_results(), 5);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ToolSearch {
    threshold: usize,
    always_visible: BTreeSet<String>,
    max_results: usize,
}

impl Default for ToolSearch {
    fn default() -> Self {
        Self::new()
    }
}

impl ToolSearch {
    /// Disclosure for any catalog of at least one tool, nothing always visible, at most
    /// [`DEFAULT_MAX_RESULTS`] tools per search.
    #[must_use]
    pub fn new() -> Self {
        Self {
            threshold: 0,
            always_visible: BTreeSet::new(),
            max_results: DEFAULT_MAX_RESULTS,
        }
    }

    /// Disclosure only while the toolbox holds more than `tools` tools; at or below it the
    /// server lists its whole toolbox, and `search_tools` and `call_tool` are not its tools.
    #[must_use]
    pub fn with_threshold(mut self, tools: usize) -> Self {
        self.threshold = tools;
        self
    }

    /// Tools listed beside `search_tools` and `call_tool`, by the names the toolbox serves
    /// them as (added to those given before; a name the toolbox does not serve is skipped).
    #[must_use]
    pub fn with_always_visible(
        mut self,
        names: impl IntoIterator<Item = impl Into<String>>,
    ) -> Self {
        self.always_visible
            .extend(names.into_iter().map(Into::into));
        self
    }

    /// At most `max` tools per search (0 is read as 1).
    #[must_use]
    pub fn with_max_results(mut self, max: usize) -> Self {
        self.max_results = max.max(1);
        self
    }

    /// The threshold: disclosure above this many tools.
    #[must_use]
    pub fn threshold(&self) -> usize {
        self.threshold
    }

    /// The tools listed beside the two, by name, sorted.
    pub fn always_visible(&self) -> impl ExactSizeIterator<Item = &str> {
        self.always_visible.iter().map(String::as_str)
    }

    /// The most tools a search returns.
    #[must_use]
    pub fn max_results(&self) -> usize {
        self.max_results
    }

    /// Whether a toolbox of `tools` tools is disclosed by search (more than the threshold).
    #[must_use]
    pub fn is_on_for(&self, tools: usize) -> bool {
        tools > self.threshold
    }

    /// Whether `name` is listed beside the two.
    pub(crate) fn is_always_visible(&self, name: &str) -> bool {
        self.always_visible.contains(name)
    }
}

/// What an upstream server says of itself (its `serverInfo` `title` and `description`), by
/// its name.
pub(crate) type Describe = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// What a disclosed toolbox is listed as: its always visible tools, `search_tools` and
/// `call_tool`, by name (built when the toolbox is served, with it).
#[derive(Debug)]
pub(crate) struct Disclosed {
    pub(crate) listing: Toolbox,
}

/// The search of a server, shared by every clone and session: off until
/// [`enable`](Self::enable)d.
#[derive(Clone, Default)]
pub(crate) struct ServedSearch(Arc<RwLock<Shared>>);

impl std::fmt::Debug for ServedSearch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let shared = read(&self.0);
        f.debug_struct("ServedSearch")
            .field("config", &shared.on.as_ref().map(|on| &on.config))
            .field("indexed", &shared.on.as_ref().map(|on| on.index.len()))
            .finish_non_exhaustive()
    }
}

#[derive(Default)]
struct Shared {
    on: Option<Searching>,
    /// The upstreams' descriptions (a gateway's), once installed.
    describe: Option<Describe>,
}

/// A search that is on.
struct Searching {
    config: Arc<ToolSearch>,
    /// `search_tools` and `call_tool`, whose arguments it checks.
    synthetic: Toolbox,
    index: ToolIndex,
}

/// The search as a request sees it: its settings and the toolbox that checks the arguments
/// of `search_tools` and `call_tool`.
pub(crate) struct SearchSettings {
    pub(crate) config: Arc<ToolSearch>,
    pub(crate) synthetic: Toolbox,
}

/// The MCP server a tool is imported from (its [`Backend::Mcp`]), if it is.
fn upstream_of(tool: &Tool) -> Option<&str> {
    tool.backends.iter().find_map(|backend| match backend {
        Backend::Mcp(mcp) => Some(mcp.server_name.as_str()),
        _ => None,
    })
}

impl Searching {
    /// Makes the index hold exactly the tools of `toolbox`, in one batch
    /// ([`ToolIndex::sync_from_servers`]): the tools whose searched texts changed are indexed
    /// again (a gateway's tool with its upstream's name and what the upstream says of itself,
    /// asked once per upstream), the others left alone, those gone removed. Says what it did.
    fn sync(&mut self, toolbox: &Toolbox, describe: Option<&Describe>) -> SyncReport {
        let mut said: BTreeMap<&str, Option<String>> = BTreeMap::new();
        for server in toolbox.tools().iter().filter_map(upstream_of) {
            said.entry(server)
                .or_insert_with(|| describe.and_then(|describe| describe(server)));
        }
        self.index
            .sync_from_servers(toolbox.tools().iter().map(|tool| {
                let server = upstream_of(tool).map(|name| Server {
                    name,
                    description: said.get(name).and_then(Option::as_deref),
                });
                (tool, server)
            }))
    }

    /// What `toolbox` is listed as while it is disclosed; `None` at or below the threshold.
    fn disclose(&self, toolbox: &Toolbox) -> Option<Arc<Disclosed>> {
        if !self.config.is_on_for(toolbox.len()) {
            return None;
        }
        let visible = self
            .config
            .always_visible
            .iter()
            .filter(|name| !synthetic::is_synthetic(name))
            .filter_map(|name| toolbox.get(name));
        match synthetic::listing(visible.chain(self.synthetic.tools())) {
            Ok(listing) => Some(Arc::new(Disclosed { listing })),
            Err(err) => {
                // The tools come from a toolbox that built: not seen in practice.
                eprintln!("warning: tool search: the whole toolbox is listed: {err}");
                None
            }
        }
    }
}

impl ServedSearch {
    /// Turns the search on with `config` (replacing settings given before), indexes the
    /// toolbox `tools` serves and serves it disclosed (when above the threshold).
    pub(crate) fn enable(&self, config: ToolSearch, tools: &ServedTools) {
        let synthetic = match synthetic::tools().and_then(|tools| synthetic::listing(&tools)) {
            Ok(synthetic) => synthetic,
            Err(err) => {
                eprintln!("warning: tool search is off: {err}");
                return;
            }
        };
        let mut shared = write(&self.0);
        let mut on = Searching {
            config: Arc::new(config),
            synthetic,
            index: ToolIndex::new(),
        };
        let toolbox = tools.current().toolbox.clone();
        let _report = on.sync(&toolbox, shared.describe.as_ref());
        tools.replace(toolbox.clone(), on.disclose(&toolbox));
        shared.on = Some(on);
    }

    /// Serves `toolbox` from now on in `tools`, indexed first (disclosed when the search is
    /// on and the toolbox above its threshold).
    pub(crate) fn replace(&self, tools: &ServedTools, toolbox: Toolbox) {
        let mut shared = write(&self.0);
        let Shared { on, describe } = &mut *shared;
        match on {
            Some(on) => {
                let _report = on.sync(&toolbox, describe.as_ref());
                let disclosed = on.disclose(&toolbox);
                tools.replace(toolbox, disclosed);
            }
            None => tools.replace(toolbox, None),
        }
    }

    /// Where the descriptions of a gateway's upstreams come from.
    #[cfg(feature = "federation")]
    pub(crate) fn describe_with(&self, describe: Describe) {
        write(&self.0).describe = Some(describe);
    }

    /// The search's settings, while it is on.
    pub(crate) fn settings(&self) -> Option<SearchSettings> {
        read(&self.0).on.as_ref().map(|on| SearchSettings {
            config: Arc::clone(&on.config),
            synthetic: on.synthetic.clone(),
        })
    }

    /// The names of the tools that match `query` best, best first: at most the configured
    /// number, among those `keep` keeps (the index is asked again for more hits while `keep`
    /// drops too many of them).
    ///
    /// # Errors
    ///
    /// Why the index refused `query` (empty, too long), as a sentence.
    pub(crate) fn find(
        &self,
        query: &str,
        keep: impl Fn(&str) -> bool,
    ) -> Result<Vec<String>, String> {
        let shared = read(&self.0);
        let Some(on) = &shared.on else {
            return Ok(Vec::new());
        };
        let wanted = on.config.max_results;
        let mut limit = wanted.saturating_add(on.config.always_visible.len());
        // Checked and cut into terms once, however many rounds the hidden tools cost.
        let query = Query::new(query).map_err(|err| err.to_string())?;
        loop {
            let hits = on.index.search_query(&query, limit);
            let found: Vec<String> = hits
                .iter()
                .map(|hit| hit.tool.name.as_str())
                .filter(|name| keep(name))
                .take(wanted)
                .map(str::to_owned)
                .collect();
            if found.len() >= wanted || hits.len() < limit || limit >= on.index.len() {
                return Ok(found);
            }
            limit = limit.saturating_mul(2);
        }
    }
}

#[cfg(test)]
mod tests {
    use toolmodel::{CallToolResult, ToolSchema};

    use super::*;

    /// A toolbox of `(name, description)` tools; `mcp` ones imported from the server "notes".
    fn toolbox(tools: &[(&str, &str)], mcp: bool) -> Toolbox {
        let mut builder = Toolbox::builder();
        for (name, description) in tools {
            let mut tool = Tool::new(*name, ToolSchema::empty_object());
            tool.description = Some((*description).to_owned());
            if mcp {
                tool.backends = vec![Backend::mcp("notes")];
            }
            builder = builder.with_tool(tool, |_, _| async { Ok(CallToolResult::text("ok")) });
        }
        builder.build().unwrap()
    }

    fn searching(config: ToolSearch) -> Searching {
        let tools = synthetic::tools().unwrap();
        Searching {
            config: Arc::new(config),
            synthetic: synthetic::listing(&tools).unwrap(),
            index: ToolIndex::new(),
        }
    }

    fn names(on: &Searching, query: &str) -> Vec<String> {
        let hits = on.index.search(query, 10).unwrap();
        hits.iter().map(|hit| hit.tool.name.clone()).collect()
    }

    #[test]
    fn a_sync_gives_the_index_only_the_tools_that_changed() {
        let mut on = searching(ToolSearch::new());
        let first = toolbox(&[("a", "alpha"), ("b", "beta"), ("c", "gamma")], false);
        let report = on.sync(&first, None);
        assert_eq!(
            (report.added, report.reindexed, report.unchanged),
            (3, 0, 0)
        );

        let second = toolbox(&[("a", "alpha"), ("b", "bravo"), ("d", "delta")], false);
        let report = on.sync(&second, None);
        assert_eq!(
            (
                report.added,
                report.reindexed,
                report.unchanged,
                report.removed
            ),
            (1, 1, 1, 1)
        );
        assert_eq!(names(&on, "bravo"), ["b"]);
        assert!(names(&on, "beta").is_empty());
        assert!(names(&on, "gamma").is_empty());
        assert_eq!(names(&on, "delta"), ["d"]);
    }

    #[test]
    fn an_imported_tool_is_found_by_what_its_server_says_of_itself() {
        let mut on = searching(ToolSearch::new());
        let describe: Describe =
            Arc::new(|server: &str| (server == "notes").then(|| "Jotter Server".to_owned()));
        let report = on.sync(
            &toolbox(&[("archive", "Archive old ones.")], true),
            Some(&describe),
        );
        assert_eq!(report.added, 1);
        assert_eq!(names(&on, "jotter"), ["archive"]);
        assert_eq!(names(&on, "notes"), ["archive"]);
        // The upstream says something else of itself (a new session): indexed again.
        let describe: Describe = Arc::new(|_: &str| Some("Scribble Server".to_owned()));
        let report = on.sync(
            &toolbox(&[("archive", "Archive old ones.")], true),
            Some(&describe),
        );
        assert_eq!((report.reindexed, report.unchanged), (1, 0));
        assert_eq!(names(&on, "scribble"), ["archive"]);
        assert!(names(&on, "jotter").is_empty());
    }

    #[test]
    fn a_toolbox_above_the_threshold_is_listed_as_the_two_and_the_always_visible() {
        let on = searching(ToolSearch::new().with_threshold(2).with_always_visible([
            "b",
            "missing",
            "search_tools",
        ]));
        let three = toolbox(&[("a", "x"), ("b", "y"), ("c", "z")], false);
        let listing = &on.disclose(&three).expect("disclosed").listing;
        let listed: Vec<&str> = listing
            .tools()
            .iter()
            .map(|tool| tool.name.as_str())
            .collect();
        assert_eq!(listed, ["b", "call_tool", "search_tools"]);
        assert!(
            on.disclose(&toolbox(&[("a", "x"), ("b", "y")], false))
                .is_none()
        );
        assert_eq!(ToolSearch::new().with_max_results(0).max_results(), 1);
    }
}
