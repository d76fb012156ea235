//! [`ModelTools`]: a [`Toolbox`]'s tools in one provider's format, with the names to route
//! the model's calls back.

use std::{borrow::Cow, collections::HashMap, fmt};

use serde_json::{Map, Value};

use super::json_shape::object;
use super::model_call::CallKind;
use super::provider::Provider;
use super::run::ToolOutcome;
use super::tool_search::{self, CALL_TOOL, Role, SEARCH_TOOLS, ToolSearch};
use crate::adapters::{Action, ConvertOptions, Target, Warning, convert_all};
use crate::call::toolbox::Toolbox;
use crate::error::Error;
use crate::model::name::nearest::nearest_tool;
use crate::model::tool::Tool;

/// How to list tools for a provider ([`ModelTools::new`]). Build with
/// [`ToolListOptions::default`] and the `with_*` methods.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolListOptions {
    /// The adapters' options (strict mode, Gemini's JSON Schema form, ...).
    /// [`ConvertOptions::qualified_names`] is ignored: a function is named as the toolbox
    /// serves its tool (the MCP name a client of the toolbox sees), inside its `namespace`
    /// tool on OpenAI Responses.
    ///
    /// Default: [`ConvertOptions::default`], as for the adapters: Gemini gets `parameters`,
    /// the OpenAPI subset every Gemini model takes, valid for Google's published definition
    /// (a `type` in every schema, counts as int64 strings; see
    /// [`adapters`](crate::adapters)). Set
    /// [`gemini_json_schema`](ConvertOptions::gemini_json_schema) for `parametersJsonSchema`,
    /// the schema as JSON Schema unchanged, where the model takes it.
    pub convert: ConvertOptions,
    /// Write `defer_loading: true` on every tool, so that the model finds them through tool
    /// search instead of having them all in its context: Anthropic tools and OpenAI
    /// Responses function tools have the key; OpenAI Chat and Gemini have none, and get one
    /// [`ToolWarning`] saying so. Default `false`.
    pub defer_loading: bool,
    /// Descriptions of OpenAI Responses `namespace` tools (which require one), by namespace;
    /// a namespace not given here is described as ``Tools of the `<namespace>` namespace.``.
    pub namespace_descriptions: Vec<(String, String)>,
    /// Tool search for a large catalog: the tools past a pinned set deferred, and a search to
    /// find them ([`ToolSearch`], the provider by provider rules in
    /// [`model_calls`](super#tool-search)). When it applies (more tools than its threshold),
    /// it decides which tools are deferred, and [`defer_loading`](Self::defer_loading) is
    /// not read. Default `None`.
    pub search: Option<ToolSearch>,
}

impl ToolListOptions {
    /// Sets [`convert`](Self::convert).
    #[must_use]
    pub fn with_convert(mut self, convert: ConvertOptions) -> Self {
        self.convert = convert;
        self
    }

    /// Sets [`defer_loading`](Self::defer_loading).
    #[must_use]
    pub fn with_defer_loading(mut self, defer: bool) -> Self {
        self.defer_loading = defer;
        self
    }

    /// Sets [`search`](Self::search).
    #[must_use]
    pub fn with_search(mut self, search: ToolSearch) -> Self {
        self.search = Some(search);
        self
    }

    /// Adds a description of an OpenAI Responses `namespace` tool.
    #[must_use]
    pub fn with_namespace_description(
        mut self,
        namespace: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        self.namespace_descriptions
            .push((namespace.into(), description.into()));
        self
    }
}

/// A warning of a tool list: which tool (its MCP name), and what its conversion lost.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ToolWarning {
    /// The tool's MCP name (empty for a warning about the whole list).
    pub tool: String,
    /// What was lost, with its pointer into the tool.
    pub warning: Warning,
}

impl fmt::Display for ToolWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.tool.is_empty() {
            write!(f, "{}", self.warning)
        } else {
            write!(f, "{}: {}", self.tool, self.warning)
        }
    }
}

/// One listed tool: its MCP name and how the provider names it.
#[derive(Clone, Debug)]
struct Listed {
    mcp_name: String,
    namespace: Option<String>,
    name: String,
    /// Where its definition is in `tools`: the index, and the index inside a `namespace`
    /// tool; `None` when it is not sent (deferred on OpenAI Chat and Gemini).
    at: Option<(usize, Option<usize>)>,
}

/// A [`Toolbox`]'s tools in one provider's format: what goes in the request's `tools`, and
/// the routing of the model's calls back to MCP names.
///
/// - **Names.** One naming for the model and for MCP clients: a function is named as the
///   toolbox serves its tool (its MCP name), changed only where the provider's rule does not
///   allow it (`notes.add_note` is `notes_add_note` for Anthropic and OpenAI; Gemini allows
///   `.`). A gateway's upstream tool is what the gateway serves (`get_current_time`, or
///   `time__get_current_time` when two servers share the name). On OpenAI Responses a
///   namespaced tool (`notes:add_note`) is a function `add_note` inside a `namespace` tool
///   `notes` (a namespace OpenAI does not allow, `^[a-zA-Z0-9_-]{1,64}$`, gets flat names
///   there too). Names are collision-free ([`adapters`](crate::adapters#tool-names), "Tool
///   names"), and [`mcp_name`](Self::mcp_name) routes each back.
/// - **Warnings.** Only what the provider's tool loses of the tool as MCP sends it (title,
///   annotations, `outputSchema`, unsupported schema keywords, ...); a name changed by the
///   provider's rule is routed back, and the library's own fields (`namespace`, `version`,
///   `tags`, `backends`, `category`, `requiredScopes`, `timeoutMs`) are not losses.
///
/// ```
/// use serde::Deserialize;
/// use toolmodel::{CallContext, SyncToolHandler, Tool, ToolError, Toolbox, schemars::{self, JsonSchema}};
/// use toolmodel::model_calls::{ModelTools, Provider, ToolListOptions};
///
/// /// Adds a note.
/// #[derive(Default, Deserialize, JsonSchema, Tool)]
/// #[tool(namespace = "notes")]
/// struct AddNote { text: String }
///
/// impl SyncToolHandler for AddNote {
///     type Reply = String;
///     fn call_sync(&self, args: AddNote, _cx: &CallContext) -> Result<String, ToolError> {
///         Ok(format!("noted: {}", args.text))
///     }
/// }
///
/// let toolbox = Toolbox::builder().with(AddNote::default()).build()?;
/// let options = ToolListOptions::default();
/// let anthropic = ModelTools::new(&toolbox, Provider::Anthropic, &options)?;
/// assert_eq!(anthropic.tools()[0]["name"], "notes_add_note");
/// assert_eq!(anthropic.mcp_name(None, "notes_add_note"), Some("notes.add_note"));
/// assert!(anthropic.warnings().is_empty()); // the name is routed back: no loss
///
/// let responses = ModelTools::new(&toolbox, Provider::OpenAiResponses, &options)?;
/// assert_eq!(responses.tools()[0]["type"], "namespace");
/// assert_eq!(responses.tools()[0]["tools"][0]["name"], "add_note");
/// assert_eq!(responses.mcp_name(Some("notes"), "add_note"), Some("notes.add_note"));
/// assert!(responses.warnings().is_empty());
/// # Ok::<(), toolmodel::Error>(())
/// ```
#[derive(Clone, Debug)]
pub struct ModelTools {
    provider: Provider,
    tools: Vec<Value>,
    warnings: Vec<ToolWarning>,
    /// In the toolbox's order.
    listed: Vec<Listed>,
    /// Provider name (no namespace) to index in `listed`.
    by_name: HashMap<String, usize, foldhash::fast::RandomState>,
    /// Namespace, then name, to index in `listed` (OpenAI Responses).
    by_namespace: HashMap<
        String,
        HashMap<String, usize, foldhash::fast::RandomState>,
        foldhash::fast::RandomState,
    >,
    /// The tool search, when it applies to this list.
    search: Option<ToolSearch>,
}

/// The OpenAI name rule, which namespaces follow too.
fn openai_allows(name: &str) -> bool {
    (1..=64).contains(&name.len())
        && name
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

impl ModelTools {
    /// Converts every tool of `toolbox` for `provider` (with the adapters' [`convert_all`]),
    /// in the toolbox's order; with [`ToolListOptions::search`] applying, the tools past the
    /// pinned ones are deferred and the search is added ([`ToolSearch`]).
    ///
    /// # Errors
    ///
    /// - [`Error::ToolList`] naming the first tool whose conversion fails, with the adapters'
    ///   error (strict mode on a schema that cannot be strict, recursion Gemini cannot take,
    ///   ...), or a tool the provider would name as the search's own function (`search_tools`,
    ///   `call_tool`, `tool_search_tool_bm25`, `tool_search_tool_regex`), with an
    ///   [`Error::DuplicateTool`];
    /// - [`Error::UnknownTool`] for a [pinned](ToolSearch::pinned) name no tool has, with the
    ///   nearest name (whether the search applies or not).
    ///
    /// Of a tool that is not sent (deferred on OpenAI Chat and Gemini) only the name is kept:
    /// its conversion's warnings and errors are not reported, since the model only sees its MCP
    /// definition, in a search's result.
    pub fn new(
        toolbox: &Toolbox,
        provider: Provider,
        options: &ToolListOptions,
    ) -> Result<Self, Error> {
        let target = provider.target();
        if let Some(search) = &options.search {
            check_pinned(toolbox, search)?;
        }
        let search = options
            .search
            .as_ref()
            .filter(|search| search.applies_to(toolbox));
        let deferred = |mcp_name: &str| match search {
            Some(search) => !search.is_pinned(mcp_name),
            None => options.defer_loading,
        };
        let definitions: Vec<&Tool> = toolbox.definitions().collect();
        let mut out = Self {
            provider,
            tools: Vec::with_capacity(definitions.len()),
            warnings: Vec::new(),
            listed: Vec::with_capacity(definitions.len()),
            by_name: HashMap::default(),
            by_namespace: HashMap::default(),
            search: search.cloned(),
        };
        // Which tools go in a Responses namespace (and their name there), and which are flat
        // functions.
        let grouped = |tool: &Tool, served: &str| -> Option<(String, String)> {
            if provider != Provider::OpenAiResponses {
                return None;
            }
            match &tool.namespace {
                Some(namespace) if openai_allows(namespace) => {
                    Some((namespace.clone(), tool.name.clone()))
                }
                // With search, one namespace per upstream server: a gateway's prefixed name
                // `<server>__<tool>` when the tool has no namespace of its own.
                None if search.is_some() => served
                    .split_once(FEDERATION_SEPARATOR)
                    .filter(|(server, name)| openai_allows(server) && !name.is_empty())
                    .map(|(server, name)| (server.to_owned(), name.to_owned())),
                _ => None,
            }
        };
        // Per group, in the toolbox's order: the MCP names and the tools to convert.
        let mut groups: Vec<(Option<String>, Vec<&str>, Vec<Tool>)> = Vec::new();
        for (tool, listed) in definitions.iter().zip(toolbox.tools()) {
            let mut own = Tool::clone(tool);
            let key = match grouped(tool, &listed.name) {
                Some((namespace, name)) => {
                    own.name = name;
                    Some(namespace)
                }
                None => {
                    // One naming for the model and for MCP clients: a flat function is named
                    // as the toolbox serves the tool (a gateway's `get_current_time`, or its
                    // `time__get_current_time` when two servers share the name); only the
                    // provider's own name rule changes it, with a warning.
                    own.name.clone_from(&listed.name);
                    None
                }
            };
            own.namespace = None;
            let index = match groups.iter().position(|(group, _, _)| *group == key) {
                Some(index) => index,
                None => {
                    groups.push((key, Vec::new(), Vec::new()));
                    groups.len() - 1
                }
            };
            if let Some((_, names, tools)) = groups.get_mut(index) {
                names.push(listed.name.as_str());
                tools.push(own);
            }
        }
        let convert = options.convert.clone().with_qualified_names(false);
        for (namespace, members, tools) in groups {
            let batch = convert_all(&tools, target, &convert);
            let mut functions = Vec::with_capacity(members.len());
            let first = out.tools.len();
            for ((mcp_name, result), entry) in
                members.iter().zip(batch.results).zip(batch.names.iter())
            {
                let defers = deferred(mcp_name);
                // OpenAI Chat and Gemini have no deferred loading: with search, a deferred tool
                // is not sent (`search_tools` finds it, `call_tool` calls it), and only its
                // name is kept, to route a call by that name.
                let sent = !(defers && search.is_some() && !has_defer_loading(provider));
                let index = out.listed.len();
                match &namespace {
                    Some(ns) => {
                        out.by_namespace
                            .entry(ns.clone())
                            .or_default()
                            .insert(entry.target_name.clone(), index);
                    }
                    None => {
                        out.by_name.insert(entry.target_name.clone(), index);
                    }
                }
                let at = sent.then(|| match namespace {
                    Some(_) => (first, Some(functions.len())),
                    None => (first + functions.len(), None),
                });
                out.listed.push(Listed {
                    mcp_name: (*mcp_name).to_owned(),
                    namespace: namespace.clone(),
                    name: entry.target_name.clone(),
                    at,
                });
                if !sent {
                    continue;
                }
                let mut conversion = result.map_err(|err| Error::ToolList {
                    tool: (*mcp_name).to_owned(),
                    provider: provider.as_str(),
                    source: Box::new(err),
                })?;
                if defers {
                    defer(provider, &mut conversion.value);
                }
                // A name the provider's rule changed is no loss: `mcp_name` routes it back.
                out.warnings.extend(
                    conversion
                        .warnings
                        .into_iter()
                        .filter(|warning| warning.pointer != "/name")
                        .map(|warning| ToolWarning {
                            tool: (*mcp_name).to_owned(),
                            warning,
                        }),
                );
                functions.push(conversion.value);
            }
            match namespace {
                Some(ns) => {
                    let description = options
                        .namespace_descriptions
                        .iter()
                        .find(|(name, _)| *name == ns)
                        .map_or_else(
                            || format!("Tools of the `{ns}` namespace."),
                            |(_, text)| text.clone(),
                        );
                    let mut group = Map::new();
                    group.insert("type".into(), Value::from("namespace"));
                    group.insert("name".into(), Value::from(ns));
                    group.insert("description".into(), Value::from(description));
                    group.insert("tools".into(), Value::Array(functions));
                    out.tools.push(Value::Object(group));
                }
                // Gemini: wrapped in one `Tool` below.
                None => out.tools.extend(functions),
            }
        }
        if let Some(search) = search {
            out.add_search(search, &convert)?;
        }
        if provider == Provider::Gemini {
            let declarations = std::mem::take(&mut out.tools);
            if !declarations.is_empty() {
                let mut tool = Map::new();
                tool.insert("functionDeclarations".into(), Value::Array(declarations));
                out.tools.push(Value::Object(tool));
            }
        }
        if options.defer_loading
            && search.is_none()
            && !has_defer_loading(provider)
            && !out.listed.is_empty()
        {
            out.warnings.push(ToolWarning {
                tool: String::new(),
                warning: Warning {
                    target,
                    pointer: "/defer_loading".into(),
                    feature: Cow::Borrowed("defer_loading"),
                    action: Action::Dropped { widened: false },
                    slot: None,
                    detail: Cow::Borrowed(match target {
                        Target::Gemini => "gemini function declarations have no defer_loading",
                        _ => "openai chat function tools have no defer_loading (OpenAI Responses tools do)",
                    }),
                },
            });
        }
        Ok(out)
    }

    /// The provider.
    #[must_use]
    pub fn provider(&self) -> Provider {
        self.provider
    }

    /// The request's `tools`: Anthropic tools, OpenAI Chat function tools, OpenAI Responses
    /// function and `namespace` tools, or (Gemini) one `Tool` with every
    /// `functionDeclarations` entry.
    #[must_use]
    pub fn tools(&self) -> &[Value] {
        &self.tools
    }

    /// [`tools`](Self::tools) as a JSON array, to put in a request body.
    #[must_use]
    pub fn to_value(&self) -> Value {
        Value::Array(self.tools.clone())
    }

    /// What the provider's tools lose of the MCP tools, tool by tool, in the toolbox's order.
    #[must_use]
    pub fn warnings(&self) -> &[ToolWarning] {
        &self.warnings
    }

    /// The MCP name of the tool the model calls `name` (in `namespace`, for OpenAI Responses
    /// namespace tools), or `None` when no listed tool has that name.
    #[must_use]
    pub fn mcp_name(&self, namespace: Option<&str>, name: &str) -> Option<&str> {
        let index = match namespace {
            None => self.by_name.get(name),
            Some(ns) => self.by_namespace.get(ns).and_then(|names| names.get(name)),
        };
        index
            .and_then(|&i| self.listed.get(i))
            .map(|listed| listed.mcp_name.as_str())
    }

    /// How the provider names the tool served as `mcp_name`: its namespace (OpenAI Responses
    /// namespace tools) and its name.
    #[must_use]
    pub fn provider_name(&self, mcp_name: &str) -> Option<(Option<&str>, &str)> {
        self.listed
            .iter()
            .find(|listed| listed.mcp_name == mcp_name)
            .map(|listed| (listed.namespace.as_deref(), listed.name.as_str()))
    }

    /// The tool search that applies to this list ([`ToolListOptions::search`] when the
    /// toolbox holds more tools than its threshold), or `None`.
    #[must_use]
    pub fn search(&self) -> Option<&ToolSearch> {
        self.search.as_ref()
    }

    /// Whether the tool served as `mcp_name` is deferred: sent with `defer_loading: true`
    /// (Anthropic, OpenAI Responses), or not sent and found through `search_tools` (OpenAI
    /// Chat, Gemini, with [`ToolListOptions::search`]). `false` for a name no listed tool has.
    #[must_use]
    pub fn is_deferred(&self, mcp_name: &str) -> bool {
        self.listed
            .iter()
            .find(|listed| listed.mcp_name == mcp_name)
            .and_then(|listed| match listed.at {
                None => Some(true),
                Some((index, inner)) => {
                    let tool = self.tools.get(index)?;
                    let tool = match inner {
                        Some(i) => tool.get("tools")?.get(i)?,
                        None => tool,
                    };
                    tool.get("defer_loading").and_then(Value::as_bool)
                }
            })
            .unwrap_or(false)
    }

    /// What `outcome`'s call is to the tool search, when it is one: the search
    /// (`search_tools` where toolmodel lists it, a Responses `tool_search_call`), or
    /// `call_tool` (OpenAI Chat, Gemini).
    pub(crate) fn search_role(&self, outcome: &ToolOutcome) -> Option<Role> {
        if outcome.kind == CallKind::ToolSearch {
            return Some(Role::Search);
        }
        let search = self.search.as_ref()?;
        if outcome.namespace.is_some() {
            return None;
        }
        let role = match outcome.name.as_str() {
            SEARCH_TOOLS => Role::Search,
            CALL_TOOL => Role::CallTool,
            _ => return None,
        };
        tool_search::function_names(self.provider, search)
            .contains(&outcome.name.as_str())
            .then_some(role)
    }

    /// What the answer to a search that found `found` (MCP names, best first) loads: Anthropic
    /// `tool_reference` blocks naming them, or the OpenAI Responses definitions as `tools`
    /// holds them (the functions found, in their `namespace` tools, in the order found). Tools
    /// not listed are left out; nothing for the other providers.
    pub(crate) fn load<'n>(&self, found: impl Iterator<Item = &'n str>) -> Vec<Value> {
        let listed = found.filter_map(|name| self.listed.iter().find(|l| l.mcp_name == name));
        match self.provider {
            Provider::Anthropic => listed
                .map(|listed| {
                    object([
                        ("type", Value::from("tool_reference")),
                        ("tool_name", Value::from(listed.name.as_str())),
                    ])
                })
                .collect(),
            Provider::OpenAiResponses => {
                let mut out: Vec<Value> = Vec::new();
                // The namespace tools written so far: their index in `tools`, and in `out`.
                let mut groups: Vec<(usize, usize)> = Vec::new();
                for listed in listed {
                    let Some((index, inner)) = listed.at else {
                        continue;
                    };
                    let Some(tool) = self.tools.get(index) else {
                        continue;
                    };
                    let Some(inner) = inner else {
                        out.push(tool.clone());
                        continue;
                    };
                    let Some(function) = tool.get("tools").and_then(|tools| tools.get(inner))
                    else {
                        continue;
                    };
                    let at = match groups.iter().find(|(group, _)| *group == index) {
                        Some(&(_, at)) => at,
                        None => {
                            let mut group = Map::new();
                            for key in ["type", "name", "description"] {
                                if let Some(value) = tool.get(key) {
                                    group.insert(key.into(), value.clone());
                                }
                            }
                            group.insert("tools".into(), Value::Array(Vec::new()));
                            out.push(Value::Object(group));
                            groups.push((index, out.len() - 1));
                            out.len() - 1
                        }
                    };
                    if let Some(Value::Array(functions)) =
                        out.get_mut(at).and_then(|group| group.get_mut("tools"))
                    {
                        functions.push(function.clone());
                    }
                }
                out
            }
            Provider::OpenAiChat | Provider::Gemini => Vec::new(),
        }
    }

    /// Adds the search's own tools ([`tool_search::functions`], converted as any tool, never
    /// strict; the provider's search tool) after the toolbox's, refusing a tool of the
    /// toolbox the provider names as one of them.
    fn add_search(&mut self, search: &ToolSearch, convert: &ConvertOptions) -> Result<(), Error> {
        for reserved in tool_search::reserved_names(self.provider, search) {
            if let Some(&index) = self.by_name.get(reserved) {
                let tool = self
                    .listed
                    .get(index)
                    .map(|listed| listed.mcp_name.clone())
                    .unwrap_or_default();
                return Err(Error::ToolList {
                    tool,
                    provider: self.provider.as_str(),
                    source: Box::new(Error::DuplicateTool {
                        name: reserved.to_owned(),
                        first: "model_calls::ToolSearch",
                        second: "a tool of the toolbox",
                    }),
                });
            }
        }
        let functions = tool_search::functions(self.provider, search, !convert.gemini_json_schema);
        let convert = ConvertOptions {
            strict: false,
            ..convert.clone()
        };
        let batch = convert_all(&functions, self.provider.target(), &convert);
        for (tool, result) in functions.iter().zip(batch.results) {
            let conversion = result.map_err(|err| Error::ToolList {
                tool: tool.name.clone(),
                provider: self.provider.as_str(),
                source: Box::new(err),
            })?;
            self.tools.push(conversion.value);
        }
        self.tools
            .extend(tool_search::provider_tool(self.provider, search));
        Ok(())
    }

    /// The provider's names of every tool (`namespace.name` for namespaced Responses tools),
    /// in the toolbox's order: what an unknown-tool answer lists.
    pub(crate) fn names(&self) -> impl Iterator<Item = (Option<&str>, &str)> {
        self.listed
            .iter()
            .map(|listed| (listed.namespace.as_deref(), listed.name.as_str()))
    }
}

/// The separator of a gateway's prefixed name, `<server>__<tool>` (`toolmodel-rmcp`'s
/// federation): the part before it names the upstream server.
const FEDERATION_SEPARATOR: &str = "__";

/// [`Error::UnknownTool`] for the first pinned name no tool of `toolbox` has.
fn check_pinned(toolbox: &Toolbox, search: &ToolSearch) -> Result<(), Error> {
    match search
        .pinned
        .iter()
        .find(|name| toolbox.get(name).is_none())
    {
        None => Ok(()),
        Some(name) => Err(Error::UnknownTool {
            name: name.clone(),
            nearest: nearest_tool(name, toolbox.tools().iter().map(|tool| tool.name.as_str()))
                .map(str::to_owned),
        }),
    }
}

/// Whether the provider's tools have `defer_loading` (Anthropic, OpenAI Responses).
fn has_defer_loading(provider: Provider) -> bool {
    matches!(provider, Provider::Anthropic | Provider::OpenAiResponses)
}

/// Marks a converted tool `defer_loading: true` where the provider has the key.
fn defer(provider: Provider, tool: &mut Value) {
    if let (true, Value::Object(map)) = (has_defer_loading(provider), tool) {
        map.insert("defer_loading".into(), Value::Bool(true));
    }
}
