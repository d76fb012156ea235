//! [`CompiledSchema`]: a schema compiled once by [`DefaultValidator`](crate::DefaultValidator),
//! to validate many instances.

use std::{fmt, sync::Arc};

use serde_json::Value;

use crate::error::Error;
use crate::validate::dialect::Dialect;
use crate::validate::feedback;
use crate::validate::limits::deeper_than;

/// A schema compiled once, to validate many instances.
pub struct CompiledSchema {
    /// The compiled keywords.
    pub(super) validator: jsonschema::Validator,
    /// The dialect it was compiled in.
    pub(super) dialect: Dialect,
    /// The deepest instance validated ([`ValidationLimits`](crate::validate::ValidationLimits)).
    pub(super) instance_depth: usize,
    /// The backtracking limit of patterns, when they may backtrack.
    pub(super) backtrack_limit: Option<usize>,
    /// The schema, to say what a failing keyword accepts ([`feedback`]).
    pub(super) schema: Arc<Value>,
}

impl CompiledSchema {
    /// Another handle on the same compiled keywords (`jsonschema` shares them).
    pub(super) fn share(&self) -> Self {
        Self {
            validator: self.validator.clone(),
            dialect: self.dialect,
            instance_depth: self.instance_depth,
            backtrack_limit: self.backtrack_limit,
            schema: Arc::clone(&self.schema),
        }
    }

    /// The dialect the schema was compiled in.
    #[must_use]
    pub fn dialect(&self) -> Dialect {
        self.dialect
    }

    /// The deepest instance this schema validates, in levels of arrays and objects:
    /// [`ValidationLimits::max_depth`](crate::validate::ValidationLimits::max_depth), or less when
    /// the schema's chains of subschemas are long (see
    /// [`ValidationLimits`](crate::validate::ValidationLimits)).
    #[must_use]
    pub fn max_instance_depth(&self) -> usize {
        self.instance_depth
    }

    /// Returns `true` when the instance matches, without collecting errors. An instance that
    /// [`CompiledSchema::validate`] neither accepts nor rejects (too deep, a pattern match that
    /// could not finish) is not valid.
    #[must_use]
    pub fn is_valid(&self, instance: &Value) -> bool {
        deeper_than(instance, self.instance_depth).is_none() && self.validator.is_valid(instance)
    }

    /// Validates an instance.
    ///
    /// # Errors
    ///
    /// - [`Error::InvalidInstance`] with every violation.
    /// - [`Error::InstanceTooDeep`] when the instance nests deeper than
    ///   [`CompiledSchema::max_instance_depth`]; nothing is validated.
    /// - [`Error::PatternUndecided`] when a pattern match that decides the outcome could not finish
    ///   within
    ///   [`ValidationLimits::pattern_backtrack_limit`](crate::validate::ValidationLimits::pattern_backtrack_limit).
    pub fn validate(&self, instance: &Value) -> Result<(), Error> {
        if let Some(pointer) = deeper_than(instance, self.instance_depth) {
            return Err(Error::InstanceTooDeep {
                pointer,
                limit: self.instance_depth,
            });
        }
        if self.validator.is_valid(instance) {
            return Ok(());
        }
        let mut errors = Vec::new();
        for err in self.validator.iter_errors(instance) {
            use jsonschema::error::ValidationErrorKind;
            let reason = match err.kind() {
                ValidationErrorKind::BacktrackLimitExceeded { .. } => Some(format!(
                    "it needs more than {} backtracking steps",
                    self.backtrack_limit.unwrap_or_default()
                )),
                ValidationErrorKind::RegexEngineFailure { message } => Some(message.clone()),
                _ => None,
            };
            if let Some(reason) = reason {
                // `jsonschema` reports an unfinished match only when the outcomes disagree.
                return Err(Error::PatternUndecided {
                    instance_path: err.instance_path().as_str().to_owned(),
                    schema_path: err.schema_path().as_str().to_owned(),
                    reason,
                });
            }
            feedback::explain(&self.schema, instance, &err, &mut errors);
        }
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
