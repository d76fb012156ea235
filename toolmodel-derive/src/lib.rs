//! `#[derive(Tool)]` for [`toolmodel`](https://docs.rs/toolmodel): an MCP tool definition
//! from a Rust type, its name, namespace, version, tags and icons checked at compile time, its
//! input and output schemas generated with `schemars`. Use it through `toolmodel`
//! (`toolmodel::Tool`, the `derive` feature, on by default), which holds the runtime it
//! expands to.
//!
//! ```ignore
//! use serde::Deserialize;
//! use toolmodel::{Tool, ToolDefinition, schemars::{self, JsonSchema}};
//!
//! /// Current weather for a city.
//! #[derive(Default, Deserialize, JsonSchema, Tool)]
//! #[tool(namespace = "weather", annotations(read_only))]
//! struct GetWeather {
//!     /// City name.
//!     city: String,
//! }
//!
//! assert_eq!(GetWeather::ID, "weather:get_weather");
//! ```
//!
//! This crate cannot run its examples (a doc test would depend on `toolmodel`, which depends
//! on this crate: a cycle `cargo package` cannot resolve). The one above runs as the start of
//! the example on [`toolmodel`'s front page](https://docs.rs/toolmodel), the one of
//! [`Tool`](derive@Tool) as the trybuild case `ui-tests/ui/pass/doc_example.rs`. Every
//! attribute is in the table of [`Tool`](derive@Tool); the chapter
//! [defining tools](https://docs.rs/toolmodel/latest/toolmodel/guide/defining/index.html) of
//! the `toolmodel` guide shows them at work.
//!
//! Inside, after `thiserror` and `serde_derive`: `ast` reads the type, `attr` parses
//! `#[tool(...)]`, `valid` checks both with the runtime's rules (`rules`, a copy held to the
//! runtime by a test), `expand` generates the impl, and `fallback` the impl emitted beside
//! errors; `ctxt` collects every error so that all are reported at once.

// Library code has no path to a panic on input: every mistake is a spanned compile error.
// Tests may unwrap; a justified local `allow` marks the rest.
#![cfg_attr(
    not(test),
    deny(
        clippy::unwrap_used,
        clippy::expect_used,
        clippy::panic,
        clippy::indexing_slicing
    )
)]

mod ast;
mod attr;
mod ctxt;
mod expand;
mod fallback;
mod rules;
mod suggest;
mod typed;
mod valid;

use proc_macro::TokenStream;

/// Derives `toolmodel::ToolDefinition`: an MCP tool from a Rust type.
///
/// # Shapes
///
/// 1. **Arguments struct** (named fields, no `input`): the struct is the tool's arguments;
///    it derives `serde::Deserialize` and `schemars::JsonSchema` too.
/// 2. **Handler struct** with `#[tool(input = Args)]` (and usually `output = Results`): the
///    handler's own fields (a client, a pool, ...) are not part of any schema. The handler may
///    be a unit, tuple or named struct, and may be generic when `input` and `output` do not
///    use its parameters.
/// 3. **Unit struct** with no `input`: a tool with no parameters, input schema
///    `{"type":"object","additionalProperties":false}` (MCP's recommendation), arguments
///    `toolmodel::NoArguments`.
///
/// An enum, a union, a tuple struct without `input`, generic arguments, `input` naming the
/// struct itself: each is a compile error saying what to write instead.
///
/// # Attributes: `#[tool(...)]`
///
/// | key | value | default | checked at compile time |
/// |---|---|---|---|
/// | `name` | `"..."` | the struct name in snake_case | MCP "Tool Names": 1–128 of `[A-Za-z0-9_.-]` |
/// | `namespace` | `"..."` | none | the same rules |
/// | `version` | `"..."` | none | a semantic version, `1.2.3` or `v1.2.3` |
/// | `title` | `"..."` | none (MCP `title`) | |
/// | `description` | `"..."` | the struct's doc comment, else the input type's | |
/// | `input` | a type: `Deserialize + JsonSchema` | the struct itself (named fields), none (unit struct) | the traits, with a readable message; not the struct itself |
/// | `output` | a type: `Serialize + JsonSchema` | none: no `outputSchema`, output `toolmodel::NoOutput` | the traits; any schema (see below) |
/// | `tags(...)` | `"a", "b"` | none | each in normal form (the error shows it), no duplicates, at most 20 |
/// | `annotations(...)` | `read_only`, `destructive`, `idempotent`, `open_world` (each alone or `= bool`), `title = "..."` | none | |
/// | `icon(...)` (repeatable) | `src = "..."`, `mime_type = "..."`, `sizes = ["48x48", "any"]`, `theme = "light"` or `"dark"` | none | `src` given, scheme `https:`, `http:` or `data:`; `theme` |
/// | `task_support` | `"forbidden"`, `"optional"` or `"required"` | none (MCP: forbidden) | the value |
/// | `local` | `"handler-name"` | the tool ID | not blank |
/// | `register` | — | off | needs the `inventory` feature; not on a generic struct |
/// | `crate` | `"path"` | `::toolmodel` | for a renamed dependency |
/// | `schema(...)` | `keep_schema_uri`, `keep_title`, `keep_description`, `keep_refs`, `keep_integer_widths`, `keep_formats`, `keep_open_objects` (each alone or `= bool`) | all off: `toolmodel::SchemaProfile::MCP` (input objects closed) | |
///
/// **Closed input schemas.** The input schema's objects get `"additionalProperties": false`
/// (see `toolmodel::define::CloseObjects` for the exact rule): a misspelt argument is refused
/// by validation, naming the key, where `serde` would drop it without a word. Open them with
/// `#[tool(schema(keep_open_objects))]`, to accept and ignore unknown keys as before.
///
/// Every problem is reported at once, on the offending token; an unknown key gets the
/// closest known one as a suggestion, and a key given twice is an error. Field doc comments
/// and `#[serde]` / `#[schemars]` attributes shape the schemas as in `schemars`.
///
/// # What it generates
///
/// An `impl toolmodel::ToolDefinition` with the constants `NAME`, `NAMESPACE` and `ID`
/// (`"namespace:name"` or `"name"`, computed at compile time); one `static` holding the
/// tool's constant description and the caches the runtime fills once (the `Tool`, built on the
/// first `tool()` call with the local backend binding, and the compiled input and output
/// schemas); and four small `#[inline]` methods that generate the schemas, deserialize the
/// arguments and serialize the output. Being `#[inline]`, those are compiled only where a tool
/// is used: defining 100 tools costs about what their `Deserialize` and `JsonSchema` derives
/// cost. Generated code uses only absolute paths into `toolmodel` (or `crate = "..."`), so a
/// crate needs no other dependency than `toolmodel`, `serde` (for its own derives) and
/// `schemars` through `use toolmodel::schemars;`.
///
/// # Field attribute: `#[tool(header = "Name")]`
///
/// On a field of an arguments struct (shape 1), mirrors the argument into the HTTP header
/// `Mcp-Param-Name` (MCP 2026-07-28, `x-mcp-header`): the derive writes
/// `"x-mcp-header": "Name"` into the field's property schema, found by its serde name
/// (`#[serde(rename)]` and the struct's `#[serde(rename_all)]` are followed). Checked at
/// compile time: the name is a non-empty RFC 9110 token without control characters, unique
/// case-insensitively among the struct's headers; the field is a property of its own (not
/// `skip` or `flatten`) and not `f32`/`f64` (never on a number). When the tool is built,
/// `Tool::validate` checks the rest on the schema (type `integer`, `string` or `boolean`).
///
/// With `input = Args`, the handler's fields are no arguments: put
/// `#[schemars(extend("x-mcp-header" = "Name"))]` on the field of `Args` instead; the built
/// tool checks it the same way.
///
/// # The schemas' roots
///
/// MCP requires `"type": "object"` at the root of `inputSchema`. A derive sees tokens, not
/// types, so it cannot know the schema of `input = Args` at compile time: the check runs when
/// the tool is first built. `try_tool()` returns `toolmodel::Error::ToolType` naming the Rust
/// type (and `tool()` panics with that message) for an input type whose schema is not an
/// object (an enum, a `#[serde(transparent)]` wrapper of a string).
///
/// `output` may have any schema (MCP 2026-07-28: `outputSchema` is any JSON Schema 2020-12,
/// so `output = Vec<Item>` builds). Writing the tool for 2025-11-25 or older, where the root
/// must be `"type": "object"`, is `toolmodel::Error::Unwritable` from
/// `Tool::to_mcp_json_for`.
///
/// # Example
///
/// Compiled and run as the trybuild case `ui-tests/ui/pass/doc_example.rs` (this crate cannot
/// run it as a doctest: depending on `toolmodel`, which depends on it, makes a cycle that
/// `cargo package` cannot resolve); `toolmodel`'s own docs hold more, run as doctests.
///
/// ```ignore
/// use serde::{Deserialize, Serialize};
/// use toolmodel::{Tool, ToolDefinition, schemars::{self, JsonSchema}};
///
/// #[derive(Deserialize, JsonSchema)]
/// struct SearchArgs {
///     /// What to look for.
///     query: String,
///     /// At most this many results (1 to 100).
///     #[schemars(range(min = 1, max = 100))]
///     limit: Option<u32>,
/// }
///
/// #[derive(Serialize, JsonSchema)]
/// struct SearchResults {
///     hits: Vec<String>,
/// }
///
/// /// Searches the index.
/// #[derive(Tool)]
/// #[tool(
///     namespace = "docs",
///     version = "1.2.0",
///     input = SearchArgs,
///     output = SearchResults,
///     tags("search", "docs"),
///     annotations(read_only, open_world = false),
/// )]
/// struct Search {
///     index: Vec<String>,
/// }
///
/// assert_eq!(Search::ID, "docs:search");
/// let tool = Search::tool();
/// assert_eq!(tool.description.as_deref(), Some("Searches the index."));
/// assert_eq!(tool.annotations.as_ref().and_then(|a| a.read_only_hint), Some(true));
/// ```
#[proc_macro_derive(Tool, attributes(tool))]
pub fn derive_tool(input: TokenStream) -> TokenStream {
    let input = syn::parse_macro_input!(input as syn::DeriveInput);
    expand::derive(&input).into()
}
