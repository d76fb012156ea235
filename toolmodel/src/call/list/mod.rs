//! `tools/list` results (MCP `ListToolsResult`, "Pagination", and the caching hints of MCP
//! 2026-07-28): the [`ToolsPage`]s a [`Toolbox`](crate::Toolbox) answers with, of
//! [`DEFAULT_PAGE_SIZE`] tools unless
//! [`ToolboxBuilder::with_page_size`](crate::ToolboxBuilder::with_page_size) says otherwise; the
//! [`ListToolsResult`] a client or gateway reads from any server, of any version; and
//! [`ListCache`] and [`CacheScope`], the `ttlMs` and `cacheScope` a result carries.
//!
//! ```
//! use serde_json::json;
//! use toolmodel::{
//!     CallToolResult, ProtocolVersion, Tool, ToolSchema, Toolbox,
//!     list::{CacheScope, ListCache, ListToolsResult},
//! };
//!
//! let a = Tool::new("a", ToolSchema::empty_object());
//! let toolbox = Toolbox::builder()
//!     .with_tool(a, |_, _| async { Ok(CallToolResult::text("done")) })
//!     .with_list_cache(ListCache::new(std::time::Duration::from_secs(60), CacheScope::Public))
//!     .build()?;
//! let page = toolbox.list_for(ProtocolVersion::V2026_07_28, None)?;
//! let json = serde_json::to_value(&page)?;
//! assert_eq!(json["ttlMs"], 60000);
//!
//! // What a client reads back.
//! let list = ListToolsResult::from_value(&json)?;
//! assert_eq!(list.tools[0].name, "a");
//! assert_eq!(list.cache_scope, Some(CacheScope::Public));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod page;
mod result;

pub use page::ToolsPage;
pub use result::{CacheScope, ListCache, ListToolsResult};

/// The number of tools a `tools/list` page holds unless
/// [`ToolboxBuilder::with_page_size`](crate::ToolboxBuilder::with_page_size) says otherwise.
pub const DEFAULT_PAGE_SIZE: usize = 100;
