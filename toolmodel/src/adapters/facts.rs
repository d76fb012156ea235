//! [`Facts`]: what a conversion checks of a tool schema before it starts, worked out once per
//! [`ToolSchema`] and kept with it ([`ToolSchema::memo`]), so that converting the same tool to
//! several targets, or for every client of a gateway, walks it for these only once.

use serde_json::Value;

use super::{
    context::MAX_SCHEMA_DEPTH,
    keywords::each_subschema,
    lenient::{Found, is_standard},
};
use crate::{ToolSchema, limits::deeper_than};

/// What the first walks of a conversion would find in a schema.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Facts {
    /// The schema nests at most [`MAX_SCHEMA_DEPTH`] levels below itself: copying it needs no
    /// check (and the tool's own depth limit holds for it).
    pub(crate) within_depth: bool,
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
                    ..Self::default()
                };
            }
            each_subschema(map, &mut subschemas);
            pending.extend(subschemas.drain(..).map(|(_, sub)| sub));
        }
        Self {
            within_depth: true,
            plain_types: true,
            found,
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

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
