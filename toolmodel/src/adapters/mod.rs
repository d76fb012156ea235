//! Provider adapters: a [`Tool`](struct@crate::Tool) to OpenAI, Anthropic and Gemini
//! function-calling formats (and MCP), and back, saying precisely what each conversion changed (the
//! `adapters` feature, on by default).
//!
//! - [`convert`] / [`convert_all`]: a tool (or a batch, with collision-free names and a
//!   [`NameMap`] to route calls back) to one [`Target`], plain or strict
//!   ([`ConvertOptions`]). The result is the converted JSON plus every [`Warning`], sorted.
//! - [`read`]: a provider's JSON back into a [`Tool`](struct@crate::Tool) ([`ReadOptions::lenient`]
//!   maps non-standard types such as BFCL's `dict` and `float`, with warnings).
//! - [`check`] and [`portability`]: the warnings (or the error) a tool would get, per target,
//!   without keeping the output; what a linter shows.
//!
//! ```
//! use serde_json::json;
//! use toolmodel::Tool;
//! use toolmodel::adapters::{Action, ConvertOptions, Target, convert};
//!
//! let tool = Tool::from_mcp_json(&json!({
//!     "name": "weather.get",
//!     "title": "Weather",
//!     "inputSchema": {
//!         "type": "object",
//!         "properties": {
//!             "city": {"type": "string"},
//!             "unit": {"enum": ["C", "F"]}
//!         },
//!         "required": ["city"]
//!     }
//! }))?;
//! let out = convert(&tool, Target::OpenAiChat, &ConvertOptions::default().with_strict(true))?;
//! assert_eq!(out.value["function"]["name"], "weather_get");
//! assert_eq!(out.value["function"]["strict"], true);
//! assert_eq!(out.value["function"]["parameters"]["required"], json!(["city", "unit"]));
//! for warning in &out.warnings {
//!     println!("{warning}"); // e.g. "openai-chat: /title: title: dropped: openai-chat tools have no title"
//! }
//! assert!(out.warnings.iter().any(|w| w.pointer == "/inputSchema/properties/unit"
//!     && w.action == Action::Rewritten { exact: false }));
//! # Ok::<(), toolmodel::Error>(())
//! ```
//!
//! # What each target holds
//!
//! Tool level (a field a target cannot hold is dropped with a [`Warning`] at its pointer; the
//! extensions are this library's own data, never part of a target's tool, so leaving them out
//! is no loss and gives no warning):
//!
//! | field | MCP | OpenAI Chat / Responses | Anthropic | Gemini |
//! |---|---|---|---|---|
//! | `name` | kept (MCP rule) | mapped to `^[a-zA-Z0-9_-]{1,64}$` | mapped to `^[a-zA-Z0-9_-]{1,64}$` | mapped to `[A-Za-z_][A-Za-z0-9_.:-]{0,127}` |
//! | `description` | kept | kept | kept | kept |
//! | `inputSchema` | kept | `parameters` | `input_schema` | `parameters` (OpenAPI subset) or `parametersJsonSchema` |
//! | `outputSchema` | kept | dropped | dropped | `response` or `responseJsonSchema` |
//! | `title`, `annotations`, `icons`, `execution`, `_meta` | kept | dropped | dropped | dropped |
//! | `namespace`, `version`, `tags`, `backends`, `category`, `requiredScopes`, `timeoutMs` (extensions) | not written | not written | not written | not written |
//! | unknown keys ([`Tool::extra`]) | kept | `strict` carried, others dropped | `strict`, `input_examples`, `cache_control`, `type`, `defer_loading`, `allowed_callers`, `eager_input_streaming` carried, others dropped | `behavior` carried, others dropped |
//!
//! Names are mapped as ["Tool names"](crate::adapters#tool-names) below says (`.` to `_`, other characters to `_`, long names
//! shortened with a stable hash, collisions suffixed); with
//! [`ConvertOptions::qualified_names`] the namespace goes into the name (`github.search` →
//! `github_search`).
//!
//! Schemas (sources and dates next to each table in the code: OpenAI's Structured Outputs
//! guide, Anthropic's structured-outputs documentation and Python SDK, Gemini's `Schema`
//! reference, all read 2026-11-21):
//!
//! | JSON Schema | OpenAI plain, Anthropic plain | OpenAI strict | Anthropic strict | Gemini `parameters` | Gemini `parametersJsonSchema` |
//! |---|---|---|---|---|---|
//! | root | must be `"type": "object"` | object, no `anyOf`/`oneOf` at the root | same | converted | kept |
//! | `type` lists, `null` | kept | kept | kept | one upper-case type + `nullable`; several types → `anyOf` | kept |
//! | `enum` | kept | kept | primitive values only | strings; numbers as strings with `format: "enum"` | kept |
//! | `const` | kept | kept | kept | one-value `enum` | reported |
//! | `anyOf` | kept | kept | kept | kept | kept |
//! | `oneOf` | kept | → `anyOf` (exact when the branches cannot overlap) | → `anyOf` (same) | → `anyOf` (same) | kept |
//! | `allOf` | kept | merged when exact, else an error (or dropped, widening) | kept | merged when exact, else moved | reported |
//! | `not`, `if`/`then`/`else`, `dependent*`, `patternProperties`, `propertyNames`, `unevaluated*`, `contains`, `uniqueItems` | kept | moved to description | moved | moved | reported |
//! | `$ref`, `$defs` | kept | kept (recursion too); a `$ref` with siblings is inlined | kept, a `$ref` with siblings inlined; recursion is an error | inlined; recursion through root `$defs` kept as `ref`/`defs`, other recursion an error (or dropped, widening) | kept |
//! | `additionalProperties` | kept | must be `false`: added where absent, an open object is an error | same | kept | kept |
//! | `required` | kept | every property; optional ones made nullable | kept | kept | kept |
//! | `minLength`, `maxLength` | kept | moved | moved | kept | reported |
//! | `pattern` | kept | kept | kept unless backreferences, lookaround, `\b` | kept | reported |
//! | `format` | kept | listed formats kept, others moved | listed formats kept, others moved | strings any; numbers `float`/`double`, `int32`/`int64` | kept |
//! | `minimum`, `maximum` | kept | kept | moved | kept | kept |
//! | `exclusiveMinimum`, `exclusiveMaximum`, `multipleOf` | kept | kept | moved | moved | reported |
//! | `minItems`, `maxItems` | kept | kept | `minItems` 0 or 1 kept, others moved | kept | kept |
//! | `minProperties`, `maxProperties` | kept | moved | moved | kept | reported |
//! | `default` | kept | moved (`null`: dropped) | moved | kept | reported |
//! | `title`, `description` | kept | kept | kept | kept | kept |
//! | `examples`, `$comment`, `deprecated`, `readOnly`, `writeOnly`, `$schema`, unknown keywords | kept | dropped | dropped | dropped | reported |
//!
//! "Moved" means moved into the schema object's `description` as JSON text
//! ([`Action::MovedToDescription`]; [`ConvertOptions::constraints_to_description`] off drops
//! instead). "Reported" means sent unchanged with an [`Action::Unsupported`] warning: Gemini
//! documents that it ignores keywords it does not support. Plain OpenAI and Anthropic pass the
//! schema through: their non-strict modes take any JSON Schema (the model reads it; nothing
//! enforces it).
//!
//! # Round trips
//!
//! [`read`] inverts [`convert`]: for every target, `read(convert(tool))` gives back the tool's
//! MCP form exactly whenever the conversion issued no warning. Two documented exceptions: a
//! strict conversion writes `strict: true`, and an OpenAI Responses conversion writes `strict`
//! always (an absent `strict` means `true` there); reading keeps that `strict` key in
//! [`Tool::extra`], so that converting again to the same target gives the same JSON.
//!
//! # Tool names
//!
//! ## The rules
//!
//! | target | rule | source (read 2026-11-21) |
//! |---|---|---|
//! | MCP | 1–128 characters of `[A-Za-z0-9_.-]` | MCP 2025-11-25, "Tool Names" |
//! | OpenAI (both APIs), Anthropic | `^[a-zA-Z0-9_-]{1,64}$` | OpenAI API reference, `function.name`; Anthropic Messages API, `tools[].name` |
//! | Gemini | starts with a letter or `_`; then `[A-Za-z0-9_.:-]`; at most 128 characters | Gemini API / Vertex AI reference, `FunctionDeclaration.name` (older revisions said 64) |
//!
//! ## The mapping
//!
//! A name the target allows is kept as it is. Any other name is mapped, in this order:
//!
//! 1. the base is the tool's name, or `namespace.name` when
//!    [`ConvertOptions::qualified_names`] is on and the
//!    tool has a namespace;
//! 2. every character the target does not allow becomes `_` (so `.` becomes `_` on OpenAI and
//!    Anthropic; a non-ASCII character becomes one `_`); an empty name becomes `_`;
//! 3. Gemini only: a name that does not start with a letter or `_` gets a `_` in front;
//! 4. a name longer than the target's maximum keeps its first `max - 9` characters, then `_` and
//!    eight lowercase hexadecimal digits of the 64-bit FNV-1a hash of the base's UTF-8 bytes
//!    (folded to 32 bits), so that two long names with the same beginning stay apart;
//! 5. within one batch ([`convert_all`]), names the target allows unchanged
//!    are reserved first; a mapped name (or a repeated name) that is already taken gets the
//!    smallest suffix `_2`, `_3`, ... that makes it free (shortening the name before the suffix
//!    when needed).
//!
//! The result depends only on the names and their order in the batch, never on a random seed or
//! the Rust version. [`NameMap`] gives, for every name sent to the target, the tool it stands for,
//! so that a call coming back can be routed to the original tool.
//!
//! # Errors
//!
//! A conversion never panics. It fails with [`Error::Conversion`] (naming the JSON Pointer and
//! the reason) when the target cannot hold the schema even with a warning, with
//! [`Error::RecursiveSchema`] for recursion a target cannot take, [`Error::SchemaTooLarge`]
//! when inlining references exceeds [`ConvertOptions::inline_budget`],
//! [`Error::SchemaTooDeep`] beyond 120 levels of nesting, [`Error::ExternalRef`] for a
//! reference outside the schema (never fetched), and [`Error::InvalidSchema`] for a `type`
//! name JSON Schema does not define (`"strin"`, `"dict"`): every provider refuses those, and
//! reading the converted tool back would too. Whatever a conversion writes reads back.

mod anthropic;
mod combinators;
mod context;
mod driver;
mod facts;
mod fields;
mod gemini;
mod keywords;
mod lenient;
mod names;
mod openai;
mod openapi;
mod options;
mod read_schema;
mod refs;
mod results;
mod strict;
mod target;
mod warning;

use serde_json::Value;

pub use names::{NameEntry, NameMap};
pub use options::{ConvertOptions, DEFAULT_INLINE_BUDGET, ReadOptions};
pub use results::{Batch, Conversion, ProfileReport, Reading};
pub use target::{Profile, Target};
pub use warning::{Action, Warning};

use crate::error::Error;
use crate::model::tool::Tool;
use driver::convert_named;

/// Converts one tool to `target`.
///
/// The name is mapped alone (see ["Tool names"](crate::adapters#tool-names)); use [`convert_all`] for a list, so that mapped
/// names cannot collide.
///
/// # Errors
///
/// [`Error::Conversion`] (strict mode on a target without one, a schema the target cannot hold with
/// the pointer and the reason), [`Error::RecursiveSchema`], [`Error::SchemaTooLarge`],
/// [`Error::SchemaTooDeep`], [`Error::ExternalRef`], [`Error::InvalidSchema`] (a `type` name JSON
/// Schema does not define, each with its pointer; not for [`Target::Mcp`]); [`Error::Conversion`]
/// too for any other value of the tool nested more than
/// [`ValidationLimits::max_depth`](crate::validate::ValidationLimits::max_depth) (128) levels. See
/// the [module docs](self).
pub fn convert(tool: &Tool, target: Target, options: &ConvertOptions) -> Result<Conversion, Error> {
    let name = names::single(
        target,
        options.qualified_names,
        tool.namespace.as_deref(),
        &tool.name,
    );
    convert_named(tool, target, options, name)
}

/// Converts a list of tools to `target`, with target names unique across the list.
///
/// Every tool is converted even when others fail; [`Batch::names`] routes the target names of
/// calls coming back to the tools.
#[must_use]
pub fn convert_all(tools: &[Tool], target: Target, options: &ConvertOptions) -> Batch {
    let names = NameMap::assign(
        target,
        options.qualified_names,
        tools
            .iter()
            .map(|t| (t.namespace.as_deref(), t.name.as_str())),
    );
    let results = tools
        .iter()
        .enumerate()
        .map(|(index, tool)| {
            let name = names.target_name(index).unwrap_or(&tool.name).to_owned();
            convert_named(tool, target, options, name)
        })
        .collect();
    Batch { results, names }
}

/// The warnings converting `tool` to `target` would give, without the output.
///
/// # Errors
///
/// As [`convert`].
pub fn check(tool: &Tool, target: Target, options: &ConvertOptions) -> Result<Vec<Warning>, Error> {
    convert(tool, target, options).map(|c| c.warnings)
}

/// What converting `tool` to every [`Profile`] would give: the warnings, or the error. The
/// other options apply to every profile; [`ConvertOptions::strict`] is the profile's.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use toolmodel::Tool;
/// use toolmodel::adapters::{ConvertOptions, portability};
///
/// let tool = Tool::from_mcp_json(&json!({
///     "name": "search",
///     "inputSchema": {"type": "object", "properties": {"filters": {"type": "object"}}}
/// }))?;
/// for column in portability(&tool, &ConvertOptions::default()) {
///     match &column.outcome {
///         Ok(warnings) => println!("{}: {} warning(s)", column.profile, warnings.len()),
///         Err(err) => println!("{}: {err}", column.profile),
///     }
/// }
/// let strict = portability(&tool, &ConvertOptions::default())
///     .into_iter()
///     .find(|c| c.profile.to_string() == "openai-chat-strict")
///     .unwrap();
/// assert!(strict.outcome.is_err()); // the free-form `filters` object cannot be made strict
/// # Ok::<(), toolmodel::Error>(())
/// ```
#[must_use]
pub fn portability(tool: &Tool, options: &ConvertOptions) -> Vec<ProfileReport> {
    Profile::ALL
        .iter()
        .map(|&profile| ProfileReport {
            profile,
            outcome: check(
                tool,
                profile.target,
                &options.clone().with_strict(profile.strict),
            ),
        })
        .collect()
}

/// Reads one tool in `target`'s format back into a [`Tool`](struct@crate::Tool).
///
/// | target | accepted |
/// |---|---|
/// | MCP | a `Tool` ([`Tool::from_mcp_json`]) |
/// | OpenAI Chat | `{"type":"function","function":{...}}`, or the bare function definition `{name, description, parameters}` |
/// | OpenAI Responses | `{"type":"function", name, description, parameters, strict}` (`type` optional) |
/// | Anthropic | `{name, description, input_schema, ...}` |
/// | Gemini | one `FunctionDeclaration` |
///
/// Keys the tool has no field for (`strict`, `cache_control`, `input_examples`, ...) go to
/// [`Tool::extra`] under their own names, and converting back to the same target writes them
/// again. A missing `parameters` (OpenAI, Gemini) reads as
/// `{"type":"object","additionalProperties":false}`, the schema MCP recommends for a tool
/// without parameters.
///
/// # Errors
///
/// [`Error::Json`] with the JSON Pointer for a wrong shape (not an object, `name` missing or
/// not a string, `type` not `"function"`, a schema that is not an object, Gemini's
/// `parameters` next to `parametersJsonSchema`); [`Error::InvalidSchema`] listing every `type`
/// name JSON Schema does not define, unless [`ReadOptions::lenient`];
/// [`Error::SchemaTooDeep`]; [`Error::Json`] for a document nested more than
/// [`ValidationLimits::max_depth`](crate::validate::ValidationLimits::max_depth) (128) levels.
pub fn read(target: Target, value: &Value, options: &ReadOptions) -> Result<Reading, Error> {
    // Reading copies values, which recurses once per level: bound the document first.
    let limit = crate::validate::limits::ValidationLimits::DEFAULT.max_depth;
    if let Some(pointer) = crate::validate::limits::deeper_than(value, limit) {
        return Err(crate::json::json_error(
            &pointer,
            format!("nested more than {limit} levels"),
        ));
    }
    match target {
        Target::Mcp => Ok(Reading {
            tool: Tool::from_mcp_json(value)?,
            warnings: Vec::new(),
        }),
        Target::OpenAiChat | Target::OpenAiResponses => openai::read(target, value, options),
        Target::Anthropic => anthropic::read(value, options),
        Target::Gemini => gemini::read(value, options),
    }
}
