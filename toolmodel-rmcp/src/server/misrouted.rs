//! Requests `rmcp` could not read as the MCP method they name.
//!
//! `rmcp` 3.11 parses a request whose `params` do not fit its method's type (a `tools/call`
//! whose `arguments` is an array, a string or a number, or that has no `name`) as a *custom*
//! request, and its default handler answers every custom request `-32601` Method not found,
//! with the method as the message (upstream behaviour). The method exists: the params are
//! wrong, which JSON-RPC 2.0 (5.1) calls `-32602` Invalid params. [`error`] answers that,
//! naming the offending value by its JSON Pointer in the request; a method MCP does not
//! define stays `-32601`.

use rmcp::model::{CallToolRequestParams, CustomRequest, ErrorCode, ErrorData};
use serde_json::Value;

/// The request methods of MCP (2025-11-25 and 2026-07-28) a client may send a server.
const MCP_REQUEST_METHODS: [&str; 18] = [
    "initialize",
    "ping",
    "server/discover",
    "tools/list",
    "tools/call",
    "prompts/list",
    "prompts/get",
    "resources/list",
    "resources/templates/list",
    "resources/read",
    "resources/subscribe",
    "resources/unsubscribe",
    "logging/setLevel",
    "completion/complete",
    "tasks/get",
    "tasks/list",
    "tasks/result",
    "tasks/cancel",
];

/// The error for a request `rmcp` handed over as custom: `-32602` for an MCP method whose
/// `params` do not fit, `-32601` for a method MCP does not define.
pub(super) fn error(request: &CustomRequest) -> ErrorData {
    let method = request.method.as_str();
    if !MCP_REQUEST_METHODS.contains(&method) {
        return ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
            None,
        );
    }
    let problem = match method {
        "tools/call" => tools_call_problem(request.params.as_ref()),
        _ => "/params do not fit the method".to_owned(),
    };
    ErrorData::invalid_params(format!("Invalid params for {method}: {problem}"), None)
}

/// What is wrong with the `params` of a `tools/call` (MCP `CallToolRequest`: `name` a string,
/// `arguments` an object when present).
fn tools_call_problem(params: Option<&Value>) -> String {
    let Some(Value::Object(params)) = params else {
        return format!(
            "/params must be an object with a `name`, not {}",
            params.map_or("absent", kind)
        );
    };
    match params.get("name") {
        None => return "/params/name is missing (the tool to call)".to_owned(),
        Some(Value::String(_)) => {}
        Some(other) => return format!("/params/name must be a string, not {}", kind(other)),
    }
    match params.get("arguments") {
        Some(arguments) if !arguments.is_object() && !arguments.is_null() => {
            return format!(
                "/params/arguments must be an object, not {}",
                kind(arguments)
            );
        }
        _ => {}
    }
    match serde_json::from_value::<CallToolRequestParams>(Value::Object(params.clone())) {
        Err(err) => format!("/params: {err}"),
        Ok(_) => "/params do not fit tools/call".to_owned(),
    }
}

/// The JSON type of `value`, in JSON Schema's words.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn call(params: Value) -> ErrorData {
        error(&CustomRequest::new("tools/call", Some(params)))
    }

    #[test]
    fn bad_arguments_are_invalid_params_naming_them() {
        for (arguments, kind) in [
            (json!([1]), "an array"),
            (json!("x"), "a string"),
            (json!(3), "a number"),
        ] {
            let err = call(json!({"name": "t", "arguments": arguments}));
            assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
            assert_eq!(
                err.message,
                format!(
                    "Invalid params for tools/call: /params/arguments must be an object, not {kind}"
                )
            );
        }
    }

    #[test]
    fn a_missing_name_is_invalid_params() {
        let err = call(json!({"arguments": {}}));
        assert_eq!(err.code, ErrorCode::INVALID_PARAMS);
        assert!(
            err.message.contains("/params/name is missing"),
            "{}",
            err.message
        );
    }

    #[test]
    fn an_unknown_method_stays_method_not_found() {
        let err = error(&CustomRequest::new("tools/frobnicate", None));
        assert_eq!(err.code, ErrorCode::METHOD_NOT_FOUND);
    }
}
