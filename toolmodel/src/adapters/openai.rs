//! OpenAI function tools: the Chat Completions form
//! `{"type":"function","function":{name, description, parameters, strict}}` and the Responses
//! API's flat form `{"type":"function", name, description, parameters, strict}`.
//!
//! Source: OpenAI API reference, Chat Completions `tools[]` (`FunctionDefinition`) and
//! Responses `tools[]` (`FunctionTool`, where an absent `strict` means `true`), read 2026-11-21.

use serde_json::{Map, Value};

use super::fields;
use super::options::{ConvertOptions, ReadOptions};
use super::read_schema::read_schema;
use super::results::Reading;
use super::target::Target;
use super::warning::{Action, Warning};
use crate::error::Error;
use crate::model::schema::ToolSchema;
use crate::model::tool::Tool;

/// Writes the function tool for `target` (Chat or Responses) around an already converted
/// `parameters` schema.
pub(crate) fn write(
    tool: &Tool,
    target: Target,
    name: &str,
    parameters: Value,
    options: &ConvertOptions,
) -> Value {
    let mut function = fields::carried(tool, target);
    function.insert("name".into(), Value::from(name));
    if let Some(description) = &tool.description {
        function.insert("description".into(), Value::from(description.as_str()));
    }
    function.insert("parameters".into(), parameters);
    if options.strict {
        function.insert("strict".into(), Value::Bool(true));
    } else if target == Target::OpenAiResponses && !function.contains_key("strict") {
        // The Responses API reads an absent `strict` as true.
        function.insert("strict".into(), Value::Bool(false));
    }
    if target == Target::OpenAiResponses {
        function.insert("type".into(), Value::from("function"));
        Value::Object(function)
    } else {
        let mut outer = Map::new();
        outer.insert("type".into(), Value::from("function"));
        outer.insert("function".into(), Value::Object(function));
        Value::Object(outer)
    }
}

/// Reads a Chat Completions tool, or a bare function definition (`{name, description,
/// parameters}`, as BFCL and many catalogs write them), or (`target` Responses) the flat form.
pub(crate) fn read(target: Target, value: &Value, options: &ReadOptions) -> Result<Reading, Error> {
    let outer = fields::expect_object(value, "", "an OpenAI function tool")?;
    let mut warnings: Vec<Warning> = Vec::new();
    let (function, base) = match (target, outer.get("function")) {
        (Target::OpenAiChat, Some(function)) => {
            check_type(outer, "")?;
            for key in outer
                .keys()
                .filter(|k| !matches!(k.as_str(), "type" | "function"))
            {
                warnings.push(Warning {
                    target,
                    pointer: format!("/{}", crate::pointer::escape_pointer_token(key)),
                    feature: key.clone().into(),
                    action: Action::Dropped { widened: false },
                    slot: None,
                    detail: "a key beside `function` that a tool cannot hold".into(),
                });
            }
            (
                fields::expect_object(function, "/function", "a function definition")?,
                "/function",
            )
        }
        _ => {
            check_type(outer, "")?;
            (outer, "")
        }
    };
    let common = fields::read_common(function, base, &["parameters", "type"])?;
    let pointer = format!("{base}/parameters");
    let schema = match function.get("parameters") {
        None | Some(Value::Null) => ToolSchema::empty_object(),
        Some(parameters) => read_schema(
            target,
            parameters,
            &pointer,
            crate::validate::violation::SchemaSlot::Input,
            options,
            &mut warnings,
        )?,
    };
    Ok(Reading {
        tool: common.into_tool(schema),
        warnings,
    })
}

fn check_type(map: &Map<String, Value>, base: &str) -> Result<(), Error> {
    match map.get("type") {
        None => Ok(()),
        Some(Value::String(kind)) if kind == "function" => Ok(()),
        Some(other) => Err(crate::json::json_error(
            format!("{base}/type"),
            format!("expected \"function\", found {other}"),
        )),
    }
}
