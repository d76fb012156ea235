//! Asking the client for input during a call: typed [`InputRequest`]s (form and URL
//! elicitation, sampling, roots) and the client's typed answers ([`InputResponses`]), the same
//! for both eras of MCP (see [`CallContext::input`](crate::CallContext::input)); the client
//! capabilities they need ([`ClientCapability`], refused with
//! [`MISSING_REQUIRED_CLIENT_CAPABILITY`]); and the [`RoundState`] a server keeps between
//! MCP 2026-07-28 input rounds.
//!
//! ```
//! use serde_json::json;
//! use toolmodel::{
//!     CallContext, ToolError,
//!     input::{ElicitRequest, InputRequest, InputRequests, RoundState},
//! };
//!
//! async fn confirm(cx: &CallContext) -> Result<bool, ToolError> {
//!     let ask = InputRequest::Elicit(ElicitRequest::form(
//!         "Delete the file?",
//!         json!({"type": "object", "properties": {"ok": {"type": "boolean"}}}),
//!     ));
//!     let answers = cx.input(InputRequests::new().with("ok", ask)).await?;
//!     Ok(answers.elicit("ok").and_then(|r| r.field("ok")) == Some(&json!(true)))
//! }
//!
//! # pollster::block_on(async {
//! // MCP 2026-07-28: the first round asks, the retry carries the answer.
//! let cx = CallContext::new().with_round_state(RoundState::default());
//! assert!(matches!(confirm(&cx).await, Err(ToolError::InputRequired(_))));
//! let mut state = cx.round_state();
//! state.answers.insert("ok".into(), json!({"action": "accept", "content": {"ok": true}}));
//! let cx = CallContext::new().with_round_state(state);
//! assert_eq!(confirm(&cx).await, Ok(true));
//! # });
//! ```
//!
//! Sources: MCP 2026-07-28 "Multi Round-Trip Requests" (`InputRequests`, `InputResponses`,
//! `InputRequiredResult`, `MissingRequiredClientCapabilityError`), "Elicitation"
//! (`ElicitRequestFormParams`, `ElicitRequestURLParams`, `ElicitResult`), "Sampling"
//! (`CreateMessageRequestParams`, `CreateMessageResult`) and "Roots" (`ListRootsResult`); MCP
//! 2025-11-25 sends the same requests as server-to-client JSON-RPC requests.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};

/// JSON-RPC code of MCP 2026-07-28 `MissingRequiredClientCapabilityError`: what
/// [`CallContext::input`](crate::CallContext::input) (and the raw
/// [`create_message`](crate::CallContext::create_message) and
/// [`elicit`](crate::CallContext::elicit)) return when the client's capabilities are known and
/// lack one a request needs; its `data.requiredCapabilities` names them.
pub const MISSING_REQUIRED_CLIENT_CAPABILITY: i64 = -32021;

/// A client capability a request for input needs (MCP `ClientCapabilities`): the client
/// declares it at `initialize` (2025-11-25) or in every request's
/// `_meta["io.modelcontextprotocol/clientCapabilities"]` (2026-07-28).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ClientCapability {
    /// `elicitation` (form mode: `elicitation: {}` or `elicitation.form`).
    ElicitationForm,
    /// `elicitation.url` (URL mode).
    ElicitationUrl,
    /// `sampling`.
    Sampling,
    /// `roots`.
    Roots,
}

impl ClientCapability {
    /// Whether `capabilities` (an MCP `ClientCapabilities` object) declares it. An empty
    /// `elicitation: {}` declares form mode only (MCP 2025-11-25, "Elicitation": "for
    /// backwards compatibility, an empty elicitation object is equivalent to declaring
    /// support for form mode only").
    #[must_use]
    pub fn declared_in(self, capabilities: &Value) -> bool {
        let has = |pointer: &str| capabilities.pointer(pointer).is_some_and(Value::is_object);
        match self {
            Self::ElicitationForm => {
                has("/elicitation/form")
                    || capabilities
                        .get("elicitation")
                        .and_then(Value::as_object)
                        .is_some_and(|elicitation| {
                            !elicitation.contains_key("url") || elicitation.contains_key("form")
                        })
            }
            Self::ElicitationUrl => has("/elicitation/url"),
            Self::Sampling => has("/sampling"),
            Self::Roots => has("/roots"),
        }
    }

    /// The capability as a `ClientCapabilities` fragment, for the `requiredCapabilities` of a
    /// `MissingRequiredClientCapability` error (`{"sampling": {}}`, `{"elicitation":
    /// {"url": {}}}`, ...).
    #[must_use]
    pub fn as_capabilities(self) -> Value {
        match self {
            Self::ElicitationForm => json!({"elicitation": {"form": {}}}),
            Self::ElicitationUrl => json!({"elicitation": {"url": {}}}),
            Self::Sampling => json!({"sampling": {}}),
            Self::Roots => json!({"roots": {}}),
        }
    }
}

/// What a handler asks the user for: `elicitation/create` (MCP "Elicitation").
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ElicitRequest {
    /// Form mode: the client shows `message` and a form for `requested_schema` (a flat
    /// object schema of primitive properties; MCP `ElicitRequestFormParams`).
    Form {
        /// What to ask, for a person.
        message: String,
        /// The `requestedSchema`: `{"type": "object", "properties": {...}, "required": [...]}`.
        requested_schema: Value,
    },
    /// URL mode: the client sends the user to `url` (out of band, for credentials or payment;
    /// MCP `ElicitRequestURLParams`).
    Url {
        /// Why the user should open the URL.
        message: String,
        /// The URL.
        url: String,
        /// The server's identifier of this elicitation (`elicitationId`).
        elicitation_id: String,
    },
}

impl ElicitRequest {
    /// A form-mode request.
    pub fn form(message: impl Into<String>, requested_schema: Value) -> Self {
        Self::Form {
            message: message.into(),
            requested_schema,
        }
    }

    /// A URL-mode request.
    pub fn url(
        message: impl Into<String>,
        url: impl Into<String>,
        elicitation_id: impl Into<String>,
    ) -> Self {
        Self::Url {
            message: message.into(),
            url: url.into(),
            elicitation_id: elicitation_id.into(),
        }
    }
}

/// One request for input (MCP 2026-07-28 `InputRequests` values: `ElicitRequest`,
/// `CreateMessageRequest` or `ListRootsRequest`).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum InputRequest {
    /// `elicitation/create`.
    Elicit(ElicitRequest),
    /// `sampling/createMessage`, with its `CreateMessageRequestParams` (`messages`,
    /// `maxTokens`, and any optional field) as JSON.
    CreateMessage(Map<String, Value>),
    /// `roots/list`.
    ListRoots,
}

impl InputRequest {
    /// A `sampling/createMessage` request of one user text message.
    pub fn sample_text(text: impl Into<String>, max_tokens: u32) -> Self {
        let params = json!({
            "messages": [{"role": "user", "content": {"type": "text", "text": text.into()}}],
            "maxTokens": max_tokens,
        });
        match params {
            Value::Object(params) => Self::CreateMessage(params),
            _ => Self::CreateMessage(Map::new()),
        }
    }

    /// The MCP method: `elicitation/create`, `sampling/createMessage` or `roots/list`.
    #[must_use]
    pub fn method(&self) -> &'static str {
        match self {
            Self::Elicit(_) => "elicitation/create",
            Self::CreateMessage(_) => "sampling/createMessage",
            Self::ListRoots => "roots/list",
        }
    }

    /// The client capability the request needs.
    #[must_use]
    pub fn capability(&self) -> ClientCapability {
        match self {
            Self::Elicit(ElicitRequest::Form { .. }) => ClientCapability::ElicitationForm,
            Self::Elicit(ElicitRequest::Url { .. }) => ClientCapability::ElicitationUrl,
            Self::CreateMessage(_) => ClientCapability::Sampling,
            Self::ListRoots => ClientCapability::Roots,
        }
    }

    /// The request's `params` as MCP JSON.
    #[must_use]
    pub fn params(&self) -> Value {
        match self {
            Self::Elicit(ElicitRequest::Form {
                message,
                requested_schema,
            }) => json!({"mode": "form", "message": message, "requestedSchema": requested_schema}),
            Self::Elicit(ElicitRequest::Url {
                message,
                url,
                elicitation_id,
            }) => {
                json!({"mode": "url", "message": message, "url": url, "elicitationId": elicitation_id})
            }
            Self::CreateMessage(params) => Value::Object(params.clone()),
            Self::ListRoots => json!({}),
        }
    }

    /// The request as an MCP 2026-07-28 `InputRequests` value: `{"method": ..., "params":
    /// ...}`.
    #[must_use]
    pub fn to_json(&self) -> Value {
        json!({"method": self.method(), "params": self.params()})
    }

    /// Reads the client's answer to this request (`ElicitResult`, `CreateMessageResult` or
    /// `ListRootsResult`).
    ///
    /// # Errors
    ///
    /// The `serde_json` error when `answer` is not the result this request calls for.
    pub fn read_answer(&self, answer: Value) -> Result<InputResponse, serde_json::Error> {
        Ok(match self {
            Self::Elicit(_) => InputResponse::Elicit(serde_json::from_value(answer)?),
            Self::CreateMessage(_) => InputResponse::CreateMessage(serde_json::from_value(answer)?),
            Self::ListRoots => InputResponse::ListRoots(serde_json::from_value(answer)?),
        })
    }
}

/// Several requests for input, each under a key the handler chooses (MCP 2026-07-28
/// `InputRequests`: the keys are server-assigned and unique within the request). A
/// 2026-07-28 client fulfils them all in one round; older clients get them one after
/// another, in key order.
///
/// ```
/// use serde_json::json;
/// use toolmodel::input::{ElicitRequest, InputRequest, InputRequests};
///
/// let requests = InputRequests::new()
///     .with("user_name", InputRequest::Elicit(ElicitRequest::form(
///         "What is your name?",
///         json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
///     )))
///     .with("greeting", InputRequest::sample_text("Generate a greeting", 50))
///     .with("client_roots", InputRequest::ListRoots);
/// assert_eq!(requests.len(), 3);
/// assert_eq!(requests.to_json()["client_roots"], json!({"method": "roots/list", "params": {}}));
/// ```
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputRequests(BTreeMap<String, InputRequest>);

impl InputRequests {
    /// No request yet.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Adds `request` under `key` (replacing a request already under that key).
    #[must_use]
    pub fn with(mut self, key: impl Into<String>, request: InputRequest) -> Self {
        self.0.insert(key.into(), request);
        self
    }

    /// Adds `request` under `key` (replacing a request already under that key).
    pub fn insert(&mut self, key: impl Into<String>, request: InputRequest) {
        self.0.insert(key.into(), request);
    }

    /// How many requests.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }

    /// The requests, in key order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &InputRequest)> {
        self.0.iter().map(|(key, request)| (key.as_str(), request))
    }

    /// The request under `key`.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&InputRequest> {
        self.0.get(key)
    }

    /// The MCP 2026-07-28 `InputRequests` object.
    #[must_use]
    pub fn to_json(&self) -> Value {
        Value::Object(
            self.0
                .iter()
                .map(|(key, request)| (key.clone(), request.to_json()))
                .collect(),
        )
    }
}

/// What the user did with an elicitation (MCP `ElicitResult.action`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ElicitAction {
    /// The user submitted the form (or consented to the URL).
    Accept,
    /// The user said no.
    Decline,
    /// The user dismissed the request.
    Cancel,
}

/// The client's answer to an `elicitation/create` (MCP `ElicitResult`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ElicitResult {
    /// What the user did.
    pub action: ElicitAction,
    /// The submitted values (form mode, `accept` only), by the `requestedSchema`'s property
    /// names.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

impl ElicitResult {
    /// The accepted form's value for `field`, if the user accepted and filled it in.
    #[must_use]
    pub fn field(&self, field: &str) -> Option<&Value> {
        match self.action {
            ElicitAction::Accept => self.content.as_ref()?.get(field),
            ElicitAction::Decline | ElicitAction::Cancel => None,
        }
    }
}

/// The client's answer to a `sampling/createMessage` (MCP `CreateMessageResult`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CreateMessageResult {
    /// The role of the message (`assistant`).
    pub role: String,
    /// The content: one content block, or (2025-11-25 and later) an array of them.
    pub content: Value,
    /// The model that answered.
    pub model: String,
    /// Why the model stopped (`endTurn`, `stopSequence`, `maxTokens`, `toolUse`, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
}

impl CreateMessageResult {
    /// The text of the content: a text block's `text`, or the texts of an array's text
    /// blocks, joined.
    #[must_use]
    pub fn text(&self) -> Option<String> {
        match &self.content {
            Value::Array(blocks) => {
                let texts: Vec<&str> = blocks
                    .iter()
                    .filter_map(|block| block.get("text").and_then(Value::as_str))
                    .collect();
                (!texts.is_empty()).then(|| texts.concat())
            }
            block => block.get("text").and_then(Value::as_str).map(str::to_owned),
        }
    }
}

/// One root the client exposes (MCP `Root`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Root {
    /// The root's URI (`file://...`).
    pub uri: String,
    /// Its name, for display.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// The client's answer to a `roots/list` (MCP `ListRootsResult`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ListRootsResult {
    /// The roots.
    pub roots: Vec<Root>,
}

/// The client's typed answer to one [`InputRequest`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum InputResponse {
    /// To an `elicitation/create`.
    Elicit(ElicitResult),
    /// To a `sampling/createMessage`.
    CreateMessage(CreateMessageResult),
    /// To a `roots/list`.
    ListRoots(ListRootsResult),
}

/// The answers to an [`InputRequests`], under the same keys.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct InputResponses(BTreeMap<String, InputResponse>);

impl InputResponses {
    pub(crate) fn insert(&mut self, key: String, response: InputResponse) {
        self.0.insert(key, response);
    }

    /// The answer under `key`.
    #[must_use]
    pub fn get(&self, key: &str) -> Option<&InputResponse> {
        self.0.get(key)
    }

    /// The elicitation answer under `key` (`None` when the key holds another kind).
    #[must_use]
    pub fn elicit(&self, key: &str) -> Option<&ElicitResult> {
        match self.0.get(key)? {
            InputResponse::Elicit(result) => Some(result),
            _ => None,
        }
    }

    /// The sampling answer under `key`.
    #[must_use]
    pub fn create_message(&self, key: &str) -> Option<&CreateMessageResult> {
        match self.0.get(key)? {
            InputResponse::CreateMessage(result) => Some(result),
            _ => None,
        }
    }

    /// The roots answer under `key`.
    #[must_use]
    pub fn roots(&self, key: &str) -> Option<&ListRootsResult> {
        match self.0.get(key)? {
            InputResponse::ListRoots(result) => Some(result),
            _ => None,
        }
    }

    /// How many answers.
    #[must_use]
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there is none.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// A call that needs input before it can finish (MCP 2026-07-28 `InputRequiredResult`):
/// what [`CallContext::input`](crate::CallContext::input) returns, as
/// [`ToolError::InputRequired`](crate::ToolError::InputRequired), when the client has not yet
/// answered every request. The server answers the call with an `InputRequiredResult` of these
/// `inputRequests` and a `requestState` carrying the answers so far and the handler's state
/// ([`CallContext::set_state`](crate::CallContext::set_state)).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct InputRequired {
    /// The requests the client has not answered yet.
    pub requests: InputRequests,
}

impl InputRequired {
    /// The keys of the requests, comma-separated (for messages).
    #[must_use]
    pub fn keys(&self) -> String {
        self.requests
            .iter()
            .map(|(key, _)| key)
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The state a call keeps from one MCP 2026-07-28 input round to the next (inside the
/// `requestState` the server seals): the answers the handler already read and its own state.
///
/// A server reads it back from a verified `requestState`
/// ([`CallContext::with_round_state`](crate::CallContext::with_round_state)) and writes it
/// after a round ([`CallContext::round_state`](crate::CallContext::round_state)); its JSON is
/// `{"answers": {...}, "state": ...}`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct RoundState {
    /// The client's raw answers by key, from this round and the ones before.
    #[serde(default)]
    pub answers: Map<String, Value>,
    /// The handler's own state ([`CallContext::set_state`](crate::CallContext::set_state)).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<Value>,
}

impl RoundState {
    /// The answers so far and the handler's state.
    #[must_use]
    pub fn new(answers: Map<String, Value>, state: Option<Value>) -> Self {
        Self { answers, state }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_read_the_client_s_declaration() {
        let empty = json!({"elicitation": {}});
        assert!(ClientCapability::ElicitationForm.declared_in(&empty));
        assert!(!ClientCapability::ElicitationUrl.declared_in(&empty));
        let url_only = json!({"elicitation": {"url": {}}});
        assert!(!ClientCapability::ElicitationForm.declared_in(&url_only));
        assert!(ClientCapability::ElicitationUrl.declared_in(&url_only));
        let sampling = json!({"sampling": {}});
        assert!(ClientCapability::Sampling.declared_in(&sampling));
        assert!(!ClientCapability::Roots.declared_in(&sampling));
        assert!(!ClientCapability::Sampling.declared_in(&json!({"sampling": true})));
    }

    #[test]
    fn requests_are_written_in_the_mcp_shape() {
        let url = InputRequest::Elicit(ElicitRequest::url("Sign in", "https://x.test/a", "e1"));
        assert_eq!(
            url.to_json(),
            json!({"method": "elicitation/create", "params": {"mode": "url", "message": "Sign in", "url": "https://x.test/a", "elicitationId": "e1"}})
        );
        assert_eq!(url.capability(), ClientCapability::ElicitationUrl);
        let sample = InputRequest::sample_text("hi", 5);
        assert_eq!(sample.params()["maxTokens"], json!(5));
        assert_eq!(sample.method(), "sampling/createMessage");
    }

    #[test]
    fn answers_are_read_by_the_request_kind() {
        let elicit = InputRequest::Elicit(ElicitRequest::form("?", json!({"type": "object"})));
        let answer = elicit
            .read_answer(json!({"action": "accept", "content": {"name": "Alice"}}))
            .unwrap();
        let InputResponse::Elicit(result) = answer else {
            panic!("an elicit answer")
        };
        assert_eq!(result.field("name"), Some(&json!("Alice")));
        assert!(elicit.read_answer(json!(12345)).is_err());
        let sample = InputRequest::sample_text("hi", 5);
        let InputResponse::CreateMessage(message) = sample
            .read_answer(json!({"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}], "model": "m"}))
            .unwrap()
        else {
            panic!("a sampling answer")
        };
        assert_eq!(message.text().as_deref(), Some("ab"));
        let roots = InputRequest::ListRoots
            .read_answer(json!({"roots": [{"uri": "file:///a"}]}))
            .unwrap();
        assert!(
            matches!(roots, InputResponse::ListRoots(list) if list.roots[0].uri == "file:///a")
        );
    }
}
