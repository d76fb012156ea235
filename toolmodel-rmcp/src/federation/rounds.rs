//! An upstream's MCP 2026-07-28 input rounds (multi round-trip requests, SEP-2322), relayed
//! to whoever called the federated tool through [`CallContext::input`], the contract local
//! handlers use, so one code path serves both eras of the caller:
//!
//! - the upstream answers `tools/call` with an `InputRequiredResult` (`inputRequests`,
//!   `requestState`); its requests become the caller's [`InputRequests`] ([`Pending`]);
//! - a caller of MCP 2025-11-25 or older is asked at once (elicitation, sampling and roots
//!   requests to the client), and the gateway retries the upstream with the answers
//!   (`inputResponses`) and the upstream's `requestState`;
//! - a 2026-07-28 caller gets the gateway's own `InputRequiredResult`: the same requests,
//!   and the gateway's `requestState`, sealed with its key, carrying the upstream's requests
//!   and `requestState` as the call's state ([`CallContext::set_state`]). Its retry
//!   may reach any gateway replica holding the same key (`MCP_REQUEST_STATE_KEY`): the
//!   replica opens the state, reads the answers and sends the retry upstream. Nothing is kept
//!   in a gateway between rounds.
//!
//! The caller answers under the upstream's own keys. MCP 2026-07-28 makes keys unique within a
//! request; an upstream that asks again under a key the caller already answered in the same
//! run of the gateway's handler gets it asked under `<key>.<n>` (the first free `n` from 2),
//! and the answer goes back under the upstream's key.

use std::collections::{BTreeMap, BTreeSet};

use rmcp::model::{InputRequiredResult, InputResponses as UpstreamResponses};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use toolmodel::{
    CallContext,
    input::{ElicitRequest, InputRequest, InputRequests, InputResponse, InputResponses},
};

/// What an upstream asked for and the state it wants back: the call's state between rounds
/// (JSON `{"upstreamState": ..., "asked": {<caller's key>: {"key": ..., "request": ...}}}`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct Pending {
    /// The upstream's `requestState`, sent back unchanged.
    #[serde(
        rename = "upstreamState",
        default,
        skip_serializing_if = "Option::is_none"
    )]
    pub(crate) upstream_state: Option<String>,
    /// The upstream's `inputRequests`, by the key the caller answers under.
    pub(crate) asked: BTreeMap<String, Asked>,
}

/// One of the upstream's requests.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Asked {
    /// The upstream's key.
    pub(crate) key: String,
    /// The request as MCP JSON (`{"method": ..., "params": ...}`).
    pub(crate) request: Value,
}

impl Pending {
    /// The upstream's `result`, its requests under keys none of `answered` (those the caller
    /// answered in this run) uses.
    ///
    /// # Errors
    ///
    /// A sentence naming the request when it does not serialize.
    pub(crate) fn new(
        result: InputRequiredResult,
        answered: &BTreeSet<String>,
    ) -> Result<Self, String> {
        let mut asked = BTreeMap::new();
        for (key, request) in result.input_requests.unwrap_or_default() {
            let request = serde_json::to_value(&request)
                .map_err(|err| format!("inputRequests/{key}: {err}"))?;
            let mut caller_key = key.clone();
            let mut n = 2u32;
            while answered.contains(&caller_key) || asked.contains_key(&caller_key) {
                caller_key = format!("{key}.{n}");
                n = n.saturating_add(1);
            }
            asked.insert(caller_key, Asked { key, request });
        }
        Ok(Self {
            upstream_state: result.request_state,
            asked,
        })
    }

    /// The round `cx` continues: the state a 2026-07-28 caller's retry carried back, when it
    /// is one (a state of anything else is not).
    pub(crate) fn carried(cx: &CallContext) -> Option<Self> {
        let state: Value = cx.state().ok()??;
        serde_json::from_value(state).ok()
    }

    /// The requests for the caller.
    ///
    /// # Errors
    ///
    /// A sentence naming the key when a request is not an `elicitation/create`,
    /// `sampling/createMessage` or `roots/list` that reads.
    pub(crate) fn requests(&self) -> Result<InputRequests, String> {
        let mut requests = InputRequests::new();
        for (key, asked) in &self.asked {
            let request = input_request(&asked.request)
                .map_err(|why| format!("inputRequests/{}: {why}", asked.key))?;
            requests.insert(key.clone(), request);
        }
        Ok(requests)
    }

    /// The caller's `answers` as the upstream's `inputResponses`, under its keys.
    ///
    /// # Errors
    ///
    /// A sentence naming the key when an answer is missing or does not serialize.
    pub(crate) fn responses(&self, answers: &InputResponses) -> Result<UpstreamResponses, String> {
        let mut responses = UpstreamResponses::new();
        for (key, asked) in &self.asked {
            let answer = match answers.get(key) {
                Some(InputResponse::Elicit(result)) => serde_json::to_value(result),
                Some(InputResponse::CreateMessage(result)) => serde_json::to_value(result),
                Some(InputResponse::ListRoots(result)) => serde_json::to_value(result),
                Some(_) | None => return Err(format!("inputResponses/{key}: no answer")),
            }
            .map_err(|err| format!("inputResponses/{key}: {err}"))?;
            responses.insert(asked.key.clone(), answer);
        }
        Ok(responses)
    }

    /// Asks `cx`'s caller for every request (see [`CallContext::input`]) and returns the
    /// answers as the upstream's `inputResponses`. When the caller answers by input rounds
    /// (2026-07-28) and has not answered yet, this round becomes the call's state, which the
    /// server seals into its `requestState`.
    ///
    /// # Errors
    ///
    /// What [`CallContext::input`] returns (under 2026-07-28, [`ToolError::InputRequired`]
    /// until the caller's retry carries the answers); [`ToolError::protocol`] `-32603` for a
    /// request that does not read or an answer that does not serialize.
    ///
    /// [`ToolError::InputRequired`]: toolmodel::ToolError::InputRequired
    /// [`ToolError::protocol`]: toolmodel::ToolError::protocol
    pub(crate) async fn ask(
        &self,
        cx: &CallContext,
        server: &str,
    ) -> Result<UpstreamResponses, toolmodel::ToolError> {
        let refused = |why: String| {
            toolmodel::ToolError::protocol(-32603, format!("server {server:?}: {why}"))
        };
        let requests = self.requests().map_err(refused)?;
        if requests.is_empty() {
            return Ok(UpstreamResponses::new());
        }
        let answers = match cx.input(requests).await {
            Ok(answers) => answers,
            Err(toolmodel::ToolError::InputRequired(required)) => {
                // Kept for the retry only: a caller answered at once leaves no state behind.
                cx.set_state(self)?;
                return Err(toolmodel::ToolError::InputRequired(required));
            }
            Err(err) => return Err(err),
        };
        self.responses(&answers).map_err(refused)
    }
}

/// One MCP 2026-07-28 `InputRequests` value as `toolmodel`'s request.
fn input_request(request: &Value) -> Result<InputRequest, String> {
    let empty = Map::new();
    let params = request
        .get("params")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    let text = |field: &str| -> Result<String, String> {
        params
            .get(field)
            .and_then(Value::as_str)
            .map(str::to_owned)
            .ok_or_else(|| format!("params/{field} is not a string"))
    };
    match request.get("method").and_then(Value::as_str) {
        Some("elicitation/create") => {
            let url = params.get("mode").and_then(Value::as_str) == Some("url");
            Ok(InputRequest::Elicit(if url {
                ElicitRequest::url(text("message")?, text("url")?, text("elicitationId")?)
            } else {
                let schema = params
                    .get("requestedSchema")
                    .cloned()
                    .ok_or("params/requestedSchema is missing")?;
                ElicitRequest::form(text("message")?, schema)
            }))
        }
        Some("sampling/createMessage") => Ok(InputRequest::CreateMessage(params.clone())),
        Some("roots/list") => Ok(InputRequest::ListRoots),
        other => Err(format!(
            "method {other:?} is none of elicitation/create, sampling/createMessage, roots/list"
        )),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn required(value: Value) -> InputRequiredResult {
        serde_json::from_value(value).unwrap()
    }

    #[tokio::test]
    async fn an_upstream_s_requests_reach_the_caller_under_its_keys_and_the_answers_go_back() {
        let result = required(json!({
            "resultType": "input_required",
            "inputRequests": {
                "name": {"method": "elicitation/create", "params": {"mode": "form", "message": "Name?", "requestedSchema": {"type": "object", "properties": {"name": {"type": "string"}}}}},
                "roots": {"method": "roots/list", "params": {}}
            },
            "requestState": "upstream-1"
        }));
        let pending = Pending::new(result, &BTreeSet::new()).unwrap();
        assert_eq!(pending.upstream_state.as_deref(), Some("upstream-1"));
        let requests = pending.requests().unwrap();
        assert_eq!(requests.get("roots"), Some(&InputRequest::ListRoots));
        assert!(matches!(
            requests.get("name"),
            Some(InputRequest::Elicit(ElicitRequest::Form { message, .. })) if message == "Name?"
        ));
        let round = toolmodel::input::RoundState::new(
            [
                (
                    "name".to_owned(),
                    json!({"action": "accept", "content": {"name": "Ada"}}),
                ),
                ("roots".to_owned(), json!({"roots": [{"uri": "file:///a"}]})),
            ]
            .into_iter()
            .collect(),
            None,
        );
        let cx = CallContext::new().with_round_state(round);
        let responses = pending.ask(&cx, "s").await.unwrap();
        assert_eq!(responses["name"]["content"]["name"], "Ada");
        assert_eq!(responses["roots"]["roots"][0]["uri"], "file:///a");
    }

    #[tokio::test]
    async fn a_round_not_answered_yet_becomes_the_call_s_state_and_no_other_state_is_read_as_one() {
        let result = required(json!({
            "resultType": "input_required",
            "inputRequests": {"client_roots": {"method": "roots/list", "params": {}}},
            "requestState": "upstream-2"
        }));
        let pending = Pending::new(result, &BTreeSet::new()).unwrap();
        let cx = CallContext::new().with_round_state(toolmodel::input::RoundState::default());
        assert_eq!(Pending::carried(&cx), None);
        let err = pending.ask(&cx, "s").await.unwrap_err();
        assert!(
            matches!(err, toolmodel::ToolError::InputRequired(_)),
            "{err}"
        );
        assert_eq!(Pending::carried(&cx), Some(pending));
        cx.set_state(&json!({"draft": 1})).unwrap();
        assert_eq!(Pending::carried(&cx), None);
    }

    #[test]
    fn a_key_answered_in_this_run_is_asked_again_under_a_new_one() {
        let result = required(json!({
            "resultType": "input_required",
            "inputRequests": {"name": {"method": "roots/list"}}
        }));
        let answered: BTreeSet<String> = ["name".to_owned(), "name.2".to_owned()].into();
        let pending = Pending::new(result, &answered).unwrap();
        let keys: Vec<(&str, &str)> = pending
            .asked
            .iter()
            .map(|(mine, asked)| (mine.as_str(), asked.key.as_str()))
            .collect();
        assert_eq!(keys, [("name.3", "name")]);
    }

    #[test]
    fn a_request_of_an_unknown_method_is_refused_naming_its_key() {
        let pending = Pending {
            upstream_state: None,
            asked: [(
                "k".to_owned(),
                Asked {
                    key: "k".to_owned(),
                    request: json!({"method": "tools/call"}),
                },
            )]
            .into(),
        };
        let err = pending.requests().unwrap_err();
        assert!(err.starts_with("inputRequests/k: method"), "{err}");
    }
}
