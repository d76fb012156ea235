//! [`Envelope`]: what the front reads of a `POST` body, once, after the body is in, and
//! carries in the request's extensions: each JSON-RPC message's method, the tool a
//! `tools/call` names and the id. The gate's scope check of a body, admission (is it an
//! `initialize`?) and the fix of `rmcp`'s answer to a body it cannot read all use it; the
//! body is parsed again only by `rmcp`, which serves it.

use std::borrow::Cow;

use serde::{Deserialize, de::IgnoredAny};
use serde_json::Value;

/// The head of one JSON-RPC message: what the front decides on.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Head {
    /// `method` (a request or a notification); `None` for a response.
    pub(crate) method: Option<String>,
    /// `params.name`: the tool of a `tools/call`, the prompt of a `prompts/get`.
    pub(crate) name: Option<String>,
    /// `id`, when it is a valid one (a string or an integer).
    pub(crate) id: Option<Value>,
}

/// A `POST` body as the front reads it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Envelope {
    /// One message, or a batch's (MCP 2025-03-26 allowed batches), each one's head.
    Messages(Vec<Head>),
    /// JSON, but no JSON-RPC message (an array of numbers, a `method` that is no string):
    /// its `id` when that is a valid one (a string or an integer).
    NotMessage {
        /// The id to answer with.
        id: Option<Value>,
    },
    /// Not JSON: the parser's error.
    NotJson(String),
}

/// The parts of a message the front reads (borrowed from the body).
#[derive(Deserialize)]
struct Wire<'a> {
    #[serde(borrow)]
    method: Option<Cow<'a, str>>,
    #[serde(borrow)]
    params: Option<Params<'a>>,
    id: Option<Value>,
}

#[derive(Deserialize)]
struct Params<'a> {
    #[serde(borrow)]
    name: Option<Cow<'a, str>>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Wires<'a> {
    #[serde(borrow)]
    One(Wire<'a>),
    #[serde(borrow)]
    Batch(Vec<Wire<'a>>),
}

/// Only the `id` of a JSON value that is no message (the error path).
#[derive(Deserialize)]
struct IdOnly {
    id: Option<Value>,
}

impl Envelope {
    /// Reads `body`.
    pub(crate) fn read(body: &[u8]) -> Self {
        match serde_json::from_slice::<Wires<'_>>(body) {
            Ok(Wires::One(wire)) => Self::Messages(vec![head(wire)]),
            Ok(Wires::Batch(wires)) => Self::Messages(wires.into_iter().map(head).collect()),
            // The error path: is it JSON at all, and does it carry an id to answer with?
            Err(_) => match serde_json::from_slice::<IgnoredAny>(body) {
                Err(err) => Self::NotJson(err.to_string()),
                Ok(IgnoredAny) => Self::NotMessage {
                    id: serde_json::from_slice::<IdOnly>(body)
                        .ok()
                        .and_then(|only| valid_id(only.id)),
                },
            },
        }
    }

    /// The heads of its messages (none when it is no JSON-RPC message).
    pub(crate) fn heads(&self) -> &[Head] {
        match self {
            Self::Messages(heads) => heads,
            Self::NotMessage { .. } | Self::NotJson(_) => &[],
        }
    }

    /// Whether it holds a JSON-RPC request (a `method` and an `id`), not only notifications
    /// or responses: what a rate limit's request rule counts.
    pub(crate) fn has_request(&self) -> bool {
        self.heads()
            .iter()
            .any(|head| head.method.is_some() && head.id.is_some())
    }

    /// Whether it is an `initialize` request.
    pub(crate) fn is_initialize(&self) -> bool {
        matches!(self.heads(), [head] if head.method.as_deref() == Some("initialize"))
    }

    /// The tool each `tools/call` in it names (`None` for a call without a name).
    #[cfg_attr(
        not(any(feature = "auth", test)),
        expect(dead_code, reason = "the gate's scope check")
    )]
    pub(crate) fn tools_called(&self) -> impl Iterator<Item = Option<&str>> {
        self.heads()
            .iter()
            .filter(|head| head.method.as_deref() == Some("tools/call"))
            .map(|head| head.name.as_deref())
    }
}

fn head(wire: Wire<'_>) -> Head {
    Head {
        method: wire.method.map(Cow::into_owned),
        name: wire
            .params
            .and_then(|params| params.name)
            .map(Cow::into_owned),
        id: valid_id(wire.id),
    }
}

/// `id` when JSON-RPC 2.0 allows it here: a string or an integer.
fn valid_id(id: Option<Value>) -> Option<Value> {
    id.filter(|id| id.is_string() || id.is_i64() || id.is_u64())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_is_read_into_heads_or_why_not() {
        let call = br#"{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"add","arguments":{}}}"#;
        let read = Envelope::read(call);
        assert_eq!(read.tools_called().collect::<Vec<_>>(), [Some("add")]);
        assert!(!read.is_initialize());
        let init = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;
        assert!(Envelope::read(init).is_initialize());
        let batch = br#"[{"method":"tools/call","params":{"name":"a"}},{"method":"tools/call","params":{}},{"method":"ping"}]"#;
        assert_eq!(
            Envelope::read(batch).tools_called().collect::<Vec<_>>(),
            [Some("a"), None]
        );
        assert!(matches!(Envelope::read(b"{not json"), Envelope::NotJson(_)));
        assert_eq!(
            Envelope::read(br#"{"id":7,"method":3}"#),
            Envelope::NotMessage {
                id: Some(Value::from(7))
            }
        );
        assert_eq!(
            Envelope::read(br#"{"id":{"x":1},"method":3}"#),
            Envelope::NotMessage { id: None }
        );
        assert_eq!(Envelope::read(b"[1,2]"), Envelope::NotMessage { id: None });
    }
}
