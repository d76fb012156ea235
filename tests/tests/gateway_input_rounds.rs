//! A gateway (a `ToolboxServer` over a `Federation`) in front of `examples/conformance_server.rs`,
//! an upstream that asks for input by MCP 2026-07-28 `InputRequiredResult`s: its rounds reach
//! a caller of either era through `CallContext::input`, and a 2026-07-28 client's retry may land
//! on another gateway replica holding the same `requestState` key.
//!
//! It runs the example programs this package builds (`CARGO_BIN_EXE_*`): `cargo test -p
//! toolmodel-tests --test integration gateway_input_rounds::`.

use std::{net::SocketAddr, sync::Arc};

use rmcp::{
    RoleClient,
    model::{
        CallToolRequestParams, CallToolResponse, ErrorCode, InputRequiredResult, ProtocolVersion,
    },
    service::{ClientLifecycleMode, ClientServiceExt, RunningService, ServiceError},
    transport::StreamableHttpClientTransport,
};
use serde_json::{Value, json};
use toolmodel::{
    CallContext,
    peer::{BoxFuture, CallPeer},
};
use toolmodel_rmcp::{
    ToolboxServer,
    federation::{Federation, FederationConfig, StdioTransport, UpstreamConfig},
    server::RequestStateKey,
};

use crate::support::client::Client;

const UPSTREAM: &str = env!("CARGO_BIN_EXE_example-conformance-server");
/// The upstream replicas' key.
const UPSTREAM_KEY: &str = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
/// The gateway replicas' key.
const GATEWAY_KEY: &str = "Z2F0ZXdheS1rZXktZ2F0ZXdheS1rZXktZ2F0ZXdheS0=";
/// Another gateway's key.
const OTHER_KEY: &str = "ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTA=";

/// A federation of one conformance server over stdio, as replica `replica`.
async fn federation(replica: &str) -> Federation {
    let upstream = StdioTransport::new(UPSTREAM)
        .with_env("MCP_REQUEST_STATE_KEY", UPSTREAM_KEY)
        .with_env("MCP_REPLICA", replica);
    let config = FederationConfig::builder()
        .with_upstream(UpstreamConfig::stdio("conformance", upstream))
        .build()
        .expect("a configuration");
    Federation::start(config)
        .await
        .expect("the federation starts")
}

/// A gateway replica over Streamable HTTP on a free loopback port, in front of upstream
/// replica `replica`, sealing with `key`: its MCP URL and its federation.
async fn gateway(replica: &str, key: &str) -> (String, Federation) {
    let federation = federation(replica).await;
    let server = ToolboxServer::gateway(&federation)
        .with_request_state_key(RequestStateKey::from_base64(key).expect("a key"));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .expect("a port");
    let addr: SocketAddr = listener.local_addr().expect("an address");
    tokio::spawn(server.serve_http(listener).into_future());
    (format!("http://{addr}/mcp"), federation)
}

/// A 2026-07-28 client of the gateway at `url`.
async fn client(url: &str) -> RunningService<RoleClient, Client> {
    Client
        .serve_with_lifecycle(
            StreamableHttpClientTransport::from_uri(url.to_owned()),
            ClientLifecycleMode::Discover {
                preferred_versions: vec![ProtocolVersion::V_2026_07_28],
            },
        )
        .await
        .expect("the session starts")
}

fn call(name: &str, arguments: Value) -> CallToolRequestParams {
    serde_json::from_value(json!({"name": name, "arguments": arguments})).expect("params")
}

/// The retry of `params` answering `required` with `answers`.
fn retry(
    params: &CallToolRequestParams,
    required: InputRequiredResult,
    answers: Value,
) -> CallToolRequestParams {
    let answers = answers.as_object().cloned().unwrap_or_default();
    params
        .clone()
        .with_input_responses(answers.into_iter().collect())
        .with_request_state(required.request_state.expect("a requestState"))
}

fn input_required(response: CallToolResponse) -> InputRequiredResult {
    match response {
        CallToolResponse::InputRequired(required) => required,
        other => panic!("an InputRequiredResult, got {other:?}"),
    }
}

fn complete(response: CallToolResponse) -> Value {
    match response {
        CallToolResponse::Complete(result) => serde_json::to_value(&result).expect("JSON"),
        other => panic!("a CallToolResult, got {other:?}"),
    }
}

fn keys(required: &InputRequiredResult) -> Vec<String> {
    required
        .input_requests
        .as_ref()
        .map(|requests| requests.keys().cloned().collect())
        .unwrap_or_default()
}

/// A 2025-11-25 caller's host: a name or a color for each elicitation, a greeting, one root.
struct Host;

impl CallPeer for Host {
    fn elicit(&self, params: Value) -> BoxFuture<'_, Result<Value, toolmodel::Error>> {
        let message = params["message"].as_str().unwrap_or_default().to_owned();
        Box::pin(async move {
            Ok(if message.contains("color") {
                json!({"action": "accept", "content": {"color": "green"}})
            } else {
                json!({"action": "accept", "content": {"name": "Ada"}})
            })
        })
    }

    fn create_message(&self, _: Value) -> BoxFuture<'_, Result<Value, toolmodel::Error>> {
        Box::pin(async {
            Ok(
                json!({"role": "assistant", "content": {"type": "text", "text": "Hi"}, "model": "m"}),
            )
        })
    }

    fn list_roots(&self) -> BoxFuture<'_, Result<Value, toolmodel::Error>> {
        Box::pin(async { Ok(json!({"roots": [{"uri": "file:///work"}]})) })
    }
}

/// Under 2026-07-28 an upstream tells of a changed tool list only on a `subscriptions/listen`
/// stream, which the federation opens: the upstream's `test_trigger_tool_change` rebuilds the
/// federation's toolbox.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_upstream_s_tool_list_change_reaches_the_federation() {
    let federation = federation("a").await;
    let (rebuilt, mut rebuilds) = tokio::sync::mpsc::unbounded_channel();
    federation.on_change(move |_| {
        let _ = rebuilt.send(());
    });
    let result = federation
        .toolbox()
        .call("test_trigger_tool_change", None, &CallContext::new())
        .await
        .expect("a result");
    assert!(!result.is_error(), "{}", result.text_content());
    tokio::time::timeout(std::time::Duration::from_secs(5), rebuilds.recv())
        .await
        .expect("the toolbox is rebuilt within 5 s")
        .expect("a rebuild");
    federation.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2025_caller_answers_every_upstream_round_through_its_host() {
    let federation = federation("a").await;
    let toolbox = federation.toolbox();
    let cx = CallContext::new().with_peer(Arc::new(Host));
    let two_rounds = toolbox
        .call("test_input_required_result_multi_round", None, &cx)
        .await
        .expect("a result");
    assert_eq!(two_rounds.text_content(), "Ada likes green");
    let three_kinds = toolbox
        .call("test_input_required_result_multiple_inputs", None, &cx)
        .await
        .expect("a result");
    assert_eq!(three_kinds.text_content(), "Hi Ada; 1 roots");
    federation.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_2026_client_answers_each_upstream_round_through_the_gateway() {
    let (url, federation) = gateway("a", GATEWAY_KEY).await;
    let client = client(&url).await;
    let params = call("test_input_required_result_multi_round", json!({}));
    let first = input_required(
        client
            .call_tool_once(params.clone())
            .await
            .expect("answers"),
    );
    assert_eq!(
        keys(&first),
        ["step1"],
        "the upstream's keys reach the client"
    );
    let state = first.request_state.clone().expect("a requestState");
    assert!(
        state.starts_with("rs1."),
        "the gateway's sealed state: {state}"
    );
    // Round 1 answered: the upstream asks round 2; round 2 answered: the result.
    let mut required = first;
    let mut answered = None;
    for (key, content, next) in [
        ("step1", json!({"name": "Ada"}), Some("step2")),
        ("step2", json!({"color": "green"}), None),
    ] {
        let answer = json!({key: {"action": "accept", "content": content}});
        let response = client
            .call_tool_once(retry(&params, required.clone(), answer))
            .await
            .expect("answers");
        match next {
            Some(next) => {
                required = input_required(response);
                assert_eq!(keys(&required), [next]);
            }
            None => answered = Some(complete(response)),
        }
    }
    let done = answered.expect("a result after the last round");
    assert_eq!(done["content"][0]["text"], "Ada likes green", "{done}");
    client.cancel().await.expect("the client closes");
    federation.shutdown().await;
}

/// Gateway replicas A and B share a key, each in front of its own upstream replica (`a`,
/// `b`, sharing theirs); C has another key. The round asked through A is answered through B:
/// B opens A's state, and the upstream replica `b` opens the state `a` sealed inside it.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstream_round_asked_on_one_gateway_replica_is_answered_on_another() {
    let ((url_a, fed_a), (url_b, fed_b), (url_c, fed_c)) = tokio::join!(
        gateway("a", GATEWAY_KEY),
        gateway("b", GATEWAY_KEY),
        gateway("c", OTHER_KEY),
    );
    let (a, b, c) = (
        client(&url_a).await,
        client(&url_b).await,
        client(&url_c).await,
    );
    let params = call("scale_replica", json!({"ask": true}));
    let required = input_required(a.call_tool_once(params.clone()).await.expect("answers"));
    assert_eq!(keys(&required), ["user_name"]);
    let continued = retry(
        &params,
        required,
        json!({"user_name": {"action": "accept", "content": {"name": "Ada"}}}),
    );
    let done = complete(b.call_tool_once(continued.clone()).await.expect("answers"));
    assert_eq!(
        done["content"][0]["text"], "Hello, Ada!, answered by b",
        "{done}"
    );
    let replicas = &done["_meta"]["toolmodel.example/replica"];
    assert_eq!(*replicas, json!({"answeredBy": "b", "askedBy": "a"}));
    let refused = match c.call_tool_once(continued).await {
        Err(ServiceError::McpError(error)) => {
            assert_eq!(error.code, ErrorCode::INVALID_PARAMS);
            assert!(error.message.contains("requestState"), "{}", error.message);
            error.code.0
        }
        other => panic!("C must refuse A's state with -32602, got {other:?}"),
    };
    println!(
        "gateway replicas: asked via gateway A (upstream a), answered via gateway B (upstream b): askedBy={} answeredBy={}; gateway C (other key) refused {refused}",
        replicas["askedBy"], replicas["answeredBy"]
    );
    for client in [a, b, c] {
        client.cancel().await.expect("the client closes");
    }
    for federation in [fed_a, fed_b, fed_c] {
        federation.shutdown().await;
    }
}
