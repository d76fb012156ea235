//! Tool-level fields per target: what each format holds besides the schemas, the warnings for
//! what it cannot hold, and reading the common fields (`name`, `description`, unknown keys) back.

use serde_json::{Map, Value};

use super::options::ConvertOptions;
use super::target::Target;
use super::warning::{Action, Warning};
use crate::error::Error;
use crate::json::json_error;
use crate::model::tool::Tool;
use crate::pointer::escape_pointer_token;

/// Tool keys of Anthropic's `tools[]` entries besides `name`, `description` and `input_schema`,
/// carried from [`Tool::extra`] when converting to Anthropic and kept there when reading
/// (anthropic-sdk-python `lib/tools/mcp.py`, `mcp_tool` parameters, and the Messages API
/// `tools` reference, read 2026-11-21).
pub(crate) const ANTHROPIC_KEYS: &[&str] = &[
    "type",
    "strict",
    "input_examples",
    "cache_control",
    "defer_loading",
    "allowed_callers",
    "eager_input_streaming",
];

/// OpenAI function keys besides `name`, `description` and `parameters` (API reference,
/// `FunctionDefinition` and the Responses `FunctionTool`, read 2026-11-21).
pub(crate) const OPENAI_KEYS: &[&str] = &["strict"];

/// Gemini `FunctionDeclaration` keys besides the name, description and schemas (API reference,
/// read 2026-11-21): `behavior` (Live API).
pub(crate) const GEMINI_KEYS: &[&str] = &["behavior"];

/// The [`Tool::extra`] keys a target carries (`None`: every key, as MCP does).
pub(crate) const fn carried_keys(target: Target) -> Option<&'static [&'static str]> {
    match target {
        Target::Mcp => None,
        Target::OpenAiChat | Target::OpenAiResponses => Some(OPENAI_KEYS),
        Target::Anthropic => Some(ANTHROPIC_KEYS),
        Target::Gemini => Some(GEMINI_KEYS),
    }
}

/// The `$before` literals, the target's name ([`Target::as_str`]), the `$after` literals: one `'static` sentence per
/// target, so that the tool-level warnings (one per dropped field) borrow their text.
macro_rules! per_target {
    ($target:expr, [$($before:literal),*], [$($after:literal),*]) => {
        match $target {
            Target::Mcp => concat!($($before,)* "mcp" $(, $after)*),
            Target::OpenAiChat => concat!($($before,)* "openai-chat" $(, $after)*),
            Target::OpenAiResponses => concat!($($before,)* "openai-responses" $(, $after)*),
            Target::Anthropic => concat!($($before,)* "anthropic" $(, $after)*),
            Target::Gemini => concat!($($before,)* "gemini" $(, $after)*),
        }
    };
}

/// Warns about every tool-level field of `tool` that `target` cannot hold.
pub(crate) fn tool_level(
    tool: &Tool,
    target: Target,
    _options: &ConvertOptions,
    warnings: &mut Vec<Warning>,
) {
    let mut warn = |pointer: &'static str, feature: &'static str, detail: &'static str| {
        warnings.push(Warning {
            target,
            pointer: pointer.to_owned(),
            feature: feature.into(),
            action: Action::Dropped { widened: false },
            slot: None,
            detail: detail.into(),
        });
    };
    if target != Target::Mcp {
        if tool.title.is_some() {
            warn(
                "/title",
                "title",
                per_target!(target, [], [" tools have no title"]),
            );
        }
        if tool.annotations.is_some() {
            warn(
                "/annotations",
                "annotations",
                per_target!(target, [], [" tools have no annotations (behaviour hints)"]),
            );
        }
        if tool.icons.is_some() {
            warn(
                "/icons",
                "icons",
                per_target!(target, [], [" tools have no icons"]),
            );
        }
        if tool.execution.is_some() {
            warn(
                "/execution",
                "execution",
                per_target!(target, [], [" tools have no execution properties"]),
            );
        }
        if tool.meta.is_some() {
            warn(
                "/_meta",
                "_meta",
                per_target!(target, [], [" tools have no _meta"]),
            );
        }
        if tool.output_schema.is_some() && target != Target::Gemini {
            warn(
                "/outputSchema",
                "outputSchema",
                per_target!(target, [], [" tools have no output schema"]),
            );
        }
    }
    // The extensions (`namespace`, `version`, `tags`, `backends`) are this library's own data,
    // never part of a provider's tool (nor of MCP JSON): leaving them out loses nothing on the
    // wire, so it is not reported (the namespace reaches the name with `qualified_names`).
    if let Some(carried) = carried_keys(target) {
        for key in tool.extra.keys() {
            if !carried.contains(&key.as_str()) {
                warnings.push(Warning {
                    target,
                    pointer: format!("/{}", escape_pointer_token(key)),
                    feature: key.clone().into(),
                    action: Action::Dropped { widened: false },
                    slot: None,
                    detail: format!("a key {target} tools do not define").into(),
                });
            }
        }
    }
}

/// The keys of `tool.extra` that `target` carries, to write next to the fields it builds.
pub(crate) fn carried(tool: &Tool, target: Target) -> Map<String, Value> {
    let keys = carried_keys(target).unwrap_or_default();
    tool.extra
        .iter()
        .filter(|(k, _)| keys.contains(&k.as_str()))
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect()
}

/// The object at the top of a document to read.
pub(crate) fn expect_object<'v>(
    value: &'v Value,
    pointer: &str,
    what: &str,
) -> Result<&'v Map<String, Value>, Error> {
    value.as_object().ok_or_else(|| {
        json_error(
            pointer,
            format!(
                "expected {what} (a JSON object), found {}",
                crate::model::schema::json_type(value)
            ),
        )
    })
}

/// The fields every provider format has: a name, a description, and keys the tool has no field
/// for.
#[derive(Debug)]
pub(crate) struct Common {
    pub(crate) name: String,
    pub(crate) description: Option<String>,
    pub(crate) extra: Map<String, Value>,
}

impl Common {
    /// A tool with these fields and `schema`.
    pub(crate) fn into_tool(self, schema: crate::model::schema::ToolSchema) -> Tool {
        let mut tool = Tool::new(self.name, schema);
        tool.description = self.description;
        tool.extra = self.extra;
        tool
    }
}

/// Reads `name` (required string) and `description` (optional string or null) from an object
/// read at `base`; every key not in `consumed` goes to the returned extra map.
pub(crate) fn read_common(
    map: &Map<String, Value>,
    base: &str,
    consumed: &[&str],
) -> Result<Common, Error> {
    let name = match map.get("name") {
        Some(Value::String(name)) => name.clone(),
        Some(other) => {
            return Err(json_error(
                format!("{base}/name"),
                format!(
                    "invalid type: {}, expected a string",
                    crate::model::schema::json_type(other)
                ),
            ));
        }
        None => return Err(json_error(base, "missing field `name`")),
    };
    let description = match map.get("description") {
        None | Some(Value::Null) => None,
        Some(Value::String(text)) => Some(text.clone()),
        Some(other) => {
            return Err(json_error(
                format!("{base}/description"),
                format!(
                    "invalid type: {}, expected a string",
                    crate::model::schema::json_type(other)
                ),
            ));
        }
    };
    let extra = map
        .iter()
        .filter(|(k, _)| {
            !matches!(k.as_str(), "name" | "description") && !consumed.contains(&k.as_str())
        })
        .map(|(k, v)| (k.clone(), v.clone()))
        .collect();
    Ok(Common {
        name,
        description,
        extra,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_target_sentences_spell_each_target_as_it_is_named() {
        for target in [
            Target::Mcp,
            Target::OpenAiChat,
            Target::OpenAiResponses,
            Target::Anthropic,
            Target::Gemini,
        ] {
            assert_eq!(
                per_target!(target, ["<"], [">"]),
                format!("<{}>", target.as_str())
            );
        }
    }
    use crate::model::schema::ToolSchema;
    use crate::model::tool::ToolAnnotations;
    use serde_json::json;

    #[test]
    fn what_each_target_cannot_hold() {
        let mut tool = Tool::new("t", ToolSchema::empty_object());
        tool.title = Some("T".into());
        tool.annotations = Some(ToolAnnotations::default());
        tool.output_schema = Some(ToolSchema::empty_object());
        tool.tags = vec!["x".into()];
        tool.namespace = Some("ns".into());
        tool.version = Some("1.0.0".into());
        tool.backends
            .push(crate::model::backend::Backend::local("h"));
        tool.extra.insert("strict".into(), json!(true));
        tool.extra.insert("x-vendor".into(), json!(1));
        let features = |target| {
            let mut warnings = Vec::new();
            tool_level(&tool, target, &ConvertOptions::default(), &mut warnings);
            warnings
                .iter()
                .map(|w| w.pointer.clone())
                .collect::<Vec<_>>()
        };
        assert!(features(Target::Mcp).is_empty());
        assert_eq!(
            features(Target::OpenAiChat),
            ["/title", "/annotations", "/outputSchema", "/x-vendor"]
        );
        assert_eq!(
            features(Target::Gemini),
            ["/title", "/annotations", "/strict", "/x-vendor"]
        );
        assert_eq!(
            carried(&tool, Target::Anthropic)
                .keys()
                .map(String::as_str)
                .collect::<Vec<_>>(),
            ["strict"]
        );
    }

    #[test]
    fn reading_names_the_offending_key() {
        let err = read_common(
            json!({"description": "x"}).as_object().unwrap(),
            "/function",
            &[],
        )
        .unwrap_err();
        assert!(
            matches!(err, Error::Json { path, message, .. } if path == "/function" && message.contains("name"))
        );
        let err = read_common(
            json!({"name": "a", "description": 3}).as_object().unwrap(),
            "",
            &[],
        )
        .unwrap_err();
        assert!(matches!(err, Error::Json { path, .. } if path == "/description"));
        let Common {
            name,
            description,
            extra,
        } = read_common(
            json!({"name": "a", "description": null, "strict": true, "parameters": {}})
                .as_object()
                .unwrap(),
            "",
            &["parameters"],
        )
        .unwrap();
        assert_eq!(
            (
                name.as_str(),
                description,
                extra.keys().map(String::as_str).collect::<Vec<_>>()
            ),
            ("a", None, vec!["strict"])
        );
    }
}
