//! Integer-valued numbers for integer fields.
//!
//! JSON Schema 2020-12 (Validation, 6.1.1 `type`, and Core, 4.2.1) counts any number with a
//! zero fractional part as an `integer`: `3.0` and `3e0` pass `"type": "integer"`. `serde`
//! refuses them for `u8`, `i64`, ... (`invalid type: floating point 3.0, expected u8`), so
//! arguments the input schema accepted would fail to deserialize. When deserialization fails,
//! [`retry`] reads them once more with each such number written as the integer it equals.

use serde_json::{Number, Value};

/// `2^64`, the first float above `u64::MAX`.
const TWO_POW_64: f64 = 18_446_744_073_709_551_616.0;
/// `-2^63`, `i64::MIN` as a float.
const MINUS_TWO_POW_63: f64 = -9_223_372_036_854_775_808.0;

/// Reads `arguments` again with `read`, every integer-valued float (`3.0`, `-2.0`, `1e2`) an
/// integer, when it has one; `first` (the error of the first attempt) otherwise, or when the
/// second attempt fails too.
///
/// # Errors
///
/// `first`, unchanged.
pub(crate) fn retry<T, E>(
    arguments: &Value,
    first: E,
    read: impl FnOnce(&Value) -> Result<T, E>,
) -> Result<T, E> {
    match integers_of(arguments) {
        Some(integral) => read(&integral).map_err(|_| first),
        None => Err(first),
    }
}

/// A copy of `value` with every integer-valued float an integer (an `i64`, or a `u64` above
/// `i64::MAX`); `None` when there is none to change.
pub(crate) fn integers_of(value: &Value) -> Option<Value> {
    match value {
        Value::Number(number) => integer(number).map(Value::Number),
        Value::Array(items) => {
            let changed: Vec<Option<Value>> = items.iter().map(integers_of).collect();
            changed.iter().any(Option::is_some).then(|| {
                Value::Array(
                    changed
                        .into_iter()
                        .zip(items)
                        .map(|(new, old)| new.unwrap_or_else(|| old.clone()))
                        .collect(),
                )
            })
        }
        Value::Object(members) => {
            let changed: Vec<Option<Value>> = members.values().map(integers_of).collect();
            changed.iter().any(Option::is_some).then(|| {
                Value::Object(
                    changed
                        .into_iter()
                        .zip(members)
                        .map(|(new, (key, old))| (key.clone(), new.unwrap_or_else(|| old.clone())))
                        .collect(),
                )
            })
        }
        Value::Null | Value::Bool(_) | Value::String(_) => None,
    }
}

/// The integer a float with no fractional part equals, when an `i64` or `u64` holds it.
fn integer(number: &Number) -> Option<Number> {
    let float = number.as_f64().filter(|_| number.is_f64())?;
    if !float.is_finite() || float.fract() != 0.0 {
        return None;
    }
    // Both casts are exact: `float` is whole and within the target's range.
    #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
    if (0.0..TWO_POW_64).contains(&float) {
        Some(Number::from(float as u64))
    } else if (MINUS_TWO_POW_63..0.0).contains(&float) {
        Some(Number::from(float as i64))
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn whole_floats_become_integers_everywhere() {
        let value =
            json!({"days": 3.0, "list": [1.0, 2.5, -4.0], "nested": {"n": 1e2}, "s": "3.0"});
        assert_eq!(
            integers_of(&value),
            Some(json!({"days": 3, "list": [1, 2.5, -4], "nested": {"n": 100}, "s": "3.0"}))
        );
    }

    #[test]
    fn nothing_to_change_is_none() {
        assert_eq!(integers_of(&json!({"a": 3, "b": 2.5, "c": "x"})), None);
        assert_eq!(integers_of(&json!(1e300)), None);
    }

    #[test]
    fn retry_accepts_whole_floats_for_integer_fields_only() {
        let read = |value: &Value| serde_json::from_value::<u8>(value.clone());
        let first = read(&json!(3.0)).unwrap_err();
        assert_eq!(retry(&json!(3.0), first, read).unwrap(), 3);
        let first = read(&json!(3.5)).unwrap_err();
        let err = retry(&json!(3.5), first, read).unwrap_err();
        assert!(err.to_string().contains("3.5"), "{err}");
        let first = read(&json!(300.0)).unwrap_err();
        assert!(retry(&json!(300.0), first, read).is_err());
    }

    proptest::proptest! {
        /// Every integer written as a float comes back as itself.
        #[test]
        fn whole_floats_round_trip(n in -(1i64 << 53)..(1i64 << 53)) {
            #[allow(clippy::cast_precision_loss)]
            let float = json!(n as f64);
            let back = integers_of(&float).unwrap_or(float);
            proptest::prop_assert_eq!(back.as_i64(), Some(n));
        }
    }
}
