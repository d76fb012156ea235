//! A keep-alive HTTP/1.1 MCP client (hyper) in a session of the 2025-11-25 protocol: the
//! client `benches/serve.rs`, `benches/telemetry.rs` and `benches/sessions.rs` drive a
//! Streamable HTTP server with (each includes this file with `#[path]`).

use std::net::SocketAddr;

use bytes::Bytes;
use http_body_util::{BodyExt as _, Full};
use hyper::Request;
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};

/// One keep-alive HTTP client.
pub struct HttpClient {
    send: hyper::client::conn::http1::SendRequest<Full<Bytes>>,
    addr: SocketAddr,
    session: Option<String>,
}

impl HttpClient {
    /// Connects to `addr` (`TCP_NODELAY`) and opens a session (`initialize` as `name`, then
    /// `notifications/initialized`).
    pub async fn connect(addr: SocketAddr, name: &str) -> Self {
        let mut client = Self::join(addr, None).await;
        let init = client
            .post(
                json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": name, "version": "0"}}}),
            )
            .await;
        assert!(init.contains("\"result\""), "initialize failed: {init}");
        client
            .post(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}))
            .await;
        client
    }

    /// Connects to `addr` (`TCP_NODELAY`), in `session` (one another client opened, maybe on
    /// another server) when given.
    pub async fn join(addr: SocketAddr, session: Option<String>) -> Self {
        let stream = tokio::net::TcpStream::connect(addr)
            .await
            .expect("connects");
        stream.set_nodelay(true).expect("TCP_NODELAY");
        let (send, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .expect("handshake");
        tokio::spawn(connection);
        Self {
            send,
            addr,
            session,
        }
    }

    /// The session's id, once there is one.
    #[allow(dead_code, reason = "only benches/sessions.rs reads it")]
    pub fn session(&self) -> Option<&str> {
        self.session.as_deref()
    }

    /// Posts `body` to `/mcp` (with the session's headers once there is one): the response
    /// body.
    pub async fn post(&mut self, body: Value) -> String {
        let mut request = Request::post("/mcp")
            .header("host", self.addr.to_string())
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream");
        if let Some(session) = &self.session {
            request = request
                .header("mcp-session-id", session)
                .header("mcp-protocol-version", "2025-11-25");
        }
        let request = request
            .body(Full::new(Bytes::from(body.to_string())))
            .expect("a request");
        self.send.ready().await.expect("connection ready");
        let response = self.send.send_request(request).await.expect("a response");
        if let Some(session) = response.headers().get("mcp-session-id") {
            self.session = Some(session.to_str().expect("ASCII").to_owned());
        }
        let bytes = response
            .into_body()
            .collect()
            .await
            .expect("a body")
            .to_bytes();
        String::from_utf8_lossy(&bytes).into_owned()
    }
}
