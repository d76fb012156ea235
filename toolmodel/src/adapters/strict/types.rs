//! Types in strict mode: a type list split into `anyOf` branches with the keywords of each
//! type, and a type inferred where the schema has none.

use serde_json::{Map, Value};

use super::support::Provider;
use crate::adapters::context::{Ctx, JSON_TYPES, instance_type};
use crate::adapters::warning::Action;
use crate::error::Error;

/// Anthropic: a `type` list written as an `anyOf` of one branch per type, each with the
/// keywords that apply to its type (and the `enum` / `const` values of its type); the rest
/// (annotations, keywords for every type) stays around it. Exact. Anthropic's
/// `transform_schema` refuses type lists.
pub(super) fn split_type_list(map: &mut Map<String, Value>, ctx: &mut Ctx<'_, '_>) {
    let Some(Value::Array(types)) = map.get("type") else {
        return;
    };
    let types: Vec<String> = types
        .iter()
        .filter_map(Value::as_str)
        .map(str::to_owned)
        .collect();
    if let [one] = types.as_slice() {
        map.insert("type".into(), Value::from(one.as_str()));
        ctx.warn(
            Some("type"),
            "type",
            Action::Rewritten { exact: true },
            "a one-type list written as the type",
        );
        return;
    }
    map.remove("type");
    ctx.deepened = true;
    let values: Option<Vec<Value>> = match (map.remove("const"), map.remove("enum")) {
        (Some(value), _) => Some(vec![value]),
        (None, Some(Value::Array(values))) => Some(values),
        (None, Some(other)) => {
            map.insert("enum".into(), other);
            None
        }
        (None, None) => None,
    };
    let mut specific: Vec<(&str, Value)> = Vec::new();
    for &keyword in TYPE_SPECIFIC
        .iter()
        .flat_map(|(_, keywords)| keywords.iter())
    {
        if let Some(value) = map.remove(keyword) {
            specific.push((keyword, value));
        }
    }
    let mut branches = Vec::with_capacity(types.len());
    for ty in &types {
        let mut branch = Map::new();
        branch.insert("type".into(), Value::from(ty.as_str()));
        if let Some(values) = &values {
            let own: Vec<Value> = values
                .iter()
                .filter(|v| {
                    let t = instance_type(v);
                    t == ty || (ty == "number" && t == "integer")
                })
                .cloned()
                .collect();
            if own.is_empty() {
                // No allowed value has this type: the branch would match nothing.
                continue;
            }
            branch.insert("enum".into(), Value::Array(own));
        }
        let applies = TYPE_SPECIFIC
            .iter()
            .find(|(types, _)| types.contains(&ty.as_str()))
            .map_or(&[][..], |(_, keywords)| *keywords);
        for (keyword, value) in &specific {
            if applies.contains(keyword) {
                branch.insert((*keyword).to_owned(), value.clone());
            }
        }
        branches.push(Value::Object(branch));
    }
    let any_of = Value::Array(branches);
    if map.contains_key("anyOf") {
        let mut wrapper = Map::new();
        wrapper.insert("anyOf".into(), any_of);
        match map.get_mut("allOf") {
            Some(Value::Array(all_of)) => all_of.push(Value::Object(wrapper)),
            _ => {
                map.insert("allOf".into(), Value::Array(vec![Value::Object(wrapper)]));
            }
        }
    } else {
        map.insert("anyOf".into(), any_of);
    }
    ctx.warn(
        Some("type"),
        "type",
        Action::Rewritten { exact: true },
        "a type list written as anyOf, one branch per type with the keywords of its type (Anthropic's transform_schema refuses type lists)",
    );
}

/// The keywords that constrain instances of some types only (JSON Schema 2020-12 Validation,
/// Section 6), by the types they apply to.
pub(super) const TYPE_SPECIFIC: &[(&[&str], &[&str])] = &[
    (
        &["string"],
        &["pattern", "format", "minLength", "maxLength"],
    ),
    (
        &["number", "integer"],
        &[
            "minimum",
            "maximum",
            "exclusiveMinimum",
            "exclusiveMaximum",
            "multipleOf",
        ],
    ),
    (
        &["array"],
        &[
            "items",
            "prefixItems",
            "minItems",
            "maxItems",
            "uniqueItems",
            "contains",
        ],
    ),
    (
        &["object"],
        &[
            "properties",
            "required",
            "additionalProperties",
            "patternProperties",
            "propertyNames",
            "minProperties",
            "maxProperties",
        ],
    ),
];

/// `{"type": T, "anyOf": [...]}` (or `allOf`) with branches that have no type of their own:
/// the type around constrains every branch, so each such branch gets it, which is exact (and
/// what strict mode needs: every schema typed).
pub(super) fn type_into_branches(map: &mut Map<String, Value>, ctx: &mut Ctx<'_, '_>) {
    if !(map.contains_key("anyOf") || map.contains_key("allOf")) {
        return;
    }
    let Some(ty) = map.get("type").cloned() else {
        return;
    };
    for combinator in ["anyOf", "allOf"] {
        let Some(Value::Array(branches)) = map.get_mut(combinator) else {
            continue;
        };
        for (index, branch) in branches.iter_mut().enumerate() {
            let Value::Object(branch) = branch else {
                continue;
            };
            if ["type", "$ref", "anyOf", "allOf", "oneOf", "enum", "const"]
                .iter()
                .any(|k| branch.contains_key(*k))
            {
                continue;
            }
            branch.insert("type".into(), ty.clone());
            let mark = ctx.enter(combinator);
            ctx.enter_index(index);
            ctx.warn(
                Some("type"),
                "type",
                Action::Rewritten { exact: true },
                "the type of the schema around the branches copied into this untyped branch",
            );
            ctx.leave(mark);
        }
    }
}

/// Strict schemas need a type: one is added from `enum` or `const` values; a schema with no
/// `type`, `anyOf`, `allOf`, `$ref`, `enum` or `const` accepts any value and is an error.
pub(super) fn infer_type(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_, '_>,
    provider: Provider,
) -> Result<(), Error> {
    if let Some(ty) = map.get("type") {
        let well_formed = match ty {
            Value::String(one) => JSON_TYPES.contains(&one.as_str()),
            Value::Array(items) => {
                !items.is_empty()
                    && items
                        .iter()
                        .all(|t| t.as_str().is_some_and(|t| JSON_TYPES.contains(&t)))
            }
            _ => false,
        };
        if !well_formed {
            return Err(ctx.error(Some("type"), format!("{ty} is not a JSON Schema type")));
        }
        return Ok(());
    }
    if ["anyOf", "$ref", "allOf"]
        .iter()
        .any(|k| map.contains_key(*k))
    {
        return Ok(());
    }
    let values: Vec<&Value> = match (map.get("const"), map.get("enum")) {
        (Some(value), _) => vec![value],
        (None, Some(Value::Array(values))) if !values.is_empty() => values.iter().collect(),
        _ => {
            return Err(ctx.error(
                None,
                format!(
                    "this schema accepts any JSON value; {} needs a type here",
                    provider.name()
                ),
            ));
        }
    };
    let mut names: Vec<&str> = Vec::new();
    for value in values {
        let name = instance_type(value);
        if !names.contains(&name) {
            names.push(name);
        }
    }
    if names.contains(&"number") {
        names.retain(|n| *n != "integer");
    }
    let ty = match names.as_slice() {
        [one] => Value::from(*one),
        many => Value::from(many.to_vec()),
    };
    ctx.warn(
        Some("type"),
        "type",
        Action::Rewritten { exact: true },
        format!("type {ty} added from the allowed values"),
    );
    map.insert("type".into(), ty);
    Ok(())
}
