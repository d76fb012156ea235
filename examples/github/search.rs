//! Code search: `search_code` (github-mcp-server `pkg/github/search.go`).

use serde::Deserialize;
use toolmodel::{
    Tool,
    schemars::{self, JsonSchema},
};

use super::params::{Pagination, SortOrder};

/// Fast and precise code search across ALL GitHub repositories using GitHub's native search engine. Best for finding exact symbols, functions, classes, or specific code patterns.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema, Tool)]
#[tool(schema(keep_open_objects))] // open, as the server's own schema
#[tool(annotations(read_only, idempotent = false, title = "Search code"))]
pub struct SearchCode {
    /// Search query (GitHub code search REST). Implicit AND between terms; supports `OR`, `NOT`, and `"quoted phrase"` for exact match. Qualifiers: `repo:owner/repo`, `org:`, `user:`, `language:`, `path:dir` (prefix match), `filename:exact.ext`, `extension:`, `in:file`, `in:path`, `size:`, `is:archived`, `is:fork`. Max 256 chars. Examples: `WithContext language:go org:github`; `"package main" repo:o/r`; `func extension:go path:cmd repo:o/r`; `NOT TODO language:go repo:o/r`.
    pub query: String,
    /// Sort field ('indexed' only)
    pub sort: Option<String>,
    /// Sort order for results
    pub order: Option<SortOrder>,
    /// Subset of fields to return for each code search result. If omitted, all fields are returned. Use this to reduce response size when you only need specific fields; omitting 'repository' and 'text_matches' in particular drops the largest per-result data.
    pub fields: Option<Vec<CodeSearchField>>,
    /// `page` and `perPage`.
    #[serde(flatten)]
    pub pagination: Pagination,
}

/// The fields [`SearchCode`] can return for each result.
#[allow(missing_docs)] // undocumented variants: see the module docs of `github`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(description = "")]
pub enum CodeSearchField {
    Name,
    Path,
    Sha,
    Repository,
    TextMatches,
}
