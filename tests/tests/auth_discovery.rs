//! rmcp's own client, with its `auth` feature, finds its way to a token on its own against
//! `examples/server.rs --http ADDR --auth-issuer URL` and oidc-provider
//! (`serve/auth/provider.mjs`): the server's 401 challenge, its Protected Resource Metadata
//! (RFC 9728), the authorization server's metadata (RFC 8414 / OpenID discovery), a
//! client_credentials token for the resource (RFC 8707), then `tools/list` and `tools/call`
//! with it. Every step is rmcp's: no request is written by hand. Skips with a notice when the
//! provider cannot start, and fails under `CI`.
//!
//! It runs the example programs this package builds (`CARGO_BIN_EXE_*`): `cargo test -p
//! toolmodel-tests --test integration auth_discovery::`.

use std::{
    process::Stdio,
    time::{Duration, Instant},
};

use rmcp::{
    ServiceExt as _,
    model::CallToolRequestParams,
    transport::{
        AuthClient, StreamableHttpClientTransport,
        auth::{AuthorizationManager, AuthorizationMetadataSource, ClientCredentialsConfig},
        streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use tokio::process::{Child, Command};
use toolmodel_test_support::issuer::Issuer;

const SERVER: &str = env!("CARGO_BIN_EXE_example-server");

/// The OAuth client for rmcp in `provider.mjs`: client_credentials with `client_secret_post`,
/// scope `profile:read` (what `whoami` needs).
const RMCP_CLIENT: (&str, &str) = ("toolmodel-rmcp", "rmcp-secret");

/// `examples/server` over HTTP on a free loopback port, protected by `issuer`; the child and
/// its MCP URL.
async fn protected_example(issuer: &str) -> (Child, String) {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let child = Command::new(SERVER)
        .args([
            "--http",
            &format!("127.0.0.1:{port}"),
            "--auth-issuer",
            issuer,
        ])
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(30);
    while tokio::net::TcpStream::connect(("127.0.0.1", port))
        .await
        .is_err()
    {
        assert!(Instant::now() < deadline, "examples/server did not listen");
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    (child, format!("http://127.0.0.1:{port}/mcp"))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn rmcps_auth_client_discovers_the_issuer_from_the_401_gets_a_token_and_calls_whoami() {
    let Some(issuer) = Issuer::start(0).await else {
        return;
    };
    let (_server, url) = protected_example(&issuer.url).await;

    // Without a token: the 401 and its challenge.
    let refused =
        ().serve(StreamableHttpClientTransport::from_uri(url.as_str()))
            .await
            .expect_err("a client without a token is refused");
    assert!(refused.is_authorization_required(), "{refused}");
    let challenge = refused
        .auth_challenge()
        .expect("the 401 carries a WWW-Authenticate challenge")
        .to_owned();
    assert!(challenge.contains("resource_metadata="), "{challenge}");

    // The challenge → Protected Resource Metadata → the issuer's metadata.
    let mut manager = AuthorizationManager::new(url.as_str()).await.unwrap();
    let resolution = manager
        .resolve_metadata_from_challenge(Some(&challenge))
        .await
        .unwrap();
    assert!(
        matches!(
            resolution.source,
            AuthorizationMetadataSource::ProtectedResourceMetadata
        ),
        "{:?}",
        resolution.source
    );
    assert_eq!(
        resolution.metadata.token_endpoint,
        format!("{}/token", issuer.url)
    );
    manager.set_metadata(resolution.metadata);

    // A client_credentials token for the resource.
    let credentials = ClientCredentialsConfig::ClientSecret {
        client_id: RMCP_CLIENT.0.to_owned(),
        client_secret: RMCP_CLIENT.1.to_owned(),
        scopes: vec!["profile:read".to_owned()],
        resource: Some(url.clone()),
    };
    manager
        .validate_client_credentials_metadata(&credentials)
        .unwrap();
    manager.configure_client_credentials(&credentials).unwrap();
    manager
        .exchange_client_credentials(&credentials)
        .await
        .unwrap();

    // The same client, now with the token on every request.
    let client = AuthClient::new(reqwest::Client::new(), manager);
    let transport = StreamableHttpClientTransport::with_client(
        client,
        StreamableHttpClientTransportConfig::with_uri(url.as_str()),
    );
    let service = ().serve(transport).await.unwrap();
    let tools = service.list_all_tools().await.unwrap();
    assert!(tools.iter().any(|tool| tool.name == "whoami"), "{tools:?}");
    let whoami = service
        .call_tool(CallToolRequestParams::new("whoami"))
        .await
        .unwrap();
    assert_ne!(whoami.is_error, Some(true), "{whoami:?}");
    let text = whoami.content[0].as_text().unwrap().text.clone();
    assert!(
        text.contains(&format!("of {}, client {}", issuer.url, RMCP_CLIENT.0))
            && text.ends_with("scopes profile:read"),
        "{text}"
    );
    service.cancel().await.unwrap();
}
