//! Each user's own credentials upstream (issue 44): a gateway behind the test authorization
//! server (oidc-provider, its token-exchange grant) whose upstreams, `ToolboxServer`s over
//! Streamable HTTP that check tokens of their own audience, are configured with
//! `toolmodelCredentials.tokenExchange`. Users A and B call each upstream's `whoami` through
//! one gateway: each upstream sees the user's own subject, its own audience, and only the
//! tokens exchanged for it (a recording layer in front of it sees every `Authorization`
//! header); the exchanged token is kept until it nearly expires and exchanged again then; a
//! refused exchange and an unreachable issuer are `isError` results, at once.

use std::{
    net::SocketAddr,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use base64::Engine as _;
use rmcp::{
    model::{CallToolRequestParams, CallToolResult},
    service::{RoleClient, RunningService},
};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use toolmodel::{Tool, Toolbox};
use toolmodel_rmcp::{
    ToolboxServer,
    auth::ResourceServer,
    federation::{ExchangeClient, Federation, FederationConfig},
};
use toolmodel_test_support::issuer::{self, Issuer};
use tower_http::trace::TraceLayer;

use crate::support::two_users::connect;

/// Every `Authorization` header an upstream received.
pub(crate) type Seen = Arc<Mutex<Vec<String>>>;

/// An upstream with one tool, `whoami` (the subject, client and scopes of the caller's
/// token, and the audience the server checked), behind `issuer` for the resource
/// `http://<addr>/<path>`; its MCP URL, its resource, and what it received.
pub(crate) async fn upstream(issuer: &Issuer, path: &str) -> (String, String, Seen) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let addr: SocketAddr = listener.local_addr().expect("an address");
    let resource = format!("http://{addr}/{path}");
    let audience = resource.clone();
    let whoami = Tool::from_mcp_json(&json!({"name": "whoami", "inputSchema": {"type": "object"}}))
        .expect("a tool");
    let toolbox = Toolbox::builder()
        .with_tool(whoami, move |_, cx| {
            let caller = cx.caller().cloned();
            let audience = audience.clone();
            async move {
                let caller = caller.expect("a verified caller");
                Ok(toolmodel::CallToolResult::text(format!(
                    "subject {}, client {}, audience {audience}, scopes {}",
                    caller.subject(),
                    caller.client_id().unwrap_or("-"),
                    caller.scopes().collect::<Vec<_>>().join(" ")
                )))
            }
        })
        .build()
        .expect("a toolbox");
    let seen: Seen = Arc::default();
    let record = Arc::clone(&seen);
    let server = ToolboxServer::new(toolbox)
        .with_authorization(ResourceServer::new(&issuer.url, &resource).expect("authorization"));
    tokio::spawn(
        server
            .serve_http(listener)
            .with_layer(TraceLayer::new_for_http().on_request(
                move |request: &http::Request<hyper::body::Incoming>, _: &tracing::Span| {
                    if let Some(value) = request.headers().get(http::header::AUTHORIZATION) {
                        let value = value.to_str().unwrap_or("(not text)").to_owned();
                        record.lock().unwrap().push(value);
                    }
                },
            ))
            .into_future(),
    );
    (format!("http://{addr}/mcp"), resource, seen)
}

/// The claims of a JWT (not verified: the upstream did that).
fn claims(token: &str) -> Value {
    let payload = token.split('.').nth(1).expect("a JWT");
    let bytes = base64::engine::general_purpose::URL_SAFE_NO_PAD
        .decode(payload)
        .expect("base64url");
    serde_json::from_slice(&bytes).expect("JSON claims")
}

/// The gateway and what the tests look at.
struct Setup {
    _federation: Federation,
    issuer: Issuer,
    gateway: String,
    /// By server (`notes`, `brief`, `refused`): its resource and what it received.
    upstreams: Vec<(&'static str, String, Seen)>,
}

/// Three credentialed upstreams: `notes` (tokens of 300 s), `brief` (of 2 s: exchanged
/// again after 1 s) and `refused` (whose exchange the issuer refuses, `invalid_target`);
/// the gateway behind the same issuer, whose tokens the issuer lets the gateway exchange.
async fn setup() -> Option<Setup> {
    let issuer = Issuer::start(0).await?;
    let mut servers = serde_json::Map::new();
    let mut upstreams = Vec::new();
    for (name, path) in [("notes", "mcp"), ("brief", "brief"), ("refused", "refused")] {
        let (url, resource, seen) = upstream(&issuer, path).await;
        servers.insert(
            name.to_owned(),
            json!({"url": url, "toolmodelCredentials": {"tokenExchange": {"resource": resource, "scope": "profile:read"}}}),
        );
        upstreams.push((name, resource, seen));
    }
    let mut config =
        FederationConfig::from_json(&json!({"mcpServers": servers, "toolNames": "always"}))
            .expect("the configuration reads");
    config.exchange_client = Some(ExchangeClient::new(
        &issuer.url,
        issuer::GATEWAY_CLIENT.0,
        issuer::GATEWAY_CLIENT.1,
    ));
    let federation = Federation::start(config)
        .await
        .expect("the federation starts");
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let gateway = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    issuer.allow_exchange_from(&gateway).await;
    let server = ToolboxServer::gateway(&federation)
        .with_authorization(ResourceServer::new(&issuer.url, &gateway).expect("authorization"));
    tokio::spawn(server.serve_http(listener).into_future());
    Some(Setup {
        _federation: federation,
        issuer,
        gateway,
        upstreams,
    })
}

/// `client`'s call of `<server>__whoami`, bounded by 10 s.
async fn whoami(client: &RunningService<RoleClient, ()>, server: &str) -> CallToolResult {
    let call = client.call_tool(CallToolRequestParams::new(format!("{server}__whoami")));
    tokio::time::timeout(Duration::from_secs(10), call)
        .await
        .expect("an answer within 10 s")
        .expect("a result")
}

/// The text of a result.
pub(crate) fn text(result: &CallToolResult) -> String {
    result.content[0].as_text().expect("text").text.clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn users_a_and_b_reach_each_upstream_as_themselves_with_exchanged_tokens_only() {
    let Some(setup) = setup().await else { return };
    let (a_id, b_id) = (issuer::CLIENT.0, issuer::OTHER_CLIENT.0);
    let a_token = setup
        .issuer
        .token_for(issuer::CLIENT, &setup.gateway, "notes:read")
        .await;
    let b_token = setup
        .issuer
        .token_for(issuer::OTHER_CLIENT, &setup.gateway, "notes:read")
        .await;
    let a = connect(&setup.gateway, a_token.clone(), (), false).await;
    let b = connect(&setup.gateway, b_token.clone(), (), true).await;
    for (name, resource, _) in &setup.upstreams[..2] {
        for (client, subject) in [(&a, a_id), (&b, b_id)] {
            let result = whoami(client, name).await;
            assert_ne!(result.is_error, Some(true), "{result:?}");
            assert_eq!(
                text(&result),
                format!(
                    "subject {subject}, client {}, audience {resource}, scopes profile:read",
                    issuer::GATEWAY_CLIENT.0
                ),
                "{name}"
            );
        }
    }
    // Kept: a second call makes no second exchange.
    let (_, notes, _) = &setup.upstreams[0];
    whoami(&a, "notes").await;
    assert_eq!(setup.issuer.exchanges(a_id, notes).await, 1);
    assert_eq!(setup.issuer.exchanges(b_id, notes).await, 1);
    // A token of 2 s is used for 1 s, then exchanged again.
    let (_, brief, _) = &setup.upstreams[1];
    assert_eq!(setup.issuer.exchanges(a_id, brief).await, 1);
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let again = whoami(&a, "brief").await;
    assert_ne!(again.is_error, Some(true), "{again:?}");
    assert_eq!(setup.issuer.exchanges(a_id, brief).await, 2);
    // No upstream ever received a user's token, or any token not of its own audience: the
    // users' calls came with tokens exchanged for them (sub the user's, `act` the gateway),
    // the catalog with the gateway's own.
    for (name, resource, seen) in &setup.upstreams {
        let seen = seen.lock().unwrap().clone();
        assert!(!seen.is_empty(), "{name} received requests");
        let mut subjects = std::collections::BTreeSet::new();
        for header in &seen {
            let token = header.strip_prefix("Bearer ").expect("a bearer token");
            assert!(
                token != a_token && token != b_token,
                "{name} received a caller's token"
            );
            let claims = claims(token);
            assert_eq!(claims["aud"], json!(resource), "{name}: {claims}");
            let subject = claims["sub"].as_str().expect("a subject").to_owned();
            if subject != issuer::GATEWAY_CLIENT.0 {
                assert_eq!(
                    claims["act"],
                    json!({"sub": issuer::GATEWAY_CLIENT.0}),
                    "{claims}"
                );
            }
            subjects.insert(subject);
        }
        let expected: &[&str] = if *name == "refused" {
            &[issuer::GATEWAY_CLIENT.0]
        } else {
            // Sorted: toolmodel-gateway, toolmodel-other (B), toolmodel-test (A).
            &[issuer::GATEWAY_CLIENT.0, b_id, a_id]
        };
        assert_eq!(subjects.into_iter().collect::<Vec<_>>(), expected, "{name}");
    }
    a.cancel().await.unwrap();
    b.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_first_calls_of_a_user_share_one_exchange() {
    let Some(setup) = setup().await else { return };
    // Eight clients of each of A and B (each client's calls handled concurrently).
    let mut clients = Vec::new();
    for user in [issuer::CLIENT, issuer::OTHER_CLIENT] {
        let token = setup
            .issuer
            .token_for(user, &setup.gateway, "notes:read")
            .await;
        for _ in 0..8 {
            let client = connect(&setup.gateway, token.clone(), (), false).await;
            clients.push((user.0, client));
        }
    }
    // Their first calls of `notes`, all at once.
    let calls = clients.iter().map(|(_, client)| whoami(client, "notes"));
    let results = futures_util::future::join_all(calls).await;
    let (_, notes, _) = &setup.upstreams[0];
    for ((subject, _), result) in clients.iter().zip(&results) {
        assert_ne!(result.is_error, Some(true), "{result:?}");
        let expected = format!("subject {subject}, client {}", issuer::GATEWAY_CLIENT.0);
        assert!(text(result).starts_with(&expected), "{}", text(result));
    }
    for user in [issuer::CLIENT, issuer::OTHER_CLIENT] {
        assert_eq!(
            setup.issuer.exchanges(user.0, notes).await,
            1,
            "one exchange for {}'s 8 calls",
            user.0
        );
    }
    for (_, client) in clients {
        client.cancel().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_exchange_and_an_unreachable_issuer_are_tool_errors_at_once() {
    let Some(setup) = setup().await else { return };
    let token = setup
        .issuer
        .token_for(issuer::CLIENT, &setup.gateway, "notes:read")
        .await;
    let a = connect(&setup.gateway, token, (), false).await;
    let started = Instant::now();
    let refused = whoami(&a, "refused").await;
    assert_eq!(refused.is_error, Some(true), "{refused:?}");
    assert!(
        text(&refused).starts_with("server \"refused\": the authorization server refused the token exchange: invalid_target"),
        "{}",
        text(&refused)
    );
    // The issuer gone (the gateway still knows the caller's token), a new exchange fails.
    let Setup { issuer, .. } = setup;
    drop(issuer);
    let unreachable = whoami(&a, "notes").await;
    assert_eq!(unreachable.is_error, Some(true), "{unreachable:?}");
    assert!(
        text(&unreachable).starts_with(
            "server \"notes\": the authorization server could not be reached for the token exchange"
        ),
        "{}",
        text(&unreachable)
    );
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    a.cancel().await.unwrap();
}
