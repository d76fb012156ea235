//! Quickstart: three MCP tools derived from Rust types, put in a `Toolbox` and called.
//!
//! Run it with `cargo run --example quickstart`. It prints the `tools/list` result, then makes
//! a valid call, a call with bad arguments (an `isError` result naming every violation with
//! its JSON Pointer), a call with structured output (checked against the output schema), and
//! a call of an unknown tool (a JSON-RPC `-32602` error).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use toolmodel::{
    CallContext, CallToolResult, Error, SyncToolHandler, Tool, ToolError, ToolHandler, Toolbox,
    ToolboxBuilder,
    schemars::{self, JsonSchema},
};

/// Current weather for a city.
#[derive(Debug, Default, Deserialize, JsonSchema, Tool)]
#[tool(namespace = "weather", annotations(read_only, open_world))]
#[serde(deny_unknown_fields)]
pub struct GetWeather {
    /// City name, e.g. "Paris".
    pub city: String,
    /// Days ahead: 0 (today) to 7.
    #[serde(default)]
    #[schemars(range(max = 7))]
    pub days: u8,
    /// Temperature unit (default: celsius).
    pub unit: Option<Unit>,
}

/// A temperature unit.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Unit {
    /// Degrees Celsius.
    Celsius,
    /// Degrees Fahrenheit.
    Fahrenheit,
}

/// The arguments of [`SearchDocs`].
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Words to look for.
    pub query: String,
    /// At most this many hits (1 to 50; default 10).
    #[schemars(range(min = 1, max = 50))]
    pub limit: Option<u32>,
}

/// What [`SearchDocs`] returns.
#[derive(Debug, Serialize, JsonSchema)]
pub struct SearchResults {
    /// The matching pages, best first.
    pub hits: Vec<Hit>,
    /// How many pages matched in all.
    pub total: u64,
}

/// One matching page.
#[derive(Debug, Serialize, JsonSchema)]
pub struct Hit {
    /// Page title.
    pub title: String,
    /// Page address.
    pub url: String,
}

/// Searches the documentation by title.
#[derive(Tool)]
#[tool(
    namespace = "docs",
    version = "1.0.0",
    input = SearchArgs,
    output = SearchResults,
    tags("search", "docs"),
    annotations(read_only, idempotent, open_world = false),
)]
pub struct SearchDocs {
    pages: Vec<(&'static str, &'static str)>,
}

impl SearchDocs {
    /// A handler over a few pages.
    #[must_use]
    pub fn new() -> Self {
        Self {
            pages: vec![
                (
                    "Tools",
                    "https://modelcontextprotocol.io/specification/2025-11-25/server/tools",
                ),
                (
                    "JSON Schema usage",
                    "https://modelcontextprotocol.io/specification/2025-11-25/basic",
                ),
                (
                    "Tool names",
                    "https://modelcontextprotocol.io/specification/2025-11-25/server/tools#tool-names",
                ),
            ],
        }
    }

    /// Runs a search.
    #[must_use]
    pub fn search(&self, args: &SearchArgs) -> SearchResults {
        let query = args.query.to_lowercase();
        let matching: Vec<Hit> = self
            .pages
            .iter()
            .filter(|(title, _)| title.to_lowercase().contains(&query))
            .map(|&(title, url)| Hit {
                title: title.to_owned(),
                url: url.to_owned(),
            })
            .collect();
        let total = matching.len() as u64;
        let limit = args.limit.map_or(10, |limit| limit as usize);
        SearchResults {
            hits: matching.into_iter().take(limit).collect(),
            total,
        }
    }
}

impl Default for SearchDocs {
    fn default() -> Self {
        Self::new()
    }
}

/// Checks that the server is alive.
#[derive(Default, Tool)]
pub struct Ping;

// A tool that is its own arguments: the handler is its `Default` value, and `call_sync` gets
// the parsed arguments. Synchronous work: `SyncToolHandler`.
impl SyncToolHandler for GetWeather {
    type Reply = String; // no output type: one text block
    fn call_sync(&self, args: GetWeather, _cx: &CallContext) -> Result<String, ToolError> {
        let unit = args.unit.unwrap_or(Unit::Celsius);
        Ok(format!(
            "{} in {} days: 21 degrees {unit:?}",
            args.city, args.days
        ))
    }
}

// A handler with state and a typed output: `structuredContent`, checked against the output
// schema, plus its JSON text.
impl ToolHandler for SearchDocs {
    type Reply = SearchResults;
    async fn call(&self, args: SearchArgs, _cx: &CallContext) -> Result<SearchResults, ToolError> {
        Ok(self.search(&args))
    }
}

impl SyncToolHandler for Ping {
    type Reply = &'static str;
    fn call_sync(
        &self,
        _: toolmodel::NoArguments,
        _cx: &CallContext,
    ) -> Result<&'static str, ToolError> {
        Ok("pong")
    }
}

/// The quickstart's tools, with their handlers, added to `builder`.
pub fn with_tools(builder: ToolboxBuilder) -> ToolboxBuilder {
    builder
        .with(GetWeather::default())
        .with(SearchDocs::new())
        .with(Ping)
}

/// The quickstart's tools, with their handlers.
///
/// # Errors
///
/// [`Error::InvalidToolbox`] if two tools had one MCP name (they do not).
pub fn toolbox() -> Result<Toolbox, Error> {
    with_tools(Toolbox::builder()).build()
}

/// Calls a tool of the toolbox, with arguments as JSON, and waits for the result (this
/// example has no async runtime: `pollster` runs the future).
///
/// # Errors
///
/// What [`Toolbox::call`] returns: [`Error::UnknownTool`] for an unknown name.
pub fn call(toolbox: &Toolbox, name: &str, arguments: Value) -> Result<CallToolResult, Error> {
    let arguments: Option<Map<String, Value>> = match arguments {
        Value::Object(map) => Some(map),
        _ => None,
    };
    pollster::block_on(toolbox.call(name, arguments, &CallContext::new()))
}

/// Lists the tools, then makes a few calls, printing each step.
///
/// # Errors
///
/// Any [`Error`] of the calls (none, unless the example is broken).
pub fn main() -> Result<(), Error> {
    let toolbox = toolbox()?;

    println!("== tools/list\n{}\n", pretty(&toolbox.list(None)?));

    let valid = json!({"city": "Paris", "days": 2, "unit": "fahrenheit"});
    println!("== tools/call weather.get_weather {valid}");
    println!(
        "{}\n",
        pretty(&call(&toolbox, "weather.get_weather", valid)?)
    );

    let invalid = json!({"days": 9, "unit": "kelvin", "country": "FR"});
    println!("== tools/call weather.get_weather {invalid}");
    let result = call(&toolbox, "weather.get_weather", invalid)?;
    println!(
        "isError: {}\n{}\n",
        result.is_error(),
        result.text_content()
    );

    let search = json!({"query": "tool"});
    println!("== tools/call docs.search_docs {search}");
    println!("{}\n", pretty(&call(&toolbox, "docs.search_docs", search)?));

    println!("== tools/call ping");
    println!("{}\n", pretty(&call(&toolbox, "ping", Value::Null)?));

    println!("== tools/call get_forecast {{}}");
    match call(&toolbox, "get_forecast", json!({})) {
        Err(err) => println!("JSON-RPC error {}: {err}", err.jsonrpc_code()),
        Ok(result) => println!("unexpected: {result:?}"),
    }
    Ok(())
}

/// Pretty JSON of anything serializable, for printing.
fn pretty(value: &impl Serialize) -> String {
    serde_json::to_string_pretty(value).unwrap_or_default()
}
