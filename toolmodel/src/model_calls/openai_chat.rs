//! OpenAI Chat Completions: the assistant message's `tool_calls` in, `role: "tool"` messages
//! out.
//!
//! Source: `openai/openai-openapi` (`ChatCompletionMessageToolCall`,
//! `ChatCompletionRequestToolMessage`, `ChatCompletionRequestAssistantMessage`).

use std::borrow::Cow;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::content::TextLines;
use super::json_shape::{
    Items, MapOnly, Under, array_at, first_member, index_pointer, object, optional_str_at,
    optional_string_at, shape_error, string_at,
};
use super::model_call::{CUSTOM_CALL_PROBLEM, CallArguments, CallKind, ModelCall};
use super::provider::Provider;
use super::run::ToolOutcome;
use crate::error::Error;

/// The assistant message of a response (`choices[0].message`), or a message given alone,
/// with its pointer.
fn message(response: &Value) -> Result<(&Value, &'static str), Error> {
    if let Some(found) = first_member(response, "choices", "message", "/choices/0/message")? {
        return Ok(found);
    }
    if response.get("role").is_some() || response.get("tool_calls").is_some() {
        return Ok((response, ""));
    }
    Err(shape_error(
        "",
        "expected a chat completion (with `choices`) or an assistant message",
    ))
}

/// The `tool_calls` of the first choice's message, in order: function calls with their
/// argument strings read ([`CallArguments::from_json_text`]); a `custom` tool call (free-form
/// input) is kept as a call with invalid arguments, so that the model gets an answer.
pub(crate) fn read(response: &Value) -> Result<Vec<ModelCall>, Error> {
    let (message, base) = message(response)?;
    let Some(tool_calls) = array_at(message, "tool_calls", base)? else {
        return Ok(Vec::new());
    };
    let mut calls = Vec::with_capacity(tool_calls.len());
    for (i, tool_call) in tool_calls.iter().enumerate() {
        let pointer = index_pointer(base, "/tool_calls", i);
        let id = string_at(tool_call, "id", &pointer)?;
        let (name, arguments) = match tool_call.get("type").and_then(Value::as_str) {
            Some("custom") => {
                let at = Under(&pointer, "/custom");
                let custom = tool_call
                    .get("custom")
                    .ok_or_else(|| shape_error(&pointer, "missing field `custom`"))?;
                let input = optional_string_at(custom, "input", at)?.unwrap_or_default();
                (
                    string_at(custom, "name", at)?,
                    CallArguments::Invalid {
                        text: input,
                        problem: CUSTOM_CALL_PROBLEM.into(),
                    },
                )
            }
            _ => {
                let at = Under(&pointer, "/function");
                let function = tool_call
                    .get("function")
                    .ok_or_else(|| shape_error(&pointer, "missing field `function`"))?;
                let arguments = optional_str_at(function, "arguments", at)?;
                (
                    string_at(function, "name", at)?,
                    CallArguments::from_json_text(arguments.unwrap_or_default()),
                )
            }
        };
        calls.push(ModelCall {
            id: Some(id),
            name,
            namespace: None,
            arguments,
            thought_signature: None,
            pointer,
            kind: CallKind::Function,
        });
    }
    Ok(calls)
}

/// A chat completion as its text holds it: the members [`read`] looks at, strings borrowed.
#[derive(Deserialize)]
struct CompletionText<'a> {
    #[serde(borrow)]
    choices: Vec<MapOnly<ChoiceText<'a>>>,
}

/// A choice as its text holds it.
#[derive(Deserialize)]
struct ChoiceText<'a> {
    #[serde(borrow)]
    message: MapOnly<MessageText<'a>>,
}

/// An assistant message as its text holds it.
#[derive(Deserialize)]
struct MessageText<'a> {
    #[serde(borrow)]
    tool_calls: Option<Vec<MapOnly<ToolCallText<'a>>>>,
}

/// A `tool_calls[]` entry as its text holds it.
#[derive(Deserialize)]
struct ToolCallText<'a> {
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    function: Option<MapOnly<FunctionText<'a>>>,
    #[serde(borrow)]
    custom: Option<MapOnly<CustomText<'a>>>,
}

/// A `function` member as its text holds it.
#[derive(Deserialize)]
struct FunctionText<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    arguments: Option<Cow<'a, str>>,
}

/// A `custom` member as its text holds it.
#[derive(Deserialize)]
struct CustomText<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    input: Option<Cow<'a, str>>,
}

/// [`read`] of a chat completion's JSON text, without building its tree: `None` when the text
/// is not a chat completion whose members all have the expected types (the caller reads it as
/// a `Value`).
pub(crate) fn read_text(text: &[u8]) -> Option<Vec<ModelCall>> {
    let MapOnly(completion) = serde_json::from_slice::<MapOnly<CompletionText<'_>>>(text).ok()?;
    let MapOnly(first) = completion.choices.into_iter().next()?;
    let MapOnly(message) = first.message;
    let tool_calls = message.tool_calls.unwrap_or_default();
    let mut calls = Vec::with_capacity(tool_calls.len());
    for (i, MapOnly(tool_call)) in tool_calls.into_iter().enumerate() {
        let (name, arguments) = if tool_call.kind.as_deref() == Some("custom") {
            let MapOnly(custom) = tool_call.custom?;
            (
                custom.name?,
                CallArguments::Invalid {
                    text: custom.input.unwrap_or_default().into_owned(),
                    problem: CUSTOM_CALL_PROBLEM.into(),
                },
            )
        } else {
            let MapOnly(function) = tool_call.function?;
            (
                function.name?,
                CallArguments::from_json_text(function.arguments.as_deref().unwrap_or_default()),
            )
        };
        calls.push(ModelCall {
            id: Some(tool_call.id?.into_owned()),
            name: name.into_owned(),
            namespace: None,
            arguments,
            thought_signature: None,
            pointer: index_pointer("/choices/0/message", "/tool_calls", i),
            kind: CallKind::Function,
        });
    }
    Some(calls)
}

/// A `tool_calls[]` entry.
pub(crate) fn write_call(call: &ModelCall) -> Value {
    object([
        ("id", Value::from(call.id.as_deref().unwrap_or_default())),
        ("type", Value::from("function")),
        (
            "function",
            object([
                ("name", Value::from(call.name.as_str())),
                ("arguments", Value::String(call.arguments.to_json_text())),
            ]),
        ),
    ])
}

/// The assistant message as a request message: `role`, `content` (the text, or `null`),
/// `tool_calls`, and `refusal` when there is one (the response-only keys such as
/// `annotations` are left out).
pub(crate) fn assistant_turn(response: &Value) -> Result<Vec<Value>, Error> {
    let (message, _) = message(response)?;
    let mut out = Map::new();
    out.insert("role".into(), Value::from("assistant"));
    out.insert(
        "content".into(),
        message.get("content").cloned().unwrap_or(Value::Null),
    );
    for key in ["tool_calls", "refusal"] {
        if let Some(value) = message.get(key).filter(|value| !value.is_null()) {
            out.insert(key.into(), value.clone());
        }
    }
    Ok(vec![Value::Object(out)])
}

/// One `role: "tool"` message per outcome. Its `content` is text: the result's text blocks,
/// one per line, other content described in brackets (tool messages take text only); an
/// `isError` result's text starts with `Error: `.
pub(crate) fn answer(outcomes: &[ToolOutcome]) -> impl Serialize + '_ {
    Items(outcomes.iter().map(|outcome| ToolMessage {
        role: "tool",
        tool_call_id: outcome.id.as_deref().unwrap_or_default(),
        content: TextLines {
            result: &outcome.result,
            provider: Provider::OpenAiChat,
            prefix: if outcome.result.is_error() {
                "Error: "
            } else {
                ""
            },
        },
    }))
}

/// `ChatCompletionRequestToolMessage`, with a string `content`.
#[derive(Serialize)]
struct ToolMessage<'a> {
    role: &'static str,
    tool_call_id: &'a str,
    content: TextLines<'a>,
}
