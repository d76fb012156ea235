//! Two users of one gateway: a federation served over Streamable HTTP on a loopback port
//! behind the test authorization server ([`Issuer`]), and a client of it for each of Alice and
//! Mallory (two clients of the provider, so two subjects).

use rmcp::{
    ClientHandler, ServiceExt as _,
    model::ProtocolVersion,
    service::{ClientLifecycleMode, ClientServiceExt as _, RoleClient, RunningService},
    transport::{
        StreamableHttpClientTransport, streamable_http_client::StreamableHttpClientTransportConfig,
    },
};
use tokio::net::TcpListener;
use toolmodel_rmcp::{ToolboxServer, auth::ResourceServer, federation::Federation};

use toolmodel_test_support::issuer::{self, Issuer};

/// `client` connected to the gateway at `url` over Streamable HTTP with `token`: in an MCP
/// 2025-11-25 session, or in MCP 2026-07-28's sessionless mode (`server/discover`) when
/// `sessionless`.
pub async fn connect<C: ClientHandler>(
    url: &str,
    token: String,
    client: C,
    sessionless: bool,
) -> RunningService<RoleClient, C> {
    let config = StreamableHttpClientTransportConfig::with_uri(url).auth_header(token);
    let transport = StreamableHttpClientTransport::from_config(config);
    if sessionless {
        let lifecycle = ClientLifecycleMode::Discover {
            preferred_versions: vec![ProtocolVersion::V_2026_07_28],
        };
        client.serve_with_lifecycle(transport, lifecycle).await
    } else {
        client.serve(transport).await
    }
    .expect("connects")
}

/// The names `client`'s `tools/list` gives, every page, in the order listed.
pub async fn tool_names<C: ClientHandler>(client: &RunningService<RoleClient, C>) -> Vec<String> {
    client
        .list_all_tools()
        .await
        .expect("tools/list")
        .into_iter()
        .map(|tool| tool.name.into_owned())
        .collect()
}

/// `federation` served (tools, prompts, resources, tasks) behind `issuer`'s authorization on
/// a free loopback port, and a client made by `client` for each of Alice and Mallory,
/// `sessionless` as [`connect`] says.
pub async fn alice_and_mallory<C: ClientHandler>(
    issuer: &Issuer,
    federation: &Federation,
    client: impl Fn() -> C,
    sessionless: bool,
) -> (RunningService<RoleClient, C>, RunningService<RoleClient, C>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let server = ToolboxServer::gateway(federation)
        .with_authorization(ResourceServer::new(&issuer.url, &url).expect("authorization"));
    tokio::spawn(server.serve_http(listener).into_future());
    let alice_token = issuer.token(&url, "notes:read").await;
    let mallory_token = issuer
        .token_for(issuer::OTHER_CLIENT, &url, "notes:read")
        .await;
    (
        connect(&url, alice_token, client(), sessionless).await,
        connect(&url, mallory_token, client(), sessionless).await,
    )
}
