//! Streamable HTTP on a listener: the allowed `Host` names of a server reached by a name other
//! than loopback, and graceful shutdown (`serve_http_with`).

use std::time::Duration;

use tokio::{
    io::{AsyncReadExt as _, AsyncWriteExt as _},
    net::{TcpListener, TcpStream},
    sync::oneshot,
};
use toolmodel::{CallToolResult, Tool, ToolSchema, Toolbox};
use toolmodel_rmcp::{
    ToolboxServer, rmcp::transport::streamable_http_server::StreamableHttpServerConfig,
};

/// The status line of a raw `initialize` POST to `/mcp` with the `Host` header `host`.
async fn status_for_host(addr: std::net::SocketAddr, host: &str) -> String {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}"#;
    let request = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream.write_all(request.as_bytes()).await.expect("write");
    let mut head = vec![0; 64];
    let read = stream.read(&mut head).await.expect("read");
    String::from_utf8_lossy(&head[..read])
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowed_hosts_and_graceful_shutdown() {
    let toolbox = Toolbox::builder()
        .with_tool(
            Tool::new("ping", ToolSchema::empty_object()),
            |_, _| async { Ok(CallToolResult::text("pong")) },
        )
        .build()
        .expect("toolbox");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(["tools.example.com", "tools.example.com:8080"]);
    let (stop, stopped) = oneshot::channel::<()>();
    let server =
        tokio::spawn(
            ToolboxServer::new(toolbox).serve_http_with(listener, config, async move {
                let _ = stopped.await;
            }),
        );

    let listed = status_for_host(addr, "tools.example.com:8080").await;
    assert!(listed.starts_with("HTTP/1.1 200"), "{listed}");
    // Loopback is not in the list any more: the 403 a public server gives an unlisted name.
    let refused = status_for_host(addr, "127.0.0.1").await;
    assert!(refused.starts_with("HTTP/1.1 403"), "{refused}");

    stop.send(()).expect("the server waits for the signal");
    let ended = tokio::time::timeout(Duration::from_secs(10), server)
        .await
        .expect("the server stops within 10 s of the signal")
        .expect("no panic");
    assert!(ended.is_ok(), "{ended:?}");
    assert!(
        TcpStream::connect(addr).await.is_err(),
        "the listener is closed"
    );
}
