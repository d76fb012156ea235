//! The `type` names JSON Schema defines, and the lenient reading of the ones it does not
//! (`dict`, `float`, `tuple`, `any`, Java and JavaScript names, ...), as the Berkeley Function
//! Calling Leaderboard's function definitions and other hand-written catalogs use them.

use serde_json::Value;

use super::{
    Action,
    context::{Ctx, JSON_TYPES},
    keywords::for_each_subschema,
};
use crate::{Error, SchemaIssue};

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
    ctx: &mut Ctx<'_>,
) -> Result<(), Error> {
    let mode = if lenient {
        Mode::ReadLeniently
    } else {
        Mode::Read
    };
    walk_all(schema, mode, ctx)
}

/// Checks, before converting, that every `type` name of a tool's schema is one JSON Schema
/// defines: a provider refuses the others, and reading the converted tool back would too.
/// `schema` is the copy being converted, left as it is; `ctx` points at the schema in the
/// tool.
///
/// # Errors
///
/// [`Error::InvalidSchema`] listing every `type` value JSON Schema does not define, each with
/// its JSON Pointer.
pub(crate) fn check_types(schema: &mut Value, ctx: &mut Ctx<'_>) -> Result<(), Error> {
    walk_all(schema, Mode::Convert, ctx)
}

/// [`walk`] over the whole schema: every issue found, as one error.
fn walk_all(schema: &mut Value, mode: Mode, ctx: &mut Ctx<'_>) -> Result<(), Error> {
    let mut issues = Vec::new();
    walk(schema, mode, ctx, &mut issues);
    if issues.is_empty() {
        Ok(())
    } else {
        Err(Error::InvalidSchema { issues })
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

fn walk(schema: &mut Value, mode: Mode, ctx: &mut Ctx<'_>, issues: &mut Vec<SchemaIssue>) {
    let Value::Object(map) = schema else {
        return;
    };
    if let Some(ty) = map.get("type").cloned() {
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
        let marks: Vec<usize> = path.iter().map(|t| ctx.enter(t)).collect();
        walk(sub, mode, ctx, issues);
        if let Some(first) = marks.first() {
            ctx.leave(*first);
        }
        Ok(())
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::{ConvertOptions, Target, Warning};
    use serde_json::json;

    fn run(schema: Value, lenient: bool) -> (Result<Value, Error>, Vec<Warning>) {
        let mut warnings = Vec::new();
        let options = ConvertOptions::default();
        let mut schema = schema;
        let result = {
            let mut ctx = Ctx::new(
                Target::OpenAiChat,
                &options,
                Some(crate::SchemaSlot::Input),
                "/parameters",
                &mut warnings,
            );
            standard_types(&mut schema, lenient, &mut ctx)
        };
        (result.map(|()| schema), warnings)
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
        let mut got: Vec<_> = warnings
            .iter()
            .map(|w| (w.pointer.as_str(), w.action))
            .collect();
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
