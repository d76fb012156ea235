//! What each JSON Schema keyword is, independent of any target: where it holds subschemas, and
//! whether it constrains instances (an assertion) or only describes them (an annotation).
//!
//! Source: JSON Schema 2020-12 Core and Validation (and draft-07 for `definitions`,
//! `dependencies`, `additionalItems` and the array form of `items`).

use serde_json::{Map, Value};

/// Whether `keyword` is one of JSON Schema 2020-12 and draft-07 that constrain instances or
/// apply subschemas: `type`, `enum`, `const`, the numeric, string, array and object
/// assertions, the applicators (`allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`,
/// `dependentSchemas`, `prefixItems`, `items`, `contains`, `properties`,
/// `patternProperties`, `additionalProperties`, `propertyNames`, `unevaluated*`), the
/// references (`$ref`, `$dynamicRef`, `$recursiveRef`) and definitions (`$defs`,
/// `definitions`), and draft-07's `additionalItems` and `dependencies`. A `match`, which the
/// compiler turns into a few comparisons: it runs for every keyword a conversion meets.
pub(crate) fn is_assertion(keyword: &str) -> bool {
    matches!(
        keyword,
        "type"
            | "enum"
            | "const"
            | "multipleOf"
            | "maximum"
            | "exclusiveMaximum"
            | "minimum"
            | "exclusiveMinimum"
            | "maxLength"
            | "minLength"
            | "pattern"
            | "maxItems"
            | "minItems"
            | "uniqueItems"
            | "maxContains"
            | "minContains"
            | "maxProperties"
            | "minProperties"
            | "required"
            | "dependentRequired"
            | "allOf"
            | "anyOf"
            | "oneOf"
            | "not"
            | "if"
            | "then"
            | "else"
            | "dependentSchemas"
            | "prefixItems"
            | "items"
            | "contains"
            | "properties"
            | "patternProperties"
            | "additionalProperties"
            | "propertyNames"
            | "unevaluatedItems"
            | "unevaluatedProperties"
            | "$ref"
            | "$dynamicRef"
            | "$recursiveRef"
            | "additionalItems"
            | "dependencies"
            | "$defs"
            | "definitions"
    )
}

/// Whether dropping `keyword` leaves the accepted instances unchanged: an annotation (`$schema`,
/// `$id`, `$anchor`, `$dynamicAnchor`, `$vocabulary`, `$comment`, `title`, `description`,
/// `default`, `examples`, `deprecated`, `readOnly`, `writeOnly`, `contentEncoding`,
/// `contentMediaType`, `contentSchema`, and `format`, an annotation by default), or a keyword
/// JSON Schema does not define (which validators ignore): anything but an
/// [assertion](is_assertion). `$defs` and `definitions` count as assertions here because
/// references may point into them.
pub(crate) fn is_annotation(keyword: &str) -> bool {
    !is_assertion(keyword)
}

/// The shape of a keyword's value when it holds subschemas.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Holds {
    /// One subschema.
    One,
    /// An array of subschemas.
    List,
    /// An object whose values are subschemas.
    Map,
}

/// Where `keyword` holds subschemas, if it does. `items` holds one subschema or (draft-07) an
/// array of them; `dependencies` holds a map whose values are subschemas or arrays of names.
pub(crate) fn holds(keyword: &str) -> Option<Holds> {
    Some(match keyword {
        "items"
        | "additionalItems"
        | "additionalProperties"
        | "not"
        | "if"
        | "then"
        | "else"
        | "contains"
        | "propertyNames"
        | "unevaluatedProperties"
        | "unevaluatedItems"
        | "contentSchema" => Holds::One,
        "allOf" | "anyOf" | "oneOf" | "prefixItems" => Holds::List,
        "properties" | "patternProperties" | "$defs" | "definitions" | "dependentSchemas"
        | "dependencies" => Holds::Map,
        _ => return None,
    })
}

/// The reference tokens of the first array indexes, spelled once.
const SMALL_INDEXES: [&str; 16] = [
    "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "10", "11", "12", "13", "14", "15",
];

/// Calls `f` on every direct subschema of a schema object, with the one or two reference
/// tokens that lead to it (`["items"]`, `["properties", "name"]`, `["anyOf", "0"]`), in key
/// order. Values that cannot be schemas (a `dependencies` entry that is an array of names, a
/// malformed `properties`) are skipped.
///
/// # Errors
///
/// The first error `f` returns.
pub(crate) fn for_each_subschema<E>(
    schema: &mut Map<String, Value>,
    f: &mut impl FnMut(&[&str], &mut Value) -> Result<(), E>,
) -> Result<(), E> {
    for (keyword, value) in schema.iter_mut() {
        let Some(kind) = holds(keyword) else {
            continue;
        };
        match (kind, value) {
            (Holds::One, sub @ (Value::Object(_) | Value::Bool(_))) => f(&[keyword], sub)?,
            (Holds::One | Holds::List, Value::Array(items)) => {
                for (index, sub) in items.iter_mut().enumerate() {
                    if matches!(sub, Value::Object(_) | Value::Bool(_)) {
                        let spelled;
                        let token = match SMALL_INDEXES.get(index) {
                            Some(token) => token,
                            None => {
                                spelled = index.to_string();
                                spelled.as_str()
                            }
                        };
                        f(&[keyword, token], sub)?;
                    }
                }
            }
            (Holds::Map, Value::Object(entries)) => {
                for (name, sub) in entries.iter_mut() {
                    if matches!(sub, Value::Object(_) | Value::Bool(_)) {
                        f(&[keyword, name], sub)?;
                    }
                }
            }
            _ => {}
        }
    }
    Ok(())
}

/// The reference token after a keyword on the way to a subschema: a name (`properties`) or an
/// array index (`anyOf`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Token<'v> {
    Name(&'v str),
    Index(usize),
}

impl Token<'_> {
    /// The token spelled as a JSON Pointer reference token (unescaped).
    pub(crate) fn spelled(self) -> String {
        match self {
            Self::Name(name) => name.to_owned(),
            Self::Index(index) => itoa::Buffer::new().format(index).to_owned(),
        }
    }
}

/// Like [`for_each_subschema`], read-only: every direct subschema of a schema object with the
/// keyword and the token after it that lead to it, in key order.
pub(crate) fn each_subschema<'v>(
    schema: &'v Map<String, Value>,
    out: &mut Vec<(&'v str, Option<Token<'v>>, &'v Value)>,
) {
    for (keyword, value) in schema {
        let Some(kind) = holds(keyword) else {
            continue;
        };
        match (kind, value) {
            (Holds::One, sub @ (Value::Object(_) | Value::Bool(_))) => {
                out.push((keyword, None, sub));
            }
            (Holds::One | Holds::List, Value::Array(items)) => {
                for (index, sub) in items.iter().enumerate() {
                    if matches!(sub, Value::Object(_) | Value::Bool(_)) {
                        out.push((keyword, Some(Token::Index(index)), sub));
                    }
                }
            }
            (Holds::Map, Value::Object(entries)) => {
                for (name, sub) in entries {
                    if matches!(sub, Value::Object(_) | Value::Bool(_)) {
                        out.push((keyword, Some(Token::Name(name)), sub));
                    }
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn classification() {
        assert!(is_annotation("description"));
        assert!(is_annotation("x-vendor"));
        assert!(is_annotation("optional"));
        assert!(!is_annotation("minLength"));
        assert!(!is_annotation("$defs"));
    }

    #[test]
    fn subschemas_in_key_order() {
        let mut schema = json!({
            "properties": {"b": {"type": "string"}, "a": true},
            "items": [{"type": "string"}, 3],
            "dependencies": {"x": ["y"], "z": {"required": ["w"]}},
            "enum": [{"type": "not a schema"}],
            "not": {"type": "null"}
        });
        let mut seen = Vec::new();
        for_each_subschema::<()>(schema.as_object_mut().unwrap(), &mut |path, _| {
            seen.push(path.join("/"));
            Ok(())
        })
        .unwrap();
        assert_eq!(
            seen,
            [
                "dependencies/z",
                "items/0",
                "not",
                "properties/a",
                "properties/b"
            ]
        );
    }
}
