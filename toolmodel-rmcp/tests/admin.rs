//! The admin listener (`toolmodel_rmcp::admin`): its routes, its readiness checks (a check of
//! the caller's, a federation's required upstream, the Redis task store), and the operator
//! log lines (an upstream's crash and respawn, an unreachable issuer), caught by a `tracing`
//! subscriber of this file's own.

use std::{
    net::SocketAddr,
    sync::{
        Arc,
        atomic::{AtomicBool, Ordering},
    },
    time::{Duration, Instant},
};

use serde_json::Value;
use tokio::{io::AsyncWriteExt as _, net::TcpStream};
use toolmodel_rmcp::admin::Admin;

use crate::support::raw_http::{Reply, read_reply};

/// Serves `admin` on a free loopback port; its address.
async fn serve(admin: Admin) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(std::future::IntoFuture::into_future(admin.serve(listener)));
    addr
}

/// `method path`, the whole response.
async fn request(addr: SocketAddr, method: &str, path: &str) -> Reply {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let head = format!("{method} {path} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n");
    stream.write_all(head.as_bytes()).await.unwrap();
    read_reply(&mut stream).await
}

async fn get(addr: SocketAddr, path: &str) -> Reply {
    request(addr, "GET", path).await
}

fn json(reply: &Reply) -> Value {
    serde_json::from_str(&reply.body).unwrap_or_else(|err| panic!("{err}: {reply:?}"))
}

/// `GET /readyz` until it answers `status` or `within` passes; the last reply.
/// A federation of the one server `upstream`, started.
#[cfg(feature = "federation")]
async fn federation_of(
    upstream: toolmodel_rmcp::federation::UpstreamConfig,
) -> toolmodel_rmcp::federation::Federation {
    let config = toolmodel_rmcp::federation::FederationConfig::builder()
        .with_upstream(upstream)
        .build()
        .unwrap();
    toolmodel_rmcp::federation::Federation::start(config)
        .await
        .unwrap()
}

#[cfg(any(feature = "federation", feature = "redis"))]
async fn readyz_until(addr: SocketAddr, status: u16, within: Duration) -> Reply {
    let deadline = Instant::now() + within;
    loop {
        let reply = get(addr, "/readyz").await;
        if reply.status == status || Instant::now() >= deadline {
            return reply;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_route_answers_and_readiness_follows_its_checks() {
    let ready = Arc::new(AtomicBool::new(true));
    let flag = Arc::clone(&ready);
    let admin = Admin::new()
        .with_readiness("database", move || {
            let ready = flag.load(Ordering::SeqCst);
            async move {
                if ready {
                    Ok(())
                } else {
                    Err("connection refused".to_owned())
                }
            }
        })
        .with_metrics(|| "# TYPE up gauge\nup 1\n".to_owned())
        .with_status(|| serde_json::json!({"version": "1.2.3"}));
    let addr = serve(admin).await;

    let healthz = get(addr, "/healthz").await;
    assert_eq!((healthz.status, healthz.body.as_str()), (200, "ok"));

    let readyz = get(addr, "/readyz").await;
    assert_eq!(readyz.status, 200, "{readyz:?}");
    assert_eq!(
        json(&readyz),
        serde_json::json!({"ready": true, "checks": {"database": {"ok": true}}})
    );
    ready.store(false, Ordering::SeqCst);
    let readyz = get(addr, "/readyz").await;
    assert_eq!(readyz.status, 503, "{readyz:?}");
    assert_eq!(
        json(&readyz),
        serde_json::json!({"ready": false, "checks": {"database": {"ok": false, "reason": "connection refused"}}})
    );

    let metrics = get(addr, "/metrics").await;
    assert_eq!(metrics.status, 200);
    assert_eq!(
        metrics.header("content-type"),
        Some("text/plain; version=0.0.4; charset=utf-8")
    );
    assert_eq!(metrics.body, "# TYPE up gauge\nup 1\n");

    let status = get(addr, "/status").await;
    assert_eq!(status.status, 200);
    assert_eq!(json(&status), serde_json::json!({"version": "1.2.3"}));

    assert_eq!(get(addr, "/nope").await.status, 404);
    let post = request(addr, "POST", "/healthz").await;
    assert_eq!(post.status, 405, "{post:?}");
    assert_eq!(post.header("allow"), Some("GET, HEAD"));
    let head = request(addr, "HEAD", "/healthz").await;
    assert_eq!((head.status, head.body.as_str()), (200, ""));

    // Without a renderer or a status document, their routes are not there; no check: ready.
    let bare = serve(Admin::new()).await;
    assert_eq!(get(bare, "/metrics").await.status, 404);
    assert_eq!(get(bare, "/status").await.status, 404);
    assert_eq!(get(bare, "/readyz").await.status, 200);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_check_that_hangs_fails_within_its_timeout() {
    let admin = Admin::new()
        .with_readiness("stuck", std::future::pending)
        .with_readiness("fine", || async { Ok(()) });
    let addr = serve(admin).await;
    let started = Instant::now();
    let readyz = get(addr, "/readyz").await;
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(readyz.status, 503);
    assert_eq!(
        json(&readyz),
        serde_json::json!({"ready": false, "checks": {
            "fine": {"ok": true},
            "stuck": {"ok": false, "reason": "no answer within 1000 ms"}
        }})
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_graceful_shutdown_stops_the_listener() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let served = tokio::spawn(std::future::IntoFuture::into_future(
        Admin::new()
            .serve(listener)
            .with_graceful_shutdown(async move {
                let _ = stopped.await;
            }),
    ));
    assert_eq!(get(addr, "/healthz").await.status, 200);
    // An idle kept-alive connection does not hold the shutdown up.
    let _idle = TcpStream::connect(addr).await.unwrap();
    stop.send(()).unwrap();
    tokio::time::timeout(Duration::from_secs(3), served)
        .await
        .expect("the shutdown ends within 3 s")
        .unwrap()
        .unwrap();
    assert!(TcpStream::connect(addr).await.is_err());
}

#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redis_task_store_is_ready_while_redis_answers() {
    use toolmodel_rmcp::tasks::RedisTaskStore;
    use toolmodel_test_support::redis::RedisServer;

    let Some(redis) = RedisServer::start() else {
        return;
    };
    let store = RedisTaskStore::connect(&redis.url).await.unwrap();
    let addr = serve(Admin::new().with_task_store(Arc::new(store))).await;
    let readyz = get(addr, "/readyz").await;
    assert_eq!(readyz.status, 200, "{readyz:?}");
    drop(redis);
    let readyz = readyz_until(addr, 503, Duration::from_secs(5)).await;
    assert_eq!(readyz.status, 503, "{readyz:?}");
    let body = json(&readyz);
    assert_eq!(body["checks"]["task_store"]["ok"], false, "{body}");
    assert!(
        body["checks"]["task_store"]["reason"]
            .as_str()
            .unwrap()
            .starts_with("task store: redis: PING"),
        "{body}"
    );
}

#[cfg(feature = "federation")]
mod gateway {
    use super::*;
    use toolmodel::CallToolResult;
    use toolmodel_rmcp::federation::{HttpTransport, UpstreamConfig};

    /// A `ToolboxServer` with an `echo` tool over Streamable HTTP on `listener`.
    fn serve_echo(listener: tokio::net::TcpListener) {
        let tool = toolmodel::Tool::from_mcp_json(
            &serde_json::json!({"name": "echo", "inputSchema": {"type": "object"}}),
        )
        .unwrap();
        let toolbox = toolmodel::Toolbox::builder()
            .with_tool(tool, |_, _| async { Ok(CallToolResult::text("echoed")) })
            .build()
            .unwrap();
        tokio::spawn(std::future::IntoFuture::into_future(
            toolmodel_rmcp::ToolboxServer::new(toolbox).serve_http(listener),
        ));
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_gateway_is_ready_once_its_required_upstream_is_up() {
        // A port nobody listens on, until the upstream starts there.
        let addr = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let federation = federation_of(
            UpstreamConfig::http("backend", HttpTransport::new(format!("http://{addr}/mcp")))
                .with_required(true)
                .with_startup_timeout(Duration::from_secs(2)),
        )
        .await;
        let admin = serve(Admin::new().with_federation(&federation)).await;

        let readyz = get(admin, "/readyz").await;
        assert_eq!(readyz.status, 503, "{readyz:?}");
        let reason = json(&readyz)["checks"]["upstreams"]["reason"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(
            reason.starts_with("required server \"backend\" is "),
            "{reason}"
        );
        let status = json(&get(admin, "/status").await);
        let backend = &status["upstreams"][0];
        assert_eq!(backend["name"], "backend");
        assert_ne!(backend["state"], "up", "{status}");
        assert_eq!(backend["required"], true);
        assert!(backend["failures"].as_u64().unwrap() >= 1, "{status}");
        assert!(backend["last_error"].is_string(), "{status}");
        assert!(
            backend["since"].as_str().unwrap().ends_with('Z'),
            "{status}"
        );

        // The upstream starts: the background retry (backoff from 250 ms) reaches it.
        let listener = tokio::net::TcpListener::bind(addr).await.unwrap();
        serve_echo(listener);
        let readyz = readyz_until(admin, 200, Duration::from_secs(20)).await;
        assert_eq!(readyz.status, 200, "{readyz:?}");
        let status = json(&get(admin, "/status").await);
        let backend = &status["upstreams"][0];
        assert_eq!(backend["state"], "up", "{status}");
        assert_eq!(backend["tools"], 1, "{status}");
        assert_eq!(backend["pid"], Value::Null, "{status}");

        federation.shutdown().await;
        let status = json(&get(admin, "/status").await);
        assert_eq!(status["upstreams"][0]["state"], "shut_down", "{status}");
        assert_eq!(get(admin, "/readyz").await.status, 503);
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_optional_upstream_down_leaves_the_gateway_ready() {
        let federation = federation_of(
            UpstreamConfig::http("optional", HttpTransport::new("http://127.0.0.1:9/mcp"))
                .with_startup_timeout(Duration::from_secs(2)),
        )
        .await;
        let admin = serve(Admin::new().with_federation(&federation)).await;
        assert_eq!(get(admin, "/readyz").await.status, 200);
        federation.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_required_upstream_that_crashes_is_not_ready_until_it_returns() {
        use toolmodel_rmcp::federation::StdioTransport;
        // The upstream fails to start while the gate file exists.
        let dir = std::env::temp_dir().join(format!("toolmodel-readyz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let gate = dir.join("down");
        let script = format!(
            "test -e '{}' && exit 1; exec python3 '{}' \"$0\"",
            gate.display(),
            concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/support/fake_upstream.py"
            )
        );
        let upstream = UpstreamConfig::stdio(
            "worker",
            StdioTransport::new("sh")
                .with_arg("-c")
                .with_arg(script)
                .with_arg(r#"[{"name": "ping", "inputSchema": {"type": "object"}}]"#),
        )
        .with_required(true)
        .with_startup_timeout(Duration::from_secs(20));
        let federation = federation_of(upstream).await;
        let admin = serve(Admin::new().with_federation(&federation)).await;
        assert_eq!(get(admin, "/readyz").await.status, 200);

        std::fs::write(&gate, b"").unwrap();
        let pid = federation.status().await[0].pid.expect("a pid");
        std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .unwrap();
        let readyz = readyz_until(admin, 503, Duration::from_secs(10)).await;
        assert_eq!(readyz.status, 503, "{readyz:?}");
        let reason = json(&readyz)["checks"]["upstreams"]["reason"]
            .as_str()
            .unwrap()
            .to_owned();
        assert!(reason.contains("\"worker\""), "{reason}");
        // Still down a second later: its respawns fail while the gate is there.
        tokio::time::sleep(Duration::from_secs(1)).await;
        assert_eq!(get(admin, "/readyz").await.status, 503);

        // It returns, with no call to bring it back: ready again.
        std::fs::remove_file(&gate).unwrap();
        let readyz = readyz_until(admin, 200, Duration::from_secs(30)).await;
        assert_eq!(readyz.status, 200, "{readyz:?}");
        let status = json(&get(admin, "/status").await);
        assert_eq!(status["upstreams"][0]["state"], "up", "{status}");
        assert!(
            status["upstreams"][0]["restarts"].as_u64().unwrap() >= 1,
            "{status}"
        );
        federation.shutdown().await;
        let _ = std::fs::remove_dir_all(&dir);
    }
}

/// The operator log lines, caught by a global `tracing` subscriber that keeps the events of
/// `toolmodel_rmcp`'s targets (every test of the binary shares it: each test looks for its
/// own server's name or issuer).
#[cfg(any(feature = "federation", feature = "auth"))]
mod logs {
    use std::{
        collections::BTreeMap,
        fmt::Debug,
        sync::{Mutex, OnceLock},
    };

    use tracing::{Event, Level, Metadata, Subscriber, field::Field, span};

    use super::*;

    /// One event: its target, level, message and fields (as text).
    #[derive(Clone, Debug)]
    pub struct Caught {
        pub target: String,
        pub level: Level,
        pub fields: BTreeMap<String, String>,
    }

    impl Caught {
        pub fn field(&self, name: &str) -> Option<&str> {
            self.fields.get(name).map(String::as_str)
        }
    }

    static CAUGHT: Mutex<Vec<Caught>> = Mutex::new(Vec::new());

    struct Capture;

    struct Fields<'a>(&'a mut BTreeMap<String, String>);

    impl tracing::field::Visit for Fields<'_> {
        fn record_str(&mut self, field: &Field, value: &str) {
            self.0.insert(field.name().to_owned(), value.to_owned());
        }
        fn record_debug(&mut self, field: &Field, value: &dyn Debug) {
            self.0.insert(field.name().to_owned(), format!("{value:?}"));
        }
    }

    impl Subscriber for Capture {
        fn enabled(&self, metadata: &Metadata<'_>) -> bool {
            metadata.target().starts_with("toolmodel_rmcp")
        }
        fn new_span(&self, _: &span::Attributes<'_>) -> span::Id {
            span::Id::from_u64(1)
        }
        fn record(&self, _: &span::Id, _: &span::Record<'_>) {}
        fn record_follows_from(&self, _: &span::Id, _: &span::Id) {}
        fn event(&self, event: &Event<'_>) {
            let mut fields = BTreeMap::new();
            event.record(&mut Fields(&mut fields));
            CAUGHT.lock().unwrap().push(Caught {
                target: event.metadata().target().to_owned(),
                level: *event.metadata().level(),
                fields,
            });
        }
        fn enter(&self, _: &span::Id) {}
        fn exit(&self, _: &span::Id) {}
    }

    /// Installs the subscriber (once per process).
    pub fn catch() {
        static INSTALLED: OnceLock<()> = OnceLock::new();
        INSTALLED.get_or_init(|| {
            tracing::subscriber::set_global_default(Capture).unwrap();
        });
    }

    /// The events caught so far that `keep` keeps.
    pub fn caught(keep: impl Fn(&Caught) -> bool) -> Vec<Caught> {
        CAUGHT
            .lock()
            .unwrap()
            .iter()
            .filter(|e| keep(e))
            .cloned()
            .collect()
    }

    /// Waits (at most 20 s) for an event of `upstream` whose message is `message`.
    #[cfg(feature = "federation")]
    async fn upstream_event(upstream: &str, message: &str) -> Caught {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let found = caught(|e| {
                e.field("upstream") == Some(upstream) && e.field("message") == Some(message)
            });
            if let Some(event) = found.into_iter().next() {
                return event;
            }
            assert!(
                Instant::now() < deadline,
                "no {message:?} for {upstream:?}: {:?}",
                caught(|e| e.field("upstream") == Some(upstream))
            );
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    #[cfg(feature = "federation")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_upstream_crash_is_logged_then_respawned_in_the_background() {
        use super::federation_of;
        use toolmodel_rmcp::federation::{StdioTransport, UpstreamConfig};
        catch();
        let upstream = UpstreamConfig::stdio(
            "crashy",
            StdioTransport::new("python3")
                .with_arg(concat!(
                    env!("CARGO_MANIFEST_DIR"),
                    "/tests/support/fake_upstream.py"
                ))
                .with_arg(r#"[{"name": "ping", "inputSchema": {"type": "object"}}]"#),
        )
        .with_startup_timeout(Duration::from_secs(20));
        let federation = federation_of(upstream).await;
        let up = upstream_event("crashy", "upstream up").await;
        assert_eq!(up.level, Level::INFO);
        let imported = upstream_event("crashy", "upstream tools imported").await;
        assert_eq!(imported.field("tools"), Some("1"));
        let pid = federation.status().await[0]
            .pid
            .expect("a stdio child's pid");
        assert_eq!(up.field("pid"), Some(pid.to_string().as_str()));

        std::process::Command::new("kill")
            .args(["-9", &pid.to_string()])
            .status()
            .unwrap();
        let crashed = upstream_event("crashy", "upstream crashed or closed its session").await;
        assert_eq!(crashed.level, Level::WARN);
        assert_eq!(crashed.target, "toolmodel_rmcp::federation");

        // Respawned in the background, before any call: readiness and the catalog follow.
        let respawning = upstream_event("crashy", "upstream respawning").await;
        assert_eq!(respawning.field("attempt"), Some("1"));
        let recovered = upstream_event("crashy", "upstream recovered").await;
        assert_eq!(recovered.field("restarts"), Some("1"));
        let cx = toolmodel::CallContext::new();
        let called = federation.toolbox().call("ping", None, &cx).await.unwrap();
        assert_ne!(called.is_error, Some(true), "{called:?}");
        federation.shutdown().await;
        upstream_event("crashy", "upstream shut down").await;
    }

    #[cfg(feature = "auth")]
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn an_unreachable_issuer_is_logged_once_for_many_requests() {
        use crate::support::raw_http::{self, initialize_body, post_head, raw};
        use toolmodel_rmcp::auth::ResourceServer;
        catch();
        let dead = std::net::TcpListener::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap();
        let issuer = format!("http://{dead}");
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let auth = ResourceServer::new(&issuer, &format!("http://{addr}/mcp"))
            .unwrap()
            .with_http_timeout(Duration::from_secs(1));
        let server = raw_http::server().with_authorization(auth);
        tokio::spawn(std::future::IntoFuture::into_future(
            server.serve_http(listener),
        ));
        // A JWT access token's shape (its keys are never fetched: the issuer is down).
        let token = "eyJhbGciOiJSUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6ImsxIn0.eyJzdWIiOiJ4In0.c2ln";
        for _ in 0..5 {
            let head = post_head(addr, None, &format!("Authorization: Bearer {token}"));
            let reply = raw(addr, &head, &initialize_body()).await;
            assert_eq!(reply.status, 503, "{reply:?}");
        }
        let outage = caught(|e| {
            e.target == "toolmodel_rmcp::auth"
                && e.field("issuer")
                    .is_some_and(|i| i.contains(&dead.to_string()))
        });
        assert_eq!(outage.len(), 1, "{outage:?}");
        assert_eq!(outage[0].level, Level::WARN);
        assert_eq!(outage[0].field("endpoint"), Some("discovery"));
        // Never the token, nor a part of it.
        let all = caught(|_| true);
        assert!(
            all.iter()
                .all(|e| e.fields.values().all(|v| !v.contains("eyJ"))),
            "{all:?}"
        );
    }
}
