//! Anthropic tools: `{name, description, input_schema}` plus the tool keys Anthropic defines
//! (`strict`, `input_examples`, `cache_control`, ...), which are carried through
//! [`Tool::extra`].
//!
//! Source: Anthropic Messages API reference, `tools[]` (custom tools), and the Python SDK's
//! `mcp_tool` helper, read 2026-11-21.

use serde_json::Value;

use super::fields;
use super::options::{ConvertOptions, ReadOptions};
use super::read_schema::read_schema;
use super::results::Reading;
use super::target::Target;
use crate::error::Error;
use crate::model::tool::Tool;

/// Writes the tool around an already converted `input_schema`.
pub(crate) fn write(
    tool: &Tool,
    name: &str,
    input_schema: Value,
    options: &ConvertOptions,
) -> Value {
    let mut out = fields::carried(tool, Target::Anthropic);
    out.insert("name".into(), Value::from(name));
    if let Some(description) = &tool.description {
        out.insert("description".into(), Value::from(description.as_str()));
    }
    out.insert("input_schema".into(), input_schema);
    if options.strict {
        out.insert("strict".into(), Value::Bool(true));
    }
    Value::Object(out)
}

/// Reads an Anthropic tool; the keys other than `name`, `description` and `input_schema` go to
/// [`Tool::extra`] under their own names.
pub(crate) fn read(value: &Value, options: &ReadOptions) -> Result<Reading, Error> {
    let map = fields::expect_object(value, "", "an Anthropic tool")?;
    let common = fields::read_common(map, "", &["input_schema"])?;
    let Some(input_schema) = map.get("input_schema") else {
        return Err(crate::json::json_error("", "missing field `input_schema`"));
    };
    let mut warnings = Vec::new();
    let schema = read_schema(
        Target::Anthropic,
        input_schema,
        "/input_schema",
        crate::validate::violation::SchemaSlot::Input,
        options,
        &mut warnings,
    )?;
    Ok(Reading {
        tool: common.into_tool(schema),
        warnings,
    })
}
