//! [`Toolbox`]: the registry of local backends; lists tools and routes `tools/call` to their
//! handlers.

use std::{
    collections::HashMap,
    fmt,
    future::Future,
    sync::{Arc, OnceLock},
};

use serde_json::{Map, Value};

use crate::call::context::{CallContext, Called};
use crate::call::handler::ToolHandler;
use crate::call::list::{DEFAULT_PAGE_SIZE, ListCache, ToolsPage};
use crate::call::peer::BoxFuture;
use crate::call::pipeline::{Dynamic, Entry, ErasedHandler, Typed, invalid_arguments};
use crate::call::result::CallToolResult;
use crate::call::tool_error::ToolError;
use crate::error::Error;
use crate::model::backend::Backend;
use crate::model::id::ToolId;
use crate::model::name::nearest::nearest_tool;
use crate::model::protocol::version::ProtocolVersion;
use crate::model::tool::Tool;
use crate::search::{SearchHit, ToolIndex};
use crate::validate::validator::DefaultValidator;
use crate::wire::versioned::Loss;

/// A set of callable tools, each with its handler: what an MCP server serves.
///
/// Built once with [`Toolbox::builder`], then shared: `Clone` is a reference count, and it is
/// `Send + Sync`. It answers `tools/list` ([`list`](Self::list), paginated and served from a
/// cache built once per protocol version) and `tools/call` ([`call`](Self::call)):
///
/// 1. The tool is found by its MCP name; an unknown name is [`Error::UnknownTool`]
///    (JSON-RPC `-32602`, MCP 2025-11-25 "Error Handling").
/// 2. Absent `arguments` are `{}`. Arguments that fail the input schema, or that match it
///    but do not deserialize, give an `isError: true` result naming every violation with its
///    JSON Pointer ([`CallToolResult::invalid_arguments`]): input validation errors are tool
///    execution errors, so that the model can retry (MCP 2025-11-25, SEP-1303).
/// 3. The handler runs with a [`CallContext`] that knows the tool. When the tool has a
///    [`timeout`](Tool::timeout) and the context's peer gives a timer
///    ([`CallPeer::sleep`](crate::peer::CallPeer::sleep)), the call is raced against it: if the
///    timer fires first, the call's [`Cancellation`](crate::Cancellation) is set, the handler's
///    future is dropped, and the result is an `isError: true` result naming the tool and the
///    limit. Without a timer the timeout is not enforced here.
/// 4. Its reply becomes the result. For a tool with an `outputSchema`, a successful result
///    must carry a `structuredContent` that matches it, whether the tool is derived or
///    hand-built ([`ToolboxBuilder::with_tool`]); a missing or failing one is
///    [`Error::InvalidOutput`] (a server bug: never sent).
///
/// **MCP names.** MCP tool names cannot contain `:`, so a tool with a namespace is served as
/// `namespace.name` (`weather:get_weather` → `weather.get_weather`), which the name rules
/// allow; a tool without one keeps its name. Two tools with one MCP name, or a namespaced name
/// over 128 characters, refuse to build. [`call_id`](Self::call_id) routes by [`ToolId`]
/// instead. Each listed tool carries its backend bindings: a derived tool its
/// [`Backend::local`](crate::Backend::local) one, a hand-built tool its own, or a local one
/// when it had none.
///
/// **Order.** Tools are listed sorted by MCP name (bytewise), whatever the order they were
/// added in (MCP 2026-07-28 asks servers for a deterministic order).
///
/// ```
/// use serde::{Deserialize, Serialize};
/// use serde_json::json;
/// use toolmodel::{CallContext, ToolError, ToolHandler, Toolbox, schemars::{self, JsonSchema}};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct AddArgs { a: i64, b: i64 }
/// #[derive(Serialize, JsonSchema)]
/// struct Sum { sum: i64 }
///
/// /// Adds two integers.
/// #[derive(toolmodel::Tool)]
/// #[tool(namespace = "math", input = AddArgs, output = Sum)]
/// struct Add;
///
/// impl ToolHandler for Add {
///     type Reply = Sum;
///     async fn call(&self, args: AddArgs, _cx: &CallContext) -> Result<Sum, ToolError> {
///         Ok(Sum { sum: args.a + args.b })
///     }
/// }
///
/// let toolbox = Toolbox::builder().with(Add).build()?;
/// assert_eq!(toolbox.tools()[0].name, "math.add");
///
/// # pollster::block_on(async {
/// let cx = CallContext::new();
/// let args = json!({"a": 1, "b": 2}).as_object().cloned();
/// let result = toolbox.call("math.add", args, &cx).await?;
/// assert_eq!(result.structured_content, Some(json!({"sum": 3})));
///
/// let bad = json!({"a": "1"}).as_object().cloned();
/// let result = toolbox.call("math.add", bad, &cx).await?;
/// assert!(result.is_error());
/// assert_eq!(
///     result.text_content(),
///     "invalid arguments for tool \"math.add\": 2 violations\n\
///      (root): \"b\" is a required property (schema /required)\n\
///      /a: \"1\" is not of type \"integer\" (schema /properties/a/type)"
/// );
/// # Ok::<(), toolmodel::Error>(())
/// # })?;
/// # Ok::<(), toolmodel::Error>(())
/// ```
#[derive(Clone)]
pub struct Toolbox {
    inner: Arc<Inner>,
}

struct Inner {
    /// Sorted by MCP name.
    entries: Vec<Entry>,
    /// Per protocol version (by [`ProtocolVersion::index`]), the MCP JSON of each entry's
    /// tool written for it, in the same order: what `tools/list` sends. Built on first use.
    listed: [OnceLock<Result<Listing, Error>>; ProtocolVersion::ALL.len()],
    /// The caching hints of 2026-07-28 list results.
    cache: ListCache,
    /// The tools as listed, in the same order.
    tools: Vec<Tool>,
    by_name: HashMap<Arc<str>, usize, FastHash>,
    by_id: HashMap<ToolId, usize, FastHash>,
    page_size: usize,
    /// The search index of `tools`, built on the first [`Toolbox::search`].
    search: OnceLock<ToolIndex>,
}

/// The tools written for one version.
struct Listing {
    json: Vec<Value>,
    /// Each tool's losses, in the same order.
    losses: Vec<Vec<Loss>>,
}

impl fmt::Debug for Toolbox {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Toolbox")
            .field(
                "tools",
                &self
                    .inner
                    .entries
                    .iter()
                    .map(|entry| (&*entry.called.name, entry.type_name))
                    .collect::<Vec<_>>(),
            )
            .field("page_size", &self.inner.page_size)
            .finish()
    }
}

/// The lookups' hasher: names come from the toolbox's own tools, so a fast unkeyed-per-process
/// hash is enough (`foldhash`, as the validator's cache uses).
type FastHash = foldhash::fast::RandomState;

impl Toolbox {
    /// A builder with no tools and pages of [`DEFAULT_PAGE_SIZE`] tools.
    pub fn builder() -> ToolboxBuilder {
        ToolboxBuilder {
            pending: Vec::new(),
            problems: Vec::new(),
            required: Vec::new(),
            page_size: DEFAULT_PAGE_SIZE,
            cache: ListCache::DEFAULT,
        }
    }

    /// The tools as listed, sorted by MCP name: each tool's `name` is its MCP name (see the
    /// [type docs](Toolbox)) and its `namespace` is `None` (the MCP name holds it), the rest as
    /// its handler defines it. `call_id(&tools()[i].id()?, ..)` reaches every listed tool, as
    /// does the ID of its [definition](Self::definitions).
    #[must_use]
    pub fn tools(&self) -> &[Tool] {
        &self.inner.tools
    }

    /// The tools as their handlers define them (own `name` and `namespace`), in the order of
    /// [`tools`](Self::tools): what a provider format with namespaces of its own needs.
    pub fn definitions(&self) -> impl ExactSizeIterator<Item = &Tool> {
        self.inner.entries.iter().map(|entry| &*entry.called.tool)
    }

    /// The number of tools.
    #[must_use]
    pub fn len(&self) -> usize {
        self.inner.entries.len()
    }

    /// Whether the toolbox holds no tools.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.inner.entries.is_empty()
    }

    /// Up to `limit` of the toolbox's tools that match `query`, best first, each with its
    /// score ([`ToolIndex::search`] over [`tools`](Self::tools), ranked by
    /// [`Bm25`](crate::search::Bm25)). The index is built on the first call (about 15 ms per
    /// thousand tools) and kept for the toolbox's life.
    ///
    /// ```
    /// use toolmodel::{Tool, ToolSchema, Toolbox};
    ///
    /// let mut weather = Tool::new("get_weather", ToolSchema::empty_object());
    /// weather.description = Some("Current weather and forecast for a city".into());
    /// let toolbox = Toolbox::builder()
    ///     .with_tool(weather, |_args, _cx| async { Ok(toolmodel::CallToolResult::text("sunny")) })
    ///     .build()?;
    /// let hits = toolbox.search("forecast for Lyon", 3)?;
    /// assert_eq!(hits[0].tool.name, "get_weather");
    /// assert!(toolbox.search("  ", 3).is_err());
    /// # Ok::<(), toolmodel::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::SearchQuery`] when the query is empty or whitespace, or past the
    /// [limits](crate::search#limits).
    pub fn search(&self, query: &str, limit: usize) -> Result<Vec<SearchHit<'_>>, Error> {
        self.search_index().search(query, limit)
    }

    /// The search index of [`tools`](Self::tools), built on first use.
    pub fn search_index(&self) -> &ToolIndex {
        self.inner
            .search
            .get_or_init(|| ToolIndex::from_tools(&self.inner.tools))
    }

    /// The tool served under an MCP name.
    #[must_use]
    pub fn get(&self, name: &str) -> Option<&Tool> {
        self.inner
            .by_name
            .get(name)
            .and_then(|&index| self.inner.tools.get(index))
    }

    /// One page of `tools/list` for [`ProtocolVersion::LATEST`]:
    /// `list_for(ProtocolVersion::LATEST, cursor)`.
    ///
    /// # Errors
    ///
    /// As [`list_for`](Self::list_for).
    pub fn list(&self, cursor: Option<&str>) -> Result<ToolsPage<'_>, Error> {
        self.list_for(ProtocolVersion::LATEST, cursor)
    }

    /// One page of `tools/list` for a protocol version (MCP `ListToolsResult`, and
    /// "Pagination"): the first page for `None`, the next one for the `nextCursor` of the page
    /// before. Each tool is written by [`Tool::to_mcp_json_for`] once per version, on the first
    /// list for it, and kept; a page borrows it, with each tool's [`Loss`]es
    /// ([`ToolsPage::losses`]). For 2026-07-28 the page also carries `resultType`, `ttlMs` and
    /// `cacheScope` ([`ToolboxBuilder::with_list_cache`]; default [`ListCache::DEFAULT`]).
    ///
    /// Cursors are opaque to clients; here they are the decimal index of the page's first tool.
    /// A cursor stays valid for the life of the toolbox (its tools never change).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidCursor`] for a cursor this toolbox would not hand out (JSON-RPC
    /// `-32602`); [`Error::Unwritable`] when a tool cannot be written for `version` (an
    /// `outputSchema` that is not an object, for 2025-11-25 or older).
    pub fn list_for(
        &self,
        version: ProtocolVersion,
        cursor: Option<&str>,
    ) -> Result<ToolsPage<'_>, Error> {
        let listing = self.listing(version)?;
        let total = listing.json.len();
        let start = match cursor {
            None => 0,
            Some(text) => text
                .parse::<usize>()
                .ok()
                .filter(|&start| start > 0 && start < total && start % self.inner.page_size == 0)
                .ok_or_else(|| Error::InvalidCursor {
                    cursor: text.to_owned(),
                })?,
        };
        let end = start.saturating_add(self.inner.page_size).min(total);
        Ok(ToolsPage {
            tools: listing.json.get(start..end).unwrap_or_default(),
            losses: listing.losses.get(start..end).unwrap_or_default(),
            next_cursor: (end < total).then(|| end.to_string()),
            version,
            cache: self.inner.cache,
        })
    }

    /// The tools written for `version`, built once.
    fn listing(&self, version: ProtocolVersion) -> Result<&Listing, Error> {
        let Some(slot) = self.inner.listed.get(version.index()) else {
            return Err(Error::Unwritable {
                what: "tools/list".into(),
                version,
                pointer: "",
                reason: "unknown version",
            });
        };
        slot.get_or_init(|| {
            let mut listing = Listing {
                json: Vec::with_capacity(self.inner.tools.len()),
                losses: Vec::with_capacity(self.inner.tools.len()),
            };
            for tool in &self.inner.tools {
                let written = tool.to_mcp_json_for(version)?;
                listing.json.push(written.json);
                listing.losses.push(written.losses);
            }
            Ok(listing)
        })
        .as_ref()
        .map_err(Clone::clone)
    }

    /// Calls the tool served as `name` (MCP `tools/call`); see the [type docs](Toolbox) for
    /// the steps and what each failure gives.
    ///
    /// # Errors
    ///
    /// - [`Error::UnknownTool`]: no tool is served as `name`.
    /// - [`Error::InvalidOutput`]: the handler's typed output fails the `outputSchema`.
    /// - [`Error::Protocol`], [`Error::Cancelled`]: the handler returned
    ///   [`ToolError::Protocol`] or [`ToolError::Cancelled`].
    /// - What [`ToolDefinition::try_tool`](crate::ToolDefinition::try_tool) returns and [`Error::InvalidSchema`]: the tool's
    ///   types cannot make a valid tool (a bug in the program, found by the first call).
    ///
    /// The tool is looked up when `call` is called; the returned future runs it. (Written as
    /// `fn -> impl Future` rather than `async fn` so that the future is the handler's own,
    /// with no wrapper around it.)
    pub fn call<'a>(
        &'a self,
        name: &str,
        arguments: Option<Map<String, Value>>,
        cx: &'a CallContext,
    ) -> impl Future<Output = Result<CallToolResult, Error>> + Send + 'a {
        let index = self.inner.by_name.get(name).copied();
        self.call_entry(index, || self.unknown_name(name), arguments, cx)
    }

    /// Calls a tool by its [`ToolId`] (`namespace:name`), as [`call`](Self::call) does by MCP
    /// name.
    ///
    /// # Errors
    ///
    /// As [`call`](Self::call); [`Error::UnknownTool`] names the ID.
    pub fn call_id<'a>(
        &'a self,
        id: &ToolId,
        arguments: Option<Map<String, Value>>,
        cx: &'a CallContext,
    ) -> impl Future<Output = Result<CallToolResult, Error>> + Send + 'a {
        let index = self.inner.by_id.get(id).copied();
        self.call_entry(index, || self.unknown_id(id), arguments, cx)
    }

    /// Checks `arguments` against the `inputSchema` of the tool served as `name`, as
    /// [`call`](Self::call) does before the handler runs, with the schema compiled when the tool
    /// was added: `Ok(None)` when they pass, `Ok(Some(result))` when they do not, `result`
    /// being the `isError` result naming every violation that the call would answer. For a
    /// caller that sends the call on instead of running it here (a gateway forwarding it to
    /// the tool's server): bad arguments then never leave, and their feedback is the same
    /// (MCP 2025-11-25, "Error Handling" and SEP-1303: input validation errors are tool
    /// execution errors, reported in the result with `isError: true`).
    ///
    /// # Errors
    ///
    /// - [`Error::UnknownTool`]: no tool is served as `name`.
    /// - [`Error::InstanceTooDeep`], [`Error::PatternUndecided`]: as the call returns them.
    ///
    /// ```
    /// use serde::Deserialize;
    /// use serde_json::json;
    /// use toolmodel::{CallContext, ToolError, ToolHandler, Toolbox, schemars::{self, JsonSchema}};
    ///
    /// #[derive(Deserialize, JsonSchema)]
    /// struct AddArgs { a: i64, b: i64 }
    ///
    /// /// Adds two integers.
    /// #[derive(toolmodel::Tool)]
    /// #[tool(input = AddArgs)]
    /// struct Add;
    ///
    /// impl ToolHandler for Add {
    ///     type Reply = String;
    ///     async fn call(&self, args: AddArgs, _cx: &CallContext) -> Result<String, ToolError> {
    ///         Ok((args.a + args.b).to_string())
    ///     }
    /// }
    ///
    /// let toolbox = Toolbox::builder().with(Add).build()?;
    /// assert!(toolbox.check_arguments("add", &json!({"a": 1, "b": 2}))?.is_none());
    ///
    /// let refused = toolbox.check_arguments("add", &json!({"a": "1"}))?.expect("refused");
    /// assert!(refused.is_error());
    /// assert_eq!(
    ///     refused.text_content(),
    ///     "invalid arguments for tool \"add\": 2 violations\n\
    ///      (root): \"b\" is a required property (schema /required)\n\
    ///      /a: \"1\" is not of type \"integer\" (schema /properties/a/type)"
    /// );
    /// assert!(toolbox.check_arguments("sub", &json!({})).is_err());
    /// # Ok::<(), toolmodel::Error>(())
    /// ```
    pub fn check_arguments(
        &self,
        name: &str,
        arguments: &Value,
    ) -> Result<Option<CallToolResult>, Error> {
        let entry = self
            .inner
            .by_name
            .get(name)
            .and_then(|&index| self.inner.entries.get(index))
            .ok_or_else(|| self.unknown_name(name))?;
        match entry.handler.input_schema().validate(arguments) {
            Ok(()) => Ok(None),
            Err(err) => invalid_arguments(&entry.called.name, err).map(Some),
        }
    }

    /// [`Error::UnknownTool`] for an MCP name no tool is served as, with the closest served
    /// name.
    fn unknown_name(&self, name: &str) -> Error {
        let names = self.inner.entries.iter().map(|entry| &*entry.called.name);
        Error::UnknownTool {
            name: name.to_owned(),
            nearest: nearest_tool(name, names).map(str::to_owned),
        }
    }

    /// [`Error::UnknownTool`] for an ID no tool has, with the closest served ID.
    fn unknown_id(&self, id: &ToolId) -> Error {
        let requested = id.to_string();
        // Sorted, so that a tie goes to the same ID on every call.
        let mut ids: Vec<String> = self.inner.by_id.keys().map(ToString::to_string).collect();
        ids.sort_unstable();
        let nearest = nearest_tool(&requested, ids.iter().map(String::as_str)).map(str::to_owned);
        Error::UnknownTool {
            name: requested,
            nearest,
        }
    }

    /// The call of the entry at `index`, or a future of the `unknown` error.
    fn call_entry<'a>(
        &'a self,
        index: Option<usize>,
        unknown: impl FnOnce() -> Error,
        arguments: Option<Map<String, Value>>,
        cx: &'a CallContext,
    ) -> BoxFuture<'a, Result<CallToolResult, Error>> {
        let Some(entry) = index.and_then(|index| self.inner.entries.get(index)) else {
            return Box::pin(std::future::ready(Err(unknown())));
        };
        let call = entry
            .handler
            .call(entry, Value::Object(arguments.unwrap_or_default()), cx);
        let limit = entry.called.tool.timeout;
        match limit.and_then(|limit| Some((limit, cx.sleep(limit)?))) {
            Some((limit, timer)) => Box::pin(crate::call::timeout::within(
                call,
                timer,
                limit,
                &entry.called.name,
                cx.cancellation(),
            )),
            None => call,
        }
    }
}

/// Builds a [`Toolbox`]; see [`Toolbox::builder`]. Problems are collected and all reported by
/// [`build`](Self::build).
#[must_use]
pub struct ToolboxBuilder {
    pending: Vec<Pending>,
    problems: Vec<Error>,
    required: Vec<(&'static str, Error)>,
    page_size: usize,
    cache: ListCache,
}

impl fmt::Debug for ToolboxBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToolboxBuilder")
            .field(
                "tools",
                &self
                    .pending
                    .iter()
                    .map(|pending| pending.type_name)
                    .collect::<Vec<_>>(),
            )
            .field("page_size", &self.page_size)
            .field("cache", &self.cache)
            .finish_non_exhaustive()
    }
}

struct Pending {
    tool: Arc<Tool>,
    /// The MCP name it is served as, when not [`mcp_name`]'s.
    served_as: Option<String>,
    type_name: &'static str,
    handler: Box<dyn ErasedHandler>,
}

impl ToolboxBuilder {
    /// Adds a handler. Its tool and its compiled input and output schemas are built here,
    /// once per program ([`ToolDefinition::try_tool`](crate::ToolDefinition::try_tool) and the
    /// validators [`ToolDefinition::parse`](crate::ToolDefinition::parse) uses), so no call
    /// compiles anything; [`build`](Self::build) reports [`Error::ToolType`], or
    /// [`Error::InvalidSchema`] for a schema that does not compile (say, an invalid
    /// `#[schemars(regex)]`).
    ///
    /// For a tool that is its own arguments struct, the handler value is usually
    /// `T::default()`: `call` gets the parsed arguments as `input`; `self` is only the handler.
    pub fn with<H: ToolHandler>(self, handler: H) -> Self {
        // The tool and both compiled schemas are the ones `ToolDefinition` keeps for the type
        // (built once per program); compiling them here keeps it off the first call, and a
        // schema that does not compile is a build problem instead of a failing call. Only the
        // boxing is generic; the rest is shared by every tool.
        match H::__definition().compiled(H::__input_schema, H::__output_schema) {
            Ok(compiled) => self.push_typed(
                compiled.tool,
                std::any::type_name::<H>(),
                Box::new(Typed {
                    handler,
                    input: compiled.input,
                    output: compiled.output,
                }),
            ),
            Err(err) => self.problem(err),
        }
    }

    /// Adds the handler of a derived tool, `tool` as its definition built it.
    fn push_typed(
        mut self,
        tool: &'static Tool,
        type_name: &'static str,
        handler: Box<dyn ErasedHandler>,
    ) -> Self {
        self.pending.push(Pending {
            tool: Arc::new(tool.clone()),
            served_as: None,
            type_name,
            handler,
        });
        self
    }

    /// Records a problem that [`build`](Self::build) reports.
    pub(crate) fn problem(mut self, problem: Error) -> Self {
        self.problems.push(problem);
        self
    }

    /// Records that a handler of the Rust type `type_name` must be added, or `build` reports
    /// `problem`.
    #[cfg_attr(not(feature = "inventory"), allow(dead_code))]
    pub(crate) fn require(mut self, type_name: &'static str, problem: Error) -> Self {
        self.required.push((type_name, problem));
        self
    }

    /// Adds a hand-built tool served by a function: for tools whose schema is written by hand
    /// or read from elsewhere (a gateway's upstream tools, a schema kept exactly as written).
    ///
    /// A tool with no backend binding gets a [`Backend::local`] one, named by its ID; a tool
    /// bound elsewhere (a gateway's [`Backend::Mcp`] upstream, say) keeps exactly its bindings.
    /// `handler` gets the arguments (validated against `tool.inputSchema`, `{}` when absent)
    /// and the call's context, and returns the whole result. The output rule is the one derived
    /// tools follow (MCP 2025-11-25, "Output Schema": servers MUST provide structured results
    /// that conform to it): when `tool.outputSchema` is set, a successful result must carry a
    /// `structuredContent` that matches it, and one without, or with one that does not match,
    /// is [`Error::InvalidOutput`] (never sent). `isError` results are not checked. The
    /// schemas are compiled here, once.
    ///
    /// Problems ([`build`](Self::build) reports them): the tool breaks an MCP rule
    /// ([`Error::InvalidTool`]), a schema does not compile ([`Error::InvalidSchema`],
    /// [`Error::UnsupportedSchema`], [`Error::ExternalRef`], ...).
    pub fn with_tool<F, Fut>(self, tool: Tool, handler: F) -> Self
    where
        F: Fn(Map<String, Value>, CallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, ToolError>> + Send + 'static,
    {
        self.push_tool(None, tool, handler)
    }

    /// [`with_tool`](Self::with_tool), served under the MCP name `name` instead of
    /// `namespace.name`: for a gateway whose flat names follow a policy of its own (an upstream
    /// tool keeps its `namespace`, so [`Toolbox::call_id`] still routes `namespace:name`, and
    /// `tools/list` shows `name`). [`build`](Self::build) checks `name` as it checks every
    /// MCP name ([`Error::InvalidName`], [`Error::DuplicateTool`]).
    ///
    /// ```
    /// use serde_json::json;
    /// use toolmodel::{Backend, CallContext, CallToolResult, Tool, Toolbox};
    ///
    /// let mut tool = Tool::from_mcp_json(&json!({"name": "echo", "inputSchema": {"type": "object"}}))?;
    /// tool.namespace = Some("everything".into());
    /// tool.backends = vec![Backend::mcp("everything")];
    /// let toolbox = Toolbox::builder()
    ///     .with_tool_as("everything__echo", tool, |_, _| async { Ok(CallToolResult::text("hi")) })
    ///     .build()?;
    /// assert_eq!(toolbox.tools()[0].name, "everything__echo");
    /// # pollster::block_on(async {
    /// let cx = CallContext::new();
    /// let by_id = toolbox.call_id(&"everything:echo".parse()?, None, &cx).await?;
    /// assert_eq!(by_id.text_content(), "hi");
    /// # Ok::<(), toolmodel::Error>(())
    /// # })?;
    /// # Ok::<(), toolmodel::Error>(())
    /// ```
    pub fn with_tool_as<F, Fut>(self, name: impl Into<String>, tool: Tool, handler: F) -> Self
    where
        F: Fn(Map<String, Value>, CallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, ToolError>> + Send + 'static,
    {
        self.push_tool(Some(name.into()), tool, handler)
    }

    /// Adds a hand-built tool (see [`with_tool`](Self::with_tool)), served as `served_as` when
    /// given.
    fn push_tool<F, Fut>(mut self, served_as: Option<String>, mut tool: Tool, handler: F) -> Self
    where
        F: Fn(Map<String, Value>, CallContext) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<CallToolResult, ToolError>> + Send + 'static,
    {
        if tool.backends.is_empty() {
            let binding = tool
                .id()
                .map_or_else(|_| tool.name.clone(), |id| id.to_string());
            tool.backends.push(Backend::local(binding));
        }
        let validator = DefaultValidator::new();
        let compiled = tool.validate().and_then(|()| {
            let input = validator.compile(tool.input_schema.as_value())?;
            let output = tool
                .output_schema
                .as_ref()
                .map(|schema| validator.compile(schema.as_value()))
                .transpose()?;
            Ok((input, output))
        });
        match compiled {
            Ok((input, output)) => self.pending.push(Pending {
                tool: Arc::new(tool),
                served_as,
                type_name: std::any::type_name::<F>(),
                handler: Box::new(Dynamic {
                    input,
                    output,
                    handler,
                }),
            }),
            Err(err) => self.problems.push(err),
        }
        self
    }

    /// The number of tools a `tools/list` page holds (at least 1; default
    /// [`DEFAULT_PAGE_SIZE`]).
    pub fn with_page_size(mut self, size: usize) -> Self {
        self.page_size = size.max(1);
        self
    }

    /// The caching hints of `tools/list` results for MCP 2026-07-28 (`ttlMs`, `cacheScope`);
    /// default [`ListCache::DEFAULT`] (`0`, `"private"`), see [`ListCache`] for why.
    pub fn with_list_cache(mut self, cache: ListCache) -> Self {
        self.cache = cache;
        self
    }

    /// Builds the toolbox: sorts the tools by MCP name and builds each one's listed form and
    /// MCP JSON once.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidToolbox`] with every problem found: [`Error::DuplicateTool`] naming
    /// both Rust types, [`Error::InvalidName`] for a `namespace.name` over 128 characters,
    /// [`Error::ToolType`] for a handler whose types cannot make a tool, and, from
    /// `with_registered` (feature `inventory`), [`Error::Unservable`] for a registered type
    /// that is not a handler, or has fields and no `Default`.
    pub fn build(self) -> Result<Toolbox, Error> {
        let Self {
            mut pending,
            mut problems,
            required,
            page_size,
            cache,
        } = self;
        for (type_name, problem) in required {
            if !pending.iter().any(|item| item.type_name == type_name) {
                problems.push(problem);
            }
        }
        let mut named: Vec<(Arc<str>, Pending)> = Vec::with_capacity(pending.len());
        for item in pending.drain(..) {
            let name = item
                .served_as
                .clone()
                .unwrap_or_else(|| mcp_name(&item.tool));
            if let Err(err) = crate::model::name::check_name(&name) {
                problems.push(err);
                continue;
            }
            named.push((Arc::from(name), item));
        }
        named.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.type_name.cmp(b.1.type_name)));
        for pair in named.windows(2) {
            if let [(first_name, first), (second_name, second)] = pair
                && first_name == second_name
            {
                problems.push(Error::DuplicateTool {
                    name: first_name.to_string(),
                    first: first.type_name,
                    second: second.type_name,
                });
            }
        }
        if !problems.is_empty() {
            return Err(Error::InvalidToolbox { problems });
        }
        let mut inner = Inner {
            entries: Vec::with_capacity(named.len()),
            listed: Default::default(),
            cache,
            tools: Vec::with_capacity(named.len()),
            by_name: HashMap::with_capacity_and_hasher(named.len(), FastHash::default()),
            by_id: HashMap::with_capacity_and_hasher(named.len(), FastHash::default()),
            page_size,
            search: OnceLock::new(),
        };
        for (index, (name, item)) in named.into_iter().enumerate() {
            let mut listed = Tool::clone(&item.tool);
            // Listed as served: the MCP name, which already holds the namespace, so that
            // `listed.id()` is the MCP name and routes with `call_id` too.
            listed.name = name.to_string();
            listed.namespace = None;
            if let Ok(id) = listed.id() {
                inner.by_id.insert(id, index);
            }
            inner.tools.push(listed);
            inner.by_name.insert(Arc::clone(&name), index);
            if let Ok(id) = item.tool.id() {
                inner.by_id.insert(id, index);
            }
            inner.entries.push(Entry {
                called: Arc::new(Called {
                    tool: item.tool,
                    name,
                }),
                type_name: item.type_name,
                handler: item.handler,
            });
        }
        Ok(Toolbox {
            inner: Arc::new(inner),
        })
    }
}

/// The MCP name a tool is served under: `namespace.name`, or the name.
fn mcp_name(tool: &Tool) -> String {
    match &tool.namespace {
        Some(namespace) => format!("{namespace}.{}", tool.name),
        None => tool.name.clone(),
    }
}
