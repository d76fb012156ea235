//! The keys of a tool's JSON forms (a leaf module: violations name them too).

/// The keys of the MCP `Tool` object (MCP 2025-11-25 schema, `Tool`), in the order
/// [`Tool::to_mcp_json`](crate::Tool::to_mcp_json) writes them. A key of
/// [`Tool::extra`](crate::Tool::extra) named like one of them is never written
/// ([`Violation::ShadowedKey`](crate::Violation::ShadowedKey)).
pub const MCP_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "icons",
    "execution",
    "_meta",
];

/// The keys of the MCP `Tool` and of the `toolmodel` extensions.
pub(crate) const FULL_KEYS: &[&str] = &[
    "name",
    "title",
    "description",
    "inputSchema",
    "outputSchema",
    "annotations",
    "icons",
    "execution",
    "_meta",
    "namespace",
    "version",
    "tags",
    "backends",
    "category",
    "requiredScopes",
    "timeoutMs",
];
