//! Anthropic Messages: `tool_use` blocks in, `tool_result` blocks out.
//!
//! Source: Anthropic Messages API reference and anthropic-sdk-python `types/`
//! (`ToolUseBlock`, `ToolResultBlockParam`, `ImageBlockParam`, `MessageParam`), transcribed
//! in `tests/data/providers/anthropic.schema.json`.

use serde_json::Value;

use super::call::{CallArguments, ModelCall};
use super::content::{Piece, pieces};
use super::json_shape::{index_pointer, list_or_member, members_map, object, string_at};
use super::provider::Provider;
use super::run::ToolOutcome;
use crate::error::Error;

/// The content blocks of a response (`{"content": [...]}`) or the blocks themselves, with
/// the pointer of the array.
fn blocks(response: &Value) -> Result<(&Vec<Value>, &'static str), Error> {
    list_or_member(
        response,
        "content",
        "/content",
        "expected an Anthropic message (an object with `content`) or its content blocks",
    )
}

/// The `tool_use` blocks of an Anthropic message, in order.
pub(crate) fn read(response: &Value) -> Result<Vec<ModelCall>, Error> {
    let (items, base) = blocks(response)?;
    let mut calls = Vec::new();
    for (i, block) in items.iter().enumerate() {
        if block.get("type").and_then(Value::as_str) != Some("tool_use") {
            continue;
        }
        let pointer = index_pointer(base, "", i);
        calls.push(ModelCall {
            id: Some(string_at(block, "id", &pointer)?),
            name: string_at(block, "name", &pointer)?,
            namespace: None,
            arguments: CallArguments::from_value(block.get("input")),
            thought_signature: None,
            pointer,
        });
    }
    Ok(calls)
}

/// A `tool_use` block.
pub(crate) fn write_call(call: &ModelCall) -> Value {
    object([
        ("type", Value::from("tool_use")),
        ("id", Value::from(call.id.as_deref().unwrap_or_default())),
        ("name", Value::from(call.name.as_str())),
        ("input", call.arguments.to_value()),
    ])
}

/// The assistant message that repeats the response's content (text, thinking with its
/// signature, `tool_use`), as the next request must hold it.
pub(crate) fn assistant_turn(response: &Value) -> Result<Vec<Value>, Error> {
    let (items, _) = blocks(response)?;
    Ok(vec![object([
        ("role", Value::from("assistant")),
        ("content", Value::Array(items.clone())),
    ])])
}

/// One user message with a `tool_result` block per outcome.
pub(crate) fn answer(outcomes: &[ToolOutcome]) -> Vec<Value> {
    let blocks = outcomes.iter().map(tool_result).collect();
    vec![object([
        ("role", Value::from("user")),
        ("content", Value::Array(blocks)),
    ])]
}

/// A `tool_result` block: text blocks and `image` blocks (JPEG, PNG, GIF, WebP; other
/// content described in text), `is_error` when the result is an error.
fn tool_result(outcome: &ToolOutcome) -> Value {
    let text =
        |text: String| object([("type", Value::from("text")), ("text", Value::String(text))]);
    let content = pieces(&outcome.result, Provider::Anthropic)
        .into_iter()
        .map(|piece| match piece {
            Piece::Image { mime, data } => object([
                ("type", Value::from("image")),
                (
                    "source",
                    object([
                        ("type", Value::from("base64")),
                        ("media_type", Value::from(mime)),
                        ("data", Value::from(data)),
                    ]),
                ),
            ]),
            Piece::Text(part) => text(part.into_owned()),
            // `pieces` gives Anthropic no files (it describes them); kept for completeness.
            Piece::File { mime, name, .. } => text(format!("[file {name}, {mime}]")),
        })
        .collect();
    let mut block = members_map([
        ("type", Value::from("tool_result")),
        (
            "tool_use_id",
            Value::from(outcome.id.as_deref().unwrap_or_default()),
        ),
        ("content", Value::Array(content)),
    ]);
    if outcome.result.is_error() {
        block.insert("is_error".into(), Value::Bool(true));
    }
    Value::Object(block)
}
