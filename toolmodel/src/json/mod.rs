//! Reading and writing JSON through serde with every error at a JSON Pointer: the one home of
//! [`Error::Json`] values, which every reader of this crate reports.
//!
//! - [`json_error`]: the error for a value at a pointer, when reading a `Value` (no line or
//!   column);
//! - [`from_value`]: a `T` from a `Value` (its depth bounded by the caller), the pointer of
//!   the first error tracked ([`tracked`]: the deserializer every tool's arguments go through);
//! - [`deserialize`]: a `T` from a `Value` already bounded or validated, the pointer found only
//!   when it fails;
//! - [`deserialize_text`]: a `T` from JSON text, with the line and column too;
//! - [`serialize`]: a `T` to a `Value`, with the pointer of what cannot be written.

mod tracked;

use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_json::Value;

use crate::error::Error;
use crate::pointer::pointer_of;

/// [`Error::Json`] for the value at `pointer` (`""` for the whole value) of a JSON value
/// being read: line and column 0, as for every error that is not in text.
pub(crate) fn json_error(pointer: impl Into<String>, message: impl Into<String>) -> Error {
    Error::Json {
        path: pointer.into(),
        line: 0,
        column: 0,
        message: message.into(),
    }
}

/// Reads `T` from a `Value`, tracking the pointer of the first error. Reading a `Value`
/// recurses once per level: callers bound its depth first ([`ValidationLimits::max_depth`]).
///
/// # Errors
///
/// [`Error::Json`] at the value `T` refuses.
///
/// [`ValidationLimits::max_depth`]: crate::validate::ValidationLimits::max_depth
pub(crate) fn from_value<T: for<'de> Deserialize<'de>>(value: &Value) -> Result<T, Error> {
    tracked::deserialize(value).map_err(|(err, pointer)| json_error(pointer, err.to_string()))
}

/// Reads `T` from a `Value` whose depth is known to be bounded (validated arguments, a result
/// a handler built); on failure, reads it again to find the pointer (the failure path is rare,
/// so the common one does not pay for path tracking).
///
/// # Errors
///
/// [`Error::Json`] at the value `T` refuses.
pub(crate) fn deserialize<T: DeserializeOwned>(value: &Value) -> Result<T, Error> {
    T::deserialize(value).map_err(|first| {
        match serde_path_to_error::deserialize::<_, T>(value) {
            Err(err) => json_error(pointer_of(err.path()), err.inner().to_string()),
            // Deserialization is deterministic; should it succeed now, report the first error.
            Ok(_) => json_error(String::new(), first.to_string()),
        }
    })
}

/// Reads one `T` from the text of `deserializer`, and nothing after it.
///
/// # Errors
///
/// [`Error::Json`] with the line and column (1-based) and the JSON Pointer of the error.
pub(crate) fn deserialize_text<'de, T, R>(
    mut deserializer: serde_json::Deserializer<R>,
) -> Result<T, Error>
where
    T: Deserialize<'de>,
    R: serde_json::de::Read<'de>,
{
    let value = serde_path_to_error::deserialize(&mut deserializer).map_err(|err| Error::Json {
        path: pointer_of(err.path()),
        line: err.inner().line(),
        column: err.inner().column(),
        message: err.inner().to_string(),
    })?;
    deserializer.end().map_err(|err| Error::Json {
        path: String::new(),
        line: err.line(),
        column: err.column(),
        message: err.to_string(),
    })?;
    Ok(value)
}

/// Writes `value` as a `Value`.
///
/// # Errors
///
/// [`Error::Json`] at the part `T`'s `Serialize` refuses (a map with non-string keys, a
/// failing custom `Serialize`).
pub(crate) fn serialize<T: Serialize>(value: &T) -> Result<Value, Error> {
    serde_path_to_error::serialize(value, serde_json::value::Serializer)
        .map_err(|err| json_error(pointer_of(err.path()), err.inner().to_string()))
}
