//! The `Origin` and `Host` rules of [`ToolboxServer::serve_http`](super::ToolboxServer::serve_http)
//! (MCP 2025-11-25 and 2026-07-28, "Transports", Streamable HTTP, "Security Warning": servers
//! MUST validate the `Origin` header of every incoming connection and answer 403 Forbidden to
//! an invalid one, against DNS rebinding).
//!
//! - **Host.** Only the host names the server answers to: loopback (`localhost`,
//!   `127.0.0.1`, `::1`) by default, the list of
//!   [`with_allowed_hosts`](super::ToolboxServer::with_allowed_hosts) otherwise; another
//!   `Host` is 403, two `Host` headers 400 (RFC 9112, 3.2).
//! - **Origin.** A request without `Origin` (not from a browser) passes. One with `Origin`
//!   passes when it is a loopback origin (`http` or `https`, any port, on `localhost`,
//!   `127.0.0.1` or `[::1]`), the server's own (`http` or `https` on one of its allowed host
//!   names), or on the list of
//!   [`with_allowed_origins`](super::ToolboxServer::with_allowed_origins); anything else,
//!   `Origin: null` included, is 403.
//!
//! Both are enforced by `rmcp` (`StreamableHttpServerConfig::allowed_hosts` and
//! `allowed_origins`), given the lists built here; `rmcp`'s own default checks no `Origin`.

use rmcp::transport::streamable_http_server::StreamableHttpServerConfig;

/// The host names a server answers to by default: loopback.
pub(super) const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// `rmcp` reads an allowed origin without a port as "any port" (a behaviour it deprecates):
/// spell the scheme's default port, as RFC 6454 serializes it.
pub(super) fn default_port(origin: String) -> String {
    let Some((scheme, rest)) = origin.split_once("://") else {
        return origin;
    };
    let has_port = match rest.rsplit_once(']') {
        Some((_, after_bracket)) => after_bracket.starts_with(':'),
        None => rest.contains(':'),
    };
    let port = match scheme.to_ascii_lowercase().as_str() {
        "http" => "80",
        "https" => "443",
        _ => return origin,
    };
    if has_port {
        origin
    } else {
        format!("{origin}:{port}")
    }
}

/// Every origin allowed: loopback, the server's own (`http` and `https` on each allowed host,
/// any port unless the host names one), then `extra`.
pub(super) fn allowed_origins(hosts: &[String], extra: &[String]) -> Vec<String> {
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

/// `rmcp`'s configuration with these rules, for `hosts` (empty: loopback) and `extra`
/// origins.
pub(super) fn http_config(
    hosts: &[String],
    extra_origins: &[String],
    max_body_bytes: usize,
) -> StreamableHttpServerConfig {
    let config = StreamableHttpServerConfig::default()
        .with_allowed_origins(allowed_origins(hosts, extra_origins))
        .enforce_origin_validation()
        .with_max_request_body_bytes(max_body_bytes);
    if hosts.is_empty() {
        config
    } else {
        config.with_allowed_hosts(hosts.iter().cloned())
    }
}

#[cfg(test)]
mod tests {
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
}
