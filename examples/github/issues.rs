//! Issue tools: `issue_read`, `list_issues`, `search_issues`, `create_issue`, `issue_write` and
//! `update_issue_state` (github-mcp-server `pkg/github/issues.go`).

use serde::Deserialize;
use toolmodel::{
    Tool,
    schemars::{self, JsonSchema, Schema, SchemaGenerator, json_schema},
};

use super::params::{Change, IssueState, Pagination, SortOrder, StateReason};

/// Get information about a specific issue in a GitHub repository.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema, Tool)]
#[tool(schema(keep_open_objects))] // open, as the server's own schema
#[tool(annotations(read_only, idempotent = false, title = "Get issue details"))]
pub struct IssueRead {
    /// The read operation: one of [`IssueReadMethod`].
    #[schemars(
        description = "The read operation to perform on a single issue.\nOptions are:\n1. get - Get issue details. Also returns best-effort hierarchy flags (`has_parent`, `has_children`); `parent` and `sub_issues_summary` are optional relationship summaries, and `closed_by_pull_requests` summarizes the pull requests configured to close the issue as `total_count` plus up to 5 `references`.\n2. get_comments - Get issue comments.\n3. get_sub_issues - Get sub-issues (children) of the issue.\n4. get_parent - Get the parent issue, if this issue is a sub-issue of another.\n5. get_labels - Get labels assigned to the issue.\n"
    )]
    pub method: IssueReadMethod,
    /// The owner of the repository
    pub owner: String,
    /// The name of the repository
    pub repo: String,
    /// The number of the issue
    pub issue_number: f64,
    /// `page` and `perPage`.
    #[serde(flatten)]
    pub pagination: Pagination,
}

/// What [`IssueRead`] reads.
#[allow(missing_docs)] // undocumented variants: see the module docs of `github`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(description = "")]
pub enum IssueReadMethod {
    Get,
    GetComments,
    GetSubIssues,
    GetParent,
    GetLabels,
}

/// List issues in a GitHub repository. For pagination, use the 'endCursor' from the previous response's 'pageInfo' in the 'after' parameter.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema, Tool)]
#[tool(schema(keep_open_objects))] // open, as the server's own schema
#[tool(annotations(read_only, idempotent = false, title = "List issues"))]
pub struct ListIssues {
    /// Repository owner
    pub owner: String,
    /// Repository name
    pub repo: String,
    /// Filter by state, by default both open and closed issues are returned when not provided
    pub state: Option<IssueStateFilter>,
    /// Filter by labels
    pub labels: Option<Vec<String>>,
    /// Order issues by field. If provided, the 'direction' also needs to be provided.
    #[serde(rename = "orderBy")]
    pub order_by: Option<IssueOrderBy>,
    /// Order direction. If provided, the 'orderBy' also needs to be provided.
    pub direction: Option<Direction>,
    /// Filter by date (ISO 8601 timestamp)
    pub since: Option<String>,
    /// Filter by custom issue field values. Each entry takes a field_name and a value; the server looks up the field and coerces the value to its type (single-select option name, text, number, or YYYY-MM-DD date).
    pub field_filters: Option<Vec<FieldFilter>>,
    /// Subset of fields to return for each issue. If omitted, all fields are returned. Use this to reduce response size when you only need specific fields; omitting 'body' and 'field_values' in particular drops the largest per-result data.
    pub fields: Option<Vec<IssueField>>,
    /// Results per page for pagination (min 1, max 100)
    #[serde(rename = "perPage")]
    #[schemars(range(min = 1, max = 100))]
    pub per_page: Option<f64>,
    /// Cursor for pagination. Use the cursor from the previous response.
    pub after: Option<String>,
}

/// A filter of [`ListIssues`] on a custom issue field.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema)]
#[schemars(description = "")]
pub struct FieldFilter {
    /// Name of the custom field (e.g. "Priority"). Case-insensitive.
    pub field_name: String,
    /// Value to filter on. For single-select fields, the option name (e.g. "P1"). For dates, YYYY-MM-DD. For numbers, the numeric value as a string. For text, the text value.
    pub value: String,
}

/// The issue states [`ListIssues`] filters on.
#[allow(missing_docs)] // undocumented variants: see the module docs of `github`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
#[schemars(description = "")]
pub enum IssueStateFilter {
    Open,
    Closed,
}

/// What [`ListIssues`] orders by.
#[allow(missing_docs)] // undocumented variants: see the module docs of `github`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "SCREAMING_SNAKE_CASE")]
#[schemars(description = "")]
pub enum IssueOrderBy {
    CreatedAt,
    UpdatedAt,
    Comments,
}

/// The order direction of [`ListIssues`].
#[allow(missing_docs)] // undocumented variants: see the module docs of `github`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
#[schemars(description = "")]
pub enum Direction {
    Asc,
    Desc,
}

/// The fields [`ListIssues`] can return for each issue.
#[allow(missing_docs)] // undocumented variants: see the module docs of `github`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(description = "")]
pub enum IssueField {
    Number,
    Title,
    Body,
    State,
    User,
    Labels,
    Assignees,
    Comments,
    CreatedAt,
    UpdatedAt,
    FieldValues,
}

/// Search issues using natural-language semantic matching. Best for conceptual or paraphrased queries (e.g. "login fails after password reset"). Already scoped to is:issue.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema, Tool)]
#[tool(schema(keep_open_objects))] // open, as the server's own schema
#[tool(annotations(read_only, idempotent = false, title = "Search issues"))]
pub struct SearchIssues {
    /// The search query, as natural language. When the user gives alternative wordings, include them as plain words rather than joining them with OR.
    pub query: String,
    /// Optional repository owner. If provided with repo, only issues for this repository are listed.
    pub owner: Option<String>,
    /// Optional repository name. If provided with owner, only issues for this repository are listed.
    pub repo: Option<String>,
    /// Sort field by number of matches of categories, defaults to best match
    pub sort: Option<IssueSearchSort>,
    /// Sort order
    pub order: Option<SortOrder>,
    /// Subset of fields to return for each issue result. If omitted, all fields are returned. Use this to reduce response size when you only need specific fields; omitting 'body', 'reactions', and 'labels' in particular drops the largest per-result data.
    pub fields: Option<Vec<IssueSearchField>>,
    /// `page` and `perPage`.
    #[serde(flatten)]
    pub pagination: Pagination,
}

/// What [`SearchIssues`] sorts by.
#[allow(missing_docs)] // undocumented variants: see the module docs of `github`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(description = "")]
pub enum IssueSearchSort {
    Comments,
    Reactions,
    #[serde(rename = "reactions-+1")]
    ReactionsPlusOne,
    #[serde(rename = "reactions--1")]
    ReactionsMinusOne,
    #[serde(rename = "reactions-smile")]
    ReactionsSmile,
    #[serde(rename = "reactions-thinking_face")]
    ReactionsThinkingFace,
    #[serde(rename = "reactions-heart")]
    ReactionsHeart,
    #[serde(rename = "reactions-tada")]
    ReactionsTada,
    Interactions,
    Created,
    Updated,
}

/// The fields [`SearchIssues`] can return for each issue.
#[allow(missing_docs)] // undocumented variants: see the module docs of `github`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
#[schemars(description = "")]
pub enum IssueSearchField {
    Number,
    Title,
    Body,
    State,
    StateReason,
    Draft,
    Locked,
    HtmlUrl,
    User,
    AuthorAssociation,
    Labels,
    Assignee,
    Assignees,
    Milestone,
    Comments,
    Reactions,
    CreatedAt,
    UpdatedAt,
    ClosedAt,
    ClosedBy,
    Type,
    RepositoryUrl,
    PullRequest,
    FieldValues,
}

/// Create a new issue in a GitHub repository with a title and optional body.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema, Tool)]
#[tool(schema(keep_open_objects))] // open, as the server's own schema
#[tool(annotations(
    read_only = false,
    destructive = false,
    idempotent = false,
    open_world,
    title = "Create Issue"
))]
pub struct CreateIssue {
    /// Repository owner (username or organization)
    pub owner: String,
    /// Repository name
    pub repo: String,
    /// Issue title
    pub title: String,
    /// Issue body content (optional)
    pub body: Option<String>,
}

/// Create a new or update an existing issue in a GitHub repository.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema, Tool)]
#[tool(schema(keep_open_objects))] // open, as the server's own schema
#[tool(annotations(
    read_only = false,
    idempotent = false,
    title = "Create or update issue/pull request"
))]
pub struct IssueWrite {
    /// The write operation: one of [`IssueWriteMethod`].
    #[schemars(
        description = "Write operation to perform on a single issue.\nOptions are:\n- 'create' - creates a new issue.\n- 'update' - updates an existing issue.\n"
    )]
    pub method: IssueWriteMethod,
    /// Repository owner
    pub owner: String,
    /// Repository name
    pub repo: String,
    /// Issue number to update
    pub issue_number: Option<f64>,
    /// Issue title
    pub title: Option<String>,
    /// Issue body content
    pub body: Option<String>,
    /// Usernames to assign to this issue
    pub assignees: Option<Vec<String>>,
    /// Labels to apply to this issue
    pub labels: Option<Vec<String>>,
    /// Milestone number
    pub milestone: Option<f64>,
    /// Type of this issue. For updates, pass null to remove the current type. Only use if issue types are enabled for this repository. Use list_issue_types to get valid type values for this repository or its owner organization. If the repository doesn't support issue types, omit this parameter.
    #[serde(rename = "type", default)]
    #[schemars(length(min = 1))]
    pub issue_type: Change<String>,
    /// New state
    pub state: Option<IssueState>,
    /// Reason for the state change. Ignored unless state is changed.
    pub state_reason: Option<StateReason>,
    /// Issue number that this issue is a duplicate of. Required when state_reason is 'duplicate'.
    pub duplicate_of: Option<f64>,
    /// Issue field values to set or clear. Each item requires 'field_name' and exactly one of 'value', 'field_option_name', or 'delete: true'.
    pub issue_fields: Option<Vec<IssueFieldUpdate>>,
}

/// What [`IssueWrite`] does.
#[allow(missing_docs)] // undocumented variants: see the module docs of `github`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(description = "")]
pub enum IssueWriteMethod {
    Create,
    Update,
}

/// One custom field value [`IssueWrite`] sets or clears.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
#[schemars(description = "")]
pub struct IssueFieldUpdate {
    /// Issue field name (case-insensitive). Must match a field returned by list_issue_fields for this repository or its organization.
    pub field_name: String,
    /// Value to set. Use for text, number, and date fields (date as YYYY-MM-DD). For single-select fields, prefer 'field_option_name' so the option is validated before the API call. Cannot be combined with 'field_option_name' or 'delete: true'.
    pub value: Option<FieldValue>,
    /// Option name for single-select fields. Validated against the field's options before the API call. Cannot be combined with 'value' or 'delete: true'.
    pub field_option_name: Option<String>,
    /// Set to true to clear this field's current value on the issue. When false or omitted, this property is ignored. Cannot be true when 'value' or 'field_option_name' is provided.
    pub delete: Option<bool>,
}

/// The value of a custom issue field: text (dates too), a number, or a flag.
///
/// Its schema is written by hand, `{"type": ["string", "number", "boolean"]}` as in the
/// snapshot: the derived schema of an untagged enum would be the equivalent, longer `anyOf`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(untagged)]
pub enum FieldValue {
    /// A text, single-select or date (`YYYY-MM-DD`) value.
    Text(String),
    /// A number value.
    Number(f64),
    /// A boolean value.
    Flag(bool),
}

impl JsonSchema for FieldValue {
    fn inline_schema() -> bool {
        true
    }

    fn schema_name() -> std::borrow::Cow<'static, str> {
        "FieldValue".into()
    }

    fn json_schema(_: &mut SchemaGenerator) -> Schema {
        json_schema!({"type": ["string", "number", "boolean"]})
    }
}

/// Update the state of an existing issue (open or closed), with an optional state reason. When closing, include a confidence level (LOW, MEDIUM, or HIGH) reflecting how certain you are about the decision. Use is_suggestion to propose the change without applying it directly.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema, Tool)]
#[tool(schema(keep_open_objects))] // open, as the server's own schema
#[tool(annotations(
    read_only = false,
    destructive = false,
    idempotent = false,
    open_world,
    title = "Update Issue State"
))]
pub struct UpdateIssueState {
    /// Repository owner (username or organization)
    pub owner: String,
    /// Repository name
    pub repo: String,
    /// The issue number to update
    #[schemars(range(min = 1))]
    pub issue_number: f64,
    /// The new state for the issue
    pub state: IssueState,
    /// The reason for the state change (only for closed state)
    pub state_reason: Option<StateReason>,
    /// The issue number of the canonical issue this issue duplicates. Only valid when state_reason is 'duplicate'. Required when is_suggestion is true and state_reason is 'duplicate'. The issue number is resolved to a database ID before being sent to the API.
    #[schemars(range(min = 1))]
    pub duplicate_of: Option<f64>,
    /// How confident you are in this choice. Use 'HIGH' for clear signal or explicit user request, 'MEDIUM' for reasonable inference with some ambiguity, 'LOW' for best guess with limited signal.
    pub confidence: Option<Confidence>,
    /// One concise sentence explaining what specifically about the issue led you to choose this state. State the concrete signal (e.g. 'The reported crash is fixed in v2.1' → completed).
    #[schemars(length(max = 280))]
    pub rationale: Option<String>,
    /// If true, this state change is sent to the API as a suggestion (suggest:true) rather than an applied change. Whether the change is applied or recorded as a proposal is determined by the API.
    pub is_suggestion: Option<bool>,
}

/// How sure [`UpdateIssueState`]'s caller is.
#[allow(missing_docs)] // undocumented variants: see the module docs of `github`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "UPPERCASE")]
#[schemars(description = "")]
pub enum Confidence {
    Low,
    Medium,
    High,
}
