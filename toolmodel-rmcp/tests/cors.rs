//! Browser clients (CORS, Fetch Standard): `serve_http` answers the preflight of a page on
//! an allowed origin, in the head stages (no body read, no session), and lets the page read
//! every response, refusals included; a page on another origin gets a 403 it cannot read.

use std::{net::SocketAddr, time::Duration};

use serde_json::json;
use tokio::{io::AsyncWriteExt as _, net::TcpStream};
use toolmodel_rmcp::server::HttpLimits;

use crate::support::raw_http::{
    Reply, assert_sessions_open, call_body, initialize_body, post_head, raw, read_reply, server,
    session, start,
};

/// The page the tests call from with `with_allowed_origins`.
const APP: &str = "https://app.example.com";

/// The MCP Inspector's web UI: loopback, on a port of its own.
const INSPECTOR: &str = "http://localhost:6274";

/// The head of a preflight of a `POST /mcp` from `origin`, asking for `headers`.
fn preflight_head(addr: SocketAddr, origin: &str, headers: &str) -> String {
    format!(
        "OPTIONS /mcp HTTP/1.1\r\nHost: {addr}\r\nOrigin: {origin}\r\n\
         Access-Control-Request-Method: POST\r\nAccess-Control-Request-Headers: {headers}"
    )
}

/// The CORS headers of `reply` (`access-control-*`).
fn cors_headers(reply: &Reply) -> Vec<&(String, String)> {
    reply
        .headers
        .iter()
        .filter(|(name, _)| name.starts_with("access-control-"))
        .collect()
}

/// Every header name in a comma-separated list, lowercase.
fn listed(value: Option<&str>) -> Vec<String> {
    value
        .unwrap_or_default()
        .split(',')
        .map(|name| name.trim().to_ascii_lowercase())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_preflight_from_an_allowed_origin_is_answered_204_with_the_mcp_headers() {
    let addr = start(server().with_allowed_origins([APP])).await;
    let requested = "content-type,mcp-session-id,mcp-protocol-version,mcp-method,mcp-name,\
                     mcp-param-region,authorization";
    for origin in [INSPECTOR, APP] {
        let reply = raw(addr, &preflight_head(addr, origin, requested), "").await;
        assert_eq!(reply.status, 204, "{origin}: {reply:?}");
        assert_eq!(reply.header("access-control-allow-origin"), Some(origin));
        assert_eq!(
            reply.header("access-control-allow-methods"),
            Some("GET, POST, DELETE")
        );
        let allowed = listed(reply.header("access-control-allow-headers"));
        for name in requested.split(',').chain(["accept", "last-event-id"]) {
            assert!(allowed.contains(&name.to_owned()), "{name}: {allowed:?}");
        }
        assert_eq!(reply.header("access-control-max-age"), Some("7200"));
        assert!(listed(reply.header("vary")).contains(&"origin".to_owned()));
        assert_eq!(reply.header("access-control-allow-credentials"), None);
        assert!(reply.body.is_empty(), "{reply:?}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_preflight_from_a_foreign_origin_is_refused_403_without_cors_headers() {
    let addr = start(server().with_allowed_origins([APP])).await;
    for origin in ["https://evil.example", "http://app.example.com", "null"] {
        let reply = raw(addr, &preflight_head(addr, origin, "content-type"), "").await;
        assert_eq!(reply.status, 403, "{origin}: {reply:?}");
        assert!(cors_headers(&reply).is_empty(), "{origin}: {reply:?}");
    }
}

/// The page can read the session id of its `initialize` (exposed), and its calls.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_initialize_from_an_allowed_origin_exposes_the_session_id() {
    let addr = start(server().with_allowed_origins([APP])).await;
    let origin = format!("Origin: {APP}");
    let reply = raw(addr, &post_head(addr, None, &origin), &initialize_body()).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(reply.header("access-control-allow-origin"), Some(APP));
    let exposed = listed(reply.header("access-control-expose-headers"));
    assert!(
        exposed.contains(&"mcp-session-id".to_owned()),
        "{exposed:?}"
    );
    assert!(
        exposed.contains(&"www-authenticate".to_owned()),
        "{exposed:?}"
    );
    assert!(listed(reply.header("vary")).contains(&"origin".to_owned()));
    let id = reply.header("mcp-session-id").expect("a session id");

    let call = call_body(&json!({"a": 1, "b": 2}));
    let reply = raw(addr, &post_head(addr, Some(id), &origin), &call).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(reply.header("access-control-allow-origin"), Some(APP));
    assert_eq!(reply.json()["result"]["content"][0]["text"], "3");
}

/// A response to a request without `Origin` (no browser) carries no CORS header.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_without_origin_gets_no_cors_headers() {
    let addr = start(server()).await;
    let reply = raw(addr, &post_head(addr, None, ""), &initialize_body()).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert!(cors_headers(&reply).is_empty(), "{reply:?}");
}

/// The front's refusals of a request from an allowed origin are readable by the page: a
/// body too large (413), a wrong path (404), a session at its calls in flight... here the
/// first two.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_fronts_refusals_of_an_allowed_origin_carry_the_cors_headers() {
    let addr = start(
        server()
            .with_allowed_origins([APP])
            .with_limits(HttpLimits::default().with_max_body_bytes(64)),
    )
    .await;
    let origin = format!("Origin: {APP}");
    let too_large = raw(addr, &post_head(addr, None, &origin), &initialize_body()).await;
    let elsewhere = raw(
        addr,
        &post_head(addr, None, &origin).replace("POST /mcp ", "POST /elsewhere "),
        "{}",
    )
    .await;
    for (reply, status) in [(too_large, 413), (elsewhere, 404)] {
        assert_eq!(reply.status, status, "{reply:?}");
        assert_eq!(reply.header("access-control-allow-origin"), Some(APP));
        assert!(reply.header("access-control-expose-headers").is_some());
    }
}

/// A preflight is answered from its head: one announcing a body that never comes is
/// answered at once, and with `max_sessions` taken by idle clients, preflights close none of
/// their sessions.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_preflight_reads_no_body_and_takes_no_session() {
    let limits = HttpLimits::default()
        .with_max_sessions(3)
        .with_body_read_timeout(Duration::from_secs(5));
    let addr = start(server().with_limits(limits)).await;

    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = preflight_head(addr, INSPECTOR, "content-type");
    let request = format!("{head}\r\nConnection: close\r\nContent-Length: 100\r\n\r\n{{");
    stream.write_all(request.as_bytes()).await.unwrap();
    let reply = tokio::time::timeout(Duration::from_secs(2), read_reply(&mut stream))
        .await
        .expect("answered without the body");
    assert_eq!(reply.status, 204, "{reply:?}");

    let clients = [
        session(addr).await,
        session(addr).await,
        session(addr).await,
    ];
    for _ in 0..5 {
        let reply = raw(addr, &preflight_head(addr, INSPECTOR, "content-type"), "").await;
        assert_eq!(reply.status, 204, "{reply:?}");
    }
    assert_sessions_open(addr, &clients).await;
}
