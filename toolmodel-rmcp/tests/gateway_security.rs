//! What an upstream cannot do to a gateway's clients, and what a gateway never tells them:
//! the secrets of an upstream's configuration stay out of every error a client or a log
//! receives; an upstream's tool names cannot pass for another server's, nor stop the others'
//! tools from being served; an upstream's request for input reaches only the caller of the
//! call it belongs to. The upstreams are `ToolboxServer`s over Streamable HTTP on loopback and
//! scripts over stdio, no installed server needed.

use std::{net::SocketAddr, time::Duration};

use rmcp::{
    ClientHandler,
    model::{CallToolRequestParams, ClientCapabilities, ClientConfig, Implementation},
    service::{RoleClient, RunningService},
};
use serde_json::json;
use tokio::{
    io::{AsyncReadExt as _, AsyncWriteExt as _},
    net::TcpListener,
};
use toolmodel::{CallContext, CallToolResult, Tool, Toolbox};
use toolmodel_rmcp::{
    ToolboxServer,
    federation::{Federation, FederationConfig},
};

#[path = "support/pipe.rs"]
mod pipe;

/// A client that declares nothing.
struct Client;

impl ClientHandler for Client {
    fn get_info(&self) -> ClientConfig {
        ClientConfig::new(
            ClientCapabilities::default(),
            Implementation::new("gateway-security-test", "0"),
        )
    }
}

/// A toolbox of tools that answer `"<name> answered"`, one per name.
fn tools(names: &[&str]) -> Toolbox {
    let mut builder = Toolbox::builder();
    for name in names {
        let tool = Tool::from_mcp_json(&json!({"name": name, "inputSchema": {"type": "object"}}))
            .expect("a tool");
        let answer = format!("{name} answered");
        builder = builder.with_tool(tool, move |_, _| {
            let answer = answer.clone();
            async move { Ok(CallToolResult::text(answer)) }
        });
    }
    builder.build().expect("a toolbox")
}

/// Serves `toolbox` over Streamable HTTP on `listener` until the returned sender is used or
/// dropped; the task ends once every connection is closed.
fn serve_until_stopped(
    toolbox: Toolbox,
    listener: TcpListener,
) -> (
    tokio::sync::oneshot::Sender<()>,
    tokio::task::JoinHandle<()>,
) {
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(async move {
        let _ = ToolboxServer::new(toolbox)
            .serve_http_until(listener, async move {
                let _ = stopped.await;
            })
            .await;
    });
    (stop, served)
}

/// A gateway over `federation`, with a client connected (MCP 2025-11-25).
async fn gateway(federation: &Federation) -> RunningService<RoleClient, Client> {
    let server = ToolboxServer::new(federation.toolbox()).with_handler(federation.passthrough());
    federation.serve(&server);
    pipe::connect(server, Client).await
}

// ---------------------------------------------------------------------------------------------
// Secrets in an upstream's configuration

/// The secrets of [`secret_config`], each of which no client may see.
const SECRETS: [&str; 5] = [
    "sk-live-query-4f1c9a7e",
    "sk-literal-query-b2d8e6",
    "bearer-token-7a3e9c1d",
    "x-api-key-5d2b8f0a",
    "userinfo-pw-9e4c1b7d",
];

/// An HTTP upstream at `addr` whose URL holds secrets in its userinfo and query (one through
/// `${UPSTREAM_KEY}`, one written out) and whose headers hold two more (one through
/// `${BEARER}`).
fn secret_config(addr: SocketAddr) -> FederationConfig {
    let url = format!(
        "http://gateway:${{PASSWORD}}@{addr}/mcp?api_key=${{UPSTREAM_KEY}}&other={}",
        SECRETS[1]
    );
    FederationConfig::from_json_with(
        &json!({"mcpServers": {"docs": {
            "url": url,
            "headers": {"Authorization": "Bearer ${BEARER}", "X-Api-Key": SECRETS[3]},
            "startupTimeout": 3000,
            "timeout": 3000,
        }}}),
        &|name| match name {
            "UPSTREAM_KEY" => Some(SECRETS[0].to_owned()),
            "BEARER" => Some(SECRETS[2].to_owned()),
            "PASSWORD" => Some(SECRETS[4].to_owned()),
            _ => None,
        },
    )
    .expect("the configuration reads")
}

/// Fails naming the secret when `text` (what `what` says) holds one of [`SECRETS`].
fn assert_no_secret(what: &str, text: &str) {
    for secret in SECRETS {
        assert!(
            !text.contains(secret),
            "{what} reveals the configured secret {secret:?}: {text}"
        );
    }
}

/// Answers every HTTP request on `listener` with `500` and a body that repeats the request's
/// head (its URL and headers: the secrets), as a careless server's error page might.
fn answer_500(listener: TcpListener) -> tokio::task::JoinHandle<()> {
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut head = Vec::new();
                let mut buffer = [0u8; 4096];
                while !head.windows(4).any(|w| w == b"\r\n\r\n") {
                    match socket.read(&mut buffer).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => head.extend_from_slice(&buffer[..n]),
                    }
                }
                let body = String::from_utf8_lossy(&head).into_owned();
                let response = format!(
                    "HTTP/1.1 500 Internal Server Error\r\ncontent-type: text/plain\r\ncontent-length: {}\r\nconnection: close\r\n\r\n{body}",
                    body.len()
                );
                let _ = socket.write_all(response.as_bytes()).await;
                let _ = socket.shutdown().await;
            });
        }
    })
}

/// Everything a client and the operator can read about `federation` after a failure: its
/// servers' status and its last error.
async fn federation_texts(federation: &Federation) -> String {
    format!(
        "{:?} {:?}",
        federation.status().await,
        federation.last_error()
    )
}

/// A free loopback address, closed.
async fn closed_address() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    listener.local_addr().expect("an address")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_configured_secret_reaches_a_client_when_the_upstream_is_down_or_answers_500() {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let addr = listener.local_addr().expect("an address");
    let (stop, served) = serve_until_stopped(tools(&["echo"]), listener);
    let federation = Federation::start(secret_config(addr))
        .await
        .expect("the federation starts");
    let service = gateway(&federation).await;
    let call =
        || service.call_tool(CallToolRequestParams::new("echo").with_arguments(Default::default()));
    let up = call().await.expect("tools/call");
    assert_eq!(
        serde_json::to_value(&up.content).expect("content")[0]["text"],
        "echo answered"
    );

    // The upstream goes away: its port is closed.
    stop.send(()).expect("the upstream runs");
    served.await.expect("the upstream stops");
    let down = call().await.expect("tools/call");
    let text = serde_json::to_string(&down).expect("the result serializes");
    assert_eq!(down.is_error, Some(true), "{text}");
    assert_no_secret("the result of a call to a closed port", &text);
    assert!(text.contains("docs"), "the result names the server: {text}");
    assert!(
        text.contains(&format!("http://{addr}/mcp?***")),
        "the result names the URL without its secrets: {text}"
    );
    assert!(
        text.contains("Connection refused"),
        "the result names the cause: {text}"
    );
    assert_no_secret(
        "the status after the call",
        &federation_texts(&federation).await,
    );
    // The same through the toolbox, and once the session is down.
    let direct = federation
        .toolbox()
        .call("echo", None, &CallContext::new())
        .await
        .expect("a result");
    assert_no_secret("the toolbox's result", &direct.text_content());

    // A server that answers 500 (and repeats the request in its body) on the same port.
    let listener = loop {
        match TcpListener::bind(addr).await {
            Ok(listener) => break listener,
            Err(_) => tokio::time::sleep(Duration::from_millis(50)).await,
        }
    };
    let failing = answer_500(listener);
    // After the backoff delay, the next call opens a new session: its handshake gets 500.
    tokio::time::sleep(Duration::from_millis(600)).await;
    for _ in 0..2 {
        let answered = call().await.expect("tools/call");
        let text = serde_json::to_string(&answered).expect("the result serializes");
        assert_eq!(answered.is_error, Some(true), "{text}");
        assert_no_secret("the result of a call to a server answering 500", &text);
        assert!(text.contains("500"), "the result names the status: {text}");
        tokio::time::sleep(Duration::from_millis(600)).await;
    }
    assert_no_secret("the status after 500", &federation_texts(&federation).await);
    federation.shutdown().await;
    failing.abort();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_configured_secret_is_in_the_status_of_a_server_that_never_answered() {
    let closed = closed_address().await;
    let federation = Federation::start(secret_config(closed))
        .await
        .expect("the federation starts");
    let status = federation_texts(&federation).await;
    assert_no_secret("the status of a closed port", &status);
    assert!(status.contains(&format!("http://{closed}/mcp")), "{status}");
    federation.shutdown().await;

    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let addr = listener.local_addr().expect("an address");
    let failing = answer_500(listener);
    let federation = Federation::start(secret_config(addr))
        .await
        .expect("the federation starts");
    let status = federation_texts(&federation).await;
    assert_no_secret("the status of a server answering 500", &status);
    assert!(
        status.contains("500"),
        "the status names the HTTP status: {status}"
    );
    federation.shutdown().await;
    failing.abort();
}
