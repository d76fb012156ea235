//! The gateway never forwards its client's credentials upstream: a `ToolboxServer` over a
//! federation, its client sending `Authorization: Bearer` and a header of its own, and an
//! HTTP upstream that records the headers of every request it gets. The upstream sees the
//! headers its configuration names, and none of the client's.

use std::{
    collections::HashMap,
    net::SocketAddr,
    sync::{Arc, Mutex},
};

use http::{HeaderMap, HeaderName, HeaderValue, Request};
use hyper::{body::Incoming, server::conn::http1, service::service_fn};
use hyper_util::rt::TokioIo;
use rmcp::{
    ServiceExt,
    model::CallToolRequestParams,
    transport::{
        StreamableHttpClientTransport, streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use serde_json::json;
use tokio::net::TcpListener;
use toolmodel::{CallToolResult, Tool, Toolbox};
use toolmodel_rmcp::{
    ToolboxServer,
    federation::{Federation, FederationConfig, HttpTransport, UpstreamConfig},
    server::McpHttpService,
};
use tower_service::Service as _;

/// An upstream with an `echo` tool on a free loopback port, recording the headers of every
/// request into `seen`. Its address.
async fn recording_upstream(seen: Arc<Mutex<Vec<HeaderMap>>>) -> SocketAddr {
    let tool =
        Tool::from_mcp_json(&json!({"name": "echo", "inputSchema": {"type": "object"}})).unwrap();
    let toolbox = Toolbox::builder()
        .with_tool(tool, |_, _| async { Ok(CallToolResult::text("echoed")) })
        .build()
        .unwrap();
    let mcp: McpHttpService = ToolboxServer::new(toolbox).http_service();
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let (stream, _) = listener.accept().await.unwrap();
            let (mcp, seen) = (mcp.clone(), Arc::clone(&seen));
            tokio::spawn(async move {
                let recorder = service_fn(move |request: Request<Incoming>| {
                    seen.lock().unwrap().push(request.headers().clone());
                    let mut mcp = mcp.clone();
                    async move { mcp.call(request).await }
                });
                let _ = http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), recorder)
                    .await;
            });
        }
    });
    addr
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_upstream_sees_only_the_configured_headers_never_the_client_s() {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let upstream = recording_upstream(Arc::clone(&seen)).await;
    let config = FederationConfig::builder()
        .with_upstream(UpstreamConfig::http(
            "remote",
            HttpTransport::new(format!("http://{upstream}/mcp"))
                .with_header("Authorization", "Bearer configured-token")
                .with_header("X-Api-Key", "configured-key"),
        ))
        .build()
        .unwrap();
    let federation = Federation::start(config).await.unwrap();
    let gateway = ToolboxServer::gateway(&federation);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    tokio::spawn(
        gateway
            .serve_http(listener)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .into_future(),
    );

    let client_headers: HashMap<HeaderName, HeaderValue> = [(
        HeaderName::from_static("x-client-secret"),
        HeaderValue::from_static("client-secret"),
    )]
    .into();
    let transport = StreamableHttpClientTransport::from_config(
        StreamableHttpClientTransportConfig::with_uri(format!("http://{addr}/mcp"))
            .auth_header("client-token")
            .custom_headers(client_headers),
    );
    let client = ().serve(transport).await.unwrap();
    let result = client
        .call_tool(CallToolRequestParams::new("echo"))
        .await
        .unwrap();
    assert_eq!(
        serde_json::to_value(&result).unwrap()["content"][0]["text"],
        "echoed"
    );
    client.cancel().await.unwrap();

    let seen = seen.lock().unwrap().clone();
    assert!(!seen.is_empty(), "the upstream got no request");
    for headers in &seen {
        assert_eq!(
            headers.get("authorization").unwrap(),
            "Bearer configured-token"
        );
        assert_eq!(headers.get("x-api-key").unwrap(), "configured-key");
        assert!(headers.get("x-client-secret").is_none(), "{headers:?}");
        for value in headers.values() {
            let value = value.to_str().unwrap_or_default();
            assert!(
                !value.contains("client-token") && !value.contains("client-secret"),
                "a client credential reached the upstream: {headers:?}"
            );
        }
    }
    println!(
        "gateway headers: the upstream got {} requests, each with the configured Authorization and X-Api-Key, none with the client's",
        seen.len()
    );
    federation.shutdown().await;
    let _ = stop.send(());
}
