//! JSON text in which an object repeats a key is refused when a tool is read from text.
//!
//! RFC 8259 says names within an object "SHOULD be unique" and leaves the meaning of a repeated
//! one to each parser: `serde_json` keeps the last value, other parsers keep the first or fail.
//! A schema such as `{"type": "object", "type": "string"}` would then mean one thing to this
//! crate and another to the server or the model that reads the same text. Reading text,
//! `toolmodel` therefore refuses any repeated key, anywhere in the document, with the line and
//! column where it is repeated and the JSON Pointer of its object.

use std::{collections::HashSet, fmt};

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};

use crate::error::Error;

/// Checks that no object of the JSON text read by `deserializer` repeats a key.
///
/// # Errors
///
/// [`Error::Json`] with the line and column of the repeated key, the JSON Pointer of its object
/// and the key; or for text that is not JSON, as `serde_json` reports it.
pub(crate) fn check<'de, R: serde_json::de::Read<'de>>(
    deserializer: serde_json::Deserializer<R>,
) -> Result<(), Error> {
    crate::json::deserialize_text::<UniqueKeys, R>(deserializer).map(|UniqueKeys| ())
}

/// Any JSON value whose objects do not repeat a key; nothing of it is kept.
struct UniqueKeys;

impl<'de> Deserialize<'de> for UniqueKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(UniqueKeysVisitor)
    }
}

struct UniqueKeysVisitor;

impl<'de> Visitor<'de> for UniqueKeysVisitor {
    type Value = UniqueKeys;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_i64<E>(self, _: i64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_u64<E>(self, _: u64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_f64<E>(self, _: f64) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_str<E>(self, _: &str) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_unit<E>(self) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_none<E>(self) -> Result<UniqueKeys, E> {
        Ok(UniqueKeys)
    }

    fn visit_some<D: Deserializer<'de>>(self, deserializer: D) -> Result<UniqueKeys, D::Error> {
        UniqueKeys::deserialize(deserializer)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<UniqueKeys, A::Error> {
        while seq.next_element::<UniqueKeys>()?.is_some() {}
        Ok(UniqueKeys)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<UniqueKeys, A::Error> {
        let mut seen: HashSet<String> = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if seen.contains(&key) {
                return Err(de::Error::custom(format_args!(
                    "duplicate key {key:?} (a key may appear once in an object)"
                )));
            }
            map.next_value::<UniqueKeys>()?;
            seen.insert(key);
        }
        Ok(UniqueKeys)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check_str(text: &str) -> Result<(), Error> {
        check(serde_json::Deserializer::from_str(text))
    }

    #[test]
    fn a_repeated_key_is_named_with_its_place() {
        assert_eq!(check_str(r#"{"a": [1, {"b": 2, "c": {"b": 3}}]}"#), Ok(()));
        let err = check_str("{\"a\": [1, {\"b\": 2,\n \"b\": 3}]}").unwrap_err();
        let Error::Json {
            path,
            line,
            column,
            message,
        } = err
        else {
            panic!("expected Error::Json")
        };
        assert_eq!((path.as_str(), line, column), ("/a/1", 2, 4));
        assert!(message.starts_with("duplicate key \"b\""), "{message}");
    }

    #[test]
    fn text_that_is_not_json_is_reported_as_serde_json_reports_it() {
        assert!(matches!(
            check_str("{\"a\": 1} x"),
            Err(Error::Json {
                line: 1,
                column: 10,
                ..
            })
        ));
        assert!(matches!(
            check_str("[1e400]"),
            Err(Error::Json { line: 1, .. })
        ));
    }
}
