//! Provider adapters: a [`Tool`](struct@crate::Tool) to OpenAI, Anthropic and Gemini function-calling formats (and
//! MCP), and back, saying precisely what each conversion changed (the `adapters` feature, on by
//! default).
//!
//! - [`convert`] / [`convert_all`]: a tool (or a batch, with collision-free names and a
//!   [`NameMap`] to route calls back) to one [`Target`], plain or strict
//!   ([`ConvertOptions`]). The result is the converted JSON plus every [`Warning`], sorted.
//! - [`read`]: a provider's JSON back into a [`Tool`](struct@crate::Tool) ([`ReadOptions::lenient`] maps
//!   non-standard types such as BFCL's `dict` and `float`, with warnings).
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
//!     println!("{warning}"); // e.g. "openai: /title: title: dropped: openai tools have no title"
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
//! | `namespace`, `version`, `tags`, `backends` (extensions) | not written | not written | not written | not written |
//! | unknown keys ([`Tool::extra`]) | kept | `strict` carried, others dropped | `strict`, `input_examples`, `cache_control`, `type`, `defer_loading`, `allowed_callers`, `eager_input_streaming` carried, others dropped | `behavior` carried, others dropped |
//!
//! Names are mapped as [`names`] documents (`.` to `_`, other characters to `_`, long names
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
mod facts;
mod fields;
mod gemini;
mod keywords;
mod lenient;
pub mod names;
mod openai;
mod refs;
mod strict;
mod target;
mod warning;

use serde_json::Value;

pub use names::{NameEntry, NameMap};
pub use target::{Profile, Target};
pub use warning::{Action, Warning};

use crate::{Error, SchemaSlot, Tool, ToolSchema};
use context::{Ctx, check_depth, copy_within_depth};
use facts::Facts;

/// The default of [`ConvertOptions::inline_budget`]: 100,000 JSON values, far beyond any real
/// tool schema (the largest in the MCP corpus inlines to a few thousand).
pub const DEFAULT_INLINE_BUDGET: usize = 100_000;

/// How to convert. Build with [`ConvertOptions::default`] and the `with_*` methods.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConvertOptions {
    /// Apply the target's strict transform and mark the tool strict (OpenAI `strict: true`,
    /// Anthropic `strict: true`). Only targets with [`Target::has_strict_mode`]; others give
    /// [`Error::Conversion`]. Default `false`.
    pub strict: bool,
    /// Accept conversions that make a schema wider where the alternative is an error: a
    /// recursive reference replaced by an unconstrained schema, an `allOf` that cannot be
    /// merged dropped in strict mode, keywords next to a `$ref` that conflict with its target
    /// dropped. Each is a warning with [`Action::Dropped`] `{ widened: true }`. Default `false`.
    pub allow_widening: bool,
    /// Gemini: send the input schema as `parametersJsonSchema` (and the output schema as
    /// `responseJsonSchema`), plain JSON Schema, instead of the OpenAPI subset of `parameters`.
    /// Default `false`.
    pub gemini_json_schema: bool,
    /// Write unsupported constraint keywords into the description of the schema object that
    /// held them ([`Action::MovedToDescription`]) rather than only dropping them. Default
    /// `true`.
    pub constraints_to_description: bool,
    /// Build each target name from `namespace.name` when the tool has a namespace (then mapped
    /// like any name), so that tools of several servers do not collide. Default `false`.
    pub qualified_names: bool,
    /// The most JSON values inlining local references may produce for one schema
    /// ([`Error::SchemaTooLarge`] beyond). Default [`DEFAULT_INLINE_BUDGET`].
    pub inline_budget: usize,
}

impl Default for ConvertOptions {
    fn default() -> Self {
        Self {
            strict: false,
            allow_widening: false,
            gemini_json_schema: false,
            constraints_to_description: true,
            qualified_names: false,
            inline_budget: DEFAULT_INLINE_BUDGET,
        }
    }
}

impl ConvertOptions {
    /// Sets [`strict`](Self::strict).
    #[must_use]
    pub fn with_strict(mut self, strict: bool) -> Self {
        self.strict = strict;
        self
    }

    /// Sets [`allow_widening`](Self::allow_widening).
    #[must_use]
    pub fn with_allow_widening(mut self, allow: bool) -> Self {
        self.allow_widening = allow;
        self
    }

    /// Sets [`gemini_json_schema`](Self::gemini_json_schema).
    #[must_use]
    pub fn with_gemini_json_schema(mut self, json_schema: bool) -> Self {
        self.gemini_json_schema = json_schema;
        self
    }

    /// Sets [`constraints_to_description`](Self::constraints_to_description).
    #[must_use]
    pub fn with_constraints_to_description(mut self, move_them: bool) -> Self {
        self.constraints_to_description = move_them;
        self
    }

    /// Sets [`qualified_names`](Self::qualified_names).
    #[must_use]
    pub fn with_qualified_names(mut self, qualified: bool) -> Self {
        self.qualified_names = qualified;
        self
    }

    /// Sets [`inline_budget`](Self::inline_budget).
    #[must_use]
    pub fn with_inline_budget(mut self, budget: usize) -> Self {
        self.inline_budget = budget;
        self
    }
}

/// One tool converted to one target.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Conversion {
    /// The target.
    pub target: Target,
    /// Whether the strict transform was applied.
    pub strict: bool,
    /// The tool's name on the target (also in [`value`](Self::value)).
    pub name: String,
    /// The converted tool: one entry of the target's `tools` (or `functionDeclarations`) list.
    pub value: Value,
    /// Everything the conversion changed, sorted, without duplicates.
    pub warnings: Vec<Warning>,
}

/// A batch of tools converted to one target ([`convert_all`]).
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Batch {
    /// One result per tool, in the order given.
    pub results: Vec<Result<Conversion, Error>>,
    /// The target name of every tool (failed ones included), collision-free across the batch.
    pub names: NameMap,
}

/// How to read a provider's tool JSON back.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ReadOptions {
    /// Map `type` names JSON Schema does not define (`dict`, `float`, `tuple`, `any`,
    /// `String`, `HashMap`, ...) to standard ones, with a warning each, instead of failing with
    /// [`Error::InvalidSchema`]. Default `false`.
    pub lenient: bool,
}

impl ReadOptions {
    /// Sets [`lenient`](Self::lenient).
    #[must_use]
    pub fn with_lenient(mut self, lenient: bool) -> Self {
        self.lenient = lenient;
        self
    }
}

/// A tool read from a provider's JSON.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Reading {
    /// The tool, with the provider's name (route it with a [`NameMap`] if you renamed it).
    pub tool: Tool,
    /// What lenient reading mapped (empty otherwise), with pointers into the document read.
    pub warnings: Vec<Warning>,
}

/// One column of a portability report: a profile and what converting to it would give.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ProfileReport {
    /// The target and strictness.
    pub profile: Profile,
    /// The warnings of the conversion, or the error that stops it.
    pub outcome: Result<Vec<Warning>, Error>,
}

/// Converts one tool to `target`.
///
/// The name is mapped alone (see [`names`]); use [`convert_all`] for a list, so that mapped
/// names cannot collide.
///
/// # Errors
///
/// [`Error::Conversion`] (strict mode on a target without one, a schema the target cannot hold
/// with the pointer and the reason), [`Error::RecursiveSchema`], [`Error::SchemaTooLarge`],
/// [`Error::SchemaTooDeep`], [`Error::ExternalRef`], [`Error::InvalidSchema`] (a `type` name
/// JSON Schema does not define, each with its pointer; not for [`Target::Mcp`]);
/// [`Error::Conversion`] too for any other value of the tool nested more than [`Limits::max_depth`](crate::Limits::max_depth) (128)
/// levels. See the [module docs](self).
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
///     .find(|c| c.profile.to_string() == "openai-strict")
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
/// [`Limits::max_depth`](crate::Limits::max_depth) (128) levels.
pub fn read(target: Target, value: &Value, options: &ReadOptions) -> Result<Reading, Error> {
    // Reading copies values, which recurses once per level: bound the document first.
    let limit = crate::Limits::DEFAULT.max_depth;
    if let Some(pointer) = crate::limits::deeper_than(value, limit) {
        return Err(fields::json_error(
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

/// `name` quoted for a warning: whole up to 128 characters (MCP's longest valid name), else
/// its first 64 characters and its length, so that a hostile 10 MB name is not copied into
/// every warning.
fn quoted_name(name: &str) -> String {
    match name.char_indices().nth(128) {
        None => format!("{name:?}"),
        Some(_) => {
            let end = name
                .char_indices()
                .nth(64)
                .map_or(name.len(), |(end, _)| end);
            format!(
                "{:?}… ({} characters)",
                name.get(..end).unwrap_or_default(),
                name.chars().count()
            )
        }
    }
}

fn convert_named(
    tool: &Tool,
    target: Target,
    options: &ConvertOptions,
    name: String,
) -> Result<Conversion, Error> {
    if options.strict && !target.has_strict_mode() {
        return Err(Error::Conversion {
            target: target.as_str(),
            pointer: String::new(),
            reason: format!(
                "{target} has no strict mode; strict conversions exist for openai, openai-responses and anthropic"
            ),
        });
    }
    // Converting copies and writes values, which recurses once per level: bound the tool
    // first (its input schema with the stricter limit of converted schemas, checked while
    // copying it).
    let input_facts = Facts::of(&tool.input_schema);
    let input_copy = copy(&tool.input_schema, input_facts, "/inputSchema")?;
    let limit = crate::Limits::DEFAULT.max_depth;
    let output_facts = tool.output_schema.as_ref().map(Facts::of);
    let output_within = output_facts.is_none_or(|facts| facts.within_depth);
    // The schemas known to be within the depth are not walked again.
    let deeper = if input_facts.within_depth && output_within {
        crate::limits::tool_fields_deeper_than(tool, limit)
    } else {
        crate::limits::tool_deeper_than(tool, limit)
    };
    if let Some(pointer) = deeper {
        return Err(Error::Conversion {
            target: target.as_str(),
            pointer,
            reason: format!("nested more than {limit} levels"),
        });
    }
    // A strict conversion warns a few times per tool (each object closed, each optional
    // property made nullable): room for that up front spares the growing.
    let mut warnings = Vec::with_capacity(if options.strict { 8 } else { 0 });
    if name != tool.name {
        warnings.push(Warning {
            target,
            pointer: "/name".into(),
            feature: "name".into(),
            action: Action::Rewritten { exact: true },
            slot: None,
            detail: format!(
                "{} sent as {name:?}; the name map routes calls back",
                quoted_name(&tool.name)
            )
            .into(),
        });
    }
    fields::tool_level(tool, target, options, &mut warnings);
    let input = convert_schema(
        input_facts,
        &tool.input_schema,
        input_copy,
        SchemaSlot::Input,
        target,
        options,
        &mut warnings,
    )?;
    let value = match target {
        Target::Mcp => {
            let mut value = tool.to_mcp_json();
            if let Value::Object(map) = &mut value {
                map.insert("name".into(), Value::from(name.as_str()));
            }
            value
        }
        Target::OpenAiChat | Target::OpenAiResponses => {
            openai::write(tool, target, &name, input, options)
        }
        Target::Anthropic => anthropic::write(tool, &name, input, options),
        Target::Gemini => {
            let output = match tool.output_schema.as_ref().zip(output_facts) {
                Some((schema, facts)) => Some(convert_schema(
                    facts,
                    schema,
                    copy(schema, facts, "/outputSchema")?,
                    SchemaSlot::Output,
                    target,
                    options,
                    &mut warnings,
                )?),
                None => None,
            };
            gemini::write(tool, &name, input, output, options)
        }
    };
    warnings.sort();
    warnings.dedup();
    Ok(Conversion {
        target,
        strict: options.strict,
        name,
        value,
        warnings,
    })
}

/// A copy of `schema` to convert, checked for depth unless its `facts` say it is within.
fn copy(schema: &ToolSchema, facts: Facts, base: &str) -> Result<Value, Error> {
    if facts.within_depth {
        Ok(schema.to_value())
    } else {
        copy_within_depth(schema.as_value(), base)
    }
}

/// Converts `value`, a copy of `schema` (checked for depth as it was copied), whose `facts`
/// spare the type check when it has nothing to do.
fn convert_schema(
    facts: Facts,
    schema: &ToolSchema,
    mut value: Value,
    slot: SchemaSlot,
    target: Target,
    options: &ConvertOptions,
    warnings: &mut Vec<Warning>,
) -> Result<Value, Error> {
    let base = slot.pointer();
    let mut ctx = Ctx::new(target, options, Some(slot), base, warnings);
    let found = if target == Target::Mcp {
        lenient::Found::default()
    } else if facts.plain_types {
        facts.found
    } else {
        lenient::check_types(&mut value, &mut ctx)?
    };
    match target {
        Target::Mcp => {}
        Target::OpenAiChat | Target::OpenAiResponses | Target::Anthropic if options.strict => {
            if target == Target::Anthropic {
                strict::anthropic(&mut value, &mut ctx, found.references)?;
            } else {
                // With plain types the copy is still the tool's schema as it was.
                let unchanged = facts.plain_types.then(|| schema.as_value());
                strict::openai(&mut value, unchanged, &mut ctx, found.references)?;
            }
        }
        Target::OpenAiChat | Target::OpenAiResponses | Target::Anthropic => {
            if !schema.has_object_root() {
                return Err(ctx.error(
                    Some("type"),
                    format!("{target} needs a schema with \"type\": \"object\" at the root"),
                ));
            }
        }
        Target::Gemini if options.gemini_json_schema => gemini::check_json_schema(&value, &mut ctx),
        Target::Gemini => gemini::to_openapi(&mut value, &mut ctx, found.references)?,
    }
    // Inlining references nests deeper without a bound, strict mode (type lists, `anyOf`
    // wrappers, `required` lists) and the Gemini rewrites that wrap values (`const` as a
    // one-value `enum`, type lists as `anyOf`) within a bound that a shallow schema leaves room
    // for; otherwise the nesting is as it was checked.
    let rewritten = ctx.deepened || options.strict;
    if found.references || (rewritten && (!facts.plain_types || facts.may_nest_too_deep())) {
        check_depth(&value, base)?;
    }
    Ok(value)
}

/// Reads a schema found at `pointer` of a provider document: an object, checked (or mapped,
/// leniently) for standard `type` names.
fn read_schema(
    target: Target,
    value: &Value,
    pointer: &str,
    slot: SchemaSlot,
    options: &ReadOptions,
    warnings: &mut Vec<Warning>,
) -> Result<ToolSchema, Error> {
    if !value.is_object() {
        return Err(fields::json_error(
            pointer,
            format!(
                "a tool schema must be a JSON object, found {}",
                crate::model::schema::json_type(value)
            ),
        ));
    }
    check_depth(value, pointer)?;
    let mut schema = value.clone();
    let convert_options = ConvertOptions::default();
    let mut ctx = Ctx::new(target, &convert_options, Some(slot), pointer, warnings);
    lenient::standard_types(&mut schema, options.lenient, &mut ctx)?;
    ToolSchema::try_from(schema)
}
