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
//!
//! **Replicas** (`scale/run.sh`): with `MCP_REPLICA=NAME` in its environment the server also
//! lists `scale_replica` (read-only, idempotent), whose results name the replica that answered
//! and, after an input round, the one that asked, in `_meta["toolmodel.example/replica"]`
//! (`{"answeredBy": NAME, "askedBy": NAME-or-null}`): how a client behind a load balancer tells
//! replicas apart. `serverInfo` is the same on every replica, so that `tools/list` and
//! `server/discover` are identical from each. Without `MCP_REPLICA` the tool is not listed and
//! the server is exactly what the conformance suite tests.

use std::{sync::OnceLock, time::Duration};

use serde::Deserialize;
use serde_json::{Map, Value, json};
use toolmodel::{
    CallContext, CallToolResult, NoArguments, Tool, ToolError, ToolHandler, ToolSchema, Toolbox,
    ToolboxBuilder,
    content::ContentBlock,
    content::{AudioContent, EmbeddedResource, ImageContent, TextResourceContents},
    input::{ClientCapability, ElicitRequest, InputRequest, InputRequests, InputResponses},
    peer::LoggingLevel,
    schemars::{self, JsonSchema},
};
use toolmodel_examples::{
    conformance_fixtures::{Fixtures, RED_PIXEL_PNG},
    serve::{run, transport_from_args, with_task_store},
    task_fixtures::{
        ConfirmDelete, Echo, FailingJob, Greet, MultiInput, ProtocolErrorJob, SlowCompute,
        ToolWithTask,
    },
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
        cx.log(LoggingLevel::Info, json!("Tool execution started"))
            .await?;
        tokio::time::sleep(Duration::from_millis(50)).await;
        cx.log(LoggingLevel::Info, json!("Tool processing data"))
            .await?;
        tokio::time::sleep(Duration::from_millis(50)).await;
        cx.log(LoggingLevel::Info, json!("Tool execution completed"))
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
        // `input` works for 2025-11-25 clients (a `sampling/createMessage` request) and
        // 2026-07-28 ones (an `InputRequiredResult`, then the retry).
        let question = InputRequest::sample_text(args.prompt, 100);
        let answers = cx
            .input(InputRequests::new().with("reply", question))
            .await?;
        let text = answers
            .create_message("reply")
            .and_then(|reply| reply.text());
        Ok(format!(
            "LLM response: {}",
            text.as_deref().unwrap_or("(no text)")
        ))
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
        let form = ElicitRequest::form(
            args.message,
            json!({
                "type": "object",
                "properties": {
                    "username": {"type": "string", "description": "User's response"},
                    "email": {"type": "string", "description": "User's email address"}
                },
                "required": ["username", "email"]
            }),
        );
        let answers = cx
            .input(InputRequests::new().with("user", InputRequest::Elicit(form)))
            .await?;
        let reply = answers
            .elicit("user")
            .ok_or_else(|| ToolError::new("no answer"))?;
        let action = serde_json::to_value(reply.action).unwrap_or_default();
        let action = action.as_str().unwrap_or_default();
        let content = reply
            .content
            .clone()
            .map_or_else(|| json!({}), Value::Object);
        Ok(format!("User response: action={action}, content={content}"))
    }
}

/// A form of one string field, for the 2026-07-28 input scenarios.
fn form(message: &str, field: &str, kind: &str) -> InputRequest {
    InputRequest::Elicit(ElicitRequest::form(
        message,
        json!({"type": "object", "properties": {field: {"type": kind}}, "required": [field]}),
    ))
}

/// The accepted form's `field`, as text.
fn field(answers: &InputResponses, key: &str, field: &str) -> String {
    match answers.elicit(key).and_then(|reply| reply.field(field)) {
        Some(Value::String(text)) => text.clone(),
        Some(other) => other.to_string(),
        None => "(none)".to_owned(),
    }
}

/// Asks the user's name in one input round (`input-required-result-basic-elicitation`).
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_input_required_result_elicitation")]
pub struct InputElicitation;

/// Asks the user's name in one form elicitation (input key `user_name`) and greets them: the
/// body of `test_input_required_result_elicitation` and `test_streaming_elicitation`.
async fn greet_by_name(cx: &CallContext) -> Result<String, ToolError> {
    let ask = form("What is your name?", "name", "string");
    let answers = cx
        .input(InputRequests::new().with("user_name", ask))
        .await?;
    Ok(format!("Hello, {}!", field(&answers, "user_name", "name")))
}

impl ToolHandler for InputElicitation {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        greet_by_name(cx).await
    }
}

/// Asks the model a question in one input round (`input-required-result-basic-sampling`).
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_input_required_result_sampling")]
pub struct InputSampling;

impl ToolHandler for InputSampling {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        let ask = InputRequest::sample_text("What is the capital of France?", 100);
        let answers = cx
            .input(InputRequests::new().with("capital_question", ask))
            .await?;
        let text = answers
            .create_message("capital_question")
            .and_then(|reply| reply.text());
        Ok(format!(
            "LLM response: {}",
            text.as_deref().unwrap_or("(no text)")
        ))
    }
}

/// Asks the client's roots in one input round (`input-required-result-basic-list-roots`).
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_input_required_result_list_roots")]
pub struct InputListRoots;

impl ToolHandler for InputListRoots {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        let requests = InputRequests::new().with("client_roots", InputRequest::ListRoots);
        let answers = cx.input(requests).await?;
        let roots: Vec<String> = answers
            .roots("client_roots")
            .map(|list| list.roots.iter().map(|root| root.uri.clone()).collect())
            .unwrap_or_default();
        Ok(format!("Roots: {}", roots.join(", ")))
    }
}

/// Asks for a confirmation with a state of its own, read back on the retry
/// (`input-required-result-request-state`, `input-required-result-tampered-state`).
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_input_required_result_request_state")]
pub struct InputRequestState;

impl ToolHandler for InputRequestState {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        confirm(cx).await
    }
}

/// The same as `test_input_required_result_request_state`, for the tampering scenario.
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_input_required_result_tampered_state")]
pub struct InputTamperedState;

impl ToolHandler for InputTamperedState {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        confirm(cx).await
    }
}

/// One confirmation; "state-ok" when the state set before asking came back verified.
async fn confirm(cx: &CallContext) -> Result<String, ToolError> {
    let earlier: Option<String> = cx.state()?;
    cx.set_state(&"asked for confirmation")?;
    let ask = form("Please confirm", "ok", "boolean");
    let answers = cx.input(InputRequests::new().with("confirm", ask)).await?;
    let state = if earlier.is_some() {
        "state-ok"
    } else {
        "state-new"
    };
    Ok(format!(
        "{state}: confirmed={}",
        field(&answers, "confirm", "ok")
    ))
}

/// Asks for a name, a model's greeting and the roots in one round
/// (`input-required-result-multiple-input-requests`).
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_input_required_result_multiple_inputs")]
pub struct InputMultiple;

impl ToolHandler for InputMultiple {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        let requests = InputRequests::new()
            .with("user_name", form("What is your name?", "name", "string"))
            .with(
                "greeting",
                InputRequest::sample_text("Generate a greeting", 50),
            )
            .with("client_roots", InputRequest::ListRoots);
        let answers = cx.input(requests).await?;
        let greeting = answers
            .create_message("greeting")
            .and_then(|reply| reply.text());
        let roots = answers
            .roots("client_roots")
            .map_or(0, |list| list.roots.len());
        Ok(format!(
            "{} {}; {roots} roots",
            greeting.as_deref().unwrap_or("Hello"),
            field(&answers, "user_name", "name")
        ))
    }
}

/// Asks a name, then a color: two rounds (`input-required-result-multi-round`).
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_input_required_result_multi_round")]
pub struct InputMultiRound;

impl ToolHandler for InputMultiRound {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        let step1 = form("Step 1: What is your name?", "name", "string");
        let first = cx.input(InputRequests::new().with("step1", step1)).await?;
        let step2 = form("Step 2: What is your favorite color?", "color", "string");
        let second = cx.input(InputRequests::new().with("step2", step2)).await?;
        Ok(format!(
            "{} likes {}",
            field(&first, "step1", "name"),
            field(&second, "step2", "color")
        ))
    }
}

/// Asks only for what the client declared: elicitation if it can, sampling if it can
/// (`input-required-result-capability-check`).
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_input_required_result_capabilities")]
pub struct InputCapabilities;

impl ToolHandler for InputCapabilities {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        let mut requests = InputRequests::new();
        if cx.declares(ClientCapability::ElicitationForm) {
            requests.insert("user_name", form("What is your name?", "name", "string"));
        }
        if cx.declares(ClientCapability::Sampling) {
            requests.insert(
                "greeting",
                InputRequest::sample_text("Generate a greeting", 50),
            );
        }
        if requests.is_empty() {
            return Ok("The client can answer nothing.".to_owned());
        }
        let answers = cx.input(requests).await?;
        Ok(format!("Got {} answers", answers.len()))
    }
}

/// Needs sampling whatever the client declared: `-32021` when it did not (`server-stateless`).
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_missing_capability")]
pub struct MissingCapability;

impl ToolHandler for MissingCapability {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        let ask = InputRequest::sample_text("Say something", 20);
        let answers = cx.input(InputRequests::new().with("sample", ask)).await?;
        let text = answers
            .create_message("sample")
            .and_then(|reply| reply.text());
        Ok(text.unwrap_or_default())
    }
}

/// Asks for input on a streamed call: under 2026-07-28 the stream carries an
/// `InputRequiredResult`, never a server-to-client request (`server-stateless`).
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_streaming_elicitation")]
pub struct StreamingElicitation;

impl ToolHandler for StreamingElicitation {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        cx.progress(0.0, Some(1.0), Some("asking")).await.ok();
        greet_by_name(cx).await
    }
}

/// Logs at every level; under 2026-07-28 only a request with a `logLevel` gets them
/// (`server-stateless`).
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_logging_tool")]
pub struct LoggingTool;

impl ToolHandler for LoggingTool {
    type Reply = &'static str;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<&'static str, ToolError> {
        for level in [LoggingLevel::Debug, LoggingLevel::Info, LoggingLevel::Error] {
            cx.log(level, json!(format!("a {level:?} message")))
                .await
                .ok();
        }
        Ok("Logged at debug, info and error.")
    }
}

/// The server this process runs, set once in `main`, for [`TriggerToolChange`].
static SERVER: OnceLock<ToolboxServer> = OnceLock::new();

/// Serves the same tools again through `ToolboxServer::set_toolbox`, so that every client is
/// told the tool list changed (`notifications/tools/list_changed`: to each initialized session,
/// and under 2026-07-28 on each `subscriptions/listen` stream that asks for
/// `toolsListChanged`): the hook of `server-stateless`'s list-changed checks.
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_trigger_tool_change")]
pub struct TriggerToolChange;

impl ToolHandler for TriggerToolChange {
    type Reply = &'static str;
    async fn call(&self, _: NoArguments, _cx: &CallContext) -> Result<&'static str, ToolError> {
        let server = SERVER
            .get()
            .ok_or_else(|| ToolError::new("no server is running in this process"))?;
        server.set_toolbox(server.toolbox());
        Ok("The tool list changed.")
    }
}

/// The environment variable naming this replica (`scale/run.sh`); when set, `scale_replica`
/// is served.
pub const REPLICA_ENV: &str = "MCP_REPLICA";

/// The `_meta` key of `scale_replica`'s results.
pub const REPLICA_META: &str = "toolmodel.example/replica";

/// This process's replica name, from [`REPLICA_ENV`], set once in `main`.
static REPLICA: OnceLock<String> = OnceLock::new();

/// Names the replica that answers (`_meta["toolmodel.example/replica"].answeredBy`); with
/// `ask`, it first asks a name in one input round and also names the replica that asked
/// (`askedBy`, carried in the sealed `requestState`), so a client sees whether its retry landed
/// on another replica. Served only when `MCP_REPLICA` is set (`scale/run.sh`).
#[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
#[tool(name = "scale_replica", annotations(read_only, idempotent))]
pub struct ScaleReplica {
    /// Ask for a name first, in one input round (an `InputRequiredResult` under 2026-07-28).
    #[serde(default)]
    pub ask: bool,
    /// Milliseconds to wait before the final answer (at most 5,000): keeps the call in flight.
    #[serde(default)]
    #[schemars(range(max = 5000))]
    pub delay_ms: u32,
}

impl ToolHandler for ScaleReplica {
    type Reply = CallToolResult;
    async fn call(
        &self,
        args: ScaleReplica,
        cx: &CallContext,
    ) -> Result<CallToolResult, ToolError> {
        let replica = REPLICA.get().map_or("", String::as_str);
        let (asked_by, greeting) = if args.ask {
            // Read before `set_state`: on the retry it is the asking replica's name.
            let asked_by: Option<String> = cx.state()?;
            cx.set_state(&replica)?;
            (asked_by, format!("{}, ", greet_by_name(cx).await?))
        } else {
            (None, String::new())
        };
        tokio::time::sleep(Duration::from_millis(u64::from(args.delay_ms))).await;
        let mut result = CallToolResult::text(format!("{greeting}answered by {replica}"));
        let mut meta = Map::new();
        meta.insert(
            REPLICA_META.to_owned(),
            json!({"answeredBy": replica, "askedBy": asked_by}),
        );
        result.meta = Some(meta);
        Ok(result)
    }
}

/// A task of `scale/run.sh`'s tasks phase: with `ask`, it first asks a name (`user_name`,
/// parked in `input_required` until `tasks/update`), then waits `millis` (at most 60,000; a
/// `tasks/cancel` stops it) and answers `done on REPLICA`. Safe to re-run (`idempotentHint`):
/// when the replica running it dies, another runs it again. Served only when `MCP_REPLICA` is
/// set.
#[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
#[tool(
    name = "scale_task",
    task_support = "optional",
    annotations(idempotent)
)]
pub struct ScaleTask {
    /// Ask for a name first (a task input request).
    #[serde(default)]
    pub ask: bool,
    /// Milliseconds to wait before the answer.
    #[serde(default)]
    #[schemars(range(max = 60000))]
    pub millis: u32,
}

/// [`ScaleTask`]'s run: the name asked, the wait, the answer naming the replica.
async fn scale_task(args: ScaleTask, cx: &CallContext) -> Result<String, ToolError> {
    let greeting = if args.ask {
        format!("{} ", greet_by_name(cx).await?)
    } else {
        String::new()
    };
    tokio::select! {
        () = tokio::time::sleep(Duration::from_millis(u64::from(args.millis))) => {}
        () = cx.cancelled() => return Err(ToolError::Cancelled),
    }
    let replica = REPLICA.get().map_or("", String::as_str);
    Ok(format!("{greeting}done on {replica}"))
}

impl ToolHandler for ScaleTask {
    type Reply = String;
    async fn call(&self, args: ScaleTask, cx: &CallContext) -> Result<String, ToolError> {
        scale_task(args, cx).await
    }
}

/// [`ScaleTask`], not safe to re-run (no `idempotentHint`): when the replica running it dies,
/// it ends `failed`, its worker lost.
#[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
#[tool(name = "scale_task_once", task_support = "optional")]
pub struct ScaleTaskOnce {
    /// Ask for a name first (a task input request).
    #[serde(default)]
    pub ask: bool,
    /// Milliseconds to wait before the answer.
    #[serde(default)]
    #[schemars(range(max = 60000))]
    pub millis: u32,
}

impl ToolHandler for ScaleTaskOnce {
    type Reply = String;
    async fn call(&self, args: ScaleTaskOnce, cx: &CallContext) -> Result<String, ToolError> {
        let ScaleTaskOnce { ask, millis } = args;
        scale_task(ScaleTask { ask, millis }, cx).await
    }
}

/// A tool whose `region` is mirrored in the `Mcp-Param-Region` header
/// (`http-custom-header-server-validation`; `rmcp` checks the header against the body).
fn custom_header_tool() -> Result<Tool, toolmodel::Error> {
    let schema = ToolSchema::try_from(json!({
        "type": "object",
        "properties": {
            "region": {"type": "string", "x-mcp-header": "Region"},
            "query": {"type": "string"}
        },
        "required": ["region"]
    }))?;
    let mut tool = Tool::new("test_custom_header", schema);
    tool.description = Some("Echoes its region, sent in the Mcp-Param-Region header".to_owned());
    Ok(tool)
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
    conformance_tools()?.build()
}

/// The conformance scenarios' tools and `scale_replica`: what a replica serves
/// (`MCP_REPLICA` set).
///
/// # Errors
///
/// [`toolmodel::Error::InvalidToolbox`] if a tool were invalid (none is).
pub fn replica_toolbox() -> Result<Toolbox, toolmodel::Error> {
    conformance_tools()?
        .with(ScaleReplica::default())
        .with(ScaleTask::default())
        .with(ScaleTaskOnce::default())
        .build()
}

/// The builder holding every tool of the conformance scenarios; the two hand-built tools'
/// schemas are the only step that can fail.
fn conformance_tools() -> Result<ToolboxBuilder, toolmodel::Error> {
    Ok(Toolbox::builder()
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
        .with(InputElicitation)
        .with(InputSampling)
        .with(InputListRoots)
        .with(InputRequestState)
        .with(InputTamperedState)
        .with(InputMultiple)
        .with(InputMultiRound)
        .with(InputCapabilities)
        .with(MissingCapability)
        .with(StreamingElicitation)
        .with(LoggingTool)
        .with(TriggerToolChange)
        .with_tool(
            custom_header_tool()?,
            |arguments: Map<String, Value>, _cx| async move {
                let region = arguments.get("region").cloned().unwrap_or_default();
                Ok(CallToolResult::text(format!("Region: {region}")))
            },
        )
        // The tasks extension scenarios' tools (`toolmodel_examples::task_fixtures`).
        .with(Echo::default())
        .with(Greet::default())
        .with(SlowCompute::default())
        .with(FailingJob)
        .with(ProtocolErrorJob)
        .with(ConfirmDelete::default())
        .with(MultiInput)
        .with(ToolWithTask)
        .with_tool(
            json_schema_2020_12_tool()?,
            |arguments: Map<String, Value>, _cx| async move {
                Ok(CallToolResult::text(format!(
                    "Received: {}",
                    Value::Object(arguments)
                )))
            },
        ))
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let transport = transport_from_args(std::env::args().skip(1))?;
    let mut toolbox = toolbox()?;
    match std::env::var(REPLICA_ENV) {
        Ok(name) if !name.is_empty() => {
            REPLICA.get_or_init(|| name);
            toolbox = replica_toolbox()?;
        }
        Ok(_) | Err(std::env::VarError::NotPresent) => {}
        Err(err) => return Err(format!("{REPLICA_ENV}: {err}").into()),
    }
    // The toolbox serves the tools; the suite's prompts, resources and completion come from an
    // rmcp handler composed with it.
    let server = ToolboxServer::new(toolbox)
        .with_server_info("toolmodel-conformance", env!("CARGO_PKG_VERSION"))
        .with_handler(Fixtures);
    // Tasks in the store MCP_TASK_STORE names (memory when unset): replicas share a Redis one.
    let server = with_task_store(server).await?;
    SERVER.get_or_init(|| server.clone());
    run(server, "toolmodel-conformance", transport).await
}
