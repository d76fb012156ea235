//! Tool search for large catalogs ([`ToolSearch`]): the tools past a pinned set are deferred,
//! and the model finds them through a search, the provider's own where it has one (the rules,
//! provider by provider: [`model_calls`](super#tool-search)).
//!
//! Sources: anthropic-sdk-python `types/` (`ToolParam.defer_loading`,
//! `ToolSearchToolBm25_20251119Param`, `ToolSearchToolRegex20251119Param`,
//! `ToolReferenceBlockParam`, `ToolResultBlockParam`, `ServerToolUseBlock`,
//! `ToolSearchToolResultBlock`); openai-python `types/responses/` (`ToolSearchToolParam`,
//! `NamespaceToolParam`, `FunctionToolParam.defer_loading`, `ResponseToolSearchCall`,
//! `ResponseToolSearchOutputItemParam`, `ResponseFunctionToolCall.namespace`); FastMCP
//! `fastmcp/server/transforms/search/base.py` (`search_tools`, `call_tool`, `max_results`
//! 5).

use serde_json::{Map, Value};

use super::json_shape::object;
use super::model_call::CallArguments;
use super::provider::Provider;
use super::run::ToolOutcome;
use super::tools::ModelTools;
use crate::call::result::CallToolResult;
use crate::call::toolbox::Toolbox;
use crate::error::Error;
use crate::model::schema::ToolSchema;
use crate::model::tool::Tool;

/// The name of the search function toolmodel adds (Anthropic's client search, OpenAI Chat,
/// Gemini): FastMCP's `BM25SearchTransform` names it so.
pub const SEARCH_TOOLS: &str = "search_tools";

/// The name of the function that calls a found tool by name (OpenAI Chat, Gemini): FastMCP's
/// `BM25SearchTransform` names it so.
pub const CALL_TOOL: &str = "call_tool";

/// The name of an OpenAI Responses `tool_search_call` read as a [`ModelCall`](super::ModelCall)
/// ([`CallKind::ToolSearch`](super::CallKind::ToolSearch)), and of its outcome.
pub const TOOL_SEARCH: &str = "tool_search";

/// Which tool search an Anthropic model gets ([`ToolSearch::anthropic`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum AnthropicSearch {
    /// toolmodel's own search ([`Toolbox::search`]) as a client tool `search_tools`
    /// (`{query}`): [`run_calls`](super::run_calls) runs it, and the `tool_result` carries a
    /// `tool_reference` block per tool found, which loads its deferred definition. The same
    /// ranking as every other provider gets. The default.
    #[default]
    Client,
    /// Anthropic's server-side BM25 search, `{"type": "tool_search_tool_bm25_20251119",
    /// "name": "tool_search_tool_bm25"}`: Anthropic runs it within the response
    /// (`server_tool_use` and `tool_search_tool_result` blocks, which
    /// [`read_calls`](super::read_calls) skips and [`model_turn`](super::model_turn) keeps).
    Bm25,
    /// Anthropic's server-side regular-expression search, `{"type":
    /// "tool_search_tool_regex_20251119", "name": "tool_search_tool_regex"}`, as
    /// [`Bm25`](Self::Bm25) otherwise.
    Regex,
}

impl AnthropicSearch {
    /// The server tool's definition, or `None` for the client search.
    fn server_tool(self) -> Option<Value> {
        let (kind, name) = match self {
            Self::Client => return None,
            Self::Bm25 => ("tool_search_tool_bm25_20251119", "tool_search_tool_bm25"),
            Self::Regex => ("tool_search_tool_regex_20251119", "tool_search_tool_regex"),
        };
        Some(object([
            ("type", Value::from(kind)),
            ("name", Value::from(name)),
        ]))
    }
}

/// Tool search for a large catalog, set on [`ToolListOptions::search`](super::ToolListOptions::search):
/// when the toolbox holds more than [`threshold`](Self::threshold) tools, every tool but the
/// [`pinned`](Self::pinned) ones is deferred, and the model finds them through a search (how,
/// provider by provider: [`model_calls`](super#tool-search)).
///
/// The search is [`Toolbox::search`] (BM25 over names, descriptions and parameters), run by
/// [`run_calls`](super::run_calls) when the model calls it; pinned tools are never among its
/// results (the model has them already).
///
/// ```
/// use toolmodel::model_calls::{AnthropicSearch, ToolListOptions, ToolSearch};
///
/// let search = ToolSearch::default()
///     .with_pinned(["read_file"])  // always sent in full
///     .with_threshold(30)          // no search for 30 tools or fewer
///     .with_limit(5)               // tools per search
///     .with_anthropic(AnthropicSearch::Bm25);
/// let options = ToolListOptions::default().with_search(search);
/// assert_eq!(options.search.as_ref().map(|s| s.threshold), Some(30));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ToolSearch {
    /// The MCP names of the tools always sent in full, never deferred. A name no tool of the
    /// toolbox has is an error of [`ModelTools::new`].
    pub pinned: Vec<String>,
    /// Search only when the toolbox holds more than this many tools; below it, every tool is
    /// sent in full and no search is added. Default 0: search whenever a tool is not pinned.
    pub threshold: usize,
    /// How many tools one search finds at most (0 is taken as 1). Default 5, as FastMCP's
    /// `max_results`.
    pub limit: usize,
    /// Which search an Anthropic model gets. Default [`AnthropicSearch::Client`].
    pub anthropic: AnthropicSearch,
}

impl Default for ToolSearch {
    fn default() -> Self {
        Self {
            pinned: Vec::new(),
            threshold: 0,
            limit: 5,
            anthropic: AnthropicSearch::Client,
        }
    }
}

impl ToolSearch {
    /// Adds tools (MCP names) to [`pinned`](Self::pinned).
    #[must_use]
    pub fn with_pinned<I, S>(mut self, names: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.pinned.extend(names.into_iter().map(Into::into));
        self
    }

    /// Sets [`threshold`](Self::threshold).
    #[must_use]
    pub fn with_threshold(mut self, threshold: usize) -> Self {
        self.threshold = threshold;
        self
    }

    /// Sets [`limit`](Self::limit).
    #[must_use]
    pub fn with_limit(mut self, limit: usize) -> Self {
        self.limit = limit;
        self
    }

    /// Sets [`anthropic`](Self::anthropic).
    #[must_use]
    pub fn with_anthropic(mut self, anthropic: AnthropicSearch) -> Self {
        self.anthropic = anthropic;
        self
    }

    /// Whether `name` (an MCP name) is pinned.
    pub(crate) fn is_pinned(&self, name: &str) -> bool {
        self.pinned.iter().any(|pinned| pinned == name)
    }

    /// Whether the search is on for `toolbox`: more tools than the threshold, one of them not
    /// pinned.
    pub(crate) fn applies_to(&self, toolbox: &Toolbox) -> bool {
        toolbox.len() > self.threshold
            && toolbox
                .tools()
                .iter()
                .any(|tool| !self.is_pinned(&tool.name))
    }
}

/// One tool a search found ([`ToolOutcome::found`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct FoundTool {
    /// Its MCP name.
    pub tool: String,
    /// Its score for the query ([`SearchHit::score`](crate::search::SearchHit::score)).
    pub score: f32,
}

/// A search the provider ran itself, read back from a response ([`read_server_searches`](super::read_server_searches)):
/// Anthropic's `server_tool_use` of `tool_search_tool_bm25` / `tool_search_tool_regex` with
/// its `tool_search_tool_result`, or an OpenAI Responses `tool_search_call` and
/// `tool_search_output` the server ran.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ServerSearch {
    /// The search's ID: Anthropic's `server_tool_use.id`; OpenAI's `call_id`, else the
    /// item's `id`. `None` for a result whose search is not in the response.
    pub id: Option<String>,
    /// What the model searched with (`input`, `arguments`); `null` when not in the response.
    pub arguments: Value,
    /// The tools it loaded, as the provider names them: a namespace (OpenAI Responses
    /// `namespace` tools) and a name, which [`ModelTools::mcp_name`] routes back to the MCP
    /// name.
    pub tools: Vec<(Option<String>, String)>,
    /// Anthropic's `error_code` when the search failed (`tool_search_tool_result_error`).
    pub error: Option<String>,
    /// Where the search was read: a JSON Pointer into the response (its first block or
    /// item).
    pub pointer: String,
}

impl ServerSearch {
    /// A search read at `pointer`, its result not read yet.
    pub(crate) fn new(id: Option<String>, arguments: Value, pointer: String) -> Self {
        Self {
            id,
            arguments,
            tools: Vec::new(),
            error: None,
            pointer,
        }
    }
}

/// The search of `searches` whose ID is `id`, or one added for a result read at `pointer`
/// without its search (always `Some`).
pub(crate) fn search_for<'s>(
    searches: &'s mut Vec<ServerSearch>,
    id: Option<&str>,
    pointer: &str,
) -> Option<&'s mut ServerSearch> {
    let found = searches
        .iter()
        .position(|search| id.is_some() && search.id.as_deref() == id);
    let index = found.unwrap_or(searches.len());
    if found.is_none() {
        let id = id.map(str::to_owned);
        searches.push(ServerSearch::new(id, Value::Null, pointer.to_owned()));
    }
    searches.get_mut(index)
}

/// What a call does when tool search is on, beyond running a listed tool.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    /// Search the toolbox (`search_tools`, an OpenAI Responses `tool_search_call`).
    Search,
    /// Call a tool named in the arguments (`call_tool`).
    CallTool,
}

/// The names of the functions toolmodel adds to a provider's list for the search:
/// `search_tools` (Anthropic client search, OpenAI Chat, Gemini) and `call_tool` (OpenAI
/// Chat, Gemini).
pub(crate) fn function_names(provider: Provider, search: &ToolSearch) -> &'static [&'static str] {
    match provider {
        Provider::Anthropic if search.anthropic == AnthropicSearch::Client => &[SEARCH_TOOLS],
        Provider::OpenAiChat | Provider::Gemini => &[SEARCH_TOOLS, CALL_TOOL],
        _ => &[],
    }
}

/// The MCP tools of [`function_names`], with no namespace, to convert as any tool.
///
/// `call_tool`'s `arguments` is a free-form object, except for Gemini's `parameters`
/// (`openapi_subset`): Gemini's API answers 400 ("should be non-empty for OBJECT type") to an
/// `OBJECT` without properties there, so it is a string holding the arguments' JSON
/// ([`proxied`] takes either).
pub(crate) fn functions(
    provider: Provider,
    search: &ToolSearch,
    openapi_subset: bool,
) -> Vec<Tool> {
    let names = function_names(provider, search);
    let mut out = Vec::with_capacity(names.len());
    if names.contains(&SEARCH_TOOLS) {
        let mut tool = Tool::new(SEARCH_TOOLS, query_schema());
        tool.description = Some(
            "Search for tools using natural language. Returns the matching tools, most \
             relevant first, with their definitions."
                .into(),
        );
        out.push(tool);
    }
    if names.contains(&CALL_TOOL) {
        let mut properties = Map::new();
        properties.insert(
            "name".into(),
            object([
                ("type", Value::from("string")),
                ("description", Value::from("The name of the tool to call")),
            ]),
        );
        let arguments = if provider == Provider::Gemini && openapi_subset {
            object([
                ("type", Value::from("string")),
                (
                    "description",
                    Value::from(
                        "Arguments to pass to the tool: a JSON object written as a string, \
                         such as {\"city\": \"Paris\"}",
                    ),
                ),
            ])
        } else {
            object([
                ("type", Value::from("object")),
                ("description", Value::from("Arguments to pass to the tool")),
            ])
        };
        properties.insert("arguments".into(), arguments);
        let mut schema = Map::new();
        schema.insert("type".into(), Value::from("object"));
        schema.insert("properties".into(), Value::Object(properties));
        schema.insert("required".into(), Value::Array(vec![Value::from("name")]));
        let mut tool = Tool::new(CALL_TOOL, ToolSchema::new(schema));
        tool.description = Some(
            "Call a tool by name with the given arguments. Use this to execute tools \
             discovered via search_tools."
                .into(),
        );
        out.push(tool);
    }
    out
}

/// The server tool Anthropic gets for [`AnthropicSearch::Bm25`] and
/// [`AnthropicSearch::Regex`], or the OpenAI Responses `tool_search` tool; `None` otherwise.
pub(crate) fn provider_tool(provider: Provider, search: &ToolSearch) -> Option<Value> {
    match provider {
        Provider::Anthropic => search.anthropic.server_tool(),
        Provider::OpenAiResponses => {
            let mut tool = Map::new();
            tool.insert("type".into(), Value::from("tool_search"));
            tool.insert("execution".into(), Value::from("client"));
            tool.insert(
                "description".into(),
                Value::from(
                    "Search the deferred tools using natural language; the tools found are \
                     loaded, most relevant first.",
                ),
            );
            tool.insert("parameters".into(), query_schema().as_value().clone());
            Some(Value::Object(tool))
        }
        Provider::OpenAiChat | Provider::Gemini => None,
    }
}

/// The names toolmodel's search takes in a provider's list, which no tool of the toolbox
/// may have there.
pub(crate) fn reserved_names(provider: Provider, search: &ToolSearch) -> Vec<&'static str> {
    let mut names = function_names(provider, search).to_vec();
    if provider == Provider::Anthropic {
        match search.anthropic {
            AnthropicSearch::Bm25 => names.push("tool_search_tool_bm25"),
            AnthropicSearch::Regex => names.push("tool_search_tool_regex"),
            AnthropicSearch::Client => {}
        }
    }
    names
}

/// `{"type": "object", "properties": {"query": {"type": "string", ...}}, "required":
/// ["query"]}`: FastMCP's `search_tools` arguments.
fn query_schema() -> ToolSchema {
    let mut properties = Map::new();
    properties.insert(
        "query".into(),
        object([
            ("type", Value::from("string")),
            (
                "description",
                Value::from("Natural language query to search for tools"),
            ),
        ]),
    );
    let mut schema = Map::new();
    schema.insert("type".into(), Value::from("object"));
    schema.insert("properties".into(), Value::Object(properties));
    schema.insert("required".into(), Value::Array(vec![Value::from("query")]));
    ToolSchema::new(schema)
}

/// Runs a search call into `outcome`: the tools found (best first, pinned ones left out) in
/// [`ToolOutcome::found`], what the answer loads, and a text result with their MCP
/// definitions (or what was wrong: arguments without a `query` string, a query
/// [`Toolbox::search`] refuses).
pub(crate) fn search(
    toolbox: &Toolbox,
    tools: &ModelTools,
    outcome: &mut ToolOutcome,
    arguments: CallArguments,
) {
    let query = match &arguments {
        CallArguments::Object(map) => map.get("query").and_then(Value::as_str),
        CallArguments::Invalid { .. } => None,
    };
    let Some(query) = query else {
        let problem = match arguments {
            CallArguments::Invalid { problem, .. } => problem,
            CallArguments::Object(_) => "expected an object with a `query` string".into(),
        };
        outcome.result = CallToolResult::error(format!(
            "invalid arguments for tool {:?}: {problem}",
            outcome.name
        ));
        return;
    };
    // A Responses `tool_search_call` reaches a list without search only if the model calls a
    // tool it was not given: searched with the defaults.
    let defaults = ToolSearch::default();
    let search = tools.search().unwrap_or(&defaults);
    let (pinned, limit) = (&search.pinned, search.limit.max(1));
    let hits = match ranked(toolbox, query, limit.saturating_add(pinned.len())) {
        Ok(hits) => hits,
        Err(err) => {
            outcome.result = CallToolResult::error(format!("tool search failed: {err}"));
            outcome.error = Some(err);
            return;
        }
    };
    let found: Vec<FoundTool> = hits
        .into_iter()
        .filter(|hit| !pinned.contains(&hit.tool))
        .take(limit)
        .collect();
    outcome.result = CallToolResult::text(if found.is_empty() {
        "No tools matched the query.".to_owned()
    } else {
        // The tools as `tools/list` lists them (FastMCP's `serialize_tools_for_output_json`);
        // MCP JSON always serializes.
        let listed: Vec<_> = found
            .iter()
            .filter_map(|hit| toolbox.get(&hit.tool))
            .map(Tool::mcp)
            .collect();
        serde_json::to_string(&listed).unwrap_or_default()
    });
    outcome.load = tools.load(found.iter().map(|hit| hit.tool.as_str()));
    outcome.found = Some(found);
}

/// The tool a `call_tool` call names, and the arguments to call it with: `{"name": string,
/// "arguments": object}`, or `arguments` a string holding a JSON object (as Gemini's
/// `parameters` declare it); `arguments` absent or `null` is `{}`. Otherwise what is wrong.
pub(crate) fn proxied(arguments: CallArguments) -> Result<(String, Map<String, Value>), String> {
    let mut map = match arguments {
        CallArguments::Object(map) => map,
        CallArguments::Invalid { problem, .. } => return Err(problem),
    };
    let Some(Value::String(name)) = map.remove("name") else {
        return Err("expected an object with a `name` string".into());
    };
    match map.remove("arguments") {
        None | Some(Value::Null) => Ok((name, Map::new())),
        Some(Value::Object(arguments)) => Ok((name, arguments)),
        Some(Value::String(text)) => match serde_json::from_str(&text) {
            Ok(Value::Object(arguments)) => Ok((name, arguments)),
            Ok(_) => Err("`arguments` must be a JSON object (or a string holding one)".into()),
            Err(err) => Err(format!("`arguments` is a string that is not JSON: {err}")),
        },
        Some(_) => Err("`arguments` must be a JSON object (or a string holding one)".into()),
    }
}

/// The toolbox's tools for `query`, best first ([`Toolbox::search`]).
fn ranked(toolbox: &Toolbox, query: &str, limit: usize) -> Result<Vec<FoundTool>, Error> {
    Ok(toolbox
        .search(query, limit)?
        .into_iter()
        .map(|hit| FoundTool {
            tool: hit.tool.name.clone(),
            score: hit.score,
        })
        .collect())
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::model_calls::ToolListOptions;

    fn arguments(value: &Value) -> CallArguments {
        CallArguments::from_value(Some(value))
    }

    #[test]
    fn call_tool_arguments_are_a_name_and_an_object() {
        let ok = |value: Value| proxied(arguments(&value)).unwrap();
        assert_eq!(ok(json!({"name": "a"})), ("a".to_owned(), Map::new()));
        assert_eq!(
            ok(json!({"name": "a", "arguments": null})),
            ("a".to_owned(), Map::new())
        );
        let (name, args) = ok(json!({"name": "a", "arguments": {"k": 1}, "extra": true}));
        assert_eq!((name.as_str(), args.get("k")), ("a", Some(&json!(1))));
        // As Gemini's `parameters` declare it: the object's JSON in a string.
        let (_, args) = ok(json!({"name": "a", "arguments": "{\"k\": [1, 2]}"}));
        assert_eq!(args.get("k"), Some(&json!([1, 2])));
        for (value, problem) in [
            (
                json!({"name": "a", "arguments": "[1]"}),
                "`arguments` must be a JSON object (or a string holding one)",
            ),
            (
                json!({"name": "a", "arguments": "{k"}),
                "`arguments` is a string that is not JSON: key must be a string at line 1 column 2",
            ),
            (
                json!({"arguments": {}}),
                "expected an object with a `name` string",
            ),
            (
                json!({"name": 3}),
                "expected an object with a `name` string",
            ),
            (
                json!({"name": "a", "arguments": [1]}),
                "`arguments` must be a JSON object (or a string holding one)",
            ),
            (
                json!([1]),
                "the arguments must be a JSON object, found array",
            ),
        ] {
            assert_eq!(
                proxied(arguments(&value)),
                Err(problem.to_owned()),
                "{value}"
            );
        }
    }

    #[test]
    fn each_provider_gets_its_own_search() {
        let search = ToolSearch::default();
        let names = |provider| -> Vec<String> {
            functions(provider, &search, true)
                .into_iter()
                .map(|tool| tool.name)
                .collect()
        };
        assert_eq!(names(Provider::Anthropic), ["search_tools"]);
        assert_eq!(names(Provider::OpenAiChat), ["search_tools", "call_tool"]);
        assert_eq!(names(Provider::Gemini), ["search_tools", "call_tool"]);
        assert!(names(Provider::OpenAiResponses).is_empty());
        assert_eq!(provider_tool(Provider::Anthropic, &search), None);
        assert_eq!(provider_tool(Provider::OpenAiChat, &search), None);
        let responses = provider_tool(Provider::OpenAiResponses, &search).unwrap();
        assert_eq!(responses["type"], "tool_search");
        assert_eq!(responses["execution"], "client");
        assert_eq!(responses["parameters"]["required"], json!(["query"]));
        let bm25 = search.clone().with_anthropic(AnthropicSearch::Bm25);
        assert!(functions(Provider::Anthropic, &bm25, true).is_empty());
        assert_eq!(
            provider_tool(Provider::Anthropic, &bm25),
            Some(
                json!({"type": "tool_search_tool_bm25_20251119", "name": "tool_search_tool_bm25"})
            )
        );
        assert_eq!(
            reserved_names(Provider::Anthropic, &bm25),
            ["tool_search_tool_bm25"]
        );
        assert_eq!(
            reserved_names(Provider::Gemini, &search),
            ["search_tools", "call_tool"]
        );
        assert!(reserved_names(Provider::OpenAiResponses, &search).is_empty());
    }

    #[test]
    fn a_responses_search_loads_the_found_functions_in_their_namespaces_in_found_order() {
        let mut builder = Toolbox::builder();
        for (namespace, name) in [
            (Some("weather"), "get_forecast"),
            (Some("weather"), "get_alerts"),
            (None, "github__create_issue"),
            (None, "send_email"),
        ] {
            let mut tool = Tool::new(name, ToolSchema::empty_object());
            tool.namespace = namespace.map(str::to_owned);
            builder = builder.with_tool(tool, |_, _| async { Ok(CallToolResult::text("")) });
        }
        let toolbox = builder.build().unwrap();
        let options = ToolListOptions::default()
            .with_search(ToolSearch::default())
            .with_namespace_description("weather", "Forecasts and alerts.");
        let tools = ModelTools::new(&toolbox, Provider::OpenAiResponses, &options).unwrap();
        let found = [
            "weather.get_forecast",
            "send_email",
            "github__create_issue",
            "weather.get_alerts",
            "no_such_tool",
        ];
        let loaded = tools.load(found.into_iter());
        let shape: Vec<(Value, Vec<Value>)> = loaded
            .iter()
            .map(|tool| {
                let inner = tool["tools"].as_array().map_or_else(Vec::new, |functions| {
                    functions.iter().map(|f| f["name"].clone()).collect()
                });
                (tool["name"].clone(), inner)
            })
            .collect();
        assert_eq!(
            shape,
            [
                (
                    json!("weather"),
                    vec![json!("get_forecast"), json!("get_alerts")]
                ),
                (json!("send_email"), vec![]),
                (json!("github"), vec![json!("create_issue")]),
            ]
        );
        assert_eq!(loaded[0]["description"], "Forecasts and alerts.");
        assert_eq!(loaded[0]["tools"][0]["defer_loading"], true);
        // Anthropic: `tool_reference` blocks by the Anthropic names; OpenAI Chat: nothing.
        let anthropic = ModelTools::new(&toolbox, Provider::Anthropic, &options).unwrap();
        assert_eq!(
            anthropic.load(["weather.get_alerts"].into_iter()),
            [json!({"type": "tool_reference", "tool_name": "weather_get_alerts"})]
        );
        let chat = ModelTools::new(&toolbox, Provider::OpenAiChat, &options).unwrap();
        assert!(chat.load(found.into_iter()).is_empty());
    }
}
