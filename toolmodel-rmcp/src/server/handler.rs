//! The `rmcp` [`ServerHandler`] impl of [`ToolboxServer`]: what each request does (see the
//! [module docs](crate::server)), on top of every other module of `server`. Every method the
//! server answers is written out here, each handing the request to the module that serves
//! it; the methods not written out are `rmcp`'s defaults (`ping`, `server/discover`, and
//! `-32601` for the rest).

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CancelTaskParams, CompleteRequestParams,
        CompleteResult, CustomRequest, CustomResult, GetPromptRequestParams, GetPromptResponse,
        GetTaskParams, GetTaskResult, InitializeRequestParams, InitializeResult, ListPromptsResult,
        ListResourceTemplatesResult, ListResourcesResult, ListToolsResult, PaginatedRequestParams,
        ReadResourceRequestParams, ReadResourceResponse, ServerCapabilities, ServerConfig,
        SetLevelRequestParams, SubscribeRequestParams, SubscriptionFilter, Tool as RmcpTool,
        UnsubscribeRequestParams, UpdateTaskParams,
    },
    service::{RequestContext, SubscriptionContext},
};

use super::{
    compat, disclosure::Routed, list_changed::ListChanged, rate_limits::Counted, task_call,
    tool_call, toolbox_server::ToolboxServer,
};
use crate::convert::message::{self, error_data};
use crate::lock::lock;
use crate::telemetry::server_operation::Target;

impl ServerHandler for ToolboxServer {
    // Lifecycle.

    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_tool_list_changed()
            .enable_logging()
            .build();
        let capabilities = self.upstream_task_capabilities(
            self.tasks
                .capabilities(self.composed.capabilities(capabilities)),
        );
        let config = ServerConfig::new(capabilities).with_server_info(self.info.clone());
        match &self.instructions {
            Some(instructions) => config.with_instructions(instructions.clone()),
            None => config,
        }
    }

    /// `rmcp`'s `initialize`, and the session held to be told of tool list changes: here,
    /// before the client has the result, so no change after it is missed.
    async fn initialize(
        &self,
        request: InitializeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<InitializeResult, ErrorData> {
        let operation = self.operation("initialize", &Target::default(), &context);
        operation
            .run(async {
                context.peer.set_peer_info(request.clone());
                self.list_changed.add_session(context.peer);
                let result = self.negotiate_initialize(&request);
                if let (Ok(result), Some(session)) = (&result, &self.telemetry.session) {
                    session.open(Some(result.protocol_version.as_str().to_owned()));
                }
                result
            })
            .await
    }

    // Tools.

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let operation = self.operation("tools/list", &Target::default(), &context);
        operation
            .run(async {
                let cursor = request.and_then(|request| request.cursor);
                let version = message::protocol_version(context.protocol_version());
                let tools = self.tools.current();
                // Under a policy, the caller's own list (its cacheScope "private").
                let view = self.view(&tools, tool_call::caller(&context))?;
                let listed = match &view {
                    Some(view) => &view.listing,
                    None => tools
                        .disclosed
                        .as_ref()
                        .map_or(&tools.toolbox, |disclosed| &disclosed.listing),
                };
                let page = listed
                    .list_for(version, cursor.as_deref())
                    .map_err(error_data)?;
                message::list_to_rmcp(&page)
            })
            .await
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let target = Target {
            tool: Some(&request.name),
            arguments: request.arguments.as_ref(),
            ..Target::default()
        };
        let operation = self.operation("tools/call", &target, &context);
        operation.run(self.call_tool_traced(request, context)).await
    }

    /// The tool's `inputSchema`, for `rmcp`'s check of `x-mcp-header` parameters against
    /// their `Mcp-Param-*` headers (MCP 2026-07-28, Streamable HTTP).
    fn get_tool(&self, name: &str) -> Option<RmcpTool> {
        self.tools.current().rmcp_tool(name)
    }

    /// A request `rmcp` could not read as its method: `-32602` for an MCP method whose
    /// params do not fit, `-32601` for another method.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(compat::misrouted::error(&request))
    }

    // Tool list changes under MCP 2026-07-28: `subscriptions/listen`.

    fn accepted_subscription_filter(
        &self,
        requested: &SubscriptionFilter,
    ) -> Option<SubscriptionFilter> {
        Some(ListChanged::accepted_filter(requested))
    }

    async fn listen(&self, subscription: SubscriptionContext) -> Result<(), ErrorData> {
        self.list_changed.listen(subscription).await
    }

    // Logging.

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let operation = self.operation("logging/setLevel", &Target::default(), &context);
        operation
            .run(async {
                let level = message::log_level_from_rmcp(&request.level);
                *lock(&self.log_level) = level;
                Ok(())
            })
            .await
    }

    // Tasks (the tasks extension, `running_tasks/mod.rs`; those of other servers: `task_route.rs`).

    async fn get_task(
        &self,
        request: GetTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<GetTaskResult, ErrorData> {
        let operation = self.operation("tasks/get", &Target::default(), &context);
        operation
            .run(async {
                if let Some((upstream, from)) = self.upstream_task(&request.task_id, &context) {
                    return upstream.get_task(request, from).await;
                }
                let caller = tool_call::caller(&context);
                self.tasks.get_task(&self.tools, &request, caller).await
            })
            .await
    }

    async fn update_task(
        &self,
        request: UpdateTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let operation = self.operation("tasks/update", &Target::default(), &context);
        operation
            .run(async {
                if let Some((upstream, from)) = self.upstream_task(&request.task_id, &context) {
                    return upstream.update_task(request, from).await;
                }
                let caller = tool_call::caller(&context);
                self.tasks.update_task(&self.tools, request, caller).await
            })
            .await
    }

    async fn cancel_task(
        &self,
        request: CancelTaskParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let operation = self.operation("tasks/cancel", &Target::default(), &context);
        operation
            .run(async {
                if let Some((upstream, from)) = self.upstream_task(&request.task_id, &context) {
                    return upstream.cancel_task(request, from).await;
                }
                let caller = tool_call::caller(&context);
                self.tasks.cancel_task(&self.tools, &request, caller).await
            })
            .await
    }

    // Prompts, resources and completion: the handler of `with_handler` (`compose.rs`).

    async fn complete(
        &self,
        request: CompleteRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let operation = self.operation("completion/complete", &Target::default(), &context);
        operation
            .run(async { self.composed.handler().complete(request, context).await })
            .await
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        let operation = self.operation(
            "prompts/get",
            &Target {
                prompt: Some(&request.name),
                ..Target::default()
            },
            &context,
        );
        operation
            .run(async {
                // A gateway's passthrough seals its upstreams' `requestState` with this server's key.
                context.extensions.insert(self.sealer.clone());
                self.composed.handler().get_prompt(request, context).await
            })
            .await
    }

    async fn list_prompts(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let operation = self.operation("prompts/list", &Target::default(), &context);
        operation
            .run(async { self.composed.handler().list_prompts(request, context).await })
            .await
    }

    async fn list_resources(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let operation = self.operation("resources/list", &Target::default(), &context);
        operation
            .run(async {
                self.composed
                    .handler()
                    .list_resources(request, context)
                    .await
            })
            .await
    }

    async fn list_resource_templates(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListResourceTemplatesResult, ErrorData> {
        let operation = self.operation("resources/templates/list", &Target::default(), &context);
        operation
            .run(async {
                self.composed
                    .handler()
                    .list_resource_templates(request, context)
                    .await
            })
            .await
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        mut context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let operation = self.operation(
            "resources/read",
            &Target {
                resource: Some(&request.uri),
                ..Target::default()
            },
            &context,
        );
        operation
            .run(async {
                context.extensions.insert(self.sealer.clone());
                self.composed
                    .handler()
                    .read_resource(request, context)
                    .await
            })
            .await
    }

    async fn subscribe(
        &self,
        request: SubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let operation = self.operation(
            "resources/subscribe",
            &Target {
                resource: Some(&request.uri),
                ..Target::default()
            },
            &context,
        );
        operation
            .run(async { self.composed.handler().subscribe(request, context).await })
            .await
    }

    async fn unsubscribe(
        &self,
        request: UnsubscribeRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let operation = self.operation(
            "resources/unsubscribe",
            &Target {
                resource: Some(&request.uri),
                ..Target::default()
            },
            &context,
        );
        operation
            .run(async { self.composed.handler().unsubscribe(request, context).await })
            .await
    }
}

impl ToolboxServer {
    /// The `isError` result of a `tools/call` of the tool served as `name` that a rate limit
    /// refuses (the call rules, and over stdio the request rules too); `None` when it may
    /// run, or the tool does not exist (its call fails as unknown).
    async fn rate_limited(
        &self,
        name: &str,
        context: &RequestContext<RoleServer>,
    ) -> Option<rmcp::model::CallToolResult> {
        let limits = self.rate_limits.get();
        let limits = Option::as_ref(&limits)?;
        let tools = self.tools.current();
        let (id, upstream) = tools.tool_id(name)?;
        let over_http = context.extensions.get::<http::request::Parts>().is_some();
        let counted = Counted::Call {
            id,
            upstream,
            with_request_rules: !over_http,
        };
        let refused = limits
            .check(tool_call::caller(context), counted)
            .await
            .err()?;
        Some(rmcp::model::CallToolResult::error(vec![
            rmcp::model::ContentBlock::text(format!("{refused}")),
        ]))
    }

    /// `tools/call`, inside its span ([`ServerHandler::call_tool`]).
    async fn call_tool_traced(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        // The toolbox whose scopes the front checked (with authorization), else the one
        // served when the call came: the call finishes on it, whatever replaces it meanwhile.
        let toolbox = tool_call::scopes_checked_on(&context)
            .cloned()
            .unwrap_or_else(|| self.tools.current().toolbox.clone());
        // Under tool search: `search_tools` answered, `call_tool` the call of the tool it names.
        let view = self.view(&self.tools.current(), tool_call::caller(&context))?;
        let request = match self.route_disclosed(&toolbox, request, &context, view.as_deref()) {
            Routed::Answered(answer) => return answer,
            Routed::Call(request) => request,
        };
        // A tool the caller may not see is answered as one that does not exist.
        if let Some(view) = &view
            && !view.sees(&request.name)
        {
            return Err(error_data(view.unknown(&request.name)));
        }
        if let Some(refused) = self.rate_limited(&request.name, &context).await {
            return Ok(CallToolResponse::Complete(refused));
        }
        if let Some(forwarded) = self.call_tool_upstream(&toolbox, &request, &context).await {
            return forwarded;
        }
        match task_call::call_tool(self, &toolbox, &request, &context).await {
            Some(task) => task,
            None => self.call(&toolbox, request, context).await,
        }
    }
}
