//! The gateway passes its upstreams' prompts, resources (templates, subscriptions) and
//! completion through: a `ToolboxServer` over a federation of
//! `@modelcontextprotocol/server-everything` (installed by `serve/install_upstreams.sh`),
//! with the federation's `Passthrough` as its other handler, driven by `rmcp`'s client over an
//! in-memory pipe. Without the upstreams (no network, no Node) each test prints a notice and
//! passes, except under `CI`, where it fails.

use std::time::Duration;

use rmcp::{
    ClientHandler,
    model::{
        ArgumentInfo, CallToolRequestParams, CompleteRequestParams, ErrorCode,
        GetPromptRequestParams, PromptReference, ReadResourceRequestParams, Reference,
        ResourceTemplateReference, ResourceUpdatedNotificationParam, SubscribeRequestParams,
    },
    service::{NotificationContext, RoleClient, RunningService, ServiceError},
};
use tokio::sync::mpsc;
use toolmodel_rmcp::{
    ToolboxServer,
    federation::{Federation, FederationConfig, StdioTransport, UpstreamConfig},
};
use toolmodel_test_support::upstreams::upstreams;

use crate::support::pipe;

/// A federation of server-everything under each of `names`, and a gateway over it with a
/// client of `client` connected (MCP 2025-11-25); `None` without the upstreams.
async fn gateway<C: ClientHandler>(
    names: &[&str],
    client: C,
) -> Option<(Federation, RunningService<RoleClient, C>)> {
    let everything = upstreams()?.remove("EVERYTHING")?;
    let mut config = FederationConfig::builder();
    for name in names {
        config = config.with_upstream(UpstreamConfig::stdio(
            *name,
            StdioTransport::new(&everything),
        ));
    }
    let federation = Federation::start(config.build().unwrap()).await.unwrap();
    let server = ToolboxServer::gateway(&federation);
    let client = pipe::connect(server, client).await;
    Some((federation, client))
}

/// The text of a prompt's first message.
fn first_text(messages: &[rmcp::model::PromptMessage]) -> String {
    let first = serde_json::to_value(messages.first().expect("a message")).unwrap();
    first["content"]["text"].as_str().expect("text").to_owned()
}

/// `key` of the first of a resource's contents (`uri`, `text`...).
fn first_contents(read: &rmcp::model::ReadResourceResult, key: &str) -> String {
    let first = serde_json::to_value(read.contents.first().expect("contents")).unwrap();
    first[key].as_str().unwrap_or_default().to_owned()
}

/// The JSON-RPC error of a failed request.
fn rpc_error<T: std::fmt::Debug>(result: Result<T, ServiceError>) -> rmcp::ErrorData {
    match result {
        Err(ServiceError::McpError(error)) => error,
        other => panic!("expected a JSON-RPC error, got {other:?}"),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn one_servers_prompts_resources_and_completion_pass_through_unchanged() {
    let Some((federation, client)) = gateway(&["everything"], ()).await else {
        return;
    };
    let capabilities = &client.peer_info().expect("initialized").capabilities;
    assert!(capabilities.prompts.is_some());
    assert!(capabilities.completions.is_some());
    let resources = capabilities.resources.as_ref().expect("resources");
    assert_eq!(resources.subscribe, Some(true));
    assert!(capabilities.tools.is_some());

    let prompts = client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert!(names.contains(&"simple-prompt"), "{names:?}");
    assert!(names.contains(&"completable-prompt"), "{names:?}");
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("simple-prompt"))
        .await
        .unwrap();
    assert_eq!(
        first_text(&prompt.messages),
        "This is a simple prompt without arguments."
    );

    let listed = client.list_all_resources().await.unwrap();
    let first = listed.first().expect("server-everything lists resources");
    let read = client
        .read_resource(ReadResourceRequestParams::new(first.uri.clone()))
        .await
        .unwrap();
    assert_eq!(first_contents(&read, "uri"), first.uri);

    let templates = client.list_all_resource_templates().await.unwrap();
    let text_template = "demo://resource/dynamic/text/{resourceId}";
    assert!(
        templates.iter().any(|t| t.uri_template == text_template),
        "{templates:?}"
    );
    let read = client
        .read_resource(ReadResourceRequestParams::new(
            "demo://resource/dynamic/text/3",
        ))
        .await
        .unwrap();
    assert_eq!(
        first_contents(&read, "uri"),
        "demo://resource/dynamic/text/3"
    );
    assert!(first_contents(&read, "text").contains('3'));

    let completed = client
        .complete(CompleteRequestParams::new(
            Reference::Prompt(PromptReference::new("completable-prompt")),
            ArgumentInfo::new("department", "Eng"),
        ))
        .await
        .unwrap();
    assert_eq!(completed.completion.values, ["Engineering"]);
    let completed = client
        .complete(CompleteRequestParams::new(
            Reference::Resource(ResourceTemplateReference::new(text_template)),
            ArgumentInfo::new("resourceId", "1"),
        ))
        .await
        .unwrap();
    assert!(
        !completed.completion.values.is_empty()
            && completed
                .completion
                .values
                .iter()
                .all(|v| v.starts_with('1')),
        "{:?}",
        completed.completion.values
    );
    client.cancel().await.unwrap();
    federation.shutdown().await;
}

/// Hands the URI of each `notifications/resources/updated`, and `"list_changed"` for each
/// `notifications/resources/list_changed`, to a channel.
struct Updates(mpsc::UnboundedSender<String>);

impl ClientHandler for Updates {
    async fn on_resource_updated(
        &self,
        params: ResourceUpdatedNotificationParam,
        _context: NotificationContext<RoleClient>,
    ) {
        let _ = self.0.send(params.uri);
    }

    async fn on_resource_list_changed(&self, _context: NotificationContext<RoleClient>) {
        let _ = self.0.send("list_changed".to_owned());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_upstreams_resource_list_change_reaches_the_client_and_the_new_resource_is_read() {
    let (updates, mut received) = mpsc::unbounded_channel();
    let Some((federation, client)) = gateway(&["everything"], Updates(updates)).await else {
        return;
    };
    // server-everything registers a resource of the session for the file it compresses, and
    // sends notifications/resources/list_changed.
    let mut params = CallToolRequestParams::new("gzip-file-as-resource");
    params.arguments =
        serde_json::json!({"name": "hello.gz", "data": "data:text/plain;base64,aGVsbG8="})
            .as_object()
            .cloned();
    let compressed = client.call_tool(params).await.unwrap();
    assert_ne!(compressed.is_error, Some(true), "{compressed:?}");
    let notice = tokio::time::timeout(Duration::from_secs(15), received.recv())
        .await
        .expect("a list change within 15 s")
        .expect("the channel is open");
    assert_eq!(notice, "list_changed");
    let listed = client.list_all_resources().await.unwrap();
    let added = listed
        .iter()
        .find(|r| r.uri.ends_with("hello.gz"))
        .unwrap_or_else(|| panic!("the new resource is listed: {listed:?}"));
    let read = client
        .read_resource(ReadResourceRequestParams::new(added.uri.clone()))
        .await
        .unwrap();
    assert_eq!(first_contents(&read, "uri"), added.uri);
    client.cancel().await.unwrap();
    federation.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
#[allow(deprecated)] // resources/subscribe: MCP 2025-11-25, the version of this session
async fn an_upstreams_resource_update_reaches_the_client_that_subscribed() {
    let (updates, mut received) = mpsc::unbounded_channel();
    let Some((federation, client)) = gateway(&["everything"], Updates(updates)).await else {
        return;
    };
    let uri = client
        .list_all_resources()
        .await
        .unwrap()
        .first()
        .expect("a resource")
        .uri
        .clone();
    client
        .subscribe(SubscribeRequestParams::new(uri.clone()))
        .await
        .unwrap();
    // server-everything sends an update for each subscribed URI once this tool is called.
    let toggled = client
        .call_tool(CallToolRequestParams::new("toggle-subscriber-updates"))
        .await
        .unwrap();
    assert_ne!(toggled.is_error, Some(true), "{toggled:?}");
    let updated = tokio::time::timeout(Duration::from_secs(15), received.recv())
        .await
        .expect("an update within 15 s")
        .expect("the channel is open");
    assert_eq!(updated, uri);
    client.cancel().await.unwrap();
    federation.shutdown().await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_servers_prompts_are_prefixed_and_a_shared_uri_is_an_error_naming_both() {
    let Some((federation, client)) = gateway(&["a", "b"], ()).await else {
        return;
    };
    let prompts = client.list_all_prompts().await.unwrap();
    let names: Vec<&str> = prompts.iter().map(|p| p.name.as_str()).collect();
    assert!(
        names.contains(&"a__simple-prompt") && names.contains(&"b__simple-prompt"),
        "{names:?}"
    );
    assert!(!names.contains(&"simple-prompt"), "{names:?}");
    let prompt = client
        .get_prompt(GetPromptRequestParams::new("b__simple-prompt"))
        .await
        .unwrap();
    assert_eq!(
        first_text(&prompt.messages),
        "This is a simple prompt without arguments."
    );
    let unknown = rpc_error(
        client
            .get_prompt(GetPromptRequestParams::new("simple-prompt"))
            .await,
    );
    assert_eq!(unknown.code, ErrorCode::INVALID_PARAMS);

    let completed = client
        .complete(CompleteRequestParams::new(
            Reference::Prompt(PromptReference::new("a__completable-prompt")),
            ArgumentInfo::new("department", "S"),
        ))
        .await
        .unwrap();
    assert_eq!(completed.completion.values, ["Sales", "Support"]);

    // Both list every resource: each URI is listed twice, and reading one names both.
    let listed = client.list_all_resources().await.unwrap();
    let uri = listed.first().expect("a resource").uri.clone();
    assert_eq!(listed.iter().filter(|r| r.uri == uri).count(), 2);
    let shared = rpc_error(
        client
            .read_resource(ReadResourceRequestParams::new(uri.clone()))
            .await,
    );
    assert_eq!(shared.code, ErrorCode::INVALID_PARAMS);
    assert!(
        shared.message.contains(&uri)
            && shared.message.contains("\"a\"")
            && shared.message.contains("\"b\""),
        "{}",
        shared.message
    );
    let nowhere = rpc_error(
        client
            .read_resource(ReadResourceRequestParams::new("nowhere://at/all"))
            .await,
    );
    assert_eq!(nowhere.code, ErrorCode::RESOURCE_NOT_FOUND);
    client.cancel().await.unwrap();
    federation.shutdown().await;
}
