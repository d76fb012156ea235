//! Asking the client for input during a call ([`CallContext::input`]): through the peer
//! (MCP 2025-11-25 and older, and in a task) or by MCP 2026-07-28 input rounds, whose
//! [`RoundState`] a server carries from one round to the next; the handler's own state; and
//! the raw sampling and elicitation requests. Every path checks the client's declared
//! capabilities the same way first.

use std::{
    collections::BTreeSet,
    sync::{Arc, Mutex, PoisonError},
};

use serde::{Serialize, de::DeserializeOwned};
use serde_json::{Map, Value, json};

use super::CallContext;
use crate::call::input::{
    ClientCapability, InputRequests, InputRequired, InputResponses,
    MISSING_REQUIRED_CLIENT_CAPABILITY, RoundState,
};
use crate::call::peer::TaskPhase;
use crate::call::tool_error::ToolError;
use crate::error::Error;

/// A call's input rounds (MCP 2026-07-28): the answers the client gave so far and the keys
/// the handler asked for in this run.
pub(super) struct Rounds {
    answers: Map<String, Value>,
    asked: BTreeSet<String>,
}

impl CallContext {
    /// Serves the call in MCP 2026-07-28 input rounds (multi round-trip requests): `state`
    /// holds the client's answers so far (those of earlier rounds, read back from the
    /// verified `requestState`, and this retry's `inputResponses`) and the handler's state.
    /// [`input`](Self::input) then answers from them, or ends the run with
    /// [`ToolError::InputRequired`] for what is still missing. A server calls it for every
    /// 2026-07-28 `tools/call`, retry or not; without it, the peer sends requests itself.
    #[must_use]
    pub fn with_round_state(mut self, state: RoundState) -> Self {
        let request = self.request_mut();
        request.rounds = Some(Arc::new(Mutex::new(Rounds {
            answers: state.answers,
            asked: BTreeSet::new(),
        })));
        request.state = Arc::new(Mutex::new(state.state));
        self
    }

    /// The state the next round must carry (for the server, after a run ended with
    /// [`ToolError::InputRequired`]): the answers this run asked for and got, and the
    /// handler's state. Answers the handler never asked for are dropped (MCP 2026-07-28:
    /// the server ignores what it does not need).
    #[must_use]
    pub fn round_state(&self) -> RoundState {
        let answers = self
            .request
            .rounds
            .as_ref()
            .map_or_else(Map::new, |rounds| {
                let rounds = rounds.lock().unwrap_or_else(PoisonError::into_inner);
                rounds
                    .answers
                    .iter()
                    .filter(|(key, _)| rounds.asked.contains(key.as_str()))
                    .map(|(key, answer)| (key.clone(), answer.clone()))
                    .collect()
            });
        RoundState::new(answers, self.state_value())
    }

    /// Asks the client for input: every request of `requests` (form or URL elicitation,
    /// sampling, roots), answered under the same keys, typed. One call works in both eras of
    /// MCP:
    ///
    /// - **2025-11-25 and older**: the peer sends each request to the client
    ///   (server-to-client JSON-RPC requests, in key order) and this returns the answers.
    /// - **2026-07-28** (multi round-trip requests, SEP-2322): when the client has already
    ///   answered every key, this returns the answers at once; otherwise it returns
    ///   [`ToolError::InputRequired`] with the unanswered requests, the handler returns it
    ///   with `?`, the server answers the call with an `InputRequiredResult`, and the client
    ///   retries the call with the answers. **The handler then runs again from the start**.
    /// - **In a task** (the tasks extension, `io.modelcontextprotocol/tasks`, SEP-2663: the peer's
    ///   [`task_phase`](crate::peer::CallPeer::task_phase) is not [`TaskPhase::NoTask`]): the task
    ///   waits in `input_required`, `tasks/get` shows the requests, and when `tasks/update` has
    ///   answered every key this returns the answers. **The handler goes on where it waits** (it is
    ///   not run again: a task keeps running). Input the call needs before it becomes a task:
    ///   [`input_before_task`](Self::input_before_task).
    ///
    /// # Re-entrancy contract
    ///
    /// Under 2026-07-28 a handler that asks for input runs once per round, from its first
    /// line, with the same arguments; every `input` it reached before is answered at once on
    /// the next run, from the answers carried in the `requestState`. So:
    ///
    /// - write the handler as if `input` simply waited for the answers (it does, before
    ///   2026-07-28); several requests in one `input` are one round, several `input` calls
    ///   are several rounds;
    /// - what runs before the last `input` runs again on every round: keep it free of side
    ///   effects, or idempotent (do the work after the last `input`);
    /// - a key names one question for the whole call: use a new key for a new question
    ///   (an answer under a reused key is returned again);
    /// - to carry the handler's own data from one round to the next (a value computed before
    ///   asking, a draft), use [`set_state`](Self::set_state) and [`state`](Self::state);
    ///   the state and the answers travel in the `requestState`, authenticated by the server
    ///   and bound to the tool and its arguments, so keep them small (the server has a size
    ///   limit) and free of secrets (they are signed, not encrypted);
    /// - the client may never retry: do not hold resources across rounds.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolmodel::{
    ///     CallContext, ToolError,
    ///     input::{ElicitRequest, InputRequest, InputRequests, RoundState},
    /// };
    ///
    /// /// The handler's body: two rounds (a name, then a color), and a counter of its own.
    /// async fn greet(cx: &CallContext) -> Result<String, ToolError> {
    ///     let runs: u32 = cx.state()?.unwrap_or(0);
    ///     cx.set_state(&(runs + 1))?;
    ///     let ask = |message: &str, field: &str| InputRequest::Elicit(ElicitRequest::form(
    ///         message,
    ///         json!({"type": "object", "properties": {field: {"type": "string"}}, "required": [field]}),
    ///     ));
    ///     let first = cx.input(InputRequests::new().with("name", ask("Your name?", "name"))).await?;
    ///     let name = first.elicit("name").and_then(|r| r.field("name")).cloned();
    ///     let second = cx.input(InputRequests::new().with("color", ask("Your color?", "color"))).await?;
    ///     let color = second.elicit("color").and_then(|r| r.field("color")).cloned();
    ///     Ok(format!("{} likes {} (run {})", name.unwrap_or_default(), color.unwrap_or_default(), runs + 1))
    /// }
    ///
    /// # pollster::block_on(async {
    /// // Round 1 (2026-07-28): nothing answered yet.
    /// let cx = CallContext::new().with_round_state(RoundState::default());
    /// let Err(ToolError::InputRequired(asked)) = greet(&cx).await else { panic!() };
    /// assert!(asked.requests.get("name").is_some());
    /// // Round 2: the client answers "name"; the server carries what it got.
    /// let mut next = cx.round_state();
    /// next.answers.insert("name".into(), json!({"action": "accept", "content": {"name": "Ada"}}));
    /// let cx = CallContext::new().with_round_state(next);
    /// let Err(ToolError::InputRequired(asked)) = greet(&cx).await else { panic!() };
    /// assert!(asked.requests.get("color").is_some());
    /// // Round 3: "color" too; the handler finishes.
    /// let mut next = cx.round_state();
    /// next.answers.insert("color".into(), json!({"action": "accept", "content": {"color": "green"}}));
    /// let cx = CallContext::new().with_round_state(next);
    /// assert_eq!(greet(&cx).await.unwrap(), "\"Ada\" likes \"green\" (run 3)");
    /// # });
    /// ```
    ///
    /// # Errors
    ///
    /// - [`ToolError::InputRequired`]: 2026-07-28, some request is not answered yet (return
    ///   it: the server turns it into an `InputRequiredResult`).
    /// - [`ToolError::Protocol`] `-32021` (MCP 2026-07-28 `MissingRequiredClientCapability`,
    ///   HTTP 400) when the client's capabilities are known and lack one a request needs
    ///   (`data.requiredCapabilities` names them, e.g. `{"sampling": {}}`); check first with
    ///   [`declares`](Self::declares) to ask something else instead.
    /// - [`ToolError::Protocol`] `-32602` naming `inputResponses/<key>` when the client's
    ///   answer is not the result its request calls for (an `ElicitResult` for an
    ///   elicitation, ...).
    /// - [`ToolError::Protocol`] with the peer's code when the peer could not send a request
    ///   (before 2026-07-28: the client refused it, the connection closed; no peer at all:
    ///   [`Error::NoPeer`]'s `-32603`).
    pub async fn input(&self, requests: InputRequests) -> Result<InputResponses, ToolError> {
        let rounds = match self.request.peer.task_phase() {
            TaskPhase::NoTask => self.request.rounds.as_ref(),
            TaskPhase::NotStarted | TaskPhase::Running => None,
        };
        self.ask(requests, rounds).await
    }

    /// Asks the client for input the call needs **before it becomes a task** (the tasks
    /// extension, `io.modelcontextprotocol/tasks`, SEP-2663): in a call that the server runs
    /// as a task, these requests go by MCP 2026-07-28 multi round-trip requests on the
    /// `tools/call` itself (an `InputRequiredResult`; the handler runs again on the retry, as
    /// [`input`](Self::input) describes), and the task is created only once they are
    /// answered, so a handler can, say, confirm with the user before it starts a long job.
    /// [`input`](Self::input) in such a call parks the task instead (`input_required`,
    /// answered by `tasks/update`, the handler goes on where it waits).
    ///
    /// The task starts at the handler's first suspension (the first `.await` that does not
    /// complete at once): call this before anything that waits. Once the task runs (and in
    /// MCP 2025-11-25 and older, which have no input rounds) it is the same as
    /// [`input`](Self::input); in an ordinary call too.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolmodel::{
    ///     CallContext, ToolError,
    ///     input::{ElicitRequest, InputRequest, InputRequests, RoundState},
    /// };
    ///
    /// async fn report(cx: &CallContext) -> Result<String, ToolError> {
    ///     let ask = InputRequest::Elicit(ElicitRequest::form(
    ///         "Which year?",
    ///         json!({"type": "object", "properties": {"year": {"type": "integer"}}}),
    ///     ));
    ///     let answers = cx.input_before_task(InputRequests::new().with("year", ask)).await?;
    ///     let year = answers.elicit("year").and_then(|r| r.field("year")).cloned();
    ///     // ... the long part, as a task ...
    ///     Ok(format!("report for {}", year.unwrap_or_default()))
    /// }
    ///
    /// # pollster::block_on(async {
    /// // A 2026-07-28 call without the answer: an input round first.
    /// let cx = CallContext::new().with_round_state(RoundState::default());
    /// assert!(matches!(report(&cx).await, Err(ToolError::InputRequired(_))));
    /// # });
    /// ```
    ///
    /// # Errors
    ///
    /// Those of [`input`](Self::input).
    pub async fn input_before_task(
        &self,
        requests: InputRequests,
    ) -> Result<InputResponses, ToolError> {
        let rounds = match self.request.peer.task_phase() {
            TaskPhase::NoTask | TaskPhase::NotStarted => self.request.rounds.as_ref(),
            TaskPhase::Running => None,
        };
        self.ask(requests, rounds).await
    }

    /// Asks by input rounds (`rounds`) or through the peer (`None`).
    async fn ask(
        &self,
        requests: InputRequests,
        rounds: Option<&Arc<Mutex<Rounds>>>,
    ) -> Result<InputResponses, ToolError> {
        let needs = requests.iter().map(|(_, r)| (r.method(), r.capability()));
        self.check_capabilities(needs).map_err(handler_error)?;
        let answers = match rounds {
            None => self
                .request
                .peer
                .input(&requests)
                .await
                .map_err(handler_error)?,
            Some(rounds) => {
                let mut rounds = rounds.lock().unwrap_or_else(PoisonError::into_inner);
                let mut missing = InputRequests::new();
                for (key, request) in requests.iter() {
                    rounds.asked.insert(key.to_owned());
                    if !rounds.answers.contains_key(key) {
                        missing.insert(key, request.clone());
                    }
                }
                if !missing.is_empty() {
                    return Err(ToolError::InputRequired(InputRequired {
                        requests: missing,
                    }));
                }
                requests
                    .iter()
                    .filter_map(|(key, _)| Some((key.to_owned(), rounds.answers.get(key)?.clone())))
                    .collect()
            }
        };
        let mut responses = InputResponses::default();
        for (key, request) in requests.iter() {
            let answer = answers.get(key).cloned().ok_or_else(|| {
                ToolError::protocol(
                    -32603,
                    format!("the peer gave no answer to {} {key:?}", request.method()),
                )
            })?;
            let typed = request.read_answer(answer).map_err(|err| {
                ToolError::protocol(
                    -32602,
                    format!(
                        "inputResponses/{key}: not the result of {}: {err}",
                        request.method()
                    ),
                )
            })?;
            responses.insert(key.to_owned(), typed);
        }
        Ok(responses)
    }

    /// [`Error::Protocol`] `-32021` ([`MISSING_REQUIRED_CLIENT_CAPABILITY`]) unless the
    /// client declared the capability of every `(method, capability)` of `needs`, or its
    /// capabilities are unknown (a local call: the peer decides). The one check of
    /// [`input`](Self::input), [`input_before_task`](Self::input_before_task),
    /// [`create_message`](Self::create_message) and [`elicit`](Self::elicit).
    fn check_capabilities(
        &self,
        needs: impl IntoIterator<Item = (&'static str, ClientCapability)>,
    ) -> Result<(), Error> {
        let Some(capabilities) = &self.request.capabilities else {
            return Ok(());
        };
        let mut required = Map::new();
        let mut methods = BTreeSet::new();
        for (method, capability) in needs {
            if capability.declared_in(capabilities) {
                continue;
            }
            methods.insert(method);
            merge(&mut required, capability.as_capabilities());
        }
        if required.is_empty() {
            return Ok(());
        }
        let names: Vec<&str> = required.keys().map(String::as_str).collect();
        Err(Error::Protocol {
            code: MISSING_REQUIRED_CLIENT_CAPABILITY,
            message: format!(
                "the client did not declare the {} capability that {} needs",
                names.join(", "),
                methods.into_iter().collect::<Vec<_>>().join(", ")
            ),
            data: Some(json!({"requiredCapabilities": required})),
        })
    }

    fn state_value(&self) -> Option<Value> {
        self.request
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// The handler's own state, carried from the round before (MCP 2026-07-28 input
    /// rounds; see [`input`](Self::input)): `None` on the first run, and always before
    /// 2026-07-28, where the handler runs once.
    ///
    /// # Errors
    ///
    /// [`ToolError::Protocol`] `-32602` when the carried state does not read as `T` (the
    /// handler changed its state type between rounds).
    pub fn state<T: DeserializeOwned>(&self) -> Result<Option<T>, ToolError> {
        let state = self.state_value();
        state
            .map(|value| {
                serde_json::from_value(value).map_err(|err| {
                    ToolError::protocol(-32602, format!("requestState: the handler's state: {err}"))
                })
            })
            .transpose()
    }

    /// Sets the handler's own state, for the next round (see [`input`](Self::input)).
    ///
    /// # Errors
    ///
    /// [`ToolError::Protocol`] `-32603` when `value` does not serialize to JSON.
    pub fn set_state<T: Serialize>(&self, value: &T) -> Result<(), ToolError> {
        let value = serde_json::to_value(value).map_err(|err| {
            ToolError::protocol(-32603, format!("the handler's state is not JSON: {err}"))
        })?;
        *self
            .request
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner) = Some(value);
        Ok(())
    }

    /// Asks the client's model for a completion (`sampling/createMessage`) with raw `params`
    /// (MCP `CreateMessageRequestParams`) and returns the client's raw `CreateMessageResult`:
    /// the low-level path under [`input`](Self::input)'s
    /// [`InputRequest::CreateMessage`](crate::input::InputRequest::CreateMessage), for a
    /// handler that needs the result's every field as JSON.
    ///
    /// The client's capabilities are checked as [`input`](Self::input) checks them; then the
    /// request goes straight to the peer's [`CallPeer::create_message`]. There are no input
    /// rounds on this path: under MCP 2026-07-28 servers may not send requests to the client
    /// outside a task, so use [`input`](Self::input), which works in every version.
    ///
    /// # Errors
    ///
    /// [`Error::Protocol`] `-32021` ([`MISSING_REQUIRED_CLIENT_CAPABILITY`]) when the client's
    /// capabilities are known and lack `sampling`; [`Error::NoPeer`] without a peer that
    /// supports it; what the peer returns (the client refused, the connection closed).
    ///
    /// [`CallPeer::create_message`]: crate::peer::CallPeer::create_message
    pub async fn create_message(&self, params: Value) -> Result<Value, Error> {
        self.check_capabilities([("sampling/createMessage", ClientCapability::Sampling)])?;
        self.request.peer.create_message(params).await
    }

    /// Asks the user for input (`elicitation/create`) with raw `params` (MCP
    /// `ElicitRequestParams`: form mode, or URL mode with `"mode": "url"`) and returns the
    /// client's raw `ElicitResult`: the low-level path under [`input`](Self::input)'s
    /// [`InputRequest::Elicit`](crate::input::InputRequest::Elicit).
    ///
    /// The client's capabilities are checked as [`input`](Self::input) checks them
    /// (`elicitation.url` for URL mode, form mode otherwise); then the request goes straight
    /// to the peer's [`CallPeer::elicit`]. There are no input rounds on this path: under MCP
    /// 2026-07-28 servers may not send requests to the client outside a task, so use
    /// [`input`](Self::input), which works in every version.
    ///
    /// # Errors
    ///
    /// [`Error::Protocol`] `-32021` ([`MISSING_REQUIRED_CLIENT_CAPABILITY`]) when the client's
    /// capabilities are known and lack the elicitation mode; [`Error::NoPeer`] without a peer
    /// that supports it; what the peer returns.
    ///
    /// [`CallPeer::elicit`]: crate::peer::CallPeer::elicit
    pub async fn elicit(&self, params: Value) -> Result<Value, Error> {
        let capability = match params.get("mode").and_then(Value::as_str) {
            Some("url") => ClientCapability::ElicitationUrl,
            _ => ClientCapability::ElicitationForm,
        };
        self.check_capabilities([("elicitation/create", capability)])?;
        self.request.peer.elicit(params).await
    }
}

/// An error of the peer (or of the capability check) as the handler sees it: a JSON-RPC error
/// stays one, a cancellation is a cancelled call, anything else is a JSON-RPC error with the
/// error's code.
fn handler_error(err: Error) -> ToolError {
    match err {
        Error::Protocol {
            code,
            message,
            data,
        } => ToolError::Protocol {
            code,
            message,
            data,
        },
        Error::Cancelled => ToolError::Cancelled,
        other => ToolError::protocol(other.jsonrpc_code(), other.to_string()),
    }
}

/// Adds a `ClientCapabilities` fragment to `into` (`{"elicitation": {"form": {}}}` and
/// `{"elicitation": {"url": {}}}` make `{"elicitation": {"form": {}, "url": {}}}`).
fn merge(into: &mut Map<String, Value>, fragment: Value) {
    let Value::Object(fragment) = fragment else {
        return;
    };
    for (key, value) in fragment {
        match (into.get_mut(&key), value) {
            (Some(Value::Object(existing)), Value::Object(more)) => existing.extend(more),
            (_, value) => {
                into.insert(key, value);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::*;
    use crate::call::input::{ClientCapability, ElicitRequest, InputRequest};
    use crate::call::peer::{BoxFuture, CallPeer};

    fn ask(key: &str) -> InputRequests {
        let schema = json!({"type": "object", "properties": {key: {"type": "string"}}});
        InputRequests::new().with(
            key,
            InputRequest::Elicit(ElicitRequest::form(format!("{key}?"), schema)),
        )
    }

    /// Two rounds, one of two requests; a state of its own.
    async fn handler(cx: &CallContext) -> Result<String, ToolError> {
        let runs: u32 = cx.state()?.unwrap_or(0);
        cx.set_state(&(runs + 1))?;
        let first = cx.input(ask("name")).await?;
        let name = first.elicit("name").and_then(|r| r.field("name")).cloned();
        let both = ask("color").with("roots", InputRequest::ListRoots);
        let second = cx.input(both).await?;
        let color = second
            .elicit("color")
            .and_then(|r| r.field("color"))
            .cloned();
        let roots = second.roots("roots").map_or(0, |list| list.roots.len());
        Ok(format!(
            "{name:?} {color:?} {roots} after {} runs",
            runs + 1
        ))
    }

    fn answer(key: &str, value: &str) -> Value {
        json!({"action": "accept", "content": {key: value}})
    }

    /// A 2025-11-25 peer: answers each request itself and counts them.
    struct Answering(AtomicUsize);

    impl CallPeer for Answering {
        fn elicit(&self, params: Value) -> BoxFuture<'_, Result<Value, Error>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            let field = params
                .pointer("/requestedSchema/properties")
                .and_then(Value::as_object)
                .and_then(|properties| properties.keys().next().cloned())
                .unwrap_or_default();
            Box::pin(async move { Ok(answer(&field, "x")) })
        }

        fn list_roots(&self) -> BoxFuture<'_, Result<Value, Error>> {
            self.0.fetch_add(1, Ordering::SeqCst);
            Box::pin(async { Ok(json!({"roots": [{"uri": "file:///r"}]})) })
        }
    }

    /// Drives `handler` through its rounds with `block_on`, as a 2026-07-28 server would.
    fn rounds(
        block_on: impl Fn(BoxFuture<'_, Result<String, ToolError>>) -> Result<String, ToolError>,
    ) {
        let cx = CallContext::new().with_round_state(RoundState::default());
        let Err(ToolError::InputRequired(asked)) = block_on(Box::pin(handler(&cx))) else {
            panic!("round 1 asks")
        };
        assert_eq!(asked.keys(), "name");
        let mut next = cx.round_state();
        assert_eq!(next.state, Some(json!(1)));
        next.answers.insert("name".into(), answer("name", "Ada"));
        next.answers.insert("unasked".into(), json!(1));
        let cx = CallContext::new().with_round_state(next);
        let Err(ToolError::InputRequired(asked)) = block_on(Box::pin(handler(&cx))) else {
            panic!("round 2 asks")
        };
        assert_eq!(asked.keys(), "color, roots");
        let mut next = cx.round_state();
        assert!(!next.answers.contains_key("unasked"), "{next:?}");
        next.answers
            .insert("color".into(), answer("color", "green"));
        next.answers.insert("roots".into(), json!({"roots": []}));
        let cx = CallContext::new().with_round_state(next);
        assert_eq!(
            block_on(Box::pin(handler(&cx))).unwrap(),
            r#"Some(String("Ada")) Some(String("green")) 0 after 3 runs"#
        );
    }

    fn direct(
        block_on: impl Fn(BoxFuture<'_, Result<String, ToolError>>) -> Result<String, ToolError>,
    ) {
        let peer = Arc::new(Answering(AtomicUsize::new(0)));
        let cx = CallContext::new().with_peer(peer.clone());
        assert_eq!(
            block_on(Box::pin(handler(&cx))).unwrap(),
            r#"Some(String("x")) Some(String("x")) 1 after 1 runs"#
        );
        assert_eq!(peer.0.load(Ordering::SeqCst), 3);
    }

    #[test]
    fn one_handler_runs_in_rounds_and_directly_under_two_executors() {
        rounds(|run| pollster::block_on(run));
        rounds(|run| futures_executor::block_on(run));
        direct(|run| pollster::block_on(run));
        direct(|run| futures_executor::block_on(run));
    }

    #[test]
    fn undeclared_capabilities_are_refused_with_32021() {
        let cx = CallContext::new()
            .with_client_capabilities(json!({"sampling": {}}))
            .with_round_state(RoundState::default());
        assert!(cx.declares(ClientCapability::Sampling));
        assert!(!cx.declares(ClientCapability::ElicitationForm));
        let requests = ask("a")
            .with("b", InputRequest::ListRoots)
            .with("c", InputRequest::sample_text("hi", 5));
        let Err(ToolError::Protocol { code, data, .. }) = pollster::block_on(cx.input(requests))
        else {
            panic!("refused")
        };
        assert_eq!(code, MISSING_REQUIRED_CLIENT_CAPABILITY);
        assert_eq!(
            data,
            Some(json!({"requiredCapabilities": {"elicitation": {"form": {}}, "roots": {}}}))
        );
    }

    #[test]
    fn raw_requests_are_refused_with_32021_as_input_is() {
        let cx = CallContext::new().with_client_capabilities(json!({"elicitation": {}}));
        let raw = pollster::block_on(cx.create_message(json!({"messages": [], "maxTokens": 5})));
        let Err(Error::Protocol {
            code,
            message,
            data,
        }) = raw
        else {
            panic!("refused: {raw:?}")
        };
        assert_eq!(code, MISSING_REQUIRED_CLIENT_CAPABILITY);
        assert_eq!(
            data,
            Some(json!({"requiredCapabilities": {"sampling": {}}}))
        );
        let typed = InputRequests::new().with("s", InputRequest::sample_text("hi", 5));
        let Err(ToolError::Protocol {
            message: typed_message,
            data: typed_data,
            ..
        }) = pollster::block_on(cx.input(typed))
        else {
            panic!("refused")
        };
        assert_eq!((message, data), (typed_message, typed_data), "one check");

        // Form mode is declared: the request reaches the peer (none here).
        let form = pollster::block_on(cx.elicit(json!({"message": "name?"})));
        assert!(matches!(form, Err(Error::NoPeer { .. })), "{form:?}");
        let url = json!({"mode": "url", "message": "Sign in", "url": "https://x.test",
                         "elicitationId": "e"});
        let Err(Error::Protocol { code, data, .. }) = pollster::block_on(cx.elicit(url)) else {
            panic!("URL mode is not declared")
        };
        assert_eq!(code, MISSING_REQUIRED_CLIENT_CAPABILITY);
        assert_eq!(
            data,
            Some(json!({"requiredCapabilities": {"elicitation": {"url": {}}}}))
        );
    }

    #[test]
    fn answers_of_the_wrong_shape_are_invalid_params_naming_the_key() {
        let mut next = RoundState::default();
        next.answers.insert("name".into(), json!(12345));
        let cx = CallContext::new().with_round_state(next);
        let Err(ToolError::Protocol { code, message, .. }) =
            pollster::block_on(cx.input(ask("name")))
        else {
            panic!("refused")
        };
        assert_eq!(code, -32602);
        assert!(message.contains("inputResponses/name"), "{message}");
    }

    #[test]
    fn without_a_host_input_fails_with_no_host_s_code() {
        let Err(ToolError::Protocol { code, message, .. }) =
            pollster::block_on(CallContext::new().input(ask("name")))
        else {
            panic!("refused")
        };
        assert_eq!(code, -32603);
        assert!(message.contains("elicitation/create"), "{message}");
    }

    /// A peer in one task phase that answers every request itself and counts them.
    struct InTask(TaskPhase, AtomicUsize);

    impl CallPeer for InTask {
        fn task_phase(&self) -> TaskPhase {
            self.0
        }

        fn elicit(&self, _: Value) -> BoxFuture<'_, Result<Value, Error>> {
            self.1.fetch_add(1, Ordering::SeqCst);
            Box::pin(async { Ok(answer("name", "peer")) })
        }
    }

    #[test]
    fn the_task_phase_decides_between_input_rounds_and_the_host() {
        // (phase, where `input` goes, where `input_before_task` goes): true = the peer.
        let rules = [
            (TaskPhase::NoTask, false, false),
            (TaskPhase::NotStarted, true, false),
            (TaskPhase::Running, true, true),
        ];
        for (phase, input_to_host, before_to_host) in rules {
            for before in [false, true] {
                let peer = Arc::new(InTask(phase, AtomicUsize::new(0)));
                let cx = CallContext::new()
                    .with_peer(peer.clone())
                    .with_round_state(RoundState::default());
                let asked = if before {
                    pollster::block_on(cx.input_before_task(ask("name")))
                } else {
                    pollster::block_on(cx.input(ask("name")))
                };
                let to_host = if before {
                    before_to_host
                } else {
                    input_to_host
                };
                if to_host {
                    let answers = asked.expect("the peer answers");
                    let name = answers.elicit("name").and_then(|r| r.field("name"));
                    assert_eq!(name, Some(&json!("peer")), "{phase:?}");
                    assert_eq!(peer.1.load(Ordering::SeqCst), 1, "{phase:?}");
                } else {
                    assert!(
                        matches!(asked, Err(ToolError::InputRequired(_))),
                        "{phase:?} before={before}: an input round"
                    );
                    assert_eq!(peer.1.load(Ordering::SeqCst), 0, "{phase:?}");
                }
            }
        }
    }

    #[test]
    fn a_cancelled_host_request_is_a_cancelled_call() {
        struct Cancelled;
        impl CallPeer for Cancelled {
            fn elicit(&self, _: Value) -> BoxFuture<'_, Result<Value, Error>> {
                Box::pin(async { Err(Error::Cancelled) })
            }
        }
        let cx = CallContext::new().with_peer(Arc::new(Cancelled));
        let asked = pollster::block_on(cx.input(ask("name")));
        assert!(matches!(asked, Err(ToolError::Cancelled)), "{asked:?}");
    }
}
