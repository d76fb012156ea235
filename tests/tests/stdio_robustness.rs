//! The stdio transport holds up against the lines a client gets wrong: the example server
//! (`examples/server.rs`) as a child process, driven line by line. A line that is not JSON
//! gets `-32700` (`rmcp` 3.11 ignored it, so a request with an id waited forever), a
//! notification before `initialize` is dropped (`rmcp` 3.11 exited), a `tools/call` whose
//! `arguments` is not an object gets `-32602` (`rmcp` 3.11: `-32601`), and an integer-valued
//! float reaches an integer field. Each is a regression test against the real binary.
//!
//! It runs the example programs this package builds (`CARGO_BIN_EXE_*`): `cargo test -p
//! toolmodel-tests --test integration stdio_robustness::`.

use std::time::Duration;

use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt as _, AsyncWriteExt as _, BufReader, Lines},
    process::{Child, ChildStdin, ChildStdout, Command},
};

struct Server {
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
}

impl Server {
    fn start() -> Self {
        let mut child = Command::new(env!("CARGO_BIN_EXE_example-server"))
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .expect("the example server starts");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = BufReader::new(child.stdout.take().expect("stdout")).lines();
        Self {
            child,
            stdin,
            stdout,
        }
    }

    async fn send(&mut self, line: &str) {
        self.stdin
            .write_all(format!("{line}\n").as_bytes())
            .await
            .expect("the server reads stdin");
        self.stdin.flush().await.expect("flush");
    }

    /// The next message on stdout, within 10 s.
    async fn next(&mut self) -> Value {
        let line = tokio::time::timeout(Duration::from_secs(10), self.stdout.next_line())
            .await
            .expect("an answer within 10 s")
            .expect("stdout is readable")
            .expect("the server is still running");
        serde_json::from_str(&line).expect("a JSON line")
    }

    async fn initialize(&mut self) {
        self.send(
            &json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
                "protocolVersion": "2025-11-25", "capabilities": {},
                "clientInfo": {"name": "stdio-slips", "version": "0"}}})
            .to_string(),
        )
        .await;
        let answer = self.next().await;
        assert_eq!(answer["id"], 1);
        assert!(answer["result"]["serverInfo"].is_object(), "{answer}");
        self.send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
            .await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_notification_as_the_first_line_does_not_stop_the_server() {
    let mut server = Server::start();
    server
        .send(r#"{"jsonrpc":"2.0","method":"notifications/initialized"}"#)
        .await;
    server.initialize().await;
    server
        .send(r#"{"jsonrpc":"2.0","id":2,"method":"tools/list"}"#)
        .await;
    let answer = server.next().await;
    assert_eq!(answer["id"], 2);
    assert!(answer["result"]["tools"].is_array(), "{answer}");
    assert!(server.child.try_wait().expect("status").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn malformed_json_gets_a_parse_error_before_and_after_initialize() {
    let mut server = Server::start();
    server.send(r#"{"jsonrpc":"2.0","id":1,"method":"#).await;
    let answer = server.next().await;
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    assert_eq!(answer["id"], Value::Null);
    server.initialize().await;
    server.send("not json at all").await;
    let answer = server.next().await;
    assert_eq!(answer["error"]["code"], -32700, "{answer}");
    // JSON, but no JSON-RPC message: -32600 with its id.
    server.send(r#"{"id": 5, "hello": "world"}"#).await;
    let answer = server.next().await;
    assert_eq!(answer["error"]["code"], -32600, "{answer}");
    assert_eq!(answer["id"], 5);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn arguments_that_are_not_an_object_are_invalid_params() {
    let mut server = Server::start();
    server.initialize().await;
    for (id, params) in [
        json!({"name": "weather.get_weather", "arguments": ["Paris"]}),
        json!({"name": "weather.get_weather", "arguments": "Paris"}),
        json!({"name": "weather.get_weather", "arguments": 3}),
        json!({"arguments": {"city": "Paris"}}),
    ]
    .into_iter()
    .enumerate()
    {
        let request =
            json!({"jsonrpc": "2.0", "id": 10 + id, "method": "tools/call", "params": params});
        server.send(&request.to_string()).await;
        let answer = server.next().await;
        assert_eq!(answer["id"], 10 + id);
        assert_eq!(answer["error"]["code"], -32602, "{params}: {answer}");
    }
}

/// Finding 6 over the wire: `"days": 3.0` passes the schema and now the typed parse.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_integer_valued_float_reaches_an_integer_field() {
    let mut server = Server::start();
    server.initialize().await;
    let request = json!({"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "weather.get_weather", "arguments": {"city": "Paris", "days": 3.0}}});
    server.send(&request.to_string()).await;
    let answer = server.next().await;
    assert_eq!(answer["id"], 3);
    let text = answer["result"]["content"][0]["text"]
        .as_str()
        .unwrap_or_default();
    assert!(text.contains("Paris in 3 days"), "{answer}");
}
