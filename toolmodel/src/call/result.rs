//! [`CallToolResult`]: what `tools/call` answers (MCP 2025-11-25, `CallToolResult`).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::call::content::{ContentBlock, TextContent};
use crate::error::Error;
use crate::validate::issue::InstanceError;

/// The result of a tool call (MCP 2025-11-25, `CallToolResult`, schema
/// `#/$defs/CallToolResult`).
///
/// - `content`: the unstructured result, for the model.
/// - `structuredContent`: the structured result, which must match the tool's `outputSchema`
///   when it has one. MCP 2025-11-25 requires an object; the field holds any JSON value so
///   that results of later versions (2026-07-28 allows any value) are read and passed on.
/// - `isError`: `true` when the tool failed. Errors from the tool itself (including arguments
///   that fail the input schema, SEP-1303) are reported here, so that the model can see them
///   and correct itself; not finding the tool is a protocol error instead.
///
/// Unknown keys are kept in `extra` and written back; `null` optional fields are read as
/// absent.
///
/// ```
/// use serde_json::json;
/// use toolmodel::CallToolResult;
///
/// let ok = CallToolResult::structured(json!({"sum": 3}));
/// assert_eq!(
///     serde_json::to_value(&ok)?,
///     json!({
///         "content": [{"type": "text", "text": "{\"sum\":3}"}],
///         "structuredContent": {"sum": 3}
///     })
/// );
/// let failed = CallToolResult::error("the city is unknown");
/// assert_eq!(failed.is_error, Some(true));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct CallToolResult {
    /// The unstructured result: text, images, audio, resource links, embedded resources.
    pub content: Vec<ContentBlock>,
    /// The structured result (MCP `structuredContent`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub structured_content: Option<Value>,
    /// `Some(true)` when the call failed; absent means success.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub is_error: Option<bool>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Keys MCP does not define, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl CallToolResult {
    /// A successful result of content blocks.
    pub fn from_content(content: impl IntoIterator<Item = ContentBlock>) -> Self {
        Self {
            content: content.into_iter().collect(),
            ..Self::default()
        }
    }

    /// A successful result of one text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::from_content([ContentBlock::Text(TextContent::new(text))])
    }

    /// A successful structured result: `structuredContent` is `value`, and `content` holds its
    /// JSON text as one text block (MCP 2025-11-25, "Structured Content": a tool that returns
    /// structured content SHOULD also return the serialized JSON in a text block).
    #[must_use]
    pub fn structured(value: Value) -> Self {
        Self {
            content: vec![ContentBlock::Text(TextContent::new(value.to_string()))],
            structured_content: Some(value),
            ..Self::default()
        }
    }

    /// A failed result (`isError: true`) with the message as one text block: what a tool
    /// returns when it ran and failed, so that the model can read why (MCP 2025-11-25, "Error
    /// Handling", tool execution errors).
    pub fn error(message: impl Into<String>) -> Self {
        Self {
            is_error: Some(true),
            ..Self::text(message)
        }
    }

    /// The failed result for arguments that break the tool's `inputSchema` (SEP-1303: input
    /// validation errors are tool execution errors, so the model can retry). One text block:
    /// a first line naming the tool and the count, then one line per violation, each starting
    /// with its JSON Pointer in the arguments (`(root)` for the whole object):
    ///
    /// ```text
    /// invalid arguments for tool "add": 2 violations
    /// /a: "1" is not of type "integer" (schema /properties/a/type)
    /// /b: -1 is less than the minimum of 0 (schema /properties/b/minimum)
    /// ```
    pub fn invalid_arguments(tool: &str, errors: &[InstanceError]) -> Self {
        use std::fmt::Write as _;
        let count = errors.len();
        let plural = if count == 1 {
            "violation"
        } else {
            "violations"
        };
        let mut text = format!("invalid arguments for tool {tool:?}: {count} {plural}");
        for error in errors {
            let _ = write!(text, "\n{error}");
        }
        Self::error(text)
    }

    /// Whether the result reports a failure (`isError: true`).
    #[must_use]
    pub fn is_error(&self) -> bool {
        self.is_error == Some(true)
    }

    /// The text of every text block, joined by newlines: what a model reading the result sees
    /// of it, for logs and tests.
    #[must_use]
    pub fn text_content(&self) -> String {
        let texts: Vec<&str> = self
            .content
            .iter()
            .filter_map(|block| match block {
                ContentBlock::Text(text) => Some(text.text.as_str()),
                _ => None,
            })
            .collect();
        texts.join("\n")
    }

    /// Reads a result from a JSON value, with the JSON Pointer of any problem.
    ///
    /// # Errors
    ///
    /// [`Error::Json`] naming the pointer: a missing `content`, an unknown content `type`,
    /// `data` or `blob` that is not base64, a `priority` outside 0 to 1, a wrong JSON type.
    pub fn from_value(value: &Value) -> Result<Self, Error> {
        crate::json::deserialize(value)
    }
}

impl From<ContentBlock> for CallToolResult {
    fn from(block: ContentBlock) -> Self {
        Self::from_content([block])
    }
}

impl From<Vec<ContentBlock>> for CallToolResult {
    fn from(content: Vec<ContentBlock>) -> Self {
        Self::from_content(content)
    }
}
