//! [`Facts`]: what a conversion checks of a tool schema before it starts, worked out once per
//! [`ToolSchema`] and kept with it ([`ToolSchema::memo`]), so that converting the same tool to
//! several targets, or for every client of a gateway, walks it for these only once.

use serde_json::Value;

use super::{
    context::MAX_SCHEMA_DEPTH,
    keywords::each_subschema,
    lenient::{Found, is_standard},
};
use crate::model::schema::ToolSchema;
use crate::validate::limits::{deeper_than, nesting};

/// What the first walks of a conversion would find in a schema.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Facts {
    /// The schema nests at most [`MAX_SCHEMA_DEPTH`] levels below itself: copying it needs no
    /// check (and the tool's own depth limit holds for it).
    pub(crate) within_depth: bool,
    /// The levels of arrays and objects the schema nests, itself included (what
    /// [`deeper_than`] measures); 0 unless [`within_depth`](Self::within_depth).
    pub(crate) depth: usize,
    /// Every `type` names JSON Schema types and no draft-04 boolean `exclusiveMinimum` /
    /// `exclusiveMaximum` is left: the type check has nothing to report or rewrite. Only
    /// worked out for schemas within the depth.
    pub(crate) plain_types: bool,
    /// What the type check would find (when [`plain_types`](Self::plain_types)).
    pub(crate) found: Found,
}

impl Facts {
    /// The facts of `schema`, worked out on its first conversion.
    pub(crate) fn of(schema: &ToolSchema) -> Self {
        // `None` only if another module stored another type in the memo: work them out again.
        schema
            .memo(Self::work_out)
            .copied()
            .unwrap_or_else(|| Self::work_out(schema.as_value()))
    }

    fn work_out(schema: &Value) -> Self {
        // `deeper_than` counts the schema itself as level 1.
        if deeper_than(schema, MAX_SCHEMA_DEPTH + 1).is_some() {
            return Self::default();
        }
        let depth = nesting(schema);
        let mut found = Found::default();
        let mut pending = vec![schema];
        let mut subschemas = Vec::new();
        while let Some(Value::Object(map)) = pending.pop() {
            found.references |= map.contains_key("$ref")
                || map.contains_key("$defs")
                || map.contains_key("definitions");
            let draft4_bound = ["exclusiveMinimum", "exclusiveMaximum"]
                .iter()
                .any(|k| matches!(map.get(*k), Some(Value::Bool(_))));
            if draft4_bound || map.get("type").is_some_and(|ty| !is_standard(ty)) {
                return Self {
                    within_depth: true,
                    depth,
                    ..Self::default()
                };
            }
            each_subschema(map, &mut subschemas);
            pending.extend(subschemas.drain(..).map(|(_, _, sub)| sub));
        }
        Self {
            within_depth: true,
            depth,
            plain_types: true,
            found,
        }
    }

    /// Whether a conversion of this schema without references may nest deeper than
    /// [`MAX_SCHEMA_DEPTH`], so that its output must be measured. The rewrites move each schema
    /// object at most [`GROWTH_PER_LEVEL`] levels deeper than its parent moved it, and add at
    /// most two levels below the deepest one (a `required` list, a type list written as an
    /// `anyOf` of new branches): a schema of depth `d` converts to at most `(1 +
    /// GROWTH_PER_LEVEL) * d + 2` levels (`growth_is_bounded` in the tests checks this on
    /// generated schemas).
    pub(crate) fn may_nest_too_deep(self) -> bool {
        !self.within_depth || (1 + GROWTH_PER_LEVEL) * self.depth + 2 > MAX_SCHEMA_DEPTH
    }
}

/// How many levels deeper than its parent a rewrite may move one schema object: two for an
/// `anyOf` wrapper (an optional property made nullable, a type list split into branches), twice.
pub(crate) const GROWTH_PER_LEVEL: usize = 4;

#[cfg(test)]
mod tests {
    use proptest::{collection, prelude::*};
    use serde_json::json;

    use super::*;
    use crate::adapters::convert;
    use crate::adapters::options::ConvertOptions;
    use crate::adapters::target::Profile;
    use crate::model::tool::Tool;

    /// A schema without references, built from what the rewrites nest deeper: optional
    /// properties, type lists with and without `null`, combinators, `items`, `const` and
    /// `enum` values that are objects, closed and open objects.
    fn schema() -> impl Strategy<Value = Value> {
        let types = prop_oneof![
            Just(json!("string")),
            Just(json!("integer")),
            Just(json!(["string", "null"])),
            Just(json!(["string", "integer", "array"])),
            Just(json!(["object", "null"])),
        ];
        let leaf = prop_oneof![
            types.clone().prop_map(|ty| json!({"type": ty})),
            Just(json!({"const": {"a": {"b": [1]}}})),
            Just(json!({"enum": [{"a": 1}, null, "x"]})),
            Just(json!({"type": ["integer", "null"], "minimum": 1, "default": null})),
        ];
        leaf.prop_recursive(6, 48, 4, move |inner| {
            prop_oneof![
                (
                    collection::btree_map("[a-c]", inner.clone(), 1..4),
                    any::<bool>(),
                    types.clone()
                )
                    .prop_map(|(properties, closed, ty)| {
                        let required: Vec<&String> = properties.keys().take(1).collect();
                        let mut object = json!({
                            "type": if closed { json!("object") } else { ty },
                            "properties": properties,
                            "required": required,
                        });
                        if closed {
                            object["additionalProperties"] = json!(false);
                        }
                        object
                    }),
                inner
                    .clone()
                    .prop_map(|items| json!({"type": ["array", "null"], "items": items})),
                collection::vec(inner.clone(), 1..3).prop_map(|b| json!({"anyOf": b})),
                collection::vec(inner.clone(), 1..3).prop_map(|b| json!({"oneOf": b})),
                collection::vec(inner, 1..3).prop_map(|b| json!({"allOf": b})),
            ]
        })
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(256))]

        /// What [`Facts::may_nest_too_deep`] relies on to skip measuring a converted schema.
        #[test]
        fn growth_is_bounded(property in schema()) {
            let source = json!({
                "type": "object",
                "properties": {"p": property},
                "additionalProperties": false
            });
            let bound = (1 + GROWTH_PER_LEVEL) * nesting(&source) + 2;
            let tool = Tool::from_mcp_json(&json!({"name": "t", "inputSchema": source})).unwrap();
            for profile in Profile::ALL {
                let options = ConvertOptions::default().with_strict(profile.strict);
                let Ok(out) = convert(&tool, profile.target, &options) else {
                    continue;
                };
                let converted = ["inputSchema", "input_schema", "parameters", "function"]
                    .iter()
                    .find_map(|key| out.value.get(key))
                    .map(|schema| schema.get("parameters").unwrap_or(schema))
                    .unwrap();
                prop_assert!(
                    nesting(converted) <= bound,
                    "{profile}: {} levels from {} (bound {bound}): {converted}",
                    nesting(converted),
                    nesting(&source)
                );
            }
        }
    }

    fn facts(schema: Value) -> Facts {
        Facts::of(&ToolSchema::try_from(schema).unwrap())
    }

    #[test]
    fn what_the_first_walks_would_find() {
        let plain =
            facts(json!({"type": "object", "properties": {"a": {"type": ["string", "null"]}}}));
        assert_eq!(
            plain,
            Facts {
                within_depth: true,
                depth: 4,
                plain_types: true,
                found: Found { references: false }
            }
        );
        let references = facts(json!({"properties": {"a": {"items": {"$ref": "#/$defs/x"}}}}));
        assert!(references.plain_types && references.found.references);
        for odd in [
            json!({"properties": {"a": {"type": "dict"}}}),
            json!({"anyOf": [{"minimum": 0, "exclusiveMinimum": true}]}),
            json!({"type": ["string", 1]}),
        ] {
            let found = facts(odd.clone());
            assert!(found.within_depth && !found.plain_types, "{odd}");
        }
        // `MAX_SCHEMA_DEPTH` levels below the root, then one more.
        let mut deep = json!({});
        for _ in 0..=MAX_SCHEMA_DEPTH {
            deep = json!({"items": deep});
        }
        assert!(!facts(deep.clone()).within_depth);
        assert!(facts(deep["items"].clone()).within_depth);
    }

    #[test]
    fn clones_share_the_facts() {
        let schema = ToolSchema::try_from(json!({"type": "object"})).unwrap();
        let clone = schema.clone();
        let first = Facts::of(&schema);
        assert_eq!(clone.memo(|_| unreachable!()).copied(), Some(first));
    }
}
