//! The user's own context: `get_me` (github-mcp-server `pkg/github/context_tools.go`).

use serde::Deserialize;
use toolmodel::{
    Tool,
    schemars::{self, JsonSchema},
};

/// Get details of the authenticated GitHub user. Use this when a request is about the user's own profile for GitHub. Or when information is missing to build other tool calls.
// A struct with no fields rather than a unit struct: the snapshot's schema,
// `{"type": "object", "properties": {}}`, lets unknown properties through, where a unit struct
// gets MCP's recommended `{"type": "object", "additionalProperties": false}`. `schemars` writes
// `{"type": "object"}` for it, which means the same; `extend` adds the empty `properties` the
// snapshot spells out.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema, Tool)]
#[tool(schema(keep_open_objects))] // open, as the server's own schema
#[tool(annotations(read_only, idempotent = false, title = "Get my user profile"))]
#[schemars(extend("properties" = {}))]
pub struct GetMe {}
