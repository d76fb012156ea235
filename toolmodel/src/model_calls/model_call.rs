//! [`ModelCall`]: one tool call a model made, the same value for every provider.

use serde_json::{Map, Value};

use crate::model::schema::json_type;

/// What is wrong with the arguments of a custom tool call (OpenAI's free-form input), which
/// is answered rather than dropped.
pub(crate) const CUSTOM_CALL_PROBLEM: &str =
    "a custom tool call (free-form input) to a tool that takes JSON arguments";

/// One tool call read from a model's response ([`read_calls`](super::read_calls)).
///
/// The name is the one the model sent (the provider name of the tool, which
/// [`ModelTools`](super::ModelTools) routes back to the MCP name); `id` is what the answer
/// must echo. Arguments that are not a JSON object are kept as [`CallArguments::Invalid`], so
/// that running the call gives the model an `isError` result instead of dropping it.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ModelCall {
    /// The call's ID: Anthropic `tool_use.id`, OpenAI Chat `tool_calls[].id`, OpenAI
    /// Responses `call_id`, Gemini `functionCall.id` (optional there: `None` when absent).
    pub id: Option<String>,
    /// The function name, as the model sent it.
    pub name: String,
    /// OpenAI Responses: the `namespace` of the function (a `namespace` tool); `None`
    /// elsewhere.
    pub namespace: Option<String>,
    /// The arguments.
    pub arguments: CallArguments,
    /// Gemini: the `thoughtSignature` of the part that held the call, which Gemini 3 requires
    /// back with the call in the conversation (the model turn appended by
    /// [`extend_request`](super::extend_request) keeps it; [`ModelCall::to_json`] writes it).
    pub thought_signature: Option<String>,
    /// Where the call was read: a JSON Pointer into the response (`/content/1`,
    /// `/choices/0/message/tool_calls/0`, `/output/2`, `/candidates/0/content/parts/0`).
    pub pointer: String,
    /// What was called: a function (every provider), or OpenAI Responses' own tool search.
    pub kind: CallKind,
}

/// What a [`ModelCall`] calls.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CallKind {
    /// A function: Anthropic `tool_use`, OpenAI Chat `tool_calls[]`, OpenAI Responses
    /// `function_call`, Gemini `functionCall` (toolmodel's `search_tools` and `call_tool`
    /// included, see [`ToolSearch`](super::ToolSearch)).
    #[default]
    Function,
    /// An OpenAI Responses `tool_search_call` with `execution: "client"` (openai-python
    /// `ResponseToolSearchCall`): the search [`ToolSearch`](super::ToolSearch) lists, which
    /// [`run_calls`](super::run_calls) runs and [`answer`](super::answer) answers with a
    /// `tool_search_output` item. Its [`name`](ModelCall::name) is `"tool_search"` and its
    /// arguments the call's `arguments` object. [`ModelCall::to_json`] writes it back as a
    /// `tool_search_call` for OpenAI Responses, as a function call for the other providers.
    ToolSearch,
}

/// The arguments of a [`ModelCall`].
#[derive(Clone, Debug, PartialEq)]
pub enum CallArguments {
    /// A JSON object (an absent or empty argument string reads as `{}`).
    Object(Map<String, Value>),
    /// Not a JSON object: invalid JSON (OpenAI sends arguments as a string the model wrote),
    /// or another JSON value. Running the call answers with an `isError` result that
    /// quotes `problem`.
    Invalid {
        /// The arguments as received (the string, or the JSON text of a non-object value).
        text: String,
        /// What is wrong, with the line and column for invalid JSON.
        problem: String,
    },
}

impl CallArguments {
    /// Reads an argument string (OpenAI): `{}` for an empty or all-blank string, the object
    /// it holds, or [`Invalid`](Self::Invalid) naming the line and column of the JSON error,
    /// or the type of a JSON value that is not an object.
    #[must_use]
    pub fn from_json_text(text: &str) -> Self {
        if text.trim().is_empty() {
            return Self::Object(Map::new());
        }
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => Self::Object(map),
            Ok(other) => Self::Invalid {
                text: text.to_owned(),
                problem: format!(
                    "the arguments must be a JSON object, found {}",
                    json_type(&other)
                ),
            },
            Err(err) => Self::Invalid {
                text: text.to_owned(),
                problem: format!("the arguments are not valid JSON: {err}"),
            },
        }
    }

    /// Reads an argument value (Anthropic `input`, Gemini `args`): the object, `{}` for an
    /// absent value or `null`, [`Invalid`](Self::Invalid) for any other value.
    #[must_use]
    pub fn from_value(value: Option<&Value>) -> Self {
        Self::from_owned(value.cloned())
    }

    /// [`from_value`](Self::from_value) of a value read for it (the object moved in).
    pub(crate) fn from_owned(value: Option<Value>) -> Self {
        match value {
            None | Some(Value::Null) => Self::Object(Map::new()),
            Some(Value::Object(map)) => Self::Object(map),
            Some(other) => Self::Invalid {
                text: other.to_string(),
                problem: format!(
                    "the arguments must be a JSON object, found {}",
                    json_type(&other)
                ),
            },
        }
    }

    /// The arguments as JSON text, as OpenAI carries them: the object serialized, or the text
    /// received.
    #[must_use]
    pub fn to_json_text(&self) -> String {
        match self {
            // Serialized where it is (no copy); a map with string keys and `Value`s always
            // serializes.
            Self::Object(map) => serde_json::to_string(map).unwrap_or_default(),
            Self::Invalid { text, .. } => text.clone(),
        }
    }

    /// The arguments as a JSON value, as Anthropic and Gemini carry them: the object, or the
    /// invalid text parsed if it is JSON, else the text as a string.
    #[must_use]
    pub fn to_value(&self) -> Value {
        match self {
            Self::Object(map) => Value::Object(map.clone()),
            Self::Invalid { text, .. } => {
                serde_json::from_str(text).unwrap_or_else(|_| Value::String(text.clone()))
            }
        }
    }
}

impl ModelCall {
    /// A function call ([`CallKind::Function`]) with no ID, namespace or signature, read at
    /// pointer `""`: for tests and for calls built by hand.
    #[must_use]
    pub fn new(name: impl Into<String>, arguments: CallArguments) -> Self {
        Self {
            id: None,
            name: name.into(),
            namespace: None,
            arguments,
            thought_signature: None,
            pointer: String::new(),
            kind: CallKind::Function,
        }
    }

    /// Sets [`id`](Self::id).
    #[must_use]
    pub fn with_id(mut self, id: impl Into<String>) -> Self {
        self.id = Some(id.into());
        self
    }

    /// Sets [`kind`](Self::kind).
    #[must_use]
    pub fn with_kind(mut self, kind: CallKind) -> Self {
        self.kind = kind;
        self
    }

    /// Sets [`namespace`](Self::namespace).
    #[must_use]
    pub fn with_namespace(mut self, namespace: impl Into<String>) -> Self {
        self.namespace = Some(namespace.into());
        self
    }
}
