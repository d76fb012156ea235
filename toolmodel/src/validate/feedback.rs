//! Violations a model can act on: each names the instance location and what would be accepted.
//!
//! `jsonschema` reports some failures in a form a caller cannot act on: `additionalProperties:
//! false` names no key (one `False schema does not allow 1` at the object), an `enum` lists
//! three values and "N other candidates", an `anyOf` / `oneOf` of `const`s says only that no
//! branch matched. This module turns one `jsonschema` error into the violations a caller gets:
//!
//! | failure | violations |
//! |---|---|
//! | `additionalProperties` / `unevaluatedProperties` (`false`) | one per unexpected key, at the key's own pointer, with the keys the object takes (and the closest one when it looks like a typo) |
//! | `enum` | every allowed value |
//! | `anyOf` / `oneOf` whose branches are `const`s or `enum`s | every allowed value, as for `enum` |
//! | other `anyOf` / `oneOf` | why each branch failed (its type, or its first violation) |
//! | anything else | `jsonschema`'s message (it names the type, limit or pattern already) |

use std::fmt::Write as _;

use jsonschema::error::ValidationErrorKind;
use serde_json::Value;

use crate::pointer::escape_pointer_token;
use crate::validate::issue::InstanceError;

/// The violations one `jsonschema` error stands for, pushed onto `out`.
///
/// `schema` is the document the error's schema path points into, `instance` the whole instance
/// its instance path points into.
pub(crate) fn explain(
    schema: &Value,
    instance: &Value,
    err: &jsonschema::ValidationError<'_>,
    out: &mut Vec<InstanceError>,
) {
    let instance_path = err.instance_path().as_str();
    let schema_path = err.schema_path().as_str();
    let keyword = err.kind().keyword();
    let at = |message: String| InstanceError {
        instance_path: instance_path.to_owned(),
        schema_path: schema_path.to_owned(),
        keyword: keyword.to_owned(),
        message,
    };
    match err.kind() {
        ValidationErrorKind::AdditionalProperties { unexpected }
        | ValidationErrorKind::UnevaluatedProperties { unexpected } => {
            let parent = parent_schema(schema, schema_path);
            for key in unexpected {
                out.push(unexpected_key(
                    instance_path,
                    schema_path,
                    keyword,
                    key,
                    parent,
                ));
            }
        }
        ValidationErrorKind::FalseSchema if schema_path.ends_with("/additionalProperties") => {
            // `jsonschema` reports `additionalProperties: false` once, at the object (with the
            // first value it refused); name every key the object's own `properties` and
            // `patternProperties` do not take.
            let parent = parent_schema(schema, schema_path);
            let keys = match instance.pointer(instance_path) {
                Some(Value::Object(object)) => object
                    .keys()
                    .filter(|key| !declared(parent, key))
                    .cloned()
                    .collect::<Vec<_>>(),
                _ => Vec::new(),
            };
            if keys.is_empty() {
                out.push(at(err.to_string()));
            }
            for key in &keys {
                out.push(unexpected_key(
                    instance_path,
                    schema_path,
                    "additionalProperties",
                    key,
                    parent,
                ));
            }
        }
        ValidationErrorKind::FalseSchema => out.push(at(format!(
            "{} is not allowed here: the schema accepts no value",
            err.instance()
        ))),
        ValidationErrorKind::Required { property } if is_dependency(schema_path) => {
            let present = dependency_triggers(
                schema,
                schema_path,
                instance.pointer(instance_path),
                property,
            );
            let mut message = format!("{property} is a required property");
            if !present.is_empty() {
                message.push_str(" when ");
                push_list(&mut message, present.into_iter().map(Value::from));
                message.push_str(" is present");
            }
            out.push(at(message));
        }
        ValidationErrorKind::Enum { options } => {
            out.push(at(not_one_of(err.instance(), options.as_array())));
        }
        ValidationErrorKind::AnyOf { context } | ValidationErrorKind::OneOfNotValid { context } => {
            let branches = schema.pointer(schema_path).and_then(Value::as_array);
            let message = match branches.and_then(|branches| allowed_values(branches)) {
                Some(values) => not_one_of(err.instance(), Some(&values)),
                None => no_branch_matched(
                    schema,
                    instance,
                    err.instance(),
                    keyword,
                    instance_path,
                    context,
                ),
            };
            out.push(at(message));
        }
        _ => out.push(at(err.to_string())),
    }
}

/// Whether `schema_path` is a `dependentRequired` (2020-12) or `dependencies` (draft 7) keyword.
fn is_dependency(schema_path: &str) -> bool {
    schema_path.ends_with("/dependentRequired") || schema_path.ends_with("/dependencies")
}

/// The keys present in `object` whose dependency list at `schema_path` names `property`.
fn dependency_triggers(
    schema: &Value,
    schema_path: &str,
    object: Option<&Value>,
    property: &Value,
) -> Vec<String> {
    let (Some(dependencies), Some(object)) = (
        schema.pointer(schema_path).and_then(Value::as_object),
        object.and_then(Value::as_object),
    ) else {
        return Vec::new();
    };
    dependencies
        .iter()
        .filter(|(trigger, needed)| {
            object.contains_key(*trigger)
                && needed
                    .as_array()
                    .is_some_and(|needed| needed.contains(property))
        })
        .map(|(trigger, _)| trigger.clone())
        .collect()
}

/// The violation of one unexpected key: at the key's own pointer, with the keys `parent` (the
/// object schema) takes.
fn unexpected_key(
    object_path: &str,
    schema_path: &str,
    keyword: &str,
    key: &str,
    parent: Option<&Value>,
) -> InstanceError {
    let known: Vec<&str> = parent
        .and_then(|parent| parent.get("properties"))
        .and_then(Value::as_object)
        .map(|properties| properties.keys().map(String::as_str).collect())
        .unwrap_or_default();
    let mut message = format!("unexpected property {}", Value::from(key));
    if known.is_empty() {
        message.push_str(": this object takes no properties");
    } else {
        message.push_str("; expected one of ");
        push_list(&mut message, known.iter().map(|name| Value::from(*name)));
        if let Some(near) = crate::model::name::nearest::nearest(key, known.iter().copied()) {
            let _ = write!(message, " (did you mean {}?)", Value::from(near));
        }
    }
    InstanceError {
        instance_path: format!("{object_path}/{}", escape_pointer_token(key)),
        schema_path: schema_path.to_owned(),
        keyword: keyword.to_owned(),
        message,
    }
}

/// Whether `key` is declared by the object schema's `properties` or matched by a
/// `patternProperties` pattern (a pattern that does not compile here matches nothing).
fn declared(parent: Option<&Value>, key: &str) -> bool {
    let Some(parent) = parent else {
        return false;
    };
    if parent
        .get("properties")
        .and_then(Value::as_object)
        .is_some_and(|properties| properties.contains_key(key))
    {
        return true;
    }
    parent
        .get("patternProperties")
        .and_then(Value::as_object)
        .is_some_and(|patterns| {
            patterns.keys().any(|pattern| {
                jsonschema::validator_for(&serde_json::json!({"pattern": pattern}))
                    .is_ok_and(|matcher| matcher.is_valid(&Value::from(key)))
            })
        })
}

/// The schema object holding the keyword at `schema_path`.
fn parent_schema<'s>(schema: &'s Value, schema_path: &str) -> Option<&'s Value> {
    let (parent, _) = schema_path.rsplit_once('/')?;
    schema.pointer(parent)
}

/// `VALUE is not one of A, B or C`, every allowed value listed.
fn not_one_of(instance: &Value, options: Option<&Vec<Value>>) -> String {
    let mut message = format!("{instance} is not one of ");
    match options {
        Some(options) if !options.is_empty() => push_list(&mut message, options.iter().cloned()),
        _ => message.push_str("no value (the list is empty)"),
    }
    message
}

/// The values an `anyOf` / `oneOf` allows when every branch is a `const` or an `enum` (with
/// annotations beside it at most); `None` otherwise.
fn allowed_values(branches: &[Value]) -> Option<Vec<Value>> {
    let mut values = Vec::new();
    for branch in branches {
        let object = branch.as_object()?;
        let mut found = false;
        for (keyword, value) in object {
            match keyword.as_str() {
                "const" => {
                    values.push(value.clone());
                    found = true;
                }
                "enum" => {
                    values.extend(value.as_array()?.iter().cloned());
                    found = true;
                }
                // Annotations and a `type` the values already satisfy or not: they change
                // nothing a caller needs to pick a value.
                "title" | "description" | "default" | "examples" | "deprecated" | "type"
                | "$comment" => {}
                _ => return None,
            }
        }
        if !found {
            return None;
        }
    }
    Some(values)
}

/// `VALUE matches none of the N schemas of 'anyOf': #0: why; #1: why`, each branch's first
/// violation (its expected type, value, limit...).
fn no_branch_matched(
    schema: &Value,
    root: &Value,
    instance: &Value,
    keyword: &str,
    instance_path: &str,
    context: &[Vec<jsonschema::ValidationError<'static>>],
) -> String {
    let mut message = format!(
        "{instance} matches none of the {} schemas of '{keyword}':",
        context.len()
    );
    for (index, errors) in context.iter().enumerate() {
        let _ = write!(message, " #{index}: ");
        match errors.first() {
            Some(first) => {
                let inner_path = first.instance_path().as_str();
                let mut inner = Vec::new();
                explain(schema, root, first, &mut inner);
                let text = inner
                    .first()
                    .map_or_else(|| first.to_string(), |error| error.message.clone());
                message.push_str(&text);
                if let Some(rest) = inner_path
                    .strip_prefix(instance_path)
                    .filter(|rest| !rest.is_empty())
                {
                    let _ = write!(message, " at {rest}");
                }
            }
            None => message.push_str("no violation reported"),
        }
        if index + 1 < context.len() {
            message.push(';');
        }
    }
    message
}

/// `A, B or C`.
fn push_list(out: &mut String, items: impl ExactSizeIterator<Item = Value>) {
    let count = items.len();
    for (index, item) in items.enumerate() {
        if index > 0 {
            out.push_str(if index + 1 == count { " or " } else { ", " });
        }
        let _ = write!(out, "{item}");
    }
}
