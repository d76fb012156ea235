//! The tools the conformance suite's tasks extension scenarios call
//! (`src/scenarios/server/tasks/` of `modelcontextprotocol/conformance`: `greet`,
//! `slow_compute`, `failing_job`, `protocol_error_job`) and `echo`, each a `#[derive(Tool)]` type whose
//! `task_support` says whether a call may, must or must not run as a task
//! (`io.modelcontextprotocol/tasks`, SEP-2663).

use std::time::Duration;

use serde::Deserialize;
use toolmodel::{
    CallContext, NoArguments, ToolError, ToolHandler,
    schemars::{self, JsonSchema},
};

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

/// Echoes its message (none: an empty text). Listed first (a toolbox lists its tools sorted by
/// name): the suite's `http-header-validation` scenario calls the first listed tool with `{}`
/// and no tasks capability, which `failing_job` (task support required) answers with `-32021`.
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
