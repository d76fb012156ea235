//! `tools/list` results across versions: [`ListToolsResult`] (read any version, write for one)
//! and the caching hints of MCP 2026-07-28, [`CacheScope`] and [`ListCache`].

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::error::Error;
use crate::json::json_error;
use crate::model::protocol::version::ProtocolVersion;
use crate::model::tool::Tool;
use crate::wire::versioned::{Loss, RESULT_COMPLETE, Written};

/// Who may cache a `tools/list` result (MCP 2026-07-28, `ListToolsResult.cacheScope`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum CacheScope {
    /// `"public"`: no user-specific data; any client or intermediary (a shared gateway, a
    /// caching proxy) may cache it and serve it across authorization contexts.
    Public,
    /// `"private"`: cached and reused only within the same authorization context.
    Private,
}

/// The caching hints a [`Toolbox`](crate::Toolbox) writes in its `tools/list` results for MCP
/// 2026-07-28 (`ttlMs`, `cacheScope`; older versions have neither).
///
/// The default, [`ListCache::DEFAULT`], is `ttlMs: 0` and `cacheScope: "private"`: it claims
/// nothing a toolbox cannot know. Its tools never change while it lives, but it cannot tell
/// whether the server builds another toolbox per user, or how long the process will run.
/// Say more with [`ToolboxBuilder::with_list_cache`](crate::ToolboxBuilder::with_list_cache), e.g.
/// `ListCache::new(Duration::from_secs(300), CacheScope::Public)` for a server whose tools are
/// the same for every user.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub struct ListCache {
    /// How long a client may consider the list fresh, in milliseconds (`ttlMs`; 0: stale at
    /// once, the client may fetch it every time it needs it).
    pub ttl_ms: u64,
    /// Who may cache it (`cacheScope`).
    pub scope: CacheScope,
}

impl ListCache {
    /// `ttlMs: 0`, `cacheScope: "private"`.
    pub const DEFAULT: Self = Self {
        ttl_ms: 0,
        scope: CacheScope::Private,
    };

    /// Hints of a time to live (whole milliseconds, saturating) and a scope.
    #[must_use]
    pub fn new(ttl: Duration, scope: CacheScope) -> Self {
        Self {
            ttl_ms: u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX),
            scope,
        }
    }
}

impl Default for ListCache {
    fn default() -> Self {
        Self::DEFAULT
    }
}

/// A `tools/list` result (MCP `ListToolsResult`) of any version: what a client or gateway
/// reads from a server. Unknown keys are kept in [`extra`](Self::extra) (`resultType` too),
/// `null` optional fields read as absent.
///
/// ```
/// use serde_json::json;
/// use toolmodel::{ProtocolVersion, list::{CacheScope, ListToolsResult}};
///
/// let list = ListToolsResult::from_value(&json!({
///     "resultType": "complete",
///     "tools": [{"name": "a", "inputSchema": {"type": "object"}}],
///     "ttlMs": 60000,
///     "cacheScope": "public"
/// }))?;
/// assert_eq!(list.cache_scope, Some(CacheScope::Public));
/// let old = list.to_json_for(ProtocolVersion::V2025_11_25)?;
/// assert_eq!(old.json, json!({"tools": [{"name": "a", "inputSchema": {"type": "object"}}]}));
/// let lost: Vec<&str> = old.losses.iter().map(|l| l.pointer.as_str()).collect();
/// assert_eq!(lost, ["/resultType", "/ttlMs", "/cacheScope"]);
/// # Ok::<(), toolmodel::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct ListToolsResult {
    /// The tools (`tools`), read as [`Tool::from_mcp_json`] reads one.
    pub tools: Vec<Tool>,
    /// `nextCursor`.
    pub next_cursor: Option<String>,
    /// `ttlMs` (2026-07-28).
    pub ttl_ms: Option<u64>,
    /// `cacheScope` (2026-07-28).
    pub cache_scope: Option<CacheScope>,
    /// `_meta`.
    pub meta: Option<Map<String, Value>>,
    /// Keys MCP does not define (and `resultType`), kept as received.
    pub extra: Map<String, Value>,
}

/// The keys of a `ListToolsResult` held in fields.
const LIST_KEYS: &[&str] = &["tools", "nextCursor", "ttlMs", "cacheScope", "_meta"];

impl ListToolsResult {
    /// A result holding `tools`, every other field empty.
    #[must_use]
    pub fn new(tools: Vec<Tool>) -> Self {
        Self {
            tools,
            next_cursor: None,
            ttl_ms: None,
            cache_scope: None,
            meta: None,
            extra: Map::new(),
        }
    }

    /// Reads a `tools/list` result of any version.
    ///
    /// # Errors
    ///
    /// [`Error::Json`] with the JSON Pointer of the offending value: not an object, no
    /// `tools` array, a tool [`Tool::from_mcp_json`] refuses (the pointer under
    /// `/tools/{index}`), a `ttlMs` that is not a non-negative integer, a `cacheScope` other
    /// than `public` or `private`.
    pub fn from_value(value: &Value) -> Result<Self, Error> {
        let Value::Object(object) = value else {
            return Err(json_error("", "expected an object"));
        };
        let Some(Value::Array(items)) = object.get("tools") else {
            return Err(json_error("/tools", "expected an array of tools"));
        };
        let mut tools = Vec::with_capacity(items.len());
        for (index, item) in items.iter().enumerate() {
            tools.push(Tool::from_mcp_json(item).map_err(|err| match err {
                Error::Json { path, message, .. } => {
                    json_error(format!("/tools/{index}{path}"), message)
                }
                other => other,
            })?);
        }
        let field = |key: &str| object.get(key).filter(|value| !value.is_null());
        let read = |key: &str, expected: &str| {
            json_error(format!("/{key}"), format!("expected {expected}"))
        };
        let next_cursor = field("nextCursor")
            .map(|v| {
                v.as_str()
                    .map(str::to_owned)
                    .ok_or_else(|| read("nextCursor", "a string"))
            })
            .transpose()?;
        let ttl_ms = field("ttlMs")
            .map(|v| {
                v.as_u64()
                    .ok_or_else(|| read("ttlMs", "a non-negative integer"))
            })
            .transpose()?;
        let cache_scope = field("cacheScope")
            .map(|v| {
                CacheScope::deserialize(v)
                    .map_err(|_| read("cacheScope", "\"public\" or \"private\""))
            })
            .transpose()?;
        let meta = field("_meta")
            .map(|v| {
                v.as_object()
                    .cloned()
                    .ok_or_else(|| read("_meta", "an object"))
            })
            .transpose()?;
        let extra = object
            .iter()
            .filter(|(key, _)| !LIST_KEYS.contains(&key.as_str()))
            .map(|(key, value)| (key.clone(), value.clone()))
            .collect();
        Ok(Self {
            tools,
            next_cursor,
            ttl_ms,
            cache_scope,
            meta,
            extra,
        })
    }

    /// The result as MCP `ListToolsResult` JSON for `version`: each tool written by
    /// [`Tool::to_mcp_json_for`] (its losses under `/tools/{index}`); for 2026-07-28,
    /// `resultType` (`"complete"` unless another was read) and `ttlMs` and `cacheScope`, both
    /// required, [`ListCache::DEFAULT`]'s when absent; before it, those three are left out,
    /// each a [`Loss`].
    ///
    /// # Errors
    ///
    /// What [`Tool::to_mcp_json_for`] returns for a tool.
    pub fn to_json_for(&self, version: ProtocolVersion) -> Result<Written, Error> {
        let mut losses = Vec::new();
        let mut tools = Vec::with_capacity(self.tools.len());
        for (index, tool) in self.tools.iter().enumerate() {
            let written = tool.to_mcp_json_for(version)?;
            losses.extend(written.losses.into_iter().map(|loss| Loss {
                pointer: format!("/tools/{index}{}", loss.pointer),
                ..loss
            }));
            tools.push(written.json);
        }
        let mut out = Map::new();
        let mut cache = ListCache::DEFAULT;
        cache.ttl_ms = self.ttl_ms.unwrap_or(cache.ttl_ms);
        cache.scope = self.cache_scope.unwrap_or(cache.scope);
        let result_type = self.extra.get("resultType").cloned();
        if version.has_result_type() {
            out.insert(
                "resultType".into(),
                result_type.unwrap_or_else(|| RESULT_COMPLETE.into()),
            );
        }
        out.insert("tools".into(), Value::Array(tools));
        if let Some(cursor) = &self.next_cursor {
            out.insert("nextCursor".into(), cursor.clone().into());
        }
        if version.has_result_type() {
            out.insert("ttlMs".into(), cache.ttl_ms.into());
            out.insert("cacheScope".into(), scope_value(cache.scope));
        } else {
            let present = [
                ("/resultType", self.extra.contains_key("resultType")),
                ("/ttlMs", self.ttl_ms.is_some()),
                ("/cacheScope", self.cache_scope.is_some()),
            ];
            losses.extend(
                present
                    .into_iter()
                    .filter(|(_, there)| *there)
                    .map(|(pointer, _)| Loss {
                        pointer: pointer.into(),
                        version,
                        kind: crate::wire::versioned::LossKind::Omitted,
                    }),
            );
        }
        if let Some(meta) = &self.meta {
            out.insert("_meta".into(), Value::Object(meta.clone()));
        }
        for (key, value) in &self.extra {
            if key != "resultType" {
                out.insert(key.clone(), value.clone());
            }
        }
        Ok(Written {
            json: Value::Object(out),
            losses,
        })
    }
}

/// `"public"` or `"private"`.
pub(crate) fn scope_value(scope: CacheScope) -> Value {
    Value::from(match scope {
        CacheScope::Public => "public",
        CacheScope::Private => "private",
    })
}
