//! Combinators in strict mode: `anyOf` branches that match nothing dropped, `allOf` merged
//! when exact, `oneOf` as `anyOf`.

use serde_json::{Map, Value};

use super::support::Provider;
use crate::adapters::combinators::{
    branch_matches_nothing, drop_any_of_branches_matching_nothing, merge, pairwise_disjoint,
};
use crate::adapters::context::Ctx;
use crate::adapters::warning::Action;
use crate::error::Error;

/// Branches that match no value (`false`, `{"not": {}}`): removed from an `anyOf` (exact);
/// an error in an `allOf`, or when every `anyOf` branch is one, as strict mode has no schema
/// that matches nothing.
pub(super) fn drop_branches_matching_nothing(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_, '_>,
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

pub(super) fn merge_all_of(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_, '_>,
) -> Result<(), Error> {
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

pub(super) fn one_of_to_any_of(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_, '_>,
) -> Result<(), Error> {
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
