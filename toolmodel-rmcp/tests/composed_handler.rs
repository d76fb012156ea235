//! `ToolboxServer::with_handler`: a toolbox and another `rmcp` handler served as one server,
//! driven by `rmcp`'s client over an in-memory pipe.

use rmcp::{
    ErrorData, RoleServer, ServerHandler,
    model::{
        ArgumentInfo, CallToolRequestParams, CompleteRequestParams, CompleteResult, CompletionInfo,
        ErrorCode, GetPromptRequestParams, GetPromptResponse, GetPromptResult, ListPromptsResult,
        PaginatedRequestParams, Prompt, PromptMessage, Reference, Role, ServerCapabilities,
        ServerConfig,
    },
    service::{RequestContext, ServiceError},
};
use serde_json::json;
use toolmodel::{CallToolResult, Tool, ToolSchema, Toolbox};
use toolmodel_rmcp::ToolboxServer;

use crate::support::pipe::connect;

fn echo_toolbox() -> Toolbox {
    Toolbox::builder()
        .with_tool(
            Tool::new("echo", ToolSchema::empty_object()),
            |_, _| async { Ok(CallToolResult::text("from the toolbox")) },
        )
        .build()
        .expect("toolbox")
}

/// A prompt and completion, and a tool method that must never be reached.
struct Prompts;

impl ServerHandler for Prompts {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_prompts()
                .enable_completions()
                .build(),
        )
        .with_server_info(rmcp::model::Implementation::new("not-this-name", "0"))
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "greet",
            Some("Greets"),
            None,
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != "greet" {
            return Err(ErrorData::invalid_params("unknown prompt", None));
        }
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, "Hello!")]).into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let values = vec![format!("{}-done", request.argument.value)];
        Ok(CompleteResult::new(
            CompletionInfo::with_all_values(values).expect("one value"),
        ))
    }

    async fn call_tool(
        &self,
        _request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<rmcp::model::CallToolResponse, ErrorData> {
        Err(ErrorData::internal_error(
            "the composed handler's tools are never called",
            None,
        ))
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_handler_serves_prompts_and_completion_beside_the_tools() {
    let server = ToolboxServer::new(echo_toolbox())
        .with_server_info("composed", "1.0")
        .with_handler(Prompts);
    let service = connect(server, ()).await;

    let info = service.peer_info().expect("initialize result");
    let capabilities = &info.capabilities;
    assert!(capabilities.tools.is_some(), "the toolbox's tools");
    assert!(capabilities.logging.is_some(), "the toolbox's logging");
    assert!(capabilities.prompts.is_some(), "the handler's prompts");
    assert!(
        capabilities.completions.is_some(),
        "the handler's completions"
    );
    assert!(capabilities.resources.is_none(), "declared by neither part");
    assert_eq!(
        info.server_info.as_ref().map(|i| i.name.as_str()),
        Some("composed")
    );

    let prompts = service.list_all_prompts().await.expect("prompts/list");
    assert_eq!(prompts.len(), 1);
    assert_eq!(prompts[0].name, "greet");
    let prompt = service
        .get_prompt(GetPromptRequestParams::new("greet"))
        .await
        .expect("prompts/get");
    assert_eq!(
        serde_json::to_value(&prompt.messages).expect("json")[0]["content"]["text"],
        json!("Hello!")
    );
    let completion = service
        .complete(CompleteRequestParams::new(
            Reference::for_prompt("greet"),
            ArgumentInfo::new("name", "wor"),
        ))
        .await
        .expect("completion/complete");
    assert_eq!(completion.completion.values, ["wor-done"]);

    // tools/call still goes to the toolbox, not to the handler's call_tool.
    let result = service
        .call_tool(CallToolRequestParams::new("echo"))
        .await
        .expect("tools/call");
    assert_eq!(
        serde_json::to_value(&result.content).expect("json")[0]["text"],
        json!("from the toolbox")
    );
    service.cancel().await.expect("closes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn without_a_handler_prompts_are_not_served() {
    let service = connect(ToolboxServer::new(echo_toolbox()), ()).await;
    let capabilities = &service.peer_info().expect("initialize result").capabilities;
    assert!(capabilities.prompts.is_none() && capabilities.completions.is_none());
    match service.list_prompts(None).await {
        Err(ServiceError::McpError(error)) => assert_eq!(error.code, ErrorCode::METHOD_NOT_FOUND),
        other => panic!("expected -32601, got {other:?}"),
    }
    service.cancel().await.expect("closes");
}

#[test]
fn a_second_handler_replaces_the_first_and_debug_names_it() {
    struct Other;
    impl ServerHandler for Other {}
    let server = ToolboxServer::new(echo_toolbox())
        .with_handler(Prompts)
        .with_handler(Other);
    assert!(server.get_info().capabilities.prompts.is_none());
    let debug = format!("{server:?}");
    assert!(debug.contains("Other"), "{debug}");
}
