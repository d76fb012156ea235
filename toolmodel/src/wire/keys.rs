//! The keys of a tool's JSON forms (a leaf module: violations name them too).

/// The keys of the MCP `Tool`.
pub(crate) const MCP_KEYS: &[&str] = &[
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
];
