//! The server the official MCP conformance suite (`@modelcontextprotocol/conformance`) tests:
//! every tool its server scenarios call, each a `#[derive(Tool)]` type with a handler, served
//! by `toolmodel-rmcp`, composed with the suite's prompts, resources and completion (an `rmcp`
//! handler, `toolmodel_examples::conformance_fixtures`). `conformance/run.sh` starts it with
//! `--http 127.0.0.1:0`.
//!
//! What each tool does is what the suite's scenarios ask for (`src/scenarios/server/tools.ts`
//! and `json-schema-2020-12.ts` of `modelcontextprotocol/conformance`).
//!
//! `json_schema_2020_12_tool` is the one hand-built `Tool` (`ToolboxBuilder::with_tool`): its
//! schema must reach the client as written (`$schema`, `$defs` with an `$anchor`, `allOf`/
//! `anyOf`, `if`/`then`/`else`, `additionalProperties: false`), and `schemars` cannot write
//! `$anchor`, `if`/`then`/`else` or a `$defs` key other than the type's name from a Rust type,
//! whatever the derive's `schema(keep_...)` switches keep.

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Map, Value, json};
use toolmodel::{
    AudioContent, CallContext, CallToolResult, ContentBlock, EmbeddedResource, ImageContent,
    LogLevel, NoArguments, TextResourceContents, Tool, ToolError, ToolHandler, ToolSchema, Toolbox,
    schemars::{self, JsonSchema},
};
use toolmodel_examples::{
    conformance_fixtures::{Fixtures, RED_PIXEL_PNG},
    serve::{run, transport_from_args},
    task_fixtures::{Echo, FailingJob, Greet, ProtocolErrorJob, SlowCompute},
};
use toolmodel_rmcp::ToolboxServer;

fn red_pixel() -> ContentBlock {
    let mut image = ImageContent::default();
    image.data = RED_PIXEL_PNG.to_owned();
    image.mime_type = "image/png".to_owned();
    ContentBlock::Image(image)
}

/// A WAV file of one silent sample: 8 kHz, mono, 16-bit PCM.
fn silent_wav() -> Vec<u8> {
    let sample_rate: u32 = 8_000;
    let data: [u8; 2] = [0, 0];
    let mut wav = Vec::with_capacity(46);
    wav.extend_from_slice(b"RIFF");
    wav.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
    wav.extend_from_slice(b"WAVEfmt ");
    wav.extend_from_slice(&16u32.to_le_bytes()); // fmt chunk size
    wav.extend_from_slice(&1u16.to_le_bytes()); // PCM
    wav.extend_from_slice(&1u16.to_le_bytes()); // channels
    wav.extend_from_slice(&sample_rate.to_le_bytes());
    wav.extend_from_slice(&(sample_rate * 2).to_le_bytes()); // bytes per second
    wav.extend_from_slice(&2u16.to_le_bytes()); // block align
    wav.extend_from_slice(&16u16.to_le_bytes()); // bits per sample
    wav.extend_from_slice(b"data");
    wav.extend_from_slice(&(data.len() as u32).to_le_bytes());
    wav.extend_from_slice(&data);
    wav
}

fn text_resource(uri: &str, mime_type: &str, text: &str) -> ContentBlock {
    let mut contents = TextResourceContents::new(uri, text);
    contents.mime_type = Some(mime_type.to_owned());
    ContentBlock::Resource(EmbeddedResource::new(contents))
}

/// Returns a simple text response.
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_simple_text")]
pub struct SimpleText;

impl ToolHandler for SimpleText {
    type Reply = &'static str;
    async fn call(&self, _: NoArguments, _cx: &CallContext) -> Result<&'static str, ToolError> {
        Ok("This is a simple text response for testing.")
    }
}

/// Returns a 1x1 red PNG image.
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_image_content")]
pub struct ImageTool;

impl ToolHandler for ImageTool {
    type Reply = ContentBlock;
    async fn call(&self, _: NoArguments, _cx: &CallContext) -> Result<ContentBlock, ToolError> {
        Ok(red_pixel())
    }
}

/// Returns a short WAV sound.
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_audio_content")]
pub struct AudioTool;

impl ToolHandler for AudioTool {
    type Reply = ContentBlock;
    async fn call(&self, _: NoArguments, _cx: &CallContext) -> Result<ContentBlock, ToolError> {
        Ok(ContentBlock::Audio(AudioContent::from_bytes(
            &silent_wav(),
            "audio/wav",
        )))
    }
}

/// Returns an embedded text resource.
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_embedded_resource")]
pub struct EmbeddedResourceTool;

impl ToolHandler for EmbeddedResourceTool {
    type Reply = ContentBlock;
    async fn call(&self, _: NoArguments, _cx: &CallContext) -> Result<ContentBlock, ToolError> {
        Ok(text_resource(
            "test://embedded-resource",
            "text/plain",
            "This is an embedded resource content.",
        ))
    }
}

/// Returns text, an image and an embedded resource in one result.
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_multiple_content_types")]
pub struct MixedContent;

impl ToolHandler for MixedContent {
    type Reply = CallToolResult;
    async fn call(&self, _: NoArguments, _cx: &CallContext) -> Result<CallToolResult, ToolError> {
        Ok(CallToolResult::from_content([
            ContentBlock::text("Multiple content types test:"),
            red_pixel(),
            text_resource(
                "test://mixed-content-resource",
                "application/json",
                &json!({"test": "data", "value": 123}).to_string(),
            ),
        ]))
    }
}

/// Sends three log messages while it runs, 50 ms apart.
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_tool_with_logging")]
pub struct WithLogging;

impl ToolHandler for WithLogging {
    type Reply = &'static str;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<&'static str, ToolError> {
        cx.log(LogLevel::Info, json!("Tool execution started"))
            .await?;
        tokio::time::sleep(Duration::from_millis(50)).await;
        cx.log(LogLevel::Info, json!("Tool processing data"))
            .await?;
        tokio::time::sleep(Duration::from_millis(50)).await;
        cx.log(LogLevel::Info, json!("Tool execution completed"))
            .await?;
        Ok("Tool with logging executed successfully")
    }
}

/// Always fails, with an `isError` result.
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_error_handling")]
pub struct ErrorHandling;

impl ToolHandler for ErrorHandling {
    type Reply = &'static str;
    async fn call(&self, _: NoArguments, _cx: &CallContext) -> Result<&'static str, ToolError> {
        Err(ToolError::new(
            "This tool intentionally returns an error for testing",
        ))
    }
}

/// Reports progress 0, 50 and 100 of 100, 50 ms apart, when the request has a progress token.
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_tool_with_progress")]
pub struct WithProgress;

impl ToolHandler for WithProgress {
    type Reply = &'static str;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<&'static str, ToolError> {
        for step in [0.0, 50.0, 100.0] {
            if step > 0.0 {
                tokio::time::sleep(Duration::from_millis(50)).await;
            }
            cx.progress(step, Some(100.0), None).await?;
        }
        Ok("Tool with progress executed successfully")
    }
}

/// Asks the client's model to answer a prompt (`sampling/createMessage`).
#[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
#[tool(name = "test_sampling")]
pub struct Sampling {
    /// The prompt to send to the model.
    pub prompt: String,
}

impl ToolHandler for Sampling {
    type Reply = String;
    async fn call(&self, args: Sampling, cx: &CallContext) -> Result<String, ToolError> {
        let reply = cx
            .create_message(json!({
                "messages": [{"role": "user", "content": {"type": "text", "text": args.prompt}}],
                "maxTokens": 100
            }))
            .await?;
        let text = reply
            .pointer("/content/text")
            .and_then(Value::as_str)
            .unwrap_or("(no text)");
        Ok(format!("LLM response: {text}"))
    }
}

/// Asks the user for a username and an email (`elicitation/create`).
#[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
#[tool(name = "test_elicitation")]
pub struct Elicitation {
    /// The message to show the user.
    pub message: String,
}

impl ToolHandler for Elicitation {
    type Reply = String;
    async fn call(&self, args: Elicitation, cx: &CallContext) -> Result<String, ToolError> {
        let reply = cx
            .elicit(json!({
                "message": args.message,
                "requestedSchema": {
                    "type": "object",
                    "properties": {
                        "username": {"type": "string", "description": "User's response"},
                        "email": {"type": "string", "description": "User's email address"}
                    },
                    "required": ["username", "email"]
                }
            }))
            .await?;
        let action = reply.get("action").and_then(Value::as_str).unwrap_or("");
        let content = reply.get("content").cloned().unwrap_or_else(|| json!({}));
        Ok(format!("User response: action={action}, content={content}"))
    }
}

/// The `inputSchema` the `json-schema-2020-12` scenario checks is kept as written.
fn json_schema_2020_12_tool() -> Result<Tool, toolmodel::Error> {
    let schema = ToolSchema::try_from(json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "$defs": {
            "address": {
                "$anchor": "addressDef",
                "type": "object",
                "properties": {
                    "street": {"type": "string"},
                    "city": {"type": "string"}
                }
            }
        },
        "properties": {
            "name": {"type": "string"},
            "address": {"$ref": "#/$defs/address"},
            "contactMethod": {"type": "string", "enum": ["phone", "email"]},
            "phone": {"type": "string"},
            "email": {"type": "string"}
        },
        "allOf": [{"anyOf": [{"required": ["phone"]}, {"required": ["email"]}]}],
        "if": {
            "properties": {"contactMethod": {"const": "phone"}},
            "required": ["contactMethod"]
        },
        "then": {"required": ["phone"]},
        "else": {"required": ["email"]},
        "additionalProperties": false
    }))?;
    let mut tool = Tool::new("json_schema_2020_12_tool", schema);
    tool.description = Some("Tool with JSON Schema 2020-12 features".to_owned());
    Ok(tool)
}

/// Every tool of the conformance scenarios.
///
/// # Errors
///
/// [`toolmodel::Error::InvalidToolbox`] if a tool were invalid (none is).
pub fn toolbox() -> Result<Toolbox, toolmodel::Error> {
    Toolbox::builder()
        .with(SimpleText)
        .with(ImageTool)
        .with(AudioTool)
        .with(EmbeddedResourceTool)
        .with(MixedContent)
        .with(WithLogging)
        .with(ErrorHandling)
        .with(WithProgress)
        .with(Sampling::default())
        .with(Elicitation::default())
        // The tasks extension scenarios' tools (`toolmodel_examples::task_fixtures`).
        .with(Echo::default())
        .with(Greet::default())
        .with(SlowCompute::default())
        .with(FailingJob)
        .with(ProtocolErrorJob)
        .with_tool(
            json_schema_2020_12_tool()?,
            |arguments: Map<String, Value>, _cx| async move {
                Ok(CallToolResult::text(format!(
                    "Received: {}",
                    Value::Object(arguments)
                )))
            },
        )
        .build()
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let transport = transport_from_args(std::env::args().skip(1))?;
    // The toolbox serves the tools; the suite's prompts, resources and completion come from an
    // rmcp handler composed with it.
    let server = ToolboxServer::new(toolbox()?)
        .with_server_info("toolmodel-conformance", env!("CARGO_PKG_VERSION"))
        .with_handler(Fixtures);
    run(server, "toolmodel-conformance", transport).await
}
