//! Twelve real tools of [github-mcp-server](https://github.com/github/github-mcp-server),
//! re-authored as `#[derive(Tool)]` structs, with the same names, descriptions, annotations,
//! icons and input schemas as the server's own tool snapshots (`pkg/github/__toolsnaps__`,
//! in `../shared/corpus/github-mcp-server`). [`compare`] holds each against its snapshot; the
//! test `tests/tests/github_tools.rs` asserts the result, and `cargo run --example
//! github_tools` prints it.
//!
//! How the Rust types give the snapshots' schemas:
//!
//! - the struct's doc comment is the tool description, each field's doc comment the property
//!   description (`#[schemars(description = "...")]` where the text ends in a line break,
//!   which a doc comment cannot keep); `#[tool(annotations(...))]` and `#[tool(icon(...))]`
//!   give the rest of the tool, and `#[tool(schema(keep_open_objects))]` keeps the input
//!   schema open as the server's is (a derived input schema is closed by default);
//! - required properties are plain fields, optional ones `Option<T>`, and one with a default
//!   is `#[serde(default = "...")]` (the default is written to the schema); camelCase names
//!   (`perPage`, `orderBy`, `pullNumber`) are `#[serde(rename)]`s;
//! - the server's counts are JSON `number`s (Go reads them as `float64`), so they are `f64`
//!   here, with `#[schemars(range(...))]` where the snapshot has bounds: a Rust-first tool would
//!   use `u32` and get `"type": "integer"` with exact bounds, which rejects `1.5`;
//! - string choices are Rust enums with `#[serde(rename_all = "...")]`. Their variants and
//!   the enums themselves carry no schema text: `schemars` turns a documented variant into a
//!   `oneOf` of `const`s (the snapshots have a plain `enum`), and writes an enum's or item
//!   struct's doc comment into every `items` it is used in, so variants are left undocumented
//!   (`#[allow(missing_docs)]`) and the types' doc comments are kept out of the schema with
//!   `#[schemars(description = "")]`.
//!
//! What cannot be the same, listed as [`compare::Difference`]s: optional properties are also
//! nullable in the derived schemas (`toolmodel`'s profile, after `schemars`), and the
//! snapshots' `_meta` has no derive attribute.

pub mod compare;
mod issues;
mod params;
mod pulls;
mod repos;
mod search;
mod users;

pub use issues::{
    Confidence, CreateIssue, Direction, FieldFilter, FieldValue, IssueField, IssueFieldUpdate,
    IssueOrderBy, IssueRead, IssueReadMethod, IssueSearchField, IssueSearchSort, IssueStateFilter,
    IssueWrite, IssueWriteMethod, ListIssues, SearchIssues, UpdateIssueState,
};
pub use params::{Change, IssueState, Pagination, SortOrder, StateReason};
pub use pulls::{CreatePullRequest, MergeMethod, MergePullRequest};
pub use repos::{CommitField, ContentField, GetFileContents, ListCommits};
pub use search::{CodeSearchField, SearchCode};
pub use users::GetMe;

use serde_json::{Value, json};
use toolmodel::{Tool, ToolDefinition};

/// The derived tools, in the order of `tools/list`.
#[must_use]
pub fn tools() -> [&'static Tool; 12] {
    [
        GetMe::tool(),
        IssueRead::tool(),
        ListIssues::tool(),
        SearchIssues::tool(),
        CreateIssue::tool(),
        IssueWrite::tool(),
        UpdateIssueState::tool(),
        SearchCode::tool(),
        GetFileContents::tool(),
        ListCommits::tool(),
        CreatePullRequest::tool(),
        MergePullRequest::tool(),
    ]
}

/// The `tools/list` result of the derived tools (MCP 2025-11-25).
#[must_use]
pub fn tools_list() -> Value {
    json!({"tools": tools().map(Tool::to_mcp_json)})
}
