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
    /// Whether every instance the schema accepts is within `instance_depth`, and validating
    /// any instance recurses only as deep as the schema (`depth_bound`): then an instance is
    /// validated first and its depth checked only when it fails.
    pub(super) accepts_only_within: bool,
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
            accepts_only_within: self.accepts_only_within,
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
        if self.accepts_only_within {
            // Accepted means within the depth; validating recursed no deeper than the schema.
            return self.validator.is_valid(instance);
        }
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
        if self.accepts_only_within {
            // Accepted means within the depth (see `is_valid`); a refused instance may be too
            // deep, which is said instead of its violations.
            if self.validator.is_valid(instance) {
                return Ok(());
            }
            self.within_depth(instance)?;
        } else {
            self.within_depth(instance)?;
            if self.validator.is_valid(instance) {
                return Ok(());
            }
        }
        self.violations(instance)
    }

    /// [`Error::InstanceTooDeep`] when `instance` nests deeper than the instance depth.
    fn within_depth(&self, instance: &Value) -> Result<(), Error> {
        match deeper_than(instance, self.instance_depth) {
            None => Ok(()),
            Some(pointer) => Err(Error::InstanceTooDeep {
                pointer,
                limit: self.instance_depth,
            }),
        }
    }

    /// Why an instance within the depth is refused: an undecided pattern, or every violation.
    #[cold]
    fn violations(&self, instance: &Value) -> Result<(), Error> {
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
