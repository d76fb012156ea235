//! The `type` names JSON Schema defines, and the lenient reading of the ones it does not
//! (`dict`, `float`, `tuple`, `any`, Java and JavaScript names, ...), as the Berkeley Function
//! Calling Leaderboard's function definitions and other hand-written catalogs use them.

use serde_json::{Map, Value};

use super::{
    context::{Ctx, JSON_TYPES},
    keywords::for_each_subschema,
    warning::Action,
};
use crate::error::Error;
use crate::validate::issue::SchemaIssue;

/// What a non-standard `type` name means, read leniently.
enum Mapped {
    /// A JSON Schema type; `exact` when the name means exactly that type.
    Type(&'static str, bool),
    /// Any value: the `type` keyword is removed; `exact` when the name says "any".
    Any(bool),
}

/// The lenient table (ASCII case-insensitive). Source: the names found in the BFCL v4 data
/// (`../shared/corpus/bfcl`) and the Python, Java and JavaScript type names they come from.
fn map_name(name: &str) -> Mapped {
    match name.to_ascii_lowercase().as_str() {
        "null" | "none" | "nonetype" => Mapped::Type("null", true),
        "boolean" | "bool" => Mapped::Type("boolean", true),
        "object" | "dict" | "hashmap" | "map" | "mapping" | "struct" => {
            Mapped::Type("object", true)
        }
        "array" | "list" | "arraylist" | "tuple" | "set" | "sequence" => {
            Mapped::Type("array", true)
        }
        "number" | "float" | "double" | "decimal" | "bigdecimal" => Mapped::Type("number", true),
        "integer" | "int" | "long" | "short" | "byte" | "biginteger" => {
            Mapped::Type("integer", true)
        }
        "string" | "str" | "text" => Mapped::Type("string", true),
        // One character: a string, with the length limit lost.
        "char" | "character" => Mapped::Type("string", false),
        "any" => Mapped::Any(true),
        _ => Mapped::Any(false),
    }
}

/// Checks (default) or leniently maps (`lenient`) every `type` name of a schema read from a
/// provider format. `ctx` points at the schema in the document read.
///
/// # Errors
///
/// Not lenient: [`Error::InvalidSchema`] listing every `type` value JSON Schema does not
/// define, each with its JSON Pointer and the lenient reading it would get.
pub(crate) fn standard_types(
    schema: &mut Value,
    lenient: bool,
    ctx: &mut Ctx<'_, '_>,
) -> Result<(), Error> {
    let mode = if lenient {
        Mode::ReadLeniently
    } else {
        Mode::Read
    };
    walk_all(schema, mode, ctx, &mut Found::default())
}

/// What the first walk over a schema being converted found, for the passes after it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Found {
    /// A `$ref` or definitions (`$defs`, `definitions`) somewhere in a schema object: the
    /// reference passes have work to do.
    pub(crate) references: bool,
}

/// Checks, before converting, that every `type` name of a tool's schema is one JSON Schema
/// defines: a provider refuses the others, and reading the converted tool back would too.
/// Rewrites draft-04's boolean `exclusiveMinimum` / `exclusiveMaximum` (invalid in 2020-12
/// and draft-07) into the 2020-12 form, with a warning each. `schema` is the copy being
/// converted; `ctx` points at the schema in the tool.
///
/// # Errors
///
/// [`Error::InvalidSchema`] listing every `type` value JSON Schema does not define, each with
/// its JSON Pointer.
pub(crate) fn check_types(schema: &mut Value, ctx: &mut Ctx<'_, '_>) -> Result<Found, Error> {
    let mut found = Found::default();
    walk_all(schema, Mode::Convert, ctx, &mut found)?;
    Ok(found)
}

/// [`walk`] over the whole schema: every issue found, as one error.
fn walk_all(
    schema: &mut Value,
    mode: Mode,
    ctx: &mut Ctx<'_, '_>,
    found: &mut Found,
) -> Result<(), Error> {
    let mut issues = Vec::new();
    walk(schema, mode, ctx, &mut issues, found);
    if issues.is_empty() {
        Ok(())
    } else {
        Err(Error::InvalidSchema { issues })
    }
}

/// Whether a `type` value names only JSON Schema types.
pub(crate) fn is_standard(ty: &Value) -> bool {
    match ty {
        Value::String(one) => JSON_TYPES.contains(&one.as_str()),
        Value::Array(many) => many
            .iter()
            .all(|t| t.as_str().is_some_and(|t| JSON_TYPES.contains(&t))),
        _ => false,
    }
}

/// Draft-04's boolean `exclusiveMinimum` / `exclusiveMaximum` (a flag on `minimum` /
/// `maximum`; JSON Schema draft-06 and later take the bound itself, and a boolean there makes
/// the schema invalid) rewritten as draft-04 meant it: `true` with a numeric bound becomes the
/// bound (`"minimum": 0, "exclusiveMinimum": true` is `"exclusiveMinimum": 0`); `false`, and
/// `true` without a bound, constrained nothing and are dropped.
fn draft4_exclusive_bounds(map: &mut Map<String, Value>, ctx: &mut Ctx<'_, '_>) {
    for (exclusive, bound) in [
        ("exclusiveMinimum", "minimum"),
        ("exclusiveMaximum", "maximum"),
    ] {
        let Some(Value::Bool(flag)) = map.get(exclusive) else {
            continue;
        };
        let flag = *flag;
        match map.get(bound) {
            Some(Value::Number(limit)) if flag => {
                let limit = limit.clone();
                ctx.warn(
                    Some(exclusive),
                    exclusive,
                    Action::Rewritten { exact: true },
                    format!("draft-04's boolean {exclusive}: true next to {bound}: {limit} (invalid in JSON Schema 2020-12 and draft-07) written as {exclusive}: {limit}, the same bound"),
                );
                map.remove(bound);
                map.insert(exclusive.into(), Value::Number(limit));
            }
            _ => {
                map.remove(exclusive);
                let why = if flag {
                    format!(
                        "draft-04's boolean {exclusive}: true without a numeric {bound} constrains nothing (and is invalid in JSON Schema 2020-12 and draft-07); dropped"
                    )
                } else {
                    format!(
                        "draft-04's boolean {exclusive}: false is its default and constrains nothing (and is invalid in JSON Schema 2020-12 and draft-07); dropped"
                    )
                };
                ctx.warn(
                    Some(exclusive),
                    exclusive,
                    Action::Dropped { widened: false },
                    why,
                );
            }
        }
    }
}

/// What [`walk`] does with a `type` name JSON Schema does not define.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Converting a tool: report it.
    Convert,
    /// Reading a provider's document: report it, with the lenient reading it would get.
    Read,
    /// Reading leniently: map it, with a warning.
    ReadLeniently,
}

fn walk(
    schema: &mut Value,
    mode: Mode,
    ctx: &mut Ctx<'_, '_>,
    issues: &mut Vec<SchemaIssue>,
    found: &mut Found,
) {
    let Value::Object(map) = schema else {
        return;
    };
    if mode == Mode::Convert {
        found.references |= map.contains_key("$ref")
            || map.contains_key("$defs")
            || map.contains_key("definitions");
        if matches!(map.get("exclusiveMinimum"), Some(Value::Bool(_)))
            || matches!(map.get("exclusiveMaximum"), Some(Value::Bool(_)))
        {
            draft4_exclusive_bounds(map, ctx);
        }
    }
    if let Some(ty) = map.get("type").filter(|ty| !is_standard(ty)).cloned() {
        let names: Vec<Option<&str>> = match &ty {
            Value::String(one) => vec![Some(one.as_str())],
            Value::Array(many) => many.iter().map(Value::as_str).collect(),
            _ => vec![None],
        };
        let standard = names
            .iter()
            .all(|n| n.is_some_and(|n| JSON_TYPES.contains(&n)));
        if !standard {
            if mode == Mode::ReadLeniently {
                let mut mapped: Vec<&'static str> = Vec::new();
                let mut exact = true;
                let mut any = false;
                for name in &names {
                    match name.map(map_name) {
                        Some(Mapped::Type(t, e)) => {
                            exact &= e;
                            if !mapped.contains(&t) {
                                mapped.push(t);
                            }
                        }
                        Some(Mapped::Any(e)) => {
                            exact &= e;
                            any = true;
                        }
                        None => {
                            exact = false;
                            any = true;
                        }
                    }
                }
                if any {
                    map.remove("type");
                    let action = if exact {
                        Action::Rewritten { exact: true }
                    } else {
                        Action::Dropped { widened: true }
                    };
                    ctx.warn(
                        Some("type"),
                        "type",
                        action,
                        format!("type {ty} read as any value (type removed)"),
                    );
                } else {
                    let new = match mapped.as_slice() {
                        [one] => Value::from(*one),
                        many => Value::from(many.to_vec()),
                    };
                    ctx.warn(
                        Some("type"),
                        "type",
                        Action::Rewritten { exact },
                        format!("non-standard type {ty} read as {new}"),
                    );
                    map.insert("type".into(), new);
                }
            } else {
                let reading = match names.first().copied().flatten().map(map_name) {
                    _ if mode == Mode::Convert => format!("{} refuses it", ctx.target),
                    Some(Mapped::Type(t, _)) if names.len() == 1 => {
                        format!("read leniently as {t:?}")
                    }
                    _ => "read leniently, the type is dropped".to_owned(),
                };
                issues.push(SchemaIssue {
                    pointer: ctx.pointer_to("type"),
                    message: format!("{ty} is not a JSON Schema type ({reading})"),
                });
            }
        }
    }
    let _ = for_each_subschema::<()>(map, &mut |path, sub| {
        let mark = ctx.mark();
        for token in path {
            ctx.enter(token);
        }
        walk(sub, mode, ctx, issues, found);
        ctx.leave(mark);
        Ok(())
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::context::{pointers_and_actions, run_transform};
    use crate::adapters::options::ConvertOptions;
    use crate::adapters::target::Target;
    use crate::adapters::warning::Warning;
    use serde_json::json;

    fn run(schema: Value, lenient: bool) -> (Result<Value, Error>, Vec<Warning>) {
        run_transform(
            Target::OpenAiChat,
            &ConvertOptions::default(),
            "/parameters",
            schema,
            |s, ctx| standard_types(s, lenient, ctx),
        )
    }

    #[test]
    fn bfcl_types() {
        let bfcl = json!({
            "type": "dict",
            "properties": {
                "x": {"type": "float"},
                "pair": {"type": "tuple", "items": {"type": "String"}},
                "who": {"type": "any"},
                "c": {"type": "char"},
                "blank": {"type": ""},
                "ok": {"type": ["integer", "null"]}
            }
        });
        let (out, warnings) = run(bfcl.clone(), true);
        assert_eq!(
            out.unwrap(),
            json!({
                "type": "object",
                "properties": {
                    "x": {"type": "number"},
                    "pair": {"type": "array", "items": {"type": "string"}},
                    "who": {},
                    "c": {"type": "string"},
                    "blank": {},
                    "ok": {"type": ["integer", "null"]}
                }
            })
        );
        let mut got = pointers_and_actions(&warnings);
        got.sort();
        assert_eq!(
            got,
            [
                (
                    "/parameters/properties/blank/type",
                    Action::Dropped { widened: true }
                ),
                (
                    "/parameters/properties/c/type",
                    Action::Rewritten { exact: false }
                ),
                (
                    "/parameters/properties/pair/items/type",
                    Action::Rewritten { exact: true }
                ),
                (
                    "/parameters/properties/pair/type",
                    Action::Rewritten { exact: true }
                ),
                (
                    "/parameters/properties/who/type",
                    Action::Rewritten { exact: true }
                ),
                (
                    "/parameters/properties/x/type",
                    Action::Rewritten { exact: true }
                ),
                ("/parameters/type", Action::Rewritten { exact: true }),
            ]
        );
        let (strict, _) = run(bfcl, false);
        let Err(Error::InvalidSchema { issues }) = strict else {
            panic!("expected InvalidSchema")
        };
        let pointers: Vec<_> = issues.iter().map(|i| i.pointer.as_str()).collect();
        assert_eq!(pointers.len(), 7);
        assert!(pointers.contains(&"/parameters/type"));
        assert!(
            issues.iter().any(|i| i.message
                == "\"dict\" is not a JSON Schema type (read leniently as \"object\")")
        );
    }
}
