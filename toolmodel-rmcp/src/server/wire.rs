//! Between `toolmodel`'s MCP JSON and `rmcp`'s types: listed tools, results, errors, log
//! levels. Both sides serialize to the MCP wire shape, so each conversion goes through it.

// Logging and sampling are deprecated by SEP-2577 (MCP 2026-07-28); MCP 2025-11-25 clients,
// which this server serves, use them.
#![allow(deprecated)]

use rmcp::{
    ErrorData,
    model::{self, ErrorCode},
};
use serde::{Serialize, de::DeserializeOwned};
use serde_json::Value;
use toolmodel::{CallToolResult, LogLevel};

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

/// A listed tool's MCP JSON as an `rmcp` tool (`execution` and unknown keys are dropped:
/// `rmcp` has no place for them).
pub(crate) fn tool_to_rmcp(tool: &Value) -> Result<model::Tool, ErrorData> {
    from_wire(tool.clone()).map_err(|err| internal("a listed tool", &err))
}

/// A call's result as `rmcp`'s.
pub(crate) fn result_to_rmcp(result: &CallToolResult) -> Result<model::CallToolResult, ErrorData> {
    to_wire(result)
        .and_then(from_wire)
        .map_err(|err| internal("a tool result", &err))
}

fn internal(what: &str, err: &serde_json::Error) -> ErrorData {
    ErrorData::internal_error(
        format!("{what} does not convert to rmcp's type: {err}"),
        None,
    )
}

/// `rmcp`'s log level as `toolmodel`'s (the same eight names).
pub(crate) fn log_level_from_rmcp(level: &model::LoggingLevel) -> Option<LogLevel> {
    to_wire(level).ok().and_then(|value| from_wire(value).ok())
}

#[cfg(test)]
mod tests {
    use serde_json::json;
    use toolmodel::{ContentBlock, Error};

    use super::*;

    #[test]
    fn errors_keep_their_json_rpc_code_and_data() {
        let unknown = error_data(Error::UnknownTool { name: "x".into() });
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

    #[test]
    fn results_convert_through_their_mcp_json() {
        let mut result =
            CallToolResult::from_content([ContentBlock::text("a"), ContentBlock::text("b")]);
        result.is_error = Some(true);
        let converted = result_to_rmcp(&result).unwrap();
        assert_eq!(to_wire(&converted).unwrap(), to_wire(&result).unwrap());
        let structured = CallToolResult::structured(json!({"n": 1})).unwrap();
        let converted = result_to_rmcp(&structured).unwrap();
        assert_eq!(converted.structured_content, Some(json!({"n": 1})));
        assert_eq!(to_wire(&converted).unwrap(), to_wire(&structured).unwrap());
    }

    #[test]
    #[allow(deprecated)]
    fn every_log_level_maps() {
        use model::LoggingLevel as L;
        let pairs = [
            (L::Debug, LogLevel::Debug),
            (L::Info, LogLevel::Info),
            (L::Notice, LogLevel::Notice),
            (L::Warning, LogLevel::Warning),
            (L::Error, LogLevel::Error),
            (L::Critical, LogLevel::Critical),
            (L::Alert, LogLevel::Alert),
            (L::Emergency, LogLevel::Emergency),
        ];
        for (theirs, ours) in pairs {
            assert_eq!(log_level_from_rmcp(&theirs), Some(ours));
        }
    }
}
