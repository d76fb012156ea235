//! [`Passthrough`]: the upstreams' prompts, resources and completion, served by a gateway
//! ([`ToolboxServer::with_handler`](crate::ToolboxServer::with_handler)) beside their tools.
//!
//! Each request is answered live by the upstream it belongs to ([`catalog`]
//! says which, and how names and URIs are kept apart); an upstream's JSON-RPC error reaches the
//! client unchanged, an `InputRequiredResult` (MCP 2026-07-28) too (a complete result gets
//! the `resultType` 2026-07-28 requires, which a 2025-11-25 upstream session leaves out), and the client's
//! `inputResponses` go back to the upstream as they came, so a prompt or a resource that asks
//! for input works through the gateway without state in it.
//!
//! **`requestState`.** The upstream sees every caller as the gateway (one session, the
//! gateway's credentials), so the state it hands out is bound to no user: relayed as it came,
//! one caller could send back another's. The gateway seals the upstream's state with its own
//! `requestState` key, bound to the method, the prompt's name or the resource's URI and, under
//! authorization, the caller (the [`ToolboxServer`](crate::ToolboxServer) serving the
//! passthrough lends its key; served alone, the process's random key), and opens it again
//! when the client retries: a state of another caller, another prompt or resource, another
//! key, or past its expiry is `-32602` and never reaches the upstream. Any replica of a
//! gateway with the same key (`MCP_REQUEST_STATE_KEY`) opens it.
//!
//! A server that is down offers nothing until its session opens again.

// `resources/subscribe` and `resources/unsubscribe` are MCP 2025-11-25 methods (2026-07-28 has
// `subscriptions/listen` instead); the upstream sessions, and the clients that send them, speak
// 2025-11-25.
#![allow(deprecated)]

use std::{
    collections::BTreeMap,
    sync::{Arc, Mutex},
};

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        ClientRequest, CompleteRequest, CompleteRequestParams, CompleteResult, GetPromptRequest,
        GetPromptRequestParams, GetPromptResponse, ListPromptsResult, ListResourceTemplatesResult,
        ListResourcesResult, PaginatedRequestParams, PromptsCapability, ReadResourceRequest,
        ReadResourceRequestParams, ReadResourceResponse, Reference, ResourcesCapability,
        ResultType, ServerCapabilities, ServerConfig, ServerResult, SubscribeRequest,
        SubscribeRequestParams, UnsubscribeRequest, UnsubscribeRequestParams,
    },
    service::RequestContext,
};

use crate::federation::catalog::{self, Live, live, prompt_named, resource_server};
use crate::federation::downstream::Downstream;
use crate::federation::names::NamePolicy;
use crate::federation::pages::CacheHint;
use crate::federation::servers::Servers;
use crate::lock::lock;
use crate::reloadable::WeakReloadable;
use crate::server::{request_state::Sealer, tool_call::caller};

/// What each upstream declared at `initialize`, by server name (updated on each new session).
pub(crate) type Declared = Arc<Mutex<BTreeMap<String, ServerCapabilities>>>;

/// The prompts, resources (templates, subscriptions) and completion of a
/// [`Federation`](super::Federation)'s upstreams, as an `rmcp` [`ServerHandler`] to give to
/// [`ToolboxServer::with_handler`](crate::ToolboxServer::with_handler); made by the
/// federation's `Backends::handler` for [`ToolboxServer::gateway`](crate::ToolboxServer::gateway).
///
/// - Capabilities: `prompts`, `resources` and `completions` when an upstream declared them,
///   with `listChanged` and `subscribe` when one of those did.
/// - `prompts/list`: every server's prompts (every page), named by the federation's
///   [`NamePolicy`] as tools are; `prompts/get` goes to the prompt's server under its own name.
/// - `resources/list`, `resources/templates/list`: every server's, URIs unchanged;
///   `resources/read`, `resources/subscribe`, `resources/unsubscribe` go to the URI's server:
///   the one whose `resources/list` has it, else the one with a resource template it matches
///   (RFC 6570), else the only server with resources. Two servers offering one URI: JSON-RPC
///   `-32602` naming the URI and both (never one picked silently); none: `-32002`.
/// - `completion/complete`: to the prompt's server (its name there) or the template's.
/// - `notifications/prompts/list_changed`, `notifications/resources/list_changed`: relayed to
///   every session of the gateway's servers;
///   `notifications/resources/updated`: to the sessions subscribed to the URI (the gateway
///   subscribes upstream once per URI, and unsubscribes when the last subscriber leaves).
///
/// Each list is one page (the gateway reads every upstream page). Each request reads the
/// servers in force when it starts (a reconfiguration's are served from the next one). The
/// handler holds the federation weakly: once the federation is dropped it offers nothing.
#[derive(Clone)]
pub(crate) struct Passthrough {
    servers: WeakReloadable<Servers>,
    declared: Declared,
    downstream: Arc<Downstream>,
}

impl std::fmt::Debug for Passthrough {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let servers = self.servers.get();
        f.debug_struct("Passthrough")
            .field("upstreams", &servers.as_ref().map(|s| s.upstreams.len()))
            .field("policy", &servers.as_ref().map(|s| s.config.tool_names))
            .finish_non_exhaustive()
    }
}

/// The capabilities that pass through: what any of `declared` offers.
fn merged(declared: &BTreeMap<String, ServerCapabilities>) -> ServerCapabilities {
    let mut capabilities = ServerCapabilities::default();
    for theirs in declared.values() {
        if let Some(prompts) = &theirs.prompts {
            let ours = capabilities
                .prompts
                .get_or_insert_with(PromptsCapability::default);
            if prompts.list_changed == Some(true) {
                ours.list_changed = Some(true);
            }
        }
        if let Some(resources) = &theirs.resources {
            let ours = capabilities
                .resources
                .get_or_insert_with(ResourcesCapability::default);
            if resources.list_changed == Some(true) {
                ours.list_changed = Some(true);
            }
            if resources.subscribe == Some(true) {
                ours.subscribe = Some(true);
            }
        }
        if theirs.completions.is_some() {
            capabilities
                .completions
                .get_or_insert_with(Default::default);
        }
    }
    capabilities
}

/// Servers' lists as one, in order, with their merged cache hint.
fn concat<T>(lists: Vec<(Vec<T>, CacheHint)>) -> (Vec<T>, CacheHint) {
    let (items, hints): (Vec<Vec<T>>, Vec<CacheHint>) = lists.into_iter().unzip();
    (items.into_iter().flatten().collect(), CacheHint::all(hints))
}

/// A result that is not the one asked for, as the error the client gets.
pub(crate) fn unexpected(server: &Live, method: &str) -> ErrorData {
    ErrorData::internal_error(
        format!(
            "server {:?} answered {method} with another kind of result",
            server.name()
        ),
        None,
    )
}

impl Passthrough {
    pub(crate) fn new(
        servers: WeakReloadable<Servers>,
        declared: Declared,
        downstream: Arc<Downstream>,
    ) -> Self {
        Self {
            servers,
            declared,
            downstream,
        }
    }

    /// How prompts are named: as tools are, by the configuration in force.
    fn policy(&self) -> NamePolicy {
        self.servers
            .get()
            .map(|servers| servers.config.tool_names)
            .unwrap_or_default()
    }

    /// The live upstreams that declared what `offers` looks for.
    async fn servers(&self, offers: impl Fn(&ServerCapabilities) -> bool) -> Vec<Live> {
        match self.servers.get() {
            Some(servers) => live(&servers.upstreams, offers).await,
            None => Vec::new(),
        }
    }

    async fn prompt_servers(&self) -> Vec<Live> {
        self.servers(|c| c.prompts.is_some()).await
    }

    async fn resource_servers(&self) -> Vec<Live> {
        self.servers(|c| c.resources.is_some()).await
    }

    /// Sends `request` to the server of `uri` and expects an empty result.
    async fn to_resource_server(&self, uri: &str, request: ClientRequest) -> Result<(), ErrorData> {
        let servers = self.resource_servers().await;
        let server = resource_server(&servers, uri).await?;
        match server.ask(request).await? {
            ServerResult::EmptyResult(_) => Ok(()),
            _ => Err(unexpected(server, "a subscription request")),
        }
    }
}

/// The sealer the serving `ToolboxServer` lent `context` (its `requestState` key), or one
/// with the process's random key.
fn sealer(context: &RequestContext<RoleServer>) -> Sealer {
    context
        .extensions
        .get::<Sealer>()
        .cloned()
        .unwrap_or_else(|| Sealer::new(None))
}

impl ServerHandler for Passthrough {
    fn get_info(&self) -> ServerConfig {
        let declared = lock(&self.declared);
        ServerConfig::new(merged(&declared))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let servers = self.prompt_servers().await;
        let (prompts, hint) = catalog::prompts(&servers, self.policy()).await?;
        let mut result = ListPromptsResult::with_all_items(
            prompts.into_iter().map(|named| named.prompt).collect(),
        );
        (result.ttl_ms, result.cache_scope) = (hint.ttl_ms, hint.cache_scope);
        Ok(result)
    }

    async fn get_prompt(
        &self,
        mut request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        const METHOD: &str = "prompts/get";
        let (sealer, caller) = (sealer(&context), caller(&context));
        let asked = request.name.clone();
        if let Some(state) = request.request_state.take() {
            request.request_state = Some(sealer.open_relayed(METHOD, &asked, caller, &state)?);
        }
        let servers = self.prompt_servers().await;
        let (server, name) = prompt_named(&servers, self.policy(), &request.name).await?;
        request.name = name;
        match server
            .ask(ClientRequest::GetPromptRequest(GetPromptRequest::new(
                request,
            )))
            .await?
        {
            ServerResult::GetPromptResult(mut result) => {
                result.result_type.get_or_insert(ResultType::COMPLETE);
                Ok(GetPromptResponse::Complete(result))
            }
            ServerResult::InputRequiredResult(mut input) => {
                if let Some(state) = input.request_state.take() {
                    input.request_state =
                        Some(sealer.seal_relayed(METHOD, &asked, caller, &state)?);
                }
                Ok(GetPromptResponse::InputRequired(input))
            }
            _ => Err(unexpected(server, "prompts/get")),
        }
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let mut lists = Vec::new();
        for server in self.resource_servers().await {
            lists.push(server.resources().await?);
        }
        let (all, hint) = concat(lists);
        let mut result = ListResourcesResult::with_all_items(all);
        (result.ttl_ms, result.cache_scope) = (hint.ttl_ms, hint.cache_scope);
        Ok(result)
    }

    async fn list_resource_templates(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let mut lists = Vec::new();
        for server in self.resource_servers().await {
            lists.push(server.templates().await?);
        }
        let (all, hint) = concat(lists);
        let mut result = ListResourceTemplatesResult::with_all_items(all);
        (result.ttl_ms, result.cache_scope) = (hint.ttl_ms, hint.cache_scope);
        Ok(result)
    }

    async fn read_resource(
        &self,
        mut request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        const METHOD: &str = "resources/read";
        let (sealer, caller) = (sealer(&context), caller(&context));
        let uri = request.uri.clone();
        if let Some(state) = request.request_state.take() {
            request.request_state = Some(sealer.open_relayed(METHOD, &uri, caller, &state)?);
        }
        let servers = self.resource_servers().await;
        let server = resource_server(&servers, &request.uri).await?;
        match server
            .ask(ClientRequest::ReadResourceRequest(
                ReadResourceRequest::new(request),
            ))
            .await?
        {
            ServerResult::ReadResourceResult(mut result) => {
                result.result_type.get_or_insert(ResultType::COMPLETE);
                Ok(ReadResourceResponse::Complete(result))
            }
            ServerResult::InputRequiredResult(mut input) => {
                if let Some(state) = input.request_state.take() {
                    input.request_state = Some(sealer.seal_relayed(METHOD, &uri, caller, &state)?);
                }
                Ok(ReadResourceResponse::InputRequired(input))
            }
            _ => Err(unexpected(server, "resources/read")),
        }
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let uri = request.uri.clone();
        if self.downstream.subscribe(&uri, context.peer.clone()) {
            let sent = self
                .to_resource_server(
                    &uri,
                    ClientRequest::SubscribeRequest(SubscribeRequest::new(request)),
                )
                .await;
            if sent.is_err() {
                self.downstream.unsubscribe(&uri, &context.peer);
            }
            sent?;
        }
        Ok(())
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let uri = request.uri.clone();
        if self.downstream.unsubscribe(&uri, &context.peer) {
            self.to_resource_server(
                &uri,
                ClientRequest::UnsubscribeRequest(UnsubscribeRequest::new(request)),
            )
            .await?;
        }
        Ok(())
    }

    async fn complete(
        &self,
        mut request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let servers = self.servers(|c| c.completions.is_some()).await;
        let server = match &mut request.r#ref {
            Reference::Prompt(prompt) => {
                let (server, name) = prompt_named(&servers, self.policy(), &prompt.name).await?;
                prompt.name = name;
                server
            }
            Reference::Resource(template) => {
                catalog::template_server(&servers, &template.uri).await?
            }
            other => {
                return Err(ErrorData::invalid_params(
                    format!("completion/complete: a reference the gateway cannot route: {other:?}"),
                    None,
                ));
            }
        };
        match server
            .ask(ClientRequest::CompleteRequest(CompleteRequest::new(
                request,
            )))
            .await?
        {
            ServerResult::CompleteResult(mut result) => {
                result.result_type.get_or_insert(ResultType::COMPLETE);
                Ok(result)
            }
            _ => Err(unexpected(server, "completion/complete")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capabilities_are_what_any_upstream_declared() {
        let mut declared = BTreeMap::new();
        declared.insert(
            "a".to_owned(),
            ServerCapabilities::builder()
                .enable_prompts()
                .enable_completions()
                .build(),
        );
        declared.insert(
            "b".to_owned(),
            ServerCapabilities::builder()
                .enable_resources()
                .enable_resources_subscribe()
                .enable_resources_list_changed()
                .build(),
        );
        let merged = merged(&declared);
        assert_eq!(merged.prompts, Some(PromptsCapability::default()));
        let resources = merged.resources.unwrap();
        assert_eq!(
            (resources.subscribe, resources.list_changed),
            (Some(true), Some(true))
        );
        assert!(merged.completions.is_some());
        assert!(merged.tools.is_none() && merged.logging.is_none());
        assert_eq!(
            super::merged(&BTreeMap::new()),
            ServerCapabilities::default()
        );
    }
}
