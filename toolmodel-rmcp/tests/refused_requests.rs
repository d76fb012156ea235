//! A request the server refuses spends nothing of the server: a foreign `Origin` or `Host`
//! is answered 403 before the body is read, before a session is admitted (so it closes no
//! legitimate session when the table is full) and without keeping the client's connection
//! (so refused clients never lock a good one out of `max_connections`).

use std::{net::SocketAddr, time::Duration};

use tokio::{io::AsyncWriteExt as _, net::TcpStream};
use toolmodel_rmcp::server::HttpLimits;

use crate::support::raw_http::{
    Reply, assert_sessions_open, initialize_body, post_head, raw, read_reply, server, session,
    start,
};

/// Two ways to be refused: a browser page of another origin, and a request addressed to a
/// host name the server does not answer to (DNS rebinding).
fn foreign_heads(addr: SocketAddr) -> [String; 2] {
    [
        post_head(addr, None, "Origin: http://evil.example"),
        post_head(addr, None, "").replace(&format!("Host: {addr}"), "Host: evil.example"),
    ]
}

/// Opens a connection, sends `head` announcing a 100-byte body and only the start of it,
/// and reads the response, which must come within `within` and close the connection.
async fn refused_without_the_body(addr: SocketAddr, head: &str, within: Duration) -> Reply {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!("{head}\r\nContent-Length: 100\r\n\r\n{{\"jsonrpc\"");
    stream.write_all(request.as_bytes()).await.unwrap();
    tokio::time::timeout(within, read_reply(&mut stream))
        .await
        .unwrap_or_else(|_| panic!("no response and no close within {within:?}: {head}"))
}

/// With `max_sessions` held by idle clients that finished their handshake, `initialize`
/// requests with a foreign `Origin` or `Host` are refused 403 and close none of them: every
/// client is still served afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_initializes_close_no_session_when_the_table_is_full() {
    let addr = start(server().with_limits(HttpLimits::default().with_max_sessions(3))).await;
    let clients = [
        session(addr).await,
        session(addr).await,
        session(addr).await,
    ];
    for head in foreign_heads(addr) {
        for _ in 0..5 {
            let reply = raw(addr, &head, &initialize_body()).await;
            assert_eq!(reply.status, 403, "{head}: {reply:?}");
        }
    }
    assert_sessions_open(addr, &clients).await;
}

/// A refused request whose body never arrives is answered 403 at once (not 408 after
/// `body_read_timeout`), and its connection is closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_request_is_answered_before_its_body_arrives() {
    let limits = HttpLimits::default().with_body_read_timeout(Duration::from_secs(5));
    let addr = start(server().with_limits(limits)).await;
    for head in foreign_heads(addr) {
        let reply = refused_without_the_body(addr, &head, Duration::from_secs(2)).await;
        assert_eq!(reply.status, 403, "{head}: {reply:?}");
        assert_eq!(reply.header("connection"), Some("close"), "{reply:?}");
    }
}

/// Refused clients that keep their sockets open and never send their bodies hold no
/// connection slot: with `max_connections` 2 taken by two of them, a good client is served.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn refused_clients_hold_no_connection_slot() {
    let addr = start(server().with_limits(HttpLimits::default().with_max_connections(2))).await;
    let mut refused = Vec::new();
    for head in foreign_heads(addr) {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let request = format!("{head}\r\nContent-Length: 100\r\n\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        refused.push(stream);
    }
    tokio::time::sleep(Duration::from_millis(200)).await;
    let reply = raw(addr, &post_head(addr, None, ""), &initialize_body()).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    for mut stream in refused {
        let reply = tokio::time::timeout(Duration::from_secs(1), read_reply(&mut stream))
            .await
            .expect("the refusal came and closed the connection");
        assert_eq!(reply.status, 403, "{reply:?}");
    }
}
