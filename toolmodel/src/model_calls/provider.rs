//! [`Provider`]: the four model APIs whose tool calls this module reads and answers.

use std::fmt;

use crate::adapters::Target;

/// A model API with tool calling: the format of its tool list, of the calls in its responses,
/// and of the results sent back.
///
/// Sources, read 2026-11-23: Anthropic Messages API (`tools`, `tool_use` and `tool_result`
/// blocks; anthropic-sdk-python `types/`), OpenAI Chat Completions and Responses
/// (`openai/openai-openapi`), Gemini `generateContent` (the Generative Language API's
/// published OpenAPI 3.0 document). The test data in `tests/data/providers/` holds the
/// definitions every produced value is checked against.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Provider {
    /// Anthropic Messages: `tool_use` blocks, answered by `tool_result` blocks in a user
    /// message.
    Anthropic,
    /// OpenAI Chat Completions: `tool_calls` of the assistant message (arguments as a JSON
    /// string), answered by `role: "tool"` messages.
    OpenAiChat,
    /// OpenAI Responses: `function_call` output items (with `namespace`), answered by
    /// `function_call_output` input items.
    OpenAiResponses,
    /// Gemini `generateContent`: `functionCall` parts (with `id` and `thoughtSignature`),
    /// answered by `functionResponse` parts.
    Gemini,
}

impl Provider {
    /// Every provider, in a fixed order.
    pub const ALL: [Self; 4] = [
        Self::Anthropic,
        Self::OpenAiChat,
        Self::OpenAiResponses,
        Self::Gemini,
    ];

    /// Its name: `anthropic`, `openai-chat`, `openai-responses` or `gemini`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Anthropic => "anthropic",
            Self::OpenAiChat => "openai-chat",
            Self::OpenAiResponses => "openai-responses",
            Self::Gemini => "gemini",
        }
    }

    /// The adapters' [`Target`] its tools are converted to.
    #[must_use]
    pub const fn target(self) -> Target {
        match self {
            Self::Anthropic => Target::Anthropic,
            Self::OpenAiChat => Target::OpenAiChat,
            Self::OpenAiResponses => Target::OpenAiResponses,
            Self::Gemini => Target::Gemini,
        }
    }

    /// The key of a request body that holds the conversation: `messages` (Anthropic, OpenAI
    /// Chat), `input` (OpenAI Responses) or `contents` (Gemini).
    #[must_use]
    pub const fn conversation_key(self) -> &'static str {
        match self {
            Self::Anthropic | Self::OpenAiChat => "messages",
            Self::OpenAiResponses => "input",
            Self::Gemini => "contents",
        }
    }
}

impl fmt::Display for Provider {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
