//! [`ToolSchema`]: the JSON Schema object of a tool's `inputSchema` or `outputSchema`.

use std::{fmt, sync::Arc};

use serde::{Deserialize, Deserializer, Serialize, Serializer, de};
use serde_json::{Map, Value};

use crate::Error;

/// A JSON Schema object, as held in a tool's `inputSchema` and `outputSchema` (MCP 2025-11-25,
/// `Tool`).
///
/// The type makes a null (or any non-object) schema impossible: it is built only from a JSON
/// object. It is immutable and reference-counted, so cloning a schema, or a [`Tool`](struct@crate::Tool)
/// holding it, copies a pointer and never the schema; a validator may cache the compiled form
/// of a schema by its identity (see [`DefaultValidator`](crate::DefaultValidator)). To change a
/// schema, take [`to_value`](Self::to_value), edit it, and build a new one.
///
/// Whether the object is a valid schema with root `"type": "object"` is checked by
/// [`Tool::validate`](crate::Tool::validate) and by the validators, not on construction, so that
/// what a server sent can always be read and passed on.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use toolmodel::ToolSchema;
///
/// let schema = ToolSchema::try_from(json!({"type": "object"}))?;
/// assert_eq!(schema.get("type"), Some(&json!("object")));
/// assert!(ToolSchema::try_from(json!(null)).is_err());
/// # Ok::<(), toolmodel::Error>(())
/// ```
#[derive(Clone, PartialEq)]
pub struct ToolSchema(Arc<Value>);

impl ToolSchema {
    /// Builds a schema from a JSON object.
    #[must_use]
    pub fn new(object: Map<String, Value>) -> Self {
        Self(Arc::new(Value::Object(object)))
    }

    /// The schema MCP recommends for a tool with no parameters:
    /// `{"type":"object","additionalProperties":false}`.
    #[must_use]
    pub fn empty_object() -> Self {
        let mut object = Map::new();
        object.insert("type".into(), Value::from("object"));
        object.insert("additionalProperties".into(), Value::Bool(false));
        Self::new(object)
    }

    /// The schema as a JSON value (always a [`Value::Object`]).
    #[must_use]
    pub fn as_value(&self) -> &Value {
        &self.0
    }

    /// The schema as a JSON object.
    #[must_use]
    pub fn as_object(&self) -> &Map<String, Value> {
        match &*self.0 {
            Value::Object(object) => object,
            // The constructors accept objects only.
            _ => empty_map(),
        }
    }

    /// A copy of the schema as an owned JSON value, to edit.
    #[must_use]
    pub fn to_value(&self) -> Value {
        Value::clone(&self.0)
    }

    /// The value of one top-level keyword.
    #[must_use]
    pub fn get(&self, keyword: &str) -> Option<&Value> {
        self.as_object().get(keyword)
    }

    /// The `$schema` keyword when present and a string.
    #[must_use]
    pub fn dialect_uri(&self) -> Option<&str> {
        self.get("$schema").and_then(Value::as_str)
    }

    /// Returns `true` when the root says `"type": "object"` (MCP requires it of `inputSchema`,
    /// and of `outputSchema` up to 2025-11-25).
    #[must_use]
    pub fn has_object_root(&self) -> bool {
        self.get("type").and_then(Value::as_str) == Some("object")
    }

    /// The address of the shared schema: equal for clones of one schema, and stable for its life.
    /// Validators use it as a cache key.
    #[must_use]
    pub fn identity(&self) -> *const Value {
        Arc::as_ptr(&self.0)
    }

    pub(crate) fn downgrade(&self) -> std::sync::Weak<Value> {
        Arc::downgrade(&self.0)
    }
}

fn empty_map() -> &'static Map<String, Value> {
    static EMPTY: std::sync::OnceLock<Map<String, Value>> = std::sync::OnceLock::new();
    EMPTY.get_or_init(Map::new)
}

/// The JSON type name of a value, as JSON Schema's `type` keyword spells it.
pub(crate) fn json_type(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(n) if n.is_i64() || n.is_u64() => "integer",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

impl TryFrom<Value> for ToolSchema {
    type Error = Error;

    /// # Errors
    ///
    /// [`Error::SchemaNotObject`] when the value is not a JSON object.
    fn try_from(value: Value) -> Result<Self, Error> {
        match value {
            Value::Object(object) => Ok(Self::new(object)),
            other => Err(Error::SchemaNotObject {
                found: json_type(&other),
            }),
        }
    }
}

impl From<Map<String, Value>> for ToolSchema {
    fn from(object: Map<String, Value>) -> Self {
        Self::new(object)
    }
}

impl From<ToolSchema> for Value {
    fn from(schema: ToolSchema) -> Self {
        Arc::try_unwrap(schema.0).unwrap_or_else(|shared| Value::clone(&shared))
    }
}

impl AsRef<Value> for ToolSchema {
    fn as_ref(&self) -> &Value {
        &self.0
    }
}

impl fmt::Debug for ToolSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ToolSchema({})", self.0)
    }
}

impl Serialize for ToolSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for ToolSchema {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::Object(object) => Ok(Self::new(object)),
            other => Err(de::Error::custom(format_args!(
                "a tool schema must be a JSON object, found {}",
                json_type(&other)
            ))),
        }
    }
}
