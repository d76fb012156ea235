//! Validation, beyond the everyday [`SchemaValidator`](crate::SchemaValidator),
//! [`DefaultValidator`](crate::DefaultValidator) and [`Violation`](crate::Violation) at the
//! crate root: a [`CompiledSchema`] and what it reports ([`InstanceError`], [`SchemaIssue`]);
//! the JSON Schema [`Dialect`]s the validator understands ([`DIALECT_2020_12`],
//! [`DIALECT_DRAFT_07`]); the parts of a violation of the MCP tool rules ([`SchemaSlot`],
//! [`HeaderProblem`], [`MetaKeyProblem`], [`ICON_SCHEMES`], and of the extensions'
//! rules: [`CategoryProblem`], [`MAX_CATEGORY_LEN`], [`ScopeProblem`]); and the resource bounds.
//!
//! **Resource bounds.** How deep, how large and how costly the JSON `toolmodel` reads, checks
//! and validates may be, so that hostile input (a schema from any MCP server, arguments a model
//! wrote) gets a typed error instead of a stack overflow, a hang or unbounded memory. The
//! bounds and their defaults are on [`ValidationLimits`];
//! [`DefaultValidator::with_limits`](crate::DefaultValidator::with_limits) changes them for one
//! validator. Reading and checking tools ([`Tool::from_mcp_json`](crate::Tool::from_mcp_json),
//! [`Tool::validate`](crate::Tool::validate),
//! [`catalog::tool_values`](crate::wire::catalog::tool_values), the adapters) always use
//! [`ValidationLimits::DEFAULT`]'s depth. [`dismantle`] drops a value nested too deep for
//! `Drop`.
//!
//! ```
//! use serde_json::json;
//! use toolmodel::{
//!     DefaultValidator, Error,
//!     validate::{Dialect, ValidationLimits},
//! };
//!
//! let mut limits = ValidationLimits::default();
//! limits.max_depth = 4;
//! let validator = DefaultValidator::new().with_limits(limits);
//! let schema = json!({"$schema": "http://json-schema.org/draft-07/schema#"});
//! assert_eq!(validator.dialect_of(&schema)?, Dialect::Draft7);
//! let compiled = validator.compile(&schema)?;
//! let err = compiled.validate(&json!([[[[[1]]]]])).unwrap_err();
//! assert!(matches!(err, Error::InstanceTooDeep { limit: 4, .. }));
//! # Ok::<(), Error>(())
//! ```

pub(crate) mod compiled;
pub(crate) mod content_cache;
pub(crate) mod depth_bound;
pub(crate) mod dialect;
pub(crate) mod expansion;
pub(crate) mod extension_rules;
pub(crate) mod feedback;
pub(crate) mod issue;
pub(crate) mod limits;
pub(crate) mod mcp_header;
pub(crate) mod meta_keys;
pub(crate) mod tool_rules;
pub(crate) mod validator;
pub(crate) mod violation;

pub use compiled::CompiledSchema;
pub use dialect::{DIALECT_2020_12, DIALECT_DRAFT_07, Dialect};
pub use issue::{InstanceError, SchemaIssue};
pub use limits::{ValidationLimits, dismantle};
pub use violation::{
    CategoryProblem, HeaderProblem, ICON_SCHEMES, MAX_CATEGORY_LEN, MetaKeyProblem, SchemaSlot,
    ScopeProblem,
};
