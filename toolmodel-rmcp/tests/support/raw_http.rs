//! What the HTTP tests share: a server on a loopback port and a raw HTTP/1.1 client for it
//! (requests written by hand, so that a test can send what no client library would).

use std::{net::SocketAddr, time::Duration};

use serde_json::{Value, json};
use tokio::{
    io::{AsyncReadExt as _, AsyncWriteExt as _},
    net::{TcpListener, TcpStream},
};
use toolmodel::Toolbox;
use toolmodel_rmcp::ToolboxServer;

use super::add::Add;

/// Serves `server` with `serve_http` on a free loopback port; its address.
pub async fn start(server: ToolboxServer) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(server.serve_http(listener).into_future());
    addr
}

/// A server of the `add` tool.
pub fn server() -> ToolboxServer {
    ToolboxServer::new(Toolbox::builder().with(Add::default()).build().unwrap())
}

/// A response: status, headers (lowercase names), body.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }

    /// The JSON-RPC message in the body: plain JSON, or the last `data:` of an SSE stream.
    pub fn json(&self) -> Value {
        let text = self
            .body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .rfind(|data| !data.is_empty())
            .unwrap_or(self.body.as_str());
        serde_json::from_str(text).unwrap_or_else(|err| panic!("{err}: {}", self.body))
    }
}

/// Sends `head` (the request line and headers, without the blank line) and `body` with
/// `Connection: close`, and reads the whole response.
pub async fn raw(addr: SocketAddr, head: &str, body: &str) -> Reply {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "{head}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    read_reply(&mut stream).await
}

/// Reads a whole response, until the server closes the connection (at most 10 s).
pub async fn read_reply(stream: &mut TcpStream) -> Reply {
    let mut bytes = Vec::new();
    tokio::time::timeout(Duration::from_secs(10), stream.read_to_end(&mut bytes))
        .await
        .expect("the server answers within 10 s")
        .unwrap();
    parse_reply(&String::from_utf8_lossy(&bytes))
}

/// A response read off the wire (its chunked body joined).
pub fn parse_reply(text: &str) -> Reply {
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((text, ""));
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|line| line.split(' ').nth(1))
        .and_then(|code| code.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {text:?}"));
    let headers: Vec<(String, String)> = lines
        .filter_map(|line| line.split_once(':'))
        .map(|(key, value)| (key.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    let chunked = headers
        .iter()
        .any(|(key, value)| key == "transfer-encoding" && value.contains("chunked"));
    let body = if chunked {
        dechunk(body)
    } else {
        body.to_owned()
    };
    Reply {
        status,
        headers,
        body,
    }
}

/// The data of a chunked body.
pub fn dechunk(mut body: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = body.split_once("\r\n") {
        let Ok(size) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if size == 0 || rest.len() < size {
            break;
        }
        out.push_str(&rest[..size]);
        body = rest[size..].trim_start_matches("\r\n");
    }
    out
}

/// The head of a `POST /mcp` (without the blank line), in `session` when given, with
/// `extra` header lines.
pub fn post_head(addr: SocketAddr, session: Option<&str>, extra: &str) -> String {
    let mut head = format!(
        "POST /mcp HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream"
    );
    if let Some(session) = session {
        head.push_str(&format!(
            "\r\nMcp-Session-Id: {session}\r\nMCP-Protocol-Version: 2025-11-25"
        ));
    }
    if !extra.is_empty() {
        head.push_str("\r\n");
        head.push_str(extra);
    }
    head
}

/// An `initialize` request (MCP 2025-11-25).
pub fn initialize_body() -> String {
    json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {},
        "clientInfo": {"name": "http-test", "version": "0"}}})
    .to_string()
}

/// Initializes a session; its id.
pub async fn session(addr: SocketAddr) -> String {
    let reply = raw(addr, &post_head(addr, None, ""), &initialize_body()).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let id = reply
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let reply = raw(addr, &post_head(addr, Some(&id), ""), &initialized).await;
    assert_eq!(reply.status, 202, "{reply:?}");
    id
}

/// Calls `add` in each of the sessions `ids`, which must all still be open.
pub async fn assert_sessions_open(addr: SocketAddr, ids: &[String]) {
    let call = call_body(&json!({"a": 1, "b": 2}));
    for id in ids {
        let reply = raw(addr, &post_head(addr, Some(id), ""), &call).await;
        assert_eq!(reply.status, 200, "session {id} was closed: {reply:?}");
        assert_eq!(reply.json()["result"]["content"][0]["text"], "3");
    }
}

/// A `tools/call` of `add` with `arguments`.
pub fn call_body(arguments: &Value) -> String {
    json!({"jsonrpc": "2.0", "id": 7, "method": "tools/call",
        "params": {"name": "add", "arguments": arguments}})
    .to_string()
}
