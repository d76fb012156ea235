//! The deepest instance a schema accepts, worked out once when the schema is compiled, so that
//! [`CompiledSchema`](crate::validate::CompiledSchema) can leave out its instance depth check
//! for instances the schema accepts: an accepted instance is then known to be within the
//! limit.
//!
//! [`accepted_depth`] gives a bound only when both hold:
//!
//! 1. **Every instance the schema accepts nests at most that many levels.** The bound is an
//!    upper bound computed from the keywords below; a keyword not listed is left out, which
//!    can only make the bound larger (an instance must satisfy every keyword of its schema, so
//!    a bound from some of them holds for all of them):
//!    - a `false` schema accepts nothing (bound 0); `true` and `{}` accept any depth;
//!    - `type` without `"array"` and `"object"`: 0;
//!    - `const`, or `enum`: the depth of the value, or of the deepest value;
//!    - objects: 1 + the largest bound of `properties`, `patternProperties` and
//!      `additionalProperties`, and only with `additionalProperties` (without it a member
//!      that no other keyword names may be anything);
//!    - arrays: 1 + the largest bound of `prefixItems`, `items` and, after an array of
//!      `items` (draft-07), `additionalItems`; unbounded without `items`, or after an array
//!      of `items` without `additionalItems`. Reading `prefixItems` in a draft-07 schema (which
//!      ignores it) only makes the bound larger;
//!    - the smallest bound of the keywords above and of each `allOf` member; for `anyOf` and
//!      `oneOf`, the largest bound of their members.
//! 2. **Validating any instance recurses only as deep as the schema**, whatever the instance's
//!    depth: the schema holds no reference (`$ref`, `$dynamicRef`, `$recursiveRef`), through
//!    which validation may follow the instance down without end, and no `uniqueItems`, which
//!    compares array items as deep as they go. `const` and `enum` compare no deeper than their
//!    own values.

use serde_json::{Map, Value};

use crate::validate::limits::nesting;

/// Keywords that make validation follow the instance deeper than the schema (see the module
/// docs, condition 2).
const UNBOUNDED_WALK: [&str; 4] = ["$ref", "$dynamicRef", "$recursiveRef", "uniqueItems"];

/// The most levels of nesting of any instance `schema` accepts, when validating any instance
/// against it recurses only as deep as the schema; `None` otherwise (see the module docs).
/// `schema` has been checked to nest at most `ValidationLimits::max_depth` levels, which bounds
/// this module's recursion.
pub(crate) fn accepted_depth(schema: &Value) -> Option<usize> {
    if walk_bounded(schema) {
        bound(schema).finite()
    } else {
        None
    }
}

/// Whether no object anywhere in `value` has a key of [`UNBOUNDED_WALK`]: conservative, since
/// it looks at `const` and `enum` values and property names too.
fn walk_bounded(value: &Value) -> bool {
    match value {
        Value::Object(object) => object
            .iter()
            .all(|(key, value)| !UNBOUNDED_WALK.contains(&key.as_str()) && walk_bounded(value)),
        Value::Array(items) => items.iter().all(walk_bounded),
        _ => true,
    }
}

/// A bound on the depth of accepted instances, or none.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Bound {
    At(usize),
    Unbounded,
}

impl Bound {
    fn finite(self) -> Option<usize> {
        match self {
            Self::At(depth) => Some(depth),
            Self::Unbounded => None,
        }
    }

    fn max(self, other: Self) -> Self {
        match (self, other) {
            (Self::At(a), Self::At(b)) => Self::At(a.max(b)),
            _ => Self::Unbounded,
        }
    }

    fn min(self, other: Self) -> Self {
        match (self, other) {
            (Self::At(a), Self::At(b)) => Self::At(a.min(b)),
            (Self::At(a), Self::Unbounded) | (Self::Unbounded, Self::At(a)) => Self::At(a),
            (Self::Unbounded, Self::Unbounded) => Self::Unbounded,
        }
    }

    /// One level more: the container around members bounded by `self`.
    fn container(self) -> Self {
        match self {
            Self::At(depth) => Self::At(depth.saturating_add(1)),
            Self::Unbounded => Self::Unbounded,
        }
    }
}

/// The bound of a subschema (see the module docs, condition 1).
fn bound(schema: &Value) -> Bound {
    let object = match schema {
        Value::Bool(false) => return Bound::At(0),
        Value::Object(object) => object,
        _ => return Bound::Unbounded,
    };
    let mut found = shape(object);
    if let Some(value) = object.get("const") {
        found = found.min(Bound::At(nesting(value)));
    }
    if let Some(Value::Array(values)) = object.get("enum") {
        let deepest = values.iter().map(nesting).max().unwrap_or(0);
        found = found.min(Bound::At(deepest));
    }
    for member in members(object, "allOf") {
        found = found.min(bound(member));
    }
    for keyword in ["anyOf", "oneOf"] {
        if let Some(Value::Array(branches)) = object.get(keyword) {
            let any = branches.iter().map(bound).fold(Bound::At(0), Bound::max);
            found = found.min(any);
        }
    }
    found
}

/// The members of a keyword holding an array of subschemas (none when absent or not an array).
fn members<'a>(object: &'a Map<String, Value>, keyword: &str) -> std::slice::Iter<'a, Value> {
    match object.get(keyword) {
        Some(Value::Array(items)) => items.iter(),
        _ => [].iter(),
    }
}

/// The bound from `type` and the object and array keywords.
fn shape(object: &Map<String, Value>) -> Bound {
    let (objects, arrays) = match object.get("type") {
        Some(Value::String(name)) => (name == "object", name == "array"),
        Some(Value::Array(names)) => (
            names.iter().any(|name| name == "object"),
            names.iter().any(|name| name == "array"),
        ),
        _ => (true, true),
    };
    let mut found = Bound::At(0);
    if objects {
        let mut member = object
            .get("additionalProperties")
            .map_or(Bound::Unbounded, bound);
        for keyword in ["properties", "patternProperties"] {
            if let Some(Value::Object(subschemas)) = object.get(keyword) {
                member = subschemas.values().map(bound).fold(member, Bound::max);
            }
        }
        found = found.max(member.container());
    }
    if arrays {
        let item = match object.get("items") {
            Some(Value::Array(tuple)) => {
                let additional = object
                    .get("additionalItems")
                    .map_or(Bound::Unbounded, bound);
                tuple.iter().map(bound).fold(additional, Bound::max)
            }
            Some(items) => bound(items),
            None => Bound::Unbounded,
        };
        let item = members(object, "prefixItems")
            .map(bound)
            .fold(item, Bound::max);
        found = found.max(item.container());
    }
    found
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;
    use serde_json::json;

    use super::*;
    use crate::error::Error;
    use crate::validate::{ValidationLimits, validator::DefaultValidator};

    #[test]
    fn closed_schemas_bound_the_depth_of_what_they_accept() {
        let scalars = json!({
            "type": "object",
            "properties": {"a": {"type": "string"}, "b": {"type": "array", "items": {"type": "integer"}}},
            "additionalProperties": false
        });
        assert_eq!(accepted_depth(&scalars), Some(2));
        assert_eq!(accepted_depth(&json!({"const": [[1]]})), Some(2));
        assert_eq!(accepted_depth(&json!({"enum": [1, {"a": []}]})), Some(2));
        assert_eq!(
            accepted_depth(
                &json!({"anyOf": [{"type": "string"}, {"type": "array", "items": false}]})
            ),
            Some(1)
        );
        assert_eq!(
            accepted_depth(&json!({"allOf": [{"type": "string"}, {}]})),
            Some(0)
        );
    }

    #[test]
    fn open_schemas_and_unbounded_walks_give_no_bound() {
        for schema in [
            json!({}),
            json!({"type": "object", "properties": {"a": {"type": "string"}}}),
            json!({"type": "array"}),
            json!({"items": [{"type": "string"}]}),
            json!({"anyOf": [{"type": "string"}, {}]}),
            // Bounded, but validation may follow a reference or compare items without end.
            json!({"type": "string", "$defs": {"a": {"$ref": "#"}}}),
            json!({"type": "array", "items": {"type": "integer"}, "uniqueItems": true}),
            json!({"type": "string", "not": {"$ref": "#"}}),
        ] {
            assert_eq!(accepted_depth(&schema), None, "{schema}");
        }
    }

    /// Schemas of the keywords `accepted_depth` reads, nested a few levels, with references and
    /// `uniqueItems` now and then.
    fn schemas() -> impl Strategy<Value = Value> {
        let types = prop_oneof![
            Just(json!("string")),
            Just(json!("integer")),
            Just(json!("object")),
            Just(json!("array")),
            Just(json!(["object", "null"])),
            Just(json!(["array", "string"])),
        ];
        let leaf = prop_oneof![
            Just(json!(true)),
            Just(json!(false)),
            Just(json!({})),
            types.clone().prop_map(|name| json!({"type": name})),
            instances().prop_map(|value| json!({"const": value})),
            prop::collection::vec(instances(), 1..3).prop_map(|values| json!({"enum": values})),
        ];
        leaf.prop_recursive(4, 24, 3, move |inner| {
            let keys = prop::collection::btree_map("[ab]", inner.clone(), 0..3);
            prop_oneof![
                (
                    prop::option::of(types.clone()),
                    keys,
                    prop::option::of(inner.clone()),
                    prop::option::of(inner.clone()),
                )
                    .prop_map(|(name, properties, additional, pattern)| {
                        let mut schema = Map::new();
                        if let Some(name) = name {
                            schema.insert("type".into(), name);
                        }
                        schema.insert("properties".into(), json!(properties));
                        if let Some(additional) = additional {
                            schema.insert("additionalProperties".into(), additional);
                        }
                        if let Some(pattern) = pattern {
                            schema.insert("patternProperties".into(), json!({"^c": pattern}));
                        }
                        Value::Object(schema)
                    }),
                (
                    prop::option::of(types.clone()),
                    prop::collection::vec(inner.clone(), 0..2),
                    prop::option::of(inner.clone()),
                    any::<bool>(),
                )
                    .prop_map(|(name, prefix, items, unique)| {
                        let mut schema = Map::new();
                        if let Some(name) = name {
                            schema.insert("type".into(), name);
                        }
                        if !prefix.is_empty() {
                            schema.insert("prefixItems".into(), Value::Array(prefix));
                        }
                        if let Some(items) = items {
                            schema.insert("items".into(), items);
                        }
                        if unique {
                            schema.insert("uniqueItems".into(), json!(true));
                        }
                        Value::Object(schema)
                    }),
                (
                    prop_oneof![Just("allOf"), Just("anyOf"), Just("oneOf")],
                    prop::collection::vec(inner.clone(), 1..3),
                    prop::option::of(inner.clone()),
                )
                    .prop_map(|(keyword, members, beside)| {
                        let mut schema = match beside {
                            Some(Value::Object(beside)) => beside,
                            _ => Map::new(),
                        };
                        schema.insert(keyword.into(), Value::Array(members));
                        Value::Object(schema)
                    }),
                inner
                    .clone()
                    .prop_map(|inner| json!({"$defs": {"d": inner}, "$ref": "#/$defs/d"})),
                inner.prop_map(|inner| json!({"not": inner})),
            ]
        })
    }

    /// Instances of a few levels, with the keys the schemas name.
    fn instances() -> impl Strategy<Value = Value> {
        let leaf = prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::from),
            (0i64..3).prop_map(Value::from),
            "[ab]".prop_map(Value::from),
        ];
        leaf.prop_recursive(5, 24, 3, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..3).prop_map(Value::Array),
                prop::collection::btree_map("[abc]", inner, 0..3)
                    .prop_map(|map| Value::Object(map.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(2_000))]

        /// The bound holds: whatever a schema accepts nests at most `accepted_depth` levels.
        #[test]
        fn every_accepted_instance_is_within_the_bound(schema in schemas(), instance in instances()) {
            let validator = DefaultValidator::new();
            let Ok(compiled) = validator.compile(&schema) else { return Ok(()) };
            if let Some(bound) = accepted_depth(&schema)
                && compiled.is_valid(&instance)
            {
                prop_assert!(nesting(&instance) <= bound, "{schema} accepts {instance}");
            }
        }

        /// `validate` keeps its contract whether or not it checks the depth first: too deep is
        /// `InstanceTooDeep`, else what `jsonschema` says.
        #[test]
        fn validation_says_too_deep_exactly_when_the_instance_is(
            schema in schemas(),
            instance in instances(),
            extra in 0usize..3,
        ) {
            // As deep as the schema, so that it compiles, and a little more: the instances go
            // past it now and then.
            let limits = ValidationLimits {
                max_depth: nesting(&schema) + extra,
                ..ValidationLimits::DEFAULT
            };
            let validator = DefaultValidator::new().with_limits(limits);
            let Ok(compiled) = validator.compile(&schema) else { return Ok(()) };
            let limit = compiled.max_instance_depth();
            let outcome = compiled.validate(&instance);
            if nesting(&instance) > limit {
                prop_assert!(matches!(outcome, Err(Error::InstanceTooDeep { .. })), "{outcome:?}");
                prop_assert!(!compiled.is_valid(&instance));
            } else {
                let accepted = compiled.validator.is_valid(&instance);
                prop_assert_eq!(outcome.is_ok(), accepted, "{} {}", schema, instance);
                prop_assert_eq!(compiled.is_valid(&instance), accepted);
            }
        }
    }
}
