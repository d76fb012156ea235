//! Authorization (MCP, "Authorization") against a real authorization server: `oidc-provider`
//! started by `serve/auth/provider.mjs` on loopback. Each test skips with a notice when the
//! provider cannot start, and fails under `CI`.

use std::{
    net::SocketAddr,
    time::{Duration, Instant},
};

use serde::Deserialize;
use serde_json::Map;
use serde_json::{Value, json};
use toolmodel::{
    CallContext, CallToolResult, NoArguments, SyncToolHandler, Tool, ToolError, ToolHandler,
    ToolSchema, Toolbox,
    input::{ElicitRequest, InputRequest, InputRequests},
    schemars::{self, JsonSchema},
};
use toolmodel_rmcp::{ToolboxServer, auth::ResourceServer};
use toolmodel_test_support::issuer::{self, Issuer};

use crate::support::{
    issuer_front::Front,
    raw_http::{self, Reply, initialize_body, raw},
};

/// Writes a note (needs `notes:write`).
#[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
#[tool(scopes("notes:write"))]
struct WriteNote {
    text: String,
}

impl SyncToolHandler for WriteNote {
    type Reply = String;
    fn call_sync(&self, args: WriteNote, _cx: &CallContext) -> Result<String, ToolError> {
        Ok(format!("noted: {}", args.text))
    }
}

/// Says who calls: the caller the server verified.
#[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
struct WhoAmI {}

impl SyncToolHandler for WhoAmI {
    type Reply = String;
    fn call_sync(&self, _args: WhoAmI, cx: &CallContext) -> Result<String, ToolError> {
        let caller = cx.caller().ok_or_else(|| ToolError::new("no caller"))?;
        Ok(json!({
            "iss": caller.issuer(),
            "sub": caller.subject(),
            "client_id": caller.client_id(),
            "scopes": caller.scopes().collect::<Vec<_>>(),
        })
        .to_string())
    }
}

/// Asks the client for a name (an elicitation), then greets it.
async fn ask(_args: Map<String, Value>, cx: CallContext) -> Result<CallToolResult, ToolError> {
    let request = InputRequest::Elicit(ElicitRequest::form(
        "Your name?",
        json!({"type": "object", "properties": {"name": {"type": "string"}}}),
    ));
    cx.input(InputRequests::new().with("name", request)).await?;
    Ok(CallToolResult::text("thanks"))
}

/// Runs until cancelled; a task for a client that declares tasks.
#[derive(Default, toolmodel::Tool)]
#[tool(task_support = "optional")]
struct Linger;

impl ToolHandler for Linger {
    type Reply = &'static str;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<&'static str, ToolError> {
        cx.cancelled().await;
        Err(ToolError::Cancelled)
    }
}

/// A server of `write_note`, `who_am_i`, `ask` and `linger` on a free loopback port, protected by `issuer`
/// (`configure` adds to the [`ResourceServer`]); its address and resource URI.
async fn protected(
    issuer: &str,
    configure: impl FnOnce(ResourceServer) -> ResourceServer,
) -> (SocketAddr, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let auth = configure(ResourceServer::new(issuer, &resource).unwrap());
    let toolbox = Toolbox::builder()
        .with(WriteNote::default())
        .with(WhoAmI::default())
        .with_tool(Tool::new("ask", ToolSchema::empty_object()), ask)
        .with(Linger)
        .build()
        .unwrap();
    let server = ToolboxServer::new(toolbox).with_authorization(auth);
    tokio::spawn(server.serve_http(listener).into_future());
    (addr, resource)
}

/// The head of a `POST /mcp` with `extra` header lines (each ending in `\r\n` but the last).
fn post(addr: SocketAddr, target: &str, extra: &str) -> String {
    let mut head = format!(
        "POST {target} HTTP/1.1\r\nHost: {addr}\r\nContent-Type: application/json\r\n\
         Accept: application/json, text/event-stream"
    );
    if !extra.is_empty() {
        head.push_str("\r\n");
        head.push_str(extra);
    }
    head
}

/// An `initialize` with `token` (none: no `Authorization` header).
async fn initialize(addr: SocketAddr, token: Option<&str>) -> Reply {
    let auth = token
        .map(|t| format!("Authorization: Bearer {t}"))
        .unwrap_or_default();
    raw(addr, &post(addr, "/mcp", &auth), &initialize_body()).await
}

/// A stateless-style `tools/call` of `name` under MCP 2026-07-28 headers (`Mcp-Method`,
/// `Mcp-Name`) with `token`.
pub(crate) async fn call_2026(
    addr: SocketAddr,
    token: &str,
    name: &str,
    arguments: Value,
) -> Reply {
    retry_2026(addr, token, name, arguments, json!({})).await
}

/// [`call_2026`] with `more` params (`inputResponses`, `requestState`).
async fn retry_2026(
    addr: SocketAddr,
    token: &str,
    name: &str,
    arguments: Value,
    more: Value,
) -> Reply {
    let mut params = json!({"name": name, "arguments": arguments});
    params
        .as_object_mut()
        .unwrap()
        .extend(more.as_object().cloned().unwrap_or_default());
    let capabilities = json!({"elicitation": {"form": {}}});
    request_2026(addr, token, "tools/call", params, capabilities).await
}

/// A request `method` with `params` under MCP 2026-07-28 (its `_meta`, `Mcp-Method`, and
/// `Mcp-Name` from the tool's `name` or the `taskId` in `params`) with `token`, from a client
/// of `capabilities`.
pub(crate) async fn request_2026(
    addr: SocketAddr,
    token: &str,
    method: &str,
    mut params: Value,
    capabilities: Value,
) -> Reply {
    let meta = json!({
        "io.modelcontextprotocol/protocolVersion": "2026-07-28",
        "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
        "io.modelcontextprotocol/clientCapabilities": capabilities});
    params
        .as_object_mut()
        .unwrap()
        .insert("_meta".to_owned(), meta);
    let mut extra = format!(
        "Authorization: Bearer {token}\r\nMcp-Protocol-Version: 2026-07-28\r\nMcp-Method: {method}"
    );
    if let Some(name) = params["name"].as_str().or(params["taskId"].as_str()) {
        extra.push_str(&format!("\r\nMcp-Name: {name}"));
    }
    let body = json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": params});
    raw(addr, &post(addr, "/mcp", &extra), &body.to_string()).await
}

/// A session made with `token` (MCP 2025-11-25); its id.
async fn session(addr: SocketAddr, token: &str) -> String {
    let reply = initialize(addr, Some(token)).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let id = reply.header("mcp-session-id").unwrap().to_owned();
    let initialized = json!({"jsonrpc": "2.0", "method": "notifications/initialized"});
    let reply = in_session(addr, token, &id, &initialized).await;
    assert_eq!(reply.status, 202, "{reply:?}");
    id
}

/// `message` in session `id` with `token` (MCP 2025-11-25: no `Mcp-Name`).
async fn in_session(addr: SocketAddr, token: &str, id: &str, message: &Value) -> Reply {
    let extra = format!(
        "Authorization: Bearer {token}\r\nMcp-Session-Id: {id}\r\nMcp-Protocol-Version: 2025-11-25"
    );
    raw(addr, &post(addr, "/mcp", &extra), &message.to_string()).await
}

fn call(name: &str, arguments: Value) -> Value {
    json!({"jsonrpc": "2.0", "id": 2, "method": "tools/call",
        "params": {"name": name, "arguments": arguments}})
}

/// The `WWW-Authenticate` of `reply`.
pub(crate) fn challenge(reply: &Reply) -> &str {
    reply
        .header("www-authenticate")
        .unwrap_or_else(|| panic!("no challenge: {reply:?}"))
}

fn metadata_url(addr: SocketAddr) -> String {
    format!("http://{addr}/.well-known/oauth-protected-resource/mcp")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_good_token_is_served_and_the_handler_knows_who_calls() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let (addr, resource) = protected(&issuer.url, |auth| auth).await;
    let token = issuer.token(&resource, "notes:read notes:write").await;
    let id = session(addr, &token).await;
    let reply = in_session(addr, &token, &id, &call("who_am_i", json!({}))).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let text = reply.json()["result"]["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_owned();
    let who: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(
        who,
        json!({"iss": issuer.url, "sub": "toolmodel-test", "client_id": "toolmodel-test",
            "scopes": ["notes:read", "notes:write"]})
    );
    let reply = in_session(
        addr,
        &token,
        &id,
        &call("write_note", json!({"text": "hi"})),
    )
    .await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(reply.json()["result"]["content"][0]["text"], "noted: hi");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_without_a_token_gets_401_with_the_resource_metadata() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let (addr, _) = protected(&issuer.url, |auth| auth.with_scopes(["notes:read"])).await;
    let reply = initialize(addr, None).await;
    assert_eq!(reply.status, 401, "{reply:?}");
    assert_eq!(
        challenge(&reply),
        format!(
            "Bearer scope=\"notes:read\", resource_metadata=\"{}\"",
            metadata_url(addr)
        )
    );
    // A token in the query string is not looked at (MCP, "Access Token Usage").
    let resource = format!("http://{addr}/mcp");
    let token = issuer.token(&resource, "notes:read").await;
    let target = format!("/mcp?access_token={token}");
    let reply = raw(addr, &post(addr, &target, ""), &initialize_body()).await;
    assert_eq!(reply.status, 401, "{reply:?}");
    assert!(!challenge(&reply).contains("error="), "{reply:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_tokens_get_401_invalid_token_and_never_echo_the_token() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let (addr, resource) = protected(&issuer.url, |auth| auth).await;
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let other = format!("http://{addr}/other");
    let cases = [
        (
            "wrong audience",
            issuer.token("http://127.0.0.1:1/mcp", "notes:read").await,
            "another resource",
        ),
        (
            "token for another resource of this host",
            issuer.token(&other, "notes:read").await,
            "another resource",
        ),
        (
            "no audience",
            issuer.forge("issuer", json!({"aud": null})).await,
            "lacks a required claim",
        ),
        (
            "expired",
            issuer
                .forge("issuer", json!({"aud": resource, "exp": now - 120}))
                .await,
            "expired",
        ),
        (
            "not yet valid",
            issuer
                .forge("issuer", json!({"aud": resource, "nbf": now + 600}))
                .await,
            "not valid yet",
        ),
        (
            "unknown kid",
            issuer.forge("rogue", json!({"aud": resource})).await,
            "unknown key",
        ),
        (
            "wrong issuer",
            issuer
                .forge(
                    "issuer",
                    json!({"aud": resource, "iss": "http://127.0.0.1:1"}),
                )
                .await,
            "another issuer",
        ),
        (
            "alg none",
            issuer.forge("none", json!({"aud": resource})).await,
            "no JWT with a known signature algorithm",
        ),
        (
            "HS256 signed with the public key",
            issuer.forge("hs256-public", json!({"aud": resource})).await,
            "algorithm is not accepted",
        ),
        (
            "not a JWT",
            "opaque-but-no-introspection".to_owned(),
            "no JWT",
        ),
    ];
    for (case, token, why) in &cases {
        let reply = initialize(addr, Some(token)).await;
        assert_eq!(reply.status, 401, "{case}: {reply:?}");
        let challenge = challenge(&reply);
        assert!(
            challenge.starts_with("Bearer error=\"invalid_token\""),
            "{case}: {challenge}"
        );
        assert!(challenge.contains(why), "{case}: {challenge}");
        assert!(
            challenge.contains(&format!("resource_metadata=\"{}\"", metadata_url(addr))),
            "{case}: {challenge}"
        );
        assert!(!challenge.contains(token.as_str()) && !reply.body.contains(token.as_str()));
    }
    for (case, header) in [
        ("empty bearer", "Authorization: Bearer "),
        ("bad characters", "Authorization: Bearer a\"b"),
        (
            "two headers",
            "Authorization: Bearer a\r\nAuthorization: Bearer b",
        ),
    ] {
        let reply = raw(addr, &post(addr, "/mcp", header), &initialize_body()).await;
        assert_eq!(reply.status, 401, "{case}: {reply:?}");
        assert!(
            challenge(&reply).contains("error=\"invalid_token\""),
            "{case}"
        );
    }
}

/// The `WWW-Authenticate` of `initialize` with `token`: a 401 with `invalid_token`.
async fn refusal(addr: SocketAddr, token: &str) -> String {
    let reply = initialize(addr, Some(token)).await;
    assert_eq!(reply.status, 401, "{reply:?}");
    let challenge = challenge(&reply).to_owned();
    assert!(challenge.contains("error=\"invalid_token\""), "{challenge}");
    challenge
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jwt_not_typed_as_an_access_token_is_refused_unless_its_typ_is_accepted() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let (addr, resource) = protected(&issuer.url, |auth| auth).await;
    let typed = |typ: Value| {
        let claims = json!({"aud": resource});
        issuer.forge_with_header("issuer", json!({"typ": typ}), claims)
    };
    // An ID token's `typ`, and none at all (RFC 9068 §2.1: `at+jwt` is required).
    let jwt = typed(json!("JWT")).await;
    let untyped = typed(Value::Null).await;
    for token in [&jwt, &untyped] {
        let challenge = refusal(addr, token).await;
        assert!(challenge.contains("typ is not at+jwt"), "{challenge}");
    }
    // A media type, compared case-insensitively (RFC 7515 §4.1.9).
    let long_form = typed(json!("Application/AT+JWT")).await;
    assert_eq!(initialize(addr, Some(&long_form)).await.status, 200);
    // The opt-ins, for an issuer that does not type its access tokens.
    let (relaxed, resource) = protected(&issuer.url, |auth| {
        auth.with_typ_accepted("JWT")
            .unwrap()
            .with_missing_typ_accepted()
    })
    .await;
    for typ in [json!("JWT"), Value::Null, json!("at+jwt")] {
        let token = issuer
            .forge_with_header("issuer", json!({"typ": typ}), json!({"aud": resource}))
            .await;
        let reply = initialize(relaxed, Some(&token)).await;
        assert_eq!(reply.status, 200, "typ {typ}: {reply:?}");
    }
    let logout = issuer
        .forge_with_header(
            "issuer",
            json!({"typ": "logout+jwt"}),
            json!({"aud": resource}),
        )
        .await;
    let challenge = refusal(relaxed, &logout).await;
    assert!(challenge.contains("typ is not at+jwt"), "{challenge}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jwt_without_sub_is_refused_and_its_client_is_never_the_subject() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let (addr, resource) = protected(&issuer.url, |auth| auth).await;
    // A client whose client_id is a user's subject, without `sub` (RFC 9068 §2.2: required).
    let token = issuer
        .forge(
            "issuer",
            json!({"aud": resource, "sub": null, "client_id": "forged-user"}),
        )
        .await;
    let challenge = refusal(addr, &token).await;
    assert!(
        challenge.contains("lacks a required claim: sub"),
        "{challenge}"
    );
    let azp = json!({"aud": resource, "sub": null, "client_id": null, "azp": "forged-user"});
    let challenge = refusal(addr, &issuer.forge("issuer", azp).await).await;
    assert!(
        challenge.contains("lacks a required claim: sub"),
        "{challenge}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_missing_scope_gets_403_naming_every_scope_the_call_needs() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let (addr, resource) = protected(&issuer.url, |auth| auth.with_scopes(["notes:read"])).await;
    let reader = issuer.token(&resource, "notes:read").await;
    let expected = format!(
        "Bearer error=\"insufficient_scope\", error_description=\"the call needs scopes the \
         token does not grant\", scope=\"notes:read notes:write\", resource_metadata=\"{}\"",
        metadata_url(addr)
    );
    // MCP 2025-11-25: decided from the body, before rmcp answers.
    let id = session(addr, &reader).await;
    let reply = in_session(
        addr,
        &reader,
        &id,
        &call("write_note", json!({"text": "x"})),
    )
    .await;
    assert_eq!(reply.status, 403, "{reply:?}");
    assert_eq!(challenge(&reply), expected);
    let reply = in_session(addr, &reader, &id, &call("who_am_i", json!({}))).await;
    assert_eq!(
        reply.status, 200,
        "a tool without scopes of its own: {reply:?}"
    );
    // MCP 2026-07-28: decided from Mcp-Name, before the body.
    let reply = call_2026(addr, &reader, "write_note", json!({"text": "x"})).await;
    assert_eq!(reply.status, 403, "{reply:?}");
    assert_eq!(challenge(&reply), expected);
    let writer = issuer.token(&resource, "notes:read notes:write").await;
    let reply = call_2026(addr, &writer, "write_note", json!({"text": "x"})).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    // The server's own scope is needed by every request.
    let none = issuer.token(&resource, "notes:write").await;
    let reply = initialize(addr, Some(&none)).await;
    assert_eq!(reply.status, 403, "{reply:?}");
    assert!(
        challenge(&reply).contains("scope=\"notes:read\""),
        "{reply:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_resource_metadata_is_served_at_both_well_known_uris() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let (addr, resource) = protected(&issuer.url, |auth| auth.with_scopes(["notes:read"])).await;
    for path in [
        "/.well-known/oauth-protected-resource/mcp",
        "/.well-known/oauth-protected-resource",
    ] {
        let head = format!("GET {path} HTTP/1.1\r\nHost: {addr}\r\nOrigin: http://localhost:6274");
        let reply = raw(addr, &head, "").await;
        assert_eq!(reply.status, 200, "{path}: {reply:?}");
        assert_eq!(
            reply.json(),
            json!({"resource": resource, "authorization_servers": [issuer.url],
                "scopes_supported": ["notes:read", "notes:write"],
                "bearer_methods_supported": ["header"]})
        );
        assert_eq!(
            reply.header("access-control-allow-origin"),
            Some("http://localhost:6274"),
            "readable cross-origin"
        );
    }
    let head = format!(
        "GET /.well-known/oauth-protected-resource HTTP/1.1\r\nHost: {addr}\r\nOrigin: https://evil.example"
    );
    assert_eq!(raw(addr, &head, "").await.status, 403, "a foreign origin");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_rotated_at_the_issuer_is_picked_up_without_a_restart() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let (addr, resource) = protected(&issuer.url, |auth| {
        auth.with_key_refetch_interval(Duration::from_millis(100))
    })
    .await;
    let old = issuer.token(&resource, "notes:read").await;
    assert_eq!(initialize(addr, Some(&old)).await.status, 200);
    let issuer = issuer.restart().await;
    tokio::time::sleep(Duration::from_millis(150)).await;
    let new = issuer.token(&resource, "notes:read").await;
    let reply = initialize(addr, Some(&new)).await;
    assert_eq!(reply.status, 200, "{reply:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unreachable_issuer_lets_nothing_through() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let (good, resource) = protected(&issuer.url, |auth| auth).await;
    let token = issuer.token(&resource, "notes:read").await;
    let url = issuer.url.clone();
    drop(issuer);
    tokio::time::sleep(Duration::from_millis(200)).await;
    // A fresh server that never reached the issuer: 503, the call not made.
    let (addr, _) = protected(&url, |auth| auth.with_http_timeout(Duration::from_secs(1))).await;
    let _ = good;
    let reply = initialize(addr, Some(&token)).await;
    assert_eq!(reply.status, 503, "{reply:?}");
    assert!(reply.header("mcp-session-id").is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_opaque_token_is_introspected() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    // provider.mjs issues opaque tokens for resources whose path ends in /opaque.
    let resource = format!("http://{addr}/opaque");
    let auth = ResourceServer::new(&issuer.url, &resource)
        .unwrap()
        .with_introspection(issuer::SERVER_CLIENT.0, issuer::SERVER_CLIENT.1);
    let toolbox = Toolbox::builder().with(WhoAmI::default()).build().unwrap();
    let service = ToolboxServer::new(toolbox).with_authorization(auth);
    tokio::spawn(service.serve_http(listener).into_future());
    let token = issuer.token(&resource, "notes:read").await;
    assert!(!token.contains('.'), "an opaque token: {token}");
    let reply = initialize(addr, Some(&token)).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let reply = initialize(addr, Some("not-a-token-the-issuer-made")).await;
    assert_eq!(reply.status, 401, "{reply:?}");
    assert!(challenge(&reply).contains("error=\"invalid_token\""));
}

/// A protected server (kept running with the issuer) and a token for each of two callers of
/// it, Alice and Mallory (another client, so another subject); `None` when the provider cannot
/// start.
async fn alice_and_mallory() -> Option<(Issuer, SocketAddr, String, String)> {
    let issuer = Issuer::start(0).await?;
    let (addr, resource) = protected(&issuer.url, |auth| auth).await;
    let alice = issuer.token(&resource, "notes:read").await;
    let mallory = issuer
        .token_for(issuer::OTHER_CLIENT, &resource, "notes:read")
        .await;
    Some((issuer, addr, alice, mallory))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn another_callers_session_or_request_state_is_refused() {
    let Some((_issuer, addr, alice, mallory)) = alice_and_mallory().await else {
        return;
    };
    // MCP 2025-11-25: Alice's session with Mallory's token is not found; Alice keeps it.
    let id = session(addr, &alice).await;
    let reply = in_session(addr, &mallory, &id, &call("who_am_i", json!({}))).await;
    assert_eq!(reply.status, 404, "{reply:?}");
    let reply = in_session(addr, &alice, &id, &call("who_am_i", json!({}))).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    // MCP 2026-07-28: Alice's requestState with Mallory's token fails verification.
    let reply = call_2026(addr, &alice, "ask", json!({})).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    let result = reply.json()["result"].clone();
    assert_eq!(result["resultType"], "input_required", "{result}");
    let state = result["requestState"].as_str().unwrap().to_owned();
    let answers = json!({"inputResponses": {"name": {"action": "accept", "content": {"name": "A"}}},
        "requestState": state});
    let reply = retry_2026(addr, &mallory, "ask", json!({}), answers.clone()).await;
    let message = reply.json();
    assert_eq!(message["error"]["code"], -32602, "{message}");
    assert!(
        message["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another caller")
    );
    let reply = retry_2026(addr, &alice, "ask", json!({}), answers).await;
    assert_eq!(
        reply.json()["result"]["content"][0]["text"],
        "thanks",
        "{reply:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_is_unknown_to_every_caller_but_the_one_that_created_it() {
    let Some((_issuer, addr, alice, mallory)) = alice_and_mallory().await else {
        return;
    };
    let tasks = json!({"extensions": {"io.modelcontextprotocol/tasks": {}}});
    let call = json!({"name": "linger", "arguments": {}});
    let reply = request_2026(addr, &alice, "tools/call", call, tasks.clone()).await;
    let created = reply.json()["result"].clone();
    assert_eq!(created["resultType"], "task", "{reply:?}");
    let id = created["taskId"].as_str().unwrap().to_owned();
    // Mallory gets for Alice's task exactly what she gets for a task that does not exist.
    for task_id in [id.as_str(), "no-such-task"] {
        let task = json!({"taskId": task_id});
        let update = json!({"taskId": task_id, "inputResponses": {}});
        for (method, params) in [
            ("tasks/get", task.clone()),
            ("tasks/update", update),
            ("tasks/cancel", task),
        ] {
            let message = request_2026(addr, &mallory, method, params, tasks.clone())
                .await
                .json();
            assert_eq!(message["error"]["code"], -32602, "{method}: {message}");
            assert_eq!(
                message["error"]["message"],
                format!("unknown task: {task_id}"),
                "{method}: {message}"
            );
        }
    }
    // Alice's task is untouched (still working, not cancelled) and hers to cancel.
    let task = json!({"taskId": id});
    let message = request_2026(addr, &alice, "tasks/get", task.clone(), tasks.clone())
        .await
        .json();
    assert_eq!(message["result"]["status"], "working", "{message}");
    let message = request_2026(addr, &alice, "tasks/cancel", task, tasks)
        .await
        .json();
    assert!(message["result"].is_object(), "{message}");
}

/// A server of `linger` and `who` (no scope needed) protected by `issuer`, with `limits`:
/// the server (to replace its toolbox), its address and resource URI.
async fn protected_with(
    issuer: &str,
    limits: toolmodel_rmcp::server::HttpLimits,
) -> (ToolboxServer, SocketAddr, String) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let resource = format!("http://{addr}/mcp");
    let server = ToolboxServer::new(who_toolbox(&[]))
        .with_authorization(ResourceServer::new(issuer, &resource).unwrap())
        .with_limits(limits);
    tokio::spawn(server.clone().serve_http(listener).into_future());
    (server, addr, resource)
}

/// A toolbox of `linger` and `who`, which needs `scopes`.
fn who_toolbox(scopes: &[&str]) -> Toolbox {
    let mut who = Tool::new("who", ToolSchema::empty_object());
    who.required_scopes = scopes.iter().map(|scope| (*scope).to_owned()).collect();
    Toolbox::builder()
        .with(Linger)
        .with_tool(who, |_args, cx| async move {
            let caller = cx.caller().map(|caller| caller.subject().to_owned());
            Ok(CallToolResult::text(caller.unwrap_or_default()))
        })
        .build()
        .unwrap()
}

/// The security review's finding: `max_calls_per_session` bounds no MCP 2026-07-28 request
/// (they name no session), so 100 concurrent calls of one caller were all served against a
/// limit of 64. Now each verified caller has `max_calls_per_caller` (64) in flight at most,
/// whatever connections it uses, and another caller is not held up.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callers_sessionless_requests_in_flight_are_bounded() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let limits = toolmodel_rmcp::server::HttpLimits::default();
    let max = limits.max_calls_per_session;
    let (_server, addr, resource) = protected_with(&issuer.url, limits).await;
    let alice = issuer.token(&resource, "notes:read").await;
    let mallory = issuer
        .token_for(issuer::OTHER_CLIENT, &resource, "notes:read")
        .await;
    // As many calls as the default limit allows (64, the same as a session's), each on its
    // own connection, that run until their client goes.
    let lingering: Vec<_> = (0..max)
        .map(|_| {
            let alice = alice.clone();
            tokio::spawn(async move { call_2026(addr, &alice, "linger", json!({})).await })
        })
        .collect();
    let mut refused = None;
    // Until all of them are in flight, one more is served: on a loaded machine (the whole
    // suite at once) that can take seconds; the loop ends at the first refusal.
    for _ in 0..500 {
        tokio::time::sleep(Duration::from_millis(20)).await;
        let reply = call_2026(addr, &alice, "who", json!({})).await;
        if reply.status == 429 {
            refused = Some(reply);
            break;
        }
    }
    let refused = refused.expect("one call more of the same caller is refused");
    assert_eq!(refused.header("retry-after"), Some("1"), "{refused:?}");
    assert!(refused.body.contains("max_calls_per_caller"), "{refused:?}");
    // Another caller is served meanwhile.
    let reply = call_2026(addr, &mallory, "who", json!({})).await;
    assert_eq!(
        reply.json()["result"]["content"][0]["text"],
        issuer::OTHER_CLIENT.0,
        "{reply:?}"
    );
    // Once Alice's calls end (their connections closed), she is served again.
    for task in lingering {
        task.abort();
    }
    let mut served = false;
    for _ in 0..100 {
        let reply = call_2026(addr, &alice, "who", json!({})).await;
        if reply.status == 200 {
            served = true;
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(served, "Alice's places free when her calls end");
}

/// Found by reading in the security review: the front took the toolbox it checks a body's
/// tool scopes against before reading the body, so a tool whose scopes were raised while the
/// body arrived was checked against its old scopes, and run. Now the body is checked against
/// the toolbox served once it is in, and the call runs on that toolbox.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn scopes_raised_while_a_body_arrives_are_the_ones_checked() {
    use tokio::io::AsyncWriteExt as _;
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let limits = toolmodel_rmcp::server::HttpLimits::default();
    let (server, addr, resource) = protected_with(&issuer.url, limits).await;
    let token = issuer.token(&resource, "notes:read").await;
    let body = json!({"jsonrpc": "2.0", "id": 1, "method": "tools/call", "params": {
        "name": "who", "arguments": {}, "_meta": {
            "io.modelcontextprotocol/protocolVersion": "2026-07-28",
            "io.modelcontextprotocol/clientInfo": {"name": "t", "version": "0"},
            "io.modelcontextprotocol/clientCapabilities": {}}}})
    .to_string();
    let head = post(
        addr,
        "/mcp",
        &format!(
            "Authorization: Bearer {token}\r\nMcp-Protocol-Version: 2026-07-28\r\n\
             Mcp-Method: tools/call\r\nMcp-Name: who"
        ),
    );
    let mut stream = tokio::net::TcpStream::connect(addr).await.unwrap();
    let (first, rest) = body.split_at(body.len() / 2);
    let start = format!(
        "{head}\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{first}",
        body.len()
    );
    stream.write_all(start.as_bytes()).await.unwrap();
    // The head passed the gate (`who` needed no scope then); the body is half in.
    tokio::time::sleep(Duration::from_millis(300)).await;
    server.set_toolbox(who_toolbox(&["notes:write"]));
    stream.write_all(rest.as_bytes()).await.unwrap();
    let reply = raw_http::read_reply(&mut stream).await;
    assert_eq!(reply.status, 403, "{reply:?}");
    assert!(
        challenge(&reply).contains("insufficient_scope")
            && challenge(&reply).contains("notes:write"),
        "{reply:?}"
    );
}

/// How long the slow JWKS endpoint of the key tests takes to answer.
const SLOW_KEYS: Duration = Duration::from_secs(2);

/// A [`Front`] serving the keys of `issuer`, a server it protects with a refetch interval of
/// 300 ms, its first key fetch done (by a token signed with a known key); then the front's
/// keys turn slow ([`SLOW_KEYS`]) and the interval passes. The front, the server's address,
/// and the claims of a token for it.
async fn slow_keys(issuer: &Issuer) -> (Front, SocketAddr, Value) {
    let front = Front::start(Some(issuer)).await;
    let interval = Duration::from_millis(300);
    let (addr, resource) =
        protected(&front.url, |auth| auth.with_key_refetch_interval(interval)).await;
    let claims = json!({"iss": front.url, "aud": resource});
    let known = issuer.forge("issuer", claims.clone()).await;
    let reply = initialize(addr, Some(&known)).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(front.jwks_requests(), 1);
    front.set_jwks_delay(SLOW_KEYS);
    tokio::time::sleep(interval + Duration::from_millis(50)).await;
    (front, addr, claims)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_signed_with_a_known_key_does_not_wait_for_a_slow_key_fetch() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let (front, addr, claims) = slow_keys(&issuer).await;
    let unknown = issuer.forge("rogue", claims.clone()).await;
    let refetching = tokio::spawn(async move { initialize(addr, Some(&unknown)).await });
    front.until_jwks_requests(2).await;
    // Another token (not in the token cache) signed with the known key, while the fetch the
    // unknown kid caused is in flight.
    let known = issuer.forge("issuer", claims).await;
    let started = Instant::now();
    let reply = initialize(addr, Some(&known)).await;
    let elapsed = started.elapsed();
    assert_eq!(reply.status, 200, "{reply:?}");
    assert!(
        elapsed < SLOW_KEYS / 4,
        "a token signed with a known key waited {elapsed:?} for a key fetch of {SLOW_KEYS:?}"
    );
    let reply = refetching.await.unwrap();
    assert_eq!(reply.status, 401, "{reply:?}");
    assert!(challenge(&reply).contains("unknown key"), "{reply:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_tokens_with_unknown_kids_cause_one_key_fetch() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let (front, addr, claims) = slow_keys(&issuer).await;
    let mut requests = tokio::task::JoinSet::new();
    for _ in 0..8 {
        let unknown = issuer.forge("rogue", claims.clone()).await;
        requests.spawn(async move { initialize(addr, Some(&unknown)).await });
    }
    let started = Instant::now();
    while let Some(reply) = requests.join_next().await {
        let reply = reply.unwrap();
        assert_eq!(reply.status, 401, "{reply:?}");
        assert!(challenge(&reply).contains("unknown key"), "{reply:?}");
    }
    assert_eq!(
        front.jwks_requests(),
        2,
        "8 unknown kids at once: one fetch after the first, in {:?}",
        started.elapsed()
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jwt_is_verified_right_after_an_opaque_token_made_the_discovery() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let front = Front::start(Some(&issuer)).await;
    let (addr, resource) = protected(&front.url, |auth| {
        auth.with_introspection(issuer::SERVER_CLIENT.0, issuer::SERVER_CLIENT.1)
    })
    .await;
    let challenge = refusal(addr, "opaque-and-inactive").await;
    assert!(challenge.contains("not active"), "{challenge}");
    // The discovery did not use up the key fetch: the keys are fetched at once.
    let token = issuer
        .forge("issuer", json!({"iss": front.url, "aud": resource}))
        .await;
    let reply = initialize(addr, Some(&token)).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(front.jwks_requests(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_jwks_uri_over_plain_http_off_loopback_is_never_fetched() {
    let front = Front::start(None).await;
    // An IPv4-mapped address: no loopback host to the rule (`http` is allowed on `localhost`,
    // 127.0.0.0/8 and ::1 only), yet it reaches the front, so a fetch would be counted.
    let mapped = format!("http://[::ffff:127.0.0.1]:{}/jwks", front.port);
    let reached = reqwest::get(&mapped).await;
    assert!(
        reached.is_ok_and(|response| response.status() == 200),
        "the test needs dual-stack loopback: {mapped} unreachable"
    );
    assert_eq!(front.jwks_requests(), 1);
    front.set_jwks_uri(&mapped);
    // A JWT with the header {"alg":"ES256","typ":"at+jwt","kid":"k"}: it needs the keys.
    let token = "eyJhbGciOiJFUzI1NiIsInR5cCI6ImF0K2p3dCIsImtpZCI6ImsifQ.e30.c2ln";
    let (addr, _) = protected(&front.url, |auth| auth).await;
    let reply = initialize(addr, Some(token)).await;
    assert_eq!(reply.status, 503, "no keys to be had: {reply:?}");
    assert_eq!(front.jwks_requests(), 1, "{mapped} was fetched");
    // The same jwks_uri on a loopback host is fetched.
    front.set_jwks_uri(&format!("{}/jwks", front.url));
    let (addr, _) = protected(&front.url, |auth| auth).await;
    let reply = initialize(addr, Some(token)).await;
    assert!(challenge(&reply).contains("unknown key"), "{reply:?}");
    assert_eq!(front.jwks_requests(), 2);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_opaque_token_the_issuer_refused_is_not_introspected_again() {
    let front = Front::start(None).await;
    let (addr, _) = protected(&front.url, |auth| {
        auth.with_introspection(issuer::SERVER_CLIENT.0, issuer::SERVER_CLIENT.1)
    })
    .await;
    for _ in 0..50 {
        let challenge = refusal(addr, "not-a-token-the-issuer-made").await;
        assert!(challenge.contains("not active"), "{challenge}");
    }
    assert_eq!(front.introspection_requests(), 1, "introspection requests");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn introspection_requests_are_bounded_by_the_rate() {
    let front = Front::start(None).await;
    let rate = 10;
    let (addr, _) = protected(&front.url, |auth| {
        auth.with_introspection(issuer::SERVER_CLIENT.0, issuer::SERVER_CLIENT.1)
            .with_introspection_rate(rate)
            .unwrap()
    })
    .await;
    let started = Instant::now();
    let mut refused = 0;
    let mut unavailable = 0;
    for n in 0..100 {
        let reply = initialize(addr, Some(&format!("invalid-{n}"))).await;
        match reply.status {
            401 => refused += 1,
            503 => {
                assert!(reply.header("retry-after").is_some(), "{reply:?}");
                assert!(reply.body.contains("with_introspection_rate"), "{reply:?}");
                unavailable += 1;
            }
            _ => panic!("{reply:?}"),
        }
    }
    let elapsed = started.elapsed().as_secs_f64();
    let asked = front.introspection_requests();
    let bound = f64::from(rate) * (1.0 + elapsed);
    assert!(
        (asked as f64) <= bound,
        "{asked} introspection requests in {elapsed:.2} s at {rate} a second"
    );
    assert_eq!(refused, asked, "each introspected token is refused (401)");
    assert_eq!(unavailable, 100 - asked, "the others get 503");
}

/// With a shared session store, a session stays its user's on every replica: another user's
/// requests and `DELETE` with its id get 404 on a replica that never held it, as on the one
/// that made it; its own user is served on both.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_session_is_its_users_on_every_replica() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let store: std::sync::Arc<dyn toolmodel_rmcp::sessions::SessionStore> =
        std::sync::Arc::new(toolmodel_rmcp::sessions::MemorySessionStore::in_process_replicas());
    let mut replicas = Vec::new();
    let mut resource = None;
    for _ in 0..2 {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        // Both replicas are one resource (the balancer's address in production).
        let resource = resource
            .get_or_insert_with(|| format!("http://{addr}/mcp"))
            .clone();
        let server = ToolboxServer::new(who_toolbox(&[]))
            .with_authorization(ResourceServer::new(&issuer.url, &resource).unwrap())
            .with_session_store(std::sync::Arc::clone(&store));
        tokio::spawn(server.serve_http(listener).into_future());
        replicas.push(addr);
    }
    let resource = resource.unwrap();
    let (a, b) = (replicas[0], replicas[1]);
    let alice = issuer.token(&resource, "notes:read").await;
    let mallory = issuer
        .token_for(
            toolmodel_test_support::issuer::OTHER_CLIENT,
            &resource,
            "notes:read",
        )
        .await;
    let id = session(a, &alice).await;
    let who = call("who", json!({}));
    for addr in [b, a] {
        let reply = in_session(addr, &mallory, &id, &who).await;
        assert_eq!(reply.status, 404, "another user on {addr}: {reply:?}");
    }
    let delete = format!(
        "DELETE /mcp HTTP/1.1\r\nHost: {b}\r\nAuthorization: Bearer {mallory}\r\nMcp-Session-Id: {id}"
    );
    let reply = raw(b, &delete, "").await;
    assert_eq!(reply.status, 404, "another user's DELETE: {reply:?}");
    for addr in [b, a] {
        let reply = in_session(addr, &alice, &id, &who).await;
        assert_eq!(reply.status, 200, "its user on {addr}: {reply:?}");
    }
}
