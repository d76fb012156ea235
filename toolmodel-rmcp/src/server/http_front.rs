//! What [`ToolboxServer::serve_http`](super::ToolboxServer::serve_http) does with an HTTP
//! request before and after `rmcp`'s Streamable HTTP service: the path, the limits of
//! [`Limits`] that hold per request and per session, and the answers `rmcp` 3.11 gets wrong.
//!
//! Fixed here in front of `rmcp` (upstream behaviour of `rmcp` 3.11's
//! `StreamableHttpService`, kept until a release changes it):
//!
//! | request | `rmcp` 3.11 | here |
//! |---|---|---|
//! | a body that is not JSON, with `Content-Type: application/json` | 415 Unsupported Media Type, a text body | 400 with a JSON-RPC `-32700` Parse error (JSON-RPC 2.0, 5.1) |
//! | JSON that is no JSON-RPC message | 415, a text body | 400 with a JSON-RPC `-32600` Invalid Request, with the message's `id` when it has one |
//! | `DELETE` of a session the server does not hold | 202 Accepted | 404 Not Found (MCP, Streamable HTTP, "Session Management") |
//! | two `Host` headers | served with the first | 400 Bad Request (RFC 9112, 3.2) |
//! | a body slower than [`Limits::body_read_timeout`] | waits | 408 Request Timeout |

use std::{borrow::Cow, convert::Infallible, sync::Arc, time::Duration};

use bytes::Bytes;
use http::{HeaderValue, Method, Request, Response, StatusCode, header};
use http_body_util::{BodyExt as _, Full, Limited, combinators::BoxBody};
use hyper::body::Incoming;
use rmcp::transport::streamable_http_server::{
    StreamableHttpService,
    session::{SessionId, local::LocalSessionManager},
};
use serde_json::{Value, json};

use super::{
    limits::Limits,
    sessions::{Refusal, SessionTable},
    toolbox_server::ToolboxServer,
};

/// The path [`ToolboxServer::serve_http`] serves MCP on.
pub const MCP_PATH: &str = "/mcp";

/// The body of every response.
pub(super) type Body = BoxBody<Bytes, Infallible>;

/// The `Mcp-Session-Id` header (MCP, Streamable HTTP, "Session Management").
const SESSION_ID: &str = "mcp-session-id";

/// The seconds a refused client is told to wait (`Retry-After`).
const RETRY_AFTER_SECS: u64 = 1;

/// `rmcp`'s service and the checks around it.
pub(super) struct HttpFront {
    service: StreamableHttpService<ToolboxServer, LocalSessionManager>,
    sessions: Arc<SessionTable>,
    body_read_timeout: Duration,
    max_body_bytes: usize,
}

impl HttpFront {
    pub(super) fn new(
        service: StreamableHttpService<ToolboxServer, LocalSessionManager>,
        sessions: SessionTable,
        limits: &Limits,
    ) -> Self {
        Self {
            service,
            sessions: Arc::new(sessions),
            body_read_timeout: limits.body_read_timeout,
            max_body_bytes: limits.max_body_bytes,
        }
    }

    /// Answers one HTTP request.
    pub(super) async fn handle(&self, request: Request<Incoming>) -> Response<Body> {
        if request.uri().path() != MCP_PATH {
            return plain(
                StatusCode::NOT_FOUND,
                format!("Not Found: MCP is served at {MCP_PATH}"),
            );
        }
        if request
            .headers()
            .get_all(header::HOST)
            .iter()
            .nth(1)
            .is_some()
        {
            return plain(
                StatusCode::BAD_REQUEST,
                "Bad Request: more than one Host header (RFC 9112, 3.2)",
            );
        }
        let session = request
            .headers()
            .get(SESSION_ID)
            .and_then(|value| value.to_str().ok())
            .map(SessionId::from);
        let (parts, body) = request.into_parts();
        let body = if parts.method == Method::POST {
            match self.read_body(body).await {
                Ok(bytes) => bytes,
                Err(response) => return *response,
            }
        } else {
            Bytes::new()
        };
        match (&parts.method, session) {
            (&Method::DELETE, Some(id)) => {
                if !self.sessions.exists(&id).await {
                    return session_not_found();
                }
                let response = self.forward(parts, body).await;
                if response.status().is_success() {
                    self.sessions.deleted(&id);
                }
                response
            }
            (_, Some(id)) => {
                let in_flight = match self.sessions.start(&id) {
                    Ok(in_flight) => in_flight,
                    Err(refusal) => return refused(&refusal),
                };
                hold(self.forward(parts, body).await, in_flight)
            }
            (&Method::POST, None) => {
                if is_initialize(&body)
                    && let Err(refusal) = self.sessions.make_room().await
                {
                    return refused(&refusal);
                }
                let response = self.forward(parts, body).await;
                if let Some(id) = response
                    .headers()
                    .get(SESSION_ID)
                    .and_then(|value| value.to_str().ok())
                {
                    self.sessions.created(SessionId::from(id));
                }
                response
            }
            (_, None) => self.forward(parts, body).await,
        }
    }

    async fn forward(&self, parts: http::request::Parts, body: Bytes) -> Response<Body> {
        let json_body = parts.method == Method::POST && is_json(&parts.headers);
        let request = Request::from_parts(parts, Full::new(body.clone()));
        let response = self.service.handle(request).await;
        json_body_fix(response, json_body, &body)
    }

    /// The whole body, within [`Limits::body_read_timeout`] and [`Limits::max_body_bytes`].
    async fn read_body(&self, body: Incoming) -> Result<Bytes, Box<Response<Body>>> {
        let collect = Limited::new(body, self.max_body_bytes).collect();
        match tokio::time::timeout(self.body_read_timeout, collect).await {
            Ok(Ok(collected)) => Ok(collected.to_bytes()),
            Ok(Err(err)) if err.is::<http_body_util::LengthLimitError>() => Err(Box::new(plain(
                StatusCode::PAYLOAD_TOO_LARGE,
                format!(
                    "Content Too Large: the body exceeds the limit of {} bytes (max_body_bytes)",
                    self.max_body_bytes
                ),
            ))),
            Ok(Err(err)) => Err(Box::new(plain(
                StatusCode::BAD_REQUEST,
                format!("Bad Request: reading the body failed: {err}"),
            ))),
            Err(_elapsed) => {
                let mut response = plain(
                    StatusCode::REQUEST_TIMEOUT,
                    format!(
                        "Request Timeout: the body did not arrive within {:?} (body_read_timeout)",
                        self.body_read_timeout
                    ),
                );
                response
                    .headers_mut()
                    .insert(header::CONNECTION, HeaderValue::from_static("close"));
                Err(Box::new(response))
            }
        }
    }
}

/// Whether a request body is JSON by its `Content-Type`.
fn is_json(headers: &http::HeaderMap) -> bool {
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

/// Whether a body is an `initialize` request (only read when the sessions are full).
fn is_initialize(body: &[u8]) -> bool {
    #[derive(serde::Deserialize)]
    struct Method<'a> {
        #[serde(borrow)]
        method: Option<Cow<'a, str>>,
    }
    serde_json::from_slice::<Method<'_>>(body)
        .is_ok_and(|message| message.method.as_deref() == Some("initialize"))
}

/// `rmcp` answers a JSON body it cannot read as a JSON-RPC message with 415 and a text body
/// (its `expect_json`): 400 with the JSON-RPC error instead.
fn json_body_fix(response: Response<Body>, json_body: bool, body: &[u8]) -> Response<Body> {
    if !json_body || response.status() != StatusCode::UNSUPPORTED_MEDIA_TYPE {
        return response;
    }
    jsonrpc_error(body)
}

/// The JSON-RPC error for a body that is no JSON-RPC message (JSON-RPC 2.0, 5.1): `-32700`
/// when it is not JSON, `-32600` when it is, with its `id` when that is a valid one.
pub(super) fn jsonrpc_error(body: &[u8]) -> Response<Body> {
    let error = match serde_json::from_slice::<Value>(body) {
        Err(err) => json!({
            "jsonrpc": "2.0",
            "id": null,
            "error": {"code": -32700, "message": format!("Parse error: {err}")}
        }),
        Ok(value) => {
            let id = value
                .get("id")
                .filter(|id| id.is_string() || id.is_i64() || id.is_u64())
                .cloned()
                .unwrap_or(Value::Null);
            json!({
                "jsonrpc": "2.0",
                "id": id,
                "error": {
                    "code": -32600,
                    "message": "Invalid Request: not a JSON-RPC 2.0 request, notification or response"
                }
            })
        }
    };
    let mut response = Response::new(Full::new(Bytes::from(error.to_string())).boxed());
    *response.status_mut() = StatusCode::BAD_REQUEST;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

fn session_not_found() -> Response<Body> {
    plain(StatusCode::NOT_FOUND, "Not Found: Session not found")
}

/// The answer to a request a limit refused, naming the limit.
fn refused(refusal: &Refusal) -> Response<Body> {
    let (status, message) = match refusal {
        Refusal::SessionsBusy(max) => (
            StatusCode::SERVICE_UNAVAILABLE,
            format!(
                "Service Unavailable: all {max} sessions (max_sessions) have a request in flight"
            ),
        ),
        Refusal::CallsInFlight(max) => (
            StatusCode::TOO_MANY_REQUESTS,
            format!(
                "Too Many Requests: the session has {max} requests in flight (max_calls_per_session)"
            ),
        ),
    };
    let mut response = plain(status, message);
    response
        .headers_mut()
        .insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
    response
}

/// A text response.
pub(super) fn plain(status: StatusCode, message: impl Into<String>) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(message.into())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// `response` with `guard` kept alive until its body is dropped (sent, or the client gone).
pub(super) fn hold<G: Send + Sync + 'static>(response: Response<Body>, guard: G) -> Response<Body> {
    response.map(|body| {
        body.map_frame(move |frame| {
            let _ = &guard;
            frame
        })
        .boxed()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    async fn body_json(response: Response<Body>) -> Value {
        let bytes = response.into_body().collect().await.unwrap().to_bytes();
        serde_json::from_slice(&bytes).unwrap()
    }

    #[tokio::test]
    async fn malformed_json_is_a_parse_error() {
        let response = jsonrpc_error(b"{\"jsonrpc\": \"2.0\", ");
        assert_eq!(response.status(), StatusCode::BAD_REQUEST);
        let body = body_json(response).await;
        assert_eq!(body["error"]["code"], -32700);
        assert_eq!(body["id"], Value::Null);
    }

    #[tokio::test]
    async fn json_that_is_no_message_is_an_invalid_request_with_its_id() {
        let body = body_json(jsonrpc_error(br#"{"id": 7, "params": 3}"#)).await;
        assert_eq!(body["error"]["code"], -32600);
        assert_eq!(body["id"], 7);
        let body = body_json(jsonrpc_error(br#"{"id": [1], "method": 3}"#)).await;
        assert_eq!(body["id"], Value::Null);
    }

    #[test]
    fn only_initialize_is_initialize() {
        assert!(is_initialize(
            br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#
        ));
        assert!(!is_initialize(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#
        ));
        assert!(!is_initialize(b"not json"));
    }
}
