use serde::Deserialize;
use toolmodel::{Tool, schemars::{self, JsonSchema}};

#[derive(Deserialize, JsonSchema, Tool)]
#[tool(name = "get_issue_issue_issue_issue_issue_issue_issue_issue_issue_issue_issue_issue_issue_issue_issue_issue_issue_issue_issue_issue_issue_issue_x")]
struct GetIssue {
    number: u64,
}

fn main() {}
