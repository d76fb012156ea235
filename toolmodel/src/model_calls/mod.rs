//! Model tool calls: hand a model a [`Toolbox`](crate::Toolbox)'s tools, run the calls it
//! makes, and answer in its provider's format (feature `adapters`).
//!
//! One loop for four APIs ([`Provider`]): Anthropic Messages, OpenAI Chat Completions, OpenAI
//! Responses and Gemini `generateContent`.
//!
//! 1. [`ModelTools::new`]: the toolbox's tools in the provider's format (through the
//!    [`adapters`](crate::adapters)), with the names that route calls back; warnings only for
//!    what the provider's tool loses of the MCP tool.
//! 2. [`read_calls`]: the calls of a response, one [`ModelCall`] type for every provider
//!    (OpenAI's argument strings parsed; invalid JSON is kept as [`CallArguments::Invalid`],
//!    never a panic or a dropped call; Gemini's `id` and `thoughtSignature` kept);
//!    [`read_calls_from_slice`] reads them from the body's bytes without building its tree.
//! 3. [`run_calls`]: routes each call to its tool, runs them concurrently on any executor,
//!    keeps their order, and turns every failure into an `isError` result that says what was
//!    wrong ([`ToolOutcome`]).
//! 4. [`answer`]: the results as the provider wants them: Anthropic `tool_result` blocks,
//!    OpenAI Chat `role: "tool"` messages, Responses `function_call_output` items, Gemini
//!    `functionResponse` parts; [`extend_request`] appends the model's turn and the answer to
//!    the next request body.
//!
//! For a catalog too large to send whole, [`ToolListOptions::search`] defers the tools past a
//! pinned set and lets the model search them, the same loop running the search
//! ([Tool search](#tool-search)).
//!
//! # What each provider gets of a `CallToolResult`
//!
//! | | Anthropic | OpenAI Chat | OpenAI Responses | Gemini |
//! |---|---|---|---|---|
//! | text | `text` blocks | the `content` string, one block per line | `output` string, or `input_text` items | `response.output` (or `.error`) string |
//! | image | `image` block (JPEG, PNG, GIF, WebP; others described) | described | `input_image` (`data:` URL) | described |
//! | audio | described | described | described | described |
//! | resource link | described (URI, name, type) | described | described | described |
//! | embedded resource | text (with its URI); an image blob as `image`; other blobs described | text; blobs described | text; image blobs `input_image`; other blobs `input_file` | text; blobs described |
//! | `structuredContent` | its JSON text when there is no content | same | same | an object is `response` itself; another value `{"output": value}` |
//! | `isError` | `is_error: true` | text starts with `Error: ` | text starts with `Error: ` | `{"error": text}` |
//!
//! "Described" is a line in brackets saying what the content was (type, size or URI) and
//! that the provider does not carry it: nothing is dropped silently. MCP asks a tool that
//! returns `structuredContent` to put its JSON in a text block as well, so the content blocks
//! are what is sent, and `structuredContent` only when there are none (Gemini, whose
//! `response` is an object, takes the structured value first).
//!
//! # Tool search
//!
//! With [`ToolListOptions::search`] set ([`ToolSearch`]) and more tools in the toolbox than
//! its [`threshold`](ToolSearch::threshold), [`ModelTools::new`] sends the
//! [`pinned`](ToolSearch::pinned) tools in full, defers the others, and adds a search; the
//! loop above runs the model's searches with [`Toolbox::search`](crate::Toolbox::search)
//! (pinned tools left out of the results, at most [`limit`](ToolSearch::limit) tools) and
//! answers them:
//!
//! | | the deferred tools | the search | a search's answer | the found tool's call |
//! |---|---|---|---|---|
//! | Anthropic | in `tools`, `defer_loading: true` | a client tool `search_tools {query}` ([`AnthropicSearch::Client`], the default); or Anthropic's `tool_search_tool_bm25_20251119` / `tool_search_tool_regex_20251119` | a `tool_result` of `tool_reference` blocks (client); the server's `server_tool_use` and `tool_search_tool_result` blocks are skipped by [`read_calls`], kept by [`model_turn`], and read by [`read_server_searches`] | a `tool_use` by its name |
//! | OpenAI Responses | in `tools`, `defer_loading: true` on each function, in a `namespace` tool per upstream server | `{"type": "tool_search", "execution": "client"}`; a `tool_search_call` item is a [`CallKind::ToolSearch`] call | a `tool_search_output` item with the definitions found (their `namespace` tools holding the functions found) | a `function_call` with its `namespace` |
//! | OpenAI Chat, Gemini | not sent | the functions `search_tools {query}` and `call_tool {name, arguments}`, as FastMCP's `BM25SearchTransform` names them | the found tools as `tools/list` lists them, a JSON array in a text result ([`ToolOutcome::found`] has them too) | `call_tool` with the MCP name (a direct call by the tool's own name runs too) |
//!
//! A namespace for OpenAI Responses is the tool's own `namespace` (a gateway's upstream
//! tools have their server's name there); with search on, a tool without one whose MCP name
//! is a gateway's prefixed `<server>__<tool>` goes in the namespace `<server>`, as
//! `<tool>`. Namespace descriptions come from
//! [`ToolListOptions::namespace_descriptions`].
//!
//! ```
//! use serde_json::json;
//! use toolmodel::model_calls::{ModelTools, Provider, ToolListOptions, ToolSearch, extend_request, read_calls, run_calls};
//! use toolmodel::{CallContext, CallToolResult, Tool, ToolSchema, Toolbox};
//!
//! let mut builder = Toolbox::builder();
//! for (name, description) in [("read_file", "Read a file."), ("get_forecast", "Weather forecast for a city."),
//!     ("send_email", "Send an email."), ("stock_quote", "Latest stock price for a ticker.")] {
//!     let mut tool = Tool::new(name, ToolSchema::empty_object());
//!     tool.description = Some(description.into());
//!     builder = builder.with_tool(tool, move |_args, _cx| async move { Ok(CallToolResult::text(name)) });
//! }
//! let toolbox = builder.build()?;
//! let options = ToolListOptions::default().with_search(ToolSearch::default().with_pinned(["read_file"]));
//! let tools = ModelTools::new(&toolbox, Provider::Anthropic, &options)?;
//! assert_eq!(tools.tools().iter().filter(|tool| tool["defer_loading"] == true).count(), 3);
//! let mut body = json!({"model": "claude-sonnet-4-5", "max_tokens": 1024, "tools": tools.to_value(),
//!     "messages": [{"role": "user", "content": "Will it rain in Oslo tomorrow?"}]});
//! // The model searches:
//! let reply = json!({"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1",
//!     "name": "search_tools", "input": {"query": "weather forecast"}}]});
//! let calls = read_calls(Provider::Anthropic, &reply)?;
//! let outcomes = pollster::block_on(run_calls(&toolbox, &tools, calls, &CallContext::new()));
//! assert_eq!(outcomes[0].found.as_ref().unwrap()[0].tool, "get_forecast");
//! extend_request(Provider::Anthropic, &mut body, &reply, &outcomes)?;
//! assert_eq!(body["messages"][2]["content"][0]["content"][0],
//!     json!({"type": "tool_reference", "tool_name": "get_forecast"})); // loads its definition
//! # Ok::<(), toolmodel::Error>(())
//! ```
//!
//! ```
//! use serde::Deserialize;
//! use serde_json::json;
//! use toolmodel::{CallContext, SyncToolHandler, Tool, ToolError, Toolbox, schemars::{self, JsonSchema}};
//! use toolmodel::model_calls::{ModelTools, Provider, ToolListOptions, answer, read_calls, run_calls};
//!
//! /// Current weather for a city.
//! #[derive(Default, Deserialize, JsonSchema, Tool)]
//! struct GetWeather { city: String }
//!
//! impl SyncToolHandler for GetWeather {
//!     type Reply = String;
//!     fn call_sync(&self, args: GetWeather, _cx: &CallContext) -> Result<String, ToolError> {
//!         Ok(format!("Sunny in {}", args.city))
//!     }
//! }
//!
//! let toolbox = Toolbox::builder().with(GetWeather::default()).build()?;
//! let tools = ModelTools::new(&toolbox, Provider::OpenAiChat, &ToolListOptions::default())?;
//! // The request would carry `"tools": tools.to_value()`; the model answers:
//! let response = json!({"choices": [{"message": {"role": "assistant", "content": null,
//!     "tool_calls": [
//!         {"id": "call_1", "type": "function",
//!          "function": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
//!         {"id": "call_2", "type": "function",
//!          "function": {"name": "get_weather", "arguments": "{\"city\": "}}
//!     ]}}]});
//! let calls = read_calls(Provider::OpenAiChat, &response)?;
//! let cx = CallContext::new();
//! let outcomes = pollster::block_on(run_calls(&toolbox, &tools, calls, &cx));
//! let messages = answer(Provider::OpenAiChat, &outcomes).to_values();
//! assert_eq!(messages[0], json!({"role": "tool", "tool_call_id": "call_1", "content": "Sunny in Paris"}));
//! assert!(messages[1]["content"].as_str().unwrap().starts_with(
//!     "Error: invalid arguments for tool \"get_weather\": the arguments are not valid JSON"));
//! # Ok::<(), toolmodel::Error>(())
//! ```

mod answers;
mod anthropic;
mod content;
mod gemini;
mod join;
mod json_shape;
mod model_call;
mod openai_chat;
mod openai_responses;
mod provider;
mod run;
mod tool_search;
mod tools;

use serde_json::Value;

pub use answers::Answer;
pub use model_call::{CallArguments, CallKind, ModelCall};
pub use provider::Provider;
pub use run::{ToolOutcome, run_calls};
pub use tool_search::{
    AnthropicSearch, CALL_TOOL, FoundTool, SEARCH_TOOLS, ServerSearch, TOOL_SEARCH, ToolSearch,
};
pub use tools::{ModelTools, ToolListOptions, ToolWarning};

use crate::error::Error;
use crate::model::schema::json_type;
use json_shape::{object, shape_error};

/// The tool calls of a model's response, in the order the model made them.
///
/// `response` is the whole response body, or the part that holds the calls:
///
/// | provider | response | or | calls read |
/// |---|---|---|---|
/// | Anthropic | a Message (`content`) | its content blocks | `tool_use` blocks |
/// | OpenAI Chat | a chat completion (first of `choices`) | its `message` | `tool_calls` (`function`, and `custom` as invalid arguments) |
/// | OpenAI Responses | a response (`output`) | its output items | `function_call` items (and `custom_tool_call` as invalid arguments), `tool_search_call` items with `execution: "client"` ([`CallKind::ToolSearch`]) |
/// | Gemini | a `GenerateContentResponse` (first of `candidates`) | its `content` | `functionCall` parts |
///
/// Blocks, items and parts that are not tool calls are skipped (Anthropic's `server_tool_use`
/// and `tool_search_tool_result` blocks, a `tool_search_call` the server ran and its
/// `tool_search_output`, which the model's turn keeps). OpenAI argument strings are
/// parsed here: an empty one is `{}`, invalid JSON or a non-object is
/// [`CallArguments::Invalid`] (answered as an `isError` result by [`run_calls`]).
///
/// # Errors
///
/// [`Error::Json`] with the JSON Pointer of the offending value when the response does not
/// have the provider's shape: no `content`/`choices`/`output`/`candidates` (nor the inner
/// value), an empty `choices` or `candidates`, a call without its ID (Anthropic, OpenAI; a
/// client `tool_search_call` without `call_id`) or name, a member of the wrong type.
pub fn read_calls(provider: Provider, response: &Value) -> Result<Vec<ModelCall>, Error> {
    match provider {
        Provider::Anthropic => anthropic::read(response),
        Provider::OpenAiChat => openai_chat::read(response),
        Provider::OpenAiResponses => openai_responses::read(response),
        Provider::Gemini => gemini::read(response),
    }
}

/// The tool searches the provider ran itself in `response` ([`ServerSearch`]), in order:
/// Anthropic's server tool search (`server_tool_use` blocks of `tool_search_tool_bm25` /
/// `tool_search_tool_regex`, with the `tool_reference`s or the error of their
/// `tool_search_tool_result`), OpenAI Responses' hosted search (`tool_search_call` and
/// `tool_search_output` items whose `execution` is not `"client"`). None for OpenAI Chat and
/// Gemini, which have no search of their own. [`read_calls`] skips these blocks and items
/// (the provider ran them), and [`model_turn`] keeps them; this reads what they found, for
/// the host to log.
///
/// `response` is what [`read_calls`] takes.
///
/// # Errors
///
/// As [`read_calls`] for a response without the provider's shape; [`Error::Json`] at the
/// offending pointer for a search block or item without its ID, a reference without its
/// `tool_name`, a loaded tool without its `name`, a member of the wrong type.
///
/// ```
/// use serde_json::json;
/// use toolmodel::model_calls::{Provider, read_calls, read_server_searches};
///
/// let message = json!({"content": [
///     {"type": "server_tool_use", "id": "srvtoolu_1", "name": "tool_search_tool_bm25",
///      "input": {"query": "weather"}},
///     {"type": "tool_search_tool_result", "tool_use_id": "srvtoolu_1",
///      "content": {"type": "tool_search_tool_search_result",
///                  "tool_references": [{"type": "tool_reference", "tool_name": "get_forecast"}]}}]});
/// assert!(read_calls(Provider::Anthropic, &message)?.is_empty()); // Anthropic ran it
/// let searches = read_server_searches(Provider::Anthropic, &message)?;
/// assert_eq!(searches[0].arguments["query"], "weather");
/// assert_eq!(searches[0].tools, [(None, "get_forecast".to_owned())]);
/// # Ok::<(), toolmodel::Error>(())
/// ```
pub fn read_server_searches(
    provider: Provider,
    response: &Value,
) -> Result<Vec<ServerSearch>, Error> {
    match provider {
        Provider::Anthropic => anthropic::server_searches(response),
        Provider::OpenAiResponses => openai_responses::server_searches(response),
        Provider::OpenAiChat | Provider::Gemini => Ok(Vec::new()),
    }
}

/// The tool calls of a model's response body, read from its JSON text: [`read_calls`] of the
/// body parsed, without building the body's tree. The provider's members holding the calls
/// are read straight into the [`ModelCall`]s (strings borrowed from `body` until copied into
/// the calls, every other member skipped), which is what an HTTP client has in hand; the
/// result is the same as `read_calls(provider, &serde_json::from_slice(body)?)`.
///
/// `body` is the whole response (Anthropic Message, chat completion, Responses response,
/// `GenerateContentResponse`); the parts [`read_calls`] also accepts (content blocks, a
/// message, output items, a content) are read through a `Value`, as is a body whose members
/// do not have the provider's types.
///
/// # Errors
///
/// [`Error::Json`] with the line and column (1-based) when `body` is not JSON; as
/// [`read_calls`] (the JSON Pointer of the offending value) when it does not have the
/// provider's shape.
///
/// ```
/// use toolmodel::model_calls::{CallArguments, Provider, read_calls_from_slice};
///
/// let body = br#"{"content": [{"type": "text", "text": "Let me check."},
///     {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}}]}"#;
/// let calls = read_calls_from_slice(Provider::Anthropic, body)?;
/// assert_eq!(calls[0].name, "get_weather");
/// assert_eq!(calls[0].pointer, "/content/1");
/// assert!(matches!(&calls[0].arguments, CallArguments::Object(map) if map["city"] == "Paris"));
///
/// let err = read_calls_from_slice(Provider::Anthropic, b"{\"content\": [").unwrap_err();
/// assert!(matches!(err, toolmodel::Error::Json { line: 1, column: 13, .. }));
/// # Ok::<(), toolmodel::Error>(())
/// ```
pub fn read_calls_from_slice(provider: Provider, body: &[u8]) -> Result<Vec<ModelCall>, Error> {
    let typed = match provider {
        Provider::Anthropic => anthropic::read_text(body),
        Provider::OpenAiChat => openai_chat::read_text(body),
        Provider::OpenAiResponses => openai_responses::read_text(body),
        Provider::Gemini => gemini::read_text(body),
    };
    match typed {
        Some(calls) => Ok(calls),
        None => {
            let response: Value =
                crate::json::deserialize_text(serde_json::Deserializer::from_slice(body))?;
            read_calls(provider, &response)
        }
    }
}

// Here, beside `read_calls` (its inverse) and the other dispatches to the provider modules:
// `model_call.rs` stays free of the provider modules, which import it.
impl ModelCall {
    /// Writes the call in `provider`'s format, as the model sent it: an Anthropic `tool_use`
    /// block, an OpenAI Chat `tool_calls[]` entry, an OpenAI Responses `function_call` item (a
    /// `tool_search_call` item for [`CallKind::ToolSearch`]) or a Gemini part with
    /// `functionCall` (and `thoughtSignature`). Reading it back with
    /// [`read_calls`] gives this call (but for the pointer); a missing ID is written as `""`
    /// where the provider requires one.
    #[must_use]
    pub fn to_json(&self, provider: Provider) -> Value {
        match provider {
            Provider::Anthropic => anthropic::write_call(self),
            Provider::OpenAiChat => openai_chat::write_call(self),
            Provider::OpenAiResponses => openai_responses::write_call(self),
            Provider::Gemini => gemini::write_call(self),
        }
    }
}

/// The answer to the calls, in the provider's format: what to append to the conversation
/// (`messages`, `input` or `contents`) after the model's turn, one message or item per
/// element of the JSON array it serializes as:
///
/// - Anthropic: one `user` message with a `tool_result` block per outcome (the result of a
///   search that found tools: its `tool_reference` blocks);
/// - OpenAI Chat: a `role: "tool"` message per outcome;
/// - OpenAI Responses: a `function_call_output` item per outcome (a `tool_search_output` item
///   for a [`CallKind::ToolSearch`] outcome);
/// - Gemini: one `user` content with a `functionResponse` part per outcome.
///
/// The [`Answer`] borrows `outcomes` and builds nothing: serialize it into the request body,
/// or take [`Answer::to_values`]. The [module docs](self) give the rule for each kind of
/// content.
#[must_use]
pub fn answer(provider: Provider, outcomes: &[ToolOutcome]) -> Answer<'_> {
    Answer::new(provider, outcomes)
}

/// The model's turn of `response`, as the next request must repeat it: the Anthropic
/// `assistant` message with the response's content blocks, the OpenAI Chat assistant message
/// (`content`, `tool_calls`, `refusal`), the OpenAI Responses output items, or the Gemini
/// candidate's content (`role: "model"`, `thoughtSignature`s kept).
///
/// # Errors
///
/// As [`read_calls`], for a response without the provider's shape.
pub fn model_turn(provider: Provider, response: &Value) -> Result<Vec<Value>, Error> {
    match provider {
        Provider::Anthropic => anthropic::assistant_turn(response),
        Provider::OpenAiChat => openai_chat::assistant_turn(response),
        Provider::OpenAiResponses => openai_responses::assistant_turn(response),
        Provider::Gemini => gemini::assistant_turn(response),
    }
}

/// Appends to the request `body` the model's turn of `response` ([`model_turn`]) and the
/// [`answer`] to `outcomes`, in the conversation list of the provider
/// ([`Provider::conversation_key`]): the body of the next request. An absent list is created;
/// an OpenAI Responses `input` given as a string becomes a `user` message first.
///
/// # Errors
///
/// [`Error::Json`] when `body` is not an object, or its conversation member is not an array
/// (nor a string, for OpenAI Responses); as [`model_turn`] for `response`.
pub fn extend_request(
    provider: Provider,
    body: &mut Value,
    response: &Value,
    outcomes: &[ToolOutcome],
) -> Result<(), Error> {
    let turn = model_turn(provider, response)?;
    let key = provider.conversation_key();
    let Value::Object(map) = body else {
        return Err(shape_error("", "expected a request body (a JSON object)"));
    };
    let list = map.entry(key).or_insert_with(|| Value::Array(Vec::new()));
    if let Value::String(text) = list
        && provider == Provider::OpenAiResponses
    {
        let message = object([
            ("role", Value::from("user")),
            ("content", Value::String(std::mem::take(text))),
        ]);
        *list = Value::Array(vec![message]);
    }
    let Value::Array(items) = list else {
        return Err(shape_error(
            &format!("/{key}"),
            format!("expected an array, found {}", json_type(list)),
        ));
    };
    items.extend(turn);
    items.extend(answer(provider, outcomes).to_values());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A provider's typed reader of a response text.
    type ReadText = fn(&[u8]) -> Option<Vec<ModelCall>>;

    #[test]
    fn whole_bodies_are_read_without_a_value_and_parts_through_one() {
        let bodies: [(Provider, ReadText, &str, &str); 4] = [
            (
                Provider::Anthropic,
                anthropic::read_text,
                r#"{"id": "m", "content": [{"type": "text", "text": "hi"},
                    {"type": "tool_use", "id": "a", "name": "x", "input": {"k": [1, {"j": null}]}}]}"#,
                r#"[{"type": "tool_use", "id": "a", "name": "x", "input": {}}]"#,
            ),
            (
                Provider::OpenAiChat,
                openai_chat::read_text,
                r#"{"choices": [{"index": 0, "message": {"role": "assistant", "content": null,
                    "tool_calls": [{"id": "a", "type": "function",
                    "function": {"name": "x", "arguments": "{\"k\": 1}"}}]}}]}"#,
                r#"{"role": "assistant", "tool_calls": []}"#,
            ),
            (
                Provider::OpenAiResponses,
                openai_responses::read_text,
                r#"{"output": [{"type": "reasoning", "summary": []}, {"type": "function_call",
                    "call_id": "a", "name": "x", "namespace": "n", "arguments": "{}"}]}"#,
                r#"[{"type": "function_call", "call_id": "a", "name": "x"}]"#,
            ),
            (
                Provider::Gemini,
                gemini::read_text,
                r#"{"candidates": [{"content": {"role": "model", "parts": [{"text": "hi"},
                    {"functionCall": {"name": "x", "args": {"k": 1}}, "thoughtSignature": "s"}]}}]}"#,
                r#"{"parts": [{"functionCall": {"name": "x"}}]}"#,
            ),
        ];
        for (provider, read_text, body, part) in bodies {
            let typed = read_text(body.as_bytes());
            let parsed: Value = serde_json::from_str(body).unwrap();
            assert_eq!(
                typed,
                Some(read_calls(provider, &parsed).unwrap()),
                "{provider}"
            );
            assert_eq!(typed.map(|calls| calls.len()), Some(1), "{provider}");
            assert_eq!(read_text(part.as_bytes()), None, "{provider}");
            let parsed: Value = serde_json::from_str(part).unwrap();
            assert_eq!(
                read_calls_from_slice(provider, part.as_bytes()).unwrap(),
                read_calls(provider, &parsed).unwrap(),
                "{provider}"
            );
        }
    }
}
