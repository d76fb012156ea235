//! Shape 1: the struct is its own arguments; every attribute, checked in the built tool.
use serde::Deserialize;
use serde_json::json;
use toolmodel::{Backend, Tool, ToolDefinition, schemars::{self, JsonSchema}};

/// Gets one issue of a repository.
///
/// Returns its title, body and state.
#[derive(Debug, Deserialize, JsonSchema, Tool)]
#[tool(
    name = "get_issue",
    namespace = "github",
    version = "v1.2.0-beta.1",
    title = "Get issue",
    tags("github", "issues"),
    annotations(read_only, destructive = false, idempotent, open_world = true, title = "Issue"),
    icon(src = "https://example.com/issue.png", mime_type = "image/png", sizes = ["48x48", "any"], theme = "light"),
    icon(src = "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=", theme = "dark"),
    task_support = "optional",
    local = "issues-handler",
)]
struct GetIssue {
    /// Repository owner.
    owner: String,
    /// Repository name.
    repo: String,
    /// Issue number.
    number: u32,
}

fn main() {
    assert_eq!(GetIssue::NAME, "get_issue");
    assert_eq!(GetIssue::NAMESPACE, Some("github"));
    assert_eq!(GetIssue::ID, "github:get_issue");
    let tool = GetIssue::tool();
    assert!(std::ptr::eq(tool, GetIssue::tool()), "built once");
    assert_eq!(
        tool.to_json(),
        json!({
            "name": "get_issue",
            "title": "Get issue",
            "description": "Gets one issue of a repository.\n\nReturns its title, body and state.",
            "inputSchema": {
                "type": "object",
                "properties": {
                    "owner": {"type": "string", "description": "Repository owner."},
                    "repo": {"type": "string", "description": "Repository name."},
                    "number": {"type": "integer", "minimum": 0, "maximum": 4294967295u32, "description": "Issue number."}
                },
                "required": ["owner", "repo", "number"],
                "additionalProperties": false
            },
            "annotations": {
                "title": "Issue",
                "readOnlyHint": true,
                "destructiveHint": false,
                "idempotentHint": true,
                "openWorldHint": true
            },
            "icons": [
                {"src": "https://example.com/issue.png", "mimeType": "image/png", "sizes": ["48x48", "any"], "theme": "light"},
                {"src": "data:image/svg+xml;base64,PHN2Zz48L3N2Zz4=", "theme": "dark"}
            ],
            "execution": {"taskSupport": "optional"},
            "namespace": "github",
            "version": "v1.2.0-beta.1",
            "tags": ["github", "issues"],
            "backends": [{"kind": "local", "local": {"name": "issues-handler"}}]
        })
    );
    assert_eq!(GetIssue::backend(), &Backend::local("issues-handler"));
    tool.validate().unwrap();

    let args = GetIssue::parse(&json!({"owner": "rust-lang", "repo": "rust", "number": 1})).unwrap();
    assert_eq!((args.owner.as_str(), args.repo.as_str(), args.number), ("rust-lang", "rust", 1));
    let err = GetIssue::parse(&json!({"owner": "rust-lang", "number": -1})).unwrap_err();
    let toolmodel::Error::InvalidInstance { errors } = err else { panic!("{err}") };
    let paths: Vec<&str> = errors.iter().map(|e| e.instance_path.as_str()).collect();
    assert_eq!(paths, ["", "/number"]);
}
