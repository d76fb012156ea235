//! JSON Schema to the OpenAPI 3.0 subset of Gemini's `Schema` (`FunctionDeclaration`
//! `parameters` and `response`), and back ([`from_openapi`]): the transform beside
//! [`strict`](super::strict), which [`gemini`](super::gemini) writes around.
//!
//! Each schema object goes through [`node`]: `allOf` merged and `oneOf` as `anyOf` where
//! exact, keywords Gemini's `Schema` lacks moved into the description or dropped, `type`,
//! `nullable`, `enum` and `const` rewritten together ([`types::types_and_values`]), `format`
//! checked per type, counts written as int64 strings ([`counts_as_strings`]), and a `type`
//! given to every schema object ([`give_type`]); then references are inlined and spelled
//! `ref`/`defs` ([`spell_references`]). The output validates against Google's published
//! definition of `Schema` (revision 20250701, `tests/data/providers/gemini.schema.json`), which
//! requires `type` everywhere and types the counts as int64 (strings in JSON): checked for
//! every corpus tool by `tests/tests/model_calls.rs`.

mod types;

use serde_json::{Map, Number, Value};

use crate::adapters::combinators::{
    drop_any_of_branches_matching_nothing, matches_nothing, merge, pairwise_disjoint,
};
use crate::adapters::context::{Ctx, JSON_TYPES, Moved, write_moved};
use crate::adapters::keywords::is_annotation;
use crate::adapters::refs::{self, DEFS, Mode, OnCycle};
use crate::adapters::warning::Action;
use crate::error::Error;
use crate::validate::violation::SchemaSlot;
use types::{static_type, types_and_values, upper_case};

/// Whether `keyword` is a field of Gemini's `Schema` object (Vertex AI / Gemini API reference, `Schema`, read
/// 2026-11-21 from docs.cloud.google.com, "Represents a select subset of an OpenAPI 3.0 schema
/// object"): `type` (one upper-case name), `format`, `title`, `description`, `nullable`,
/// `default`, `items`, `minItems`, `maxItems`, `enum` (strings), `properties`,
/// `propertyOrdering`, `required`, `minProperties`, `maxProperties`, `minimum`, `maximum`,
/// `minLength`, `maxLength`, `pattern`, `example`, `anyOf`, `additionalProperties`, `ref`,
/// `defs` (root only). JSON Schema spellings that map onto them (`$ref`, `$defs`, `const`,
/// `oneOf`, `allOf`) are rewritten; everything else is moved into the description (an
/// assertion) or dropped (an annotation).
fn is_openapi_field(keyword: &str) -> bool {
    matches!(
        keyword,
        "type"
            | "format"
            | "title"
            | "description"
            | "nullable"
            | "default"
            | "items"
            | "minItems"
            | "maxItems"
            | "enum"
            | "properties"
            | "propertyOrdering"
            | "required"
            | "minProperties"
            | "maxProperties"
            | "minimum"
            | "maximum"
            | "minLength"
            | "maxLength"
            | "pattern"
            | "example"
            | "anyOf"
            | "additionalProperties"
    )
}

/// The `format`s Gemini documents per type (same source): any for `STRING`; `float`, `double`
/// for `NUMBER`; `int32`, `int64` for `INTEGER`.
const NUMBER_FORMATS: &[&str] = &["float", "double"];
const INTEGER_FORMATS: &[&str] = &["int32", "int64"];

/// Gemini parameter names: "must start with a letter or an underscore and must only contain
/// chars a-z, A-Z, 0-9, or underscores with a maximum length of 64" (`FunctionDeclaration.parameters`,
/// same source).
fn is_gemini_parameter_name(name: &str) -> bool {
    // ASCII only, so bytes are characters (any byte of a longer character fails).
    let mut bytes = name.bytes();
    name.len() <= 64
        && bytes
            .next()
            .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Converts a tool schema (its root) to Gemini's OpenAPI subset.
///
/// # Errors
///
/// The errors of [`refs::inline`]: a recursive reference that does not go through a root
/// definition (unless widening is allowed), an external or anchor reference, the budget.
/// `references`: the schema holds a `$ref` or definitions ([`Found`](super::lenient::Found)),
/// so that the reference passes have work to do.
pub(crate) fn to_openapi(
    schema: &mut Value,
    ctx: &mut Ctx<'_, '_>,
    references: bool,
) -> Result<(), Error> {
    if let Value::Object(map) = schema {
        ctx.drop_annotation(map, "$schema", "Gemini's Schema has no $schema");
        if let Some(Value::Object(properties)) = map.get("properties") {
            for name in properties.keys().filter(|n| !is_gemini_parameter_name(n)) {
                let a = ctx.enter("properties");
                ctx.warn(
                    Some(name),
                    "parameter name",
                    Action::Unsupported { widened: false },
                    "Gemini documents parameter names as [A-Za-z_][A-Za-z0-9_]{0,63}; the API may reject this one",
                );
                ctx.leave(a);
            }
        }
    }
    sub(schema, ctx)?;
    if references {
        refs::inline(schema, ctx, Mode::All, OnCycle::KeepRootDefs)?;
        spell_references(schema, ctx, true)?;
    }
    // `parameters` only: the reports are of parameters, and a `response` is not a request's.
    if ctx.slot() == Some(SchemaSlot::Input) {
        empty_objects(schema, ctx, true);
    }
    Ok(())
}

/// Whether a converted root says only "an object with no parameters": `type` `OBJECT`, no
/// (or empty) `properties` and `required`, `additionalProperties` absent or `false`. Gemini's
/// API answers 400 ("should be non-empty for OBJECT type") to such `parameters`, so the
/// declaration is written without them ([`gemini::write`](super::gemini::write)), which
/// Gemini reads as a function that takes no arguments.
pub(crate) fn takes_no_parameters(root: &Value) -> bool {
    let Value::Object(map) = root else {
        return false;
    };
    let empty = |key: &str| match map.get(key) {
        None => true,
        Some(Value::Object(m)) => m.is_empty(),
        Some(Value::Array(a)) => a.is_empty(),
        Some(_) => false,
    };
    map.get("type").and_then(Value::as_str) == Some("OBJECT")
        && empty("properties")
        && empty("required")
        && matches!(
            map.get("additionalProperties"),
            None | Some(Value::Bool(false))
        )
        && map.keys().all(|key| {
            matches!(
                key.as_str(),
                "type" | "properties" | "required" | "additionalProperties"
            )
        })
}

/// An `OBJECT` without properties: Gemini's API refuses it in `parameters` with a 400
/// ("should be non-empty for OBJECT type"; reported by every SDK that sends one: agno #2112,
/// pipecat-flows #110, lobehub #5002), which fails the whole request.
/// A map (`additionalProperties` a schema, which Gemini's `Schema` documents) is not one.
fn is_empty_object(map: &Map<String, Value>) -> bool {
    map.get("type").and_then(Value::as_str) == Some("OBJECT")
        && match map.get("properties") {
            None => true,
            Some(Value::Object(properties)) => properties.is_empty(),
            Some(_) => false,
        }
        && !matches!(map.get("additionalProperties"), Some(Value::Object(_)))
}

/// Finds the `OBJECT`s without properties of a converted schema. The root that
/// [`takes_no_parameters`] is written as no `parameters` (a warning when that is narrower than
/// the tool's schema: it took other objects); another root, or one below it, becomes
/// `TYPE_UNSPECIFIED` (any value; its description kept) with a warning, so that the request
/// is not refused. `parametersJsonSchema` keeps every such object as it is.
fn empty_objects(value: &mut Value, ctx: &mut Ctx<'_, '_>, root: bool) {
    let no_parameters = root && takes_no_parameters(value);
    let Value::Object(map) = value else {
        return;
    };
    if is_empty_object(map) {
        if no_parameters {
            if map.get("additionalProperties") != Some(&Value::Bool(false)) {
                ctx.warn(
                    None,
                    "an object without properties",
                    Action::Narrowed,
                    "Gemini's API refuses parameters of type OBJECT without properties; the \
                     declaration is written without parameters, a function the model calls \
                     with no arguments",
                );
            } else if map.contains_key("properties") || map.contains_key("required") {
                ctx.warn(
                    None,
                    "an object without properties",
                    Action::Rewritten { exact: true },
                    "Gemini's API refuses parameters of type OBJECT without properties; the \
                     declaration is written without parameters, which says the same: no \
                     arguments",
                );
            }
            return;
        }
        ctx.warn(
            None,
            "an object without properties",
            Action::Rewritten { exact: false },
            "Gemini's API refuses an OBJECT without properties (400 \"should be non-empty for \
             OBJECT type\"); written as TYPE_UNSPECIFIED (any value); parametersJsonSchema \
             (ConvertOptions::gemini_json_schema) keeps it an object",
        );
        let description = map.get("description").cloned();
        let mut any = Map::new();
        any.insert("type".into(), Value::from(UNSPECIFIED));
        if let Some(description) = description {
            any.insert("description".into(), description);
        }
        *map = any;
        return;
    }
    if let Some(Value::Object(properties)) = map.get_mut("properties") {
        let a = ctx.enter("properties");
        for (name, child) in properties.iter_mut() {
            let b = ctx.enter(name);
            empty_objects(child, ctx, false);
            ctx.leave(b);
        }
        ctx.leave(a);
    }
    if let Some(items) = map.get_mut("items") {
        let a = ctx.enter("items");
        empty_objects(items, ctx, false);
        ctx.leave(a);
    }
    if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
        let a = ctx.enter("anyOf");
        for (i, branch) in branches.iter_mut().enumerate() {
            let b = ctx.enter_index(i);
            empty_objects(branch, ctx, false);
            ctx.leave(b);
        }
        ctx.leave(a);
    }
}

fn sub(value: &mut Value, ctx: &mut Ctx<'_, '_>) -> Result<(), Error> {
    match value {
        Value::Object(map) => {
            let present = Present::scan(map);
            if !(present.not && matches_nothing(map)) {
                return node(map, ctx, present);
            }
            ctx.warn(
                Some("not"),
                "not",
                Action::Dropped { widened: true },
                "this schema matches no value, which Gemini's Schema cannot say; written as {}",
            );
            *value = unspecified();
            Ok(())
        }
        Value::Bool(true) => {
            ctx.warn(
                None,
                "true",
                Action::Rewritten { exact: true },
                "the schema true written as {}",
            );
            *value = unspecified();
            Ok(())
        }
        Value::Bool(false) => {
            ctx.warn(
                None,
                "false",
                Action::Dropped { widened: true },
                "the schema false (nothing allowed) has no Gemini form; written as {}",
            );
            *value = unspecified();
            Ok(())
        }
        _ => Ok(()),
    }
}

/// `{}` as Gemini's `Schema` writes it: any value, `type` not specified.
fn unspecified() -> Value {
    let mut map = Map::new();
    map.insert("type".into(), Value::from(UNSPECIFIED));
    Value::Object(map)
}

/// Converts one schema object, of which `present` says what it holds: one pass over the
/// keywords says which steps have work (most schema objects hold a type and a description
/// only), sparing each step its lookups.
fn node(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_, '_>,
    mut present: Present,
) -> Result<(), Error> {
    let mut moved = Moved::default();
    if present.all_of || present.one_of {
        merge_all_of(map, ctx, &mut moved);
        one_of(map, ctx, &mut moved);
        present = Present::scan(map);
    }
    if present.any_of {
        drop_any_of_branches_matching_nothing(map, ctx);
    }
    // Definitions stay for the reference passes (nested ones are removed once their
    // references are inlined). Only the keywords to act on are copied out (usually none).
    if present.acted_on {
        let acted_on: Vec<String> = map
            .keys()
            .filter(|k| !(is_openapi_field(k) || is_kept_for_later(k)))
            .cloned()
            .collect();
        for keyword in acted_on {
            if !is_annotation(&keyword) {
                ctx.move_or_drop(
                    map,
                    keyword,
                    &mut moved,
                    "Gemini's Schema has no such field",
                );
            } else {
                ctx.drop_annotation(map, keyword, "Gemini's Schema has no such field");
            }
        }
    }
    if present.items && matches!(map.get("items"), Some(Value::Array(_))) {
        ctx.move_or_drop(
            map,
            "items",
            &mut moved,
            "tuple items (an array of schemas) have no Gemini form",
        );
    }
    if present.nullable
        && let Some(Value::Bool(nullable)) = map.get("nullable")
    {
        // JSON Schema ignores `nullable`; Gemini honours it.
        if *nullable {
            ctx.warn(Some("nullable"), "nullable", Action::Rewritten { exact: false }, "not a JSON Schema keyword (validators ignore it), but Gemini honours it: null is now accepted");
        } else {
            ctx.drop_annotation(map, "nullable", "nullable: false is Gemini's default");
        }
    }
    let wrote_any_of = if present.type_done || !(present.values || present.has_type) {
        false
    } else {
        types_and_values(map, ctx, &mut moved)
    };
    if present.format {
        format(map, ctx, &mut moved);
    }
    // The branches of an `anyOf` written from a type list are Gemini schemas already
    // (`{"type": "STRING"}`): converting them again would read `STRING` as no JSON Schema type.
    let written = if wrote_any_of {
        map.remove("anyOf")
    } else {
        None
    };
    if present.children {
        for_each_child(
            map,
            ctx,
            &["properties", "$defs", "definitions"],
            |keyword, child| child.is_object() || (keyword == "items" && child.is_boolean()),
            sub,
        )?;
    }
    if let Some(any_of) = written {
        map.insert("anyOf".into(), any_of);
    }
    if present.counts {
        counts_as_strings(map);
    }
    // A type written already, and no `anyOf` or `$ref`: `give_type` has nothing to do.
    if !(present.type_done && !present.any_of && !present.has_ref) {
        give_type(map, ctx);
    }
    write_moved(map, moved);
    Ok(())
}

/// The count keywords of Gemini's `Schema`: int64 fields, which the JSON mapping of Google's
/// API (proto3) writes as decimal strings (`"minLength": "1"`), as its published definition
/// types them.
const COUNTS: [&str; 6] = [
    "minItems",
    "maxItems",
    "minLength",
    "maxLength",
    "minProperties",
    "maxProperties",
];

/// Writes the counts of `map` as decimal strings ([`COUNTS`]); [`from_openapi`] reads them
/// back as numbers. A count that is not a non-negative integer (an invalid schema) is left.
fn counts_as_strings(map: &mut Map<String, Value>) {
    for key in COUNTS {
        if let Some(count) = map.get_mut(key)
            && let Some(n) = count_of(count)
        {
            *count = Value::String(n.to_string());
        }
    }
}

/// A count written as a JSON number (`3`, or `3.0`, which JSON Schema takes as an integer).
fn count_of(value: &Value) -> Option<u64> {
    let number = value.as_number()?;
    number.as_u64().or_else(|| {
        number
            .as_f64()
            .filter(|f| f.fract() == 0.0 && *f >= 0.0 && *f < 2f64.powi(53))
            // Integral and below 2^53: exact as a `u64`.
            .map(|f| f as u64)
    })
}

/// The `type` Gemini's `Schema` has for "not specified": proto3's zero value, which the API
/// reads exactly as an absent `type` (and [`from_openapi`] reads back as none).
const UNSPECIFIED: &str = "TYPE_UNSPECIFIED";

/// Gives a schema object without a `type` one, as Google's published definition requires of
/// every `Schema` (`type` is "Required"), without changing what it accepts:
///
/// - an `anyOf` of one schema and `{"type": "NULL"}` becomes that schema with
///   `nullable: true` (Google's own SDKs write optional values so), when none of its keywords
///   clashes with the object's own;
/// - an `anyOf` whose branches all have one type `T` (besides `NULL` branches): `type: T`
///   beside it (and `nullable: true` with a `NULL` branch), which every branch implies;
/// - otherwise (no type, or branches of several types): `TYPE_UNSPECIFIED`, the same request
///   as no `type` to Google's API.
///
/// With a `type`, the `anyOf` branches left unspecified take it: the object's type holds for
/// every branch. A `$ref` is left to the reference passes.
fn give_type(map: &mut Map<String, Value>, ctx: &mut Ctx<'_, '_>) {
    if map.contains_key("$ref") {
        return;
    }
    if let Some(Value::String(ty)) = map.get("type") {
        // Most typed schema objects have no `anyOf`: nothing to copy the type into.
        if ty == UNSPECIFIED || !map.contains_key("anyOf") {
            return;
        }
        let ty = ty.clone();
        if let Some(Value::Array(branches)) = map.get_mut("anyOf") {
            let mut typed = false;
            for branch in branches.iter_mut() {
                if let Some(Value::String(branch_type)) = branch.get_mut("type")
                    && branch_type == UNSPECIFIED
                {
                    branch_type.clone_from(&ty);
                    typed = true;
                }
            }
            if typed {
                any_of_rewritten(
                    ctx,
                    "the type of the schema object written in its untyped branches",
                );
            }
        }
        return;
    }
    let Some(Value::Array(branches)) = map.get("anyOf") else {
        map.insert("type".into(), Value::from(UNSPECIFIED));
        return;
    };
    let is_null = |branch: &Value| branch.get("type").and_then(Value::as_str) == Some("NULL");
    let nullable = branches.iter().any(is_null);
    let mut types = branches
        .iter()
        .filter(|branch| !is_null(branch))
        .map(|branch| branch.get("type").and_then(Value::as_str));
    let first = types.next().flatten();
    let one_type = match first {
        Some(ty) if ty != UNSPECIFIED && types.all(|other| other == Some(ty)) => {
            Some(ty.to_owned())
        }
        _ => None,
    };
    let Some(ty) = one_type else {
        map.insert("type".into(), Value::from(UNSPECIFIED));
        return;
    };
    if branches.len() == 2 && nullable && collapse_nullable(map) {
        any_of_rewritten(
            ctx,
            "an anyOf of one schema and null written as that schema with nullable: true",
        );
        return;
    }
    map.insert("type".into(), Value::from(ty));
    if nullable {
        map.insert("nullable".into(), Value::Bool(true));
    }
    any_of_rewritten(ctx, "the type every branch has written beside the anyOf");
}

/// The warning of [`give_type`]: the `anyOf` rewritten exactly (`detail` says how).
fn any_of_rewritten(ctx: &mut Ctx<'_, '_>, detail: &'static str) {
    ctx.warn(
        Some("anyOf"),
        "anyOf",
        Action::Rewritten { exact: true },
        detail,
    );
}

/// Replaces `anyOf: [S, {"type": "NULL"}]` (either order) by the keywords of `S` and
/// `nullable: true`, unless a keyword of `S` is in `map` with another value. Returns whether
/// it did.
fn collapse_nullable(map: &mut Map<String, Value>) -> bool {
    let Some(Value::Array(branches)) = map.get("anyOf") else {
        return false;
    };
    let Some(Value::Object(schema)) = branches
        .iter()
        .find(|branch| branch.get("type").and_then(Value::as_str) != Some("NULL"))
    else {
        return false;
    };
    // The `NULL` branch says nothing else (no description to lose).
    let null_is_plain = branches.iter().any(|branch| {
        matches!(branch, Value::Object(null)
            if null.len() == 1 && null.get("type").and_then(Value::as_str) == Some("NULL"))
    });
    let clashes = schema
        .iter()
        .any(|(key, value)| map.get(key).is_some_and(|own| own != value));
    if !null_is_plain || clashes {
        return false;
    }
    let Some(Value::Array(branches)) = map.remove("anyOf") else {
        return false;
    };
    for branch in branches {
        if let Value::Object(schema) = branch
            && schema.get("type").and_then(Value::as_str) != Some("NULL")
        {
            map.extend(schema);
        }
    }
    map.insert("nullable".into(), Value::Bool(true));
    true
}

/// JSON Schema spellings [`node`] leaves for later passes: `$ref` and definitions (the
/// reference passes), `const` ([`types_and_values`]).
fn is_kept_for_later(keyword: &str) -> bool {
    matches!(keyword, "$ref" | "const" | "$defs" | "definitions")
}

/// Which keywords of a schema object the steps of [`node`] look for.
#[derive(Default)]
struct Present {
    not: bool,
    all_of: bool,
    one_of: bool,
    any_of: bool,
    items: bool,
    nullable: bool,
    format: bool,
    /// `const` or `enum`.
    values: bool,
    has_type: bool,
    /// The `type`, when it is one JSON Schema type name other than `null`.
    simple_type: Option<&'static str>,
    /// A keyword that holds subschemas Gemini nests.
    children: bool,
    /// A keyword that is neither a field of Gemini's `Schema` nor [kept for
    /// later](is_kept_for_later).
    acted_on: bool,
    /// The `type` is written already: one name, nothing else bearing on it.
    type_done: bool,
    /// `$ref`.
    has_ref: bool,
    /// A count keyword (`minItems`, `maxLength`, ...), which Gemini's `Schema` types as an
    /// int64 (a string in JSON).
    counts: bool,
}

impl Present {
    /// Reads which keywords `map` holds and, when its `type` is one name other than `null` and
    /// nothing else bears on it (no values, no `allOf` or `oneOf` to fold in first), writes
    /// that type in Gemini's spelling at once, in place ([`Present::type_done`]).
    fn scan(map: &mut Map<String, Value>) -> Self {
        let mut present = Self::default();
        let mut type_value = None;
        for (keyword, value) in map.iter_mut() {
            match keyword.as_str() {
                "not" => {
                    present.not = true;
                    present.acted_on = true;
                }
                "allOf" => {
                    present.all_of = true;
                    present.acted_on = true;
                }
                "oneOf" => {
                    present.one_of = true;
                    present.acted_on = true;
                }
                "anyOf" => {
                    present.any_of = true;
                    present.children = true;
                }
                "items" => {
                    present.items = true;
                    present.children = true;
                }
                "properties" | "additionalProperties" | "$defs" | "definitions" => {
                    present.children = true;
                }
                "nullable" => present.nullable = true,
                "format" => present.format = true,
                "const" | "enum" => present.values = true,
                "type" => {
                    present.has_type = true;
                    present.simple_type = value
                        .as_str()
                        .and_then(static_type)
                        .filter(|name| *name != "null");
                    type_value = Some(value);
                }
                "$ref" => present.has_ref = true,
                "minItems" | "maxItems" | "minLength" | "maxLength" | "minProperties"
                | "maxProperties" => present.counts = true,
                // The other fields of Gemini's `Schema` (`is_openapi_field`), named here so
                // that the most common keywords are not matched twice.
                "description" | "required" | "title" | "default" | "propertyOrdering"
                | "minimum" | "maximum" | "pattern" | "example" => {}
                other => present.acted_on |= !is_openapi_field(other),
            }
        }
        if let (Some(name), Some(Value::String(spelled))) = (present.simple_type, type_value)
            && !(present.values || present.all_of || present.one_of)
        {
            spelled.clear();
            spelled.push_str(upper_case(name));
            present.type_done = true;
        }
        present
    }
}

/// Runs `f` on each subschema Gemini's `Schema` nests under `map`, with `ctx` pointing at it:
/// each entry of the objects under the keywords `maps`, `items` and `additionalProperties`
/// where `single` accepts them, and each `anyOf` branch. Stops at the first error.
fn for_each_child(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_, '_>,
    maps: &[&str],
    single: fn(&str, &Value) -> bool,
    mut f: impl FnMut(&mut Value, &mut Ctx<'_, '_>) -> Result<(), Error>,
) -> Result<(), Error> {
    for (keyword, value) in map.iter_mut() {
        let keyword = keyword.as_str();
        match value {
            Value::Object(entries) if maps.contains(&keyword) => {
                ctx.each_entry(keyword, entries, &mut f)?;
            }
            Value::Array(branches) if keyword == "anyOf" => {
                ctx.each_item(keyword, branches, &mut f)?;
            }
            child
                if matches!(keyword, "items" | "additionalProperties")
                    && single(keyword, child) =>
            {
                let a = ctx.enter(keyword);
                let result = f(child, ctx);
                ctx.leave(a);
                result?;
            }
            _ => {}
        }
    }
    Ok(())
}

fn merge_all_of(map: &mut Map<String, Value>, ctx: &mut Ctx<'_, '_>, moved: &mut Moved) {
    let Some(Value::Array(branches)) = map.get("allOf") else {
        return;
    };
    let mut merged = map.clone();
    merged.remove("allOf");
    let mergeable = branches.iter().all(|branch| match branch {
        Value::Object(branch) => merge(&mut merged, branch.clone()).is_ok(),
        Value::Bool(true) => true,
        _ => false,
    });
    if mergeable {
        *map = merged;
        ctx.warn(
            Some("allOf"),
            "allOf",
            Action::Rewritten { exact: true },
            "branches merged into the schema object",
        );
    } else {
        ctx.move_or_drop(
            map,
            "allOf",
            moved,
            "Gemini has no allOf and the branches cannot be merged exactly",
        );
    }
}

fn one_of(map: &mut Map<String, Value>, ctx: &mut Ctx<'_, '_>, moved: &mut Moved) {
    if !map.contains_key("oneOf") {
        return;
    }
    if map.contains_key("anyOf") {
        ctx.move_or_drop(
            map,
            "oneOf",
            moved,
            "Gemini has no oneOf, and anyOf is taken",
        );
        return;
    }
    let Some(one_of) = map.remove("oneOf") else {
        return;
    };
    let exact = matches!(&one_of, Value::Array(branches) if pairwise_disjoint(branches));
    let detail = if exact {
        "written as anyOf: the branches cannot overlap, so the meaning is the same"
    } else {
        "written as anyOf: the branches may overlap, so an instance matching several is now accepted"
    };
    ctx.warn(Some("oneOf"), "oneOf", Action::Rewritten { exact }, detail);
    map.insert("anyOf".into(), one_of);
}

fn format(map: &mut Map<String, Value>, ctx: &mut Ctx<'_, '_>, moved: &mut Moved) {
    let (Some(Value::String(format)), Some(Value::String(ty))) =
        (map.get("format"), map.get("type"))
    else {
        return;
    };
    let allowed = format == "enum"
        || match ty.as_str() {
            "STRING" => true,
            "NUMBER" => NUMBER_FORMATS.contains(&format.as_str()),
            "INTEGER" => INTEGER_FORMATS.contains(&format.as_str()),
            _ => false,
        };
    if !allowed {
        ctx.move_or_drop(
            map,
            "format",
            moved,
            "Gemini documents no such format for this type",
        );
    }
}

/// Gemini spells references `ref` and definitions `defs` (root only). Nested definitions are
/// gone after inlining (nothing can refer to them any more) and are removed.
fn spell_references(value: &mut Value, ctx: &mut Ctx<'_, '_>, is_root: bool) -> Result<(), Error> {
    let Value::Object(map) = value else {
        return Ok(());
    };
    if map.is_empty() {
        // A recursive reference widened to `{}` by the inlining.
        map.insert("type".into(), Value::from(UNSPECIFIED));
        return Ok(());
    }
    if let Some(Value::String(reference)) = map.remove("$ref") {
        let spelled = reference
            .strip_prefix("#/$defs/")
            .or_else(|| reference.strip_prefix("#/definitions/"))
            .map(|name| format!("#/defs/{name}"));
        let Some(spelled) = spelled else {
            return Err(ctx.error(
                Some("$ref"),
                format!("the recursive reference {reference} has no Gemini form"),
            ));
        };
        if reference.starts_with("#/definitions/") {
            ctx.warn(
                Some("$ref"),
                "$ref",
                Action::Rewritten { exact: true },
                "definitions are spelled defs in Gemini",
            );
        }
        map.insert("ref".into(), Value::from(spelled));
        if !map.contains_key("type") {
            map.insert("type".into(), Value::from(UNSPECIFIED));
        }
    }
    for defs in DEFS {
        let Some(entries) = map.remove(defs) else {
            continue;
        };
        if !is_root {
            ctx.warn(
                Some(defs),
                defs,
                Action::Rewritten { exact: true },
                "nested definitions removed after their references were inlined",
            );
            continue;
        }
        let Value::Object(entries) = entries else {
            continue;
        };
        if defs == "definitions" {
            ctx.warn(
                Some(defs),
                defs,
                Action::Rewritten { exact: true },
                "definitions are spelled defs in Gemini",
            );
        }
        let target = map
            .entry("defs")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Value::Object(target) = target {
            for (name, schema) in entries {
                if target.contains_key(&name) {
                    return Err(ctx.error(
                        Some(defs),
                        format!("the definition {name:?} is in both $defs and definitions"),
                    ));
                }
                target.insert(name, schema);
            }
        }
    }
    for_each_child(
        map,
        ctx,
        &["properties", "defs"],
        |_, _| true,
        |child, ctx| spell_references(child, ctx, false),
    )
}

/// Reads Gemini's OpenAPI subset back into JSON Schema: lower-case types, `nullable` into the
/// type list (and `null` into an enum), numeric enums back to numbers, counts given as strings
/// back to numbers, `ref`/`defs` to `$ref`/`$defs`. `example` and `propertyOrdering` stay as they
/// are (JSON Schema ignores keywords it does not define).
pub(crate) fn from_openapi(value: &mut Value) {
    let Value::Object(map) = value else {
        return;
    };
    if let Some(Value::String(ty)) = map.get("type") {
        let lower = ty.to_ascii_lowercase();
        if lower == "type_unspecified" {
            map.remove("type");
        } else if JSON_TYPES.contains(&lower.as_str()) {
            map.insert("type".into(), Value::from(lower));
        }
    }
    let ty = map
        .get("type")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned();
    if map.get("format").and_then(Value::as_str) == Some("enum") {
        map.remove("format");
        if matches!(ty.as_str(), "integer" | "number")
            && let Some(Value::Array(values)) = map.get_mut("enum")
        {
            for value in values.iter_mut() {
                if let Value::String(text) = value
                    && let Ok(number) = text.parse::<Number>()
                {
                    *value = Value::Number(number);
                }
            }
        }
    }
    if let Some(nullable) = map.remove("nullable")
        && nullable == Value::Bool(true)
    {
        if !ty.is_empty() && ty != "null" {
            map.insert("type".into(), serde_json::json!([ty, "null"]));
        }
        if let Some(Value::Array(values)) = map.get_mut("enum")
            && !values.contains(&Value::Null)
        {
            values.push(Value::Null);
        }
    }
    for key in [
        "minItems",
        "maxItems",
        "minProperties",
        "maxProperties",
        "minLength",
        "maxLength",
    ] {
        if let Some(Value::String(text)) = map.get(key)
            && let Ok(n) = text.parse::<u64>()
        {
            map.insert(key.into(), Value::from(n));
        }
    }
    if let Some(Value::String(reference)) = map.remove("ref") {
        let spelled = reference
            .strip_prefix("#/defs/")
            .map_or(reference.clone(), |name| format!("#/$defs/{name}"));
        map.insert("$ref".into(), Value::from(spelled));
    }
    if let Some(defs) = map.remove("defs") {
        map.insert("$defs".into(), defs);
    }
    for (keyword, child) in map.iter_mut() {
        match (keyword.as_str(), child) {
            ("properties" | "$defs", Value::Object(entries)) => {
                entries.values_mut().for_each(from_openapi)
            }
            ("items" | "additionalProperties", child) => from_openapi(child),
            ("anyOf", Value::Array(branches)) => branches.iter_mut().for_each(from_openapi),
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::context::{pointers_and_actions, run_transform};
    use crate::adapters::options::ConvertOptions;
    use crate::adapters::target::Target;
    use crate::adapters::warning::Warning;
    use serde_json::json;

    fn run(schema: Value, options: &ConvertOptions) -> (Result<Value, Error>, Vec<Warning>) {
        run_transform(Target::Gemini, options, "/inputSchema", schema, |s, ctx| {
            to_openapi(s, ctx, true)
        })
    }

    #[test]
    fn the_openapi_subset() {
        let (out, warnings) = run(
            json!({
                "type": "object",
                "properties": {
                    "city": {"type": "string", "minLength": 1},
                    "unit": {"type": ["string", "null"], "enum": ["C", "F", null]},
                    "mode": {"const": "fast"},
                    "count": {"type": "integer", "enum": [1, 2, 3], "exclusiveMinimum": 0},
                    "either": {"oneOf": [{"type": "string"}, {"type": "integer"}]}
                },
                "required": ["city"]
            }),
            &ConvertOptions::default(),
        );
        assert_eq!(
            out.unwrap(),
            json!({
                "type": "OBJECT",
                "properties": {
                    "city": {"type": "STRING", "minLength": "1"},
                    "unit": {"type": "STRING", "nullable": true, "enum": ["C", "F"]},
                    "mode": {"type": "STRING", "enum": ["fast"]},
                    "count": {"type": "INTEGER", "format": "enum", "enum": ["1", "2", "3"], "description": "{\"exclusiveMinimum\":0}"},
                    "either": {"type": "TYPE_UNSPECIFIED", "anyOf": [{"type": "STRING"}, {"type": "INTEGER"}]}
                },
                "required": ["city"]
            })
        );
        let features: Vec<_> = warnings
            .iter()
            .map(|w| (w.pointer.as_str(), &*w.feature, w.action))
            .collect();
        assert_eq!(
            features,
            [
                (
                    "/inputSchema/properties/count/enum",
                    "enum",
                    Action::Rewritten { exact: true }
                ),
                (
                    "/inputSchema/properties/count/exclusiveMinimum",
                    "exclusiveMinimum",
                    Action::MovedToDescription
                ),
                (
                    "/inputSchema/properties/either/oneOf",
                    "oneOf",
                    Action::Rewritten { exact: true }
                ),
                (
                    "/inputSchema/properties/mode/const",
                    "const",
                    Action::Rewritten { exact: true }
                ),
                (
                    "/inputSchema/properties/mode/type",
                    "type",
                    Action::Rewritten { exact: true }
                ),
            ]
        );
    }

    #[test]
    fn type_lists_become_any_of_branches_that_are_not_converted_again() {
        // With and without other subschemas beside the list: the written branches hold Gemini
        // types, which a second pass would move into the description as unknown types.
        for extra in [
            json!({}),
            json!({"items": {"type": "string"}, "maxLength": 3}),
        ] {
            let mut schema = json!({"type": ["string", "array", "null"]});
            schema
                .as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            let (out, warnings) = run(
                json!({"type": "object", "properties": {"value": schema}}),
                &ConvertOptions::default(),
            );
            let out = out.unwrap();
            assert_eq!(
                out["properties"]["value"]["anyOf"],
                json!([{"type": "STRING"}, {"type": "ARRAY"}, {"type": "NULL"}]),
                "{out}"
            );
            assert_eq!(
                pointers_and_actions(&warnings),
                [(
                    "/inputSchema/properties/value/type",
                    Action::Rewritten { exact: true }
                )],
            );
        }
    }

    #[test]
    fn reading_back_inverts_the_subset() {
        let source = json!({
            "type": "object",
            "properties": {
                "unit": {"type": ["string", "null"], "enum": ["C", "F", null], "description": "d"},
                "n": {"type": "integer", "enum": [1, 20], "minimum": 0},
                "x": {"type": "number", "enum": [1.5]},
                "tags": {"type": "array", "items": {"type": "string"}, "maxItems": 3},
                "any": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
                "free": {"description": "anything"},
                "map": {"type": "object", "additionalProperties": {"type": "boolean"}}
            },
            "required": ["unit"]
        });
        let (out, warnings) = run(source.clone(), &ConvertOptions::default());
        let mut out = out.unwrap();
        from_openapi(&mut out);
        assert_eq!(out, source);
        assert!(
            warnings
                .iter()
                .all(|w| w.action == Action::Rewritten { exact: true } && w.feature == "enum"),
            "{warnings:?}"
        );
    }

    #[test]
    fn every_schema_object_gets_the_type_googles_definition_requires() {
        let (out, warnings) = run(
            json!({
                "type": "object",
                "properties": {
                    "optional": {"anyOf": [{"type": "array", "items": {"type": "string"}, "maxItems": 3}, {"type": "null"}], "description": "d"},
                    "clash": {"anyOf": [{"type": "string", "description": "inner"}, {"type": "null"}], "description": "outer"},
                    "choice": {"anyOf": [{"enum": ["a", "b"]}, {"enum": ["c"]}]},
                    "mixed": {"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]},
                    "ip": {"type": "string", "anyOf": [{"format": "ipv4"}, {"format": "ipv6"}]},
                    "free": {},
                    "yes": true
                }
            }),
            &ConvertOptions::default(),
        );
        let out = out.unwrap();
        assert_eq!(
            out["properties"],
            json!({
                "optional": {"type": "ARRAY", "items": {"type": "STRING"}, "maxItems": "3", "nullable": true, "description": "d"},
                "clash": {"type": "STRING", "nullable": true, "description": "outer",
                          "anyOf": [{"type": "STRING", "description": "inner"}, {"type": "NULL"}]},
                "choice": {"type": "STRING", "anyOf": [{"type": "STRING", "enum": ["a", "b"]}, {"type": "STRING", "enum": ["c"]}]},
                "mixed": {"type": "TYPE_UNSPECIFIED", "anyOf": [{"type": "STRING"}, {"type": "INTEGER"}, {"type": "NULL"}]},
                "ip": {"type": "STRING", "anyOf": [{"type": "STRING", "format": "ipv4"}, {"type": "STRING", "format": "ipv6"}]},
                "free": {"type": "TYPE_UNSPECIFIED"},
                "yes": {"type": "TYPE_UNSPECIFIED"}
            })
        );
        // Every rewrite of an `anyOf` is exact.
        let any_of: Vec<&str> = pointers_and_actions(&warnings)
            .into_iter()
            .filter(|(pointer, action)| {
                pointer.ends_with("/anyOf") && *action == Action::Rewritten { exact: true }
            })
            .map(|(pointer, _)| pointer)
            .collect();
        let under = |name: &str| format!("/inputSchema/properties/{name}/anyOf");
        assert_eq!(
            any_of,
            ["choice", "clash", "ip", "optional"].map(under),
            "{warnings:?}"
        );
        // What no warning was given for reads back as it was.
        let mut back = out;
        from_openapi(&mut back);
        assert_eq!(
            back["properties"]["mixed"],
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}, {"type": "null"}]})
        );
        assert_eq!(back["properties"]["free"], json!({}));
        assert_eq!(back["properties"]["optional"]["maxItems"], json!(3));
    }

    #[test]
    fn recursion_through_root_definitions_is_kept_as_defs() {
        let (out, _) = run(
            json!({
                "type": "object",
                "properties": {"list": {"$ref": "#/$defs/node"}},
                "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}}}}
            }),
            &ConvertOptions::default(),
        );
        let out = out.unwrap();
        assert_eq!(
            out["properties"]["list"]["properties"]["next"],
            json!({"ref": "#/defs/node", "type": "TYPE_UNSPECIFIED"})
        );
        assert_eq!(
            out["defs"]["node"]["properties"]["next"],
            json!({"ref": "#/defs/node", "type": "TYPE_UNSPECIFIED"})
        );
        let mut back = out;
        from_openapi(&mut back);
        assert_eq!(
            back["$defs"]["node"]["properties"]["next"],
            json!({"$ref": "#/$defs/node"})
        );
        let (root_recursion, _) = run(
            json!({"type": "object", "properties": {"child": {"$ref": "#"}}}),
            &ConvertOptions::default(),
        );
        assert!(matches!(root_recursion, Err(Error::RecursiveSchema { .. })));
    }

    #[test]
    fn parameter_names_gemini_does_not_document_are_reported() {
        let (_, warnings) = run(
            json!({"type": "object", "properties": {"first-name": {"type": "string"}}}),
            &ConvertOptions::default(),
        );
        assert!(
            warnings.iter().any(|w| w.feature == "parameter name"
                && w.pointer == "/inputSchema/properties/first-name")
        );
    }
}
