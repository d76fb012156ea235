//! [`ProtocolVersion`]: the dated MCP protocol versions (a leaf module: the crate's error names
//! a version).

use std::fmt;

use serde::{Serialize, Serializer};

/// A dated version of the Model Context Protocol, as negotiated in `initialize`
/// (`protocolVersion`) or sent in the `MCP-Protocol-Version` header.
///
/// Ordered by date: `V2024_11_05 < V2025_03_26 < ... < LATEST`. Written (`Display`, serde) and
/// read ([`FromStr`](std::str::FromStr), serde) as the date string, `"2025-11-25"`.
///
/// What each version's `Tool` carries (from `#/$defs/Tool` of each version's `schema.json`):
///
/// | version | `title` | `annotations` | `outputSchema` | `_meta` | `icons` | `execution` | `outputSchema` root |
/// |---|---|---|---|---|---|---|---|
/// | 2024-11-05 | — | — | — | — | — | — | — |
/// | 2025-03-26 | — | yes | — | — | — | — | — |
/// | 2025-06-18 | yes | yes | yes | yes | — | — | `"type": "object"` |
/// | 2025-11-25 | yes | yes | yes | yes | yes | yes | `"type": "object"` |
/// | 2026-07-28 | yes | yes | yes | yes | yes | — | any JSON Schema 2020-12 |
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum ProtocolVersion {
    /// `2024-11-05`: `name`, `description`, `inputSchema` only.
    V2024_11_05,
    /// `2025-03-26`: adds `annotations` (`ToolAnnotations`).
    V2025_03_26,
    /// `2025-06-18`: adds `title`, `outputSchema` (root `"type": "object"`) and `_meta`;
    /// results gain `structuredContent` (an object).
    V2025_06_18,
    /// `2025-11-25`: adds `icons` and `execution` (`taskSupport`).
    V2025_11_25,
    /// `2026-07-28`: `execution` removed (tasks became the `io.modelcontextprotocol/tasks`
    /// extension); `outputSchema` any JSON Schema 2020-12 and `structuredContent` any value;
    /// `x-mcp-header` in input property schemas; results carry `resultType`, `tools/list`
    /// results `ttlMs` and `cacheScope`.
    V2026_07_28,
}

impl ProtocolVersion {
    /// The newest version this crate models: what every API reads and writes by default.
    pub const LATEST: Self = Self::V2026_07_28;

    /// Every version, oldest first.
    pub const ALL: [Self; 5] = [
        Self::V2024_11_05,
        Self::V2025_03_26,
        Self::V2025_06_18,
        Self::V2025_11_25,
        Self::V2026_07_28,
    ];

    /// The version's position in [`ALL`](Self::ALL).
    pub(crate) const fn index(self) -> usize {
        self as usize
    }

    /// The date string: `"2024-11-05"`, ..., `"2026-07-28"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::V2024_11_05 => "2024-11-05",
            Self::V2025_03_26 => "2025-03-26",
            Self::V2025_06_18 => "2025-06-18",
            Self::V2025_11_25 => "2025-11-25",
            Self::V2026_07_28 => "2026-07-28",
        }
    }

    /// Whether this version's `Tool` has the MCP key `key` (`#/$defs/Tool` `properties` of its
    /// `schema.json`; see the table above).
    #[must_use]
    pub fn has_tool_key(self, key: &str) -> bool {
        match key {
            "name" | "description" | "inputSchema" => true,
            "annotations" => self >= Self::V2025_03_26,
            "title" | "outputSchema" | "_meta" => self >= Self::V2025_06_18,
            "icons" => self >= Self::V2025_11_25,
            "execution" => self == Self::V2025_11_25,
            _ => false,
        }
    }

    /// Whether `outputSchema` must have root `"type": "object"` (2025-11-25 and older; from
    /// 2026-07-28 it may be any JSON Schema 2020-12, and `structuredContent` any JSON value).
    #[must_use]
    pub const fn requires_object_output(self) -> bool {
        (self as u8) <= (Self::V2025_11_25 as u8)
    }

    /// Whether `CallToolResult` has `structuredContent` (from 2025-06-18).
    #[must_use]
    pub const fn has_structured_content(self) -> bool {
        (self as u8) >= (Self::V2025_06_18 as u8)
    }

    /// Whether results carry `resultType`, and `tools/list` results `ttlMs` and `cacheScope`
    /// (from 2026-07-28).
    #[must_use]
    pub const fn has_result_type(self) -> bool {
        (self as u8) >= (Self::V2026_07_28 as u8)
    }

    /// Whether input property schemas may carry `x-mcp-header` (from 2026-07-28, Streamable
    /// HTTP "Custom Headers from Tool Parameters").
    #[must_use]
    pub const fn has_mcp_headers(self) -> bool {
        (self as u8) >= (Self::V2026_07_28 as u8)
    }

    /// Whether the `inputSchema` and `outputSchema` of this version's `Tool` constrain
    /// `properties` (an object of object schemas) and `required` (an array of strings): 2025-11-25
    /// and older. From 2026-07-28 only the root `type` (and `$schema`, a string) is constrained.
    #[must_use]
    pub const fn constrains_schema_members(self) -> bool {
        (self as u8) <= (Self::V2025_11_25 as u8)
    }

    /// Whether the spec defines the `_meta` key name format ("General fields: `_meta`",
    /// from 2025-06-18, the first version whose `Tool` has `_meta`).
    #[must_use]
    pub const fn has_meta_key_format(self) -> bool {
        (self as u8) >= (Self::V2025_06_18 as u8)
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl Serialize for ProtocolVersion {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}
