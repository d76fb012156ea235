//! `ToolboxServer::serve_http` on a loopback port, driven by raw HTTP/1.1: every finding of
//! issue 21 about the Streamable HTTP transport, each a regression test (the 44 ms stall,
//! `Origin`, the limits, and the status codes and JSON-RPC errors `rmcp` 3.11 gets wrong).

use std::{net::SocketAddr, time::Duration};

use serde_json::json;
use tokio::{
    io::{AsyncReadExt as _, AsyncWriteExt as _},
    net::{TcpListener, TcpStream},
};
use toolmodel_rmcp::server::HttpLimits;

use crate::support::raw_http::{
    call_body, initialize_body, post_head, raw, read_reply, server, session, start,
};

/// Finding 1: each response left in two writes without `TCP_NODELAY`, so every call of a
/// keep-alive client waited ~44 ms for the delayed ACK. 40 calls on one connection now take
/// far less than 40 x 40 ms.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn keep_alive_calls_do_not_wait_for_the_delayed_ack() {
    let addr = start(server()).await;
    let id = session(addr).await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream.set_nodelay(true).unwrap();
    let mut latencies = Vec::new();
    for n in 0..40 {
        let body = call_body(&json!({"a": n, "b": 1}));
        let request = format!(
            "{}\r\nContent-Length: {}\r\n\r\n{body}",
            post_head(addr, Some(&id), ""),
            body.len()
        );
        let start = std::time::Instant::now();
        stream.write_all(request.as_bytes()).await.unwrap();
        // The SSE response ends with a zero-size chunk.
        let mut seen = Vec::new();
        let mut buf = [0u8; 4096];
        while !seen.ends_with(b"0\r\n\r\n") {
            let read = stream.read(&mut buf).await.unwrap();
            assert!(read > 0, "the connection closed");
            seen.extend_from_slice(&buf[..read]);
        }
        latencies.push(start.elapsed());
        let seen = String::from_utf8_lossy(&seen);
        assert!(seen.contains(&format!("\"text\":\"{}\"", n + 1)), "{seen}");
    }
    latencies.sort();
    let median = latencies[latencies.len() / 2];
    assert!(
        median < Duration::from_millis(25),
        "median call {median:?}: the delayed-ACK stall is back"
    );
}

/// Finding 2: `Origin: http://evil.example` and `Origin: null` got 200.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_origins_are_forbidden_and_loopback_ones_pass() {
    let addr = start(server().with_allowed_origins(["https://app.example.com"])).await;
    for (origin, status) in [
        ("Origin: http://evil.example", 403),
        ("Origin: null", 403),
        ("Origin: https://app.example.com.evil.example", 403),
        ("Origin: http://localhost:5173", 200),
        ("Origin: http://127.0.0.1:3000", 200),
        ("Origin: https://app.example.com", 200),
        ("X-No-Origin: 1", 200),
    ] {
        let reply = raw(addr, &post_head(addr, None, origin), &initialize_body()).await;
        assert_eq!(reply.status, status, "{origin}: {reply:?}");
    }
    // tools/call too, not only initialize.
    let id = session(addr).await;
    let reply = raw(
        addr,
        &post_head(addr, Some(&id), "Origin: http://evil.example"),
        &call_body(&json!({"a": 1, "b": 2})),
    )
    .await;
    assert_eq!(reply.status, 403, "{reply:?}");
}

/// A public server's own origin is allowed with its host names.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_servers_own_origin_passes() {
    let addr = start(server().with_allowed_hosts(["mcp.example.com", "127.0.0.1"])).await;
    let head = "POST /mcp HTTP/1.1\r\nHost: mcp.example.com\r\nOrigin: https://mcp.example.com\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream";
    let reply = raw(addr, head, &initialize_body()).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let reply = raw(
        addr,
        &head.replace("Host: mcp.example.com", "Host: other.example"),
        &initialize_body(),
    )
    .await;
    assert_eq!(reply.status, 403, "{reply:?}");
}

/// Finding 5, HTTP: the codes `rmcp` 3.11 got wrong.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_bodies_get_400_with_the_jsonrpc_error() {
    let addr = start(server()).await;
    let reply = raw(addr, &post_head(addr, None, ""), "{\"jsonrpc\": \"2.0\", ").await;
    assert_eq!(reply.status, 400, "{reply:?}");
    assert_eq!(reply.header("content-type"), Some("application/json"));
    assert_eq!(reply.json()["error"]["code"], -32700);
    let reply = raw(addr, &post_head(addr, None, ""), r#"{"id": 3, "hello": 1}"#).await;
    assert_eq!(reply.status, 400, "{reply:?}");
    assert_eq!(reply.json()["error"]["code"], -32600);
    assert_eq!(reply.json()["id"], 3);
    // In a session too.
    let id = session(addr).await;
    let reply = raw(addr, &post_head(addr, Some(&id), ""), "[1, 2").await;
    assert_eq!(reply.json()["error"]["code"], -32700, "{reply:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_tools_call_params_are_invalid_params() {
    let addr = start(server()).await;
    let id = session(addr).await;
    for params in [
        json!({"name": "add", "arguments": [1, 2]}),
        json!({"name": "add", "arguments": "a=1"}),
        json!({"name": "add", "arguments": 3}),
        json!({"arguments": {"a": 1, "b": 2}}),
    ] {
        let body = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call", "params": params});
        let reply = raw(addr, &post_head(addr, Some(&id), ""), &body.to_string()).await;
        let error = &reply.json()["error"];
        assert_eq!(error["code"], -32602, "{params}: {reply:?}");
        assert!(
            error["message"].as_str().unwrap().contains("/params/"),
            "{error}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn deleting_an_unknown_session_is_404() {
    let addr = start(server()).await;
    let head = |id: &str| {
        format!(
            "DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\nMcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25"
        )
    };
    assert_eq!(raw(addr, &head("no-such-session"), "").await.status, 404);
    let id = session(addr).await;
    let reply = raw(addr, &head(&id), "").await;
    assert!((200..300).contains(&reply.status), "{reply:?}");
    assert_eq!(raw(addr, &head(&id), "").await.status, 404);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_host_headers_are_400() {
    let addr = start(server()).await;
    let head = post_head(addr, None, "Host: 127.0.0.1");
    let reply = raw(addr, &head, &initialize_body()).await;
    assert_eq!(reply.status, 400, "{reply:?}");
    assert!(reply.body.contains("Host"), "{reply:?}");
}

/// Finding 3: sessions were unbounded. At the limit, the least recently used idle session
/// makes room (its client gets 404 and initializes again).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn sessions_beyond_the_limit_close_the_least_recently_used() {
    let addr = start(server().with_limits(HttpLimits::default().with_max_sessions(2))).await;
    let first = session(addr).await;
    let second = session(addr).await;
    let call = call_body(&json!({"a": 1, "b": 2}));
    // `second` becomes the most recently used; `first` the one to close.
    tokio::time::sleep(Duration::from_millis(5)).await;
    assert_eq!(
        raw(addr, &post_head(addr, Some(&second), ""), &call)
            .await
            .status,
        200
    );
    let third = session(addr).await;
    assert_eq!(
        raw(addr, &post_head(addr, Some(&first), ""), &call)
            .await
            .status,
        404
    );
    for id in [&second, &third] {
        let reply = raw(addr, &post_head(addr, Some(id), ""), &call).await;
        assert_eq!(
            reply.json()["result"]["content"][0]["text"],
            "3",
            "{reply:?}"
        );
    }
}

/// Issue 21, item 9 (`serve/soak.sh` ended `lockouts=65`): 10,000 `initialize` requests never
/// followed up pushed every real client's session out under least-recently-used, so a fresh
/// client's call or `DELETE` got 404. Sessions whose client never came back make room first.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_initialize_flood_closes_its_own_sessions_first() {
    let addr = start(server().with_limits(HttpLimits::default().with_max_sessions(3))).await;
    let client = session(addr).await;
    let call = call_body(&json!({"a": 1, "b": 2}));
    let mut abandoned = Vec::new();
    for _ in 0..10 {
        let reply = raw(addr, &post_head(addr, None, ""), &initialize_body()).await;
        assert_eq!(reply.status, 200, "{reply:?}");
        abandoned.push(reply.header("mcp-session-id").expect("an id").to_owned());
    }
    // The client that finished its handshake (the least recently used session of all) is
    // still served, and can end its session.
    let reply = raw(addr, &post_head(addr, Some(&client), ""), &call).await;
    assert_eq!(
        reply.json()["result"]["content"][0]["text"],
        "3",
        "{reply:?}"
    );
    // The flood replaced its own sessions, oldest first: the last two are held.
    let mut held = Vec::new();
    for id in &abandoned {
        let reply = raw(addr, &post_head(addr, Some(id), ""), &call).await;
        held.push(reply.status == 200);
    }
    let mut expected = vec![false; 8];
    expected.extend([true, true]);
    assert_eq!(held, expected);
    let delete = format!(
        "DELETE /mcp HTTP/1.1\r\nHost: {addr}\r\nMcp-Session-Id: {client}\r\nMCP-Protocol-Version: 2025-11-25"
    );
    let reply = raw(addr, &delete, "").await;
    assert!((200..300).contains(&reply.status), "{reply:?}");
}

/// A session's open stream counts as a request in flight: with a limit of 1, a call beside a
/// standalone SSE stream is 429 with `Retry-After`, naming the limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_beyond_the_sessions_limit_are_429() {
    let addr =
        start(server().with_limits(HttpLimits::default().with_max_calls_per_session(1))).await;
    let id = session(addr).await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let get = format!(
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25\r\n\r\n"
    );
    stream.write_all(get.as_bytes()).await.unwrap();
    let mut buf = [0u8; 1024];
    let read = stream.read(&mut buf).await.unwrap();
    assert!(String::from_utf8_lossy(&buf[..read]).starts_with("HTTP/1.1 200"));
    let reply = raw(
        addr,
        &post_head(addr, Some(&id), ""),
        &call_body(&json!({"a": 1, "b": 2})),
    )
    .await;
    assert_eq!(reply.status, 429, "{reply:?}");
    assert_eq!(reply.header("retry-after"), Some("1"));
    assert!(reply.body.contains("max_calls_per_session"), "{reply:?}");
    drop(stream);
    tokio::time::sleep(Duration::from_millis(100)).await;
    let reply = raw(
        addr,
        &post_head(addr, Some(&id), ""),
        &call_body(&json!({"a": 1, "b": 2})),
    )
    .await;
    assert_eq!(reply.status, 200, "{reply:?}");
}

/// Finding 3: no body read timeout. A body that stalls gets 408, naming the limit.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stalled_body_gets_408() {
    let limits = HttpLimits::default().with_body_read_timeout(Duration::from_millis(300));
    let addr = start(server().with_limits(limits)).await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!(
        "{}\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\"",
        post_head(addr, None, "")
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let reply = read_reply(&mut stream).await;
    assert_eq!(reply.status, 408, "{reply:?}");
    assert!(reply.body.contains("body_read_timeout"), "{reply:?}");
}

/// Finding 3: idle sockets were held for 330 s. A connection that sends half a header is
/// closed after the header read timeout.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_header_is_cut_off() {
    let limits = HttpLimits::default().with_header_read_timeout(Duration::from_millis(300));
    let addr = start(server().with_limits(limits)).await;
    let mut stream = TcpStream::connect(addr).await.unwrap();
    stream
        .write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0")
        .await
        .unwrap();
    let mut rest = Vec::new();
    let closed = tokio::time::timeout(Duration::from_secs(5), stream.read_to_end(&mut rest)).await;
    assert!(closed.is_ok(), "the connection is still open after 5 s");
}

/// Finding 3: 1,100 idle connections locked every new client out. At the connection limit
/// the longest idle connection makes room, so a fresh client is still served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn idle_connections_never_lock_a_fresh_client_out() {
    let addr = start(server().with_limits(HttpLimits::default().with_max_connections(4))).await;
    let mut idle = Vec::new();
    for _ in 0..8 {
        idle.push(TcpStream::connect(addr).await.unwrap());
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    let reply = raw(addr, &post_head(addr, None, ""), &initialize_body()).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    // The first idle ones were closed to make room.
    let mut closed = 0;
    for stream in &mut idle {
        let mut buf = [0u8; 16];
        if let Ok(Ok(0)) =
            tokio::time::timeout(Duration::from_millis(200), stream.read(&mut buf)).await
        {
            closed += 1;
        }
    }
    assert!(
        closed >= 4,
        "only {closed} of 8 idle connections were closed"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_over_the_limit_is_413() {
    let addr = start(server().with_limits(HttpLimits::default().with_max_body_bytes(64))).await;
    let reply = raw(addr, &post_head(addr, None, ""), &initialize_body()).await;
    assert_eq!(reply.status, 413, "{reply:?}");
    assert!(reply.body.contains("max_body_bytes"), "{reply:?}");
}

/// The status line of a raw `initialize` POST to `/mcp` with the `Host` header `host`.
async fn status_for_host(addr: SocketAddr, host: &str) -> String {
    let body = initialize_body();
    let head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).await.expect("connect");
    stream
        .write_all(format!("{head}{body}").as_bytes())
        .await
        .expect("write");
    let mut first = vec![0; 64];
    let read = stream.read(&mut first).await.expect("read");
    String::from_utf8_lossy(&first[..read])
        .lines()
        .next()
        .unwrap_or_default()
        .to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn allowed_hosts_and_graceful_shutdown() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let server = tokio::spawn(
        server()
            .with_allowed_hosts(["tools.example.com", "tools.example.com:8080"])
            .serve_http(listener)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            })
            .into_future(),
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

/// Issue 40: a user's own `tower` layers around the MCP service (`ServeHttp::with_layer`)
/// see every request, refusals included, and their effect is on every response: tower-http's
/// `TraceLayer` records each request it sees, its `SetResponseHeaderLayer` marks each answer.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_users_tower_layers_see_every_request_and_mark_every_response() {
    use std::sync::{Arc, Mutex};

    use http::{HeaderName, HeaderValue};
    use tower_http::{set_header::SetResponseHeaderLayer, trace::TraceLayer};

    let seen = Arc::new(Mutex::new(Vec::<String>::new()));
    let record = Arc::clone(&seen);
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    tokio::spawn(
        server()
            .serve_http(listener)
            .with_layer(TraceLayer::new_for_http().on_request(
                move |request: &http::Request<hyper::body::Incoming>, _: &tracing::Span| {
                    let line = format!("{} {}", request.method(), request.uri().path());
                    record.lock().unwrap().push(line);
                },
            ))
            .with_layer(SetResponseHeaderLayer::overriding(
                HeaderName::from_static("x-served-by"),
                HeaderValue::from_static("my-layer"),
            ))
            .into_future(),
    );

    // A session (its initialize and notifications/initialized go through the layers too).
    let id = session(addr).await;
    let mut replies = Vec::new();
    let call = raw(
        addr,
        &post_head(addr, Some(&id), ""),
        &call_body(&json!({"a": 2, "b": 3})),
    )
    .await;
    assert_eq!(call.json()["result"]["content"][0]["text"], "5", "{call:?}");
    replies.push(call);
    // Refusals: a foreign Host (403), another path (404), a GET without a session.
    let foreign = post_head(addr, None, "").replace(&format!("Host: {addr}"), "Host: evil.example");
    replies.push(raw(addr, &foreign, &initialize_body()).await);
    replies.push(raw(addr, &format!("GET /other HTTP/1.1\r\nHost: {addr}"), "").await);
    replies.push(
        raw(
            addr,
            &format!("GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream"),
            "",
        )
        .await,
    );

    let statuses: Vec<u16> = replies.iter().map(|reply| reply.status).collect();
    assert_eq!(&statuses[..3], [200, 403, 404], "{replies:?}");
    assert!(statuses[3] >= 400, "{replies:?}");
    for reply in &replies {
        assert_eq!(reply.header("x-served-by"), Some("my-layer"), "{reply:?}");
    }
    assert_eq!(
        *seen.lock().unwrap(),
        [
            "POST /mcp",
            "POST /mcp",
            "POST /mcp",
            "POST /mcp",
            "GET /other",
            "GET /mcp"
        ]
    );
}
