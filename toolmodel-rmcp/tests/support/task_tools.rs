//! Tools the tasks tests share: `wait` (may run as a task, stops when cancelled) and `now`
//! (never a task).

use std::time::Duration;

use serde::Deserialize;
use toolmodel::{
    CallContext, NoArguments, ToolError, ToolHandler,
    schemars::{self, JsonSchema},
};

/// Waits `millis`, or until cancelled; may run as a task.
#[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
#[tool(task_support = "optional")]
pub struct Wait {
    pub millis: u64,
}

impl ToolHandler for Wait {
    type Reply = String;
    async fn call(&self, args: Wait, cx: &CallContext) -> Result<String, ToolError> {
        tokio::select! {
            () = tokio::time::sleep(Duration::from_millis(args.millis)) => Ok(format!("waited {}", args.millis)),
            () = cx.cancelled() => Err(ToolError::Cancelled),
        }
    }
}

/// Never a task.
#[derive(Default, toolmodel::Tool)]
pub struct Now;

impl ToolHandler for Now {
    type Reply = &'static str;
    async fn call(&self, _: NoArguments, _cx: &CallContext) -> Result<&'static str, ToolError> {
        Ok("now")
    }
}
