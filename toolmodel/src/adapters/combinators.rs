//! Rewriting the JSON Schema combinators exactly where that is possible: merging `allOf`
//! branches (and a `$ref`'s target with its siblings) into one schema object, and telling when
//! the branches of a `oneOf` cannot overlap, so that `anyOf` means the same.

use serde_json::{Map, Value};

use super::context::{Ctx, instance_type, type_names};
use super::keywords::is_annotation;
use super::warning::Action;

/// Keywords whose meaning depends on other keywords of the same schema object, with the
/// keywords they depend on. Merging two objects is exact only when no keyword of one depends on
/// a keyword of the other.
const ADJACENT: &[(&str, &[&str])] = &[
    ("additionalProperties", &["properties", "patternProperties"]),
    ("items", &["prefixItems"]),
    ("additionalItems", &["items"]),
    ("then", &["if"]),
    ("else", &["if"]),
    ("if", &["then", "else"]),
    ("minContains", &["contains"]),
    ("maxContains", &["contains"]),
];

/// Keywords whose meaning depends on every other keyword of the object.
const DEPENDS_ON_ALL: &[&str] = &["unevaluatedProperties", "unevaluatedItems"];

/// Why two schema objects cannot be merged into one with the same meaning.
#[derive(Debug, PartialEq, Eq)]
pub(crate) struct Conflict {
    /// The keyword that both sides constrain differently, or that depends on the other side.
    pub(crate) keyword: String,
}

fn depends(keyword: &str, other: &Map<String, Value>) -> bool {
    if DEPENDS_ON_ALL.contains(&keyword) {
        return other.keys().any(|k| !is_annotation(k));
    }
    ADJACENT
        .iter()
        .any(|(k, on)| *k == keyword && on.iter().any(|o| other.contains_key(*o)))
}

/// Merges `other` into `base` so that the result accepts exactly the instances both accept
/// (`allOf: [base, other]`). Annotations already in `base` win; `properties` merge when they
/// name different properties; `required` lists join; a keyword with the same value on both
/// sides is kept once.
///
/// # Errors
///
/// The first [`Conflict`]: a keyword both sides give different values (other than
/// annotations, `properties` and `required`), or one whose meaning depends on the other side
/// (`additionalProperties` next to the other side's `properties`, ...). `base` is unchanged
/// then.
pub(crate) fn merge(
    base: &mut Map<String, Value>,
    other: Map<String, Value>,
) -> Result<(), Conflict> {
    check_merge(base, &other)?;
    for (keyword, value) in other {
        if !base.contains_key(&keyword) {
            base.insert(keyword, value);
            continue;
        }
        match (keyword.as_str(), base.get_mut(&keyword), value) {
            ("properties", Some(Value::Object(mine)), Value::Object(theirs)) => {
                mine.extend(theirs);
            }
            ("required", Some(Value::Array(mine)), Value::Array(theirs)) => {
                for name in theirs {
                    if !mine.contains(&name) {
                        mine.push(name);
                    }
                }
            }
            // Equal values, or an annotation `base` already has: `base` wins.
            _ => {}
        }
    }
    Ok(())
}

/// The check [`merge`] makes before changing anything.
pub(crate) fn check_merge(
    base: &Map<String, Value>,
    other: &Map<String, Value>,
) -> Result<(), Conflict> {
    let conflict = |keyword: &str| {
        Err(Conflict {
            keyword: keyword.to_owned(),
        })
    };
    for (keyword, value) in other {
        if depends(keyword, base) {
            return conflict(keyword);
        }
        let Some(mine) = base.get(keyword) else {
            continue;
        };
        if mine == value || is_annotation(keyword) {
            continue;
        }
        match (keyword.as_str(), mine, value) {
            ("properties", Value::Object(a), Value::Object(b)) => {
                if a.keys().any(|k| b.contains_key(k)) {
                    return conflict(keyword);
                }
            }
            ("required", Value::Array(_), Value::Array(_)) => {}
            _ => return conflict(keyword),
        }
    }
    for keyword in base.keys() {
        if depends(keyword, other) {
            return conflict(keyword);
        }
    }
    Ok(())
}

/// The JSON types a schema accepts, when the schema says so plainly (`type`, `const` or `enum`
/// at its top level); `None` when it does not.
fn accepted_types(schema: &Value) -> Option<Vec<&str>> {
    let map = schema.as_object()?;
    if let Some(value) = map.get("const") {
        return Some(vec![instance_type(value)]);
    }
    if let Some(Value::Array(values)) = map.get("enum") {
        return Some(values.iter().map(instance_type).collect());
    }
    let names = type_names(map);
    (map.contains_key("type") && !names.is_empty()).then_some(names)
}

fn types_overlap(a: &[&str], b: &[&str]) -> bool {
    a.iter().any(|x| {
        b.iter()
            .any(|y| x == y || matches!((*x, *y), ("integer", "number") | ("number", "integer")))
    })
}

/// The values a schema is limited to (`const`, or `enum`), when it says so at its top level.
fn allowed_values(schema: &Value) -> Option<Vec<&Value>> {
    let map = schema.as_object()?;
    if let Some(value) = map.get("const") {
        return Some(vec![value]);
    }
    match map.get("enum") {
        Some(Value::Array(values)) => Some(values.iter().collect()),
        _ => None,
    }
}

fn values_disjoint(a: &[&Value], b: &[&Value]) -> bool {
    !a.iter().any(|x| b.contains(x))
}

fn required_names(map: &Map<String, Value>) -> Vec<&str> {
    match map.get("required") {
        Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
        _ => Vec::new(),
    }
}

/// Whether no instance can match both branches: their types cannot meet, their `const` /
/// `enum` values differ, or both require a property whose `const` / `enum` values differ (a
/// discriminated union).
fn disjoint(a: &Value, b: &Value) -> bool {
    if let (Some(ta), Some(tb)) = (accepted_types(a), accepted_types(b))
        && !types_overlap(&ta, &tb)
    {
        return true;
    }
    if let (Some(va), Some(vb)) = (allowed_values(a), allowed_values(b))
        && values_disjoint(&va, &vb)
    {
        return true;
    }
    let (Some(ma), Some(mb)) = (a.as_object(), b.as_object()) else {
        return false;
    };
    let (Some(Value::Object(pa)), Some(Value::Object(pb))) =
        (ma.get("properties"), mb.get("properties"))
    else {
        return false;
    };
    let (ra, rb) = (required_names(ma), required_names(mb));
    ra.iter().filter(|name| rb.contains(name)).any(|name| {
        match (
            pa.get(*name).and_then(allowed_values),
            pb.get(*name).and_then(allowed_values),
        ) {
            (Some(va), Some(vb)) => values_disjoint(&va, &vb),
            _ => false,
        }
    })
}

/// Whether a schema object matches no value: its `not` holds a schema that matches every
/// value (`{}`, `true`, or an object of annotations only), as `{"not": {}}` does, whatever
/// else it says.
pub(crate) fn matches_nothing(schema: &Map<String, Value>) -> bool {
    match schema.get("not") {
        Some(Value::Bool(true)) => true,
        Some(Value::Object(inner)) => inner.keys().all(|k| is_annotation(k)),
        _ => false,
    }
}

/// Whether a schema (a boolean or an object) matches no value: `false`, or what
/// [`matches_nothing`] says.
pub(crate) fn branch_matches_nothing(schema: &Value) -> bool {
    match schema {
        Value::Bool(false) => true,
        Value::Object(map) => matches_nothing(map),
        _ => false,
    }
}

/// Removes the branches of `map`'s `anyOf` that match no value ([`branch_matches_nothing`]),
/// with a warning each: exact, as such a branch adds nothing. Returns `true`, removing nothing,
/// when every branch matches nothing (then the `anyOf` itself matches nothing).
pub(crate) fn drop_any_of_branches_matching_nothing(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_, '_>,
) -> bool {
    let Some(Value::Array(branches)) = map.get_mut("anyOf") else {
        return false;
    };
    let never = branches
        .iter()
        .filter(|b| branch_matches_nothing(b))
        .count();
    if never == 0 {
        return false;
    }
    if never == branches.len() {
        return true;
    }
    let mark = ctx.enter("anyOf");
    for (index, branch) in branches.iter().enumerate() {
        if branch_matches_nothing(branch) {
            let inner = ctx.enter_index(index);
            ctx.warn(
                None,
                "anyOf",
                Action::Rewritten { exact: true },
                "a branch that matches no value removed: it adds nothing to the anyOf",
            );
            ctx.leave(inner);
        }
    }
    ctx.leave(mark);
    branches.retain(|b| !branch_matches_nothing(b));
    false
}

/// The most branches [`pairwise_disjoint`] compares (pairwise: their square); beyond, it
/// answers `false` (not shown disjoint), which is always safe, so that a hostile `oneOf` of
/// 100,000 branches costs no 10^10 comparisons.
const MAX_DISJOINT_BRANCHES: usize = 256;

/// Whether the branches of a `oneOf` pairwise cannot overlap, so that `anyOf` over them accepts
/// exactly the same instances.
pub(crate) fn pairwise_disjoint(branches: &[Value]) -> bool {
    branches.len() <= MAX_DISJOINT_BRANCHES
        && branches
            .iter()
            .enumerate()
            .all(|(i, a)| branches.iter().skip(i + 1).all(|b| disjoint(a, b)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn obj(value: Value) -> Map<String, Value> {
        value.as_object().cloned().unwrap()
    }

    #[test]
    fn merges_independent_keywords() {
        let mut base = obj(
            json!({"type": "object", "properties": {"a": {}}, "required": ["a"], "description": "mine"}),
        );
        merge(
            &mut base,
            obj(json!({"type": "object", "properties": {"b": {}}, "required": ["b", "a"], "description": "theirs", "minProperties": 1})),
        )
        .unwrap();
        assert_eq!(
            Value::Object(base),
            json!({"type": "object", "properties": {"a": {}, "b": {}}, "required": ["a", "b"], "description": "mine", "minProperties": 1})
        );
    }

    #[test]
    fn refuses_what_would_change_the_meaning() {
        let base = obj(json!({"properties": {"a": {}}, "additionalProperties": false}));
        assert_eq!(
            check_merge(&base, &obj(json!({"properties": {"b": {}}}))),
            Err(Conflict {
                keyword: "additionalProperties".into()
            })
        );
        assert!(check_merge(&obj(json!({"minimum": 1})), &obj(json!({"minimum": 2}))).is_err());
        assert!(
            check_merge(
                &obj(json!({"properties": {"a": {}}})),
                &obj(json!({"properties": {"a": {"type": "string"}}}))
            )
            .is_err()
        );
        assert!(
            check_merge(
                &obj(json!({"unevaluatedProperties": false})),
                &obj(json!({"properties": {}}))
            )
            .is_err()
        );
        assert!(
            check_merge(
                &obj(json!({"minimum": 1})),
                &obj(json!({"minimum": 1, "title": "x"}))
            )
            .is_ok()
        );
    }

    #[test]
    fn disjointness() {
        assert!(pairwise_disjoint(&[
            json!({"type": "string"}),
            json!({"type": "integer"}),
            json!({"type": "null"})
        ]));
        assert!(!pairwise_disjoint(&[
            json!({"type": "number"}),
            json!({"type": "integer"})
        ]));
        assert!(pairwise_disjoint(&[
            json!({"const": "a"}),
            json!({"enum": ["b", "c"]})
        ]));
        assert!(!pairwise_disjoint(&[
            json!({"enum": ["a", "b"]}),
            json!({"enum": ["b"]})
        ]));
        let tagged = [
            json!({"type": "object", "properties": {"kind": {"const": "cat"}}, "required": ["kind"]}),
            json!({"type": "object", "properties": {"kind": {"const": "dog"}}, "required": ["kind"]}),
        ];
        assert!(pairwise_disjoint(&tagged));
        let untagged = [
            json!({"type": "object", "properties": {"kind": {"const": "cat"}}}),
            json!({"type": "object", "properties": {"kind": {"const": "dog"}}}),
        ];
        assert!(!pairwise_disjoint(&untagged));
        assert!(!pairwise_disjoint(&[
            json!({"minimum": 1}),
            json!({"maximum": 0})
        ]));
    }
}
