//! Gemini `generateContent`: `functionCall` parts in, `functionResponse` parts out.
//!
//! Source: the Generative Language API's published OpenAPI 3.0 document (`Part`,
//! `FunctionCall`, `FunctionResponse`, `Content`), and the Gemini function-calling and
//! thought-signatures guides (the `output` and `error` keys of `response`; signatures sent
//! back with the calls for Gemini 3).

use std::borrow::Cow;

use serde::ser::{SerializeMap, Serializer};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::content::TextLines;
use super::json_shape::{
    Items, MapOnly, Under, array_at, first_member, index_pointer, optional_string_at, present,
    shape_error, string_at,
};
use super::model_call::{CallArguments, CallKind, ModelCall};
use super::provider::Provider;
use super::run::ToolOutcome;
use crate::call::result::CallToolResult;
use crate::error::Error;

/// The content of a response's first candidate, or a content given alone (`{"parts": ...}`),
/// with its pointer.
fn content(response: &Value) -> Result<(&Value, &'static str), Error> {
    if let Some(found) = first_member(response, "candidates", "content", "/candidates/0/content")? {
        return Ok(found);
    }
    if response.get("parts").is_some() {
        return Ok((response, ""));
    }
    Err(shape_error(
        "",
        "expected a generateContent response (with `candidates`) or a content (with `parts`)",
    ))
}

/// The `functionCall` parts of the first candidate, in order, with their `id` and the part's
/// `thoughtSignature`.
pub(crate) fn read(response: &Value) -> Result<Vec<ModelCall>, Error> {
    let (content, base) = content(response)?;
    let Some(parts) = array_at(content, "parts", base)? else {
        return Ok(Vec::new());
    };
    let mut calls = Vec::new();
    for (i, part) in parts.iter().enumerate() {
        let Some(call) = part.get("functionCall") else {
            continue;
        };
        let pointer = index_pointer(base, "/parts", i);
        let at = Under(&pointer, "/functionCall");
        calls.push(ModelCall {
            id: optional_string_at(call, "id", at)?,
            name: string_at(call, "name", at)?,
            namespace: None,
            arguments: CallArguments::from_value(call.get("args")),
            thought_signature: optional_string_at(part, "thoughtSignature", &pointer)?,
            pointer,
            kind: CallKind::Function,
        });
    }
    Ok(calls)
}

/// A `generateContent` response as its text holds it: the members [`read`] looks at, strings
/// borrowed.
#[derive(Deserialize)]
struct ResponseText<'a> {
    #[serde(borrow)]
    candidates: Vec<MapOnly<CandidateText<'a>>>,
}

/// A candidate as its text holds it.
#[derive(Deserialize)]
struct CandidateText<'a> {
    #[serde(borrow)]
    content: MapOnly<ContentText<'a>>,
}

/// A content as its text holds it.
#[derive(Deserialize)]
struct ContentText<'a> {
    #[serde(borrow)]
    parts: Option<Vec<MapOnly<PartText<'a>>>>,
}

/// A part as its text holds it: a `functionCall` member that is present must be an object.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct PartText<'a> {
    #[serde(borrow, default, deserialize_with = "present")]
    function_call: Option<MapOnly<FunctionCallText<'a>>>,
    #[serde(borrow)]
    thought_signature: Option<Cow<'a, str>>,
}

/// A `functionCall` as its text holds it.
#[derive(Deserialize)]
struct FunctionCallText<'a> {
    #[serde(borrow)]
    id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    args: Option<Value>,
}

/// [`read`] of a response's JSON text, without building its tree: `None` when the text is not
/// a response whose parts all have the expected types (the caller reads it as a `Value`).
pub(crate) fn read_text(text: &[u8]) -> Option<Vec<ModelCall>> {
    let MapOnly(response) = serde_json::from_slice::<MapOnly<ResponseText<'_>>>(text).ok()?;
    let MapOnly(first) = response.candidates.into_iter().next()?;
    let MapOnly(content) = first.content;
    let mut calls = Vec::new();
    for (i, MapOnly(part)) in content.parts.unwrap_or_default().into_iter().enumerate() {
        let Some(MapOnly(call)) = part.function_call else {
            continue;
        };
        calls.push(ModelCall {
            id: call.id.map(Cow::into_owned),
            name: call.name?.into_owned(),
            namespace: None,
            arguments: CallArguments::from_owned(call.args),
            thought_signature: part.thought_signature.map(Cow::into_owned),
            pointer: index_pointer("/candidates/0/content", "/parts", i),
            kind: CallKind::Function,
        });
    }
    Some(calls)
}

/// A part with `functionCall` (and `thoughtSignature`).
pub(crate) fn write_call(call: &ModelCall) -> Value {
    let mut function_call = Map::new();
    if let Some(id) = &call.id {
        function_call.insert("id".into(), Value::from(id.as_str()));
    }
    function_call.insert("name".into(), Value::from(call.name.as_str()));
    function_call.insert("args".into(), call.arguments.to_value());
    let mut part = Map::new();
    part.insert("functionCall".into(), Value::Object(function_call));
    if let Some(signature) = &call.thought_signature {
        part.insert("thoughtSignature".into(), Value::from(signature.as_str()));
    }
    Value::Object(part)
}

/// The candidate's content, as the model turn of the next request: every part as received,
/// `thoughtSignature`s included (Gemini 3 refuses a function call sent back without its
/// signature); `role` is `model`.
pub(crate) fn assistant_turn(response: &Value) -> Result<Vec<Value>, Error> {
    let (content, _) = content(response)?;
    let mut turn = content.clone();
    if let Value::Object(map) = &mut turn {
        map.insert("role".into(), Value::from("model"));
    }
    Ok(vec![turn])
}

/// One user content with a `functionResponse` part per outcome (`id` when the call had one,
/// `name` as the model called it). `response` must be an object; the rule:
///
/// - an `isError` result: `{"error": <text>}`;
/// - a `structuredContent` object: that object;
/// - other `structuredContent` (an array, a string, ... which MCP 2026-07-28 allows):
///   `{"output": <value>}`;
/// - otherwise `{"output": <text>}`: the text blocks, one per line, other content described
///   (a function response carries no media in this API version).
pub(crate) fn answer(outcomes: &[ToolOutcome]) -> impl Serialize + '_ {
    let parts = outcomes.iter().map(|outcome| Part {
        function_response: FunctionResponse {
            id: outcome.id.as_deref(),
            name: &outcome.name,
            response: Response(&outcome.result),
        },
    });
    Items(std::iter::once(UserContent {
        role: "user",
        parts: Items(parts),
    }))
}

/// `Content`.
#[derive(Clone, Serialize)]
struct UserContent<P> {
    role: &'static str,
    parts: P,
}

/// A `Part` with `functionResponse`.
#[derive(Serialize)]
struct Part<'a> {
    #[serde(rename = "functionResponse")]
    function_response: FunctionResponse<'a>,
}

/// `FunctionResponse`.
#[derive(Serialize)]
struct FunctionResponse<'a> {
    #[serde(skip_serializing_if = "Option::is_none")]
    id: Option<&'a str>,
    name: &'a str,
    response: Response<'a>,
}

/// The `response` object of a result, by the rule above.
struct Response<'a>(&'a CallToolResult);

impl Serialize for Response<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let result = self.0;
        let text = TextLines {
            result,
            provider: Provider::Gemini,
            prefix: "",
        };
        match &result.structured_content {
            _ if result.is_error() => one_member(serializer, "error", &text),
            Some(Value::Object(structured)) => structured.serialize(serializer),
            Some(other) => one_member(serializer, "output", other),
            None => one_member(serializer, "output", &text),
        }
    }
}

/// The object `{key: value}`.
fn one_member<S: Serializer, V: Serialize>(
    serializer: S,
    key: &str,
    value: &V,
) -> Result<S::Ok, S::Error> {
    let mut map = serializer.serialize_map(Some(1))?;
    map.serialize_entry(key, value)?;
    map.end()
}
