//! Handshake-era sessions (MCP 2025-11-25) served by any replica of a shared session store
//! (issue 43): replicas here are servers of one process sharing a
//! `MemorySessionStore::in_process_replicas()` (the Redis store's own behaviour is in
//! `session_store.rs`; the same replicas as processes behind nginx in `scale/run.sh`).

use std::{
    net::SocketAddr,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::Duration,
};

use serde_json::{Map, Value, json};
use tokio::{
    io::{AsyncReadExt as _, AsyncWriteExt as _},
    net::TcpStream,
    sync::mpsc,
};
use toolmodel::{
    CallContext, CallToolResult, Tool, ToolSchema, Toolbox,
    input::{ElicitRequest, InputRequest, InputRequests},
    peer::LoggingLevel,
};
use toolmodel_rmcp::{
    Error, ToolboxServer,
    server::HttpLimits,
    sessions::{MemorySessionStore, Relayed, SessionRecord, SessionStore, StoreFuture, Touched},
};

use crate::support::{
    add::Add,
    raw_http::{assert_sessions_open, call_body, initialize_body, post_head, raw, start},
};

/// A toolbox of `add` and `ask` (asks the client for a name by elicitation, then greets it).
fn toolbox() -> Toolbox {
    let Value::Object(schema) = json!({"type": "object"}) else {
        unreachable!("an object")
    };
    Toolbox::builder()
        .with(Add::default())
        .with_tool(
            Tool::new("ask", ToolSchema::new(schema)),
            |_: Map<String, Value>, cx: CallContext| async move {
                let request = InputRequest::Elicit(ElicitRequest::form(
                    "Your name?",
                    json!({"type": "object", "properties": {"name": {"type": "string"}}}),
                ));
                let answers = cx.input(InputRequests::new().with("name", request)).await?;
                let name = answers
                    .elicit("name")
                    .and_then(|answer| answer.field("name"))
                    .and_then(Value::as_str)
                    .unwrap_or("nobody")
                    .to_owned();
                Ok(CallToolResult::text(format!("hello {name}")))
            },
        )
        .with_tool(
            Tool::new("log", ToolSchema::empty_object()),
            |_: Map<String, Value>, cx: CallContext| async move {
                cx.log(LoggingLevel::Info, json!("quiet")).await?;
                cx.log(LoggingLevel::Error, json!("loud")).await?;
                Ok(CallToolResult::text("logged"))
            },
        )
        .build()
        .expect("toolbox")
}

/// A replica on `store`, served on a loopback port.
async fn replica(store: Arc<dyn SessionStore>) -> (ToolboxServer, SocketAddr) {
    let server = ToolboxServer::new(toolbox()).with_session_store(store);
    let addr = start(server.clone()).await;
    (server, addr)
}

/// Initializes a session on `addr` declaring elicitation; its id.
async fn session(addr: SocketAddr) -> String {
    let initialize = json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-11-25", "capabilities": {"elicitation": {"form": {}}},
        "clientInfo": {"name": "replicas-test", "version": "0"}}})
    .to_string();
    let reply = raw(addr, &post_head(addr, None, ""), &initialize).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let id = reply.header("mcp-session-id").expect("an id").to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string();
    let reply = raw(addr, &post_head(addr, Some(&id), ""), &initialized).await;
    assert_eq!(reply.status, 202, "{reply:?}");
    id
}

/// A response read as it arrives: the JSON-RPC messages of its event stream, one by one.
struct Events {
    stream: TcpStream,
    text: String,
    /// How much of `text` was read already.
    seen: usize,
}

impl Events {
    /// Sends `head` and `body` and waits for the response's head (status 200).
    async fn open(addr: SocketAddr, head: &str, body: &str) -> Self {
        let mut stream = TcpStream::connect(addr).await.unwrap();
        let request = format!(
            "{head}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut events = Self {
            stream,
            text: String::new(),
            seen: 0,
        };
        while !events.text.contains("\r\n\r\n") {
            events.read().await;
        }
        assert!(events.text.starts_with("HTTP/1.1 200"), "{}", events.text);
        events.seen = events.text.find("\r\n\r\n").unwrap_or_default();
        events
    }

    async fn read(&mut self) {
        let mut buffer = [0_u8; 4096];
        let read = tokio::time::timeout(Duration::from_secs(5), self.stream.read(&mut buffer))
            .await
            .expect("the server writes within 5 s")
            .unwrap();
        assert!(read > 0, "the stream ended: {}", self.text);
        self.text
            .push_str(&String::from_utf8_lossy(&buffer[..read]));
    }

    /// The next JSON-RPC message of the stream.
    async fn next(&mut self) -> Value {
        loop {
            let rest = &self.text[self.seen..];
            if let Some(start) = rest.find("data:")
                && let Some(end) = rest[start..].find('\n')
            {
                let data = rest[start + 5..start + end].trim().to_owned();
                self.seen += start + end;
                if let Ok(message) = serde_json::from_str(&data) {
                    return message;
                }
                continue;
            }
            self.read().await;
        }
    }
}

/// A session made on one replica is served by the other (`tools/list`, `tools/call`), and
/// its `DELETE` on either ends it on both.
#[tokio::test]
async fn any_replica_serves_a_session_and_delete_ends_it_everywhere() {
    let store: Arc<dyn SessionStore> = Arc::new(MemorySessionStore::in_process_replicas());
    let (_, a) = replica(Arc::clone(&store)).await;
    let (_, b) = replica(Arc::clone(&store)).await;
    let id = session(a).await;
    assert_sessions_open(b, std::slice::from_ref(&id)).await;
    let list = json!({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).to_string();
    let reply = raw(b, &post_head(b, Some(&id), ""), &list).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(
        reply.json()["result"]["tools"].as_array().map(Vec::len),
        Some(3)
    );
    assert_sessions_open(a, std::slice::from_ref(&id)).await;

    let delete = format!("DELETE /mcp HTTP/1.1\r\nHost: {b}\r\nMcp-Session-Id: {id}");
    let reply = raw(b, &delete, "").await;
    assert_eq!(reply.status, 202, "{reply:?}");
    assert!(
        store.load(&id).await.unwrap().is_none(),
        "deleted from the store"
    );
    let call = call_body(&json!({"a": 1, "b": 2}));
    for addr in [b, a] {
        // Replica a hears of the deletion through the store; give it a moment.
        let mut status = 0;
        for _ in 0..50 {
            status = raw(addr, &post_head(addr, Some(&id), ""), &call)
                .await
                .status;
            if status == 404 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(status, 404, "session served by {addr} after DELETE");
    }
}

/// A tool on replica `a` asks the client for input on the POST's event stream; the client's
/// answer, posted to replica `b`, reaches `a` and the call completes.
#[tokio::test]
async fn an_answer_posted_to_another_replica_reaches_the_one_that_asked() {
    let store: Arc<dyn SessionStore> = Arc::new(MemorySessionStore::in_process_replicas());
    let (_, a) = replica(Arc::clone(&store)).await;
    let (_, b) = replica(Arc::clone(&store)).await;
    let id = session(a).await;
    // The session is served by b once before, so that both hold a copy.
    assert_sessions_open(b, std::slice::from_ref(&id)).await;
    assert_answer_crosses(a, b, &id).await;
}

/// `ask` called in session `id` on `a`, its elicitation answered through `b`: the call
/// completes on `a` with the answer.
async fn assert_answer_crosses(a: SocketAddr, b: SocketAddr, id: &str) {
    let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
        "params": {"name": "ask", "arguments": {}}})
    .to_string();
    let mut events = Events::open(a, &post_head(a, Some(id), ""), &call).await;
    let asked = events.next().await;
    assert_eq!(asked["method"], "elicitation/create", "{asked}");
    let asked_id = asked["id"].clone();
    assert!(
        asked_id.as_str().is_some_and(|text| text.starts_with('r')),
        "the request's id names the replica: {asked_id}"
    );
    let answer = json!({"jsonrpc": "2.0", "id": asked_id,
        "result": {"action": "accept", "content": {"name": "Ada"}}})
    .to_string();
    let reply = raw(b, &post_head(b, Some(id), ""), &answer).await;
    assert_eq!(reply.status, 202, "{reply:?}");
    let result = events.next().await;
    assert_eq!(result["id"], 9, "{result}");
    assert_eq!(
        result["result"]["content"][0]["text"], "hello Ada",
        "{result}"
    );
}

/// The client's `notifications/cancelled` for a call running on replica `a`, posted to
/// replica `b`, reaches `a`: the call is cancelled there.
#[tokio::test]
async fn a_cancellation_posted_to_another_replica_cancels_the_call() {
    let store: Arc<dyn SessionStore> = Arc::new(MemorySessionStore::in_process_replicas());
    let (cancelled, mut heard) = mpsc::unbounded_channel();
    let lingering = Toolbox::builder()
        .with_tool(
            Tool::new("linger", ToolSchema::empty_object()),
            move |_: Map<String, Value>, cx: CallContext| {
                let cancelled = cancelled.clone();
                async move {
                    cx.cancelled().await;
                    let _ = cancelled.send(());
                    Ok(CallToolResult::text("cancelled"))
                }
            },
        )
        .build()
        .expect("toolbox");
    let a =
        start(ToolboxServer::new(lingering.clone()).with_session_store(Arc::clone(&store))).await;
    let b = start(ToolboxServer::new(lingering).with_session_store(Arc::clone(&store))).await;
    let id = session(a).await;
    let call = json!({"jsonrpc": "2.0", "id": 11, "method": "tools/call",
        "params": {"name": "linger", "arguments": {}}})
    .to_string();
    // The call runs on a while its stream is open.
    let _running = Events::open(a, &post_head(a, Some(&id), ""), &call).await;
    let cancel = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 11, "reason": "the user changed their mind"}})
    .to_string();
    let reply = raw(b, &post_head(b, Some(&id), ""), &cancel).await;
    assert_eq!(reply.status, 202, "{reply:?}");
    tokio::time::timeout(Duration::from_secs(5), heard.recv())
        .await
        .expect("the call on a is cancelled within 5 s")
        .expect("a cancelled call");
}

/// An answer naming a replica that is gone (or never was) is refused with 400 and a
/// JSON-RPC error; nothing waits for it.
#[tokio::test]
async fn an_answer_no_replica_waits_for_is_400_with_a_jsonrpc_error() {
    let store: Arc<dyn SessionStore> = Arc::new(MemorySessionStore::in_process_replicas());
    let (_, a) = replica(Arc::clone(&store)).await;
    let id = session(a).await;
    let answer = json!({"jsonrpc": "2.0", "id": "r0000000000000000.n0",
        "result": {"action": "decline"}})
    .to_string();
    let reply = raw(a, &post_head(a, Some(&id), ""), &answer).await;
    assert_eq!(reply.status, 400, "{reply:?}");
    let error = reply.json();
    assert_eq!(error["error"]["code"], -32600, "{error}");
    assert!(
        error["error"]["message"]
            .as_str()
            .is_some_and(|message| message.contains("r0000000000000000.n0")),
        "{error}"
    );
    // The session goes on.
    assert_sessions_open(a, std::slice::from_ref(&id)).await;
}

/// A `GET` stream held by replica `a` receives `notifications/tools/list_changed` raised on
/// replica `b` (its `set_toolbox`).
#[tokio::test]
async fn a_get_stream_on_one_replica_hears_list_changed_raised_on_another() {
    let store: Arc<dyn SessionStore> = Arc::new(MemorySessionStore::in_process_replicas());
    let (_, a) = replica(Arc::clone(&store)).await;
    let (server_b, b) = replica(Arc::clone(&store)).await;
    let id = session(a).await;
    assert_sessions_open(b, std::slice::from_ref(&id)).await;
    assert_list_changed_crosses(a, &server_b, &id, None).await;
}

/// The head of a `GET` of session `id`'s stream on `addr`, reconnecting after
/// `last_event_id` when given.
fn get_head(addr: SocketAddr, id: &str, last_event_id: Option<&str>) -> String {
    let mut head = format!(
        "GET /mcp HTTP/1.1\r\nHost: {addr}\r\nAccept: text/event-stream\r\nMcp-Session-Id: {id}\r\nMCP-Protocol-Version: 2025-11-25"
    );
    if let Some(last_event_id) = last_event_id {
        head.push_str(&format!("\r\nLast-Event-ID: {last_event_id}"));
    }
    head
}

/// A `GET` stream of session `id` on `a` (reconnecting after `last_event_id` when given)
/// hears `notifications/tools/list_changed` raised by `other`'s `set_toolbox`.
async fn assert_list_changed_crosses(
    a: SocketAddr,
    other: &ToolboxServer,
    id: &str,
    last_event_id: Option<&str>,
) {
    let mut events = Events::open(a, &get_head(a, id, last_event_id), "").await;
    // The stream is registered once its head is out; the change comes after.
    other.set_toolbox(toolbox());
    let notification = tokio::time::timeout(Duration::from_secs(5), events.next())
        .await
        .expect("the notification arrives within 5 s");
    assert_eq!(
        notification["method"], "notifications/tools/list_changed",
        "{notification}"
    );
}

/// A `GET` stream reconnected with `Last-Event-ID` (as clients do after a drop: here the
/// priming event's id) on a replica that never held it still hears the session's
/// notifications from any replica.
#[tokio::test]
async fn a_reconnected_get_stream_hears_notifications_from_another_replica() {
    let store: Arc<dyn SessionStore> = Arc::new(MemorySessionStore::in_process_replicas());
    let (server_a, a) = replica(Arc::clone(&store)).await;
    let (_, b) = replica(Arc::clone(&store)).await;
    let id = session(a).await;
    assert_list_changed_crosses(b, &server_a, &id, Some("0")).await;
}

/// `logging/setLevel` on one replica holds on every replica: on one that held a copy already
/// (told through the store) and on one that restores the session afterwards (from the stored
/// record). `log` sends an `info` and an `error` message (on the session's `GET` stream, as
/// `rmcp` sends a call's log messages): only the `error` ones arrive, whichever replica ran
/// the call.
#[tokio::test]
async fn a_log_level_set_on_one_replica_holds_on_every_replica() {
    let store: Arc<dyn SessionStore> = Arc::new(MemorySessionStore::in_process_replicas());
    let (_, a) = replica(Arc::clone(&store)).await;
    let (_, b) = replica(Arc::clone(&store)).await;
    let (_, c) = replica(Arc::clone(&store)).await;
    let id = session(a).await;
    assert_sessions_open(b, std::slice::from_ref(&id)).await;
    let mut events = Events::open(a, &get_head(a, &id, None), "").await;
    let set = json!({"jsonrpc": "2.0", "id": 3, "method": "logging/setLevel",
        "params": {"level": "error"}})
    .to_string();
    let reply = raw(a, &post_head(a, Some(&id), ""), &set).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    // b hears of it through the store.
    tokio::time::sleep(Duration::from_millis(200)).await;
    let log = json!({"jsonrpc": "2.0", "id": 4, "method": "tools/call",
        "params": {"name": "log", "arguments": {}}})
    .to_string();
    for addr in [a, b, c] {
        let reply = raw(addr, &post_head(addr, Some(&id), ""), &log).await;
        assert_eq!(reply.status, 200, "{reply:?}");
        let message = events.next().await;
        assert_eq!(message["method"], "notifications/message", "{message}");
        assert_eq!(
            (&message["params"]["level"], &message["params"]["data"]),
            (&json!("error"), &json!("loud")),
            "the first message after the call on {addr}"
        );
    }
}

/// Ids no session has: made up, far too long, or with characters outside visible ASCII: 404,
/// on a replica that holds nothing.
#[tokio::test]
async fn a_made_up_or_malformed_session_id_is_404() {
    let store: Arc<dyn SessionStore> = Arc::new(MemorySessionStore::in_process_replicas());
    let (_, a) = replica(Arc::clone(&store)).await;
    let call = call_body(&json!({"a": 1, "b": 2}));
    for id in [
        "d9b8a6f2-0000-4000-8000-000000000000".to_owned(),
        "x".repeat(4_000),
        "tab\there".to_owned(),
    ] {
        let reply = raw(a, &post_head(a, Some(&id), ""), &call).await;
        assert_eq!(reply.status, 404, "{id:.40}: {reply:?}");
    }
}

/// A store that can be taken down, and restarted empty: the memory store of replicas, failing
/// every operation while `down`.
#[derive(Debug)]
struct Flaky {
    inner: std::sync::Mutex<MemorySessionStore>,
    down: AtomicBool,
}

impl Flaky {
    fn new() -> Arc<Self> {
        Arc::new(Self {
            inner: std::sync::Mutex::new(MemorySessionStore::in_process_replicas()),
            down: AtomicBool::new(false),
        })
    }

    /// The store, or its error while down.
    fn store(&self) -> Result<MemorySessionStore, Error> {
        if self.down.load(Ordering::SeqCst) {
            return Err(Error::SessionStore {
                message: "down for the test".to_owned(),
                source: None,
            });
        }
        Ok(self.inner.lock().unwrap().clone())
    }

    /// Forgets every session (a Redis restarted without its data); subscriptions go on.
    fn forget_sessions(&self) {
        let mut inner = self.inner.lock().unwrap();
        *inner = inner.emptied();
    }
}

impl SessionStore for Flaky {
    fn create<'a>(&'a self, record: &'a SessionRecord, idle: Duration) -> StoreFuture<'a, ()> {
        Box::pin(async move { self.store()?.create(record, idle).await })
    }
    fn load<'a>(&'a self, id: &'a str) -> StoreFuture<'a, Option<SessionRecord>> {
        Box::pin(async move { self.store()?.load(id).await })
    }
    fn touch<'a>(&'a self, record: &'a SessionRecord, idle: Duration) -> StoreFuture<'a, Touched> {
        Box::pin(async move { self.store()?.touch(record, idle).await })
    }
    fn update<'a>(&'a self, record: &'a SessionRecord) -> StoreFuture<'a, bool> {
        Box::pin(async move { self.store()?.update(record).await })
    }
    fn delete<'a>(&'a self, id: &'a str, idle: Duration) -> StoreFuture<'a, bool> {
        Box::pin(async move { self.store()?.delete(id, idle).await })
    }
    fn publish<'a>(&'a self, message: &'a Relayed) -> StoreFuture<'a, usize> {
        Box::pin(async move { self.store()?.publish(message).await })
    }
    fn subscribe<'a>(&'a self, replica: &'a str) -> StoreFuture<'a, mpsc::Receiver<Relayed>> {
        Box::pin(async move { self.store()?.subscribe(replica).await })
    }
    fn ping(&self) -> StoreFuture<'_, ()> {
        Box::pin(async move { self.store().map(drop) })
    }
    fn is_shared(&self) -> bool {
        true
    }
}

/// The store forgets every session (Redis restarted without its data): the replica serving a
/// session writes it again at its next renewal, and then another replica serves it too.
#[tokio::test]
async fn a_store_that_lost_its_sessions_gets_them_back_from_the_replicas() {
    let flaky = Flaky::new();
    let store: Arc<dyn SessionStore> = flaky.clone();
    let mut limits = HttpLimits::default();
    // Renewed at most every 100 ms.
    limits.session_idle_timeout = Duration::from_millis(400);
    let mut replicas = Vec::new();
    for _ in 0..2 {
        let server = ToolboxServer::new(toolbox())
            .with_session_store(Arc::clone(&store))
            .with_limits(limits.clone());
        replicas.push(start(server).await);
    }
    let (a, b) = (replicas[0], replicas[1]);
    let id = session(a).await;
    flaky.forget_sessions();
    let call = call_body(&json!({"a": 1, "b": 2}));
    let reply = raw(b, &post_head(b, Some(&id), ""), &call).await;
    assert_eq!(reply.status, 404, "the store lost it: {reply:?}");
    tokio::time::sleep(Duration::from_millis(150)).await;
    assert_sessions_open(a, std::slice::from_ref(&id)).await;
    let mut status = 0;
    for _ in 0..50 {
        status = raw(b, &post_head(b, Some(&id), ""), &call).await.status;
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    assert_eq!(status, 200, "written again by a, served by b");
}

/// With the store down: a session a replica holds keeps serving there; one it does not hold,
/// an `initialize` and a `DELETE` get 503 with `Retry-After`; once the store is back, the
/// other replica serves the session again.
#[tokio::test]
async fn a_store_that_is_down_is_503_and_held_sessions_keep_serving() {
    let flaky = Flaky::new();
    let store: Arc<dyn SessionStore> = flaky.clone();
    let (_, a) = replica(Arc::clone(&store)).await;
    let (_, b) = replica(Arc::clone(&store)).await;
    let id = session(a).await;
    flaky.down.store(true, Ordering::SeqCst);
    assert_sessions_open(a, std::slice::from_ref(&id)).await;
    let call = call_body(&json!({"a": 1, "b": 2}));
    let reply = raw(b, &post_head(b, Some(&id), ""), &call).await;
    assert_eq!(reply.status, 503, "{reply:?}");
    assert_eq!(reply.header("retry-after"), Some("1"));
    let reply = raw(b, &post_head(b, None, ""), &initialize_body()).await;
    assert_eq!(reply.status, 503, "{reply:?}");
    assert_eq!(reply.header("retry-after"), Some("1"));
    let delete = format!("DELETE /mcp HTTP/1.1\r\nHost: {a}\r\nMcp-Session-Id: {id}");
    let reply = raw(a, &delete, "").await;
    assert_eq!(reply.status, 503, "{reply:?}");
    flaky.down.store(false, Ordering::SeqCst);
    assert_sessions_open(b, std::slice::from_ref(&id)).await;
    assert_sessions_open(a, std::slice::from_ref(&id)).await;
}

/// At the store's limit of sessions, an `initialize` gets 503 with `Retry-After`, and the
/// session `rmcp` made for it is closed.
#[tokio::test]
async fn the_store_limit_refuses_initialize_with_503() {
    let store: Arc<dyn SessionStore> =
        Arc::new(MemorySessionStore::in_process_replicas().with_limit(1));
    let (_, a) = replica(Arc::clone(&store)).await;
    let first = session(a).await;
    let reply = raw(a, &post_head(a, None, ""), &initialize_body()).await;
    assert_eq!(reply.status, 503, "{reply:?}");
    assert_eq!(reply.header("retry-after"), Some("1"));
    assert!(reply.body.contains("keeps 1 sessions"), "{reply:?}");
    assert_sessions_open(a, &[first]).await;
}

/// The same through a real Redis (`RedisSessionStore`), and Redis stopped and restarted empty
/// while two replicas serve a session under load: they keep serving it (no failed call); a
/// third replica, which never held it, gets 503 with `Retry-After` while Redis is down, then
/// serves it once the replicas have written it again; answers cross replicas again.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn on_redis_sessions_cross_replicas_and_survive_a_restart_of_redis_under_load() {
    let Some(mut redis) = toolmodel_test_support::redis::RedisServer::start() else {
        return;
    };
    let store = toolmodel_rmcp::sessions::session_store_from_url(Some(&redis.url))
        .await
        .expect("redis");
    let mut limits = HttpLimits::default();
    // Renewed at most every 250 ms.
    limits.session_idle_timeout = Duration::from_secs(1);
    let mut servers = Vec::new();
    for _ in 0..3 {
        let server = ToolboxServer::new(toolbox())
            .with_session_store(Arc::clone(&store))
            .with_limits(limits.clone());
        let addr = start(server.clone()).await;
        servers.push((server, addr));
    }
    let (a, b, c) = (servers[0].1, servers[1].1, servers[2].1);
    let id = session(a).await;
    assert_sessions_open(b, std::slice::from_ref(&id)).await;
    assert_answer_crosses(a, b, &id).await;
    assert_list_changed_crosses(a, &servers[1].0, &id, None).await;

    // Load: calls in turn on a and b, which hold the session, until told to stop.
    let stop = Arc::new(AtomicBool::new(false));
    let load = tokio::spawn({
        let (stop, id) = (Arc::clone(&stop), id.clone());
        async move {
            let call = call_body(&json!({"a": 1, "b": 2}));
            let (mut calls, mut failed) = (0_u32, Vec::new());
            while !stop.load(Ordering::SeqCst) {
                for addr in [a, b] {
                    let reply = raw(addr, &post_head(addr, Some(&id), ""), &call).await;
                    calls += 1;
                    if reply.status != 200 {
                        failed.push(reply.status);
                    }
                }
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
            (calls, failed)
        }
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    redis.stop();
    let call = call_body(&json!({"a": 1, "b": 2}));
    let started = std::time::Instant::now();
    let reply = raw(c, &post_head(c, Some(&id), ""), &call).await;
    assert_eq!(reply.status, 503, "c while Redis is down: {reply:?}");
    assert_eq!(reply.header("retry-after"), Some("1"));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    let reply = raw(a, &post_head(a, None, ""), &initialize_body()).await;
    assert_eq!(
        reply.status, 503,
        "initialize while Redis is down: {reply:?}"
    );
    tokio::time::sleep(Duration::from_millis(600)).await;
    redis.restart();
    let mut status = 0;
    for _ in 0..60 {
        status = raw(c, &post_head(c, Some(&id), ""), &call).await.status;
        if status == 200 {
            break;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    assert_eq!(status, 200, "c serves the session once Redis is back");
    stop.store(true, Ordering::SeqCst);
    let (calls, failed) = load.await.expect("the load ends");
    assert!(calls > 20, "{calls} calls");
    assert!(
        failed.is_empty(),
        "calls on replicas holding the session failed: {failed:?}"
    );
    // The subscriptions are back (each resubscribes every 0.5 s): answers cross again.
    let mut crossed = false;
    for _ in 0..20 {
        let answer_replica = servers[2].1;
        let call = json!({"jsonrpc": "2.0", "id": 9, "method": "tools/call",
            "params": {"name": "ask", "arguments": {}}})
        .to_string();
        let mut events = Events::open(a, &post_head(a, Some(&id), ""), &call).await;
        let asked = events.next().await;
        let answer = json!({"jsonrpc": "2.0", "id": asked["id"],
            "result": {"action": "accept", "content": {"name": "Ada"}}})
        .to_string();
        let reply = raw(
            answer_replica,
            &post_head(answer_replica, Some(&id), ""),
            &answer,
        )
        .await;
        if reply.status == 202 {
            assert_eq!(
                events.next().await["result"]["content"][0]["text"],
                "hello Ada"
            );
            crossed = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
    assert!(crossed, "an answer crossed replicas after Redis came back");
}
