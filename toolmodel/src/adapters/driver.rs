//! The conversion driver: one tool to one target. It bounds the tool's depth, maps the name,
//! converts the tool-level fields, runs each schema through the target's transform (strict,
//! the OpenAPI subset, or the checks of plain mode) and lets the provider file write the
//! result.

use serde_json::Value;

use crate::adapters::context::{Ctx, check_depth, copy_within_depth};
use crate::adapters::facts::Facts;
use crate::adapters::options::ConvertOptions;
use crate::adapters::results::Conversion;
use crate::adapters::target::Target;
use crate::adapters::warning::{Action, Warning};
use crate::adapters::{anthropic, fields, gemini, lenient, openai, openapi, strict};
use crate::error::Error;
use crate::model::schema::ToolSchema;
use crate::model::tool::Tool;
use crate::validate::limits::{ValidationLimits, tool_deeper_than, tool_fields_deeper_than};
use crate::validate::violation::SchemaSlot;

/// `name` quoted for a warning: whole up to 128 characters (MCP's longest valid name), else
/// its first 64 characters and its length, so that a hostile 10 MB name is not copied into
/// every warning.
fn quoted_name(name: &str) -> String {
    match name.char_indices().nth(128) {
        None => format!("{name:?}"),
        Some(_) => {
            let end = name
                .char_indices()
                .nth(64)
                .map_or(name.len(), |(end, _)| end);
            format!(
                "{:?}… ({} characters)",
                name.get(..end).unwrap_or_default(),
                name.chars().count()
            )
        }
    }
}

/// Converts `tool` to `target` under the target name `name` (mapped already): see
/// [`convert`](super::convert) for the errors.
pub(crate) fn convert_named(
    tool: &Tool,
    target: Target,
    options: &ConvertOptions,
    name: String,
) -> Result<Conversion, Error> {
    if options.strict && !target.has_strict_mode() {
        return Err(Error::Conversion {
            target: target.as_str(),
            pointer: String::new(),
            reason: format!(
                "{target} has no strict mode; strict conversions exist for openai-chat, openai-responses and anthropic"
            ),
        });
    }
    // Converting copies and writes values, which recurses once per level: bound the tool
    // first (its input schema with the stricter limit of converted schemas, checked while
    // copying it).
    let input_facts = Facts::of(&tool.input_schema);
    let input_copy = copy(&tool.input_schema, input_facts, "/inputSchema")?;
    let limit = ValidationLimits::DEFAULT.max_depth;
    let output_facts = tool.output_schema.as_ref().map(Facts::of);
    let output_within = output_facts.is_none_or(|facts| facts.within_depth);
    // The schemas known to be within the depth are not walked again.
    let deeper = if input_facts.within_depth && output_within {
        tool_fields_deeper_than(tool, limit)
    } else {
        tool_deeper_than(tool, limit)
    };
    if let Some(pointer) = deeper {
        return Err(Error::Conversion {
            target: target.as_str(),
            pointer,
            reason: format!("nested more than {limit} levels"),
        });
    }
    // A strict conversion warns a few times per tool (each object closed, each optional
    // property made nullable): room for that up front spares the growing.
    let mut warnings = Vec::with_capacity(if options.strict { 8 } else { 0 });
    if name != tool.name {
        warnings.push(Warning {
            target,
            pointer: "/name".into(),
            feature: "name".into(),
            action: Action::Rewritten { exact: true },
            slot: None,
            detail: format!(
                "{} sent as {name:?}; the name map routes calls back",
                quoted_name(&tool.name)
            )
            .into(),
        });
    }
    fields::tool_level(tool, target, options, &mut warnings);
    let input = convert_schema(
        input_facts,
        &tool.input_schema,
        input_copy,
        SchemaSlot::Input,
        target,
        options,
        &mut warnings,
    )?;
    let value = match target {
        Target::Mcp => {
            let mut value = tool.to_mcp_json();
            if let Value::Object(map) = &mut value {
                map.insert("name".into(), Value::from(name.as_str()));
            }
            value
        }
        Target::OpenAiChat | Target::OpenAiResponses => {
            openai::write(tool, target, &name, input, options)
        }
        Target::Anthropic => anthropic::write(tool, &name, input, options),
        Target::Gemini => {
            let output = match tool.output_schema.as_ref().zip(output_facts) {
                Some((schema, facts)) => Some(convert_schema(
                    facts,
                    schema,
                    copy(schema, facts, "/outputSchema")?,
                    SchemaSlot::Output,
                    target,
                    options,
                    &mut warnings,
                )?),
                None => None,
            };
            gemini::write(tool, &name, input, output, options)
        }
    };
    warnings.sort();
    warnings.dedup();
    Ok(Conversion {
        target,
        strict: options.strict,
        name,
        value,
        warnings,
    })
}

/// A copy of `schema` to convert, checked for depth unless its `facts` say it is within.
fn copy(schema: &ToolSchema, facts: Facts, base: &str) -> Result<Value, Error> {
    if facts.within_depth {
        Ok(schema.to_value())
    } else {
        copy_within_depth(schema.as_value(), base)
    }
}

/// Converts `value`, a copy of `schema` (checked for depth as it was copied), whose `facts`
/// spare the type check when it has nothing to do.
fn convert_schema(
    facts: Facts,
    schema: &ToolSchema,
    mut value: Value,
    slot: SchemaSlot,
    target: Target,
    options: &ConvertOptions,
    warnings: &mut Vec<Warning>,
) -> Result<Value, Error> {
    let base = slot.pointer();
    let mut ctx = Ctx::new(target, options, Some(slot), base, warnings);
    let found = if target == Target::Mcp {
        lenient::Found::default()
    } else if facts.plain_types {
        facts.found
    } else {
        lenient::check_types(&mut value, &mut ctx)?
    };
    match target {
        Target::Mcp => {}
        Target::OpenAiChat | Target::OpenAiResponses | Target::Anthropic if options.strict => {
            if target == Target::Anthropic {
                strict::anthropic(&mut value, &mut ctx, found.references)?;
            } else {
                // With plain types the copy is still the tool's schema as it was.
                let unchanged = facts.plain_types.then(|| schema.as_value());
                strict::openai(&mut value, unchanged, &mut ctx, found.references)?;
            }
        }
        Target::OpenAiChat | Target::OpenAiResponses | Target::Anthropic => {
            if !schema.has_object_root() {
                return Err(ctx.error(
                    Some("type"),
                    format!("{target} needs a schema with \"type\": \"object\" at the root"),
                ));
            }
        }
        Target::Gemini if options.gemini_json_schema => gemini::check_json_schema(&value, &mut ctx),
        Target::Gemini => openapi::to_openapi(&mut value, &mut ctx, found.references)?,
    }
    // Inlining references nests deeper without a bound, strict mode (type lists, `anyOf`
    // wrappers, `required` lists) and the Gemini rewrites that wrap values (`const` as a
    // one-value `enum`, type lists as `anyOf`) within a bound that a shallow schema leaves room
    // for; otherwise the nesting is as it was checked.
    let rewritten = ctx.deepened || options.strict;
    if found.references || (rewritten && (!facts.plain_types || facts.may_nest_too_deep())) {
        check_depth(&value, base)?;
    }
    Ok(value)
}
