//! Checks in strict mode: values (`enum`, `const`, `pattern`) and keyword shapes a provider
//! cannot take.

use serde_json::{Map, Value};

use super::support::{Kw, Provider, Says};
use crate::adapters::context::{Ctx, Moved};
use crate::error::Error;

/// Keyword values the provider restricts further than JSON Schema does.
pub(super) fn check_values(
    map: &mut Map<String, Value>,
    ctx: &mut Ctx<'_, '_>,
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
pub(super) fn check_shapes(map: &Map<String, Value>, ctx: &Ctx<'_, '_>) -> Result<(), Error> {
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
pub(super) fn misshapen(keyword: Kw, value: &Value) -> Option<&'static str> {
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

pub(super) fn has_unsupported_regex(pattern: &str) -> bool {
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
