//! `type`, `nullable`, `enum` and `const` in Gemini's OpenAPI subset: one upper-case type,
//! `nullable` for null, string-only enums (numbers as strings with `format: "enum"`), no
//! `const` (Gemini's `Schema` reference, read 2026-11-21; see [the transform](super)).
//!
//! [`types_and_values`] runs the steps in order: `const` as a one-value `enum`
//! ([`const_as_enum`]), the source `type` read ([`SourceType::read`]), the `enum` taken out
//! ([`take_enum`]) and the values the type rules out removed ([`SourceType::rule_out`]), the
//! types to write found ([`SourceType::wanted`]), then the type written ([`write_type`]) and
//! the values written back ([`write_values`]).

use serde_json::{Map, Value};

use crate::adapters::context::{Ctx, JSON_TYPES, Moved, instance_type};
use crate::adapters::warning::Action;

/// `type`, `nullable`, `enum` and `const` together: Gemini has one upper-case type, `nullable`
/// for null, and string-only enums (numbers as strings with `format: "enum"`). Returns whether
/// it wrote an `anyOf` of Gemini types (from a type list), which is not to be converted again.
pub(super) fn types_and_values(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_, '_>,
    moved: &mut Moved,
) -> bool {
    const_as_enum(map, ctx, moved);
    let source = SourceType::read(map, ctx, moved);
    // Taken out, to be written back (or not) below.
    let mut enum_values = take_enum(map, ctx, moved);
    if let Some(values) = &mut enum_values {
        source.rule_out(values, ctx);
    }
    let wanted = source.wanted(&mut enum_values, ctx);
    let has_values = enum_values.as_ref().is_some_and(|v| !v.is_empty());
    let wrote_any_of = write_type(map, ctx, moved, &source, &wanted, has_values);
    if let Some(values) = enum_values {
        write_values(map, ctx, moved, values, wanted.only_null);
    }
    wrote_any_of
}

/// `const` as a one-value `enum`, or moved when there is an `enum` already.
fn const_as_enum(map: &mut Map<String, Value>, ctx: &mut Ctx<'_, '_>, moved: &mut Moved) {
    let Some(value) = map.remove("const") else {
        return;
    };
    if map.contains_key("enum") {
        map.insert("const".into(), value);
        ctx.move_or_drop(
            map,
            "const",
            moved,
            "Gemini has no const, and enum is taken",
        );
    } else {
        map.insert("enum".into(), Value::Array(vec![value]));
        ctx.deepened = true;
        ctx.warn(
            Some("const"),
            "const",
            Action::Rewritten { exact: true },
            "written as a one-value enum",
        );
    }
}

/// The `type` of the source schema object: its names as the static spellings (no copies), and
/// its shape.
struct SourceType {
    /// The type names, empty when there is no `type` or it is not well formed.
    names: Vec<&'static str>,
    /// Whether there was a `type`.
    had_type: bool,
    /// Whether it was a string (one name) rather than a list.
    was_string: bool,
}

/// The types to write, after `null` and the `enum` values are accounted for.
struct Wanted {
    /// The types other than `null` (from the values, when the schema had no type and they
    /// agree on one).
    non_null: Vec<&'static str>,
    /// Whether null is allowed (by the `enum`, when there is one, else by the type).
    null_allowed: bool,
    /// Whether `null` was the only type.
    only_null: bool,
}

impl SourceType {
    /// Reads the `type` of `map`, moving one that is not made of JSON Schema type names.
    fn read(map: &mut Map<String, Value>, ctx: &mut Ctx<'_, '_>, moved: &mut Moved) -> Self {
        let mut names: Vec<&'static str> = Vec::new();
        let well_formed = match map.get("type") {
            None => true,
            Some(Value::String(one)) => static_type(one).map(|t| names.push(t)).is_some(),
            Some(Value::Array(items)) => items.iter().all(|item| {
                item.as_str()
                    .and_then(static_type)
                    .map(|t| names.push(t))
                    .is_some()
            }),
            Some(_) => false,
        };
        let source = Self {
            had_type: map.contains_key("type"),
            was_string: matches!(map.get("type"), Some(Value::String(_))),
            names: if well_formed { names } else { Vec::new() },
        };
        if !well_formed {
            ctx.move_or_drop(map, "type", moved, "not a JSON Schema type");
        }
        source
    }

    /// Whether the source `type` was exactly `canonical` (a string for one name, else a list).
    fn was(&self, canonical: &[&str]) -> bool {
        match canonical {
            [one] => self.was_string && self.names.as_slice() == [*one],
            _ => !self.was_string && self.had_type && self.names.as_slice() == canonical,
        }
    }

    /// Removes the `enum` values of none of the types: they can never validate, so leaving
    /// them out changes nothing.
    fn rule_out(&self, values: &mut Vec<Value>, ctx: &mut Ctx<'_, '_>) {
        if self.names.is_empty() {
            return;
        }
        let before = values.len();
        values.retain(|v| {
            let t = instance_type(v);
            self.names
                .iter()
                .any(|n| *n == t || (*n == "number" && t == "integer"))
        });
        if values.len() != before {
            ctx.warn(
                Some("enum"),
                "enum",
                Action::Rewritten { exact: true },
                "values the type rules out removed",
            );
        }
    }

    /// The types to write; takes `null` out of the `enum` values (it becomes `nullable`).
    fn wanted(&self, enum_values: &mut Option<Vec<Value>>, ctx: &mut Ctx<'_, '_>) -> Wanted {
        let null_allowed = match enum_values {
            Some(values) => values.contains(&Value::Null),
            None => self.names.contains(&"null"),
        };
        if let Some(values) = enum_values {
            values.retain(|v| !v.is_null());
        }
        let mut non_null: Vec<&'static str> = self
            .names
            .iter()
            .copied()
            .filter(|n| *n != "null")
            .collect();
        if non_null.is_empty()
            && let Some(values) = enum_values
            && !values.is_empty()
        {
            let mut inferred: Vec<&'static str> = Vec::new();
            for value in values.iter() {
                let t = instance_type(value);
                if !inferred.contains(&t) {
                    inferred.push(t);
                }
            }
            if inferred.contains(&"number") {
                inferred.retain(|t| *t != "integer");
            }
            if inferred.len() == 1 && self.names.is_empty() {
                ctx.warn(
                    Some("type"),
                    "type",
                    Action::Rewritten { exact: true },
                    "type added from the enum values",
                );
                non_null = inferred;
            }
        }
        Wanted {
            only_null: !self.names.is_empty() && non_null.is_empty(),
            non_null,
            null_allowed,
        }
    }
}

/// Writes the type: one upper-case type (plus `nullable`), `NULL`, none, or an `anyOf` of
/// Gemini types for several. Returns whether it wrote that `anyOf`.
fn write_type(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_, '_>,
    moved: &mut Moved,
    source: &SourceType,
    wanted: &Wanted,
    has_values: bool,
) -> bool {
    let null_allowed = wanted.null_allowed;
    match wanted.non_null.as_slice() {
        [one] => {
            let exact_source = if null_allowed {
                source.was(&[one, "null"])
            } else {
                source.was(&[one])
            };
            set_type(map, upper_case(one));
            if source.had_type && !exact_source {
                ctx.warn(
                    Some("type"),
                    "type",
                    Action::Rewritten { exact: true },
                    "type list written as one type plus nullable",
                );
            }
            if null_allowed {
                map.insert("nullable".into(), Value::Bool(true));
            }
            false
        }
        [] if wanted.only_null => {
            let exact_source = source.was(&["null"]);
            set_type(map, "NULL");
            if !exact_source {
                ctx.warn(
                    Some("type"),
                    "type",
                    Action::Rewritten { exact: true },
                    "written as type NULL",
                );
            }
            false
        }
        [] => {
            map.remove("type");
            if null_allowed && has_values {
                map.insert("nullable".into(), Value::Bool(true));
            }
            false
        }
        many => {
            if map.contains_key("anyOf") {
                ctx.move_or_drop(
                    map,
                    "type",
                    moved,
                    "several types need anyOf, which is taken",
                );
                return false;
            }
            let mut branches: Vec<Value> = many
                .iter()
                .map(|t| serde_json::json!({"type": upper_case(t)}))
                .collect();
            if null_allowed {
                branches.push(serde_json::json!({"type": "NULL"}));
            }
            map.remove("type");
            map.insert("anyOf".into(), Value::Array(branches));
            ctx.deepened = true;
            ctx.warn(
                Some("type"),
                "type",
                Action::Rewritten { exact: true },
                "several types written as anyOf",
            );
            true
        }
    }
}

/// Takes the `enum` out of `map` when it is an array; one that is not is moved.
fn take_enum(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_, '_>,
    moved: &mut Moved,
) -> Option<Vec<Value>> {
    match map.remove("enum") {
        Some(Value::Array(values)) => Some(values),
        Some(other) => {
            map.insert("enum".into(), other);
            ctx.move_or_drop(map, "enum", moved, "enum is not an array");
            None
        }
        None => None,
    }
}

/// Writes the `enum` values back as Gemini takes them: strings as they are, numbers as strings
/// with `format: "enum"`, both booleans as no enum; others moved.
fn write_values(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_, '_>,
    moved: &mut Moved,
    values: Vec<Value>,
    only_null: bool,
) {
    let ty = map
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if values.is_empty() {
        map.remove("enum");
        if !only_null {
            map.insert("enum".into(), Value::Array(vec![]));
            ctx.move_or_drop(
                map,
                "enum",
                moved,
                "an empty enum (nothing allowed) has no Gemini form",
            );
        }
        return;
    }
    if values.iter().all(Value::is_string) {
        map.insert("enum".into(), Value::Array(values));
    } else if values.iter().all(Value::is_number) && matches!(ty.as_str(), "INTEGER" | "NUMBER") {
        let strings: Vec<Value> = values.iter().map(|v| Value::from(v.to_string())).collect();
        map.insert("enum".into(), Value::Array(strings));
        if let Some(format) = map.insert("format".into(), Value::from("enum")) {
            ctx.warn(
                Some("format"),
                "format",
                Action::Dropped { widened: false },
                format!(
                    "format {format} replaced by \"enum\", which Gemini needs for a numeric enum"
                ),
            );
        }
        ctx.warn(
            Some("enum"),
            "enum",
            Action::Rewritten { exact: true },
            "numeric values written as strings with format \"enum\", as Gemini documents",
        );
    } else if ty == "BOOLEAN"
        && values.contains(&Value::Bool(true))
        && values.contains(&Value::Bool(false))
    {
        map.remove("enum");
        ctx.warn(
            Some("enum"),
            "enum",
            Action::Rewritten { exact: true },
            "both booleans allowed: the type says as much",
        );
    } else {
        map.insert("enum".into(), Value::Array(values));
        ctx.move_or_drop(
            map,
            "enum",
            moved,
            "Gemini enums hold strings (and numbers as strings) only",
        );
    }
}

/// The static spelling of a JSON Schema type name.
pub(super) fn static_type(name: &str) -> Option<&'static str> {
    JSON_TYPES.iter().copied().find(|t| *t == name)
}

/// Gemini's upper-case spelling of a JSON Schema type name.
pub(super) fn upper_case(name: &str) -> &'static str {
    match name {
        "null" => "NULL",
        "boolean" => "BOOLEAN",
        "object" => "OBJECT",
        "array" => "ARRAY",
        "number" => "NUMBER",
        "integer" => "INTEGER",
        _ => "STRING",
    }
}

/// Sets `type` to `name`, reusing the string already there when there is one.
fn set_type(map: &mut Map<String, Value>, name: &str) {
    match map.get_mut("type") {
        Some(Value::String(existing)) => {
            existing.clear();
            existing.push_str(name);
        }
        _ => {
            map.insert("type".into(), Value::from(name));
        }
    }
}
