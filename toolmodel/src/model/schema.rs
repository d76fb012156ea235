//! [`ToolSchema`]: the JSON Schema object of a tool's `inputSchema` or `outputSchema`.

use std::{
    any::Any,
    fmt,
    panic::AssertUnwindSafe,
    sync::{Arc, OnceLock},
};

use serde::{Deserialize, Deserializer, Serialize, Serializer, de};
use serde_json::{Map, Value};

use crate::error::Error;

/// A JSON Schema object, as held in a tool's `inputSchema` and `outputSchema` (MCP 2025-11-25,
/// `Tool`).
///
/// The type makes a null (or any non-object) schema impossible: it is built only from a JSON
/// object. It is immutable and reference-counted, so cloning a schema, or a [`Tool`](struct@crate::Tool)
/// holding it, copies a pointer and never the schema. Because it cannot change, a validator
/// may cache its compiled form by its identity (see [`DefaultValidator`](crate::DefaultValidator)),
/// and what a conversion ([`adapters`](crate::adapters)) checks before it starts (nesting
/// depth, `type` names, references) is worked out once and kept with it, shared by its
/// clones. To change a schema, take [`to_value`](Self::to_value), edit it, and build a new one
/// (which starts with nothing kept).
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
#[derive(Clone)]
pub struct ToolSchema(Arc<Shared>);

/// What clones of one schema share: the schema, and what the adapters worked out from it.
struct Shared {
    value: Value,
    /// Written once and never changed, so a panic elsewhere cannot leave it half-made. Only
    /// the adapters use it.
    #[cfg_attr(not(feature = "adapters"), allow(dead_code))]
    memo: OnceLock<AssertUnwindSafe<Memo>>,
}

/// What a conversion checks of a schema before it starts ([`ToolSchema::memo`]), type-erased
/// so that this module does not depend on the adapters.
pub(crate) type Memo = Box<dyn Any + Send + Sync>;

impl ToolSchema {
    /// Builds a schema from a JSON object.
    #[must_use]
    pub fn new(object: Map<String, Value>) -> Self {
        Self(Arc::new(Shared {
            value: Value::Object(object),
            memo: OnceLock::new(),
        }))
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
        &self.0.value
    }

    /// The schema as a JSON object.
    #[must_use]
    pub fn as_object(&self) -> &Map<String, Value> {
        match &self.0.value {
            Value::Object(object) => object,
            // The constructors accept objects only.
            _ => empty_map(),
        }
    }

    /// A copy of the schema as an owned JSON value, to edit.
    #[must_use]
    pub fn to_value(&self) -> Value {
        self.0.value.clone()
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
        &raw const self.0.value
    }

    /// A weak handle on the shared allocation: alive as long as a clone of this schema is.
    pub(crate) fn downgrade(&self) -> WeakSchema {
        WeakSchema(Arc::downgrade(&self.0))
    }

    /// The memo, made by `make` on first use (by whichever caller comes first; the others wait
    /// for it), downcast to `T`: `None` when it holds another type, which only two callers
    /// storing different types could cause.
    #[cfg_attr(not(feature = "adapters"), allow(dead_code))]
    pub(crate) fn memo<T: Any + Send + Sync>(&self, make: impl FnOnce(&Value) -> T) -> Option<&T> {
        self.0
            .memo
            .get_or_init(|| AssertUnwindSafe(Box::new(make(&self.0.value))))
            .downcast_ref()
    }
}

/// A weak handle on a schema's shared allocation ([`ToolSchema::downgrade`]): it keeps the
/// allocation (not the schema) alive, so its address is not reused while the handle exists.
pub(crate) struct WeakSchema(std::sync::Weak<Shared>);

impl WeakSchema {
    /// Whether a clone of the schema is still alive.
    pub(crate) fn is_alive(&self) -> bool {
        self.0.strong_count() > 0
    }
}

impl PartialEq for ToolSchema {
    /// Schemas are equal when their JSON is (what is kept with them does not count).
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0) || self.0.value == other.0.value
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
        Arc::try_unwrap(schema.0).map_or_else(|shared| shared.value.clone(), |own| own.value)
    }
}

impl AsRef<Value> for ToolSchema {
    fn as_ref(&self) -> &Value {
        &self.0.value
    }
}

impl fmt::Debug for ToolSchema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "ToolSchema({})", self.0.value)
    }
}

impl Serialize for ToolSchema {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.value.serialize(serializer)
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
