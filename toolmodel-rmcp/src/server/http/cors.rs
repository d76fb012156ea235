//! The CORS stage (Fetch Standard, "CORS protocol"): what lets a web page on an allowed
//! origin (a web app with an MCP SDK, the MCP Inspector's web UI on its own port) call the
//! server from a browser, with the same allow-list as the `Origin` check
//! ([`AllowList::admits_origin`]), so that what a browser may read and what the server
//! serves never differ.
//!
//! - **Preflight.** An `OPTIONS` request with `Origin` and `Access-Control-Request-Method`
//!   that passed the `Host` and `Origin` checks is answered here, `204 No Content`, before
//!   the gate, the body and the session: `Access-Control-Allow-Origin` with its origin (never
//!   `*`), `Access-Control-Allow-Methods: GET, POST, DELETE` (Streamable HTTP's),
//!   `Access-Control-Allow-Headers` with the request headers MCP clients send
//!   ([`MCP_REQUEST_HEADERS`], and each `Mcp-Param-{Name}` the preflight asks for: MCP
//!   2026-07-28, Streamable HTTP, "Custom Headers from Tool Parameters", names a tool may
//!   choose, which a CORS list cannot match by a wildcard), and `Access-Control-Max-Age`. A
//!   preflight from another origin is refused 403 by the `Origin` check, with no CORS header.
//! - **Every other response**, refusals of the front included, to a request with one allowed
//!   `Origin` carries `Access-Control-Allow-Origin` with it and
//!   `Access-Control-Expose-Headers: Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate`
//!   (a script reads only the response headers exposed to it).
//! - **Every response** carries `Vary: Origin` (and a preflight's `Vary:
//!   Access-Control-Request-Headers` too): what it says depends on those headers, and a cache
//!   must not give one origin's answer to another.
//! - **No credentials.** No response carries `Access-Control-Allow-Credentials`: MCP clients
//!   authenticate with a bearer token in `Authorization` (MCP, "Authorization"), a header a
//!   script sets and a preflight allows, not with cookies or TLS client certificates, which a
//!   browser attaches on its own. Without it, a page cannot make the browser send its user's
//!   cookies to the server, and a request made with `credentials: "include"` fails in the
//!   browser.

use http::{HeaderMap, HeaderName, HeaderValue, Method, Response, StatusCode, header};

use super::{
    host_origin::AllowList,
    response::{Body, empty},
};

/// The methods of Streamable HTTP (MCP, "Transports"): `POST` messages, `GET` a stream,
/// `DELETE` a session.
const ALLOW_METHODS: &str = "GET, POST, DELETE";

/// The request headers MCP clients send, as MCP spells them: `Content-Type` and `Accept` of
/// every `POST`, `Authorization` (MCP, "Authorization"), `Mcp-Session-Id`,
/// `Mcp-Protocol-Version` and `Last-Event-ID` (MCP 2025-11-25, Streamable HTTP), `Mcp-Method`
/// and `Mcp-Name` (MCP 2026-07-28, Streamable HTTP, "Standard Request Headers").
const MCP_REQUEST_HEADERS: [&str; 8] = [
    "Content-Type",
    "Accept",
    "Authorization",
    "Mcp-Session-Id",
    "Mcp-Protocol-Version",
    "Last-Event-ID",
    "Mcp-Method",
    "Mcp-Name",
];

/// The prefix of the headers a client mirrors tool arguments into (MCP 2026-07-28,
/// Streamable HTTP, `Mcp-Param-{Name}`), lowercase.
const PARAM_HEADER_PREFIX: &str = "mcp-param-";

/// The response headers a script may read: the session a response names, its protocol
/// version, and the challenge of a 401 (RFC 6750, 3).
const EXPOSE_HEADERS: &str = "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate";

/// How long a browser may keep a preflight's answer, in seconds: two hours, the most
/// Chromium keeps one (Firefox keeps one a day).
const MAX_AGE_SECS: u64 = 7200;

/// What CORS asks of a request's response: the request's allowed origin, and whether the
/// request is a preflight.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Cors {
    /// The request's `Origin` when it has exactly one and it is allowed.
    origin: Option<HeaderValue>,
    /// An `OPTIONS` request with `Access-Control-Request-Method` (Fetch, "CORS-preflight
    /// request").
    preflight: bool,
}

impl Cors {
    /// What the request of `method` and `headers` asks, by the origins `allow` admits.
    pub(super) fn of(allow: &AllowList, method: &Method, headers: &HeaderMap) -> Self {
        let mut origins = headers.get_all(header::ORIGIN).iter();
        let origin = match (origins.next(), origins.next()) {
            (Some(origin), None) if allow.admits_origin(origin) => Some(origin.clone()),
            _ => None,
        };
        Self {
            origin,
            preflight: method == Method::OPTIONS
                && headers.contains_key(header::ACCESS_CONTROL_REQUEST_METHOD),
        }
    }

    /// Whether this stage answers the request: a preflight from an allowed origin.
    pub(super) fn answers_preflight(&self) -> bool {
        self.preflight && self.origin.is_some()
    }

    /// The answer to a preflight whose headers are `headers`: `204 No Content` with the
    /// methods, the request headers allowed of those it asks for and how long to keep them
    /// ([`finish`](Self::finish) adds the origin).
    pub(super) fn preflight(headers: &HeaderMap) -> Response<Body> {
        let mut response = empty(StatusCode::NO_CONTENT);
        let out = response.headers_mut();
        out.insert(
            header::ACCESS_CONTROL_ALLOW_METHODS,
            HeaderValue::from_static(ALLOW_METHODS),
        );
        out.insert(header::ACCESS_CONTROL_ALLOW_HEADERS, allow_headers(headers));
        out.insert(
            header::ACCESS_CONTROL_MAX_AGE,
            HeaderValue::from(MAX_AGE_SECS),
        );
        response
    }

    /// `response` with the CORS headers of its request (module docs): `Vary` always;
    /// `Access-Control-Allow-Origin` for an allowed origin, and `Access-Control-Expose-Headers`
    /// unless the request is a preflight.
    pub(super) fn finish(&self, mut response: Response<Body>) -> Response<Body> {
        let headers = response.headers_mut();
        let vary = if self.preflight {
            "Origin, Access-Control-Request-Headers"
        } else {
            "Origin"
        };
        headers.append(header::VARY, HeaderValue::from_static(vary));
        if let Some(origin) = &self.origin {
            headers.insert(header::ACCESS_CONTROL_ALLOW_ORIGIN, origin.clone());
            if !self.preflight {
                headers.insert(
                    header::ACCESS_CONTROL_EXPOSE_HEADERS,
                    HeaderValue::from_static(EXPOSE_HEADERS),
                );
            }
        }
        response
    }
}

/// Whether `name` is an `Mcp-Param-{Name}` header name: the prefix (any case), then a
/// non-empty field name (RFC 9110, 5.1).
fn is_param_header(name: &str) -> bool {
    name.len() > PARAM_HEADER_PREFIX.len()
        && name
            .get(..PARAM_HEADER_PREFIX.len())
            .is_some_and(|prefix| prefix.eq_ignore_ascii_case(PARAM_HEADER_PREFIX))
        && HeaderName::from_bytes(name.as_bytes()).is_ok()
}

/// `Access-Control-Allow-Headers` for a preflight with `headers`: [`MCP_REQUEST_HEADERS`],
/// then each `Mcp-Param-{Name}` its `Access-Control-Request-Headers` asks for, once. Any
/// other header it asks for is left out, and the browser does not send the request.
fn allow_headers(headers: &HeaderMap) -> HeaderValue {
    let mut names: Vec<&str> = MCP_REQUEST_HEADERS.to_vec();
    let requested = headers
        .get_all(header::ACCESS_CONTROL_REQUEST_HEADERS)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(','))
        .map(str::trim);
    for name in requested {
        if is_param_header(name) && !names.iter().any(|known| known.eq_ignore_ascii_case(name)) {
            names.push(name);
        }
    }
    // Names that are field names, joined by ", ": always a header value.
    HeaderValue::from_str(&names.join(", "))
        .unwrap_or_else(|_| HeaderValue::from_static("Content-Type"))
}

#[cfg(test)]
mod tests {
    use http::Request;

    use super::{super::response::plain, *};

    fn cors(method: Method, headers: &[(&str, &str)]) -> Cors {
        let mut request = Request::builder().method(method).uri("/mcp");
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        let request = request.body(()).unwrap();
        let allow = AllowList::new(&[], &["https://app.example.com:443".into()]);
        Cors::of(&allow, request.method(), request.headers())
    }

    /// Asserts that `response` has each header (name, value) once, with that value.
    fn assert_headers(response: &Response<Body>, expected: &[(HeaderName, &str)]) {
        for (name, value) in expected {
            let values: Vec<_> = response.headers().get_all(name).iter().collect();
            assert_eq!(values, [value], "{name}");
        }
    }

    const PREFLIGHT: &[(&str, &str)] = &[
        ("origin", "https://app.example.com"),
        ("access-control-request-method", "POST"),
    ];

    #[test]
    fn a_preflight_is_answered_for_an_allowed_origin_only() {
        assert!(cors(Method::OPTIONS, PREFLIGHT).answers_preflight());
        assert!(
            cors(
                Method::OPTIONS,
                &[
                    ("origin", "http://localhost:6274"),
                    ("access-control-request-method", "GET"),
                ]
            )
            .answers_preflight()
        );
        for (method, headers) in [
            (
                Method::OPTIONS,
                &[
                    ("origin", "https://evil.example"),
                    ("access-control-request-method", "POST"),
                ][..],
            ),
            (
                Method::OPTIONS,
                &[("origin", "https://app.example.com")][..],
            ),
            (
                Method::OPTIONS,
                &[("access-control-request-method", "POST")][..],
            ),
            (Method::POST, PREFLIGHT),
        ] {
            assert!(
                !cors(method.clone(), headers).answers_preflight(),
                "{method} {headers:?}"
            );
        }
    }

    #[test]
    fn a_preflight_allows_the_methods_and_mcp_headers() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::ACCESS_CONTROL_REQUEST_HEADERS,
            HeaderValue::from_static("content-type,mcp-param-region, x-custom,Mcp-Param-Tenant"),
        );
        headers.append(
            header::ACCESS_CONTROL_REQUEST_HEADERS,
            HeaderValue::from_static("mcp-param-,mcp-param-region,mcp-param-a b"),
        );
        let response = cors(Method::OPTIONS, PREFLIGHT).finish(Cors::preflight(&headers));
        assert_eq!(response.status(), StatusCode::NO_CONTENT);
        assert_headers(
            &response,
            &[
                (
                    header::ACCESS_CONTROL_ALLOW_ORIGIN,
                    "https://app.example.com",
                ),
                (header::ACCESS_CONTROL_ALLOW_METHODS, "GET, POST, DELETE"),
                (
                    header::ACCESS_CONTROL_ALLOW_HEADERS,
                    "Content-Type, Accept, Authorization, Mcp-Session-Id, Mcp-Protocol-Version, \
                     Last-Event-ID, Mcp-Method, Mcp-Name, mcp-param-region, Mcp-Param-Tenant",
                ),
                (header::ACCESS_CONTROL_MAX_AGE, "7200"),
                (header::VARY, "Origin, Access-Control-Request-Headers"),
            ],
        );
        let headers = response.headers();
        assert!(!headers.contains_key(header::ACCESS_CONTROL_EXPOSE_HEADERS));
        assert!(!headers.contains_key(header::ACCESS_CONTROL_ALLOW_CREDENTIALS));
    }

    #[test]
    fn a_response_to_an_allowed_origin_names_it_and_exposes_the_mcp_headers() {
        let post = cors(Method::POST, &[("origin", "http://127.0.0.1:5173")]);
        let response = post.finish(plain(StatusCode::FORBIDDEN, "refused"));
        assert_headers(
            &response,
            &[
                (header::ACCESS_CONTROL_ALLOW_ORIGIN, "http://127.0.0.1:5173"),
                (
                    header::ACCESS_CONTROL_EXPOSE_HEADERS,
                    "Mcp-Session-Id, Mcp-Protocol-Version, WWW-Authenticate",
                ),
                (header::VARY, "Origin"),
            ],
        );
    }

    #[test]
    fn no_cors_header_without_one_allowed_origin() {
        for headers in [
            &[][..],
            &[("origin", "https://evil.example")][..],
            &[("origin", "null")][..],
            &[
                ("origin", "http://localhost:1"),
                ("origin", "http://localhost:2"),
            ][..],
        ] {
            let response = cors(Method::POST, headers).finish(plain(StatusCode::OK, ""));
            let names: Vec<_> = response.headers().keys().map(HeaderName::as_str).collect();
            assert_eq!(names, ["content-type", "vary"], "{headers:?}");
            assert_eq!(response.headers()[header::VARY], "Origin");
        }
    }

    #[test]
    fn param_headers_are_known_by_their_prefix_and_need_a_name() {
        assert!(is_param_header("Mcp-Param-Region"));
        assert!(is_param_header("mcp-param-x"));
        assert!(!is_param_header("mcp-param-"));
        assert!(!is_param_header("mcp-parameter"));
        assert!(!is_param_header("mcp-param-a b"));
        assert!(!is_param_header("x-mcp-param-a"));
    }
}
