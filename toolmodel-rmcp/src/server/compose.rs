//! Composition: a [`ToolboxServer`](super::ToolboxServer) as the tools of a bigger `rmcp`
//! server, whose prompts, resources and completion another `rmcp` [`ServerHandler`] serves
//! ([`ToolboxServer::with_handler`](super::ToolboxServer::with_handler)).
//!
//! The other handler is kept behind an `Arc` as a type-erased object, so the composed server
//! is still a `ToolboxServer`, with its transports
//! ([`serve_stdio`](super::ToolboxServer::serve_stdio),
//! [`serve_http`](super::ToolboxServer::serve_http),
//! [`http_service`](super::ToolboxServer::http_service)) and its per-session state; without
//! one, these requests get `rmcp`'s answers for a server that has none (JSON-RPC `-32601`).
//!
//! MCP 2026-07-28's `subscriptions/listen` is the toolbox's alone (`list_changed.rs`): `rmcp`
//! hands each stream to one handler, so the other handler's list changes and resource
//! updates do not reach a 2026-07-28 client.

use std::{fmt, future::Future, pin::Pin, sync::Arc};

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CompleteRequestParams, CompleteResult, GetPromptRequestParams, GetPromptResponse,
        ListPromptsResult, ListResourceTemplatesResult, ListResourcesResult,
        PaginatedRequestParams, ReadResourceRequestParams, ReadResourceResponse,
        ServerCapabilities, SubscribeRequestParams, UnsubscribeRequestParams,
    },
    service::RequestContext,
};

type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = Result<T, ErrorData>> + Send + 'a>>;

/// The `rmcp` handler a [`ToolboxServer`](super::ToolboxServer) passes every request to that
/// is not about tools or logging.
#[derive(Clone)]
pub(crate) struct Composed {
    handler: Arc<dyn ErasedHandler>,
    /// The handler's Rust type, for `Debug`.
    type_name: &'static str,
}

impl Default for Composed {
    /// No other handler: `rmcp`'s defaults (`-32601`, no capability).
    fn default() -> Self {
        Self {
            handler: Arc::new(Nothing),
            type_name: "none",
        }
    }
}

impl fmt::Debug for Composed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.type_name)
    }
}

/// A handler that serves nothing: every method is `rmcp`'s default.
struct Nothing;

impl ServerHandler for Nothing {}

impl Composed {
    /// `ours` (tools, logging) with what the other handler declares: its `prompts`,
    /// `resources`, `completions` and `experimental`, and its `extensions` added to ours.
    pub(crate) fn capabilities(&self, ours: ServerCapabilities) -> ServerCapabilities {
        let theirs = self.handler.capabilities();
        let mut merged = ours;
        merged.prompts = theirs.prompts;
        merged.resources = theirs.resources;
        merged.completions = theirs.completions;
        merged.experimental = theirs.experimental;
        if let Some(extensions) = theirs.extensions {
            let mine = merged.extensions.get_or_insert_with(Default::default);
            for (name, settings) in extensions {
                mine.entry(name).or_insert(settings);
            }
        }
        merged
    }

    /// `handler`, shared behind an `Arc`
    /// ([`ToolboxServer::with_handler`](super::ToolboxServer::with_handler)).
    pub(crate) fn new<H: ServerHandler>(handler: H) -> Self {
        Self {
            handler: Arc::new(handler),
            type_name: std::any::type_name::<H>(),
        }
    }

    pub(crate) fn handler(&self) -> &dyn ErasedHandler {
        self.handler.as_ref()
    }
}

/// The `ServerHandler` methods a composed server forwards, object-safe.
pub(crate) trait ErasedHandler: Send + Sync + 'static {
    fn capabilities(&self) -> ServerCapabilities;
    fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, CompleteResult>;
    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, GetPromptResponse>;
    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, ListPromptsResult>;
    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, ListResourcesResult>;
    fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, ListResourceTemplatesResult>;
    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, ReadResourceResponse>;
    fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, ()>;
    fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, ()>;
}

impl<H: ServerHandler> ErasedHandler for H {
    fn capabilities(&self) -> ServerCapabilities {
        self.get_info().capabilities
    }
    fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, CompleteResult> {
        Box::pin(ServerHandler::complete(self, request, context))
    }
    fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, GetPromptResponse> {
        Box::pin(ServerHandler::get_prompt(self, request, context))
    }
    fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, ListPromptsResult> {
        Box::pin(ServerHandler::list_prompts(self, request, context))
    }
    fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, ListResourcesResult> {
        Box::pin(ServerHandler::list_resources(self, request, context))
    }
    fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, ListResourceTemplatesResult> {
        Box::pin(ServerHandler::list_resource_templates(
            self, request, context,
        ))
    }
    fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, ReadResourceResponse> {
        Box::pin(ServerHandler::read_resource(self, request, context))
    }
    fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, ()> {
        Box::pin(ServerHandler::subscribe(self, request, context))
    }
    fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> BoxFuture<'_, ()> {
        Box::pin(ServerHandler::unsubscribe(self, request, context))
    }
}
