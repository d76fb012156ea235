//! [`ModelTools`]: a [`Toolbox`]'s tools in one provider's format, with the names to route
//! the model's calls back.

use std::{borrow::Cow, collections::HashMap, fmt};

use serde_json::{Map, Value};

use super::provider::Provider;
use crate::adapters::{Action, ConvertOptions, Target, Warning, convert_all};
use crate::call::toolbox::Toolbox;
use crate::error::Error;
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
    /// in the toolbox's order.
    ///
    /// # Errors
    ///
    /// [`Error::ToolList`] naming the first tool whose conversion fails, with the adapters'
    /// error (strict mode on a schema that cannot be strict, recursion Gemini cannot take,
    /// ...).
    pub fn new(
        toolbox: &Toolbox,
        provider: Provider,
        options: &ToolListOptions,
    ) -> Result<Self, Error> {
        let target = provider.target();
        let definitions: Vec<&Tool> = toolbox.definitions().collect();
        let mut out = Self {
            provider,
            tools: Vec::with_capacity(definitions.len()),
            warnings: Vec::new(),
            listed: Vec::with_capacity(definitions.len()),
            by_name: HashMap::default(),
            by_namespace: HashMap::default(),
        };
        // Which tools go in a Responses namespace, and which are flat functions.
        let grouped = |tool: &Tool| -> Option<String> {
            match (&tool.namespace, provider) {
                (Some(namespace), Provider::OpenAiResponses) if openai_allows(namespace) => {
                    Some(namespace.clone())
                }
                _ => None,
            }
        };
        // Per group, in the toolbox's order: the MCP names and the tools to convert.
        let mut groups: Vec<(Option<String>, Vec<&str>, Vec<Tool>)> = Vec::new();
        for (tool, listed) in definitions.iter().zip(toolbox.tools()) {
            let key = grouped(tool);
            let mut own = Tool::clone(tool);
            if key.is_none() {
                // One naming for the model and for MCP clients: a flat function is named as
                // the toolbox serves the tool (a gateway's `get_current_time`, or its
                // `time__get_current_time` when two servers share the name); only the
                // provider's own name rule changes it, with a warning.
                own.name.clone_from(&listed.name);
            }
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
            for ((mcp_name, result), entry) in
                members.iter().zip(batch.results).zip(batch.names.iter())
            {
                let mut conversion = result.map_err(|err| Error::ToolList {
                    tool: (*mcp_name).to_owned(),
                    provider: provider.as_str(),
                    source: Box::new(err),
                })?;
                if options.defer_loading {
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
                out.listed.push(Listed {
                    mcp_name: (*mcp_name).to_owned(),
                    namespace: namespace.clone(),
                    name: entry.target_name.clone(),
                });
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
        if provider == Provider::Gemini {
            let declarations = std::mem::take(&mut out.tools);
            if !declarations.is_empty() {
                let mut tool = Map::new();
                tool.insert("functionDeclarations".into(), Value::Array(declarations));
                out.tools.push(Value::Object(tool));
            }
        }
        if options.defer_loading
            && matches!(provider, Provider::OpenAiChat | Provider::Gemini)
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

    /// The provider's names of every tool (`namespace.name` for namespaced Responses tools),
    /// in the toolbox's order: what an unknown-tool answer lists.
    pub(crate) fn names(&self) -> impl Iterator<Item = (Option<&str>, &str)> {
        self.listed
            .iter()
            .map(|listed| (listed.namespace.as_deref(), listed.name.as_str()))
    }
}

/// Marks a converted tool `defer_loading: true` where the provider has the key.
fn defer(provider: Provider, tool: &mut Value) {
    if let (Provider::Anthropic | Provider::OpenAiResponses, Value::Object(map)) = (provider, tool)
    {
        map.insert("defer_loading".into(), Value::Bool(true));
    }
}
