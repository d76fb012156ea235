//! Validating instances against JSON Schemas: the [`SchemaValidator`] trait and
//! [`DefaultValidator`], built on the `jsonschema` crate with no network and no filesystem.
//!
//! # What the default validator does
//!
//! - **Dialects.** No `$schema`: JSON Schema 2020-12 (MCP's default; changeable with
//!   [`DefaultValidator::with_default_dialect`]). 2020-12 and draft-07 by their URIs (`http` or
//!   `https`, with or without the trailing `#`) are validated natively in that dialect. Any
//!   other root `$schema` (draft-04, draft-06, 2019-09, a custom meta-schema) is
//!   [`Error::UnsupportedSchema`].
//! - **Meta-schema.** A schema that is not valid against its dialect's meta-schema is
//!   [`Error::InvalidSchema`], listing every problem with its JSON Pointer in the schema.
//! - **References.** Local references (`#`, `#/$defs/...`, anchors, embedded `$id`s) work.
//!   Anything else (`http:`, `https:`, `file:`, `urn:`, a relative reference with no matching
//!   `$id`, a nested `$schema` naming a remote meta-schema) is [`Error::ExternalRef`] naming the
//!   reference. Nothing is ever fetched or read: the `jsonschema` crate is built without its
//!   `resolve-http` and `resolve-file` features, and the retriever given to it refuses every URI.
//! - **Instances.** A failing instance is [`Error::InvalidInstance`] with every violation:
//!   instance path, schema path (JSON Pointers) and message.
//! - **`format`** is an annotation by default, as JSON Schema 2020-12 specifies (and for
//!   draft-07 too, for consistency); [`DefaultValidator::with_format_assertions`] makes the
//!   known formats assertions. Unknown formats are always ignored.
//! - **Limits.** `contentEncoding`, `contentMediaType` and `contentSchema` are annotations (as in
//!   2020-12); `pattern` uses ECMA-262-like regular expressions through `fancy-regex`.
//!
//! # Caching
//!
//! A schema is compiled once. [`DefaultValidator::validate_arguments`] and
//! [`DefaultValidator::validate_result`] cache the compiled form of a tool's [`ToolSchema`] by
//! its identity (the shared allocation behind it, which clones share and which cannot change),
//! so repeated calls cost a hash lookup plus the validation itself. [`DefaultValidator::compile`]
//! gives you the compiled form to hold yourself. [`SchemaValidator::validate`] on a raw
//! [`Value`] compiles each time: use it for one-off checks only.

use std::{
    collections::HashMap,
    fmt,
    sync::{Arc, PoisonError, RwLock, Weak},
};

use serde_json::Value;

use crate::{Dialect, Error, Tool, ToolSchema, violation::SchemaSlot};

/// Validates JSON instances against JSON Schemas. Swappable: implement it to bring your own
/// validator; `toolmodel` ships [`DefaultValidator`].
pub trait SchemaValidator: Send + Sync {
    /// Validates `instance` against `schema` (any JSON Schema: an object or a boolean).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInstance`] when the instance does not match; the schema errors
    /// [`Error::UnsupportedSchema`], [`Error::InvalidSchema`], [`Error::ExternalRef`] when the
    /// schema cannot be used.
    fn validate(&self, schema: &Value, instance: &Value) -> Result<(), Error>;

    /// Validates the arguments of a `tools/call` against the tool's `inputSchema`.
    ///
    /// The type system already rules out a missing tool or a missing `inputSchema`; an absent
    /// `arguments` in a `tools/call` request is the empty object `{}`.
    ///
    /// # Errors
    ///
    /// As [`SchemaValidator::validate`].
    fn validate_arguments(&self, tool: &Tool, arguments: &Value) -> Result<(), Error> {
        self.validate(tool.input_schema.as_value(), arguments)
    }

    /// Validates a result's `structuredContent` against the tool's `outputSchema`; `Ok` when the
    /// tool declares none (MCP: servers must conform to the output schema when one is given).
    ///
    /// # Errors
    ///
    /// As [`SchemaValidator::validate`].
    fn validate_result(&self, tool: &Tool, structured_content: &Value) -> Result<(), Error> {
        match &tool.output_schema {
            Some(schema) => self.validate(schema.as_value(), structured_content),
            None => Ok(()),
        }
    }
}

/// One violation of an instance against its schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstanceError {
    /// JSON Pointer of the offending value in the instance (`""` is the whole instance).
    pub instance_path: String,
    /// JSON Pointer of the failing keyword in the schema (JSON Schema "keywordLocation").
    pub schema_path: String,
    /// The failing keyword (`type`, `required`, `minimum`, ...).
    pub keyword: String,
    /// What is wrong, naming the offending value.
    pub message: String,
}

impl fmt::Display for InstanceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.instance_path.is_empty() {
            "(root)"
        } else {
            &self.instance_path
        };
        write!(f, "{at}: {} (schema {})", self.message, self.schema_path)
    }
}

/// One problem of a schema: invalid against its meta-schema, or not compilable.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SchemaIssue {
    /// JSON Pointer of the offending value in the schema (`""` is the root).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for SchemaIssue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let at = if self.pointer.is_empty() {
            "(root)"
        } else {
            &self.pointer
        };
        write!(f, "{at}: {}", self.message)
    }
}

/// A schema compiled once, to validate many instances.
pub struct CompiledSchema {
    validator: jsonschema::Validator,
    dialect: Dialect,
}

impl CompiledSchema {
    /// The dialect the schema was compiled in.
    #[must_use]
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// Returns `true` when the instance matches, without collecting errors.
    #[must_use]
    pub fn is_valid(&self, instance: &Value) -> bool {
        self.validator.is_valid(instance)
    }

    /// Validates an instance.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidInstance`] with every violation.
    pub fn validate(&self, instance: &Value) -> Result<(), Error> {
        if self.validator.is_valid(instance) {
            return Ok(());
        }
        let errors: Vec<InstanceError> = self
            .validator
            .iter_errors(instance)
            .map(|err| InstanceError {
                instance_path: err.instance_path().as_str().to_owned(),
                schema_path: err.schema_path().as_str().to_owned(),
                keyword: err.kind().keyword().to_owned(),
                message: err.to_string(),
            })
            .collect();
        Err(Error::InvalidInstance { errors })
    }
}

impl fmt::Debug for CompiledSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CompiledSchema")
            .field("dialect", &self.dialect)
            .finish_non_exhaustive()
    }
}

/// Refuses every URI, so that no reference is ever fetched or read.
struct RefuseAll;

impl jsonschema::Retrieve for RefuseAll {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!("toolmodel never fetches external resources ({uri})").into())
    }
}

/// A cache entry: the compiled form of one shared schema.
struct Entry {
    /// Keeps the schema's allocation (not the schema) alive, so that its address is not reused
    /// while the entry exists; a dead `owner` marks a stale entry.
    owner: Weak<Value>,
    compiled: Result<Arc<CompiledSchema>, Error>,
}

/// The validator `toolmodel` ships: the `jsonschema` crate, configured for MCP, with no network
/// and no filesystem access. See [`SchemaValidator`] and the crate docs for what it supports.
///
/// It is `Send + Sync`: share one across threads (its cache is behind a lock).
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use toolmodel::{DefaultValidator, Error, SchemaValidator, Tool, ToolSchema};
///
/// let tool = Tool::new(
///     "add",
///     ToolSchema::try_from(json!({
///         "type": "object",
///         "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}},
///         "required": ["a", "b"]
///     }))?,
/// );
/// let validator = DefaultValidator::new();
/// validator.validate_arguments(&tool, &json!({"a": 1, "b": 2}))?;
///
/// let Err(Error::InvalidInstance { errors }) =
///     validator.validate_arguments(&tool, &json!({"a": "1"}))
/// else {
///     panic!("expected violations")
/// };
/// let paths: Vec<_> = errors.iter().map(|e| (e.instance_path.as_str(), e.keyword.as_str())).collect();
/// assert!(paths.contains(&("", "required")));
/// assert!(paths.contains(&("/a", "type")));
/// # Ok::<(), toolmodel::Error>(())
/// ```
pub struct DefaultValidator {
    default_dialect: Dialect,
    assert_formats: bool,
    cache: RwLock<HashMap<usize, Entry>>,
}

impl Default for DefaultValidator {
    fn default() -> Self {
        Self::new()
    }
}

impl fmt::Debug for DefaultValidator {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DefaultValidator")
            .field("default_dialect", &self.default_dialect)
            .field("assert_formats", &self.assert_formats)
            .finish_non_exhaustive()
    }
}

impl DefaultValidator {
    /// A validator with the defaults: 2020-12 when `$schema` is absent, `format` as annotation.
    #[must_use]
    pub fn new() -> Self {
        Self {
            default_dialect: Dialect::Draft202012,
            assert_formats: false,
            cache: RwLock::new(HashMap::new()),
        }
    }

    /// Makes the known `format`s assertions (`true`) or annotations (`false`, the default).
    #[must_use]
    pub fn with_format_assertions(mut self, assert: bool) -> Self {
        self.assert_formats = assert;
        self.cache = RwLock::new(HashMap::new());
        self
    }

    /// Sets the dialect of schemas without `$schema` (default: 2020-12, as MCP says).
    #[must_use]
    pub fn with_default_dialect(mut self, dialect: Dialect) -> Self {
        self.default_dialect = dialect;
        self.cache = RwLock::new(HashMap::new());
        self
    }

    /// The dialect a schema is read in: its root `$schema`, else the default.
    ///
    /// # Errors
    ///
    /// [`Error::UnsupportedSchema`] for a `$schema` other than 2020-12 or draft-07;
    /// [`Error::InvalidSchema`] for a `$schema` that is not a string.
    pub fn dialect_of(&self, schema: &Value) -> Result<Dialect, Error> {
        match schema.get("$schema") {
            None => Ok(self.default_dialect),
            Some(Value::String(uri)) => uri.parse(),
            Some(other) => Err(Error::InvalidSchema {
                issues: vec![SchemaIssue {
                    pointer: "/$schema".into(),
                    message: format!("$schema must be a string, found {other}"),
                }],
            }),
        }
    }

    /// Compiles a schema once, to validate many instances with [`CompiledSchema::validate`].
    ///
    /// # Errors
    ///
    /// - [`Error::UnsupportedSchema`]: a root `$schema` other than 2020-12 or draft-07.
    /// - [`Error::InvalidSchema`]: not valid against its dialect's meta-schema (every problem,
    ///   with its JSON Pointer), or a local reference that leads nowhere.
    /// - [`Error::ExternalRef`]: a reference to anything outside the schema.
    pub fn compile(&self, schema: &Value) -> Result<CompiledSchema, Error> {
        let dialect = self.dialect_of(schema)?;
        let meta = match dialect {
            Dialect::Draft202012 => jsonschema::draft202012::meta::validator(),
            Dialect::Draft7 => jsonschema::draft7::meta::validator(),
        };
        let issues: Vec<SchemaIssue> = meta
            .iter_errors(schema)
            .map(|err| SchemaIssue {
                pointer: err.instance_path().as_str().to_owned(),
                message: err.to_string(),
            })
            .collect();
        if !issues.is_empty() {
            return Err(Error::InvalidSchema { issues });
        }
        let validator = jsonschema::options()
            .with_draft(dialect.draft())
            .with_retriever(RefuseAll)
            .should_validate_formats(self.assert_formats)
            .should_ignore_unknown_formats(true)
            .build(schema)
            .map_err(compile_error)?;
        Ok(CompiledSchema { validator, dialect })
    }

    /// The compiled form of a tool schema, compiled on first use and cached by the schema's
    /// identity ([`ToolSchema::identity`]).
    ///
    /// # Errors
    ///
    /// As [`DefaultValidator::compile`]; a schema that failed to compile fails again from the
    /// cache without recompiling.
    pub fn compiled(&self, schema: &ToolSchema) -> Result<Arc<CompiledSchema>, Error> {
        let key = schema.identity() as usize;
        {
            let cache = self.cache.read().unwrap_or_else(PoisonError::into_inner);
            if let Some(entry) = cache.get(&key)
                && entry.owner.strong_count() > 0
            {
                return entry.compiled.clone();
            }
        }
        let compiled = self.compile(schema.as_value()).map(Arc::new);
        let mut cache = self.cache.write().unwrap_or_else(PoisonError::into_inner);
        if cache.len() >= 64 && cache.len().is_power_of_two() {
            cache.retain(|_, entry| entry.owner.strong_count() > 0);
        }
        cache.insert(
            key,
            Entry {
                owner: schema.downgrade(),
                compiled: compiled.clone(),
            },
        );
        compiled
    }

    /// The number of compiled schemas held in the cache (including ones whose tool is gone and
    /// which the next growth of the cache will drop).
    #[must_use]
    pub fn cached_schemas(&self) -> usize {
        self.cache
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
    }

    fn validate_slot(
        &self,
        schema: &ToolSchema,
        _slot: SchemaSlot,
        instance: &Value,
    ) -> Result<(), Error> {
        self.compiled(schema)?.validate(instance)
    }
}

impl SchemaValidator for DefaultValidator {
    /// Compiles `schema` and validates `instance`; compiles on every call, so prefer
    /// [`DefaultValidator::compile`] or the tool methods for repeated use.
    fn validate(&self, schema: &Value, instance: &Value) -> Result<(), Error> {
        self.compile(schema)?.validate(instance)
    }

    /// Validates against the tool's cached compiled `inputSchema`.
    fn validate_arguments(&self, tool: &Tool, arguments: &Value) -> Result<(), Error> {
        self.validate_slot(&tool.input_schema, SchemaSlot::Input, arguments)
    }

    /// Validates against the tool's cached compiled `outputSchema`; `Ok` when there is none.
    fn validate_result(&self, tool: &Tool, structured_content: &Value) -> Result<(), Error> {
        match &tool.output_schema {
            Some(schema) => self.validate_slot(schema, SchemaSlot::Output, structured_content),
            None => Ok(()),
        }
    }
}

/// Maps a `jsonschema` build error to ours.
fn compile_error(err: jsonschema::ValidationError<'static>) -> Error {
    if let jsonschema::error::ValidationErrorKind::Referencing(
        jsonschema::ReferencingError::Unretrievable { uri, .. },
    ) = err.kind()
    {
        return Error::ExternalRef {
            reference: uri.clone(),
        };
    }
    Error::InvalidSchema {
        issues: vec![SchemaIssue {
            pointer: err.instance_path().as_str().to_owned(),
            message: err.to_string(),
        }],
    }
}
