//! What each JSON Schema keyword is, independent of any target: where it holds subschemas, and
//! whether it constrains instances (an assertion) or only describes them (an annotation).
//!
//! Source: JSON Schema 2020-12 Core and Validation (and draft-07 for `definitions`,
//! `dependencies`, `additionalItems` and the array form of `items`).

use serde_json::{Map, Value};

/// Keywords that never change which instances a schema accepts: dropping one loses
/// information but does not widen the schema. Unknown keywords behave the same (JSON Schema
/// ignores them), see [`is_annotation`].
pub(crate) const ANNOTATIONS: &[&str] = &[
    "$schema",
    "$id",
    "$anchor",
    "$dynamicAnchor",
    "$vocabulary",
    "$comment",
    "title",
    "description",
    "default",
    "examples",
    "deprecated",
    "readOnly",
    "writeOnly",
    "contentEncoding",
    "contentMediaType",
    "contentSchema",
    "format",
];

/// Every keyword of JSON Schema 2020-12 and draft-07 that constrains instances or applies
/// subschemas.
pub(crate) const ASSERTIONS: &[&str] = &[
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "prefixItems",
    "items",
    "contains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "unevaluatedItems",
    "unevaluatedProperties",
    "$ref",
    "$dynamicRef",
    "$recursiveRef",
    "additionalItems",
    "dependencies",
    "$defs",
    "definitions",
];

/// Whether dropping `keyword` leaves the accepted instances unchanged: an annotation, or a
/// keyword JSON Schema does not define (which validators ignore). `$defs` and `definitions`
/// count as assertions here because references may point into them.
pub(crate) fn is_annotation(keyword: &str) -> bool {
    ANNOTATIONS.contains(&keyword) || !ASSERTIONS.contains(&keyword)
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
                        f(&[keyword, &index.to_string()], sub)?;
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

/// Like [`for_each_subschema`], read-only.
pub(crate) fn each_subschema<'v>(
    schema: &'v Map<String, Value>,
    out: &mut Vec<(Vec<&'v str>, &'v Value)>,
) {
    for (keyword, value) in schema {
        let Some(kind) = holds(keyword) else {
            continue;
        };
        match (kind, value) {
            (Holds::One, sub @ (Value::Object(_) | Value::Bool(_))) => {
                out.push((vec![keyword], sub))
            }
            (Holds::One | Holds::List, Value::Array(items)) => {
                for sub in items {
                    if matches!(sub, Value::Object(_) | Value::Bool(_)) {
                        out.push((vec![keyword], sub));
                    }
                }
            }
            (Holds::Map, Value::Object(entries)) => {
                for (name, sub) in entries {
                    if matches!(sub, Value::Object(_) | Value::Bool(_)) {
                        out.push((vec![keyword, name], sub));
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
