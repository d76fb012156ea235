//! The `Host` and `Origin` stage: which host names a request may be addressed to and which
//! browser origins may send it (MCP 2025-11-25 and 2026-07-28, "Transports", Streamable
//! HTTP, "Security Warning": servers MUST validate the `Origin` header of every incoming
//! connection and answer 403 Forbidden to an invalid one, against DNS rebinding). It reads
//! the request head only, before anything else is spent on the request.
//!
//! - **Host.** Only the host names the server answers to: loopback (`localhost`,
//!   `127.0.0.1`, `::1`) by default, the list of
//!   [`with_allowed_hosts`](crate::ToolboxServer::with_allowed_hosts) otherwise; an entry
//!   without a port admits any port. Another `Host` is 403, two `Host` headers 400 (RFC 9112,
//!   3.2), none (and no authority in the request target, as HTTP/2 carries it) or one that is
//!   no `host[:port]` (user info, a port past 65535) 400.
//! - **Origin.** A request without `Origin` (not from a browser) passes. One with `Origin`
//!   passes when it is a loopback origin (`http` or `https`, any port, on `localhost`,
//!   `127.0.0.1` or `[::1]`), the server's own (`http` or `https` on one of its allowed host
//!   names), or on the list of
//!   [`with_allowed_origins`](crate::ToolboxServer::with_allowed_origins); anything else,
//!   `Origin: null` included, is 403, and so is a request with two `Origin` headers one of
//!   which fails.
//!
//! The rules are `rmcp`'s (`StreamableHttpServerConfig::allowed_hosts` and
//! `allowed_origins`: host names compared without case and IPv6 brackets, an origin's
//! missing port read as its scheme's default, `:*` for any port), a little stricter (two
//! `Host` or `Origin` headers, a `Host` with user info or a bad port), and `rmcp`'s service
//! is given the same lists ([`AllowList::rmcp_config`]): it checks again, and never refuses
//! what passed here (a test compares the two case by case).

use http::{HeaderValue, Uri, header, request::Parts, uri::Authority};
use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;

use super::refusal::Refusal;

/// The host names a server answers to by default: loopback.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The port an origin without one has (RFC 6454, 4): 80 for `http`, 443 for `https`.
fn scheme_port(scheme: &str) -> Option<u16> {
    match scheme.to_ascii_lowercase().as_str() {
        "http" => Some(80),
        "https" => Some(443),
        _ => None,
    }
}

/// `origin` with its scheme's default port spelled out when it names none, as RFC 6454
/// serializes it: `rmcp` reads an allowed origin without a port as "any port" (a behaviour
/// it deprecates).
pub(crate) fn default_port(origin: String) -> String {
    let Some((scheme, rest)) = origin.split_once("://") else {
        return origin;
    };
    let has_port = match rest.rsplit_once(']') {
        Some((_, after_bracket)) => after_bracket.starts_with(':'),
        None => rest.contains(':'),
    };
    match scheme_port(scheme) {
        Some(port) if !has_port => format!("{origin}:{port}"),
        _ => origin,
    }
}

/// Every origin allowed: loopback, the server's own (`http` and `https` on each allowed host,
/// any port unless the host names one), then `extra`.
fn allowed_origins(hosts: &[String], extra: &[String]) -> Vec<String> {
    let mut origins = Vec::with_capacity(LOOPBACK_HOSTS.len() * 2 + hosts.len() * 2 + extra.len());
    let hosts = LOOPBACK_HOSTS
        .iter()
        .copied()
        .chain(hosts.iter().map(String::as_str));
    for host in hosts {
        let host = match host {
            "::1" => "[::1]",
            other => other,
        };
        let has_port = host
            .rsplit_once(']')
            .map_or(host.contains(':'), |(_, after)| after.starts_with(':'));
        let port = if has_port { "" } else { ":*" };
        for scheme in ["http", "https"] {
            let origin = format!("{scheme}://{host}{port}");
            if !origins.contains(&origin) {
                origins.push(origin);
            }
        }
    }
    origins.extend(extra.iter().cloned());
    origins
}

/// A host name as `Host` headers and allow-lists are compared: lowercase, without IPv6
/// brackets.
fn bare_host(host: &str) -> String {
    host.trim_matches('[')
        .trim_matches(']')
        .to_ascii_lowercase()
}

/// A host and its port, as a `Host` header or an allow-list entry names them.
#[derive(Debug, Clone, PartialEq, Eq)]
struct HostPort {
    host: String,
    port: Option<u16>,
}

impl HostPort {
    fn of(authority: &Authority) -> Self {
        Self {
            host: bare_host(authority.host()),
            port: authority.port_u16(),
        }
    }

    /// An allow-list entry: `host`, `host:port`, or a bare IPv6 address (`::1`); `None` when
    /// empty.
    fn entry(entry: &str) -> Option<Self> {
        let entry = entry.trim();
        if entry.is_empty() {
            return None;
        }
        Some(entry.parse::<Authority>().map_or_else(
            |_| Self {
                host: bare_host(entry),
                port: None,
            },
            |authority| Self::of(&authority),
        ))
    }

    /// Whether this allow-list entry admits `host`: the same name, and the same port when the
    /// entry names one.
    fn admits(&self, host: &Self) -> bool {
        self.host == host.host && self.port.is_none_or(|port| host.port == Some(port))
    }
}

/// An `Origin` header's value (RFC 6454, 7.1): `null`, or a scheme, host and port.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Origin {
    Null,
    Tuple {
        scheme: String,
        host: String,
        port: Option<u16>,
    },
}

impl Origin {
    /// `None` when `value` is no origin.
    fn parse(value: &str) -> Option<Self> {
        let value = value.trim();
        if value.eq_ignore_ascii_case("null") {
            return Some(Self::Null);
        }
        let uri = value.parse::<Uri>().ok()?;
        let scheme = uri.scheme_str()?.to_ascii_lowercase();
        let authority = uri.authority()?;
        Some(Self::Tuple {
            scheme,
            host: bare_host(authority.host()),
            port: authority.port_u16(),
        })
    }
}

/// An entry of the origins allowed: `null`, or a scheme and host with a port, or with `:*`
/// or no port at all for any port (as `rmcp` reads an entry without a port). A tuple whose
/// port is `None` admits any port.
#[derive(Debug, Clone, PartialEq, Eq)]
struct AllowedOrigin(Origin);

impl AllowedOrigin {
    /// `None` when `entry` is no origin (an entry `rmcp` ignores too).
    fn parse(entry: &str) -> Option<Self> {
        let entry = entry.trim();
        match entry.strip_suffix(":*") {
            Some(base) => match Origin::parse(base)? {
                any_port @ Origin::Tuple { port: None, .. } => Some(Self(any_port)),
                _ => None,
            },
            None => Origin::parse(entry).map(Self),
        }
    }

    /// Whether this entry admits `origin`: the same scheme and host, and the entry's port
    /// (the origin's scheme's default when it names none) unless any port is allowed.
    fn admits(&self, origin: &Origin) -> bool {
        match (&self.0, origin) {
            (Origin::Null, Origin::Null) => true,
            (
                Origin::Tuple { scheme, host, port },
                Origin::Tuple {
                    scheme: origin_scheme,
                    host: origin_host,
                    port: origin_port,
                },
            ) => {
                scheme == origin_scheme
                    && host == origin_host
                    && port.is_none_or(|port| {
                        origin_port.or_else(|| scheme_port(origin_scheme)) == Some(port)
                    })
            }
            _ => false,
        }
    }
}

/// The host names and origins a server admits, and the check of a request's head against
/// them.
#[derive(Debug, Clone)]
pub(super) struct AllowList {
    /// The allowed hosts as configured (loopback when none is), for `rmcp`.
    host_entries: Vec<String>,
    /// The allowed origins as built by [`allowed_origins`], for `rmcp`.
    origin_entries: Vec<String>,
    hosts: Vec<HostPort>,
    origins: Vec<AllowedOrigin>,
}

impl AllowList {
    /// The rules for `hosts` (empty: loopback) and the `extra` origins allowed besides
    /// loopback and the server's own.
    pub(super) fn new(hosts: &[String], extra_origins: &[String]) -> Self {
        let host_entries: Vec<String> = if hosts.is_empty() {
            LOOPBACK_HOSTS.map(str::to_owned).to_vec()
        } else {
            hosts.to_vec()
        };
        let origin_entries = allowed_origins(hosts, extra_origins);
        Self {
            hosts: host_entries
                .iter()
                .filter_map(|entry| HostPort::entry(entry))
                .collect(),
            origins: origin_entries
                .iter()
                .filter_map(|entry| AllowedOrigin::parse(entry))
                .collect(),
            host_entries,
            origin_entries,
        }
    }

    /// `rmcp`'s configuration with these lists and `max_body_bytes`.
    pub(super) fn rmcp_config(&self, max_body_bytes: usize) -> StreamableHttpServerConfig {
        StreamableHttpServerConfig::default()
            .with_allowed_hosts(self.host_entries.iter().cloned())
            .with_allowed_origins(self.origin_entries.iter().cloned())
            .enforce_origin_validation()
            .with_max_request_body_bytes(max_body_bytes)
    }

    /// Passes a request whose head has one allowed `Host` and only allowed `Origin`s.
    ///
    /// # Errors
    ///
    /// [`Refusal::TwoHosts`] for two `Host` headers, [`Refusal::BadHost`] for none or one that
    /// is no `host[:port]` (or not UTF-8), [`Refusal::HostNotAllowed`] and
    /// [`Refusal::OriginNotAllowed`] for a value not on the lists (module docs).
    pub(super) fn check(&self, head: &Parts) -> Result<(), Refusal> {
        let host = request_host(head)?;
        let (authority, named) = host;
        if !self.hosts.iter().any(|allowed| allowed.admits(&authority)) {
            return Err(Refusal::HostNotAllowed(named));
        }
        for value in head.headers.get_all(header::ORIGIN) {
            if !self.admits_origin(value) {
                let named = String::from_utf8_lossy(value.as_bytes()).into_owned();
                return Err(Refusal::OriginNotAllowed(named));
            }
        }
        Ok(())
    }

    /// Whether `value`, an `Origin` header's, is an allowed origin (module docs): the rule
    /// [`check`](Self::check) applies to each `Origin`, and the one the CORS answers use.
    pub(super) fn admits_origin(&self, value: &HeaderValue) -> bool {
        value
            .to_str()
            .ok()
            .and_then(Origin::parse)
            .is_some_and(|origin| self.origins.iter().any(|allowed| allowed.admits(&origin)))
    }
}

/// Whether `authority` is what a `Host` header may hold (RFC 9110, 7.2: `uri-host [":"
/// port]`): no user info, and a port that is a 16-bit number when there is a `:` after the
/// host. `http` reads user info and a port empty or past 65535 without complaint, and `rmcp`
/// passes them.
fn is_host_and_port(authority: &Authority) -> bool {
    let text = authority.as_str();
    let after_host = text
        .rsplit_once(']')
        .map_or(text, |(_, after_bracket)| after_bracket);
    !text.contains('@') && (authority.port_u16().is_some() || !after_host.contains(':'))
}

/// The host a request is addressed to, and how it named it: its one `Host` header, else the
/// authority of its target (HTTP/2's `:authority`, which a router may have dropped `Host`
/// for).
fn request_host(head: &Parts) -> Result<(HostPort, String), Refusal> {
    let mut hosts = head.headers.get_all(header::HOST).iter();
    match (hosts.next(), hosts.next()) {
        (Some(_), Some(_)) => Err(Refusal::TwoHosts),
        (Some(value), None) => {
            let text = value
                .to_str()
                .map_err(|_| Refusal::BadHost("the Host header is not ASCII".to_owned()))?;
            let authority = text
                .parse::<Authority>()
                .ok()
                .filter(is_host_and_port)
                .ok_or_else(|| {
                    Refusal::BadHost(format!(
                        "the Host header {text:?} is no host name with an optional port"
                    ))
                })?;
            Ok((HostPort::of(&authority), text.to_owned()))
        }
        (None, _) => head
            .uri
            .authority()
            .map(|authority| (HostPort::of(authority), authority.as_str().to_owned()))
            .ok_or_else(|| Refusal::BadHost("no Host header".to_owned())),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use bytes::Bytes;
    use http::{Request, StatusCode};
    use http_body_util::Full;
    use rmcp::transport::streamable_http_server::{
        StreamableHttpService, session::local::LocalSessionManager,
    };

    use super::*;

    #[test]
    fn loopback_and_own_origins_come_first_with_any_port() {
        let origins = allowed_origins(&["mcp.example.com".into()], &["null".into()]);
        assert_eq!(
            origins,
            [
                "http://localhost:*",
                "https://localhost:*",
                "http://127.0.0.1:*",
                "https://127.0.0.1:*",
                "http://[::1]:*",
                "https://[::1]:*",
                "http://mcp.example.com:*",
                "https://mcp.example.com:*",
                "null",
            ]
        );
    }

    #[test]
    fn a_host_with_a_port_keeps_it() {
        let origins = allowed_origins(&["mcp.example.com:8443".into()], &[]);
        assert!(origins.contains(&"https://mcp.example.com:8443".to_owned()));
        assert!(
            !origins
                .iter()
                .any(|origin| origin.ends_with("mcp.example.com:*"))
        );
    }

    #[test]
    fn an_origin_without_a_port_gets_its_schemes_default() {
        assert_eq!(
            default_port("https://a.example".into()),
            "https://a.example:443"
        );
        assert_eq!(
            default_port("http://a.example".into()),
            "http://a.example:80"
        );
        assert_eq!(
            default_port("http://a.example:8080".into()),
            "http://a.example:8080"
        );
        assert_eq!(default_port("http://[::1]".into()), "http://[::1]:80");
        assert_eq!(default_port("http://[::1]:*".into()), "http://[::1]:*");
        assert_eq!(default_port("null".into()), "null");
    }

    /// The head of a request with these headers (name, value), to `target`.
    fn head(target: &str, headers: &[(&str, &str)]) -> Parts {
        let mut request = Request::put(target);
        for (name, value) in headers {
            request = request.header(*name, *value);
        }
        request.body(()).unwrap().into_parts().0
    }

    /// The allow-lists of the cases below: loopback, or a public server's.
    fn lists() -> [AllowList; 2] {
        [
            AllowList::new(&[], &[]),
            AllowList::new(
                &["mcp.example.com".into(), "api.example.com:8443".into()],
                &[
                    default_port("https://app.example.com".into()),
                    "null".into(),
                ],
            ),
        ]
    }

    /// (allow-list, target, headers, expected), for both this stage and `rmcp`.
    type Case = (
        usize,
        &'static str,
        &'static [(&'static str, &'static str)],
        Result<(), u16>,
    );

    #[rustfmt::skip]
    const CASES: &[Case] = &[
        (0, "/mcp", &[("host", "localhost")], Ok(())),
        (0, "/mcp", &[("host", "LOCALHOST:8080")], Ok(())),
        (0, "/mcp", &[("host", "127.0.0.1:3000")], Ok(())),
        (0, "/mcp", &[("host", "[::1]:3000")], Ok(())),
        (0, "/mcp", &[("host", "evil.example")], Err(403)),
        (0, "/mcp", &[("host", "localhost.evil.example")], Err(403)),
        (0, "/mcp", &[("host", "local host")], Err(400)),
        (0, "/mcp", &[], Err(400)),
        (0, "http://localhost:8080/mcp", &[], Ok(())),
        (0, "http://evil.example/mcp", &[], Err(403)),
        (0, "/mcp", &[("host", "localhost"), ("origin", "http://localhost:5173")], Ok(())),
        (0, "/mcp", &[("host", "localhost"), ("origin", "https://127.0.0.1")], Ok(())),
        (0, "/mcp", &[("host", "localhost"), ("origin", "http://[::1]:3000")], Ok(())),
        (0, "/mcp", &[("host", "localhost"), ("origin", "http://evil.example")], Err(403)),
        (0, "/mcp", &[("host", "localhost"), ("origin", "null")], Err(403)),
        (0, "/mcp", &[("host", "localhost"), ("origin", "not an origin")], Err(403)),
        (0, "/mcp", &[("host", "localhost"), ("origin", "ftp://localhost")], Err(403)),
        (1, "/mcp", &[("host", "mcp.example.com")], Ok(())),
        (1, "/mcp", &[("host", "mcp.example.com:443")], Ok(())),
        (1, "/mcp", &[("host", "api.example.com:8443")], Ok(())),
        (1, "/mcp", &[("host", "api.example.com")], Err(403)),
        (1, "/mcp", &[("host", "api.example.com:443")], Err(403)),
        (1, "/mcp", &[("host", "localhost")], Err(403)),
        (1, "/mcp", &[("host", "mcp.example.com"), ("origin", "https://mcp.example.com")], Ok(())),
        (1, "/mcp", &[("host", "mcp.example.com"), ("origin", "https://api.example.com:8443")], Ok(())),
        (1, "/mcp", &[("host", "mcp.example.com"), ("origin", "https://api.example.com")], Err(403)),
        (1, "/mcp", &[("host", "mcp.example.com"), ("origin", "https://app.example.com")], Ok(())),
        (1, "/mcp", &[("host", "mcp.example.com"), ("origin", "https://app.example.com:443")], Ok(())),
        (1, "/mcp", &[("host", "mcp.example.com"), ("origin", "https://app.example.com:8443")], Err(403)),
        (1, "/mcp", &[("host", "mcp.example.com"), ("origin", "http://app.example.com")], Err(403)),
        (1, "/mcp", &[("host", "mcp.example.com"), ("origin", "https://app.example.com.evil.example")], Err(403)),
        (1, "/mcp", &[("host", "mcp.example.com"), ("origin", "null")], Ok(())),
        (1, "/mcp", &[("host", "mcp.example.com"), ("origin", "http://localhost:5173")], Ok(())),
    ];

    fn status(result: &Result<(), Refusal>) -> Result<(), u16> {
        match result {
            Ok(()) => Ok(()),
            Err(refusal) => Err(refusal.response().status().as_u16()),
        }
    }

    #[test]
    fn hosts_and_origins_pass_or_fail_by_the_lists() {
        let lists = lists();
        for &(list, target, headers, expected) in CASES {
            let result = lists[list].check(&head(target, headers));
            assert_eq!(
                status(&result),
                expected,
                "list {list}: {target} {headers:?}: {result:?}"
            );
        }
    }

    #[test]
    fn two_host_headers_are_refused_and_two_origins_must_both_pass() {
        let list = &lists()[0];
        assert_eq!(
            list.check(&head(
                "/mcp",
                &[("host", "localhost"), ("host", "evil.example")]
            )),
            Err(Refusal::TwoHosts)
        );
        assert_eq!(
            list.check(&head(
                "/mcp",
                &[
                    ("host", "localhost"),
                    ("origin", "http://localhost"),
                    ("origin", "http://evil.example"),
                ]
            )),
            Err(Refusal::OriginNotAllowed("http://evil.example".into()))
        );
    }

    /// Stricter than `rmcp`, which passes these as `localhost`.
    #[test]
    fn a_host_with_user_info_or_a_port_out_of_range_is_bad() {
        for host in [
            "localhost:99999",
            "localhost:",
            "evil@localhost",
            "a:b@localhost:80",
        ] {
            assert_eq!(
                lists()[0].check(&head("/mcp", &[("host", host)])),
                Err(Refusal::BadHost(format!(
                    "the Host header {host:?} is no host name with an optional port"
                ))),
            );
        }
        assert_eq!(
            lists()[0].check(&head("/mcp", &[("host", "[::1]")])),
            Ok(())
        );
    }

    #[test]
    fn a_refusal_names_the_value_refused() {
        let list = &lists()[0];
        assert_eq!(
            list.check(&head("/mcp", &[("host", "evil.example:80")])),
            Err(Refusal::HostNotAllowed("evil.example:80".into()))
        );
        assert_eq!(
            list.check(&head("/mcp", &[("host", "localhost"), ("origin", "null")])),
            Err(Refusal::OriginNotAllowed("null".into()))
        );
    }

    /// `rmcp` checks `Host` and `Origin` again with the lists of [`AllowList::rmcp_config`]:
    /// for every case it passes what this stage passes (it then answers the `PUT` 405) and
    /// refuses what this stage refuses, with the same status.
    #[tokio::test]
    async fn rmcp_agrees_with_every_case() {
        let toolbox = toolmodel::Toolbox::builder().build().unwrap();
        let server = crate::ToolboxServer::new(toolbox);
        for (index, list) in lists().iter().enumerate() {
            let server = server.clone();
            let rmcp = StreamableHttpService::new(
                move || Ok(server.clone()),
                Arc::new(LocalSessionManager::default()),
                list.rmcp_config(1024),
            );
            for &(_, target, headers, expected) in CASES.iter().filter(|case| case.0 == index) {
                let request = Request::from_parts(head(target, headers), Full::new(Bytes::new()));
                let status = rmcp.handle(request).await.status();
                let rmcp_result = if status == StatusCode::METHOD_NOT_ALLOWED {
                    Ok(())
                } else {
                    Err(status.as_u16())
                };
                assert_eq!(rmcp_result, expected, "list {index}: {target} {headers:?}");
            }
        }
    }
}
