//! The last stage: `rmcp`'s answer to a JSON body it cannot read as a JSON-RPC message,
//! rewritten. `rmcp` 3.11 answers it 415 Unsupported Media Type with a text body (its
//! `expect_json`); JSON-RPC 2.0 (5.1) has a `-32700` Parse error for a body that is not JSON
//! and a `-32600` Invalid Request for JSON that is no message, which [`json_body`] answers
//! instead, with HTTP 400.

use bytes::Bytes;
use http::{HeaderMap, HeaderValue, Response, StatusCode, header};
use http_body_util::{BodyExt as _, Full};
use serde_json::{Value, json};

use crate::server::http::{
    message::{Envelope, Head},
    response::Body,
};

/// Whether a request body is JSON by its `Content-Type` (`application/json`, any
/// parameters).
pub(in crate::server) fn is_json(headers: &HeaderMap) -> bool {
    headers
        .get(header::CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .is_some_and(|value| {
            value
                .split(';')
                .next()
                .is_some_and(|essence| essence.trim().eq_ignore_ascii_case("application/json"))
        })
}

/// `response`, `rmcp`'s answer to a request whose body the front read as `body` (`json_body`:
/// sent as JSON), with its 415 for a JSON body it could not read replaced by
/// [`jsonrpc_error`].
pub(in crate::server) fn json_body(
    response: Response<Body>,
    json_body: bool,
    body: &Envelope,
) -> Response<Body> {
    if !json_body || response.status() != StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return response;
    }
    jsonrpc_error(body)
}

/// The JSON-RPC error for a body that is no JSON-RPC message (JSON-RPC 2.0, 5.1): `-32700`
/// when it is not JSON, `-32600` when it is, with its `id` when that is a valid one; HTTP
/// 400.
fn jsonrpc_error(body: &Envelope) -> Response<Body> {
    let invalid = |id: Option<&Value>| {
        json!({
            "jsonrpc": "2.0",
            "id": id.cloned().unwrap_or(Value::Null),
            "error": {
                "code": -32600,
                "message": "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
            }
        })
    };
    let error = match body {
        Envelope::NotJson(err) => json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": -32700, "message": format!("Parse error: {err}")}
        }),
        Envelope::NotMessage { id } => invalid(id.as_ref()),
        // One message `rmcp` could not read names its id; a batch has no one id.
        Envelope::Messages(heads) => invalid(match heads.as_slice() {
            [Head { id, .. }] => id.as_ref(),
            _ => None,
        }),
    };
    let mut response = Response::new(Full::new(Bytes::from(error.to_string())).boxed());
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::server::http::response::plain;

    async fn body_json(response: Response<Body>) -> Value {
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        serde_json::from_slice(&bytes).unwrap()
    }

    #[tokio::test]
    async fn malformed_json_is_a_parse_error() {
        let response = jsonrpc_error(&Envelope::read(b"{\"jsonrpc\": \"2.0\", "));
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        let body = body_json(response).await;
        assert_eq!(body["error"]["code"], -32700);
        assert_eq!(body["id"], Value::Null);
    }

    #[tokio::test]
    async fn json_that_is_no_message_is_an_invalid_request_with_its_id() {
        let body = body_json(jsonrpc_error(&Envelope::read(br#"{"id": 7, "params": 3}"#))).await;
        assert_eq!(body["error"]["code"], -32600);
        assert_eq!(body["id"], 7);
        let body = body_json(jsonrpc_error(&Envelope::read(
            br#"{"id": [1], "method": 3}"#,
        )))
        .await;
        assert_eq!(body["id"], Value::Null);
    }

    #[test]
    fn only_rmcps_415_to_a_json_body_is_rewritten() {
        let unsupported = || plain(StatusCode::UNSUPPORTED_MEDIA_TYPE, "Unsupported Media Type");
        assert_eq!(
            json_body(unsupported(), true, &Envelope::read(b"[")).status(),
            StatusCode::BAD_REQUEST
        );
        assert_eq!(
            json_body(unsupported(), false, &Envelope::read(b"[")).status(),
            StatusCode::UNSUPPORTED_MEDIA_TYPE
        );
        assert_eq!(
            json_body(plain(StatusCode::OK, ""), true, &Envelope::read(b"[")).status(),
            StatusCode::OK
        );
    }

    #[test]
    fn json_is_known_by_its_media_type() {
        let headers = |value: &'static str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(value));
            headers
        };
        assert!(is_json(&headers("application/json")));
        assert!(is_json(&headers("Application/JSON; charset=utf-8")));
        assert!(!is_json(&headers("text/plain")));
        assert!(!is_json(&HeaderMap::new()));
    }
}
