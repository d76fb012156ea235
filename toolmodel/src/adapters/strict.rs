//! The strict-mode transforms: OpenAI Structured Outputs (`strict: true` on a function) and
//! Anthropic strict tool use (`strict: true` on a tool).
//!
//! Both providers decode under a grammar built from the schema, so they accept only a subset of
//! JSON Schema and require every object to be closed. The transforms rewrite what has an exact
//! or documented equivalent, move unsupported constraints into the description (or drop them,
//! see [`ConvertOptions::constraints_to_description`](super::ConvertOptions::constraints_to_description)),
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
//! | inlines a `$ref` that has sibling keywords | the same (through [`refs`](super::refs), within the budget) |
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

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::{
    Action,
    combinators::{
        branch_matches_nothing, drop_any_of_branches_matching_nothing, matches_nothing, merge,
        pairwise_disjoint,
    },
    context::{Ctx, JSON_TYPES, Moved, has_type, instance_type, write_moved},
    keywords::is_annotation,
    refs::{self, Mode, OnCycle},
};
use crate::Error;

/// Whether OpenAI strict mode takes `keyword`: OpenAI Structured Outputs, "Supported schemas"
/// (platform.openai.com/docs/guides/structured-outputs, read 2026-11-21): types string, number,
/// boolean, integer, object, array, enum, anyOf (and null through type lists or anyOf); string
/// `pattern`, `format`; number `multipleOf`, `maximum`, `exclusiveMaximum`, `minimum`,
/// `exclusiveMinimum`; array `minItems`, `maxItems`; definitions (`$defs`) and references
/// (`$ref`, recursion included); `additionalProperties` must be `false`; every property
/// `required`. Not supported: `allOf`, `not`, `dependentRequired`, `dependentSchemas`, `if`,
/// `then`, `else` (and, by omission from the supported list, every other keyword). `title` and
/// `description` are annotations the API takes; `const` counts against the documented size
/// limits, so it is supported.
fn openai_supports(keyword: Kw) -> bool {
    !matches!(
        keyword,
        Kw::AllOf | Kw::OneOf | Kw::Not | Kw::Default | Kw::Other
    )
}

/// OpenAI Structured Outputs string formats (same source and date).
const OPENAI_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "ipv4",
    "ipv6",
    "uuid",
];

/// OpenAI Structured Outputs size limits (same source and date): object properties in total,
/// levels of object nesting, enum values in total.
const OPENAI_MAX_PROPERTIES: usize = 5000;
const OPENAI_MAX_NESTING: usize = 10;
const OPENAI_MAX_ENUM_VALUES: usize = 1000;

/// Whether Anthropic strict tool use takes `keyword`: what `transform_schema`
/// (anthropic-sdk-python, `lib/_parse/_transform.py`, read 2026-11-21) keeps, plus `const`
/// (documented as supported): `type`, `enum` (primitive values), `anyOf`, `oneOf` (as `anyOf`),
/// `allOf`, `$ref`, `$defs`, `properties`, `required`, `additionalProperties: false`, `items`,
/// `minItems` 0 or 1, `format` (listed below), `title`, `description`; `pattern` per the
/// documentation (no backreferences, lookaround or word boundaries). Everything else is moved
/// into the description, `default` included.
fn anthropic_supports(keyword: Kw) -> bool {
    !matches!(
        keyword,
        Kw::OneOf
            | Kw::Not
            | Kw::MultipleOf
            | Kw::Maximum
            | Kw::ExclusiveMaximum
            | Kw::Minimum
            | Kw::ExclusiveMinimum
            | Kw::MaxItems
            | Kw::Default
            | Kw::Other
    )
}

/// The keywords the strict steps tell apart, each spelled once ([`Kw::of`]) so that a schema
/// object's keys are compared as strings once per pass.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kw {
    Type,
    Enum,
    Const,
    AnyOf,
    AllOf,
    OneOf,
    Not,
    Ref,
    Defs,
    Definitions,
    Properties,
    Required,
    AdditionalProperties,
    Items,
    Title,
    Description,
    Pattern,
    Format,
    MultipleOf,
    Maximum,
    ExclusiveMaximum,
    Minimum,
    ExclusiveMinimum,
    MinItems,
    MaxItems,
    Default,
    /// Any other keyword, which neither provider takes.
    Other,
}

impl Kw {
    fn of(keyword: &str) -> Self {
        match keyword {
            "type" => Self::Type,
            "enum" => Self::Enum,
            "const" => Self::Const,
            "anyOf" => Self::AnyOf,
            "allOf" => Self::AllOf,
            "oneOf" => Self::OneOf,
            "not" => Self::Not,
            "$ref" => Self::Ref,
            "$defs" => Self::Defs,
            "definitions" => Self::Definitions,
            "properties" => Self::Properties,
            "required" => Self::Required,
            "additionalProperties" => Self::AdditionalProperties,
            "items" => Self::Items,
            "title" => Self::Title,
            "description" => Self::Description,
            "pattern" => Self::Pattern,
            "format" => Self::Format,
            "multipleOf" => Self::MultipleOf,
            "maximum" => Self::Maximum,
            "exclusiveMaximum" => Self::ExclusiveMaximum,
            "minimum" => Self::Minimum,
            "exclusiveMinimum" => Self::ExclusiveMinimum,
            "minItems" => Self::MinItems,
            "maxItems" => Self::MaxItems,
            "default" => Self::Default,
            _ => Self::Other,
        }
    }
}

/// Anthropic strict string formats (`SupportedStringFormats` in the same file).
const ANTHROPIC_FORMATS: &[&str] = &[
    "date-time",
    "time",
    "date",
    "duration",
    "email",
    "hostname",
    "uri",
    "ipv4",
    "ipv6",
    "uuid",
];

#[derive(Clone, Copy, PartialEq, Eq)]
enum Provider {
    OpenAi,
    Anthropic,
}

impl Provider {
    fn supports(self, keyword: &str) -> bool {
        self.takes(Kw::of(keyword))
    }

    fn takes(self, keyword: Kw) -> bool {
        match self {
            Self::OpenAi => openai_supports(keyword),
            Self::Anthropic => anthropic_supports(keyword),
        }
    }

    const fn formats(self) -> &'static [&'static str] {
        match self {
            Self::OpenAi => OPENAI_FORMATS,
            Self::Anthropic => ANTHROPIC_FORMATS,
        }
    }

    const fn name(self) -> &'static str {
        match self {
            Self::OpenAi => "OpenAI strict mode",
            Self::Anthropic => "Anthropic strict tool use",
        }
    }

    /// The sentence of a warning, "<the provider's name> <what>", spelled once per provider
    /// so that the warning borrows it.
    const fn says(self, what: Says) -> &'static str {
        match (self, what) {
            (Self::OpenAi, Says::NoDefault) => "OpenAI strict mode does not take default",
            (Self::OpenAi, Says::NoKeyword) => "OpenAI strict mode does not take this keyword",
            (Self::OpenAi, Says::Unsupported) => "OpenAI strict mode does not support this keyword",
            (Self::OpenAi, Says::NoFormat) => "OpenAI strict mode does not support this format",
            (Self::Anthropic, Says::NoDefault) => "Anthropic strict tool use does not take default",
            (Self::Anthropic, Says::NoKeyword) => {
                "Anthropic strict tool use does not take this keyword"
            }
            (Self::Anthropic, Says::Unsupported) => {
                "Anthropic strict tool use does not support this keyword"
            }
            (Self::Anthropic, Says::NoFormat) => {
                "Anthropic strict tool use does not support this format"
            }
        }
    }
}

/// What a warning of the strict transform says ([`Provider::says`]).
#[derive(Clone, Copy)]
enum Says {
    NoDefault,
    NoKeyword,
    Unsupported,
    NoFormat,
}

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
    ctx: &mut Ctx<'_>,
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
    ctx: &mut Ctx<'_>,
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
    fn check_openai_limits(&self, ctx: &Ctx<'_>) -> Result<(), Error> {
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
    ctx: &mut Ctx<'_>,
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
    ctx: &mut Ctx<'_>,
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
                    tally.deepest.1 = ctx.pointer().to_owned();
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

/// Branches that match no value (`false`, `{"not": {}}`): removed from an `anyOf` (exact);
/// an error in an `allOf`, or when every `anyOf` branch is one, as strict mode has no schema
/// that matches nothing.
fn drop_branches_matching_nothing(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_>,
    provider: Provider,
) -> Result<(), Error> {
    let all_of_never = matches!(map.get("allOf"), Some(Value::Array(branches))
        if branches.iter().any(branch_matches_nothing));
    if drop_any_of_branches_matching_nothing(map, ctx) || all_of_never {
        let at = if all_of_never { "allOf" } else { "anyOf" };
        return Err(ctx.error(
            Some(at),
            format!(
                "this schema matches no value; {} has no schema that matches nothing",
                provider.name()
            ),
        ));
    }
    Ok(())
}

/// Anthropic: a `type` list written as an `anyOf` of one branch per type, each with the
/// keywords that apply to its type (and the `enum` / `const` values of its type); the rest
/// (annotations, keywords for every type) stays around it. Exact. Anthropic's
/// `transform_schema` refuses type lists.
fn split_type_list(map: &mut Map<String, Value>, ctx: &mut Ctx<'_>) {
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
const TYPE_SPECIFIC: &[(&[&str], &[&str])] = &[
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
fn type_into_branches(map: &mut Map<String, Value>, ctx: &mut Ctx<'_>) {
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

/// Keyword values the provider restricts further than JSON Schema does.
fn check_values(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_>,
    provider: Provider,
    moved: &mut Moved,
) {
    if let Some(Value::String(format)) = map.get("format")
        && !provider.formats().contains(&format.as_str())
    {
        ctx.move_or_drop(map, "format", moved, provider.says(Says::NoFormat));
    }
    if matches!(map.get("items"), Some(Value::Array(_))) {
        ctx.move_or_drop(
            map,
            "items",
            moved,
            "tuple items (an array of schemas) are not supported",
        );
    }
    if provider == Provider::Anthropic {
        if let Some(min) = map.get("minItems")
            && !matches!(min.as_u64(), Some(0 | 1))
        {
            ctx.move_or_drop(
                map,
                "minItems",
                moved,
                "Anthropic strict tool use supports minItems 0 and 1 only",
            );
        }
        if let Some(Value::String(pattern)) = map.get("pattern")
            && has_unsupported_regex(pattern)
        {
            ctx.move_or_drop(map, "pattern", moved, "Anthropic strict tool use does not support backreferences, lookaround or word boundaries in patterns");
        }
        if let Some(Value::Array(values)) = map.get("enum")
            && values
                .iter()
                .any(|v| matches!(v, Value::Array(_) | Value::Object(_)))
        {
            ctx.move_or_drop(
                map,
                "enum",
                moved,
                "Anthropic strict tool use supports enum values of primitive types only",
            );
        }
    }
}

/// The values of the keywords a strict schema keeps must have the shape JSON Schema gives them;
/// a strict schema is sent as it is, so a malformed one is an error here rather than a
/// rejection by the provider.
fn check_shapes(map: &Map<String, Value>, ctx: &Ctx<'_>) -> Result<(), Error> {
    for (keyword, value) in map {
        if let Some(expected) = misshapen(Kw::of(keyword), value) {
            return Err(ctx.error(
                Some(keyword),
                format!("{value} is not valid here: {keyword} must be {expected}"),
            ));
        }
    }
    Ok(())
}

/// What `keyword` must hold when `value` is not of that shape (the shapes the strict steps
/// rely on), `None` when it is, or when the keyword is not one of those.
fn misshapen(keyword: Kw, value: &Value) -> Option<&'static str> {
    Some(match keyword {
        Kw::Minimum | Kw::Maximum | Kw::ExclusiveMinimum | Kw::ExclusiveMaximum
            if !value.is_number() =>
        {
            "a number (draft-04's boolean exclusiveMinimum/exclusiveMaximum is not JSON Schema 2020-12 or draft-07)"
        }
        Kw::MultipleOf if value.as_f64().is_none_or(|n| n <= 0.0) => "a number greater than 0",
        Kw::MinItems | Kw::MaxItems if value.as_u64().is_none() => "a non-negative integer",
        Kw::Pattern | Kw::Format | Kw::Title | Kw::Description if !value.is_string() => "a string",
        Kw::Enum if !value.is_array() => "an array",
        Kw::Required
            if !value
                .as_array()
                .is_some_and(|names| names.iter().all(Value::is_string)) =>
        {
            "an array of strings"
        }
        Kw::Properties | Kw::Defs | Kw::Definitions if !value.is_object() => "an object of schemas",
        Kw::AnyOf | Kw::AllOf if value.as_array().is_none_or(Vec::is_empty) => {
            "a non-empty array of schemas"
        }
        Kw::Items if !(value.is_object() || value.is_boolean()) => "a schema",
        Kw::Ref if !value.is_string() => "a string",
        _ => return None,
    })
}

fn has_unsupported_regex(pattern: &str) -> bool {
    let mut chars = pattern.chars().peekable();
    let mut escaped = false;
    let mut previous = '\0';
    while let Some(ch) = chars.next() {
        if escaped {
            if ch.is_ascii_digit() && ch != '0' || ch == 'b' || ch == 'B' || ch == 'k' {
                return true;
            }
            escaped = false;
        } else if ch == '\\' {
            escaped = true;
        } else if previous == '(' && ch == '?' && matches!(chars.peek(), Some('=' | '!' | '<')) {
            return true;
        }
        previous = ch;
    }
    false
}

fn merge_all_of(map: &mut Map<String, Value>, ctx: &mut Ctx<'_>) -> Result<(), Error> {
    let Some(all_of) = map.remove("allOf") else {
        return Ok(());
    };
    let mut merged = map.clone();
    let mut failure = None;
    match &all_of {
        Value::Array(branches) => {
            for (index, branch) in branches.iter().enumerate() {
                match branch {
                    Value::Object(branch) => {
                        if let Err(conflict) = merge(&mut merged, branch.clone()) {
                            failure =
                                Some(format!("branch {index} conflicts on {}", conflict.keyword));
                            break;
                        }
                    }
                    Value::Bool(true) => {}
                    _ => {
                        failure = Some(format!("branch {index} is not a schema object"));
                        break;
                    }
                }
            }
        }
        _ => failure = Some("allOf is not an array".into()),
    }
    match failure {
        None => {
            *map = merged;
            ctx.warn(Some("allOf"), "allOf", Action::Rewritten { exact: true }, "branches merged into the schema object");
            Ok(())
        }
        Some(why) if ctx.options.allow_widening => {
            ctx.warn(
                Some("allOf"),
                "allOf",
                Action::Dropped { widened: true },
                format!("OpenAI strict mode does not support allOf and the branches cannot be merged exactly ({why})"),
            );
            Ok(())
        }
        Some(why) => Err(ctx.error(
            Some("allOf"),
            format!("OpenAI strict mode does not support allOf and the branches cannot be merged exactly ({why}); allow widening to drop it"),
        )),
    }
}

fn one_of_to_any_of(map: &mut Map<String, Value>, ctx: &mut Ctx<'_>) -> Result<(), Error> {
    let Some(one_of) = map.remove("oneOf") else {
        return Ok(());
    };
    if map.contains_key("anyOf") {
        if ctx.options.allow_widening {
            ctx.warn(
                Some("oneOf"),
                "oneOf",
                Action::Dropped { widened: true },
                "next to anyOf, which strict mode cannot combine with it",
            );
            return Ok(());
        }
        return Err(ctx.error(
            Some("oneOf"),
            "oneOf next to anyOf cannot be expressed in strict mode; allow widening to drop it",
        ));
    }
    let exact = matches!(&one_of, Value::Array(branches) if pairwise_disjoint(branches));
    let detail = if exact {
        "written as anyOf: the branches cannot overlap, so the meaning is the same"
    } else {
        "written as anyOf: the branches may overlap, so an instance matching several is now accepted"
    };
    ctx.warn(Some("oneOf"), "oneOf", Action::Rewritten { exact }, detail);
    map.insert("anyOf".into(), one_of);
    Ok(())
}

/// Strict schemas need a type: one is added from `enum` or `const` values; a schema with no
/// `type`, `anyOf`, `allOf`, `$ref`, `enum` or `const` accepts any value and is an error.
fn infer_type(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_>,
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

fn is_object(map: &Map<String, Value>) -> bool {
    has_type(map, "object") || (!map.contains_key("type") && map.contains_key("properties"))
}

/// Closes an object schema (`additionalProperties: false`), as strict mode needs.
///
/// One rule, by meaning: an object whose properties are listed is closed, a narrowing (keys
/// beyond them are no longer accepted). An object that lists no properties (no `properties`,
/// or `"properties": {}`; both accept any object) would accept only `{}` once closed: below
/// the root that field could no longer carry what it carried, so it is an error. At the root
/// it is MCP's spelling of a tool without parameters (`{"type": "object"}`, MCP 2025-11-25
/// "Tools", `inputSchema`), closed with a warning that the tool then takes no arguments.
fn close_object(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_>,
    provider: Provider,
    is_root: bool,
) -> Result<(), Error> {
    let listed = matches!(map.get("properties"), Some(Value::Object(p)) if !p.is_empty());
    match map.get("additionalProperties") {
        Some(Value::Bool(false)) => Ok(()),
        None if listed || is_root => {
            map.insert("additionalProperties".into(), Value::Bool(false));
            let detail = if listed {
                "object closed (additionalProperties: false): keys other than its properties are no longer accepted"
            } else {
                "root object without properties closed (additionalProperties: false): the tool takes no arguments"
            };
            ctx.warn(Some("additionalProperties"), "additionalProperties", Action::Narrowed, detail);
            Ok(())
        }
        None => Err(ctx.error(
            None,
            format!("an object that lists no properties and has no additionalProperties accepts any keys; {} needs every object closed, and closed it would accept only {{}}", provider.name()),
        )),
        Some(_) => Err(ctx.error(
            Some("additionalProperties"),
            format!("this object accepts keys beyond its properties; {} needs additionalProperties: false", provider.name()),
        )),
    }
}

fn recurse(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_>,
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
    ctx: &mut Ctx<'_>,
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

/// OpenAI: every property required; each optional one made nullable. Linear in the number of
/// properties: the required names are looked up in a set.
fn require_all(map: &mut Map<String, Value>, ctx: &mut Ctx<'_>) {
    // Both places reached in one pass over the keywords, and changed where they are.
    let (mut properties, mut listed) = (None, None);
    for (keyword, value) in map.iter_mut() {
        match keyword.as_str() {
            "properties" => properties = Some(value),
            "required" => listed = Some(value),
            _ => {}
        }
    }
    let Some(Value::Object(properties)) = properties else {
        return;
    };
    let listed: Option<&mut Vec<Value>> = match listed {
        Some(Value::Array(list)) => Some(list),
        Some(_) => return,
        None => None,
    };
    let listed_names: &[Value] = listed.as_deref().map_or(&[], Vec::as_slice);
    let mut required: Vec<Value> = Vec::with_capacity(properties.len());
    // A set only when the list is long enough for lookups in it to matter (linear either way).
    let short = listed_names.len() <= 8;
    let mut named: HashSet<&str> = if short {
        HashSet::default()
    } else {
        HashSet::with_capacity(listed_names.len())
    };
    let mut stray: Vec<Value> = Vec::new();
    for (index, name) in listed_names.iter().enumerate() {
        match name.as_str() {
            Some(text) if properties.contains_key(text) => {
                let seen = if short {
                    listed_names
                        .iter()
                        .take(index)
                        .any(|n| n.as_str() == Some(text))
                } else {
                    !named.insert(text)
                };
                if !seen {
                    required.push(name.clone());
                }
            }
            _ => stray.push(name.clone()),
        }
    }
    let is_listed = |name: &str| {
        if short {
            listed_names.iter().any(|n| n.as_str() == Some(name))
        } else {
            named.contains(name)
        }
    };
    let mut changed = !stray.is_empty();
    if !stray.is_empty() {
        ctx.warn(
            Some("required"),
            "required",
            Action::Dropped { widened: true },
            format!(
                "{} named in required but not among the properties of this closed object",
                Value::from(stray)
            ),
        );
    }
    let mark = ctx.enter("properties");
    for (name, schema) in properties.iter_mut() {
        if is_listed(name) {
            continue;
        }
        required.push(Value::from(name.as_str()));
        changed = true;
        ctx.deepened |= make_nullable(schema);
        ctx.warn(
            Some(name),
            "required",
            Action::Rewritten { exact: false },
            "optional property made required and nullable: the model sends null where it would have left it out",
        );
    }
    ctx.leave(mark);
    drop(named);
    if !changed {
        return;
    }
    match listed {
        Some(list) => *list = required,
        None => {
            map.insert("required".into(), Value::Array(required));
        }
    }
}

/// Makes a (strict-normalized) schema accept `null` as well. Returns whether it wrapped the
/// schema in an `anyOf` (two levels deeper).
fn make_nullable(schema: &mut Value) -> bool {
    let Value::Object(map) = schema else {
        return false;
    };
    let null = Value::Null;
    if map.contains_key("$ref") {
        let mut inner = std::mem::take(map);
        for keyword in ["title", "description"] {
            if let Some(value) = inner.remove(keyword) {
                map.insert(keyword.into(), value);
            }
        }
        let null_branch = serde_json::json!({"type": "null"});
        map.insert(
            "anyOf".into(),
            Value::Array(vec![Value::Object(inner), null_branch]),
        );
        return true;
    }
    if let Some(value) = map.remove("const") {
        map.insert("enum".into(), Value::Array(vec![value]));
    }
    if let Some(Value::Array(values)) = map.get_mut("enum")
        && !values.contains(&null)
    {
        values.push(null);
    }
    match map.get_mut("type") {
        Some(ty @ Value::String(_)) if ty.as_str() != Some("null") => {
            let name = std::mem::take(ty);
            *ty = Value::Array(vec![name, Value::from("null")]);
        }
        Some(Value::Array(names)) if !names.iter().any(|n| n.as_str() == Some("null")) => {
            names.push(Value::from("null"))
        }
        Some(_) => {}
        None => {
            if let Some(Value::Array(branches)) = map.get_mut("anyOf")
                && !branches
                    .iter()
                    .any(|b| b.get("type").and_then(Value::as_str) == Some("null"))
            {
                branches.push(serde_json::json!({"type": "null"}));
            }
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapters::{
        ConvertOptions, Target, Warning,
        context::{pointers_and_actions, run_transform},
    };
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
