//! The tool `tests/http.rs` and `benches/serve.rs` serve: `add`, two integers in, their sum as
//! text out.

use serde::Deserialize;
use toolmodel::{
    CallContext, SyncToolHandler, ToolError,
    schemars::{self, JsonSchema},
};

/// Adds two integers.
#[derive(Default, Deserialize, JsonSchema, toolmodel::Tool)]
pub struct Add {
    a: i64,
    b: i64,
}

impl SyncToolHandler for Add {
    type Reply = String;
    fn call_sync(&self, args: Add, _cx: &CallContext) -> Result<String, ToolError> {
        Ok(args.a.wrapping_add(args.b).to_string())
    }
}
