//! The bodies of the front's responses: [`McpHttpBody`], the body type
//! [`McpHttpService`](super::McpHttpService) answers with, the text responses the stages write
//! ([`plain`], [`empty`]), and [`hold`], which keeps a guard alive as long as a response's body.

use std::{
    convert::Infallible,
    fmt,
    pin::Pin,
    task::{Context, Poll},
};

use bytes::Bytes;
use http::{HeaderValue, Response, StatusCode, header};
use http_body::{Frame, SizeHint};
use http_body_util::{BodyExt as _, Full, combinators::BoxBody};

/// The body of every response inside the front (`rmcp`'s own body type).
pub(in crate::server) type Body = BoxBody<Bytes, Infallible>;

/// The body of a response of [`McpHttpService`](super::McpHttpService): JSON, a text
/// message, or a Server-Sent Events stream (MCP, Streamable HTTP) that ends when the
/// response's request is answered or its session closes. It implements
/// [`http_body::Body`] with `Data = Bytes` and never fails (`Error = Infallible`), so
/// `hyper`, `axum` and `tower-http` accept it as it is.
pub struct McpHttpBody(Body);

impl McpHttpBody {
    pub(super) fn new(body: Body) -> Self {
        Self(body)
    }
}

impl fmt::Debug for McpHttpBody {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("McpHttpBody")
            .finish_non_exhaustive()
    }
}

impl http_body::Body for McpHttpBody {
    type Data = Bytes;
    type Error = Infallible;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, Infallible>>> {
        Pin::new(&mut self.0).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.0.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.0.size_hint()
    }
}

/// A text response with `status` and `message`.
pub(in crate::server) fn plain(status: StatusCode, message: impl Into<String>) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(message.into())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("text/plain; charset=utf-8"),
    );
    response
}

/// An HTML page with `status`: the gateway's OAuth redirect endpoint's, which must not be
/// framed by another site (RFC 6749 §10.13), stored or sent on as a referrer (its URL held
/// a code).
#[cfg(feature = "federation")]
pub(in crate::server) fn page(status: StatusCode, html: String) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(html)).boxed());
    *response.status_mut() = status;
    let headers = response.headers_mut();
    for (name, value) in [
        (header::CONTENT_TYPE, "text/html; charset=utf-8"),
        (header::CACHE_CONTROL, "no-store"),
        (header::REFERRER_POLICY, "no-referrer"),
        (header::X_FRAME_OPTIONS, "DENY"),
        (
            header::CONTENT_SECURITY_POLICY,
            "default-src 'none'; frame-ancestors 'none'",
        ),
    ] {
        headers.insert(name, HeaderValue::from_static(value));
    }
    response
}

/// A JSON response with `status` and `value`.
pub(super) fn json(status: StatusCode, value: &serde_json::Value) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::from(value.to_string())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

/// A response with `status` and no body (a `204 No Content`).
pub(super) fn empty(status: StatusCode) -> Response<Body> {
    let mut response = Response::new(Full::new(Bytes::new()).boxed());
    *response.status_mut() = status;
    response
}

/// `response` with `guard` kept alive until its body is dropped (sent, or the client gone).
pub(super) fn hold<B, G>(response: Response<B>, guard: G) -> Response<Held<B, G>> {
    response.map(|body| Held {
        body,
        _guard: guard,
    })
}

/// A body that keeps a guard (a request counted in flight) until it is dropped: [`hold`].
pub(super) struct Held<B, G> {
    body: B,
    _guard: G,
}

impl<B: http_body::Body + Unpin, G: Unpin> http_body::Body for Held<B, G> {
    type Data = B::Data;
    type Error = B::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<B::Data>, B::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> SizeHint {
        self.body.size_hint()
    }
}

#[cfg(test)]
mod tests {
    use std::sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    };

    use http_body::Body as _;

    use super::*;

    struct Flag(Arc<AtomicBool>);

    impl Drop for Flag {
        fn drop(&mut self) {
            self.0.store(true, Ordering::SeqCst);
        }
    }

    #[tokio::test]
    async fn a_held_guard_lives_as_long_as_the_body() {
        let dropped = Arc::new(AtomicBool::new(false));
        let response = hold(plain(StatusCode::OK, "held"), Flag(Arc::clone(&dropped)));
        assert!(!dropped.load(Ordering::SeqCst));
        let body = McpHttpBody::new(response.into_body().boxed());
        let bytes = body.collect().await.unwrap().to_bytes();
        assert_eq!(&bytes[..], b"held");
        assert!(dropped.load(Ordering::SeqCst));
    }

    #[test]
    fn an_mcp_body_tells_its_length() {
        let body = McpHttpBody::new(plain(StatusCode::OK, "four").into_body());
        assert_eq!(body.size_hint().exact(), Some(4));
        assert!(!body.is_end_stream());
    }

    #[test]
    fn plain_responses_are_utf8_text() {
        let response = plain(StatusCode::NOT_FOUND, "Not Found");
        assert_eq!(response.status(), StatusCode::NOT_FOUND);
        assert_eq!(
            response.headers()[header::CONTENT_TYPE],
            "text/plain; charset=utf-8"
        );
    }
}
