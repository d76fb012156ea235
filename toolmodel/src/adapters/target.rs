//! [`Target`]: the tool formats the adapters write and read, and [`Profile`]: a target with or
//! without its strict mode.

use std::{fmt, str::FromStr};

use crate::error::Error;

/// A tool format: MCP itself or a model provider's function-calling format.
///
/// | target | text ([`FromStr`] / [`Display`](fmt::Display)) | one converted tool |
/// |---|---|---|
/// | [`Target::Mcp`] | `mcp` | the MCP 2025-11-25 `Tool` JSON |
/// | [`Target::OpenAiChat`] | `openai-chat` (also read: `openai`) | `{"type":"function","function":{name, description, parameters, strict}}` |
/// | [`Target::OpenAiResponses`] | `openai-responses` | `{"type":"function", name, description, parameters, strict}` |
/// | [`Target::Anthropic`] | `anthropic` | `{name, description, input_schema}` plus `strict`, `input_examples`, `cache_control`, ... |
/// | [`Target::Gemini`] | `gemini` | one `FunctionDeclaration`: `{name, description, parameters}` (or `parametersJsonSchema`) |
///
/// The order of the variants (the derived [`Ord`]) is the order above; warnings sort by it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Target {
    /// MCP `Tool` JSON: the identity (only the `toolmodel` extensions are left out).
    Mcp,
    /// OpenAI Chat Completions `tools[]` entry.
    OpenAiChat,
    /// OpenAI Responses API `tools[]` entry (the flat function form).
    OpenAiResponses,
    /// Anthropic Messages API `tools[]` entry.
    Anthropic,
    /// Google Gemini `functionDeclarations[]` entry.
    Gemini,
}

impl Target {
    /// Every target, in order.
    pub const ALL: [Self; 5] = [
        Self::Mcp,
        Self::OpenAiChat,
        Self::OpenAiResponses,
        Self::Anthropic,
        Self::Gemini,
    ];

    /// The canonical spelling: `mcp`, `openai-chat`, `openai-responses`, `anthropic` or
    /// `gemini` (the spellings of [`model_calls::Provider`](crate::model_calls::Provider) for the
    /// same APIs).
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Mcp => "mcp",
            Self::OpenAiChat => "openai-chat",
            Self::OpenAiResponses => "openai-responses",
            Self::Anthropic => "anthropic",
            Self::Gemini => "gemini",
        }
    }

    /// Whether the target has a strict (constrained decoding) mode the adapters can produce:
    /// OpenAI (both APIs) and Anthropic.
    #[must_use]
    pub const fn has_strict_mode(self) -> bool {
        matches!(
            self,
            Self::OpenAiChat | Self::OpenAiResponses | Self::Anthropic
        )
    }
}

impl fmt::Display for Target {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

const TARGET_NAMES: &str = "mcp, openai-chat (or openai), openai-responses, anthropic, gemini";

impl FromStr for Target {
    type Err = Error;

    /// Reads a target name, ASCII case-insensitively: [`Target::as_str`]'s spellings, and
    /// `openai` for [`Target::OpenAiChat`].
    ///
    /// # Errors
    ///
    /// [`Error::UnknownValue`] naming the text and the accepted names.
    fn from_str(text: &str) -> Result<Self, Error> {
        match text.to_ascii_lowercase().as_str() {
            "mcp" => Ok(Self::Mcp),
            "openai-chat" | "openai" => Ok(Self::OpenAiChat),
            "openai-responses" => Ok(Self::OpenAiResponses),
            "anthropic" => Ok(Self::Anthropic),
            "gemini" => Ok(Self::Gemini),
            _ => Err(Error::UnknownValue {
                field: "target",
                value: text.to_owned(),
                expected: TARGET_NAMES,
            }),
        }
    }
}

/// A target and whether its strict mode is on: what a portability report is given per column,
/// and what a command line names (`openai-chat-strict`, `anthropic`, ...).
///
/// # Examples
///
/// ```
/// use toolmodel::adapters::{Profile, Target};
///
/// let profile: Profile = "openai-chat-strict".parse()?;
/// assert_eq!(profile, Profile { target: Target::OpenAiChat, strict: true });
/// assert_eq!(profile.to_string(), "openai-chat-strict");
/// assert_eq!("openai-strict".parse::<Profile>()?, profile); // `openai` is read too
/// assert!("gemini-strict".parse::<Profile>().is_err()); // Gemini has no strict mode
/// # Ok::<(), toolmodel::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Profile {
    /// The target.
    pub target: Target,
    /// Whether the strict transform is applied ([`ConvertOptions::strict`](super::ConvertOptions::strict)).
    pub strict: bool,
}

impl Profile {
    /// Every profile: each target plain, and the targets with a strict mode also strict.
    pub const ALL: [Self; 8] = [
        Self::plain(Target::Mcp),
        Self::plain(Target::OpenAiChat),
        Self::strict(Target::OpenAiChat),
        Self::plain(Target::OpenAiResponses),
        Self::strict(Target::OpenAiResponses),
        Self::plain(Target::Anthropic),
        Self::strict(Target::Anthropic),
        Self::plain(Target::Gemini),
    ];

    /// The target without strict mode.
    #[must_use]
    pub const fn plain(target: Target) -> Self {
        Self {
            target,
            strict: false,
        }
    }

    /// The target with strict mode.
    #[must_use]
    pub const fn strict(target: Target) -> Self {
        Self {
            target,
            strict: true,
        }
    }
}

impl fmt::Display for Profile {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.target.as_str())?;
        if self.strict {
            f.write_str("-strict")?;
        }
        Ok(())
    }
}

impl FromStr for Profile {
    type Err = Error;

    /// Reads a target name ([`Target`]'s spellings), optionally followed by `-strict`.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownValue`] for an unknown name, or `-strict` on a target without a strict
    /// mode (`mcp`, `gemini`).
    fn from_str(text: &str) -> Result<Self, Error> {
        let lower = text.to_ascii_lowercase();
        let (name, strict) = match lower.strip_suffix("-strict") {
            Some(name) => (name, true),
            None => (lower.as_str(), false),
        };
        let unknown = || Error::UnknownValue {
            field: "target",
            value: text.to_owned(),
            expected: "mcp, openai-chat (or openai), openai-chat-strict (or openai-strict), openai-responses, openai-responses-strict, anthropic, anthropic-strict, gemini",
        };
        let target: Target = name.parse().map_err(|_| unknown())?;
        if strict && !target.has_strict_mode() {
            return Err(unknown());
        }
        Ok(Self { target, strict })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for target in Target::ALL {
            assert_eq!(target.as_str().parse::<Target>().unwrap(), target);
        }
        for profile in Profile::ALL {
            assert_eq!(profile.to_string().parse::<Profile>().unwrap(), profile);
        }
        assert_eq!("OpenAI-Chat".parse::<Target>().unwrap(), Target::OpenAiChat);
        assert_eq!("openai".parse::<Target>().unwrap(), Target::OpenAiChat);
        assert_eq!(Target::OpenAiChat.to_string(), "openai-chat");
        assert_eq!(
            "openai-strict".parse::<Profile>().unwrap(),
            Profile::strict(Target::OpenAiChat)
        );
        let err = "claude".parse::<Target>().unwrap_err();
        assert!(err.to_string().contains("\"claude\""), "{err}");
        assert!("mcp-strict".parse::<Profile>().is_err());
    }
}
