//! `ToolboxServer::http_service()` mounted in a server of one's own (`hyper`, with a route of
//! its own beside MCP's): the `Host` and `Origin` rules, the limits and the fixes in front of
//! `rmcp` hold there as under `serve_http`.

use std::{convert::Infallible, net::SocketAddr};

use bytes::Bytes;
use http::{Request, Response};
use http_body_util::{Either, Full};
use hyper::{body::Incoming, server::conn::http1, service::service_fn};
use hyper_util::rt::TokioIo;
use serde_json::json;
use tokio::net::TcpListener;
use toolmodel_rmcp::server::{HttpLimits, McpHttpBody, McpHttpService};
use tower_service::Service as _;

use crate::support::raw_http::{call_body, initialize_body, raw, server};

/// Serves a router on a free loopback port: `GET /health` answers itself, every other
/// request goes to `mcp`. Its address.
async fn mount(mcp: McpHttpService) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let mcp = mcp.clone();
            tokio::spawn(async move {
                let router = service_fn(move |request: Request<Incoming>| {
                    let mut mcp = mcp.clone();
                    async move {
                        let response: Response<Either<McpHttpBody, Full<Bytes>>> =
                            if request.uri().path() == "/health" {
                                Response::new(Either::Right(Full::new(Bytes::from("ok"))))
                            } else {
                                mcp.call(request).await?.map(Either::Left)
                            };
                        Ok::<_, Infallible>(response)
                    }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), router)
                    .await;
            });
        }
    });
    addr
}

/// The head of a `POST` to `path` (without the blank line), with `extra` header lines.
fn post(addr: SocketAddr, path: &str, extra: &str) -> String {
    format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream{extra}"
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mounted_service_serves_mcp_at_the_routers_path_beside_other_routes() {
    let addr = mount(server().http_service()).await;
    let health = raw(addr, &format!("GET /health HTTP/1.1\r\nHost: {addr}"), "").await;
    assert_eq!((health.status, health.body.as_str()), (200, "ok"));
    let reply = raw(addr, &post(addr, "/tools/mcp", ""), &initialize_body()).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let id = reply
        .header("mcp-session-id")
        .expect("a session")
        .to_owned();
    let in_session = format!("\r\nMcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25");
    let reply = raw(
        addr,
        &post(addr, "/tools/mcp", &in_session),
        &call_body(&json!({"a": 2, "b": 3})),
    )
    .await;
    assert_eq!(
        reply.json()["result"]["content"][0]["text"],
        "5",
        "{reply:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_mounted_service_keeps_the_rules_limits_and_fixes() {
    let limits = HttpLimits::default().with_max_body_bytes(512);
    let addr = mount(server().with_limits(limits).http_service()).await;
    let origin = raw(
        addr,
        &post(addr, "/mcp", "\r\nOrigin: http://evil.example"),
        &initialize_body(),
    )
    .await;
    assert_eq!(origin.status, 403, "{origin:?}");
    assert_eq!(origin.header("connection"), Some("close"));
    let large = raw(addr, &post(addr, "/mcp", ""), &" ".repeat(513)).await;
    assert_eq!(large.status, 413, "{large:?}");
    assert!(large.body.contains("max_body_bytes"), "{large:?}");
    let malformed = raw(addr, &post(addr, "/mcp", ""), "{\"jsonrpc\": ").await;
    assert_eq!(malformed.status, 400, "{malformed:?}");
    assert_eq!(malformed.json()["error"]["code"], -32700);
    let delete = raw(
        addr,
        &format!("DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\nMcp-Session-Id: made-up"),
        "",
    )
    .await;
    assert_eq!(delete.status, 404, "{delete:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_path_only_that_path_is_served() {
    let addr = mount(server().http_service().with_path("/mcp")).await;
    let elsewhere = raw(addr, &post(addr, "/tools/mcp", ""), &initialize_body()).await;
    assert_eq!(elsewhere.status, 404, "{elsewhere:?}");
    assert!(elsewhere.body.contains("/mcp"), "{elsewhere:?}");
    let served = raw(addr, &post(addr, "/mcp", ""), &initialize_body()).await;
    assert_eq!(served.status, 200, "{served:?}");
}
