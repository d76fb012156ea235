//! Each user's own tools: a gateway whose configuration has a `toolmodelPolicy`, behind the
//! test authorization server, its upstreams `ToolboxServer`s over Streamable HTTP on loopback.
//! Users whose tokens differ (a `groups` claim, another client, another subject) list
//! different tools in both protocol eras, are answered for the others exactly as for a tool
//! that does not exist, find only their own with tool search, and still get 403
//! `insufficient_scope` for a tool they may see whose `requiredScopes` their token lacks.

use std::net::SocketAddr;

use rmcp::{
    ServiceError,
    model::{CallToolRequestParams, ErrorData},
};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use toolmodel::Toolbox;
use toolmodel_rmcp::{
    Error, ToolboxServer,
    auth::ResourceServer,
    federation::{Federation, FederationConfig},
    server::{ToolPolicy, ToolSearch},
};
use toolmodel_test_support::issuer::{self, Issuer};

use crate::authorization::{call_2026, challenge, request_2026};
use crate::gateway_security::tools;
use crate::support::two_users::{connect, tool_names};

/// `toolbox` served over Streamable HTTP on a free loopback port; its address.
pub(crate) async fn upstream(toolbox: Toolbox) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let addr = listener.local_addr().expect("an address");
    tokio::spawn(
        ToolboxServer::new(toolbox)
            .serve_http(listener)
            .into_future(),
    );
    addr
}

/// Three upstreams (`notes`: `search`, `write`; `time`: `now`; `admin`: `reset`, which
/// needs `notes:write`) under a policy: `time` for everyone, `notes` for group `eng`,
/// `notes.search` for the other client, `admin` for subject `alice`.
async fn federation() -> Federation {
    let notes = upstream(tools("notes", &["search", "write"])).await;
    let time = upstream(tools("time", &["now"])).await;
    let admin = upstream(tools("admin", &["reset"])).await;
    let config = FederationConfig::from_json(&json!({
        "mcpServers": {
            "notes": {"url": format!("http://{notes}/mcp")},
            "time": {"url": format!("http://{time}/mcp")},
            "admin": {"url": format!("http://{admin}/mcp"), "requiredScopes": ["notes:write"]}
        },
        "toolmodelPolicy": {"rules": [
            {"allow": ["time.*"]},
            {"allow": ["notes.*"], "when": {"groups": ["eng"]}},
            {"allow": ["notes.search"], "when": {"client_id": [issuer::OTHER_CLIENT.0]}},
            {"allow": ["admin.*"], "when": {"sub": ["alice"]}}
        ]}
    }))
    .expect("the configuration reads");
    Federation::start(config)
        .await
        .expect("the federation starts")
}

/// `server` (a gateway) behind `issuer` on a free loopback port; its address and URL.
async fn serve(issuer: &Issuer, server: ToolboxServer) -> (SocketAddr, String) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let addr = listener.local_addr().expect("an address");
    let url = format!("http://{addr}/mcp");
    let server =
        server.with_authorization(ResourceServer::new(&issuer.url, &url).expect("authorization"));
    tokio::spawn(server.serve_http(listener).into_future());
    (addr, url)
}

/// The tokens of the three users: Bob of group `eng`, the other client, and Alice; each
/// grants `notes:read` only.
async fn tokens(issuer: &Issuer, url: &str) -> [(&'static str, String); 3] {
    let bob = issuer
        .forge(
            "issuer",
            json!({"aud": url, "sub": "bob", "groups": ["eng"], "scope": "notes:read"}),
        )
        .await;
    let other = issuer
        .token_for(issuer::OTHER_CLIENT, url, "notes:read")
        .await;
    let alice = issuer
        .forge(
            "issuer",
            json!({"aud": url, "sub": "alice", "scope": "notes:read"}),
        )
        .await;
    [("bob", bob), ("other client", other), ("alice", alice)]
}

/// What each of [`tokens`]' users may see.
const SEEN: [&[&str]; 3] = [
    &["now", "search", "write"],
    &["now", "search"],
    &["now", "reset"],
];

/// The names of a JSON-RPC result's `tools`.
fn names(result: &Value) -> Vec<String> {
    result["tools"]
        .as_array()
        .unwrap_or_else(|| panic!("no tools: {result}"))
        .iter()
        .map(|tool| tool["name"].as_str().expect("a name").to_owned())
        .collect()
}

/// `error` with `name` written as `<tool>`: the shape of an unknown tool's error.
fn shape(error: &Value, name: &str) -> Value {
    json!({"code": error["code"], "message": error["message"].as_str().map(|m| m.replace(name, "<tool>"))})
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_user_lists_and_calls_only_its_own_tools_in_both_eras() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let federation = federation().await;
    let (addr, url) = serve(&issuer, ToolboxServer::gateway(&federation)).await;
    for ((who, token), seen) in tokens(&issuer, &url).await.iter().zip(SEEN) {
        // MCP 2026-07-28: a list that varies by caller is private.
        let reply = request_2026(addr, token, "tools/list", json!({}), json!({})).await;
        let result = &reply.json()["result"];
        assert_eq!(names(result), seen, "{who}: {reply:?}");
        assert_eq!(result["cacheScope"], "private", "{who}");
        // MCP 2025-11-25, through rmcp's client.
        let client = connect(&url, token.clone(), (), false).await;
        assert_eq!(tool_names(&client).await, seen, "{who}");
        // A tool not seen is answered as one that does not exist, in both eras.
        for hidden in ["search", "write", "reset"] {
            if seen.contains(&hidden) {
                continue;
            }
            let unknown = call_2026(addr, token, "delete", json!({})).await.json()["error"].clone();
            let refused = call_2026(addr, token, hidden, json!({})).await.json()["error"].clone();
            assert_eq!(unknown["code"], -32602, "{who}: {unknown}");
            assert_eq!(
                shape(&refused, hidden),
                shape(&unknown, "delete"),
                "{who} calls {hidden}"
            );
            let old = |name: &'static str| {
                let client = &client;
                async move {
                    match client
                        .call_tool(
                            CallToolRequestParams::new(name).with_arguments(Default::default()),
                        )
                        .await
                    {
                        Err(ServiceError::McpError(ErrorData { code, message, .. })) => {
                            json!({"code": code.0, "message": message})
                        }
                        other => panic!("{who} calls {name}: {other:?}"),
                    }
                }
            };
            assert_eq!(
                shape(&old(hidden).await, hidden),
                shape(&old("delete").await, "delete"),
                "{who} calls {hidden} (2025-11-25)"
            );
        }
        client.cancel().await.expect("the session ends");
    }
    federation.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn required_scopes_keep_their_403_for_a_tool_the_caller_may_see_only() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let federation = federation().await;
    let (addr, url) = serve(&issuer, ToolboxServer::gateway(&federation)).await;
    let [(_, bob), _, (_, alice)] = tokens(&issuer, &url).await;
    // Alice sees `reset`, whose server requires `notes:write`: 403 she can act on.
    let reply = call_2026(addr, &alice, "reset", json!({})).await;
    assert_eq!(reply.status, 403, "{reply:?}");
    assert!(
        challenge(&reply).contains("insufficient_scope"),
        "{reply:?}"
    );
    let writer = issuer
        .forge(
            "issuer",
            json!({"aud": url, "sub": "alice", "scope": "notes:read notes:write"}),
        )
        .await;
    let reply = call_2026(addr, &writer, "reset", json!({})).await;
    assert_eq!(
        reply.json()["result"]["content"][0]["text"],
        "admin: reset",
        "{reply:?}"
    );
    // Bob lacks the scope too, but may not see `reset`: no 403 to betray it.
    let reply = call_2026(addr, &bob, "reset", json!({})).await;
    assert_eq!(reply.status, 200, "{reply:?}");
    assert_eq!(reply.json()["error"]["code"], -32602, "{reply:?}");
    federation.shutdown().await;
}

/// The names `search_tools` finds for `query` with `token`, and what `call_tool` of `name`
/// answers.
async fn search_and_call(addr: SocketAddr, token: &str, name: &str) -> (Vec<String>, Value) {
    let reply = call_2026(
        addr,
        token,
        "search_tools",
        json!({"query": "search write now reset notes"}),
    )
    .await;
    let found = reply.json()["result"]["structuredContent"]["result"]
        .as_array()
        .unwrap_or_else(|| panic!("no result: {reply:?}"))
        .iter()
        .map(|tool| tool["name"].as_str().expect("a name").to_owned())
        .collect();
    let called = call_2026(
        addr,
        token,
        "call_tool",
        json!({"name": name, "arguments": {}}),
    )
    .await;
    (found, called.json()["result"].clone())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tool_search_finds_and_calls_only_the_callers_tools() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let federation = federation().await;
    let gateway = ToolboxServer::gateway(&federation).with_tool_search(ToolSearch::new());
    let (addr, url) = serve(&issuer, gateway).await;
    for ((who, token), seen) in tokens(&issuer, &url).await.iter().zip(SEEN) {
        let listed = request_2026(addr, token, "tools/list", json!({}), json!({})).await;
        assert_eq!(
            names(&listed.json()["result"]),
            ["call_tool", "search_tools"],
            "{who}"
        );
        let (mut found, _) = search_and_call(addr, token, "now").await;
        found.sort();
        // Search also leaves out the tools whose scopes the token lacks (Alice's `reset`).
        let callable: Vec<&str> = seen
            .iter()
            .copied()
            .filter(|name| *name != "reset")
            .collect();
        assert_eq!(found, callable, "{who}");
        for hidden in ["search", "write", "reset"] {
            if seen.contains(&hidden) {
                continue;
            }
            let (_, refused) = search_and_call(addr, token, hidden).await;
            let (_, unknown) = search_and_call(addr, token, "delete").await;
            assert_eq!(refused["isError"], true, "{who} calls {hidden}: {refused}");
            assert_eq!(
                refused["content"][0]["text"]
                    .as_str()
                    .map(|m| m.replace(hidden, "<tool>")),
                unknown["content"][0]["text"]
                    .as_str()
                    .map(|m| m.replace("delete", "<tool>")),
                "{who} calls {hidden}"
            );
        }
    }
    federation.shutdown().await;
}

#[test]
fn a_bad_policy_is_a_config_error_at_its_json_pointer() {
    let servers = json!({"time": {"command": "x"}});
    for (policy, pointer, message) in [
        (
            json!({"rules": [{"allow": ["notes.*", "notes.[ab]"]}]}),
            "/toolmodelPolicy/rules/0/allow/1",
            "glob \"notes.[ab]\" holds '[', which no tool ID holds",
        ),
        (
            json!({"rules": [{"allow": ["x"], "when": {"gruops": ["eng"]}}]}),
            "/toolmodelPolicy/rules/0/when/gruops",
            "unknown key \"gruops\": did you mean \"groups\"?",
        ),
        (
            json!({"ruels": []}),
            "/toolmodelPolicy/ruels",
            "unknown key \"ruels\": did you mean \"rules\"?",
        ),
    ] {
        let err =
            FederationConfig::from_json(&json!({"mcpServers": servers, "toolmodelPolicy": policy}))
                .unwrap_err();
        assert!(
            matches!(&err, Error::Config { server: None, pointer: at, message: said, .. }
                if at == pointer && said.starts_with(message)),
            "{err}"
        );
    }
    // A misspelled top-level key is refused too.
    let err = FederationConfig::from_json(&json!({"mcpServers": servers, "toolmodelPolicyy": {}}))
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "at /toolmodelPolicyy: unknown key \"toolmodelPolicyy\": did you mean \"toolmodelPolicy\"?"
    );
    // Rules on callers need authorization; rules for everyone do not.
    let config = FederationConfig::from_json(&json!({"mcpServers": servers, "toolmodelPolicy":
        {"rules": [{"allow": ["time.*"]}, {"allow": ["*"], "when": {"scope": ["admin"]}}]}}))
    .expect("reads");
    let policy: &ToolPolicy = config.tool_policy.as_ref().expect("a policy");
    let err = policy.check_without_authorization().unwrap_err();
    assert!(
        matches!(&err, Error::Config { pointer, .. } if pointer == "/toolmodelPolicy/rules/1/when"),
        "{err}"
    );
}
