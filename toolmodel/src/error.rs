//! The crate's one error type, [`Error`].

use std::fmt::{self, Write as _};

use crate::define::type_problem::TypeProblem;
use crate::model::id::problem::ToolIdProblem;
use crate::model::name::rules::NameError;
use crate::model::protocol::version::ProtocolVersion;
use crate::validate::issue::{InstanceError, SchemaIssue};
use crate::validate::violation::Violation;

/// Every error `toolmodel` returns.
///
/// Each variant carries the offending value and where it is (a JSON Pointer, or a line and
/// column). The enum is `#[non_exhaustive]`; classify with `matches!`:
///
/// ```
/// use serde_json::json;
/// use toolmodel::{DefaultValidator, Error, SchemaValidator};
///
/// let err = DefaultValidator::new()
///     .validate(&json!({"type": "integer"}), &json!("7"))
///     .unwrap_err();
/// assert!(matches!(err, Error::InvalidInstance { .. }));
/// ```
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A name breaks the MCP "Tool Names" rules ([`check_name`](crate::model::name::check_name)).
    #[error("{0}")]
    InvalidName(NameError),

    /// A text is not a valid [`ToolId`](crate::ToolId).
    #[error("invalid tool id {input:?}: {}", join(problems))]
    InvalidToolId {
        /// The text as given.
        input: String,
        /// Every problem found.
        problems: Vec<ToolIdProblem>,
    },

    /// A tool breaks MCP rules ([`Tool::validate`](crate::Tool::validate)).
    #[error("tool {name:?} is invalid: {}", join(violations))]
    InvalidTool {
        /// The tool's name, as given.
        name: String,
        /// Every violation found, each with its JSON Pointer.
        violations: Vec<Violation>,
    },

    /// A value cannot be written for a protocol version without changing what it means
    /// ([`Tool::to_mcp_json_for`](crate::Tool::to_mcp_json_for): an `outputSchema` whose root
    /// is not `"type": "object"`, written for 2025-11-25 or older;
    /// [`CallToolResult::to_json_for`](crate::CallToolResult::to_json_for): a
    /// `structuredContent` that is not an object, or a `resultType` other than `"complete"`,
    /// written for a version that cannot say so). Nothing was written.
    #[error("{what} cannot be written for MCP {version}: {pointer}: {reason}")]
    Unwritable {
        /// What was being written: `tool "name"`, `CallToolResult`.
        what: String,
        /// The version asked for.
        version: ProtocolVersion,
        /// JSON Pointer of the value that cannot be written.
        pointer: &'static str,
        /// Why.
        reason: &'static str,
    },

    /// JSON that could not be read as the expected shape.
    #[error("{}", json_message(path, *line, *column, message))]
    Json {
        /// JSON Pointer of the offending value (`""` for the document or when unknown).
        path: String,
        /// 1-based line of the error when reading text; 0 when reading a `Value`.
        line: usize,
        /// 1-based column of the error when reading text; 0 when reading a `Value`.
        column: usize,
        /// What was wrong.
        message: String,
    },

    /// A value that must be a JSON object (a tool schema) is not one.
    #[error("a tool schema must be a JSON object, found {found}")]
    SchemaNotObject {
        /// The JSON type found (`null`, `array`, ...).
        found: &'static str,
    },

    /// A value outside a closed set of spellings.
    #[error("{field} {value:?} is not one of: {expected}")]
    UnknownValue {
        /// The field (its MCP name).
        field: &'static str,
        /// The value given.
        value: String,
        /// The values allowed.
        expected: &'static str,
    },

    /// A schema declares a dialect (`$schema`) this validator does not support. MCP: servers and
    /// clients "MUST handle unsupported dialects gracefully by returning an appropriate error".
    #[error(
        "unsupported JSON Schema dialect {uri:?} at {pointer:?}: supported are 2020-12 (the default) and draft-07"
    )]
    UnsupportedSchema {
        /// The `$schema` value.
        uri: String,
        /// JSON Pointer of the `$schema` keyword in the schema.
        pointer: String,
    },

    /// A schema is not valid against its dialect's meta-schema, or cannot be compiled.
    #[error("invalid schema: {}", join(issues))]
    InvalidSchema {
        /// Every problem found, each with its JSON Pointer in the schema.
        issues: Vec<SchemaIssue>,
    },

    /// A schema refers to a resource outside itself; `toolmodel` never fetches or reads one.
    #[error("schema refers to the external resource {reference:?}, which is never fetched")]
    ExternalRef {
        /// The reference as the schema wrote it (`other.json`, `https://example.com/s.json`,
        /// `urn:example:x`, ...).
        reference: String,
    },

    /// An instance (arguments or a result) does not match its schema.
    #[error("{} violation(s): {}", errors.len(), join(errors))]
    InvalidInstance {
        /// Every violation, each with instance path, schema path and message.
        errors: Vec<InstanceError>,
    },

    /// A tool cannot be converted to a provider format (the `adapters` feature): a schema the
    /// target cannot hold even with a warning (an open object in strict mode, a schema that
    /// accepts any value where strict mode needs a type, a reference that does not resolve, a
    /// strict mode the target does not have, ...).
    #[error("cannot convert to {target} at {pointer:?}: {reason}")]
    Conversion {
        /// The target's name (`openai`, `anthropic`, `gemini`, ...).
        target: &'static str,
        /// JSON Pointer of the offending value: into the tool's full JSON when converting
        /// (`/inputSchema/properties/x`), into the document when reading.
        pointer: String,
        /// What the target cannot hold, and why.
        reason: String,
    },

    /// A schema refers to itself (directly or through other definitions) and the target can
    /// hold neither the reference nor an inlined copy (the `adapters` feature). Allowing
    /// widening turns this into a warning where the target can take an unconstrained schema
    /// instead.
    #[error(
        "recursive schema: the reference {reference:?} at {pointer:?} cannot be inlined for {target}"
    )]
    RecursiveSchema {
        /// The target's name.
        target: &'static str,
        /// JSON Pointer of the `$ref` keyword.
        pointer: String,
        /// The reference, as written.
        reference: String,
    },

    /// A schema whose local references, expanded, make it too large: in the `adapters` feature,
    /// inlining them would produce a schema of more than `limit` JSON values
    /// (`adapters::ConvertOptions::inline_budget`); in
    /// [`DefaultValidator::compile`](crate::DefaultValidator::compile), expanding them would add
    /// more than `limit` JSON values
    /// ([`ValidationLimits::max_expansion`](crate::validate::ValidationLimits::max_expansion)). A
    /// "billion laughs" of definitions that each refer twice to the next stops here.
    #[error(
        "schema too large: inlining the reference at {pointer:?} exceeds the budget of {limit} JSON values"
    )]
    SchemaTooLarge {
        /// JSON Pointer of the `$ref` (adapters) or of the subschema (validator) whose expansion
        /// exceeded the budget.
        pointer: String,
        /// The budget, in JSON values.
        limit: usize,
    },

    /// A schema nests deeper than `limit` levels: levels of JSON (the `adapters` feature, whose
    /// limit of 120 leaves room in a provider request for the 128 levels `serde_json` reads back,
    /// and [`DefaultValidator::compile`](crate::DefaultValidator::compile), limit
    /// [`ValidationLimits::max_depth`](crate::validate::ValidationLimits::max_depth)), or, in the
    /// validator, subschemas applied at one place of the instance following references (a chain of
    /// `$ref`s).
    #[error("schema too deep: {pointer:?} is nested more than {limit} levels")]
    SchemaTooDeep {
        /// JSON Pointer of the first value found too deep; for a chain of references, of the
        /// subschema where the chain starts.
        pointer: String,
        /// The limit, in levels.
        limit: usize,
    },

    /// An instance (arguments or a result) nests deeper than `limit` levels of arrays and objects:
    /// [`ValidationLimits::max_depth`](crate::validate::ValidationLimits::max_depth), or less for a
    /// schema whose chains of subschemas are long (see
    /// [`ValidationLimits`](crate::validate::ValidationLimits)). Nothing was validated.
    #[error("instance too deep: {pointer:?} is nested more than {limit} levels")]
    InstanceTooDeep {
        /// JSON Pointer of the first value found too deep.
        pointer: String,
        /// The limit, in levels.
        limit: usize,
    },

    /// A Rust type cannot be a tool's arguments or result: its schema's root is not
    /// `"type": "object"`, which MCP 2025-11-25 requires of `inputSchema` and `outputSchema`.
    /// Found when a [`ToolDefinition`](crate::ToolDefinition) first builds its tool.
    #[error("tool {tool:?} cannot be built: {}", join(problems))]
    ToolType {
        /// The tool's name.
        tool: String,
        /// Each type that cannot be used, with where and why.
        problems: Vec<TypeProblem>,
    },

    /// Matching a `pattern` (or a `patternProperties` key) could not finish within the
    /// regular-expression limits
    /// ([`ValidationLimits::pattern_backtrack_limit`](crate::validate::ValidationLimits::pattern_backtrack_limit)),
    /// and the instance is valid or invalid depending on the outcome: it is neither accepted nor
    /// rejected. A violation found whatever the outcome is reported as [`Error::InvalidInstance`]
    /// instead.
    #[error(
        "undecided: the pattern at {schema_path:?} could not be matched against the string at {instance_path:?}: {reason}"
    )]
    PatternUndecided {
        /// JSON Pointer of the string (or of the object whose key it is) in the instance.
        instance_path: String,
        /// JSON Pointer of the keyword in the schema.
        schema_path: String,
        /// Why the match did not finish (the backtracking limit, an engine failure).
        reason: String,
    },

    /// `tools/call` named a tool the [`Toolbox`](crate::Toolbox) does not hold (MCP 2025-11-25,
    /// "Error Handling": unknown tools are a protocol error, JSON-RPC `-32602`).
    #[error(
        "unknown tool {name:?}{}",
        nearest.as_ref().map(|near| format!(" (did you mean {near:?}?)")).unwrap_or_default()
    )]
    UnknownTool {
        /// The name (or ID) as requested.
        name: String,
        /// The served name (or ID) closest to `name`, when one is close: the same name in
        /// another namespace (`search_notes` for `notes.search_notes`) or a few edits away.
        nearest: Option<String>,
    },

    /// A search query that cannot be searched ([`ToolIndex::search`](crate::search::ToolIndex::search),
    /// [`Toolbox::search`](crate::Toolbox::search)): empty, too long, or too many terms.
    #[error("{0}")]
    SearchQuery(crate::search::QueryError),

    /// A `tools/list` cursor the [`Toolbox`](crate::Toolbox) did not hand out (MCP
    /// "Pagination": an invalid cursor is JSON-RPC `-32602`).
    #[error("invalid cursor {cursor:?}")]
    InvalidCursor {
        /// The cursor as received.
        cursor: String,
    },

    /// A handler asked for a JSON-RPC error instead of a tool result
    /// ([`ToolError::Protocol`](crate::ToolError::Protocol)): the cases MCP says are not tool
    /// execution errors.
    #[error("protocol error {code}: {message}")]
    Protocol {
        /// The JSON-RPC error code.
        code: i64,
        /// The error message.
        message: String,
        /// The error's `data`, if any.
        data: Option<serde_json::Value>,
    },

    /// A handler's `structuredContent` does not match the tool's `outputSchema` (MCP
    /// 2025-11-25, "Output Schema": servers MUST provide structured results that conform to
    /// it). A bug in the server: the result is not sent; JSON-RPC `-32603`.
    #[error(
        "tool {tool:?} returned structuredContent that fails its outputSchema: {}",
        join(errors)
    )]
    InvalidOutput {
        /// The tool's MCP name.
        tool: String,
        /// Every violation, each with its JSON Pointer in the output and in the schema.
        errors: Vec<InstanceError>,
    },

    /// The call was cancelled (MCP "Cancellation": no response is sent for it).
    #[error("the call was cancelled")]
    Cancelled,

    /// The handler needs input from the client first (MCP 2026-07-28 multi round-trip
    /// requests, from [`ToolError::InputRequired`](crate::ToolError::InputRequired)): a server
    /// answers the call with an `InputRequiredResult` of these requests, not an error (as an
    /// error, JSON-RPC `-32603`).
    #[error("the call needs input from the client: {}", .0.keys())]
    InputRequired(crate::call::input::InputRequired),

    /// A handler made a request to the client (`sampling/createMessage`,
    /// `elicitation/create`) through a [`CallContext`](crate::CallContext) that has no
    /// [`CallPeer`](crate::peer::CallPeer) able to send it.
    #[error("no peer to send {method:?} to: the call has no connection to a client")]
    NoPeer {
        /// The MCP method, e.g. `"sampling/createMessage"`.
        method: String,
    },

    /// Two tools of a [`Toolbox`](crate::Toolbox) have one MCP name (`rmcp` keeps the last one
    /// silently; a toolbox refuses to build).
    #[error("two tools are served as {name:?}: {first} and {second}")]
    DuplicateTool {
        /// The MCP name both would be served under.
        name: String,
        /// The Rust type of the first tool's handler (for a hand-built tool, of its function).
        first: &'static str,
        /// The Rust type of the second tool's handler.
        second: &'static str,
    },

    /// A [`Toolbox`](crate::Toolbox) cannot be built: every problem found, each an `Error`
    /// ([`Error::DuplicateTool`], [`Error::InvalidName`], [`Error::ToolType`],
    /// [`Error::Unservable`]).
    #[error("the toolbox cannot be built: {}", join(problems))]
    InvalidToolbox {
        /// Every problem, in the order found.
        problems: Vec<Error>,
    },

    /// A tool of a [`Toolbox`](crate::Toolbox) cannot be listed for a model provider
    /// (`model_calls::ModelTools::new`, feature `adapters`): its conversion failed (a strict
    /// mode the schema cannot meet, recursion the provider cannot take, ...).
    #[error("tool {tool:?} cannot be listed for {provider}: {source}")]
    ToolList {
        /// The tool's MCP name.
        tool: String,
        /// The provider (`anthropic`, `openai-chat`, `openai-responses`, `gemini`).
        provider: &'static str,
        /// The conversion's error.
        source: Box<Error>,
    },

    /// A `#[tool(register)]` type cannot be put in a [`Toolbox`](crate::Toolbox) by
    /// `ToolboxBuilder::with_registered` (feature `inventory`): it is not a
    /// [`ToolHandler`](crate::ToolHandler), or it has state (no `Default`).
    #[error("the registered tool {type_name} cannot be served: {reason}")]
    Unservable {
        /// The Rust type.
        type_name: String,
        /// What it lacks.
        reason: String,
    },

    /// A document holds no tools in any known shape
    /// ([`tool_values`](crate::wire::catalog::tool_values)).
    #[error("at {pointer:?}: {reason}")]
    UnrecognizedDocument {
        /// JSON Pointer of the value that was not understood.
        pointer: String,
        /// What was expected.
        reason: String,
    },
}

impl Error {
    /// The JSON-RPC error code a server answers with when this error ends a request: `-32602`
    /// (invalid params) for [`Error::UnknownTool`] and [`Error::InvalidCursor`], the handler's
    /// own code for [`Error::Protocol`], and `-32603` (internal error) for everything else
    /// (MCP 2025-11-25, "Error Handling"; JSON-RPC 2.0 section 5.1).
    #[must_use]
    pub fn jsonrpc_code(&self) -> i64 {
        match self {
            Self::UnknownTool { .. } | Self::InvalidCursor { .. } => -32602,
            Self::Protocol { code, .. } => *code,
            _ => -32603,
        }
    }
}

fn join<T: fmt::Display>(items: &[T]) -> String {
    let mut out = String::new();
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push_str("; ");
        }
        let _ = write!(out, "{item}");
    }
    out
}

fn json_message(path: &str, line: usize, column: usize, message: &str) -> String {
    let mut out = String::from("invalid JSON");
    if line > 0 {
        let _ = write!(out, " at line {line} column {column}");
    }
    if !path.is_empty() {
        let _ = write!(out, " at {path}");
    }
    let _ = write!(out, ": {message}");
    out
}
