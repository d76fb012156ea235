//! The JSON shapes of provider messages: reading a response's members with an
//! [`Error::Json`] at the offending pointer, and writing objects straight from their members
//! (no `json!` on values already built, which would serialize them a second time), or
//! serializing them where they are ([`Items`]); and the typed shapes a response's text is read
//! into ([`MapOnly`], [`present`]).

use std::fmt;

use serde::de::{Deserialize, Deserializer, MapAccess, Visitor, value::MapAccessDeserializer};
use serde::{Serialize, Serializer};
use serde_json::{Map, Value};

use crate::error::Error;
use crate::model::schema::json_type;

/// A JSON error at `pointer` of the response read.
pub(crate) fn shape_error(pointer: &str, message: impl Into<String>) -> Error {
    Error::Json {
        path: pointer.to_owned(),
        line: 0,
        column: 0,
        message: message.into(),
    }
}

/// A JSON Pointer in two parts, written out only for an error: the pointer of a call and
/// the member of it being read (`/choices/0/message/tool_calls/2` and `/function`).
#[derive(Clone, Copy)]
pub(crate) struct Under<'a>(pub(crate) &'a str, pub(crate) &'a str);

impl fmt::Display for Under<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0)?;
        f.write_str(self.1)
    }
}

/// The member `key` of `value` (at `pointer`) as an array, or `None` when absent or `null`.
pub(crate) fn array_at<'v>(
    value: &'v Value,
    key: &str,
    pointer: impl fmt::Display,
) -> Result<Option<&'v Vec<Value>>, Error> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::Array(items)) => Ok(Some(items)),
        Some(other) => Err(shape_error(
            &format!("{pointer}/{key}"),
            format!("expected an array, found {}", json_type(other)),
        )),
    }
}

/// The member `key` of the object `value` (at `pointer`) as a string: required.
pub(crate) fn str_at<'v>(
    value: &'v Value,
    key: &str,
    pointer: impl fmt::Display,
) -> Result<&'v str, Error> {
    match value.get(key) {
        Some(Value::String(text)) => Ok(text),
        Some(other) => Err(shape_error(
            &format!("{pointer}/{key}"),
            format!("expected a string, found {}", json_type(other)),
        )),
        None => Err(shape_error(
            &pointer.to_string(),
            format!("missing field `{key}`"),
        )),
    }
}

/// [`str_at`], owned.
pub(crate) fn string_at(
    value: &Value,
    key: &str,
    pointer: impl fmt::Display,
) -> Result<String, Error> {
    str_at(value, key, pointer).map(str::to_owned)
}

/// The member `key` as a string when present and a string; `None` when absent or `null`.
pub(crate) fn optional_str_at<'v>(
    value: &'v Value,
    key: &str,
    pointer: impl fmt::Display,
) -> Result<Option<&'v str>, Error> {
    match value.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(_) => str_at(value, key, pointer).map(Some),
    }
}

/// [`optional_str_at`], owned.
pub(crate) fn optional_string_at(
    value: &Value,
    key: &str,
    pointer: impl fmt::Display,
) -> Result<Option<String>, Error> {
    Ok(optional_str_at(value, key, pointer)?.map(str::to_owned))
}

/// The array a response holds the calls in: `response` itself when it is an array (pointer
/// `""`), else its member `key` (pointer `pointer`); [`Error::Json`] saying `expected`
/// otherwise.
pub(crate) fn list_or_member<'v>(
    response: &'v Value,
    key: &str,
    pointer: &'static str,
    expected: &str,
) -> Result<(&'v Vec<Value>, &'static str), Error> {
    match response {
        Value::Array(items) => Ok((items, "")),
        _ => match array_at(response, key, "")? {
            Some(items) => Ok((items, pointer)),
            None => Err(shape_error("", expected)),
        },
    }
}

/// The object `response[list][0][member]` (at `pointer`), `None` when `response` has no
/// `list`; [`Error::Json`] for an empty list or a missing member.
pub(crate) fn first_member<'v>(
    response: &'v Value,
    list: &str,
    member: &str,
    pointer: &'static str,
) -> Result<Option<(&'v Value, &'static str)>, Error> {
    let Some(items) = array_at(response, list, "")? else {
        return Ok(None);
    };
    let first = items
        .first()
        .ok_or_else(|| shape_error(&format!("/{list}"), format!("a response with no {list}")))?;
    match first.get(member) {
        Some(value) if value.is_object() => Ok(Some((value, pointer))),
        _ => Err(shape_error(
            &format!("/{list}/0"),
            format!("missing field `{member}`"),
        )),
    }
}

/// A JSON object of `members`, which are moved in as they are.
pub(crate) fn object<const N: usize>(members: [(&str, Value); N]) -> Value {
    Value::Object(members_map(members))
}

/// The map of [`object`], to add optional members to before wrapping it. Inserted one by one:
/// collecting a map sorts a buffer of the members first, which costs more for a handful.
pub(crate) fn members_map<const N: usize>(members: [(&str, Value); N]) -> Map<String, Value> {
    let mut map = Map::new();
    for (key, value) in members {
        map.insert(key.to_owned(), value);
    }
    map
}

/// A JSON array of what an iterator gives, serialized as it comes (the iterator is cloned
/// for each serialization, so the value can be written more than once).
#[derive(Clone)]
pub(crate) struct Items<I>(pub(crate) I);

impl<I> Serialize for Items<I>
where
    I: Iterator + Clone,
    I::Item: Serialize,
{
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_seq(self.0.clone())
    }
}

/// For `skip_serializing_if`: a flag written only when set (`is_error`).
#[allow(clippy::trivially_copy_pass_by_ref)] // serde passes a reference
pub(crate) fn is_false(flag: &bool) -> bool {
    !*flag
}

/// The JSON Pointer `base` + `infix` + `/index` (`/content/3`, `/choices/0/message/tool_calls/1`),
/// written without the formatting machinery: one is made for every call read.
pub(crate) fn index_pointer(base: &str, infix: &str, index: usize) -> String {
    // The largest power of ten not above `index` (no overflow: it is at most `index`).
    let mut divisor = 1usize;
    while index / divisor >= 10 {
        divisor *= 10;
    }
    let mut pointer = String::with_capacity(base.len() + infix.len() + 4);
    pointer.push_str(base);
    pointer.push_str(infix);
    pointer.push('/');
    loop {
        // A digit: it fits in a `u8`.
        let digit = u8::try_from(index / divisor % 10).unwrap_or_default();
        pointer.push(char::from(b'0' + digit));
        if divisor == 1 {
            break;
        }
        divisor /= 10;
    }
    pointer
}

/// A `T` read from a JSON object only. A struct deriving `Deserialize` also accepts an array
/// (its fields in order), which the readers of a `Value` treat as "not an object": reading
/// through `MapOnly` keeps the typed reading of a response text to what they accept.
pub(crate) struct MapOnly<T>(pub(crate) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for MapOnly<T> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct ObjectVisitor<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
            type Value = MapOnly<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                T::deserialize(MapAccessDeserializer::new(map)).map(MapOnly)
            }
        }
        deserializer.deserialize_map(ObjectVisitor(std::marker::PhantomData))
    }
}

/// For `deserialize_with` on an `Option` field with `#[serde(default)]`: a member that is
/// present is read as a `T` (so `null` is an error where `T` refuses it, as a reader of a
/// `Value` finds a `null` member present); an absent one is `None`.
pub(crate) fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    T::deserialize(deserializer).map(Some)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn objects_are_their_members() {
        let inner = json!({"a": [1, {"b": null}]});
        assert_eq!(
            object([("x", Value::from("y")), ("inner", inner.clone())]),
            json!({"x": "y", "inner": inner})
        );
        assert_eq!(object([]), json!({}));
    }

    #[test]
    fn index_pointers_are_what_format_writes() {
        for index in [0, 7, 10, 99, 1234, usize::MAX] {
            assert_eq!(
                index_pointer("/choices/0/message", "/tool_calls", index),
                format!("/choices/0/message/tool_calls/{index}")
            );
            assert_eq!(index_pointer("", "", index), format!("/{index}"));
        }
    }

    #[test]
    fn members_of_the_wrong_type_are_errors_at_their_pointer() {
        let value = json!({"calls": 3, "name": 7});
        let err = array_at(&value, "calls", "/m").unwrap_err();
        assert!(matches!(&err, Error::Json { path, message, .. }
            if path == "/m/calls" && message == "expected an array, found integer"));
        let err = string_at(&value, "name", "/m").unwrap_err();
        assert!(matches!(&err, Error::Json { path, .. } if path == "/m/name"));
        let err = string_at(&value, "id", "/m").unwrap_err();
        assert!(matches!(&err, Error::Json { path, message, .. }
            if path == "/m" && message == "missing field `id`"));
        assert_eq!(
            optional_string_at(&json!({"id": null}), "id", "").unwrap(),
            None
        );
    }
}
