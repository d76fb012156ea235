//! The tool the HTTP tests ([`raw_http`](super::raw_http)'s server) and the benches
//! (`benches/serve.rs`, `benches/auth.rs`, `benches/peers/`, which include this file) serve:
//! `add`, two integers in, their sum as text out.

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
