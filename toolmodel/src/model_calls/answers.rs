//! [`Answer`]: the results of a model's calls in its provider's format, serialized from the
//! outcomes where they are.

use serde::{Serialize, Serializer};
use serde_json::Value;

use super::provider::Provider;
use super::run::ToolOutcome;
use super::{anthropic, gemini, openai_chat, openai_responses};

/// The answer to a model's calls in its provider's format ([`answer`](super::answer)),
/// borrowed from the outcomes: nothing is built until it is written.
///
/// It serializes as a JSON array of what to append to the conversation after the model's
/// turn, one element per message or item. Write it into the request body you send
/// (`serde_json::to_writer`, or a field of your own request type), or take its elements as
/// [`Value`]s with [`to_values`](Self::to_values) (what [`extend_request`](super::extend_request)
/// does). Writing it to bytes costs a fraction of building the values: the result text is
/// escaped into the output once, and no map or string is allocated on the way.
///
/// ```
/// use serde_json::json;
/// use toolmodel::model_calls::{CallArguments, ModelCall, ModelTools, Provider, ToolListOptions, answer, run_calls};
/// use toolmodel::{CallContext, CallToolResult, Tool, ToolSchema, Toolbox};
///
/// let toolbox = Toolbox::builder()
///     .with_tool(Tool::new("ping", ToolSchema::empty_object()), |_args, _cx| async {
///         Ok(CallToolResult::text("pong"))
///     })
///     .build()?;
/// let tools = ModelTools::new(&toolbox, Provider::Anthropic, &ToolListOptions::default())?;
/// let call = ModelCall::new("ping", CallArguments::Object(Default::default())).with_id("toolu_1");
/// let outcomes = pollster::block_on(run_calls(&toolbox, &tools, [call], &CallContext::new()));
///
/// let answer = answer(Provider::Anthropic, &outcomes);
/// let mut body = Vec::new(); // the request body being written
/// serde_json::to_writer(&mut body, &answer)?;
/// assert_eq!(
///     String::from_utf8(body).unwrap(),
///     r#"[{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_1","content":[{"type":"text","text":"pong"}]}]}]"#
/// );
/// assert_eq!(answer.to_values(), [json!({"role": "user", "content": [
///     {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "pong"}]}
/// ]})]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct Answer<'a> {
    provider: Provider,
    outcomes: &'a [ToolOutcome],
}

impl<'a> Answer<'a> {
    pub(crate) const fn new(provider: Provider, outcomes: &'a [ToolOutcome]) -> Self {
        Self { provider, outcomes }
    }

    /// The provider whose format it is written in.
    #[must_use]
    pub const fn provider(&self) -> Provider {
        self.provider
    }

    /// The outcomes it answers, in order.
    #[must_use]
    pub const fn outcomes(&self) -> &'a [ToolOutcome] {
        self.outcomes
    }

    /// How many messages or items it writes: one (Anthropic's `user` message, Gemini's `user`
    /// content, whatever the number of outcomes), or one per outcome (OpenAI Chat, OpenAI
    /// Responses).
    #[must_use]
    pub const fn len(&self) -> usize {
        match self.provider {
            Provider::Anthropic | Provider::Gemini => 1,
            Provider::OpenAiChat | Provider::OpenAiResponses => self.outcomes.len(),
        }
    }

    /// Whether it writes nothing: OpenAI Chat or Responses with no outcomes.
    #[must_use]
    pub const fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The messages or items as JSON values, to push onto a conversation held as
    /// [`Value`]s: the elements of the array it serializes as.
    #[must_use]
    pub fn to_values(&self) -> Vec<Value> {
        // Serializing to a `Value` cannot fail here: every map key is a string and every
        // value already JSON.
        match serde_json::to_value(self) {
            Ok(Value::Array(items)) => items,
            _ => Vec::new(),
        }
    }
}

impl Serialize for Answer<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self.provider {
            Provider::Anthropic => anthropic::answer(self.outcomes).serialize(serializer),
            Provider::OpenAiChat => openai_chat::answer(self.outcomes).serialize(serializer),
            Provider::OpenAiResponses => {
                openai_responses::answer(self.outcomes).serialize(serializer)
            }
            Provider::Gemini => gemini::answer(self.outcomes).serialize(serializer),
        }
    }
}
