//! Tools defined by Rust types: what [`ToolDefinition`](crate::ToolDefinition) (the trait
//! `#[derive(Tool)]` implements) is built from. [`ToolInput`] and [`ToolOutput`] are the
//! bounds a type meets to be a tool's arguments or its `structuredContent`; [`TypeProblem`]
//! says why a derived tool's type cannot be one; the schema profile
//! ([`SchemaProfile`](crate::SchemaProfile) with [`ProfiledSchema`], [`IntegerBounds`],
//! [`CloseObjects`] and [`MAX_SAFE_INTEGER`]) turns a type's `schemars` schema into a tool
//! schema MCP clients accept.
//!
//! # The schema profile
//!
//! [`SchemaProfile::MCP`](crate::SchemaProfile::MCP) is what `#[derive(Tool)]` uses. Starting
//! from explicit `schemars` 2020-12 settings ([`SchemaSettings::draft2020_12`]), it makes
//! these changes, each of which a tool can switch off (`#[tool(schema(keep_...))]`, or the
//! matching field of [`SchemaProfile`](crate::SchemaProfile)):
//!
//! | point | default | switch |
//! |---|---|---|
//! | dialect | JSON Schema 2020-12 (MCP's default), without a `$schema` key: some clients choke on it | [`keep_schema_uri`](crate::SchemaProfile::keep_schema_uri) |
//! | root `title` | removed (`schemars` sets it to the Rust type's name) | [`keep_title`](crate::SchemaProfile::keep_title) |
//! | root `description` | taken out, returned as [`ProfiledSchema::description`] (the tool's description) | [`keep_description`](crate::SchemaProfile::keep_description) |
//! | `$defs` / `$ref` | subschemas inlined; only recursive types keep `$defs` and `$ref` | [`keep_refs`](crate::SchemaProfile::keep_refs) |
//! | integer widths | exact `minimum` and `maximum` from the `format` `schemars` writes ([`IntegerBounds`]), except bounds beyond ±(2^53 − 1) ([`MAX_SAFE_INTEGER`]), which are left out | [`keep_integer_widths`](crate::SchemaProfile::keep_integer_widths) |
//! | `format` | only the formats JSON Schema 2020-12 defines are kept (`uint32`, `int64`, `double`, `float`, `uint`, `ip`, ... are removed) | [`keep_formats`](crate::SchemaProfile::keep_formats) |
//! | open objects (input only) | closed: every object schema of the input that lists `properties` and says nothing of other keys gets `"additionalProperties": false` ([`CloseObjects`]) | [`keep_open_objects`](crate::SchemaProfile::keep_open_objects) |
//!
//! Two points need no change, because `schemars` already does them: an `Option<T>` field is
//! optional (not in `required`) and nullable (`"type": ["string", "null"]`, or `anyOf` with
//! `{"type": "null"}`) in the input schema; and the output schema describes how the output
//! *serializes* ([`SchemaProfile::output_schema`] uses the serialize contract, so
//! `skip_serializing_if`, `rename` for serialization and friends are honoured).
//!
//! **Closed input objects.** `serde` ignores a key a struct does not know, so a misspelt
//! optional argument (`"tgas"` for `"tags"`) would be dropped without a word. Closed, the input
//! schema refuses it, and validation names it by its pointer (`/tgas: unexpected property
//! "tgas"; expected one of "query", "tags"`), so the model can retry. An object schema that
//! combines subschemas (`allOf`, `anyOf`, `oneOf`, `if`, `$ref`, `dependentSchemas`: what
//! `#[serde(flatten)]` of an enum or a `schemars` attribute may write) is left open, because
//! `additionalProperties` does not see the properties of its subschemas; so is a map
//! (`additionalProperties` already set) and a struct with `#[serde(deny_unknown_fields)]`
//! (closed already). Output schemas stay as `schemars` writes them.
//!
//! **Integers beyond 2^53.** JSON readers that hold numbers as IEEE doubles (JavaScript, and
//! many a JSON library) read `18446744073709551615` (`u64::MAX`) as `18446744073709552000`, a
//! bound the Rust side does not mean. So no bound beyond ±(2^53 − 1) is written: `u64`,
//! `usize`, `i64` and `isize` keep the bounds inside that range (`"minimum": 0` for the
//! unsigned ones) and lose the others. A value beyond the type's range is still refused, by
//! the typed parse: `ToolDefinition::parse` gives `Error::Arguments` at the value's JSON
//! Pointer (`invalid type: floating point 1.8446744073709552e19, expected u64`), and a
//! `Toolbox` call returns it as an `isError` result. A bound written by hand
//! (`#[schemars(range(max = ...))]`) is kept as written.
//!
//! Why: clients such as Claude Code, Gemini and LangGraph have rejected tools whose schemas
//! carry `$ref`, `$schema` or non-standard formats (see rmcp issues #135, #251 and #663), and an
//! exact `minimum`/`maximum` turns an out-of-range number into a validation error that names the
//! argument, before deserialization is tried.
//!
//! ```
//! use schemars::JsonSchema;
//! use serde_json::json;
//! use toolmodel::SchemaProfile;
//!
//! /// Sets the volume.
//! #[derive(JsonSchema)]
//! struct Volume {
//!     /// 0 to 255.
//!     level: u8,
//!     /// Where.
//!     room: Option<String>,
//! }
//!
//! let profiled = SchemaProfile::MCP.input_schema::<Volume>();
//! assert_eq!(profiled.description.as_deref(), Some("Sets the volume."));
//! assert_eq!(
//!     profiled.schema.as_value(),
//!     &json!({
//!         "type": "object",
//!         "properties": {
//!             "level": {"type": "integer", "minimum": 0, "maximum": 255, "description": "0 to 255."},
//!             "room": {"type": ["string", "null"], "description": "Where."}
//!         },
//!         "required": ["level"],
//!         "additionalProperties": false
//!     })
//! );
//! ```
//!
//! [`SchemaSettings::draft2020_12`]: schemars::generate::SchemaSettings::draft2020_12
//! [`SchemaProfile::output_schema`]: crate::SchemaProfile::output_schema

pub(crate) mod definition;
pub(crate) mod integer_valued;
pub(crate) mod profile;
#[cfg(feature = "inventory")]
pub(crate) mod registry;
pub(crate) mod type_problem;

pub use definition::{ToolInput, ToolOutput};
pub use profile::{CloseObjects, IntegerBounds, MAX_SAFE_INTEGER, ProfiledSchema};
pub use type_problem::TypeProblem;
