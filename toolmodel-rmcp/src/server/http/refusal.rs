//! [`Refusal`]: why a stage of the front answered a request itself, and the response it
//! answers with (a text body naming the rule or the limit).
//!
//! **The connection.** A refusal before the body is read (path, `Host`, `Origin`, the gate;
//! the gate's scope check of a body too, which reads as one refusal of the gate) or while it
//! is read (too large, too slow, unreadable) carries `Connection: close`: the body left
//! unread makes the connection useless for a next request anyway, and closing it at once
//! frees the client's connection slot
//! ([`HttpLimits::max_connections`](super::HttpLimits::max_connections)) as soon as the
//! response is written, so refused clients never hold the slots others need. A refusal after
//! the body is read (the session limits, a `DELETE` of an unknown session) keeps the
//! connection open for the client's next request (HTTP/1.1 keep-alive). A refusal of a server
//! shutting down closes it too: the server is going away. `Connection` is
//! HTTP/1.1's: over HTTP/2 a server (`hyper`'s) drops it, and the stream ends alone.

use std::time::Duration;

use http::{HeaderValue, Response, StatusCode, header};

use super::response::{Body, plain};
#[cfg(feature = "auth")]
use crate::auth::Challenge;

/// The seconds a client refused by a session limit is told to wait (`Retry-After`).
const RETRY_AFTER_SECS: u64 = 1;

/// Why a stage refused a request (each variant says its status).
#[derive(Debug, PartialEq)]
pub(super) enum Refusal {
    /// 404: the path is not the one served (this one).
    NotServedPath(String),
    /// 400: more than one `Host` header (RFC 9112, 3.2).
    TwoHosts,
    /// 400: no `Host`, or one that is no `host[:port]` (what is wrong).
    BadHost(String),
    /// 403: a `Host` not on the allow-list (its value), against DNS rebinding.
    HostNotAllowed(String),
    /// 403: an `Origin` that is no allowed origin (its value; MCP, Streamable HTTP,
    /// "Security Warning").
    OriginNotAllowed(String),
    /// 413: the body is larger than `max_body_bytes` (this many).
    BodyTooLarge(usize),
    /// 408: the body did not arrive within `body_read_timeout` (this long).
    BodyTimeout(Duration),
    /// 400: reading the body failed (why).
    BodyUnreadable(String),
    /// 503: every one of the `max_sessions` sessions (this many) has a request in flight.
    SessionsBusy(usize),
    /// 429: the session has `max_calls_per_session` requests (this many) in flight.
    CallsInFlight(usize),
    /// 429: the caller (its subject, else its connection) has `max_calls_per_caller`
    /// requests (this many) that name no session in flight.
    CallerBusy(usize),
    /// 404: a `DELETE` of a session the server does not hold (MCP, Streamable HTTP,
    /// "Session Management"); with a shared session store, any request in a session the
    /// store does not have (unknown, deleted, expired, another user's, or an id of a shape no
    /// session has).
    SessionNotFound,
    /// 503: a request needs the shared session store (a session this replica does not hold,
    /// an `initialize`, a `DELETE`, an answer for another replica) and it cannot be reached.
    SessionStoreUnavailable,
    /// 503: the shared session store keeps its limit of sessions (this many).
    SessionStoreFull(usize),
    /// 400: the client's answer (its JSON-RPC id, as JSON) to a request of another replica
    /// that no replica waits for (that replica is gone), with a JSON-RPC error (no id) as
    /// body (MCP, Streamable HTTP: a response the server cannot accept gets an HTTP error).
    NoReplicaWaiting(String),
    /// 401: no bearer token, or one that is not valid (MCP, "Authorization"; RFC 6750 §3),
    /// with its `WWW-Authenticate` challenge.
    #[cfg(feature = "auth")]
    Unauthorized(Challenge),
    /// 403: the token lacks a scope the request needs, with the `insufficient_scope`
    /// challenge naming them all.
    #[cfg(feature = "auth")]
    InsufficientScope(Challenge),
    /// 503: the authorization server cannot be reached to verify the token: nothing is let
    /// through.
    #[cfg(feature = "auth")]
    AuthorizationUnavailable,
    /// 503: the token needs an introspection request and the rate of those is spent
    /// ([`ResourceServer::with_introspection_rate`](crate::auth::ResourceServer::with_introspection_rate)).
    #[cfg(feature = "auth")]
    IntrospectionBusy,
    /// 429: a rate limit's request rule has no token left for the caller
    /// ([`RateLimits`](crate::server::RateLimits)): which rule, and when to retry
    /// (`Retry-After`, whole seconds).
    RateLimited(crate::server::rate_limits::Refused),
    /// The server is shutting down ([`McpHttpService::close_sessions`](super::McpHttpService::close_sessions)
    /// was called): 404 to a request that names a session, which has ended (MCP, Streamable
    /// HTTP, "Session Management": a client then starts a new session, on the restarted
    /// server or another replica); 503 to any other.
    ShuttingDown {
        /// Whether the request carried `Mcp-Session-Id`.
        session: bool,
    },
}

/// What the connection does after a refusal (the module docs say why).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Then {
    /// `Connection: close`.
    Close,
    /// Kept open for the client's next request.
    KeepAlive,
}

/// Whether a refusal tells the client when to try again (`Retry-After`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Retry {
    /// In [`RETRY_AFTER_SECS`].
    After,
    /// In this many seconds.
    In(u64),
    No,
}

/// Everything a refusal answers, declared once per refusal in [`Refusal::answer`].
struct Answer {
    status: StatusCode,
    then: Then,
    retry: Retry,
    /// The text body: the status's reason, then the rule or the limit by name.
    message: String,
}

const fn answer(status: StatusCode, then: Then, retry: Retry, message: String) -> Answer {
    Answer {
        status,
        then,
        retry,
        message,
    }
}

impl Refusal {
    /// The refusals' table: each one's status, connection, `Retry-After` and text. A
    /// challenge (`WWW-Authenticate`) goes with the refusals that carry one.
    fn answer(&self) -> Answer {
        use {Retry::*, StatusCode as S, Then::*};
        match self {
            Self::NotServedPath(path) => answer(
                S::NOT_FOUND,
                Close,
                No,
                format!("Not Found: MCP is served at {path}"),
            ),
            Self::TwoHosts => answer(
                S::BAD_REQUEST,
                Close,
                No,
                "Bad Request: more than one Host header (RFC 9112, 3.2)".to_owned(),
            ),
            Self::BadHost(problem) => {
                answer(S::BAD_REQUEST, Close, No, format!("Bad Request: {problem}"))
            }
            Self::HostNotAllowed(host) => answer(
                S::FORBIDDEN,
                Close,
                No,
                format!("Forbidden: Host {host:?} is not allowed (with_allowed_hosts)"),
            ),
            Self::OriginNotAllowed(origin) => answer(
                S::FORBIDDEN,
                Close,
                No,
                format!("Forbidden: Origin {origin:?} is not allowed (with_allowed_origins)"),
            ),
            Self::BodyTooLarge(max) => answer(
                S::PAYLOAD_TOO_LARGE,
                Close,
                No,
                format!(
                    "Content Too Large: the body exceeds the limit of {max} bytes (max_body_bytes)"
                ),
            ),
            Self::BodyTimeout(timeout) => answer(
                S::REQUEST_TIMEOUT,
                Close,
                No,
                format!(
                    "Request Timeout: the body did not arrive within {timeout:?} (body_read_timeout)"
                ),
            ),
            Self::BodyUnreadable(err) => answer(
                S::BAD_REQUEST,
                Close,
                No,
                format!("Bad Request: reading the body failed: {err}"),
            ),
            Self::SessionsBusy(max) => answer(
                S::SERVICE_UNAVAILABLE,
                KeepAlive,
                After,
                format!(
                    "Service Unavailable: all {max} sessions (max_sessions) have a request in flight"
                ),
            ),
            Self::CallsInFlight(max) => answer(
                S::TOO_MANY_REQUESTS,
                KeepAlive,
                After,
                format!(
                    "Too Many Requests: the session has {max} requests in flight (max_calls_per_session)"
                ),
            ),
            Self::CallerBusy(max) => answer(
                S::TOO_MANY_REQUESTS,
                KeepAlive,
                After,
                format!(
                    "Too Many Requests: this caller has {max} requests in flight (max_calls_per_caller)"
                ),
            ),
            Self::SessionNotFound => answer(
                S::NOT_FOUND,
                KeepAlive,
                No,
                "Not Found: Session not found".to_owned(),
            ),
            Self::SessionStoreUnavailable => answer(
                S::SERVICE_UNAVAILABLE,
                KeepAlive,
                After,
                "Service Unavailable: the session store cannot be reached; retry shortly"
                    .to_owned(),
            ),
            Self::SessionStoreFull(max) => answer(
                S::SERVICE_UNAVAILABLE,
                KeepAlive,
                After,
                format!(
                    "Service Unavailable: the session store keeps {max} sessions, its limit; retry once some expire"
                ),
            ),
            Self::NoReplicaWaiting(id) => answer(
                S::BAD_REQUEST,
                KeepAlive,
                No,
                format!(
                    "no request of this session waits for the response with id {id}: the server that sent it is gone"
                ),
            ),
            #[cfg(feature = "auth")]
            Self::Unauthorized(_) => answer(
                S::UNAUTHORIZED,
                Close,
                No,
                "Unauthorized: a valid bearer token is required (see WWW-Authenticate)".to_owned(),
            ),
            #[cfg(feature = "auth")]
            Self::InsufficientScope(_) => answer(
                S::FORBIDDEN,
                Close,
                No,
                "Forbidden: the token lacks a scope this request needs (see WWW-Authenticate)"
                    .to_owned(),
            ),
            #[cfg(feature = "auth")]
            Self::AuthorizationUnavailable => answer(
                S::SERVICE_UNAVAILABLE,
                Close,
                After,
                "Service Unavailable: the authorization server cannot be reached to verify the token"
                    .to_owned(),
            ),
            #[cfg(feature = "auth")]
            Self::IntrospectionBusy => answer(
                S::SERVICE_UNAVAILABLE,
                Close,
                After,
                "Service Unavailable: too many tokens to introspect right now \
                 (with_introspection_rate); retry later"
                    .to_owned(),
            ),
            Self::RateLimited(refused) => answer(
                S::TOO_MANY_REQUESTS,
                KeepAlive,
                In(refused.retry_after_secs()),
                format!("Too Many Requests: {refused}"),
            ),
            Self::ShuttingDown { session: true } => answer(
                S::NOT_FOUND,
                Close,
                No,
                "Not Found: the session ended: the server is shutting down".to_owned(),
            ),
            Self::ShuttingDown { session: false } => answer(
                S::SERVICE_UNAVAILABLE,
                Close,
                After,
                "Service Unavailable: the server is shutting down".to_owned(),
            ),
        }
    }

    /// The refusal of a request whose session store failed with `err`.
    pub(super) fn from_store(err: &crate::Error) -> Self {
        match err {
            crate::Error::SessionLimit { limit } => Self::SessionStoreFull(*limit),
            _ => Self::SessionStoreUnavailable,
        }
    }

    /// The reason an operator counts it under (`toolmodel.refusal`; the table in
    /// [`telemetry::metrics`](crate::telemetry::metrics)).
    pub(super) fn reason(&self) -> &'static str {
        match self {
            Self::NotServedPath(_) => "path",
            Self::TwoHosts | Self::BadHost(_) | Self::HostNotAllowed(_) => "host",
            Self::OriginNotAllowed(_) => "origin",
            Self::BodyTooLarge(_) | Self::BodyTimeout(_) | Self::BodyUnreadable(_) => "body",
            Self::SessionsBusy(_) | Self::CallsInFlight(_) | Self::CallerBusy(_) => "limit",
            Self::SessionNotFound | Self::NoReplicaWaiting(_) => "session",
            Self::SessionStoreUnavailable => "session_store",
            Self::SessionStoreFull(_) => "limit",
            #[cfg(feature = "auth")]
            Self::Unauthorized(_) => "authorization",
            #[cfg(feature = "auth")]
            Self::InsufficientScope(_) => "scope",
            #[cfg(feature = "auth")]
            Self::AuthorizationUnavailable => "authorization_unavailable",
            #[cfg(feature = "auth")]
            Self::IntrospectionBusy => "rate",
            Self::RateLimited(_) => "rate_limit",
            Self::ShuttingDown { .. } => "shutting_down",
        }
    }

    /// The response: [`answer`](Self::answer)'s status and text, `Retry-After`,
    /// `WWW-Authenticate` and `Connection: close` as it says. Each is counted
    /// (`toolmodel.http.refusals`) and told as a DEBUG event of target `toolmodel_rmcp::http`
    /// (reason, status, text: never a header's value but the `Host` or `Origin` refused).
    pub(super) fn response(&self) -> Response<Body> {
        let Answer {
            status,
            then,
            retry,
            message,
        } = self.answer();
        let reason = self.reason();
        crate::telemetry::metrics::refused(reason);
        tracing::debug!(
            target: "toolmodel_rmcp::http",
            refusal = reason,
            status = status.as_u16(),
            "{message}"
        );
        let mut response = match self {
            Self::NoReplicaWaiting(_) => super::response::json(
                status,
                &serde_json::json!({
                    "jsonrpc": "2.0",
                    "error": {"code": -32600, "message": message},
                }),
            ),
            _ => plain(status, message),
        };
        let headers = response.headers_mut();
        match retry {
            Retry::After => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from(RETRY_AFTER_SECS));
            }
            Retry::In(secs) => {
                headers.insert(header::RETRY_AFTER, HeaderValue::from(secs));
            }
            Retry::No => {}
        }
        #[cfg(feature = "auth")]
        if let Self::Unauthorized(challenge) | Self::InsufficientScope(challenge) = self {
            headers.insert(header::WWW_AUTHENTICATE, challenge.header_value());
        }
        if then == Then::Close {
            headers.insert(header::CONNECTION, HeaderValue::from_static("close"));
        }
        response
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_before_the_body_is_read_close_the_connection() {
        for refusal in [
            Refusal::NotServedPath("/mcp".into()),
            Refusal::TwoHosts,
            Refusal::BadHost("no Host header".into()),
            Refusal::HostNotAllowed("evil.example".into()),
            Refusal::OriginNotAllowed("http://evil.example".into()),
            Refusal::BodyTooLarge(64),
            Refusal::BodyTimeout(Duration::from_secs(1)),
            Refusal::BodyUnreadable("reset".into()),
        ] {
            let response = refusal.response();
            assert_eq!(
                response.headers().get(header::CONNECTION),
                Some(&HeaderValue::from_static("close")),
                "{refusal:?}"
            );
            assert!(response.headers().get(header::RETRY_AFTER).is_none());
        }
    }

    #[test]
    fn session_limits_keep_the_connection_and_say_when_to_retry() {
        for (refusal, status) in [
            (Refusal::SessionsBusy(3), StatusCode::SERVICE_UNAVAILABLE),
            (Refusal::CallsInFlight(1), StatusCode::TOO_MANY_REQUESTS),
            (Refusal::CallerBusy(1), StatusCode::TOO_MANY_REQUESTS),
        ] {
            let response = refusal.response();
            assert_eq!(response.status(), status);
            assert_eq!(response.headers()[header::RETRY_AFTER], "1");
            assert!(response.headers().get(header::CONNECTION).is_none());
        }
        let response = Refusal::SessionNotFound.response();
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        assert!(response.headers().get(header::CONNECTION).is_none());
    }

    #[tokio::test]
    async fn each_refusal_names_its_rule_or_limit() {
        use http_body_util::BodyExt as _;
        for (refusal, status, named) in [
            (Refusal::NotServedPath("/mcp".into()), 404, "/mcp"),
            (Refusal::TwoHosts, 400, "RFC 9112"),
            (
                Refusal::HostNotAllowed("evil.example".into()),
                403,
                "with_allowed_hosts",
            ),
            (
                Refusal::OriginNotAllowed("null".into()),
                403,
                "with_allowed_origins",
            ),
            (Refusal::BodyTooLarge(64), 413, "max_body_bytes"),
            (
                Refusal::BodyTimeout(Duration::from_secs(1)),
                408,
                "body_read_timeout",
            ),
            (Refusal::SessionsBusy(3), 503, "max_sessions"),
            (Refusal::CallsInFlight(1), 429, "max_calls_per_session"),
            (Refusal::CallerBusy(1), 429, "max_calls_per_caller"),
        ] {
            let response = refusal.response();
            assert_eq!(response.status().as_u16(), status, "{refusal:?}");
            let bytes = response.into_body().collect().await.unwrap().to_bytes();
            let text = String::from_utf8_lossy(&bytes);
            assert!(text.contains(named), "{refusal:?}: {text}");
        }
    }
}
