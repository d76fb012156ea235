//! The strict-mode transforms: OpenAI Structured Outputs (`strict: true` on a function) and
//! Anthropic strict tool use (`strict: true` on a tool).
//!
//! Both providers decode under a grammar built from the schema, so they accept only a subset of
//! JSON Schema and require every object to be closed. The transforms rewrite what has an exact
//! or documented equivalent, move unsupported constraints into the description (or drop them,
//! see [`ConvertOptions::constraints_to_description`](crate::adapters::ConvertOptions::constraints_to_description)),
//! and stop with [`Error::Conversion`] naming the place when a schema cannot be made strict: an
//! open object, a schema that accepts any value, a boolean schema, a root that is not an object.
//!
//! # OpenAI
//!
//! Checked against `ensure_strict_json_schema` of the OpenAI Agents SDK
//! (`openai/openai-agents-python`, `src/agents/strict_schema.py`, read 2026-11-21), which it
//! follows where that function is right and departs from where it silently changes meaning:
//!
//! | the SDK | here |
//! |---|---|
//! | adds `additionalProperties: false` to every `type: "object"` without it | the same, with a warning; an object with neither `properties` nor `additionalProperties` (a free-form object) below the root is an error, since closing it would leave only `{}` |
//! | raises on a truthy `additionalProperties` | the same (an error), also for `{}` |
//! | sets `required` to every property | the same, and makes each optional property nullable (the model sends `null` where it would have left the property out), with a warning each |
//! | walks `$defs`, `definitions`, `properties`, `items`, `anyOf` | the same, plus `additionalProperties` and the branches of rewritten combinators |
//! | turns `oneOf` into `anyOf` | the same, exact when the branches cannot overlap, else a non-exact rewrite |
//! | merges a one-branch `allOf`, keeps a longer one (which the API rejects) | merges every branch when that is exact, else an error (or a widening warning) |
//! | strips `default: null` | drops or moves every `default` (not in the supported list) |
//! | inlines a `$ref` that has sibling keywords | the same (through [`crate::adapters::refs`], within the budget) |
//! | — | keywords outside the supported list below are moved into the description |
//!
//! # Anthropic
//!
//! Checked against `transform_schema` of the Anthropic Python SDK
//! (`anthropics/anthropic-sdk-python`, `src/anthropic/lib/_parse/_transform.py`, read
//! 2026-11-21), which moves unsupported keywords into the description as this module does, and
//! against Anthropic's structured-outputs documentation ("JSON Schema limitations"): no
//! recursive schemas, no numeric or string-length constraints, `minItems` only 0 or 1,
//! `additionalProperties` only `false`, simple regular expressions only. Optional properties
//! stay optional. A recursive schema is [`Error::RecursiveSchema`] (strict mode has no
//! unconstrained schema to widen to).

mod branches;
mod checks;
mod objects;
mod support;
mod types;

use serde_json::{Map, Value};

use crate::adapters::combinators::matches_nothing;
use crate::adapters::context::{Ctx, JSON_TYPES, Moved, write_moved};
use crate::adapters::keywords::is_annotation;
use crate::adapters::refs::{self, Mode, OnCycle};
use crate::error::Error;
use branches::{drop_branches_matching_nothing, merge_all_of, one_of_to_any_of};
use checks::{check_shapes, check_values, misshapen};
use objects::{close_object, is_object, require_all};
use support::{
    Kw, OPENAI_MAX_ENUM_VALUES, OPENAI_MAX_NESTING, OPENAI_MAX_PROPERTIES, Provider, Says,
};
use types::{infer_type, split_type_list, type_into_branches};

/// Makes `schema` (a tool's root schema) an OpenAI strict schema. `references`: the schema
/// holds a `$ref` or root definitions ([`Found`](super::lenient::Found)); `unchanged`: the same
/// schema, when the caller holds it elsewhere ([`refs::inline_from`]).
///
/// Every reference that is not recursive is inlined first (the Agents SDK refuses other
/// references in MCP tools' schemas), so that each copy is made strict where it is used;
/// recursive references stay, as OpenAI supports them.
///
/// # Errors
///
/// [`Error::Conversion`] where the schema cannot be made strict or exceeds the documented
/// limits; the errors of [`refs::inline`].
pub(crate) fn openai(
    schema: &mut Value,
    unchanged: Option<&Value>,
    ctx: &mut Ctx<'_, '_>,
    references: bool,
) -> Result<(), Error> {
    if references {
        refs::inline_from(schema, unchanged, ctx, Mode::All, OnCycle::Keep)?;
    }
    let mut tally = Tally::default();
    root(schema, ctx, Provider::OpenAi, &mut tally)?;
    tally.check_openai_limits(ctx)
}

/// Makes `schema` (a tool's root schema) an Anthropic strict schema. `references` as for
/// [`openai`].
///
/// # Errors
///
/// [`Error::Conversion`] where the schema cannot be made strict; [`Error::RecursiveSchema`];
/// the errors of [`refs::inline`].
pub(crate) fn anthropic(
    schema: &mut Value,
    ctx: &mut Ctx<'_, '_>,
    references: bool,
) -> Result<(), Error> {
    if references && let Some((pointer, reference)) = refs::find_cycle(schema) {
        return Err(Error::RecursiveSchema {
            target: ctx.target.as_str(),
            pointer: format!("{}{pointer}", ctx.pointer()),
            reference,
        });
    }
    root(schema, ctx, Provider::Anthropic, &mut Tally::default())?;
    if references {
        refs::inline(schema, ctx, Mode::WithSiblings, OnCycle::Keep)?;
    }
    Ok(())
}

/// What OpenAI limits in size, counted while the transform walks the schema.
#[derive(Default)]
struct Tally {
    /// Object properties in all.
    properties: usize,
    /// Enum values in all.
    enum_values: usize,
    /// Levels of objects with properties around the schema object being walked.
    nesting: usize,
    /// The deepest such level and, when it is beyond OpenAI's limit, where it is (the pointer
    /// of its schema object; spelled only then).
    deepest: (usize, String),
}

impl Tally {
    fn check_openai_limits(&self, ctx: &Ctx<'_, '_>) -> Result<(), Error> {
        for (count, most, what) in [
            (self.properties, OPENAI_MAX_PROPERTIES, "object properties"),
            (self.enum_values, OPENAI_MAX_ENUM_VALUES, "enum values"),
        ] {
            if count > most {
                return Err(ctx.error(
                    None,
                    format!("{count} {what} in all; OpenAI strict mode allows {most}"),
                ));
            }
        }
        if self.deepest.0 > OPENAI_MAX_NESTING {
            return Err(Error::Conversion {
                target: ctx.target.as_str(),
                pointer: self.deepest.1.clone(),
                reason: format!(
                    "objects nest {} levels deep here; OpenAI strict mode allows {OPENAI_MAX_NESTING}",
                    self.deepest.0
                ),
            });
        }
        Ok(())
    }
}

fn root(
    schema: &mut Value,
    ctx: &mut Ctx<'_, '_>,
    provider: Provider,
    tally: &mut Tally,
) -> Result<(), Error> {
    let Value::Object(map) = schema else {
        return Err(ctx.error(None, "the root of a strict schema must be an object schema"));
    };
    if map.get("type").and_then(Value::as_str) != Some("object") {
        return Err(ctx.error(
            Some("type"),
            format!("{} needs a root with \"type\": \"object\"", provider.name()),
        ));
    }
    for combinator in ["anyOf", "oneOf"] {
        if map.contains_key(combinator) {
            return Err(ctx.error(
                Some(combinator),
                format!(
                    "{} does not allow {combinator} at the root of a schema",
                    provider.name()
                ),
            ));
        }
    }
    ctx.drop_annotation(
        map,
        "$schema",
        "strict schemas carry no $schema; the subset is the provider's",
    );
    node(map, ctx, provider, true, tally)
}

fn node(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_, '_>,
    provider: Provider,
    is_root: bool,
    tally: &mut Tally,
) -> Result<(), Error> {
    // One pass over the keywords says which steps have work (most schema objects hold a type
    // and a description only), sparing each step its lookups.
    let mut present = Present::of(map, provider);
    if present.leaf {
        // Nothing to rewrite: what the steps below would do comes to counting its values.
        if present.has_enum
            && let Some(Value::Array(values)) = map.get("enum")
        {
            tally.enum_values += values.len();
        }
        return Ok(());
    }
    if present.not && matches_nothing(map) {
        return Err(ctx.error(
            None,
            format!(
                "this schema matches no value; {} has no schema that matches nothing",
                provider.name()
            ),
        ));
    }
    if provider == Provider::OpenAi && present.all_of {
        merge_all_of(map, ctx)?;
        present = Present::of(map, provider);
    }
    if present.one_of {
        one_of_to_any_of(map, ctx)?;
        present.any_of = true;
    }
    let mut moved = Moved::default();
    // Only the keywords to act on are copied out (usually none).
    let acted_on: Vec<String> = if present.acted_on {
        map.keys()
            .filter(|k| *k == "default" || !provider.supports(k))
            .cloned()
            .collect()
    } else {
        Vec::new()
    };
    for keyword in acted_on {
        if keyword == "default" {
            match map.get("default") {
                Some(Value::Null) => ctx.drop_annotation(
                    map,
                    "default",
                    "default null says nothing a nullable property does not",
                ),
                _ => ctx.move_or_drop(map, "default", &mut moved, provider.says(Says::NoDefault)),
            }
        } else if is_annotation(&keyword) && keyword != "format" {
            ctx.drop_annotation(map, keyword, provider.says(Says::NoKeyword));
        } else {
            ctx.move_or_drop(map, keyword, &mut moved, provider.says(Says::Unsupported));
        }
    }
    if present.restricted_values {
        check_values(map, ctx, provider, &mut moved);
    }
    // Moving keywords out leaves the others' shapes as they were; a `oneOf` now spelled
    // `anyOf` has not been looked at under that name.
    if !present.well_shaped || present.one_of {
        check_shapes(map, ctx)?;
    }
    if present.any_of || present.all_of {
        drop_branches_matching_nothing(map, ctx, provider)?;
    }
    infer_type(map, ctx, provider)?;
    if provider == Provider::Anthropic {
        split_type_list(map, ctx);
    }
    // Nothing before adds a combinator that keeps the type (a split type list removes it) or
    // an `enum`: the first pass says whether there is work.
    if present.any_of || present.all_of {
        type_into_branches(map, ctx);
    }
    if present.has_enum
        && let Some(Value::Array(values)) = map.get("enum")
    {
        tally.enum_values += values.len();
    }
    // One type name stays as it was (only a type list is split, only a missing type inferred).
    let is_object = match present.one_type_object {
        Some(object) => object,
        None => is_object(map),
    };
    if is_object {
        close_object(map, ctx, provider, is_root)?;
    }
    let properties = if present.has_properties {
        map.get("properties")
    } else {
        None
    };
    let counted = match properties {
        Some(Value::Object(properties)) => {
            tally.properties += properties.len();
            tally.nesting += 1;
            if tally.nesting > tally.deepest.0 {
                tally.deepest.0 = tally.nesting;
                if tally.nesting > OPENAI_MAX_NESTING {
                    tally.deepest.1 = ctx.pointer();
                }
            }
            true
        }
        _ => false,
    };
    let result = recurse(map, ctx, provider, tally);
    if counted {
        tally.nesting -= 1;
    }
    result?;
    if provider == Provider::OpenAi && is_object {
        require_all(map, ctx);
    }
    write_moved(map, moved);
    Ok(())
}

/// Which keywords of a schema object the steps of [`node`] look for.
#[derive(Default)]
struct Present {
    not: bool,
    all_of: bool,
    one_of: bool,
    any_of: bool,
    /// `default`, or a keyword the provider does not support.
    acted_on: bool,
    /// A keyword whose values [`check_values`] restricts.
    restricted_values: bool,
    /// `enum`.
    has_enum: bool,
    /// Every keyword holds the shape [`check_shapes`] wants.
    well_shaped: bool,
    /// `type` is one name: whether it is `object`.
    one_type_object: Option<bool>,
    /// `properties`.
    has_properties: bool,
    /// A typed leaf with nothing to rewrite or check beyond this pass: one `type` other than
    /// `object`, and only keywords the provider takes, each well shaped, none holding
    /// subschemas or values to restrict.
    leaf: bool,
}

impl Present {
    fn of(map: &Map<String, Value>, provider: Provider) -> Self {
        let mut present = Self {
            well_shaped: true,
            ..Self::default()
        };
        let mut leaf_keywords = true;
        let anthropic = provider == Provider::Anthropic;
        for (keyword, value) in map {
            let kw = Kw::of(keyword);
            present.well_shaped &= misshapen(kw, value).is_none();
            match kw {
                Kw::Not => present.not = true,
                Kw::AllOf => present.all_of = true,
                Kw::OneOf => present.one_of = true,
                Kw::AnyOf => present.any_of = true,
                Kw::Format | Kw::Items => present.restricted_values = true,
                Kw::Enum => {
                    present.has_enum = true;
                    present.restricted_values |= anthropic;
                }
                Kw::MinItems | Kw::Pattern if anthropic => present.restricted_values = true,
                Kw::Type => {
                    present.one_type_object = value
                        .as_str()
                        .filter(|name| JSON_TYPES.contains(name))
                        .map(|name| name == "object");
                }
                Kw::Properties => {
                    present.has_properties = true;
                    leaf_keywords = false;
                }
                Kw::Title
                | Kw::Description
                | Kw::Pattern
                | Kw::Minimum
                | Kw::Maximum
                | Kw::ExclusiveMinimum
                | Kw::ExclusiveMaximum
                | Kw::MultipleOf
                | Kw::MinItems
                | Kw::MaxItems
                | Kw::Const => {}
                _ => leaf_keywords = false,
            }
            if kw == Kw::Default || !provider.takes(kw) {
                present.acted_on = true;
            }
        }
        present.leaf = leaf_keywords
            && present.well_shaped
            && present.one_type_object == Some(false)
            && !(present.not
                || present.all_of
                || present.one_of
                || present.any_of
                || present.acted_on
                || present.restricted_values);
        present
    }
}

fn recurse(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_, '_>,
    provider: Provider,
    tally: &mut Tally,
) -> Result<(), Error> {
    for (keyword, value) in map.iter_mut() {
        match (keyword.as_str(), value) {
            ("properties" | "$defs" | "definitions", Value::Object(entries)) => {
                ctx.each_entry(keyword, entries, |sub, ctx| {
                    sub_node(sub, ctx, provider, tally)
                })?;
            }
            ("items", sub @ (Value::Object(_) | Value::Bool(_))) => {
                ctx.at("items", |ctx| sub_node(sub, ctx, provider, tally))?;
            }
            ("anyOf" | "allOf", Value::Array(branches)) => {
                ctx.each_item(keyword, branches, |sub, ctx| {
                    sub_node(sub, ctx, provider, tally)
                })?;
            }
            _ => {}
        }
    }
    Ok(())
}

fn sub_node(
    value: &mut Value,
    ctx: &mut Ctx<'_, '_>,
    provider: Provider,
    tally: &mut Tally,
) -> Result<(), Error> {
    match value {
        Value::Object(map) => node(map, ctx, provider, false, tally),
        Value::Bool(false) => Err(ctx.error(
            None,
            format!(
                "this schema matches no value; {} has no schema that matches nothing",
                provider.name()
            ),
        )),
        _ => Err(ctx.error(
            None,
            format!(
                "a boolean schema cannot be made strict; {} needs a schema object with a type",
                provider.name()
            ),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::checks::has_unsupported_regex;
    use super::*;
    use crate::adapters::context::{pointers_and_actions, run_transform};
    use crate::adapters::options::ConvertOptions;
    use crate::adapters::target::Target;
    use crate::adapters::warning::{Action, Warning};
    use serde_json::json;

    fn run(
        provider: Provider,
        schema: Value,
        options: &ConvertOptions,
    ) -> (Result<Value, Error>, Vec<Warning>) {
        let target = match provider {
            Provider::OpenAi => Target::OpenAiChat,
            Provider::Anthropic => Target::Anthropic,
        };
        run_transform(
            target,
            options,
            "/inputSchema",
            schema,
            |s, ctx| match provider {
                Provider::OpenAi => openai(s, None, ctx, true),
                Provider::Anthropic => anthropic(s, ctx, true),
            },
        )
    }

    fn openai_ok(schema: Value) -> (Value, Vec<Warning>) {
        let (out, warnings) = run(Provider::OpenAi, schema, &ConvertOptions::default());
        (out.unwrap(), warnings)
    }

    #[test]
    fn the_sdk_example_closes_and_requires() {
        // The shape the Agents SDK documents: optional `unit` becomes required and nullable.
        let (out, warnings) = openai_ok(json!({
            "type": "object",
            "properties": {
                "location": {"type": "string"},
                "unit": {"type": "string", "enum": ["F", "C"]}
            },
            "required": ["location"]
        }));
        assert_eq!(
            out,
            json!({
                "type": "object",
                "properties": {
                    "location": {"type": "string"},
                    "unit": {"type": ["string", "null"], "enum": ["F", "C", null]}
                },
                "required": ["location", "unit"],
                "additionalProperties": false
            })
        );
        let what: Vec<_> = warnings
            .iter()
            .map(|w| (w.pointer.as_str(), &*w.feature, w.action))
            .collect();
        assert_eq!(
            what,
            [
                (
                    "/inputSchema/additionalProperties",
                    "additionalProperties",
                    Action::Narrowed
                ),
                (
                    "/inputSchema/properties/unit",
                    "required",
                    Action::Rewritten { exact: false }
                ),
            ]
        );
    }

    #[test]
    fn the_required_list_keeps_its_order_and_loses_only_what_is_not_a_property() {
        let object = |properties: &[&str], required: Option<Value>| {
            let mut schema = json!({"type": "object", "additionalProperties": false});
            schema["properties"] = properties
                .iter()
                .map(|name| ((*name).to_owned(), json!({"type": "string"})))
                .collect::<Map<_, _>>()
                .into();
            if let Some(required) = required {
                schema["required"] = required;
            }
            schema
        };
        // Every property listed: the list stays as it was, a repeated name included.
        let (out, warnings) = openai_ok(object(&["a"], Some(json!(["a", "a"]))));
        assert_eq!(out["required"], json!(["a", "a"]));
        assert!(warnings.is_empty(), "{warnings:?}");
        // An optional property: appended after the listed ones, which lose their repeats.
        let (out, _) = openai_ok(object(&["a", "b", "c"], Some(json!(["c", "a", "c"]))));
        assert_eq!(out["required"], json!(["c", "a", "b"]));
        // A name that is no property: dropped, with a warning naming it.
        let (out, warnings) = openai_ok(object(&["a"], Some(json!(["zz", "a"]))));
        assert_eq!(out["required"], json!(["a"]));
        assert!(
            warnings
                .iter()
                .any(|warning| warning.pointer == "/inputSchema/required"
                    && warning.detail.contains(r#"["zz"]"#)),
            "{warnings:?}"
        );
        // No list: every property, in the order of `properties`.
        let (out, _) = openai_ok(object(&["b", "a"], None));
        assert_eq!(out["required"], json!(["a", "b"]));
        // A long list (looked up in a set), repeated names and one missing.
        let names: Vec<String> = (0..10).map(|n| format!("p{n}")).collect();
        let mut listed: Vec<Value> = names.iter().map(|n| json!(n)).collect();
        listed.push(json!("p0"));
        let mut properties: Vec<&str> = names.iter().map(String::as_str).collect();
        properties.push("q");
        let (out, _) = openai_ok(object(&properties, Some(Value::Array(listed))));
        let mut expected: Vec<Value> = names.iter().map(|n| json!(n)).collect();
        expected.push(json!("q"));
        assert_eq!(out["required"], Value::Array(expected));
    }

    #[test]
    fn an_already_strict_schema_is_unchanged() {
        let strict = json!({
            "type": "object",
            "properties": {"q": {"type": "string", "pattern": "^a", "format": "email"}, "n": {"type": ["integer", "null"], "minimum": 1}},
            "required": ["q", "n"],
            "additionalProperties": false
        });
        let (out, warnings) = openai_ok(strict.clone());
        assert_eq!(out, strict);
        assert!(warnings.is_empty(), "{warnings:?}");
    }

    #[test]
    fn open_objects_are_errors_naming_where() {
        for (schema, pointer) in [
            (
                json!({"type": "object", "properties": {"meta": {"type": "object"}}}),
                "/inputSchema/properties/meta",
            ),
            (
                json!({"type": "object", "properties": {"m": {"type": "object", "additionalProperties": {"type": "string"}}}}),
                "/inputSchema/properties/m/additionalProperties",
            ),
            (
                json!({"type": "object", "additionalProperties": true}),
                "/inputSchema/additionalProperties",
            ),
        ] {
            for provider in [Provider::OpenAi, Provider::Anthropic] {
                let (out, _) = run(provider, schema.clone(), &ConvertOptions::default());
                match out {
                    Err(Error::Conversion {
                        pointer: p, reason, ..
                    }) => {
                        assert_eq!(p, pointer);
                        assert!(
                            reason.contains("additionalProperties") || reason.contains("any keys"),
                            "{reason}"
                        );
                    }
                    other => panic!("expected an error at {pointer}, got {other:?}"),
                }
            }
        }
    }

    #[test]
    fn untyped_and_boolean_schemas_are_errors() {
        let (out, _) = run(
            Provider::OpenAi,
            json!({"type": "object", "properties": {"x": {"description": "anything"}}}),
            &ConvertOptions::default(),
        );
        assert!(
            matches!(out, Err(Error::Conversion { pointer, .. }) if pointer == "/inputSchema/properties/x")
        );
        let (out, _) = run(
            Provider::OpenAi,
            json!({"type": "object", "properties": {"x": true}}),
            &ConvertOptions::default(),
        );
        assert!(
            matches!(out, Err(Error::Conversion { pointer, .. }) if pointer == "/inputSchema/properties/x")
        );
        let (out, _) = run(
            Provider::Anthropic,
            json!({"type": "object", "oneOf": [{"required": ["a"]}]}),
            &ConvertOptions::default(),
        );
        assert!(
            matches!(out, Err(Error::Conversion { pointer, .. }) if pointer == "/inputSchema/oneOf")
        );
    }

    #[test]
    fn unsupported_keywords_move_to_the_description() {
        let (out, warnings) = openai_ok(json!({
            "type": "object",
            "properties": {"name": {"type": "string", "minLength": 2, "description": "Who", "default": "x", "examples": ["a"]}},
            "required": ["name"],
            "additionalProperties": false
        }));
        assert_eq!(
            out["properties"]["name"],
            json!({"type": "string", "description": "Who\n\n{\"default\":\"x\",\"minLength\":2}"})
        );
        let actions: Vec<_> = warnings.iter().map(|w| (&*w.feature, w.action)).collect();
        assert_eq!(
            actions,
            [
                ("default", Action::MovedToDescription),
                ("examples", Action::Dropped { widened: false }),
                ("minLength", Action::MovedToDescription),
            ]
        );
        let (out, _) = run(
            Provider::OpenAi,
            json!({"type": "object", "properties": {"s": {"type": "string", "minLength": 2}}, "required": ["s"], "additionalProperties": false}),
            &ConvertOptions::default().with_constraints_to_description(false),
        );
        assert_eq!(out.unwrap()["properties"]["s"], json!({"type": "string"}));
    }

    #[test]
    fn one_of_becomes_any_of_with_honest_exactness() {
        let (out, warnings) = openai_ok(json!({
            "type": "object",
            "properties": {"v": {"oneOf": [{"type": "string"}, {"type": "integer"}]}, "w": {"oneOf": [{"type": "number"}, {"type": "integer"}]}},
            "required": ["v", "w"],
            "additionalProperties": false
        }));
        assert_eq!(
            out["properties"]["v"],
            json!({"anyOf": [{"type": "string"}, {"type": "integer"}]})
        );
        let exactness = pointers_and_actions(&warnings);
        assert_eq!(
            exactness,
            [
                (
                    "/inputSchema/properties/v/oneOf",
                    Action::Rewritten { exact: true }
                ),
                (
                    "/inputSchema/properties/w/oneOf",
                    Action::Rewritten { exact: false }
                ),
            ]
        );
    }

    #[test]
    fn all_of_is_merged_or_refused() {
        let (out, _) = openai_ok(json!({
            "type": "object",
            "allOf": [{"properties": {"a": {"type": "string"}}, "required": ["a"]}, {"properties": {"b": {"type": "integer"}}, "required": ["b"]}]
        }));
        assert_eq!(
            out,
            json!({
                "type": "object",
                "properties": {"a": {"type": "string"}, "b": {"type": "integer"}},
                "required": ["a", "b"],
                "additionalProperties": false
            })
        );
        let conflicting = json!({"type": "object", "properties": {"n": {"type": "integer", "allOf": [{"minimum": 1}, {"minimum": 2}]}}});
        let (out, _) = run(
            Provider::OpenAi,
            conflicting.clone(),
            &ConvertOptions::default(),
        );
        assert!(
            matches!(out, Err(Error::Conversion { pointer, .. }) if pointer == "/inputSchema/properties/n/allOf")
        );
        let (out, warnings) = run(
            Provider::OpenAi,
            conflicting,
            &ConvertOptions::default().with_allow_widening(true),
        );
        assert_eq!(
            out.unwrap()["properties"]["n"],
            json!({"type": ["integer", "null"]})
        );
        assert!(
            warnings
                .iter()
                .any(|w| w.feature == "allOf" && w.action == Action::Dropped { widened: true })
        );
    }

    #[test]
    fn references_are_inlined_and_recursion_kept() {
        let (out, _) = openai_ok(json!({
            "type": "object",
            "properties": {
                "a": {"$ref": "#/$defs/node", "description": "the head"},
                "b": {"$ref": "#/$defs/node"}
            },
            "required": ["a", "b"],
            "$defs": {"node": {"type": "object", "properties": {"next": {"$ref": "#/$defs/node"}, "v": {"type": "integer"}}, "required": ["v"]}}
        }));
        // Every reference that is not recursive is inlined, with or without siblings; the
        // recursive one inside each copy stays.
        assert_eq!(
            out["properties"]["b"]["properties"]["next"],
            json!({"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]})
        );
        assert_eq!(out["properties"]["a"]["description"], json!("the head"));
        assert_eq!(
            out["properties"]["a"]["properties"]["next"],
            json!({"anyOf": [{"$ref": "#/$defs/node"}, {"type": "null"}]})
        );
        assert_eq!(out["$defs"]["node"]["required"], json!(["v", "next"]));
    }

    #[test]
    fn anthropic_keeps_optional_properties_and_refuses_recursion() {
        let (out, warnings) = run(
            Provider::Anthropic,
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0}, "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "maxItems": 3}}}),
            &ConvertOptions::default(),
        );
        assert_eq!(
            out.unwrap(),
            json!({
                "type": "object",
                "properties": {
                    "n": {"type": "integer", "description": "{\"minimum\":0}"},
                    "tags": {"type": "array", "items": {"type": "string"}, "minItems": 1, "description": "{\"maxItems\":3}"}
                },
                "additionalProperties": false
            })
        );
        assert_eq!(warnings.len(), 3);
        let recursive = json!({"type": "object", "properties": {"child": {"$ref": "#"}}});
        let (out, _) = run(
            Provider::Anthropic,
            recursive,
            &ConvertOptions::default().with_allow_widening(true),
        );
        assert!(
            matches!(out, Err(Error::RecursiveSchema { pointer, .. }) if pointer == "/inputSchema/properties/child/$ref")
        );
        // Recursion through an array item (an `anyOf` branch) is found too.
        let through_branch = json!({"type": "object", "properties": {"a": {"anyOf": [
            {"type": "null"},
            {
                "type": "object",
                "properties": {"next": {"$ref": "#/properties/a/anyOf/1"}},
                "additionalProperties": false
            }
        ]}}});
        let (out, _) = run(
            Provider::Anthropic,
            through_branch,
            &ConvertOptions::default(),
        );
        assert!(
            matches!(&out, Err(Error::RecursiveSchema { pointer, .. }) if pointer == "/inputSchema/properties/a/anyOf/1/properties/next/$ref"),
            "{out:?}"
        );
    }

    #[test]
    fn anthropic_regex_subset() {
        assert!(has_unsupported_regex(r"(a)\1"));
        assert!(has_unsupported_regex(r"^(?=a)"));
        assert!(has_unsupported_regex(r"\bword"));
        assert!(has_unsupported_regex(r"(?<!x)y"));
        assert!(!has_unsupported_regex(r"^[a-z]+\d{2}(?:x|y)$"));
        assert!(!has_unsupported_regex(r"\\b"));
    }

    #[test]
    fn malformed_keyword_values_are_errors() {
        let (out, _) = run(
            Provider::OpenAi,
            json!({"type": "object", "properties": {"n": {"type": "integer", "minimum": 0, "exclusiveMinimum": true}}}),
            &ConvertOptions::default(),
        );
        assert!(matches!(out, Err(Error::Conversion { pointer, reason, .. })
            if pointer == "/inputSchema/properties/n/exclusiveMinimum" && reason.contains("draft-04")));
    }

    #[test]
    fn limits_are_checked() {
        let mut schema = json!({"type": "string"});
        for _ in 0..11 {
            schema = json!({"type": "object", "properties": {"x": schema}, "required": ["x"], "additionalProperties": false});
        }
        let (out, _) = run(Provider::OpenAi, schema, &ConvertOptions::default());
        assert!(
            matches!(out, Err(Error::Conversion { reason, .. }) if reason.contains("nest 11 levels"))
        );
    }
}
