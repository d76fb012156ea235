//! Repository tools: `get_file_contents` and `list_commits` (github-mcp-server
//! `pkg/github/repositories.go`).

use serde::Deserialize;
use toolmodel::{
    Tool,
    schemars::{self, JsonSchema},
};

use super::params::Pagination;

/// Get the contents of a file or directory from a GitHub repository
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema, Tool)]
#[tool(schema(keep_open_objects))] // open, as the server's own schema
#[tool(annotations(
    read_only,
    idempotent = false,
    title = "Get file or directory contents"
))]
pub struct GetFileContents {
    /// Repository owner (username or organization)
    pub owner: String,
    /// Repository name
    pub repo: String,
    /// Path to file/directory
    #[serde(default = "root")]
    pub path: String,
    /// Accepts optional git refs such as `refs/tags/{tag}`, `refs/heads/{branch}` or `refs/pull/{pr_number}/head`
    #[serde(rename = "ref")]
    pub git_ref: Option<String>,
    /// Accepts optional commit SHA. If specified, it will be used instead of ref
    pub sha: Option<String>,
    /// Subset of fields to return for each entry when the path is a directory. If omitted, all fields are returned. Ignored when the path is a single file. Use this to reduce response size when listing directories and you only need specific fields, e.g. just 'name' and 'type'.
    pub fields: Option<Vec<ContentField>>,
}

/// The default `path` of [`GetFileContents`]: the repository root.
fn root() -> String {
    "/".to_owned()
}

/// The fields [`GetFileContents`] can return for each directory entry.
#[allow(missing_docs)] // undocumented variants: see the module docs of `github`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(description = "")]
pub enum ContentField {
    Type,
    Name,
    Path,
    Size,
    Sha,
    Url,
    GitUrl,
    HtmlUrl,
    DownloadUrl,
}

/// Get list of commits of a branch in a GitHub repository. Returns at least 30 results per page by default, but can return more if specified using the perPage parameter (up to 100).
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema, Tool)]
#[tool(schema(keep_open_objects))] // open, as the server's own schema
#[tool(annotations(read_only, idempotent = false, title = "List commits"))]
pub struct ListCommits {
    /// Repository owner
    pub owner: String,
    /// Repository name
    pub repo: String,
    /// Commit SHA, branch or tag name to list commits of. If not provided, uses the default branch of the repository. If a commit SHA is provided, will list commits up to that SHA.
    pub sha: Option<String>,
    /// Only commits containing this file path will be returned
    pub path: Option<String>,
    /// Author username or email address to filter commits by
    pub author: Option<String>,
    /// Only commits after this date will be returned (ISO 8601 format: YYYY-MM-DDTHH:MM:SSZ or YYYY-MM-DD)
    pub since: Option<String>,
    /// Only commits before this date will be returned (ISO 8601 format: YYYY-MM-DDTHH:MM:SSZ or YYYY-MM-DD)
    pub until: Option<String>,
    /// Subset of fields to return for each commit. If omitted, all fields are returned. Use this to reduce response size when you only need specific fields, e.g. just 'sha' and 'html_url'.
    pub fields: Option<Vec<CommitField>>,
    /// `page` and `perPage`.
    #[serde(flatten)]
    pub pagination: Pagination,
}

/// The fields [`ListCommits`] can return for each commit.
#[allow(missing_docs)] // undocumented variants: see the module docs of `github`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(description = "")]
pub enum CommitField {
    Sha,
    HtmlUrl,
    Commit,
    Author,
    Committer,
}
