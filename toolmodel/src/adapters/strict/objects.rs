//! Objects in strict mode: closed (`additionalProperties: false`), and for OpenAI every
//! property required, optional ones made nullable.

use std::collections::HashSet;

use serde_json::{Map, Value};

use super::support::Provider;
use crate::adapters::context::{Ctx, has_type};
use crate::adapters::warning::Action;
use crate::error::Error;

pub(super) fn is_object(map: &Map<String, Value>) -> bool {
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
pub(super) fn close_object(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_, '_>,
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

/// OpenAI: every property required; each optional one made nullable. Linear in the number of
/// properties and listed names (a long list is looked up in a set). An object whose properties
/// are all required already is left as it is, without an allocation; otherwise the `required`
/// list is edited in place: names that are not properties and repeated names dropped, the
/// optional properties appended in the order of `properties`.
pub(super) fn require_all(map: &mut Map<String, Value>, ctx: &mut Ctx<'_, '_>) {
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
    let is_property = |name: &Value| name.as_str().is_some_and(|n| properties.contains_key(n));
    // A set only when the list is long enough for lookups in it to matter (linear either way).
    let named: Option<HashSet<&str>> =
        (listed_names.len() > 8).then(|| listed_names.iter().filter_map(Value::as_str).collect());
    let is_listed = |name: &str| match &named {
        Some(named) => named.contains(name),
        None => listed_names.iter().any(|n| n.as_str() == Some(name)),
    };
    let has_stray = !listed_names.iter().all(is_property);
    if !has_stray && properties.keys().all(|name| is_listed(name)) {
        return;
    }
    if has_stray {
        let stray: Vec<Value> = listed_names
            .iter()
            .filter(|name| !is_property(name))
            .cloned()
            .collect();
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
    drop(named);
    // The listed names that are properties, each once and in their order, kept where they are;
    // then the optional ones in the order of `properties`.
    let listed_was_absent = listed.is_none();
    let mut fresh = Vec::new();
    let list = match listed {
        Some(list) => {
            // Names kept so far: inline for a short list, a set for a long one.
            let mut short: [&str; 8] = [""; 8];
            let mut kept_short = 0;
            let mut long: HashSet<&str> = HashSet::new();
            let is_short = list.len() <= 8;
            list.retain(|name| {
                let Some((key, _)) = name.as_str().and_then(|n| properties.get_key_value(n)) else {
                    return false;
                };
                if is_short {
                    if short.iter().take(kept_short).any(|kept| *kept == key) {
                        return false;
                    }
                    if let Some(slot) = short.get_mut(kept_short) {
                        *slot = key;
                    }
                    kept_short += 1;
                    true
                } else {
                    long.insert(key)
                }
            });
            list
        }
        None => &mut fresh,
    };
    // Whether a property is listed is asked again here, of the edited list, rather than
    // remembered from above (a `Vec<bool>` per object): that allocation measured +276
    // instructions per tool and 3% of the `adapters/clone` time for OpenAI strict.
    let kept = list.len();
    // Every property not kept is optional: room for all of them at once.
    list.reserve_exact(properties.len() - kept);
    let set: Option<HashSet<String>> = (kept > 8).then(|| {
        list.iter()
            .filter_map(|name| name.as_str().map(str::to_owned))
            .collect()
    });
    let mark = ctx.enter("properties");
    for (name, schema) in properties.iter_mut() {
        let is_listed = match &set {
            Some(set) => set.contains(name),
            None => list.iter().take(kept).any(|n| n.as_str() == Some(name)),
        };
        if is_listed {
            continue;
        }
        list.push(Value::from(name.as_str()));
        ctx.deepened |= make_nullable(schema);
        ctx.warn(
            Some(name),
            "required",
            Action::Rewritten { exact: false },
            "optional property made required and nullable: the model sends null where it would have left it out",
        );
    }
    ctx.leave(mark);
    if listed_was_absent {
        map.insert("required".into(), Value::Array(fresh));
    }
}

/// Makes a (strict-normalized) schema accept `null` as well. Returns whether it wrapped the
/// schema in an `anyOf` (two levels deeper).
pub(super) fn make_nullable(schema: &mut Value) -> bool {
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
