//! A deserializer over a [`Value`] that knows where it is: on an error, the JSON Pointer of
//! the value that was refused.
//!
//! It is `serde_json`'s own `&Value` deserializer for every value without members (the same
//! behaviour and the same error messages), with its own access to objects, arrays and enum
//! variants so that each member and element read records its step. The path is one list of
//! borrowed steps shared by the whole read: a step is written before a member is read and
//! dropped once it is read, so an error leaves the steps to where it happened.
//!
//! Why not `serde_path_to_error`, which the text reader and the serializer use: it wraps every
//! visitor, seed and access in generic layers of its own, compiled again for every type read.
//! Tool arguments are read through here for every derived tool's arguments type, and at
//! hundreds of tools those layers were the largest share of the generated code
//! (README "Compile cost"). Here the tracking is plain code that is not generic over the type
//! read, and a type's `Deserialize` is compiled against this deserializer about as it is
//! against `serde_json`'s.

use std::cell::RefCell;
use std::fmt::Write as _;

use serde::de::{
    self, DeserializeSeed, Deserializer, EnumAccess, IntoDeserializer, MapAccess, SeqAccess,
    VariantAccess, Visitor,
};
use serde_json::{Error, Map, Value};

use crate::pointer::push_token;

/// One step into a value: a member of an object or an element of an array.
#[derive(Clone, Copy, Debug)]
enum Step<'a> {
    Member(&'a str),
    Element(usize),
}

/// The steps from the root to the value being read.
type Steps<'a> = RefCell<Vec<Step<'a>>>;

/// Reads a `T` from `value`.
///
/// # Errors
///
/// What `T`'s `Deserialize` refuses (`serde_json`'s error, with its message), and the JSON
/// Pointer of the value it refused (`""` for the root).
pub(crate) fn deserialize<'a, T: de::Deserialize<'a>>(
    value: &'a Value,
) -> Result<T, (Error, String)> {
    let steps = Steps::new(Vec::new());
    T::deserialize(Tracked {
        value,
        steps: &steps,
        depth: 0,
    })
    .map_err(|err| (err, pointer(&steps.borrow())))
}

/// The JSON Pointer (RFC 6901) of `steps`.
fn pointer(steps: &[Step<'_>]) -> String {
    let mut out = String::new();
    for step in steps {
        match step {
            Step::Member(key) => push_token(&mut out, key),
            Step::Element(index) => {
                let _ = write!(out, "/{index}");
            }
        }
    }
    out
}

/// The value at `depth` steps from the root, read with the steps shared.
#[derive(Clone, Copy)]
struct Tracked<'a, 's> {
    value: &'a Value,
    steps: &'s Steps<'a>,
    depth: usize,
}

impl<'a, 's> Tracked<'a, 's> {
    /// Reads with `read` the value `step` leads to: the step is recorded first (dropping
    /// steps left by a read that failed and was recovered from), and dropped once the read
    /// succeeds; on an error it stays, so the steps lead to where the error is.
    fn within<R>(
        &self,
        step: Step<'a>,
        value: &'a Value,
        read: impl FnOnce(Tracked<'a, 's>) -> Result<R, Error>,
    ) -> Result<R, Error> {
        {
            let mut steps = self.steps.borrow_mut();
            steps.truncate(self.depth);
            steps.push(step);
        }
        let read = read(Tracked {
            value,
            steps: self.steps,
            depth: self.depth + 1,
        })?;
        self.steps.borrow_mut().truncate(self.depth);
        Ok(read)
    }

    fn visit_array<V: Visitor<'a>>(
        self,
        items: &'a [Value],
        visitor: V,
    ) -> Result<V::Value, Error> {
        let mut access = Elements {
            at: self,
            items: items.iter().enumerate(),
        };
        let read = visitor.visit_seq(&mut access)?;
        all_read(
            read,
            access.items.len(),
            items.len(),
            "fewer elements in array",
        )
    }

    fn visit_object<V: Visitor<'a>>(
        self,
        members: &'a Map<String, Value>,
        visitor: V,
    ) -> Result<V::Value, Error> {
        let mut access = Members {
            at: self,
            members: members.iter(),
            value: None,
        };
        let read = visitor.visit_map(&mut access)?;
        all_read(
            read,
            access.members.len(),
            members.len(),
            "fewer elements in map",
        )
    }
}

/// `read`, if the visitor read all `len` elements or members; as `serde_json`, one that
/// stopped early (`left` unread) refuses the rest, naming `expected`.
fn all_read<T>(read: T, left: usize, len: usize, expected: &'static str) -> Result<T, Error> {
    match left {
        0 => Ok(read),
        _ => Err(de::Error::invalid_length(len, &expected)),
    }
}

/// The methods that read a value that cannot hold members the way `serde_json` does (its
/// methods for these have no path into an array or object: delegating compiles nothing of
/// its deserializer beyond them).
macro_rules! as_serde_json {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
                self.value.$method(visitor)
            }
        )*
    };
}

/// The name under which `serde_json`'s `RawValue` asks for the JSON text of a value
/// (feature `raw_value`), and the key of the one-member map it is handed in.
const RAW_VALUE: &str = "$serde_json::private::RawValue";

impl<'a> Deserializer<'a> for Tracked<'a, '_> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_unit(),
            Value::Bool(flag) => visitor.visit_bool(*flag),
            Value::Number(number) => number.deserialize_any(visitor),
            Value::String(text) => visitor.visit_borrowed_str(text),
            Value::Array(items) => self.visit_array(items, visitor),
            Value::Object(members) => self.visit_object(members, visitor),
        }
    }

    as_serde_json! {
        deserialize_bool deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64
        deserialize_i128 deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64
        deserialize_u128 deserialize_f32 deserialize_f64 deserialize_char deserialize_str
        deserialize_string deserialize_unit deserialize_identifier deserialize_ignored_any
    }

    fn deserialize_bytes<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        // As `serde_json`: a string's bytes, or an array of numbers.
        match self.value {
            Value::String(text) => visitor.visit_borrowed_str(text),
            _ => self.deserialize_seq(visitor),
        }
    }

    fn deserialize_byte_buf<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_bytes(visitor)
    }

    fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.value.deserialize_unit(visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'a>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        if name == RAW_VALUE {
            return visitor.visit_map(RawValueText(Some(self.value.to_string())));
        }
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_seq<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Array(items) => self.visit_array(items, visitor),
            other => Err(invalid_type(other, &visitor)),
        }
    }

    fn deserialize_tuple<V: Visitor<'a>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _len: usize,
        visitor: V,
    ) -> Result<V::Value, Error> {
        self.deserialize_seq(visitor)
    }

    fn deserialize_map<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            Value::Object(members) => self.visit_object(members, visitor),
            other => Err(invalid_type(other, &visitor)),
        }
    }

    fn deserialize_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        // As `serde_json`: an object, or an array of the fields in order.
        match self.value {
            Value::Array(items) => self.visit_array(items, visitor),
            _ => self.deserialize_map(visitor),
        }
    }

    fn deserialize_enum<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        // As `serde_json`: `"variant"` (a unit variant) or `{"variant": value}`, whose value
        // is read at `/variant`. One call to the visitor: its `visit_enum` is compiled once.
        let (variant, value) = match self.value {
            Value::String(variant) => (variant, None),
            Value::Object(members) => {
                let mut members = members.iter();
                match (members.next(), members.next()) {
                    (Some((variant, value)), None) => (variant, Some(value)),
                    _ => {
                        return Err(de::Error::invalid_value(
                            de::Unexpected::Map,
                            &"map with a single key",
                        ));
                    }
                }
            }
            other => return Err(de::Error::invalid_type(unexpected(other), &"string or map")),
        };
        visitor.visit_enum(Variant {
            at: self,
            variant,
            value,
        })
    }
}

/// `serde_json`'s refusal of `value` by `visitor`.
fn invalid_type(value: &Value, visitor: &dyn de::Expected) -> Error {
    de::Error::invalid_type(unexpected(value), visitor)
}

/// The JSON text of a value, handed to `RawValue` as `serde_json` hands it: a map of one
/// member, [`RAW_VALUE`] to the text.
struct RawValueText(Option<String>);

impl<'a> MapAccess<'a> for RawValueText {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'a>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        if self.0.is_none() {
            return Ok(None);
        }
        seed.deserialize(de::value::BorrowedStrDeserializer::new(RAW_VALUE))
            .map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'a>>(&mut self, seed: T) -> Result<T::Value, Error> {
        let text = self.0.take().unwrap_or_default();
        seed.deserialize(IntoDeserializer::<Error>::into_deserializer(text))
    }
}

/// The elements of an array, each read at its index.
struct Elements<'a, 's> {
    at: Tracked<'a, 's>,
    items: std::iter::Enumerate<std::slice::Iter<'a, Value>>,
}

impl<'a> SeqAccess<'a> for Elements<'a, '_> {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'a>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        match self.items.next() {
            Some((index, value)) => self
                .at
                .within(Step::Element(index), value, |at| seed.deserialize(at))
                .map(Some),
            None => Ok(None),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.items.len())
    }
}

/// The members of an object, each value read at its key.
struct Members<'a, 's> {
    at: Tracked<'a, 's>,
    members: serde_json::map::Iter<'a>,
    /// The member whose key was read and whose value is next.
    value: Option<(&'a str, &'a Value)>,
}

impl<'a> MapAccess<'a> for Members<'a, '_> {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'a>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        let Some((key, value)) = self.members.next() else {
            return Ok(None);
        };
        self.value = Some((key, value));
        // A key refused (`deny_unknown_fields`, a map of numbers) is an error at its member.
        self.at
            .within(Step::Member(key), value, |_| seed.deserialize(Key(key)))
            .map(Some)
    }

    fn next_value_seed<T: DeserializeSeed<'a>>(&mut self, seed: T) -> Result<T::Value, Error> {
        match self.value.take() {
            Some((key, value)) => self
                .at
                .within(Step::Member(key), value, |at| seed.deserialize(at)),
            None => Err(de::Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.members.len())
    }
}

/// An object's key: a string, or a number or `true`/`false` written as one (as
/// `serde_json` reads map keys).
struct Key<'a>(&'a str);

/// The methods that read a key as the number it spells, with `serde_json`'s number reader
/// (the visitor says whether the number fits; its error has the position in the key, as
/// `serde_json`'s).
macro_rules! numeric_key {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
                let mut number = self.number()?;
                let read = (&mut number).$method(visitor)?;
                number.end().map_err(|_| Self::not_a_number())?;
                Ok(read)
            }
        )*
    };
}

impl<'a> Key<'a> {
    /// `serde_json`'s refusal of a key that is not a number.
    fn not_a_number() -> Error {
        de::Error::custom("invalid value: expected key to be a number in quotes")
    }

    /// A reader of the key as JSON text, if it starts as a number and has nothing after it
    /// but what the number reader reads.
    fn number(&self) -> Result<serde_json::Deserializer<serde_json::de::StrRead<'a>>, Error> {
        let starts_as_number = matches!(self.0.as_bytes().first(), Some(b'0'..=b'9' | b'-'));
        if !starts_as_number || self.0.trim_end().len() != self.0.len() {
            return Err(Self::not_a_number());
        }
        Ok(serde_json::Deserializer::from_str(self.0))
    }
}

impl<'a> Deserializer<'a> for Key<'a> {
    type Error = Error;

    fn deserialize_any<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_borrowed_str(self.0)
    }

    fn deserialize_bool<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            "true" => visitor.visit_bool(true),
            "false" => visitor.visit_bool(false),
            other => Err(de::Error::invalid_type(
                de::Unexpected::Str(other),
                &visitor,
            )),
        }
    }

    numeric_key! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_i128
        deserialize_u8 deserialize_u16 deserialize_u32 deserialize_u64 deserialize_u128
        deserialize_f32 deserialize_f64
    }

    fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'a>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'a>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(IntoDeserializer::<Error>::into_deserializer(self.0))
    }

    serde::forward_to_deserialize_any! {
        <W: Visitor<'a>>
        char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map struct
        identifier ignored_any
    }
}

/// An enum written `"variant"` (`value` is `None`) or `{"variant": value}`.
struct Variant<'a, 's> {
    at: Tracked<'a, 's>,
    variant: &'a str,
    value: Option<&'a Value>,
}

impl<'a, 's> EnumAccess<'a> for Variant<'a, 's> {
    type Error = Error;
    type Variant = Self;

    fn variant_seed<T: DeserializeSeed<'a>>(self, seed: T) -> Result<(T::Value, Self), Error> {
        let variant =
            seed.deserialize(IntoDeserializer::<Error>::into_deserializer(self.variant))?;
        Ok((variant, self))
    }
}

impl<'a> VariantAccess<'a> for Variant<'a, '_> {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        // As `serde_json`: `{"Unit": null}` is the unit variant too.
        match self.value {
            None | Some(Value::Null) => Ok(()),
            Some(other) => Err(de::Error::invalid_type(unexpected(other), &"unit")),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'a>>(self, seed: T) -> Result<T::Value, Error> {
        match self.value {
            Some(value) => self
                .at
                .within(Step::Member(self.variant), value, |at| seed.deserialize(at)),
            None => Err(unit_variant("newtype variant")),
        }
    }

    fn tuple_variant<V: Visitor<'a>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        match self.value {
            // As `serde_json`: `[]` is read as a unit.
            Some(Value::Array(items)) if items.is_empty() => visitor.visit_unit(),
            Some(value @ Value::Array(items)) => {
                self.at.within(Step::Member(self.variant), value, |at| {
                    at.visit_array(items, visitor)
                })
            }
            Some(other) => Err(de::Error::invalid_type(unexpected(other), &"tuple variant")),
            None => Err(unit_variant("tuple variant")),
        }
    }

    fn struct_variant<V: Visitor<'a>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.value {
            Some(value @ Value::Object(members)) => {
                self.at.within(Step::Member(self.variant), value, |at| {
                    at.visit_object(members, visitor)
                })
            }
            Some(other) => Err(de::Error::invalid_type(
                unexpected(other),
                &"struct variant",
            )),
            None => Err(unit_variant("struct variant")),
        }
    }
}

/// A variant written as a string where it has a value.
fn unit_variant(expected: &'static str) -> Error {
    de::Error::invalid_type(de::Unexpected::UnitVariant, &expected)
}

/// What `value` is, for an error message (as `serde_json` names it).
fn unexpected(value: &Value) -> de::Unexpected<'_> {
    match value {
        Value::Null => de::Unexpected::Unit,
        Value::Bool(flag) => de::Unexpected::Bool(*flag),
        Value::Number(number) => match (number.as_u64(), number.as_i64(), number.as_f64()) {
            (Some(unsigned), _, _) => de::Unexpected::Unsigned(unsigned),
            (None, Some(signed), _) => de::Unexpected::Signed(signed),
            (None, None, float) => de::Unexpected::Float(float.unwrap_or(f64::NAN)),
        },
        Value::String(text) => de::Unexpected::Str(text),
        Value::Array(_) => de::Unexpected::Seq,
        Value::Object(_) => de::Unexpected::Map,
    }
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, HashMap};

    use proptest::prelude::*;
    use serde::Deserialize;
    use serde_json::json;

    use super::*;
    use crate::pointer::pointer_of;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Args {
        name: String,
        count: Option<u32>,
        #[serde(default)]
        tags: Vec<String>,
        mode: Option<Mode>,
        nested: Option<Nested>,
        pair: Option<(u8, String)>,
        tagged: Option<Tagged>,
        loose: Option<Vec<Loose>>,
        any: Option<Value>,
        wrapper: Option<Wrapper>,
        borrowed: Option<Box<str>>,
        float: Option<f32>,
        character: Option<char>,
        unit: Option<()>,
    }

    /// Maps whose keys are numbers and booleans, written as strings.
    #[derive(Debug, PartialEq, Deserialize)]
    struct Keyed {
        keyed: Option<HashMap<u8, bool>>,
        flags: Option<BTreeMap<bool, u8>>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Mode {
        Fast,
        Careful,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Nested {
        inner: Vec<Inner>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Inner {
        v: u8,
        #[serde(rename = "a/b~c")]
        escaped: Option<i8>,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(tag = "kind")]
    enum Tagged {
        A { a: u8 },
        B { b: String },
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(untagged)]
    enum Loose {
        Number(u8),
        Text(String),
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Wrapper(u16);

    /// Externally tagged, every kind of variant.
    #[derive(Debug, PartialEq, Deserialize)]
    enum Shape {
        Unit,
        Newtype(u8),
        Tuple(u8, u8),
        Struct { x: i32 },
    }

    #[derive(Debug, PartialEq, Deserialize)]
    struct Flattened {
        id: u8,
        #[serde(flatten)]
        rest: HashMap<String, u8>,
    }

    /// `tracked` gives what `serde_json` gives (value or message); the pointer, for `Args`,
    /// is the one `serde_path_to_error` finds.
    fn same_as_serde_json<T>(value: &Value, compare_pointer: bool) -> Option<String>
    where
        T: for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
    {
        let tracked = deserialize::<T>(value);
        let plain = T::deserialize(value);
        match (tracked, plain) {
            (Ok(tracked), Ok(plain)) => {
                assert_eq!(tracked, plain, "{value}");
                None
            }
            (Err((err, pointer)), Err(plain)) => {
                assert_eq!(err.to_string(), plain.to_string(), "{value}");
                if compare_pointer {
                    let path = serde_path_to_error::deserialize::<_, T>(value).unwrap_err();
                    assert_eq!(pointer, pointer_of(path.path()), "{value}: {err}");
                }
                Some(pointer)
            }
            (tracked, plain) => panic!("{value}: tracked {tracked:?}, serde_json {plain:?}"),
        }
    }

    /// Each value reads as with `serde_json`, refused at the pointer given (`None`: read).
    fn pointers_are<T>(cases: &[(Value, Option<&str>)], compare_pointer: bool)
    where
        T: for<'de> Deserialize<'de> + PartialEq + std::fmt::Debug,
    {
        for (value, pointer) in cases {
            assert_eq!(
                same_as_serde_json::<T>(value, compare_pointer).as_deref(),
                *pointer,
                "{value}"
            );
        }
    }

    #[test]
    fn errors_are_serde_json_errors_at_the_pointer_of_the_refused_value() {
        let cases = [
            (json!({"name": "a"}), None),
            (json!({"name": 1}), Some("/name")),
            (json!({}), Some("")),
            (json!([]), Some("")),
            (json!("text"), Some("")),
            (json!({"name": "a", "other": 1}), Some("/other")),
            (json!({"name": "a", "count": -1}), Some("/count")),
            (json!({"name": "a", "count": 3.0}), Some("/count")),
            (json!({"name": "a", "tags": ["x", 2]}), Some("/tags/1")),
            (json!({"name": "a", "mode": "slow"}), Some("/mode")),
            (json!({"name": "a", "mode": "fast"}), None),
            (json!({"name": "a", "mode": {"fast": null}}), None),
            (json!({"name": "a", "mode": {"fast": 1}}), Some("/mode")),
            (
                json!({"name": "a", "nested": {"inner": [{"v": 1}, {"v": 300}]}}),
                Some("/nested/inner/1/v"),
            ),
            (
                json!({"name": "a", "nested": {"inner": [{"v": 1, "a/b~c": "x"}]}}),
                Some("/nested/inner/0/a~1b~0c"),
            ),
            (
                json!({"name": "a", "nested": {"inner": [{}]}}),
                Some("/nested/inner/0"),
            ),
            (json!({"name": "a", "pair": [1, "b"]}), None),
            (json!({"name": "a", "pair": [1, "b", 3]}), Some("/pair")),
            (json!({"name": "a", "pair": [1]}), Some("/pair")),
            (json!({"name": "a", "pair": ["1", "b"]}), Some("/pair/0")),
            (json!({"name": "a", "tagged": {"kind": "A", "a": 1}}), None),
            (
                json!({"name": "a", "tagged": {"kind": "A", "a": "x"}}),
                Some("/tagged"),
            ),
            (
                json!({"name": "a", "tagged": {"kind": "C"}}),
                Some("/tagged/kind"),
            ),
            (
                json!({"name": "a", "loose": [1, "x", 300]}),
                Some("/loose/2"),
            ),
            (
                json!({"name": "a", "any": {"deep": [1, {"x": null}]}}),
                None,
            ),
            (json!({"name": "a", "wrapper": 7}), None),
            (json!({"name": "a", "wrapper": -7}), Some("/wrapper")),
            (
                json!({"name": "a", "borrowed": "b", "float": 1.5, "character": "c", "unit": null}),
                None,
            ),
            (json!({"name": "a", "character": "cc"}), Some("/character")),
            (json!({"name": "a", "float": "1"}), Some("/float")),
            (json!({"name": "a", "unit": 0}), Some("/unit")),
        ];
        pointers_are::<Args>(&cases, true);
    }

    #[test]
    fn keys_are_read_as_serde_json_reads_them_and_refused_at_their_member() {
        // `serde_path_to_error` names no step for a key it does not read as a string.
        let cases = [
            (json!({"keyed": {"1": true, "2": false}}), None),
            (json!({"keyed": {"1": true, "x": false}}), Some("/keyed/x")),
            (json!({"keyed": {"1": "yes"}}), Some("/keyed/1")),
            (json!({"keyed": {"300": true}}), Some("/keyed/300")),
            (json!({"keyed": {"1.5": true}}), Some("/keyed/1.5")),
            (json!({"keyed": {"-1": true}}), Some("/keyed/-1")),
            (json!({"keyed": {"1x": true}}), Some("/keyed/1x")),
            (json!({"keyed": {"+1": true}}), Some("/keyed/+1")),
            (json!({"flags": {"true": 1, "false": 2}}), None),
            (json!({"flags": {"yes": 1}}), Some("/flags/yes")),
        ];
        pointers_are::<Keyed>(&cases, false);
    }

    #[test]
    fn enum_variants_are_read_at_their_key() {
        // `serde_path_to_error` names no step for a variant; the value refused is at its key.
        let cases = [
            (json!("Unit"), None),
            (json!({"Unit": null}), None),
            (json!({"Unit": 1}), Some("")),
            (json!({"Newtype": 3}), None),
            (json!({"Newtype": "3"}), Some("/Newtype")),
            (json!({"Tuple": [1, 2]}), None),
            (json!({"Tuple": [1, -2]}), Some("/Tuple/1")),
            (json!({"Tuple": [1]}), Some("/Tuple")),
            (json!({"Tuple": []}), Some("")),
            (json!({"Tuple": 1}), Some("")),
            (json!({"Struct": {"x": -1}}), None),
            (json!({"Struct": {"x": "1"}}), Some("/Struct/x")),
            (json!({"Struct": [5]}), Some("")),
            (json!({"Struct": {"x": 1}, "Unit": null}), Some("")),
            (json!({}), Some("")),
            (json!({"Circle": 1}), Some("")),
            (json!(3), Some("")),
        ];
        pointers_are::<Shape>(&cases, false);
    }

    #[test]
    fn raw_values_get_the_json_text() {
        #[derive(Debug, Deserialize)]
        struct Raw {
            raw: Box<serde_json::value::RawValue>,
        }
        let value = json!({"raw": {"a": [1, "x"]}});
        let raw: Raw = deserialize(&value).map_err(|(err, _)| err).unwrap();
        assert_eq!(raw.raw.get(), r#"{"a":[1,"x"]}"#);
    }

    #[test]
    fn flattened_members_are_read_as_serde_json_reads_them() {
        for value in [
            json!({"id": 1, "a": 2, "b": 3}),
            json!({"id": 1, "a": "x"}),
            json!({"a": 2}),
        ] {
            same_as_serde_json::<Flattened>(&value, true);
        }
    }

    /// Any JSON value of a few levels, with the keys `Args` knows most of the time.
    fn values() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            any::<i64>().prop_map(Value::from),
            (0u64..400).prop_map(Value::from),
            any::<f64>().prop_map(Value::from),
            "[a-z0-9/~]{0,3}".prop_map(Value::from),
        ];
        leaf.prop_recursive(4, 32, 6, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
                prop::collection::btree_map(
                    prop_oneof![
                        Just("name".to_owned()),
                        Just("count".to_owned()),
                        Just("tags".to_owned()),
                        Just("nested".to_owned()),
                        Just("inner".to_owned()),
                        Just("v".to_owned()),
                        Just("pair".to_owned()),
                        Just("1".to_owned()),
                        Just("Struct".to_owned()),
                        Just("x".to_owned()),
                        "[a-z]{1,2}",
                    ],
                    inner,
                    0..4,
                )
                .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn any_value_reads_as_serde_json_reads_it(value in values(), name in "[a-z]{0,3}") {
            same_as_serde_json::<Args>(&value, true);
            same_as_serde_json::<Shape>(&value, false);
            same_as_serde_json::<Keyed>(&value, false);
            same_as_serde_json::<Nested>(&value, true);
            // The same with a valid `name`, so that the other members are read.
            if let Value::Object(mut map) = value {
                map.insert("name".into(), Value::from(name));
                same_as_serde_json::<Args>(&Value::Object(map), true);
            }
        }
    }
}
