//! Rate limits ([`RateLimits`]) on a server over Streamable HTTP on loopback: a call over a
//! call rule is an `isError` result naming the rule and when to retry, a request over a
//! request rule is 429 with `Retry-After`; two servers on one Redis share a limit, and when
//! Redis stops each counts alone (one log line, no call held past the 1 s timeout) until
//! Redis is back; a gateway bounds the calls in flight on an upstream (`maxConcurrentCalls`).

use std::net::SocketAddr;

use serde_json::{Value, json};
use toolmodel::{CallToolResult, Tool, Toolbox};
use toolmodel_rmcp::{ToolboxServer, server::RateLimits};

use crate::support::raw_http::{Reply, post_head, raw, start};

/// A toolbox of tools that answer their own name.
fn toolbox(names: &[&str]) -> Toolbox {
    let mut builder = Toolbox::builder();
    for name in names {
        let tool = Tool::from_mcp_json(&json!({"name": name, "inputSchema": {"type": "object"}}))
            .expect("a tool");
        let answer = (*name).to_owned();
        builder = builder.with_tool(tool, move |_, _| {
            let answer = answer.clone();
            async move { Ok(CallToolResult::text(answer)) }
        });
    }
    builder.build().expect("a toolbox")
}

fn limits(rules: Value) -> RateLimits {
    RateLimits::from_json(&json!({ "rules": rules })).expect("the limits read")
}

/// A request `method` with `params` under MCP 2026-07-28 (no session, no token).
async fn request(addr: SocketAddr, method: &str, params: Value) -> Reply {
    let mut params = params;
    params.as_object_mut().unwrap().insert(
        "_meta".to_owned(),
        json!({"io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {}}),
    );
    let mut extra = format!("Mcp-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}");
    if let Some(name) = params["name"].as_str() {
        extra.push_str(&format!("\r\nMcp-Name: {name}"));
    }
    let body = json!({"jsonrpc": "2.0", "id": 5, "method": method, "params": params});
    raw(addr, &post_head(addr, None, &extra), &body.to_string()).await
}

/// Calls `name`: `Ok(text)` for a result, `Err(text)` for an `isError` one.
async fn call(addr: SocketAddr, name: &str) -> Result<String, String> {
    let reply = request(addr, "tools/call", json!({"name": name, "arguments": {}})).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let result = &reply.json()["result"];
    let text = result["content"][0]["text"]
        .as_str()
        .unwrap_or_else(|| panic!("no text in {reply:?}"))
        .to_owned();
    if result["isError"] == true {
        Err(text)
    } else {
        Ok(text)
    }
}

#[tokio::test]
async fn a_call_over_a_call_rule_is_an_is_error_result_naming_the_rule_and_when_to_retry() {
    let server = ToolboxServer::new(toolbox(&["search", "write", "other"])).with_rate_limits(
        limits(json!([
            {"per": ["tool"], "tools": ["search", "write"], "rate": 0.01, "burst": 2}
        ])),
    );
    let addr = start(server).await;
    assert_eq!(call(addr, "search").await, Ok("search".to_owned()));
    assert_eq!(call(addr, "search").await, Ok("search".to_owned()));
    let refused = call(addr, "search").await.unwrap_err();
    let retry = refused
        .strip_prefix(
            "rate limit /toolmodelLimits/rules/0 (per tool: 0.01 per second, burst 2) reached; retry in ",
        )
        .and_then(|rest| rest.strip_suffix(" s"))
        .and_then(|secs| secs.parse::<f64>().ok())
        .unwrap_or_else(|| panic!("{refused}"));
    // 1 / 0.01 = 100 s to a token, less the time since the calls.
    assert!((90.0..=100.0).contains(&retry), "{refused}");
    // Each tool its own bucket; a tool no rule names is not limited.
    assert_eq!(call(addr, "write").await, Ok("write".to_owned()));
    for _ in 0..5 {
        assert_eq!(call(addr, "other").await, Ok("other".to_owned()));
    }
    // A tool that does not exist is unknown, not limited.
    let reply = request(
        addr,
        "tools/call",
        json!({"name": "serch", "arguments": {}}),
    )
    .await;
    assert_eq!(reply.json()["error"]["code"], -32602, "{reply:?}");
}

#[tokio::test]
async fn a_request_over_a_request_rule_is_429_with_retry_after() {
    let server = ToolboxServer::new(toolbox(&["search"]))
        .with_rate_limits(limits(json!([{"per": ["user"], "rate": 0.05, "burst": 3}])));
    let addr = start(server).await;
    assert_eq!(request(addr, "tools/list", json!({})).await.status, 200);
    assert_eq!(call(addr, "search").await, Ok("search".to_owned()));
    // A notification is no request: not counted.
    let notification = json!({"jsonrpc": "2.0", "method": "notifications/cancelled",
        "params": {"requestId": 1}});
    let reply = raw(
        addr,
        &post_head(
            addr,
            None,
            "Mcp-Protocol-Version: 2026-07-28\r\nMcp-Method: notifications/cancelled",
        ),
        &notification.to_string(),
    )
    .await;
    assert_ne!(reply.status, 429, "{reply:?}");
    assert_eq!(request(addr, "tools/list", json!({})).await.status, 200);
    let refused = request(addr, "tools/list", json!({})).await;
    assert_eq!(refused.status, 429, "{refused:?}");
    // 1 / 0.05 = 20 s to a token.
    assert_eq!(refused.header("retry-after"), Some("20"));
    assert!(
        refused.body.starts_with(
            "Too Many Requests: rate limit /toolmodelLimits/rules/0 (per user: 0.05 per second, burst 3) reached; retry in "
        ),
        "{refused:?}"
    );
}

#[cfg(feature = "redis")]
mod shared {
    use super::*;
    use std::{
        sync::{Arc, Mutex},
        time::{Duration, Instant},
    };
    use toolmodel_test_support::redis::RedisServer;
    use tracing::{Level, Subscriber};
    use tracing_subscriber::{Layer, layer::Context, prelude::*};

    /// The levels of the events of target `toolmodel_rmcp::limits`.
    #[derive(Clone, Default)]
    struct Lines(Arc<Mutex<Vec<Level>>>);

    impl<S: Subscriber> Layer<S> for Lines {
        fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
            if event.metadata().target() == "toolmodel_rmcp::limits" {
                self.0.lock().unwrap().push(*event.metadata().level());
            }
        }
    }

    /// Two servers of one tool whose limits are shared through `url` (keys under `prefix`).
    async fn replicas(url: &str, prefix: &str, rules: Value) -> [SocketAddr; 2] {
        let mut addrs = Vec::new();
        for _ in 0..2 {
            let shared = limits(rules.clone())
                .shared_through_redis_with_prefix(url, prefix)
                .await
                .expect("Redis is reached");
            let server = ToolboxServer::new(toolbox(&["search", "fresh"])).with_rate_limits(shared);
            addrs.push(start(server).await);
        }
        [addrs[0], addrs[1]]
    }

    /// Calls `tool` `n` times, alternating between `addrs`; how many were admitted, and the
    /// longest call.
    async fn admitted(addrs: &[SocketAddr; 2], tool: &str, n: usize) -> (usize, Duration) {
        let (mut count, mut longest) = (0, Duration::ZERO);
        for i in 0..n {
            let started = Instant::now();
            if call(addrs[i % 2], tool).await.is_ok() {
                count += 1;
            }
            longest = longest.max(started.elapsed());
        }
        (count, longest)
    }

    #[tokio::test]
    async fn two_servers_on_one_redis_share_a_limit() {
        let Some(redis) = RedisServer::start() else {
            return;
        };
        let addrs = replicas(
            &redis.url,
            "share",
            json!([{"tools": ["search"], "rate": 0.01, "burst": 5}]),
        )
        .await;
        let (count, _) = admitted(&addrs, "search", 12).await;
        assert_eq!(count, 5, "the burst of 5, over both servers together");
    }

    #[tokio::test]
    async fn without_redis_each_counts_alone_then_shares_again() {
        let Some(mut redis) = RedisServer::start() else {
            return;
        };
        let lines = Lines::default();
        let _default =
            tracing::subscriber::set_default(tracing_subscriber::registry().with(lines.clone()));
        let rules = json!([{"per": ["tool"], "rate": 0.01, "burst": 3}]);
        let addrs = replicas(&redis.url, "outage", rules).await;
        assert_eq!(admitted(&addrs, "search", 6).await.0, 3, "shared: 3 in all");
        redis.stop();
        // Each server counts in its own buckets, fresh: 3 each; no call waits past the 1 s
        // timeout of the Redis command (10 s: the bound of a loaded machine).
        let (count, longest) = admitted(&addrs, "search", 10).await;
        assert_eq!(count, 6, "3 per server while Redis is down");
        assert!(longest < Duration::from_secs(10), "a call took {longest:?}");
        // One line per server for the whole outage, not one per call.
        assert_eq!(*lines.0.lock().unwrap(), [Level::WARN, Level::WARN]);
        redis.restart();
        // Redis is tried again a second after the last failure, by a call on each server.
        let deadline = Instant::now() + Duration::from_secs(10);
        while lines.0.lock().unwrap().len() < 4 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(300)).await;
            admitted(&addrs, "search", 2).await;
        }
        assert_eq!(
            *lines.0.lock().unwrap(),
            [Level::WARN, Level::WARN, Level::INFO, Level::INFO],
            "one line per server when Redis answers again"
        );
        // Shared again: 3 calls of another tool in all, over both servers.
        assert_eq!(admitted(&addrs, "fresh", 8).await.0, 3);
    }
}

#[cfg(feature = "federation")]
mod gateway {
    use super::*;
    use std::{sync::Arc, time::Duration};
    use tokio::{
        net::TcpListener,
        sync::{Notify, Semaphore},
    };
    use toolmodel_rmcp::federation::{Federation, FederationConfig};

    /// `slow.wait` tells `entered`, then waits for a permit of `gate`; served over HTTP, its
    /// address.
    async fn slow_upstream(gate: Arc<Semaphore>, entered: Arc<Notify>) -> SocketAddr {
        let tool = Tool::from_mcp_json(&json!({"name": "wait", "inputSchema": {"type": "object"}}))
            .unwrap();
        let toolbox = Toolbox::builder()
            .with_tool(tool, move |_, _| {
                let gate = Arc::clone(&gate);
                entered.notify_one();
                async move {
                    let _permit = gate.acquire().await.unwrap();
                    Ok(CallToolResult::text("done"))
                }
            })
            .build()
            .unwrap();
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        tokio::spawn(
            ToolboxServer::new(toolbox)
                .serve_http(listener)
                .into_future(),
        );
        addr
    }

    #[tokio::test]
    async fn a_gateway_bounds_calls_in_flight_per_upstream_and_limits_per_upstream() {
        let gate = Arc::new(Semaphore::new(0));
        let entered = Arc::new(Notify::new());
        let slow = slow_upstream(Arc::clone(&gate), Arc::clone(&entered)).await;
        let config = FederationConfig::from_json(&json!({
            "mcpServers": {"slow": {"url": format!("http://{slow}/mcp"), "maxConcurrentCalls": 1}},
            "toolmodelLimits": {"rules": [{"per": ["upstream"], "rate": 0.01, "burst": 3}]}
        }))
        .unwrap();
        let federation = Federation::start(config).await.unwrap();
        let addr = start(ToolboxServer::gateway(&federation)).await;
        let name = "wait";
        let first = tokio::spawn(call(addr, name));
        // The first call is on the upstream: a second is refused at once.
        tokio::time::timeout(Duration::from_secs(10), entered.notified())
            .await
            .expect("the first call reaches the upstream");
        let refused = call(addr, name).await.unwrap_err();
        assert_eq!(
            refused,
            "server \"slow\" has 1 calls pending, its limit (maxConcurrentCalls); try again later"
        );
        gate.add_permits(10);
        assert_eq!(first.await.unwrap(), Ok("done".to_owned()));
        // Two of the burst of 3 taken (the first call, and the one refused by the bound,
        // which the rate limit admitted before): one more call, then the bucket is empty.
        assert_eq!(call(addr, name).await, Ok("done".to_owned()));
        let over = call(addr, name).await.unwrap_err();
        assert!(
            over.starts_with("rate limit /toolmodelLimits/rules/0 (per upstream: 0.01 per second, burst 3) reached"),
            "{over}"
        );
        federation.shutdown().await;
    }
}
