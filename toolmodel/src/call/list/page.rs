//! [`ToolsPage`]: one page of a [`Toolbox`](crate::Toolbox)'s `tools/list` answer, as the
//! MCP `ListToolsResult` of one protocol version.

use serde::{Serialize, ser::SerializeMap};
use serde_json::Value;

use super::result::{ListCache, scope_value};
use crate::model::protocol::version::ProtocolVersion;
use crate::wire::versioned::{Loss, RESULT_COMPLETE};

/// One page of `tools/list` for one protocol version: serializes as that version's MCP
/// `ListToolsResult`, `{"tools": [...], "nextCursor": "..."}` (no `nextCursor` on the last
/// page), plus `resultType`, `ttlMs` and `cacheScope` for 2026-07-28.
#[derive(Clone, Debug, PartialEq)]
pub struct ToolsPage<'a> {
    /// The tools of the page, as MCP JSON for `version`.
    pub(crate) tools: &'a [Value],
    /// Each tool's losses, in the same order.
    pub(crate) losses: &'a [Vec<Loss>],
    /// The cursor of the next page, if there is one.
    pub(crate) next_cursor: Option<String>,
    /// The version the page is written for.
    pub(crate) version: ProtocolVersion,
    /// The caching hints written for 2026-07-28.
    pub(crate) cache: ListCache,
}

impl<'a> ToolsPage<'a> {
    /// The tools of the page, as MCP JSON for the page's version.
    #[must_use]
    pub fn tools(&self) -> &'a [Value] {
        self.tools
    }

    /// What the version could not carry of each tool, in the order of [`tools`](Self::tools)
    /// (pointers into each tool's own JSON).
    #[must_use]
    pub fn losses(&self) -> &'a [Vec<Loss>] {
        self.losses
    }

    /// The cursor of the next page, if there is one.
    #[must_use]
    pub fn next_cursor(&self) -> Option<&str> {
        self.next_cursor.as_deref()
    }

    /// The protocol version the page is written for.
    #[must_use]
    pub fn version(&self) -> ProtocolVersion {
        self.version
    }
}

impl Serialize for ToolsPage<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        if self.version.has_result_type() {
            map.serialize_entry("resultType", RESULT_COMPLETE)?;
        }
        map.serialize_entry("tools", self.tools)?;
        if let Some(cursor) = &self.next_cursor {
            map.serialize_entry("nextCursor", cursor)?;
        }
        if self.version.has_result_type() {
            map.serialize_entry("ttlMs", &self.cache.ttl_ms)?;
            map.serialize_entry("cacheScope", &scope_value(self.cache.scope))?;
        }
        map.end()
    }
}
