//! The `rmcp` [`ServerHandler`] impl of [`ToolboxServer`]: what each request does (see the
//! [module docs](crate::server)), on top of every other module of `server`.

use std::sync::Arc;

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        CallToolRequestParams, CallToolResponse, CustomRequest, CustomResult, ListToolsResult,
        PaginatedRequestParams, ServerCapabilities, ServerConfig, SetLevelRequestParams,
        Tool as RmcpTool,
    },
    service::RequestContext,
};

use super::{
    misrouted, task_call,
    toolbox_server::ToolboxServer,
    wire::{self, error_data},
};

impl ServerHandler for ToolboxServer {
    fn get_info(&self) -> ServerConfig {
        let capabilities = ServerCapabilities::builder()
            .enable_tools()
            .enable_logging()
            .build();
        let capabilities = self
            .tasks
            .capabilities(self.composed.capabilities(capabilities));
        let config = ServerConfig::new(capabilities).with_server_info(self.info.clone());
        match &self.instructions {
            Some(instructions) => config.with_instructions(instructions.clone()),
            None => config,
        }
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        let cursor = request.and_then(|request| request.cursor);
        let version = wire::protocol_version(context.protocol_version());
        let page = self
            .toolbox
            .list_for(version, cursor.as_deref())
            .map_err(error_data)?;
        wire::list_to_rmcp(&page)
    }

    async fn call_tool(
        &self,
        mut request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if let Some(task) = task_call::call_tool(self, &request, &context).await {
            return task;
        }
        let call = self.prepare_call(&request, &context, |peer| Arc::new(peer))?;
        // Input rounds seal the arguments into `requestState`, so they keep a copy.
        let arguments = if call.rounds {
            request.arguments.clone()
        } else {
            request.arguments.take()
        };
        let result = self.toolbox.call(&request.name, arguments, &call.cx);
        tokio::pin!(result);
        // `rmcp` cancels `ct` on `notifications/cancelled`; the handler sees it through its
        // context and decides how to stop.
        let result = tokio::select! {
            result = &mut result => result,
            () = context.ct.cancelled() => {
                call.cancellation.cancel();
                result.await
            }
        };
        let result = match result {
            Err(toolmodel::Error::InputRequired(required)) if call.rounds => {
                return self.input_required(&request, &call.cx, &required);
            }
            other => other.map_err(error_data)?,
        };
        let version = call.version;
        Ok(CallToolResponse::Complete(wire::result_to_rmcp(
            result, version,
        )?))
    }

    /// The tool's `inputSchema`, for `rmcp`'s check of `x-mcp-header` parameters against
    /// their `Mcp-Param-*` headers (MCP 2026-07-28, Streamable HTTP).
    fn get_tool(&self, name: &str) -> Option<RmcpTool> {
        self.rmcp_tools.get(name).cloned()
    }

    /// A request `rmcp` could not read as its method: `-32602` for an MCP method whose
    /// params do not fit, `-32601` for another method.
    async fn on_custom_request(
        &self,
        request: CustomRequest,
        _context: RequestContext<RoleServer>,
    ) -> Result<CustomResult, ErrorData> {
        Err(misrouted::error(&request))
    }

    async fn set_level(
        &self,
        request: SetLevelRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<(), ErrorData> {
        let level = wire::log_level_from_rmcp(&request.level);
        if let Ok(mut current) = self.log_level.lock() {
            *current = level;
        }
        Ok(())
    }

    // Prompts, resources, completion: the handler of `with_handler`.
    super::compose::forward_to_composed!();
    super::tasks::serve_tasks!();
}
