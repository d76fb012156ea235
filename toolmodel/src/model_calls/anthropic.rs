//! Anthropic Messages: `tool_use` blocks in, `tool_result` blocks out; with tool search,
//! `tool_reference` blocks in the `tool_result` of toolmodel's search, and Anthropic's own
//! `server_tool_use` / `tool_search_tool_result` blocks skipped when reading calls and kept in
//! the model's turn.
//!
//! Source: Anthropic Messages API reference and anthropic-sdk-python `types/`
//! (`ToolUseBlock`, `ToolResultBlockParam`, `ImageBlockParam`, `MessageParam`,
//! `ToolReferenceBlockParam`, `ServerToolUseBlock`, `ToolSearchToolResultBlock`), transcribed
//! in `tests/data/providers/anthropic.schema.json` and
//! `tests/data/tool_search/anthropic.schema.json`.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::content::{Piece, pieces};
use super::json_shape::{
    Items, MapOnly, Under, array_at, index_pointer, is_false, list_or_member, object,
    optional_string_at, str_at, string_at,
};
use super::model_call::{CallArguments, CallKind, ModelCall};
use super::provider::Provider;
use super::run::ToolOutcome;
use super::tool_search::{ServerSearch, search_for};
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

/// The `tool_use` blocks of an Anthropic message, in order (`server_tool_use` blocks are
/// Anthropic's to run, and skipped).
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
            kind: CallKind::Function,
        });
    }
    Ok(calls)
}

/// The searches Anthropic's server ran in the message: each `server_tool_use` of a tool search
/// tool, with the `tool_reference`s (or the `error_code`) of its `tool_search_tool_result`.
pub(crate) fn server_searches(response: &Value) -> Result<Vec<ServerSearch>, Error> {
    let (items, base) = blocks(response)?;
    let mut searches = Vec::new();
    for (i, block) in items.iter().enumerate() {
        let pointer = index_pointer(base, "", i);
        match block.get("type").and_then(Value::as_str) {
            Some("server_tool_use")
                if str_at(block, "name", &pointer)?.starts_with("tool_search_tool_") =>
            {
                let id = string_at(block, "id", &pointer)?;
                let input = block.get("input").cloned().unwrap_or(Value::Null);
                searches.push(ServerSearch::new(Some(id), input, pointer));
            }
            Some("tool_search_tool_result") => {
                let id = str_at(block, "tool_use_id", &pointer)?;
                let Some(search) = search_for(&mut searches, Some(id), &pointer) else {
                    continue;
                };
                let content = block.get("content").unwrap_or(&Value::Null);
                let at = Under(&pointer, "/content");
                if let Some(references) = array_at(content, "tool_references", at)? {
                    for (j, reference) in references.iter().enumerate() {
                        let at = index_pointer(&format!("{at}"), "/tool_references", j);
                        search
                            .tools
                            .push((None, string_at(reference, "tool_name", &at)?));
                    }
                }
                search.error = optional_string_at(content, "error_code", at)?;
            }
            _ => {}
        }
    }
    Ok(searches)
}

/// A message as its text holds it: the members [`read`] looks at, strings borrowed.
#[derive(Deserialize)]
struct MessageText<'a> {
    #[serde(borrow)]
    content: Vec<MapOnly<BlockText<'a>>>,
}

/// A content block as its text holds it.
#[derive(Deserialize)]
struct BlockText<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    input: Option<Value>,
}

/// [`read`] of a message's JSON text, without building its tree: `None` when the text is not
/// a message whose blocks all have the expected types (the caller reads it as a `Value`).
pub(crate) fn read_text(text: &[u8]) -> Option<Vec<ModelCall>> {
    let MapOnly(message) = serde_json::from_slice::<MapOnly<MessageText<'_>>>(text).ok()?;
    let mut calls = Vec::new();
    for (i, MapOnly(block)) in message.content.into_iter().enumerate() {
        if block.kind.as_deref() != Some("tool_use") {
            continue;
        }
        calls.push(ModelCall {
            id: Some(block.id?.into_owned()),
            name: block.name?.into_owned(),
            namespace: None,
            arguments: CallArguments::from_owned(block.input),
            thought_signature: None,
            pointer: index_pointer("/content", "", i),
            kind: CallKind::Function,
        });
    }
    Some(calls)
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

/// The answer: one `user` message with a `tool_result` block per outcome.
pub(crate) fn answer(outcomes: &[ToolOutcome]) -> impl Serialize + '_ {
    Items(std::iter::once(UserMessage {
        role: "user",
        content: Items(outcomes.iter().map(tool_result)),
    }))
}

#[derive(Clone, Serialize)]
struct UserMessage<C> {
    role: &'static str,
    content: C,
}

/// A `tool_result` block (`ToolResultBlockParam`).
#[derive(Serialize)]
struct ToolResult<'a, C> {
    #[serde(rename = "type")]
    kind: &'static str,
    tool_use_id: &'a str,
    content: C,
    #[serde(skip_serializing_if = "is_false")]
    is_error: bool,
}

/// A block of a `tool_result`'s content: `TextBlockParam` or `ImageBlockParam`.
#[derive(Serialize)]
#[serde(tag = "type", rename_all = "snake_case")]
enum Block<'a> {
    Text { text: Cow<'a, str> },
    Image { source: ImageSource<'a> },
}

/// `Base64ImageSourceParam`.
#[derive(Serialize)]
struct ImageSource<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    media_type: &'a str,
    data: &'a str,
}

/// The content of a `tool_result`: the result's blocks, or the `tool_reference` blocks of the
/// tools a search found.
#[derive(Serialize)]
#[serde(untagged)]
enum Content<'a, B> {
    Blocks(B),
    References(&'a [Value]),
}

/// A `tool_result` block: text blocks and `image` blocks (JPEG, PNG, GIF, WebP; other
/// content described in text), `is_error` when the result is an error. The result of
/// toolmodel's `search_tools` that found tools is one `tool_reference` block per tool
/// (`ToolReferenceBlockParam`), which loads its deferred definition.
fn tool_result(outcome: &ToolOutcome) -> impl Serialize + '_ {
    if outcome.found.is_some() && !outcome.load.is_empty() {
        return ToolResult {
            kind: "tool_result",
            tool_use_id: outcome.id.as_deref().unwrap_or_default(),
            content: Content::References(&outcome.load),
            is_error: false,
        };
    }
    let content = pieces(&outcome.result, Provider::Anthropic).map(|piece| match piece {
        Piece::Image { mime, data } => Block::Image {
            source: ImageSource {
                kind: "base64",
                media_type: mime,
                data,
            },
        },
        Piece::Text(text) => Block::Text { text },
        // `pieces` gives Anthropic no files (it describes them); kept for completeness.
        Piece::File { mime, name, .. } => Block::Text {
            text: Cow::Owned(format!("[file {name}, {mime}]")),
        },
    });
    ToolResult {
        kind: "tool_result",
        tool_use_id: outcome.id.as_deref().unwrap_or_default(),
        content: Content::Blocks(Items(content)),
        is_error: outcome.result.is_error(),
    }
}
