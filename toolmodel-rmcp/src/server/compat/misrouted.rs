//! Requests `rmcp` could not read as the MCP method they name.
//!
//! `rmcp` 3.11 parses a request whose `params` do not fit its method's type (a `tools/call`
//! whose `arguments` is an array, a string or a number, or that has no `name`) as a *custom*
//! request, and its default handler answers every custom request `-32601` Method not found,
//! with the method as the message (upstream behaviour). For `tools/call` the method exists and
//! the params are wrong, which JSON-RPC 2.0 (5.1) calls `-32602` Invalid params: [`error`]
//! answers that, naming the offending value by its JSON Pointer in the request; every other
//! method stays `-32601`.

use rmcp::model::{CallToolRequestParams, CustomRequest, ErrorCode, ErrorData};
use serde_json::Value;

/// The error for a request `rmcp` handed over as custom: `-32602` for a `tools/call` whose
/// `params` do not fit, `-32601` for any other method. Only `tools/call` is rewritten: under
/// MCP 2026-07-28 some methods are removed (`initialize` on a stateless request,
/// `logging/setLevel`, `resources/subscribe`, `tasks/list`, `tasks/result`: SEP-2575,
/// SEP-2663), and those MUST stay `-32601` (with HTTP 404 over Streamable HTTP), which `rmcp`
/// answers for them; the official conformance suite checks it.
pub(in crate::server) fn error(request: &CustomRequest) -> ErrorData {
    let method = request.method.as_str();
    if method != "tools/call" {
        return ErrorData::new(
            ErrorCode::METHOD_NOT_FOUND,
            format!("Method not found: {method}"),
            None,
        );
    }
    let problem = tools_call_problem(request.params.as_ref());
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

/// The JSON type of `value`, in JSON Schema's words (`an array`, `a string`...), for a
/// message.
pub(crate) fn kind(value: &Value) -> &'static str {
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

    #[test]
    fn methods_removed_in_2026_07_28_stay_method_not_found() {
        // SEP-2575 and SEP-2663: these MUST be -32601 (HTTP 404), whatever their params.
        for method in [
            "initialize",
            "logging/setLevel",
            "resources/subscribe",
            "resources/unsubscribe",
            "tasks/list",
            "tasks/result",
        ] {
            let err = error(&CustomRequest::new(method, Some(json!({"x": 1}))));
            assert_eq!(err.code, ErrorCode::METHOD_NOT_FOUND, "{method}");
        }
    }
}
