//! A `ToolboxServer` as one part of your own MCP server: its tools come from a `Toolbox`
//! (`#[derive(Tool)]` types with handlers, arguments validated), and its prompts, resources
//! and completion from an `rmcp` `ServerHandler` you write, composed with
//! `ToolboxServer::with_handler`. Both parts share the notes the server keeps.
//!
//! `cargo run --example composed_server` serves over stdio; `-- --http 127.0.0.1:8080` over
//! Streamable HTTP. A client sees the tool `add_note`, one resource `note://N` per note, the
//! prompt `summarize` (its `style` argument completes) and the capabilities of both parts.

use std::sync::{Arc, Mutex};

use serde::Deserialize;
use serde_json::json;
use toolmodel::{
    CallContext, SyncToolHandler, ToolError, Toolbox,
    schemars::{self, JsonSchema},
};
use toolmodel_examples::serve::{run, transport_from_args};
use toolmodel_rmcp::{
    ToolboxServer,
    rmcp::{
        ErrorData, RoleServer, ServerHandler,
        model::{
            CompleteRequestParams, CompleteResult, CompletionInfo, GetPromptRequestParams,
            GetPromptResponse, GetPromptResult, ListPromptsResult, ListResourcesResult,
            PaginatedRequestParams, Prompt, PromptArgument, PromptMessage,
            ReadResourceRequestParams, ReadResourceResponse, ReadResourceResult, Resource,
            ResourceContents, Role, ServerCapabilities, ServerConfig,
        },
        service::RequestContext,
    },
};

/// The notes both parts of the server see.
type Notes = Arc<Mutex<Vec<String>>>;

fn read(notes: &Notes) -> Vec<String> {
    notes.lock().map(|notes| notes.clone()).unwrap_or_default()
}

/// Keeps a note; it becomes the resource `note://N`.
#[derive(toolmodel::Tool)]
#[tool(input = AddNoteArgs)]
struct AddNote {
    notes: Notes,
}

#[derive(Deserialize, JsonSchema)]
struct AddNoteArgs {
    /// The note's text, not empty.
    #[schemars(length(min = 1))]
    text: String,
}

impl SyncToolHandler for AddNote {
    type Reply = String;
    fn call_sync(&self, args: AddNoteArgs, _cx: &CallContext) -> Result<String, ToolError> {
        let mut notes = self
            .notes
            .lock()
            .map_err(|_| ToolError::new("the notes are unavailable"))?;
        notes.push(args.text);
        Ok(format!("kept as note://{}", notes.len() - 1))
    }
}

/// The rest of the server: the notes as resources, a prompt over them, completion.
struct NotesHandler {
    notes: Notes,
}

const STYLES: [&str; 3] = ["brief", "bullets", "detailed"];

impl ServerHandler for NotesHandler {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(
            ServerCapabilities::builder()
                .enable_prompts()
                .enable_resources()
                .enable_completions()
                .build(),
        )
    }

    async fn list_resources(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListResourcesResult, ErrorData> {
        let resources = (0..read(&self.notes).len())
            .map(|n| {
                Resource::new(format!("note://{n}"), format!("note {n}"))
                    .with_mime_type("text/plain")
            })
            .collect();
        Ok(ListResourcesResult::with_all_items(resources))
    }

    async fn read_resource(
        &self,
        request: ReadResourceRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<ReadResourceResponse, ErrorData> {
        let notes = read(&self.notes);
        let note = request
            .uri
            .strip_prefix("note://")
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| notes.get(n));
        match note {
            Some(text) => Ok(ReadResourceResult::new(vec![
                ResourceContents::text(text.clone(), request.uri.clone())
                    .with_mime_type("text/plain"),
            ])
            .into()),
            None => Err(ErrorData::resource_not_found(
                format!("no note {}", request.uri),
                Some(json!({"uri": request.uri})),
            )),
        }
    }

    async fn list_prompts(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListPromptsResult, ErrorData> {
        let style = PromptArgument::new("style").with_description("brief, bullets or detailed");
        Ok(ListPromptsResult::with_all_items(vec![Prompt::new(
            "summarize",
            Some("Summarize the notes"),
            Some(vec![style]),
        )]))
    }

    async fn get_prompt(
        &self,
        request: GetPromptRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<GetPromptResponse, ErrorData> {
        if request.name != "summarize" {
            return Err(ErrorData::invalid_params(
                format!("unknown prompt {:?}", request.name),
                None,
            ));
        }
        let style = request
            .arguments
            .as_ref()
            .and_then(|arguments| arguments.get("style"))
            .and_then(|style| style.as_str())
            .unwrap_or("brief");
        let text = format!(
            "Summarize these notes ({style}):\n{}",
            read(&self.notes).join("\n")
        );
        Ok(GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)]).into())
    }

    async fn complete(
        &self,
        request: CompleteRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CompleteResult, ErrorData> {
        let values = STYLES
            .iter()
            .filter(|style| style.starts_with(request.argument.value.as_str()))
            .map(|style| (*style).to_owned())
            .collect();
        let completion = CompletionInfo::with_all_values(values)
            .map_err(|err| ErrorData::internal_error(err, None))?;
        Ok(CompleteResult::new(completion))
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let transport = transport_from_args(std::env::args().skip(1))?;
    let notes = Notes::default();
    let toolbox = Toolbox::builder()
        .with(AddNote {
            notes: notes.clone(),
        })
        .build()?;
    let server = ToolboxServer::new(toolbox)
        .with_server_info("notes", env!("CARGO_PKG_VERSION"))
        .with_handler(NotesHandler { notes });
    run(server, "notes", transport).await
}
