//! Pull request tools: `create_pull_request` and `merge_pull_request` (github-mcp-server
//! `pkg/github/pullrequests.go`).

use serde::Deserialize;
use toolmodel::{
    Tool,
    schemars::{self, JsonSchema},
};

/// Create a new pull request in a GitHub repository.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, JsonSchema, Tool)]
#[tool(schema(keep_open_objects))] // open, as the server's own schema
#[tool(annotations(read_only = false, idempotent = false, title = "Open new pull request"))]
pub struct CreatePullRequest {
    /// Repository owner
    pub owner: String,
    /// Repository name
    pub repo: String,
    /// PR title
    pub title: String,
    /// Branch containing changes
    pub head: String,
    /// Branch to merge into
    pub base: String,
    /// PR description
    pub body: Option<String>,
    /// Create as draft PR
    pub draft: Option<bool>,
    /// Allow maintainer edits
    pub maintainer_can_modify: Option<bool>,
    /// GitHub usernames or ORG/team-slug team reviewers to request reviews from
    pub reviewers: Option<Vec<String>>,
}

/// Merge a pull request in a GitHub repository.
// Clippy's `duplicated_attributes` takes the second icon's `mime_type` for a repeat of the
// first's, though they belong to different `icon(...)`s.
#[allow(clippy::duplicated_attributes)]
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema, Tool)]
#[tool(schema(keep_open_objects))] // open, as the server's own schema
#[tool(
    annotations(read_only = false, idempotent = false, title = "Merge pull request"),
    icon(
        src = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABgAAAAYCAYAAADgdz34AAAABmJLR0QA/wD/AP+gvaeTAAACeElEQVRIibWVTUhUYRSGn/e74+iiQih1F9Vcmj9sptylUVBYkO4jcNeuJBdFKxe1CYQokGrRKjCEdtmqwEVmtqomQWeiUdc2EBUtUufe0yLHn1KLGXtX5zvn4zz3vd8f/Gfp90Qs0drmpA6MT1EveDo1NfV92wB+KnMdo39Nfs4L7eSHD5Nz1QJcJYglWtsw+iUehAuRRjO1g+0KHLerbb4OIHnHAC1FdW129s3XmUJuwnBDoOPbA7BwHsD7QWq1HKYN5msBRCpB1AueLoSROSkciSUyj5ClhE6BLtYC8CpBqVRabNrdMmIiJdQjuUbQ1WI+d78WwIbykxnzU9np7ejlNq2YxQ4ebNtTKyCyWcEgYl55EDj/a7ihFEtkLkr0As2YxjwL+9aem00dCEYNzvnJzLDvH27aaM5y80HEnKGHKGwPnEbT6fSOvzpAmrDQnkncpC7siiUzz2QqIPu25iOuGBorTufO/AJmH0v2ajHwuoHhrQHATOH9rQPJ7IjDLgs6kZ0F6it1AzArVcZLdUE+WnYgmv/uYFmz+dxH4NJGNT+RfYLCE7F4tn0pGkxHy94AmBm8/GfAVvIs7AukUTkbj5YdYIbZ9WJh8m1lzrrbNB4/tD+QuyPsdCibF26gmM/dY/NdRDqd3rEYeN04mswYL+ZXm68DxOPxnWXXMClsp+GGhCWBTtClYj53t1qXK78oVH2XYB/mHZ0pvHsN4Cczzw3rBaoGrJ6D5ZUvN1i+kjI0LWiptjmscbC88hZZCAf2trZeq1v0UsJ6wF7UAlhxUMxPvkW6AboQLbvPcjaO+BIx11cL4I9H308eOiLRQUhpOx79/66fNKzrOCYNDm0AAAAASUVORK5CYII=",
        mime_type = "image/png",
        theme = "light"
    ),
    icon(
        src = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAABgAAAAYCAYAAADgdz34AAAABmJLR0QA/wD/AP+gvaeTAAABjElEQVRIibWVPS/DURTGnysSC0HiZdWVrZ28JDaLT8BHaBsMdjqZJDXiAzC2LF5mX6GtATGiIsGARH+Gnj9X8a/kf3uWe3Py3Oc559xz75E6bK7VAWQkzUi6lXTonHsOpgYUgAZfdgmkQpFnjHwb6AemgDpQCiWwYlEPeL4i8JCEt8vb39g67vkmPH8yA3qt5nVgCzi1jLJBBEwkBZSAdxPKAj86LYQQQCU4cYvAKzDUSYF3YC+uRIAD8sA58ACU//VuTODE1n1g+A9c3jBH1tJ1a5TeCPNrdACSCpKeJG1IepN0LKkm6dGDrkqqOOdm7dyUpDNJi865PUnqjsvEObcJHEhaljQnaV5STwvszttXbR2J441KtB4LauLKVpZpYBDYte8mHUogZTWPrAGstTtQBl6AayDX7qHZD7AALMVGDvQBV5ZyETi2qHLtMvmXWRQAk57vBKgl4fV/0+jmq56vImk0icCnAWm7pB3riGngnlADx0TW+T4yL4CxJJy/Df20mkP/TqGHfifsA7INs3X5i3+yAAAAAElFTkSuQmCC",
        mime_type = "image/png",
        theme = "dark"
    )
)]
pub struct MergePullRequest {
    /// Repository owner
    pub owner: String,
    /// Repository name
    pub repo: String,
    /// Pull request number
    #[serde(rename = "pullNumber")]
    pub pull_number: f64,
    /// Title for merge commit
    pub commit_title: Option<String>,
    /// Extra detail for merge commit
    pub commit_message: Option<String>,
    /// Merge method
    pub merge_method: Option<MergeMethod>,
}

/// How [`MergePullRequest`] merges.
#[allow(missing_docs)] // undocumented variants: see the module docs of `github`
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[schemars(description = "")]
pub enum MergeMethod {
    Merge,
    Squash,
    Rebase,
}
