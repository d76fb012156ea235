//! The tools the conformance suite's tasks extension scenarios call
//! (`src/scenarios/server/tasks/` of `modelcontextprotocol/conformance`: `greet`,
//! `slow_compute`, `failing_job`, `protocol_error_job`; the tasks that ask for input:
//! `confirm_delete`, `multi_input`, `test_tool_with_task`) and `echo`, each a
//! `#[derive(Tool)]` type whose `task_support` says whether a call may, must or must not run
//! as a task (`io.modelcontextprotocol/tasks`, SEP-2663).
//!
//! A task asks for input with [`CallContext::input`] as any handler does: the task waits in
//! `input_required` until `tasks/update` answers, and the handler goes on where it waited.
//! Input needed before the task exists goes by [`CallContext::input_before_task`] (input
//! rounds on the `tools/call` itself, then the task).

use std::time::Duration;

use serde::Deserialize;
use serde_json::{Value, json};
use toolmodel::{
    CallContext, NoArguments, ToolError, ToolHandler,
    input::{ElicitRequest, InputRequest, InputRequests, InputResponses},
    schemars::{self, JsonSchema},
};

/// A form elicitation of `fields` (each a JSON Schema type), none required.
fn form(message: &str, fields: &[(&str, &str)]) -> InputRequest {
    let properties: serde_json::Map<String, Value> = fields
        .iter()
        .map(|(name, kind)| ((*name).to_owned(), json!({"type": kind})))
        .collect();
    InputRequest::Elicit(ElicitRequest::form(
        message,
        json!({"type": "object", "properties": properties}),
    ))
}

/// The accepted form's `field` under `key`, as text; `None` when declined or left out.
fn text(answers: &InputResponses, key: &str, field: &str) -> Option<String> {
    match answers.elicit(key)?.field(field)? {
        Value::String(text) => Some(text.clone()),
        other => Some(other.to_string()),
    }
}

/// Deletes a file once the user confirms (nothing is deleted: a fixture). As a task, it waits
/// in `input_required` for the confirmation (one `elicitation/create`, key `confirm`).
#[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
#[tool(name = "confirm_delete", task_support = "optional")]
pub struct ConfirmDelete {
    /// The file to delete.
    #[serde(default)]
    pub filename: String,
}

impl ToolHandler for ConfirmDelete {
    type Reply = String;
    async fn call(&self, args: ConfirmDelete, cx: &CallContext) -> Result<String, ToolError> {
        let ask = form(
            &format!("Delete {}?", args.filename),
            &[("confirm", "boolean")],
        );
        let answers = cx.input(InputRequests::new().with("confirm", ask)).await?;
        let confirmed = answers
            .elicit("confirm")
            .and_then(|reply| reply.field("confirm"))
            == Some(&Value::Bool(true));
        Ok(if confirmed {
            format!("Deleted {}", args.filename)
        } else {
            format!("Kept {}", args.filename)
        })
    }
}

/// Asks two questions at once (keys `first` and `second`, one `input` call): as a task, both
/// wait in `inputRequests` together and may be answered one `tasks/update` at a time.
#[derive(Default, toolmodel::Tool)]
#[tool(name = "multi_input", task_support = "optional")]
pub struct MultiInput;

impl ToolHandler for MultiInput {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        let fields = [("name", "string"), ("confirm", "boolean")];
        let answers = cx
            .input(
                InputRequests::new()
                    .with("first", form("First value?", &fields))
                    .with("second", form("Second value?", &fields)),
            )
            .await?;
        let first = text(&answers, "first", "name").unwrap_or_default();
        let second = text(&answers, "second", "name").unwrap_or_default();
        Ok(format!("Got {first} and {second}"))
    }
}

/// Asks the user's name before it becomes a task (key `user_name`, an input round on the
/// `tools/call`), then works as a task (always: task support required) and greets them.
#[derive(Default, toolmodel::Tool)]
#[tool(name = "test_tool_with_task", task_support = "required")]
pub struct ToolWithTask;

impl ToolHandler for ToolWithTask {
    type Reply = String;
    async fn call(&self, _: NoArguments, cx: &CallContext) -> Result<String, ToolError> {
        let ask = form("What is your name?", &[("name", "string")]);
        let answers = cx
            .input_before_task(InputRequests::new().with("user_name", ask))
            .await?;
        let name = text(&answers, "user_name", "name").unwrap_or_else(|| "stranger".to_owned());
        // The long part, as a task.
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(200)) => {}
            () = cx.cancelled() => return Err(ToolError::Cancelled),
        }
        Ok(format!("Hello, {name}! (from the task)"))
    }
}

/// Says hello; never a task.
#[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
#[tool(name = "greet")]
pub struct Greet {
    /// Who to greet.
    pub name: String,
}

impl ToolHandler for Greet {
    type Reply = String;
    async fn call(&self, args: Greet, _cx: &CallContext) -> Result<String, ToolError> {
        Ok(format!("Hello, {}!", args.name))
    }
}

/// Sleeps `seconds` seconds, then answers; a task when the client supports them, cancelled by
/// `tasks/cancel`.
#[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
#[tool(name = "slow_compute", task_support = "optional")]
pub struct SlowCompute {
    /// How long to work, in seconds (0 to 600).
    #[schemars(range(min = 0, max = 600))]
    pub seconds: u32,
    /// A label echoed in the result.
    #[serde(default)]
    pub label: Option<String>,
}

impl ToolHandler for SlowCompute {
    type Reply = String;
    async fn call(&self, args: SlowCompute, cx: &CallContext) -> Result<String, ToolError> {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_secs(args.seconds.into())) => {}
            () = cx.cancelled() => return Err(ToolError::Cancelled),
        }
        let label = args.label.as_deref().unwrap_or("compute");
        Ok(format!("{label}: done after {} s", args.seconds))
    }
}

/// Fails with a tool error after about a second; only as a task.
#[derive(Default, toolmodel::Tool)]
#[tool(name = "failing_job", task_support = "required")]
pub struct FailingJob;

impl ToolHandler for FailingJob {
    type Reply = String;
    async fn call(&self, _: NoArguments, _cx: &CallContext) -> Result<String, ToolError> {
        tokio::time::sleep(Duration::from_secs(1)).await;
        Err(ToolError::new("the job failed, as it always does"))
    }
}

/// Fails with a JSON-RPC error (`-32603`), not a tool error.
#[derive(Default, toolmodel::Tool)]
#[tool(name = "protocol_error_job", task_support = "optional")]
pub struct ProtocolErrorJob;

impl ToolHandler for ProtocolErrorJob {
    type Reply = String;
    async fn call(&self, _: NoArguments, _cx: &CallContext) -> Result<String, ToolError> {
        Err(ToolError::protocol(
            -32603,
            "protocol_error_job: an internal failure",
        ))
    }
}

/// Echoes its message (none: an empty text). Sorted before `failing_job` (a toolbox lists its
/// tools sorted by name): the suite's `http-header-validation` scenario calls the first listed
/// tool with `{}` and no tasks capability, which `failing_job` (task support required) answers
/// with `-32021`; the first listed is `confirm_delete`, which answers with an input round.
#[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
#[tool(name = "echo")]
pub struct Echo {
    /// What to echo.
    #[serde(default)]
    pub message: String,
}

impl ToolHandler for Echo {
    type Reply = String;
    async fn call(&self, args: Echo, _cx: &CallContext) -> Result<String, ToolError> {
        Ok(args.message)
    }
}
