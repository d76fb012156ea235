//! Validating instances against JSON Schemas: the [`SchemaValidator`] trait and
//! [`DefaultValidator`], built on the `jsonschema` crate with no network and no filesystem.
//!
//! What [`DefaultValidator`] supports, and how it caches, is documented on it.

use std::{
    collections::HashMap,
    fmt,
    sync::{Arc, PoisonError, RwLock},
};

use serde_json::Value;

use crate::error::Error;
use crate::model::schema::{ToolSchema, WeakSchema};
use crate::model::tool::Tool;
use crate::pointer::escape_pointer_token;
use crate::validate::compiled::CompiledSchema;
use crate::validate::content_cache::ContentCache;
use crate::validate::dialect::Dialect;
use crate::validate::issue::SchemaIssue;
use crate::validate::limits::{ValidationLimits, deeper_than};
use crate::validate::violation::SchemaSlot;

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

/// Refuses every URI, so that no reference is ever fetched or read.
#[derive(Clone, Copy)]
struct RefuseAll;

impl jsonschema::Retrieve for RefuseAll {
    fn retrieve(
        &self,
        uri: &jsonschema::Uri<String>,
    ) -> Result<Value, Box<dyn std::error::Error + Send + Sync>> {
        Err(format!("toolmodel never fetches external resources ({uri})").into())
    }
}

/// The cache: compiled schemas by the address of their shared schema. Addresses are not chosen
/// by callers, so a fast non-keyed hash (foldhash) does instead of the default SipHash, which
/// defends against chosen keys and costs more than the rest of a lookup.
type Cache = HashMap<usize, Entry, foldhash::fast::FixedState>;

/// A cache entry: the compiled form of one shared schema.
struct Entry {
    /// Keeps the schema's allocation (not the schema) alive, so that its address is not reused
    /// while the entry exists: a live schema at the entry's address is the entry's schema. A
    /// dead `owner` marks a stale entry, dropped as the cache grows.
    owner: WeakSchema,
    /// The outcome: the compiled form held here (a clone, which shares the compiled keywords),
    /// so that a validation reads no other allocation before the schema's keywords, and the
    /// shared one [`DefaultValidator::compiled`] hands out.
    compiled: Result<(CompiledSchema, Arc<CompiledSchema>), Error>,
}

impl Entry {
    fn outcome(&self) -> Result<&CompiledSchema, &Error> {
        self.compiled.as_ref().map(|(held, _)| held)
    }
}

/// The validator `toolmodel` ships: the `jsonschema` crate, configured for MCP, with no network
/// and no filesystem access.
///
/// # What the default validator does
///
/// - **Dialects.** No `$schema`: JSON Schema 2020-12 (MCP's default; changeable with
///   [`DefaultValidator::with_default_dialect`]). 2020-12 and draft-07 by their URIs (`http` or
///   `https`, with or without the trailing `#`) are validated natively in that dialect. Any
///   other `$schema` (draft-04, draft-06, 2019-09, a custom meta-schema), at the root or on any
///   subschema, is [`Error::UnsupportedSchema`] naming it and where it is. An embedded resource
///   (a subschema with its own `$id`) may declare the other supported dialect: it is then read,
///   and checked against the meta-schema, in that dialect.
/// - **Meta-schema.** A schema that is not valid against its dialect's meta-schema is
///   [`Error::InvalidSchema`], listing every problem (once) with its JSON Pointer in the schema.
/// - **References.** Local references (`#`, `#/$defs/...`, anchors, embedded `$id`s) work, and
///   so do references to the meta-schemas of 2020-12 and draft-07, which the `jsonschema` crate
///   holds. Anything else (`http:`, `https:`, `file:`, `urn:`, a relative reference with no
///   matching `$id`) is [`Error::ExternalRef`] naming the reference, resolved against the
///   schema's `$id` when there is one and as written otherwise. A local reference that leads
///   nowhere is [`Error::InvalidSchema`] pointing at the `$ref`. Nothing is ever fetched or
///   read: the `jsonschema` crate is built without its `resolve-http` and `resolve-file`
///   features, and the retriever given to it refuses every URI.
/// - **Instances.** A failing instance is [`Error::InvalidInstance`] with every violation:
///   instance path, schema path (JSON Pointers) and message.
/// - **`format`** is an annotation by default, as JSON Schema 2020-12 specifies (and for
///   draft-07 too, for consistency); [`DefaultValidator::with_format_assertions`] makes the
///   known formats assertions. Unknown formats are always ignored.
/// - **Limits.** `contentEncoding`, `contentMediaType` and `contentSchema` are annotations (as in
///   2020-12); `pattern` uses ECMA-262-like regular expressions through `fancy-regex`.
///
/// # Caching
///
/// A schema is compiled once. [`DefaultValidator::validate_arguments`] and
/// [`DefaultValidator::validate_result`] cache the compiled form of a tool's [`ToolSchema`] by
/// its identity (the shared allocation behind it, which clones share and which cannot change),
/// held inline in the cache, so repeated calls cost a hash lookup under a read lock plus the
/// validation itself. [`DefaultValidator::compile`]
/// gives you the compiled form to hold yourself.
///
/// [`SchemaValidator::validate`] on a raw [`Value`] caches by content: the schema is hashed
/// (foldhash, seeded per process) and compared in full with a compact encoding of the schema
/// kept in the cache, so a schema equal to one validated before is not compiled again, whatever
/// `Value` holds it; a schema looked up again at the same address costs one comparison walk and
/// no hash. The cache holds at most 1,024 schemas and 64 MiB of encodings in all, evicting the
/// oldest first; a schema encoding to more than 4 MiB, or nested more than 256 levels, is
/// compiled for its call and not kept. The comparison reads the whole schema on every call, so
/// `validate(&schema, &instance)` costs more than [`DefaultValidator::validate_arguments`] with
/// a tool holding that schema (2 to 4.5 times over the corpus, where schemas are far larger
/// than the arguments; see the README's figures) and far less than compiling: prefer the tool
/// methods, or [`DefaultValidator::compile`], on a hot path.
///
/// # Sharing
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
    limits: ValidationLimits,
    cache: RwLock<Cache>,
    content: RwLock<ContentCache>,
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
            .field("limits", &self.limits)
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
            limits: ValidationLimits::DEFAULT,
            cache: RwLock::default(),
            content: RwLock::default(),
        }
    }

    /// Sets the resource bounds (default [`ValidationLimits::DEFAULT`]; see [`ValidationLimits`]
    /// for each bound and the error exceeding it gives).
    #[must_use]
    pub fn with_limits(mut self, limits: ValidationLimits) -> Self {
        self.limits = limits;
        self.cache = RwLock::default();
        self.content = RwLock::default();
        self
    }

    /// The resource bounds in force.
    #[must_use]
    pub fn limits(&self) -> &ValidationLimits {
        &self.limits
    }

    /// Makes the known `format`s assertions (`true`) or annotations (`false`, the default).
    #[must_use]
    pub fn with_format_assertions(mut self, assert: bool) -> Self {
        self.assert_formats = assert;
        self.cache = RwLock::default();
        self.content = RwLock::default();
        self
    }

    /// Sets the dialect of schemas without `$schema` (default: 2020-12, as MCP says).
    #[must_use]
    pub fn with_default_dialect(mut self, dialect: Dialect) -> Self {
        self.default_dialect = dialect;
        self.cache = RwLock::default();
        self.content = RwLock::default();
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
    /// - [`Error::UnsupportedSchema`]: a `$schema` (at the root or on a subschema) other than
    ///   2020-12 or draft-07, with the JSON Pointer of that `$schema`.
    /// - [`Error::InvalidSchema`]: not valid against its dialect's meta-schema (every problem,
    ///   with its JSON Pointer), or a local reference that leads nowhere (pointing at the
    ///   `$ref`).
    /// - [`Error::ExternalRef`]: a reference to anything outside the schema.
    /// - [`Error::SchemaTooDeep`]: the schema nests more than [`ValidationLimits::max_depth`]
    ///   levels, or its references chain more subschemas than that at one place of the instance.
    /// - [`Error::SchemaTooLarge`]: its references, expanded, add more than
    ///   [`ValidationLimits::max_expansion`] JSON values.
    ///
    /// A `pattern` that needs backtracking (lookaround, backreferences) is an
    /// [`Error::InvalidSchema`] unless [`ValidationLimits::pattern_backtrack_limit`] allows it.
    pub fn compile(&self, schema: &Value) -> Result<CompiledSchema, Error> {
        if let Some(pointer) = deeper_than(schema, self.limits.max_depth) {
            return Err(Error::SchemaTooDeep {
                pointer,
                limit: self.limits.max_depth,
            });
        }
        let dialect = self.dialect_of(schema)?;
        let nested = nested_declarations(schema, dialect);
        if let Some(unsupported) = nested
            .iter()
            .find(|declaration| declaration.dialect.is_none())
        {
            return Err(Error::UnsupportedSchema {
                uri: unsupported.uri.to_owned(),
                pointer: format!("{}/$schema", unsupported.pointer),
            });
        }
        let issues = meta_issues(schema, dialect, &nested);
        if !issues.is_empty() {
            return Err(Error::InvalidSchema { issues });
        }
        let shape =
            crate::validate::expansion::check(schema, dialect.draft(), RefuseAll, &self.limits)?;
        let options = jsonschema::options()
            .with_draft(dialect.draft())
            .with_retriever(RefuseAll)
            .should_validate_formats(self.assert_formats)
            .should_ignore_unknown_formats(true);
        let options = match self.limits.pattern_backtrack_limit {
            None => options.with_pattern_options(jsonschema::PatternOptions::regex()),
            Some(limit) => options.with_pattern_options(
                jsonschema::PatternOptions::fancy_regex().backtrack_limit(limit),
            ),
        };
        let validator = options.build(schema).map_err(|err| {
            compile_error(
                schema,
                dialect,
                self.limits.pattern_backtrack_limit.is_none(),
                &err,
            )
        })?;
        let instance_depth = self.limits.instance_depth(shape.chain);
        Ok(CompiledSchema {
            validator,
            dialect,
            instance_depth,
            accepts_only_within: crate::validate::depth_bound::accepted_depth(schema)
                .is_some_and(|depth| depth <= instance_depth),
            backtrack_limit: self.limits.pattern_backtrack_limit,
            schema: Arc::new(schema.clone()),
        })
    }

    /// The compiled form of a tool schema, compiled on first use and cached by the schema's
    /// identity ([`ToolSchema::identity`]).
    ///
    /// # Errors
    ///
    /// As [`DefaultValidator::compile`]; a schema that failed to compile fails again from the
    /// cache without recompiling.
    pub fn compiled(&self, schema: &ToolSchema) -> Result<Arc<CompiledSchema>, Error> {
        self.with_entry(schema, |entry| match &entry.compiled {
            Ok((_, shared)) => Ok(shared.clone()),
            Err(error) => Err(error.clone()),
        })
    }

    /// Runs `use_entry` on the cache entry of `schema`, compiling the schema and caching it
    /// first when absent. On a hit it runs under the cache's read lock, so that it borrows the
    /// entry instead of cloning it; other readers are not held up, a writer (a first compile)
    /// waits for it.
    fn with_entry<R>(&self, schema: &ToolSchema, use_entry: impl FnOnce(&Entry) -> R) -> R {
        let key = schema.identity() as usize;
        {
            let cache = self.cache.read().unwrap_or_else(PoisonError::into_inner);
            // No liveness check: `schema` is alive, so the entry at its address is its own.
            if let Some(entry) = cache.get(&key) {
                return use_entry(entry);
            }
        }
        let entry = Entry {
            owner: schema.downgrade(),
            compiled: self
                .compile(schema.as_value())
                .map(|compiled| (compiled.share(), Arc::new(compiled))),
        };
        let mut cache = self.cache.write().unwrap_or_else(PoisonError::into_inner);
        if cache.len() >= 64 && cache.len().is_power_of_two() {
            cache.retain(|_, entry| entry.owner.is_alive());
        }
        let entry = cache.entry(key).insert_entry(entry).into_mut();
        use_entry(entry)
    }

    /// Runs `use_compiled` on the compiled form of a raw schema, found in the content cache
    /// (see "Caching" above) or compiled and cached first.
    fn with_content_compiled<R>(
        &self,
        schema: &Value,
        use_compiled: impl FnOnce(&Result<Arc<CompiledSchema>, Error>) -> R,
    ) -> R {
        let content = self.content.read().unwrap_or_else(PoisonError::into_inner);
        if let Some(entry) = content.by_hint(schema) {
            return use_compiled(&entry.compiled);
        }
        let Some((hash, encoded)) = content.key(schema, self.limits.max_depth.min(256)) else {
            drop(content);
            return use_compiled(&self.compile(schema).map(Arc::new));
        };
        let found = content.find(hash, &encoded).cloned();
        drop(content);
        let entry = match found {
            Some(entry) => {
                self.content
                    .write()
                    .unwrap_or_else(PoisonError::into_inner)
                    .hint(schema, entry.clone());
                entry
            }
            None => {
                let compiled = self.compile(schema).map(Arc::new);
                self.content
                    .write()
                    .unwrap_or_else(PoisonError::into_inner)
                    .insert(hash, encoded, schema, compiled)
            }
        };
        use_compiled(&entry.compiled)
    }

    /// The number of raw schemas held in the content cache of [`SchemaValidator::validate`].
    #[must_use]
    pub fn cached_raw_schemas(&self) -> usize {
        self.content
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .len()
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
        self.with_entry(schema, |entry| match entry.outcome() {
            Ok(compiled) => compiled.validate(instance),
            Err(err) => Err(err.clone()),
        })
    }
}

impl SchemaValidator for DefaultValidator {
    /// Validates `instance` against `schema`, compiled once per distinct schema content (see
    /// "Caching" on [`DefaultValidator`]).
    fn validate(&self, schema: &Value, instance: &Value) -> Result<(), Error> {
        self.with_content_compiled(schema, |compiled| match compiled {
            Ok(compiled) => compiled.validate(instance),
            Err(err) => Err(err.clone()),
        })
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

/// A subschema below the root that declares its own `$schema`.
struct NestedDeclaration<'a> {
    /// JSON Pointer of the subschema.
    pointer: String,
    subschema: &'a Value,
    /// Its `$schema`.
    uri: &'a str,
    /// The dialect `uri` names, `None` when it is not one we support.
    dialect: Option<Dialect>,
    /// Whether the subschema is a resource root (it has an identifier), where JSON Schema
    /// allows a dialect of its own (2020-12 Core, Section 8.1.1).
    resource: bool,
}

/// Every subschema below the root that declares `$schema`, in document order (ancestors first).
///
/// Only the places each dialect defines as subschemas are visited (the walk of the
/// `jsonschema` crate), so a `$schema` key in data (`const`, `enum`, `default`, a property
/// named `$schema`) is never mistaken for one.
fn nested_declarations(schema: &Value, dialect: Dialect) -> Vec<NestedDeclaration<'_>> {
    let mut out = Vec::new();
    if mentions_schema_keyword(schema) {
        walk_subschemas(
            schema,
            dialect.draft(),
            "",
            &mut |pointer, subschema, draft| {
                if pointer.is_empty() {
                    return;
                }
                if let Some(uri) = subschema.get("$schema").and_then(Value::as_str) {
                    let resource = draft.create_resource_ref(subschema).id().is_some();
                    out.push(NestedDeclaration {
                        pointer: pointer.to_owned(),
                        subschema,
                        uri,
                        dialect: Dialect::from_uri(uri),
                        resource,
                    });
                }
            },
        );
    }
    out
}

/// Whether a `$schema` key appears anywhere below the root: a cheap scan that spares the walk
/// for the usual single-dialect schema.
fn mentions_schema_keyword(schema: &Value) -> bool {
    fn any(value: &Value) -> bool {
        match value {
            Value::Object(map) => map
                .iter()
                .any(|(key, child)| key == "$schema" || any(child)),
            Value::Array(items) => items.iter().any(any),
            _ => false,
        }
    }
    schema.as_object().is_some_and(|map| map.values().any(any))
}

/// Calls `visit(pointer, subschema, draft)` for `schema` and every subschema in it, each in the
/// draft that governs it (its own `$schema`, else its parent's).
fn walk_subschemas<'a>(
    schema: &'a Value,
    draft: jsonschema::Draft,
    pointer: &str,
    visit: &mut impl FnMut(&str, &'a Value, jsonschema::Draft),
) {
    visit(pointer, schema, draft);
    for child in draft.subresources_of(schema) {
        if let Some(step) = step_to(schema, child) {
            walk_subschemas(
                child,
                draft.detect(child),
                &format!("{pointer}{step}"),
                visit,
            );
        }
    }
}

/// The JSON Pointer from `parent` to `child`, one of its values or one of their items
/// (`/items`, `/allOf/0`, `/properties/a~1b`).
fn step_to(parent: &Value, child: &Value) -> Option<String> {
    let map = parent.as_object()?;
    for (key, value) in map {
        let key = escape_pointer_token(key);
        if std::ptr::eq(value, child) {
            return Some(format!("/{key}"));
        }
        match value {
            Value::Array(items) => {
                if let Some(index) = items.iter().position(|item| std::ptr::eq(item, child)) {
                    return Some(format!("/{key}/{index}"));
                }
            }
            Value::Object(members) => {
                if let Some(name) = members
                    .iter()
                    .find_map(|(name, member)| std::ptr::eq(member, child).then_some(name))
                {
                    return Some(format!("/{key}/{}", escape_pointer_token(name)));
                }
            }
            _ => {}
        }
    }
    None
}

/// Every problem of `schema` against the meta-schema of its dialect, each once.
///
/// An embedded resource (a subschema with an identifier) that declares a dialect other than
/// the one around it is checked against its own meta-schema instead (2020-12 Core,
/// Section 9.3.3), as the `jsonschema` crate does. A `$schema` on a subschema that is not a
/// resource root leaves it under the meta-schema around it.
fn meta_issues(
    schema: &Value,
    dialect: Dialect,
    nested: &[NestedDeclaration<'_>],
) -> Vec<SchemaIssue> {
    struct Region<'a> {
        pointer: &'a str,
        schema: &'a Value,
        dialect: Dialect,
    }
    let within = |pointer: &str, region: &str| {
        pointer
            .strip_prefix(region)
            .is_some_and(|rest| rest.is_empty() || rest.starts_with('/'))
    };
    let governing = |regions: &[Region<'_>], pointer: &str| {
        regions
            .iter()
            .enumerate()
            .filter(|(_, region)| within(pointer, region.pointer))
            .max_by_key(|(_, region)| region.pointer.len())
            .map_or(0, |(index, _)| index)
    };
    let mut regions = vec![Region {
        pointer: "",
        schema,
        dialect,
    }];
    for declaration in nested {
        if let (true, Some(own)) = (declaration.resource, declaration.dialect)
            && regions
                .get(governing(&regions, &declaration.pointer))
                .is_some_and(|around| around.dialect != own)
        {
            regions.push(Region {
                pointer: &declaration.pointer,
                schema: declaration.subschema,
                dialect: own,
            });
        }
    }
    let mut issues: Vec<SchemaIssue> = Vec::new();
    for (index, region) in regions.iter().enumerate() {
        let meta = match region.dialect {
            Dialect::Draft202012 => jsonschema::draft202012::meta::validator(),
            Dialect::Draft7 => jsonschema::draft7::meta::validator(),
        };
        for err in meta.iter_errors(region.schema) {
            for err in innermost(&err) {
                let issue = SchemaIssue {
                    pointer: format!("{}{}", region.pointer, err.instance_path().as_str()),
                    message: err.to_string(),
                };
                // The meta-schema reaches some values along several paths (`$dynamicRef`s):
                // report each problem once.
                if governing(&regions, &issue.pointer) == index && !issues.contains(&issue) {
                    issues.push(issue);
                }
            }
        }
    }
    issues
}

/// The errors that say what is wrong, for a meta-schema error: an `anyOf`/`oneOf` that no
/// alternative matched stands for the errors of its one alternative that got past the value's
/// own shape (all its errors lie below the value), when there is exactly one such alternative.
/// So draft-07's `"items": [{"minimum": "x"}]` is reported at `/items/0/minimum`, not as "not
/// valid under any of the schemas" at `/items`; `"type": 5` stays one error at `/type`.
fn innermost<'e>(
    err: &'e jsonschema::ValidationError<'e>,
) -> Vec<&'e jsonschema::ValidationError<'e>> {
    use jsonschema::error::ValidationErrorKind;
    let (ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context }) =
        err.kind()
    else {
        return vec![err];
    };
    let here = err.instance_path().as_str();
    let below = |inner: &jsonschema::ValidationError<'_>| {
        inner
            .instance_path()
            .as_str()
            .strip_prefix(here)
            .is_some_and(|rest| rest.starts_with('/'))
    };
    let mut deeper = context
        .iter()
        .filter(|branch| !branch.is_empty() && branch.iter().all(below));
    match (deeper.next(), deeper.next()) {
        (Some(branch), None) => branch.iter().flat_map(innermost).collect(),
        _ => vec![err],
    }
}

/// Maps a `jsonschema` build error to ours (`linear_patterns`: patterns may not backtrack):
/// an unretrievable resource is an
/// [`Error::ExternalRef`]; a local reference that leads nowhere is an [`Error::InvalidSchema`]
/// pointing at the `$ref` (or `$dynamicRef`) that makes it.
fn compile_error(
    schema: &Value,
    dialect: Dialect,
    linear_patterns: bool,
    err: &jsonschema::ValidationError<'_>,
) -> Error {
    use jsonschema::{ReferencingError, error::ValidationErrorKind};
    let target = match err.kind() {
        ValidationErrorKind::Referencing(ReferencingError::Unretrievable { uri, .. }) => {
            return Error::ExternalRef {
                reference: uri.clone(),
            };
        }
        ValidationErrorKind::Referencing(
            ReferencingError::PointerToNowhere { pointer: fragment }
            | ReferencingError::NoSuchAnchor { anchor: fragment }
            | ReferencingError::InvalidAnchor { anchor: fragment },
        ) => Some(fragment.as_str()),
        _ => None,
    };
    let pointer = target
        .and_then(|fragment| reference_to(schema, dialect, fragment))
        .unwrap_or_else(|| err.instance_path().as_str().to_owned());
    let mut message = err.to_string();
    if linear_patterns
        && matches!(err.kind(), ValidationErrorKind::Format { format } if format == "regex")
    {
        message.push_str(
            ": patterns run on a linear-time engine, which refuses lookaround and backreferences \
             (allowed by `ValidationLimits::pattern_backtrack_limit`) and patterns compiling to more than \
             10 MB",
        );
    }
    Error::InvalidSchema {
        issues: vec![SchemaIssue { pointer, message }],
    }
}

/// JSON Pointer of the first `$ref` or `$dynamicRef` in `schema` whose fragment is `fragment`.
fn reference_to(schema: &Value, dialect: Dialect, fragment: &str) -> Option<String> {
    let mut found = None;
    walk_subschemas(schema, dialect.draft(), "", &mut |pointer, subschema, _| {
        if found.is_some() {
            return;
        }
        for keyword in ["$ref", "$dynamicRef"] {
            if let Some(reference) = subschema.get(keyword).and_then(Value::as_str)
                && reference
                    .split_once('#')
                    .is_some_and(|(_, own)| own == fragment)
            {
                found = Some(format!("{pointer}/{keyword}"));
                return;
            }
        }
    });
    found
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn tool_with(schema: Value) -> Tool {
        Tool::new("t", ToolSchema::try_from(schema).unwrap())
    }

    #[test]
    fn the_cache_compiles_once_per_shared_schema() {
        let validator = DefaultValidator::new();
        let tool = tool_with(json!({"type": "object", "properties": {"n": {"type": "integer"}}}));
        let clone = tool.clone();
        let first = validator.compiled(&tool.input_schema).unwrap();
        let again = validator.compiled(&clone.input_schema).unwrap();
        assert!(
            Arc::ptr_eq(&first, &again),
            "clones share one compiled schema"
        );
        assert_eq!(validator.cached_schemas(), 1);
        // An equal schema in another allocation is another entry.
        let other = tool_with(tool.input_schema.to_value());
        validator
            .validate_arguments(&other, &json!({"n": 1}))
            .unwrap();
        assert_eq!(validator.cached_schemas(), 2);
        assert!(matches!(
            validator.validate_arguments(&clone, &json!({"n": "x"})),
            Err(Error::InvalidInstance { errors }) if errors.len() == 1 && errors[0].instance_path == "/n"
        ));
    }

    #[test]
    fn raw_schemas_are_cached_by_content() {
        let validator = DefaultValidator::new();
        let mut schema = json!({"type": "object", "properties": {"n": {"type": "integer"}}});
        assert!(validator.validate(&schema, &json!({"n": 1})).is_ok());
        // An equal schema in another `Value` finds the same entry.
        let copy = schema.clone();
        assert!(validator.validate(&copy, &json!({"n": "x"})).is_err());
        assert_eq!(validator.cached_raw_schemas(), 1);
        // Changed in place, at the same address: the hint no longer matches, so it is compiled
        // anew rather than validated with the stale entry.
        schema["properties"]["n"] = json!({"type": "string"});
        assert!(validator.validate(&schema, &json!({"n": "x"})).is_ok());
        assert!(validator.validate(&schema, &json!({"n": 1})).is_err());
        assert_eq!(validator.cached_raw_schemas(), 2);
        // Equal JSON numbers hash alike, different ones do not collide into a wrong hit.
        let a = json!({"maximum": 1});
        let b = json!({"maximum": 1.5});
        assert!(validator.validate(&a, &json!(1.2)).is_err());
        assert!(validator.validate(&b, &json!(1.2)).is_ok());
    }

    #[test]
    fn the_raw_cache_is_bounded() {
        let validator = DefaultValidator::new();
        for i in 0..crate::validate::content_cache::MAX_ENTRIES + 10 {
            let schema = json!({"maxProperties": i});
            assert!(validator.validate(&schema, &json!({})).is_ok());
        }
        assert_eq!(
            validator.cached_raw_schemas(),
            crate::validate::content_cache::MAX_ENTRIES
        );
        // A schema too deep to hash is compiled (and refused) without being kept.
        let mut deep = json!(true);
        for _ in 0..300 {
            deep = json!({"items": deep});
        }
        assert!(matches!(
            validator.validate(&deep, &json!([])),
            Err(Error::SchemaTooDeep { .. })
        ));
    }

    #[test]
    fn a_schema_that_failed_fails_again_from_the_cache() {
        let validator = DefaultValidator::new();
        let tool = tool_with(
            json!({"type": "object", "properties": {"a": {"$ref": "https://example.com/a.json"}}}),
        );
        for _ in 0..2 {
            assert!(matches!(
                validator.validate_arguments(&tool, &json!({})),
                Err(Error::ExternalRef { reference }) if reference.contains("example.com/a.json")
            ));
        }
        assert_eq!(validator.cached_schemas(), 1);
    }

    #[test]
    fn entries_of_dropped_tools_are_pruned_as_the_cache_grows() {
        let validator = DefaultValidator::new();
        for i in 0..200 {
            let tool = tool_with(json!({"type": "object", "maxProperties": i}));
            validator.validate_arguments(&tool, &json!({})).unwrap();
        }
        // Every tool above was dropped right after use: pruning at each power of two keeps the
        // cache from holding all 200.
        assert!(
            validator.cached_schemas() < 200,
            "{}",
            validator.cached_schemas()
        );
    }

    #[test]
    fn results_without_an_output_schema_are_ok() {
        let validator = DefaultValidator::new();
        let mut tool = tool_with(json!({"type": "object"}));
        assert_eq!(validator.validate_result(&tool, &json!([1, 2])), Ok(()));
        tool.output_schema =
            Some(ToolSchema::try_from(json!({"type": "object", "required": ["x"]})).unwrap());
        assert!(matches!(
            validator.validate_result(&tool, &json!({})),
            Err(Error::InvalidInstance { .. })
        ));
        assert_eq!(validator.validate_result(&tool, &json!({"x": 1})), Ok(()));
    }

    fn issues(result: Result<CompiledSchema, Error>) -> Vec<SchemaIssue> {
        match result {
            Err(Error::InvalidSchema { issues }) => issues,
            other => panic!("expected InvalidSchema, got {other:?}"),
        }
    }

    #[test]
    fn each_meta_schema_problem_is_reported_once() {
        // The 2020-12 meta-schema reaches `items` along eight `$dynamicRef` paths.
        let issues =
            issues(DefaultValidator::new().compile(&json!({"items": [{"type": "integer"}]})));
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert_eq!(issues[0].pointer, "/items");
    }

    #[test]
    fn an_any_of_problem_is_reported_where_the_matching_alternative_failed() {
        let draft7 = DefaultValidator::new().with_default_dialect(Dialect::Draft7);
        let at = |validator: &DefaultValidator, schema: Value| -> Vec<String> {
            issues(validator.compile(&schema))
                .into_iter()
                .map(|issue| issue.pointer)
                .collect()
        };
        // Draft-07 `items` and `dependencies` are `anyOf` a schema or an array: the array
        // alternative got inside, so its problem is the one reported.
        assert_eq!(
            at(&draft7, json!({"items": [{"minimum": "x"}]})),
            ["/items/0/minimum"]
        );
        assert_eq!(
            at(&draft7, json!({"dependencies": {"a": ["b", 1]}})),
            ["/dependencies/a/1"]
        );
        // No alternative got inside the value: the `anyOf` itself is the problem.
        assert_eq!(at(&draft7, json!({"type": 5})), ["/type"]);
        assert_eq!(at(&DefaultValidator::new(), json!({"type": 5})), ["/type"]);
    }

    #[test]
    fn a_nested_unsupported_schema_is_unsupported_with_its_pointer() {
        let validator = DefaultValidator::new();
        for (schema, uri, pointer) in [
            // Used to be an ExternalRef naming the embedded resource's own `$id`.
            (
                json!({"$defs": {"a": {"$id": "http://example.com/a", "$schema": "http://json-schema.org/draft-04/schema#"}}, "$ref": "#/$defs/a"}),
                "http://json-schema.org/draft-04/schema#",
                "/$defs/a/$schema",
            ),
            // Used to compile silently as 2020-12.
            (
                json!({"properties": {"x": {"$schema": "http://localhost:1234/meta.json", "minimum": 1}}}),
                "http://localhost:1234/meta.json",
                "/properties/x/$schema",
            ),
            (
                json!({"allOf": [true, {"items": {"$schema": "https://json-schema.org/draft/2019-09/schema"}}]}),
                "https://json-schema.org/draft/2019-09/schema",
                "/allOf/1/items/$schema",
            ),
        ] {
            assert_eq!(
                validator.compile(&schema).unwrap_err(),
                Error::UnsupportedSchema {
                    uri: uri.into(),
                    pointer: pointer.into()
                },
                "{schema}"
            );
        }
    }

    #[test]
    fn a_schema_key_in_data_is_not_a_declaration() {
        let schema = json!({
            "properties": {"$schema": {"type": "string"}},
            "const": {"$schema": "http://json-schema.org/draft-04/schema#"},
            "default": {"$schema": "urn:nothing"}
        });
        let compiled = DefaultValidator::new().compile(&schema).unwrap();
        assert!(compiled.is_valid(&json!({"$schema": "http://json-schema.org/draft-04/schema#"})));
        assert!(!compiled.is_valid(&json!({"$schema": "urn:other"})));
    }

    #[test]
    fn an_embedded_draft7_resource_keeps_draft7_meaning() {
        let schema = json!({
            "$defs": {"pair": {
                "$id": "https://example.com/pair",
                "$schema": "http://json-schema.org/draft-07/schema#",
                "items": [{"type": "integer"}],
                "additionalItems": false
            }},
            "$ref": "#/$defs/pair"
        });
        let compiled = DefaultValidator::new().compile(&schema).unwrap();
        assert!(compiled.is_valid(&json!([1])));
        assert!(!compiled.is_valid(&json!([1, 2])));
        assert!(!compiled.is_valid(&json!(["x"])));
        // Its meta-schema problems are found with draft-07's meta-schema, at full pointers.
        let mut broken = schema;
        broken["$defs"]["pair"]["minItems"] = json!(-1);
        let issues = issues(DefaultValidator::new().compile(&broken));
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert_eq!(issues[0].pointer, "/$defs/pair/minItems");
    }

    #[test]
    fn a_nested_dialect_without_id_stays_under_the_enclosing_meta_schema() {
        let schema = json!({"$defs": {"a": {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "items": [{"type": "integer"}]
        }}});
        let issues = issues(DefaultValidator::new().compile(&schema));
        assert_eq!(issues.len(), 1, "{issues:?}");
        assert_eq!(issues[0].pointer, "/$defs/a/items");
    }

    #[test]
    fn a_local_reference_to_nowhere_points_at_its_ref() {
        let validator = DefaultValidator::new();
        for (schema, pointer) in [
            (
                json!({"properties": {"x": {"$ref": "#/$defs/missing"}}}),
                "/properties/x/$ref",
            ),
            (json!({"items": {"$ref": "#nowhere"}}), "/items/$ref"),
        ] {
            let issues = issues(validator.compile(&schema));
            assert_eq!(issues.len(), 1, "{issues:?}");
            assert_eq!(issues[0].pointer, pointer, "{schema}");
        }
    }
}
