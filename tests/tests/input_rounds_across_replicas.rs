//! Replicas of `examples/conformance_server.rs` (`MCP_REPLICA`, one `MCP_REQUEST_STATE_KEY`),
//! each started as a child process over stdio and driven by `rmcp`'s client in MCP 2026-07-28
//! mode: an input round answered by one replica and its retry by another, what a load balancer
//! does in `scale/run.sh`, here without one. The same retry is refused by a replica with
//! another key.
//!
//! It runs the example programs this package builds (`CARGO_BIN_EXE_*`): `cargo test -p
//! toolmodel-tests --test integration input_rounds_across_replicas::`.

use std::process::Stdio;

use rmcp::{
    RoleClient,
    model::{CallToolRequestParams, CallToolResponse, ProtocolVersion},
    service::{ClientLifecycleMode, ClientServiceExt, RunningService, ServiceError},
    transport::TokioChildProcess,
};
use serde_json::{Value, json};

use crate::support::client::Client;

const SERVER: &str = env!("CARGO_BIN_EXE_example-conformance-server");
const KEY: &str = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
const OTHER_KEY: &str = "ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTA=";

/// A replica named `name` (no `MCP_REPLICA` when `None`) with `key`.
async fn replica(name: Option<&str>, key: &str) -> RunningService<RoleClient, Client> {
    let mut command = tokio::process::Command::new(SERVER);
    command.env("MCP_REQUEST_STATE_KEY", key);
    match name {
        Some(name) => command.env("MCP_REPLICA", name),
        None => command.env_remove("MCP_REPLICA"),
    };
    let (transport, _stderr) = TokioChildProcess::builder(command)
        .stderr(Stdio::null())
        .spawn()
        .expect("the conformance server starts");
    Client
        .serve_with_lifecycle(
            transport,
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("the session starts")
}

fn ask() -> CallToolRequestParams {
    serde_json::from_value(json!({"name": "scale_replica", "arguments": {"ask": true}}))
        .expect("params")
}

async fn tools(service: &RunningService<RoleClient, Client>) -> Value {
    serde_json::to_value(service.list_all_tools().await.expect("tools/list")).expect("JSON")
}

/// The first round on `a`, the retry on `b`: `b` opens the state `a` sealed, and the result
/// names both; `c`, with another key, refuses the same retry with `-32602`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retry_is_served_by_another_replica_with_the_same_key() {
    let (a, b) = (replica(Some("a"), KEY).await, replica(Some("b"), KEY).await);
    let c = replica(Some("c"), OTHER_KEY).await;
    let CallToolResponse::InputRequired(required) = a.call_tool_once(ask()).await.expect("answers")
    else {
        panic!("an InputRequiredResult from a")
    };
    let retry = ask()
        .with_input_responses(
            [(
                "user_name".to_owned(),
                json!({"action": "accept", "content": {"name": "Ada"}}),
            )]
            .into_iter()
            .collect(),
        )
        .with_request_state(required.request_state.expect("a requestState"));
    let CallToolResponse::Complete(result) =
        b.call_tool_once(retry.clone()).await.expect("answers")
    else {
        panic!("a result from b")
    };
    let json = serde_json::to_value(&result).expect("JSON");
    assert_eq!(
        json["content"][0]["text"], "Hello, Ada!, answered by b",
        "{json}"
    );
    assert_eq!(
        json["_meta"]["toolmodel.example/replica"],
        json!({"answeredBy": "b", "askedBy": "a"})
    );
    match c.call_tool_once(retry).await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, rmcp::model::ErrorCode::INVALID_PARAMS);
            assert!(error.message.contains("requestState"), "{}", error.message);
        }
        other => panic!("c must refuse a's state with -32602, got {other:?}"),
    }
    for service in [a, b, c] {
        service.cancel().await.expect("the client closes");
    }
}

/// Replicas list the same tools, `scale_replica` read-only and idempotent (what lets a client
/// re-issue it); without `MCP_REPLICA` it is not listed, nor are `scale_task` and
/// `scale_task_once`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn replicas_list_the_same_tools_and_only_they_serve_scale_replica() {
    let (a, b) = (replica(Some("a"), KEY).await, replica(Some("b"), KEY).await);
    let plain = replica(None, KEY).await;
    let (listed_a, listed_b, listed_plain) =
        (tools(&a).await, tools(&b).await, tools(&plain).await);
    assert_eq!(listed_a, listed_b);
    let scale = listed_a
        .as_array()
        .and_then(|tools| tools.iter().find(|tool| tool["name"] == "scale_replica"))
        .expect("replicas list scale_replica");
    assert_eq!(scale["annotations"]["readOnlyHint"], true, "{scale}");
    assert_eq!(scale["annotations"]["idempotentHint"], true, "{scale}");
    let names = |list: &Value| -> Vec<Value> {
        list.as_array()
            .map(|tools| tools.iter().map(|tool| tool["name"].clone()).collect())
            .unwrap_or_default()
    };
    let mut without: Vec<Value> = names(&listed_a);
    // The replicas' own tools: scale_replica, and the tasks of scale/run.sh's tasks phase.
    without.retain(|name| {
        !["scale_replica", "scale_task", "scale_task_once"]
            .contains(&name.as_str().unwrap_or_default())
    });
    assert_eq!(names(&listed_plain), without);
    for service in [a, b, plain] {
        service.cancel().await.expect("the client closes");
    }
}
