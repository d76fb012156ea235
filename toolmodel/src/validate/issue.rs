//! What validation reports: [`InstanceError`] (an instance against its schema) and
//! [`SchemaIssue`] (a schema against its meta-schema). A leaf module: the crate's error carries both.

use std::fmt;

/// One violation of an instance against its schema.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct InstanceError {
    /// JSON Pointer of the offending value in the instance (`""` is the whole instance).
    pub instance_path: String,
    /// JSON Pointer of the failing keyword in the schema document, where any `$ref` led: a
    /// failure reached through `{"$ref": "#/$defs/port"}` is at `/$defs/port/minimum`.
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
