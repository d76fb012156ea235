//! The MCP messages around tools, between `toolmodel`'s types and `rmcp`'s: a `tools/list`
//! page, a `CallToolResult`, a JSON-RPC error, a log level, a protocol version. Both sides
//! serialize to the MCP wire shape, so each conversion goes through it (or, for the common
//! result, builds what that JSON would read as).
//!
//! Nothing here knows which side of a connection it is on: [`crate::server`] uses it, and a
//! client of `rmcp` reads the same types.

// Logging is deprecated by SEP-2577 (MCP 2026-07-28); MCP 2025-11-25 peers use it.
#![allow(deprecated)]

use rmcp::{
    ErrorData,
    model::{self, ErrorCode},
};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;
use toolmodel::{
    CallToolResult, ProtocolVersion, content::ContentBlock, list::ToolsPage, peer::LoggingLevel,
};

/// A `toolmodel` error as the JSON-RPC error to answer with
/// ([`toolmodel::Error::jsonrpc_code`]; a handler's protocol error keeps its `data`).
pub(crate) fn error_data(error: toolmodel::Error) -> ErrorData {
    let code = i32::try_from(error.jsonrpc_code()).unwrap_or(ErrorCode::INTERNAL_ERROR.0);
    let data = match &error {
        toolmodel::Error::Protocol { data, .. } => data.clone(),
        _ => None,
    };
    ErrorData::new(ErrorCode(code), error.to_string(), data)
}

/// Reads one MCP JSON value as an `rmcp` type.
pub(crate) fn from_wire<T: DeserializeOwned>(value: Value) -> Result<T, serde_json::Error> {
    serde_json::from_value(value)
}

/// Writes an `rmcp` or `toolmodel` value as MCP JSON.
pub(crate) fn to_wire<T: Serialize>(value: &T) -> Result<Value, serde_json::Error> {
    serde_json::to_value(value)
}

/// The request's protocol version (`rmcp`'s: the request's `_meta`, else the `initialize`
/// handshake) as `toolmodel`'s; the newest when there is none or it is not one `toolmodel`
/// models.
pub(crate) fn protocol_version(version: Option<model::ProtocolVersion>) -> ProtocolVersion {
    version
        .and_then(|version| version.as_str().parse().ok())
        .unwrap_or(ProtocolVersion::LATEST)
}

/// A `tools/list` page, written for its version, as `rmcp`'s result (`execution` and unknown
/// keys are dropped: `rmcp::model::Tool` has no place for them).
pub(crate) fn list_to_rmcp(page: &ToolsPage<'_>) -> Result<model::ListToolsResult, ErrorData> {
    to_wire(page)
        .and_then(from_wire)
        .map_err(|err| internal("a tools/list page", &err))
}

/// A call's result, written for `version`, as `rmcp`'s.
///
/// The common result (text blocks with nothing but their text, maybe `structuredContent`
/// and `isError`, no `_meta` or unknown keys) is built directly; any other goes through its
/// MCP JSON ([`CallToolResult::to_json_for`]), so both write the same JSON.
///
/// # Errors
///
/// What [`CallToolResult::to_json_for`] returns (a `structuredContent` that is not an object
/// for 2025-11-25 or older), as JSON-RPC `-32603`; a result `rmcp` cannot read.
pub(crate) fn result_to_rmcp(
    result: CallToolResult,
    version: ProtocolVersion,
) -> Result<model::CallToolResult, ErrorData> {
    let plain_text = |block: &ContentBlock| {
        matches!(block, ContentBlock::Text(text)
            if text.annotations.is_none() && text.meta.is_none() && text.extra.is_empty())
    };
    let structured_fits = result.structured_content.as_ref().is_none_or(|value| {
        version.has_structured_content() && (value.is_object() || !version.requires_object_output())
    });
    if result.meta.is_none()
        && result.extra.is_empty()
        && structured_fits
        && result.content.iter().all(plain_text)
    {
        let content = result
            .content
            .into_iter()
            .filter_map(|block| match block {
                ContentBlock::Text(text) => Some(model::ContentBlock::text(text.text)),
                _ => None,
            })
            .collect();
        let mut converted = model::CallToolResult::success(content);
        converted.result_type = version
            .has_result_type()
            .then_some(model::ResultType::COMPLETE);
        converted.structured_content = result.structured_content;
        converted.is_error = result.is_error;
        return Ok(converted);
    }
    let written = result.to_json_for(version).map_err(error_data)?;
    from_wire(written.json).map_err(|err| internal("a tool result", &err))
}

fn internal(what: &str, err: &serde_json::Error) -> ErrorData {
    ErrorData::internal_error(
        format!("{what} does not convert to rmcp's type: {err}"),
        None,
    )
}

/// `rmcp`'s log level as `toolmodel`'s (the same eight names).
pub(crate) fn log_level_from_rmcp(level: &model::LoggingLevel) -> Option<LoggingLevel> {
    to_wire(level).ok().and_then(|value| from_wire(value).ok())
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolmodel::{Error, content::TextContent};

    use super::*;

    #[test]
    fn errors_keep_their_json_rpc_code_and_data() {
        let unknown = error_data(Error::UnknownTool {
            name: "x".into(),
            nearest: None,
        });
        assert_eq!(unknown.code, ErrorCode::INVALID_PARAMS);
        let cursor = error_data(Error::InvalidCursor { cursor: "7".into() });
        assert_eq!(cursor.code, ErrorCode::INVALID_PARAMS);
        let protocol = error_data(Error::Protocol {
            code: -32001,
            message: "busy".into(),
            data: Some(json!({"retry": 3})),
        });
        assert_eq!(protocol.code, ErrorCode(-32001));
        assert_eq!(protocol.data, Some(json!({"retry": 3})));
        assert_eq!(error_data(Error::Cancelled).code, ErrorCode::INTERNAL_ERROR);
        let huge = error_data(Error::Protocol {
            code: i64::MAX,
            message: "m".into(),
            data: None,
        });
        assert_eq!(huge.code, ErrorCode::INTERNAL_ERROR);
    }

    /// `rmcp`'s reading of the result's MCP JSON: what [`result_to_rmcp`] must equal.
    fn through_json(result: &CallToolResult, version: ProtocolVersion) -> model::CallToolResult {
        from_wire(result.to_json_for(version).unwrap().json).unwrap()
    }

    #[test]
    fn results_convert_as_their_mcp_json_reads() {
        let mut two =
            CallToolResult::from_content([ContentBlock::text("a"), ContentBlock::text("b")]);
        two.is_error = Some(true);
        let mut with_block_meta = TextContent::new("a");
        with_block_meta.meta = Some(serde_json::Map::from_iter([("k".into(), json!(1))]));
        let mut with_meta = CallToolResult::text("a");
        with_meta.meta = Some(serde_json::Map::from_iter([("k".into(), json!(1))]));
        let results = [
            CallToolResult::text("a"),
            two,
            CallToolResult::structured(json!({"n": 1})),
            CallToolResult::structured(json!([1, 2])),
            CallToolResult::from_content([ContentBlock::Text(with_block_meta)]),
            with_meta,
            CallToolResult::from_content([]),
        ];
        for version in [
            ProtocolVersion::V2025_03_26,
            ProtocolVersion::V2025_06_18,
            ProtocolVersion::V2025_11_25,
            ProtocolVersion::V2026_07_28,
        ] {
            for result in &results {
                let Ok(written) = result.to_json_for(version) else {
                    assert!(result_to_rmcp(result.clone(), version).is_err());
                    continue;
                };
                let converted = result_to_rmcp(result.clone(), version).unwrap();
                assert_eq!(
                    converted,
                    through_json(result, version),
                    "{version} {result:?}"
                );
                assert_eq!(
                    to_wire(&converted).unwrap(),
                    written.json,
                    "{version} {result:?}"
                );
            }
        }
    }

    #[test]
    fn results_are_written_for_the_request_version() {
        let list = CallToolResult::structured(json!([1, 2]));
        let latest = result_to_rmcp(list.clone(), ProtocolVersion::V2026_07_28).unwrap();
        assert_eq!(latest.structured_content, Some(json!([1, 2])));
        let refused = result_to_rmcp(list, ProtocolVersion::V2025_11_25).unwrap_err();
        assert_eq!(refused.code, ErrorCode::INTERNAL_ERROR);
        assert!(
            refused.message.contains("/structuredContent"),
            "{}",
            refused.message
        );
        let old = result_to_rmcp(
            CallToolResult::structured(json!({"n": 1})),
            ProtocolVersion::V2025_03_26,
        )
        .unwrap();
        assert_eq!(
            old.structured_content, None,
            "2025-03-26 has no structuredContent"
        );
    }

    #[test]
    fn the_request_version_maps_to_toolmodel_s() {
        assert_eq!(
            protocol_version(Some(model::ProtocolVersion::V_2025_06_18)),
            ProtocolVersion::V2025_06_18
        );
        assert_eq!(
            protocol_version(Some(model::ProtocolVersion::V_2026_07_28)),
            ProtocolVersion::V2026_07_28
        );
        assert_eq!(protocol_version(None), ProtocolVersion::LATEST);
    }

    #[test]
    #[allow(deprecated)]
    fn every_log_level_maps() {
        use model::LoggingLevel as L;
        let pairs = [
            (L::Debug, LoggingLevel::Debug),
            (L::Info, LoggingLevel::Info),
            (L::Notice, LoggingLevel::Notice),
            (L::Warning, LoggingLevel::Warning),
            (L::Error, LoggingLevel::Error),
            (L::Critical, LoggingLevel::Critical),
            (L::Alert, LoggingLevel::Alert),
            (L::Emergency, LoggingLevel::Emergency),
        ];
        for (theirs, ours) in pairs {
            assert_eq!(log_level_from_rmcp(&theirs), Some(ours));
        }
    }
}
