//! [`Tool::to_mcp_json_for`]: a tool written for one protocol version, with a report of
//! everything that version cannot carry.

use std::fmt;

use serde_json::{Map, Value};

use crate::call::result::CallToolResult;
use crate::error::Error;
use crate::model::protocol::version::ProtocolVersion;
use crate::model::tool::Tool;
use crate::validate::mcp_header::header_pointers;
use crate::wire::keys::MCP_KEYS;

/// A tool (or result) written for one protocol version: the JSON, and every [`Loss`].
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Written {
    /// The JSON, valid for the version's schema when the value was valid for it
    /// ([`Tool::validate_for`]).
    pub json: Value,
    /// What the version cannot carry, in the order of the keys; empty when nothing is lost.
    pub losses: Vec<Loss>,
}

/// One value a protocol version cannot carry, found when writing for it.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Loss {
    /// JSON Pointer of the value, in the JSON as the model writes it
    /// ([`Tool::to_mcp_json`]): `/execution`, `/icons`, ...
    pub pointer: String,
    /// The version written for.
    pub version: ProtocolVersion,
    /// Whether it was left out, or written and ignored.
    pub kind: LossKind,
}

/// How a [`Loss`] loses a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum LossKind {
    /// Left out: the version's schema has no such field (`execution` in 2026-07-28, `icons`
    /// before 2025-11-25, ...).
    Omitted,
    /// Written, but the version gives it no meaning: `x-mcp-header` before 2026-07-28 is an
    /// unknown schema keyword, so no client mirrors the argument into a header.
    Ignored,
}

impl fmt::Display for Loss {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            LossKind::Omitted => write!(
                f,
                "{}: left out, MCP {} has no such field",
                self.pointer, self.version
            ),
            LossKind::Ignored => write!(
                f,
                "{}: written but ignored, MCP {} gives it no meaning",
                self.pointer, self.version
            ),
        }
    }
}

impl Tool {
    /// The tool as MCP `Tool` JSON for `version`: [`to_mcp_json`](Self::to_mcp_json) without
    /// the keys the version's `Tool` does not have, each reported as a [`Loss`].
    ///
    /// | left out | for |
    /// |---|---|
    /// | `execution` | 2026-07-28 (tasks became an extension, negotiated per request), and before 2025-11-25 |
    /// | `icons` | before 2025-11-25 |
    /// | `title`, `outputSchema`, `_meta` | before 2025-06-18 |
    /// | `annotations` | 2024-11-05 |
    ///
    /// `x-mcp-header` keywords are written for every version and reported as
    /// [`LossKind::Ignored`] before 2026-07-28. Unknown keys ([`extra`](Self::extra)) are
    /// written for every version, as received. Nothing is checked beyond what would change a
    /// meaning: call [`validate_for`](Self::validate_for) for the rest.
    ///
    /// # Errors
    ///
    /// [`Error::Unwritable`] when writing would change what the tool means: an `outputSchema`
    /// whose root is not `"type": "object"`, written for 2025-11-25 or older (those versions
    /// require an object root and an object `structuredContent`; leaving the schema out would
    /// hide that the results are not objects).
    ///
    /// # Examples
    ///
    /// ```
    /// use serde_json::json;
    /// use toolmodel::{Error, ProtocolVersion, Tool, wire::LossKind};
    ///
    /// let tool = Tool::from_mcp_json(&json!({
    ///     "name": "report",
    ///     "inputSchema": {"type": "object"},
    ///     "execution": {"taskSupport": "optional"},
    ///     "icons": [{"src": "https://example.com/r.png"}]
    /// }))?;
    /// let written = tool.to_mcp_json_for(ProtocolVersion::V2026_07_28)?;
    /// assert!(written.json.get("execution").is_none());
    /// assert_eq!(written.losses[0].pointer, "/execution");
    /// assert_eq!(written.losses[0].kind, LossKind::Omitted);
    ///
    /// let old = tool.to_mcp_json_for(ProtocolVersion::V2025_06_18)?;
    /// let lost: Vec<&str> = old.losses.iter().map(|l| l.pointer.as_str()).collect();
    /// assert_eq!(lost, ["/icons", "/execution"]);
    ///
    /// let mut list = tool.clone();
    /// list.output_schema = Some(json!({"type": "array"}).try_into()?);
    /// assert!(list.to_mcp_json_for(ProtocolVersion::V2026_07_28).is_ok());
    /// assert!(matches!(
    ///     list.to_mcp_json_for(ProtocolVersion::V2025_11_25),
    ///     Err(Error::Unwritable { .. })
    /// ));
    /// # Ok::<(), toolmodel::Error>(())
    /// ```
    pub fn to_mcp_json_for(&self, version: ProtocolVersion) -> Result<Written, Error> {
        if version.requires_object_output()
            && let Some(output) = &self.output_schema
            && !output.has_object_root()
        {
            return Err(Error::Unwritable {
                what: format!("tool {:?}", self.name),
                version,
                pointer: "/outputSchema/type",
                reason: "the root must be \"type\": \"object\" up to MCP 2025-11-25",
            });
        }
        let mut json = self.to_mcp_json();
        let mut losses = Vec::new();
        if let Value::Object(object) = &mut json {
            omit_keys(object, version, &mut losses);
        }
        if !version.has_mcp_headers() {
            losses.extend(
                header_pointers(self.input_schema.as_value())
                    .into_iter()
                    .map(|pointer| Loss {
                        pointer,
                        version,
                        kind: LossKind::Ignored,
                    }),
            );
        }
        Ok(Written { json, losses })
    }
}

/// Removes from a tool's MCP JSON the MCP keys `version` does not have, reporting each.
fn omit_keys(object: &mut Map<String, Value>, version: ProtocolVersion, losses: &mut Vec<Loss>) {
    for key in MCP_KEYS.iter().filter(|key| !version.has_tool_key(key)) {
        if object.remove(*key).is_some() {
            losses.push(Loss {
                pointer: format!("/{key}"),
                version,
                kind: LossKind::Omitted,
            });
        }
    }
}

/// The `resultType` of a complete result (MCP 2026-07-28, `ResultType`).
pub const RESULT_COMPLETE: &str = "complete";

/// `(content type, first version that has it)` for the content blocks of `CallToolResult`.
const CONTENT_SINCE: &[(&str, ProtocolVersion)] = &[
    ("audio", ProtocolVersion::V2025_03_26),
    ("resource_link", ProtocolVersion::V2025_06_18),
];

impl CallToolResult {
    /// The result's `resultType` (MCP 2026-07-28): the value read (kept in
    /// [`extra`](Self::extra)), else `"complete"`, which is what a result without one means
    /// ("the client MUST treat the absent field as `complete`").
    #[must_use]
    pub fn result_type(&self) -> &str {
        self.extra
            .get("resultType")
            .and_then(Value::as_str)
            .unwrap_or(RESULT_COMPLETE)
    }

    /// The result as MCP `CallToolResult` JSON for `version`, with every [`Loss`].
    ///
    /// - 2026-07-28: `resultType` is written (`"complete"` unless another was read; servers
    ///   MUST include it); `structuredContent` may be any JSON value.
    /// - Older: `resultType` is left out (a [`Loss`]; absent means `"complete"`);
    ///   `structuredContent` must be an object (2025-06-18 to 2025-11-25) and is left out
    ///   before 2025-06-18; a content block of a type the version does not have (`audio`
    ///   before 2025-03-26, `resource_link` before 2025-06-18) is left out, each a [`Loss`] at
    ///   its index.
    ///
    /// Reading needs no version: [`CallToolResult::from_value`] reads every version.
    ///
    /// # Errors
    ///
    /// [`Error::Unwritable`] for a `structuredContent` that is not an object written for
    /// 2025-06-18 to 2025-11-25, or a `resultType` other than `"complete"` written before
    /// 2026-07-28 (leaving either out would change what the result says).
    ///
    /// # Examples
    ///
    /// ```
    /// use serde_json::json;
    /// use toolmodel::{CallToolResult, ProtocolVersion};
    ///
    /// let result = CallToolResult::structured(json!([1, 2]));
    /// let written = result.to_json_for(ProtocolVersion::V2026_07_28)?;
    /// assert_eq!(written.json["resultType"], "complete");
    /// assert_eq!(written.json["structuredContent"], json!([1, 2]));
    /// assert!(result.to_json_for(ProtocolVersion::V2025_11_25).is_err());
    ///
    /// let old = CallToolResult::text("hi").to_json_for(ProtocolVersion::V2025_11_25)?;
    /// assert_eq!(old.json, json!({"content": [{"type": "text", "text": "hi"}]}));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn to_json_for(&self, version: ProtocolVersion) -> Result<Written, Error> {
        let unwritable = |pointer, reason| Error::Unwritable {
            what: "CallToolResult".into(),
            version,
            pointer,
            reason,
        };
        let result_type = self.result_type();
        if !version.has_result_type() && result_type != RESULT_COMPLETE {
            return Err(unwritable(
                "/resultType",
                "a resultType other than \"complete\" has no equivalent before MCP 2026-07-28",
            ));
        }
        if version.has_structured_content()
            && version.requires_object_output()
            && let Some(value) = &self.structured_content
            && !value.is_object()
        {
            return Err(unwritable(
                "/structuredContent",
                "must be an object up to MCP 2025-11-25",
            ));
        }
        let mut json = serde_json::to_value(self)
            .map_err(|err| crate::json::json_error("", err.to_string()))?;
        let mut losses = Vec::new();
        let mut lose = |pointer: String| {
            losses.push(Loss {
                pointer,
                version,
                kind: LossKind::Omitted,
            });
        };
        if let Value::Object(object) = &mut json {
            if version.has_result_type() {
                object
                    .entry("resultType")
                    .or_insert_with(|| Value::from(RESULT_COMPLETE));
            } else if object.remove("resultType").is_some() {
                lose("/resultType".into());
            }
            if !version.has_structured_content() && object.remove("structuredContent").is_some() {
                lose("/structuredContent".into());
            }
            if let Some(Value::Array(content)) = object.get_mut("content") {
                let mut index = 0;
                content.retain(|block| {
                    let kind = block
                        .get("type")
                        .and_then(Value::as_str)
                        .unwrap_or_default();
                    let keep = CONTENT_SINCE
                        .iter()
                        .all(|(name, since)| *name != kind || version >= *since);
                    if !keep {
                        lose(format!("/content/{index}"));
                    }
                    index += 1;
                    keep
                });
            }
        }
        Ok(Written { json, losses })
    }
}
