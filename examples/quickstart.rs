//! Quickstart: three MCP tools derived from Rust types, listed, called and checked.
//!
//! Run it with `cargo run --example quickstart`. It prints the `tools/list` result, parses a
//! valid call and an invalid one (with every violation and its JSON Pointer), and checks a
//! handler's structured output against its output schema.

use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use toolmodel::{
    Error, Tool, ToolDefinition,
    schemars::{self, JsonSchema},
};

/// Current weather for a city.
#[derive(Debug, Deserialize, JsonSchema, Tool)]
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
    pub fn call(&self, args: &SearchArgs) -> SearchResults {
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
#[derive(Tool)]
pub struct Ping;

/// The `tools/list` result of this server (MCP 2025-11-25).
#[must_use]
pub fn tools_list() -> Value {
    json!({
        "tools": [
            GetWeather::tool().to_mcp_json(),
            SearchDocs::tool().to_mcp_json(),
            Ping::tool().to_mcp_json(),
        ]
    })
}

/// Handles a `tools/call` by tool name: parse, run, and build the `CallToolResult`.
///
/// # Errors
///
/// The argument errors of [`ToolDefinition::parse`], and [`Error::UnknownValue`] for an
/// unknown tool name.
pub fn call_tool(name: &str, arguments: &Value) -> Result<Value, Error> {
    match name {
        GetWeather::NAME => {
            let args = GetWeather::parse(arguments)?;
            let unit = args.unit.unwrap_or(Unit::Celsius);
            let text = format!("{} in {} days: 21 degrees {unit:?}", args.city, args.days);
            Ok(json!({"content": [{"type": "text", "text": text}]}))
        }
        SearchDocs::NAME => {
            let results = SearchDocs::new().call(&SearchDocs::parse(arguments)?);
            let structured = SearchDocs::structured_content(&results)?;
            Ok(json!({
                "content": [{"type": "text", "text": structured.to_string()}],
                "structuredContent": structured
            }))
        }
        Ping::NAME => {
            Ping::parse(arguments)?;
            Ok(json!({"content": [{"type": "text", "text": "pong"}]}))
        }
        _ => Err(Error::UnknownValue {
            field: "name",
            value: name.to_owned(),
            expected: "get_weather, search_docs, ping",
        }),
    }
}

/// Lists the tools, then parses and runs a few calls, printing each step.
///
/// # Errors
///
/// Any [`Error`] of the calls (none, unless the example is broken).
pub fn main() -> Result<(), Error> {
    let pretty = |value: &Value| serde_json::to_string_pretty(value).unwrap_or_default();

    println!("== tools/list\n{}\n", pretty(&tools_list()));

    let valid = json!({"city": "Paris", "days": 2, "unit": "fahrenheit"});
    println!("== {} {valid}", GetWeather::ID);
    println!("parsed: {:?}", GetWeather::parse(&valid)?);
    println!("result: {}\n", call_tool(GetWeather::NAME, &valid)?);

    let invalid = json!({"days": 9, "unit": "kelvin", "country": "FR"});
    println!("== {} {invalid}", GetWeather::ID);
    match GetWeather::parse(&invalid) {
        Err(Error::InvalidInstance { errors }) => {
            println!("rejected, {} violation(s):", errors.len());
            for error in &errors {
                println!("  {error}");
            }
        }
        other => println!("unexpected: {other:?}"),
    }

    let search = json!({"query": "tool"});
    println!("\n== {} {search}", SearchDocs::ID);
    println!("result: {}", pretty(&call_tool(SearchDocs::NAME, &search)?));

    println!("\n== {} {{}}", Ping::ID);
    println!("result: {}", call_tool(Ping::NAME, &json!({}))?);
    Ok(())
}
