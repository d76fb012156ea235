//! OpenAI Responses: `function_call` output items in, `function_call_output` input items out;
//! with tool search, `tool_search_call` items in and `tool_search_output` items out.
//!
//! Source: `openai/openai-openapi` (`FunctionToolCall`, `FunctionCallOutputItemParam`,
//! `InputTextContentParam`, `InputImageContentParamAutoParam`, `InputFileContentParam`,
//! `NamespaceToolParam`, `ToolSearchCallItemParam`, `ToolSearchOutputItemParam`) and
//! openai-python `types/responses/` (`ResponseToolSearchCall`,
//! `ResponseToolSearchOutputItemParam`, `ResponseFunctionToolCall.namespace`).

use std::borrow::Cow;

use serde::{Deserialize, Serialize, Serializer};
use serde_json::{Map, Value};

use super::content::{DataUrl, Piece, TextLines, all_text, pieces};
use super::json_shape::{
    Items, MapOnly, array_at, index_pointer, list_or_member, optional_str_at, optional_string_at,
    string_at,
};
use super::model_call::{CUSTOM_CALL_PROBLEM, CallArguments, CallKind, ModelCall};
use super::provider::Provider;
use super::run::ToolOutcome;
use super::tool_search::{ServerSearch, TOOL_SEARCH, search_for};
use crate::call::result::CallToolResult;
use crate::error::Error;

/// The output items of a response (`{"output": [...]}`) or the items themselves.
fn items(response: &Value) -> Result<(&Vec<Value>, &'static str), Error> {
    list_or_member(
        response,
        "output",
        "/output",
        "expected a response (an object with `output`) or its output items",
    )
}

/// The `function_call` items, in order, with their `namespace`; a `custom_tool_call` is kept
/// as a call with invalid arguments, so that the model gets an answer; a `tool_search_call`
/// the client runs (`execution: "client"`) is a [`CallKind::ToolSearch`] call (one the server
/// ran is skipped, as its `tool_search_output`).
pub(crate) fn read(response: &Value) -> Result<Vec<ModelCall>, Error> {
    let (items, base) = items(response)?;
    let mut calls = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let kind = item.get("type").and_then(Value::as_str);
        if kind == Some("tool_search_call") {
            let pointer = index_pointer(base, "", i);
            if let Some(call) = read_tool_search(item, pointer)? {
                calls.push(call);
            }
            continue;
        }
        if !matches!(kind, Some("function_call" | "custom_tool_call")) {
            continue;
        }
        let pointer = index_pointer(base, "", i);
        let arguments = if kind == Some("custom_tool_call") {
            CallArguments::Invalid {
                text: optional_string_at(item, "input", &pointer)?.unwrap_or_default(),
                problem: CUSTOM_CALL_PROBLEM.into(),
            }
        } else {
            CallArguments::from_json_text(
                optional_str_at(item, "arguments", &pointer)?.unwrap_or_default(),
            )
        };
        calls.push(ModelCall {
            id: Some(string_at(item, "call_id", &pointer)?),
            name: string_at(item, "name", &pointer)?,
            namespace: optional_string_at(item, "namespace", &pointer)?,
            arguments,
            thought_signature: None,
            pointer,
            kind: CallKind::Function,
        });
    }
    Ok(calls)
}

/// A `tool_search_call` item (openai-python `ResponseToolSearchCall`): a
/// [`CallKind::ToolSearch`] call named `tool_search` with the item's `arguments` when the client
/// runs it (`execution: "client"`), `None` when the server did. `call_id` is required for the
/// client's (the `tool_search_output` echoes it).
fn read_tool_search(item: &Value, pointer: String) -> Result<Option<ModelCall>, Error> {
    if optional_str_at(item, "execution", &pointer)? != Some("client") {
        return Ok(None);
    }
    Ok(Some(ModelCall {
        id: Some(string_at(item, "call_id", &pointer)?),
        name: TOOL_SEARCH.into(),
        namespace: None,
        arguments: CallArguments::from_value(item.get("arguments")),
        thought_signature: None,
        pointer,
        kind: CallKind::ToolSearch,
    }))
}

/// The searches OpenAI's server ran in the response: each `tool_search_call` and
/// `tool_search_output` with an `execution` other than `"client"` (paired by `call_id`, else
/// an output goes with the search before it), the output's functions by namespace and name.
pub(crate) fn server_searches(response: &Value) -> Result<Vec<ServerSearch>, Error> {
    let (items, base) = items(response)?;
    let mut searches: Vec<ServerSearch> = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let kind = item.get("type").and_then(Value::as_str);
        if !matches!(kind, Some("tool_search_call" | "tool_search_output")) {
            continue;
        }
        let pointer = index_pointer(base, "", i);
        if optional_str_at(item, "execution", &pointer)? == Some("client") {
            continue;
        }
        let id = match optional_string_at(item, "call_id", &pointer)? {
            Some(id) => Some(id),
            None => optional_string_at(item, "id", &pointer)?,
        };
        if kind == Some("tool_search_call") {
            let arguments = item.get("arguments").cloned().unwrap_or(Value::Null);
            searches.push(ServerSearch::new(id, arguments, pointer));
            continue;
        }
        let call_id = optional_str_at(item, "call_id", &pointer)?;
        let with_last = call_id.is_none() && searches.last().is_some_and(|s| s.tools.is_empty());
        let search = if with_last {
            searches.last_mut()
        } else {
            search_for(&mut searches, call_id, &pointer)
        };
        let Some(search) = search else {
            continue;
        };
        for (j, tool) in array_at(item, "tools", &pointer)?
            .into_iter()
            .flatten()
            .enumerate()
        {
            let at = index_pointer(&pointer, "/tools", j);
            match tool.get("type").and_then(Value::as_str) {
                Some("namespace") => {
                    let namespace = string_at(tool, "name", &at)?;
                    for (k, function) in array_at(tool, "tools", &at)?
                        .into_iter()
                        .flatten()
                        .enumerate()
                    {
                        let at = index_pointer(&at, "/tools", k);
                        let name = string_at(function, "name", &at)?;
                        search.tools.push((Some(namespace.clone()), name));
                    }
                }
                Some("function") => search.tools.push((None, string_at(tool, "name", &at)?)),
                _ => {}
            }
        }
    }
    Ok(searches)
}

/// A response as its text holds it: the members [`read`] looks at, strings borrowed.
#[derive(Deserialize)]
struct ResponseText<'a> {
    #[serde(borrow)]
    output: Vec<MapOnly<ItemText<'a>>>,
}

/// An output item as its text holds it.
#[derive(Deserialize)]
struct ItemText<'a> {
    #[serde(borrow, rename = "type")]
    kind: Option<Cow<'a, str>>,
    #[serde(borrow)]
    call_id: Option<Cow<'a, str>>,
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
    #[serde(borrow)]
    namespace: Option<Cow<'a, str>>,
    #[serde(borrow)]
    arguments: Option<Cow<'a, str>>,
    #[serde(borrow)]
    input: Option<Cow<'a, str>>,
}

/// [`read`] of a response's JSON text, without building its tree: `None` when the text is not
/// a response whose items all have the expected types (the caller reads it as a `Value`).
pub(crate) fn read_text(text: &[u8]) -> Option<Vec<ModelCall>> {
    let MapOnly(response) = serde_json::from_slice::<MapOnly<ResponseText<'_>>>(text).ok()?;
    let mut calls = Vec::new();
    for (i, MapOnly(item)) in response.output.into_iter().enumerate() {
        let arguments = match item.kind.as_deref() {
            // Its `arguments` is an object: read through a `Value` (by `read`).
            Some("tool_search_call") => return None,
            Some("function_call") => {
                CallArguments::from_json_text(item.arguments.as_deref().unwrap_or_default())
            }
            Some("custom_tool_call") => CallArguments::Invalid {
                text: item.input.unwrap_or_default().into_owned(),
                problem: CUSTOM_CALL_PROBLEM.into(),
            },
            _ => continue,
        };
        calls.push(ModelCall {
            id: Some(item.call_id?.into_owned()),
            name: item.name?.into_owned(),
            namespace: item.namespace.map(Cow::into_owned),
            arguments,
            thought_signature: None,
            pointer: index_pointer("/output", "", i),
            kind: CallKind::Function,
        });
    }
    Some(calls)
}

/// A `function_call` item, or a `tool_search_call` item (client execution) for a
/// [`CallKind::ToolSearch`] call.
pub(crate) fn write_call(call: &ModelCall) -> Value {
    let mut item = Map::new();
    if call.kind == CallKind::ToolSearch {
        item.insert("type".into(), Value::from("tool_search_call"));
        item.insert(
            "call_id".into(),
            Value::from(call.id.as_deref().unwrap_or_default()),
        );
        item.insert("execution".into(), Value::from("client"));
        item.insert("arguments".into(), call.arguments.to_value());
        item.insert("status".into(), Value::from("completed"));
        return Value::Object(item);
    }
    item.insert("type".into(), Value::from("function_call"));
    item.insert(
        "call_id".into(),
        Value::from(call.id.as_deref().unwrap_or_default()),
    );
    if let Some(namespace) = &call.namespace {
        item.insert("namespace".into(), Value::from(namespace.as_str()));
    }
    item.insert("name".into(), Value::from(call.name.as_str()));
    item.insert(
        "arguments".into(),
        Value::from(call.arguments.to_json_text()),
    );
    Value::Object(item)
}

/// The output items, as input items of the next request (reasoning items and messages
/// included, as the Responses API wants them back when not using `previous_response_id`).
pub(crate) fn assistant_turn(response: &Value) -> Result<Vec<Value>, Error> {
    let (items, _) = items(response)?;
    Ok(items.clone())
}

/// One `function_call_output` item per outcome. `output` is a string when the result is all
/// text (the text blocks one per line; other content it cannot hold described), else a list
/// of `input_text`, `input_image` (a `data:` URL) and `input_file` (`file_data` as a `data:`
/// URL, `filename` from the resource URI) items. An `isError` result's text starts with
/// `Error: `.
///
/// A [`CallKind::ToolSearch`] outcome is a `tool_search_output` item (openai-python
/// `ResponseToolSearchOutputItemParam`, `execution: "client"`) whose `tools` are the
/// definitions of the tools found, as the request's `tools` holds them (`namespace` tools
/// with the functions found); none when the search failed (the error is the outcome's).
pub(crate) fn answer(outcomes: &[ToolOutcome]) -> impl Serialize + '_ {
    Items(outcomes.iter().map(|outcome| {
        let call_id = outcome.id.as_deref().unwrap_or_default();
        if outcome.kind == CallKind::ToolSearch {
            Answered::Search(SearchOutput {
                kind: "tool_search_output",
                call_id,
                execution: "client",
                status: "completed",
                tools: &outcome.load,
            })
        } else {
            Answered::Call(CallOutput {
                kind: "function_call_output",
                call_id,
                output: Output(&outcome.result),
            })
        }
    }))
}

/// One item of the answer.
#[derive(Serialize)]
#[serde(untagged)]
enum Answered<'a> {
    Call(CallOutput<'a>),
    Search(SearchOutput<'a>),
}

/// `ResponseToolSearchOutputItemParam`.
#[derive(Serialize)]
struct SearchOutput<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    call_id: &'a str,
    execution: &'static str,
    status: &'static str,
    tools: &'a [Value],
}

/// `FunctionCallOutputItemParam`.
#[derive(Serialize)]
struct CallOutput<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    call_id: &'a str,
    output: Output<'a>,
}

/// The `output` of a `function_call_output`: a string, or a list of input items.
struct Output<'a>(&'a CallToolResult);

impl Serialize for Output<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let result = self.0;
        let provider = Provider::OpenAiResponses;
        let error = result.is_error();
        if all_text(result, provider) {
            let prefix = if error { "Error: " } else { "" };
            return TextLines {
                result,
                provider,
                prefix,
            }
            .serialize(serializer);
        }
        let flag = error.then_some(InputItem::Text {
            text: Cow::Borrowed("Error:"),
        });
        let items = pieces(result, provider).map(|piece| match piece {
            Piece::Text(text) => InputItem::Text { text },
            Piece::Image { mime, data } => InputItem::Image {
                image_url: DataUrl { mime, data },
            },
            Piece::File { mime, data, name } => InputItem::File {
                file_data: DataUrl { mime, data },
                filename: name,
            },
        });
        serializer.collect_seq(flag.into_iter().chain(items))
    }
}

/// `InputTextContentParam`, `InputImageContentParamAutoParam` (a `data:` URL) and
/// `InputFileContentParam` (`file_data` as a `data:` URL).
#[derive(Serialize)]
#[serde(tag = "type")]
enum InputItem<'a> {
    #[serde(rename = "input_text")]
    Text { text: Cow<'a, str> },
    #[serde(rename = "input_image")]
    Image { image_url: DataUrl<'a> },
    #[serde(rename = "input_file")]
    File {
        file_data: DataUrl<'a>,
        filename: &'a str,
    },
}
