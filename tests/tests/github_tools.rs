//! The GitHub example (`examples/github/`) held to github-mcp-server's own tool snapshots
//! (`../shared/corpus/github-mcp-server/<name>.snap`).
//!
//! For each of the twelve derived tools:
//!
//! 1. its MCP JSON equals the snapshot — name, description, annotations, icons, and every
//!    input schema keyword: property names, types, enums, `required`, descriptions, bounds,
//!    defaults — except for the known differences listed in [`KNOWN`], which are asserted
//!    one by one ([`compare::compare_tool`] says what is compared and how);
//! 2. a table of sample arguments, at least three valid and three invalid, is accepted or
//!    rejected alike by the snapshot's input schema and the derived one (both compiled with
//!    `DefaultValidator`), and `parse` succeeds exactly on the accepted ones. The one kind of
//!    sample the two schemas judge differently, `null` for an optional property, is a
//!    [`Verdict::NullOnlyDerived`] row, asserted as such;
//! 3. its MCP JSON is valid against `#/$defs/Tool` of the official MCP 2025-11-25 schema.
//!
//! Without `../shared`, the parts that need the snapshots or the MCP schema are skipped with
//! a notice (a failure under `CI`); the samples are still checked against the derived schema.

#[allow(dead_code)]
#[path = "../../examples/github_tools.rs"]
mod example;

use std::{fmt::Debug, path::PathBuf};

use serde_json::{Value, json};
use toolmodel::{DefaultValidator, Error, ToolDefinition, validate::CompiledSchema};
use toolmodel_examples::github::{
    self, Change, CreateIssue, CreatePullRequest, FieldValue, GetFileContents, GetMe,
    IssueFieldUpdate, IssueRead, IssueReadMethod, IssueState, IssueWrite, IssueWriteMethod,
    ListCommits, ListIssues, MergeMethod, MergePullRequest, SearchCode, SearchIssues, StateReason,
    UpdateIssueState,
    compare::{self, Difference},
};

/// The snapshot folder, or `None` (after a notice) when `../shared` is missing.
fn snapshots() -> Option<PathBuf> {
    toolmodel_tests::shared_dir("corpus/github-mcp-server")
}

/// The differences a tool is known to have from its snapshot, none of them a mismatch.
struct Known {
    tool: &'static str,
    /// Optional properties the derived schema also lets be `null` (`Option<T>` fields):
    /// pointers under `/inputSchema/properties/`.
    nullable: &'static [&'static str],
    /// Nullable properties spelled `anyOf: [S, {"type": "null"}]` in the snapshot: pointers
    /// under `/inputSchema/properties/`.
    null_spelling: &'static [&'static str],
    /// The snapshot has a `_meta`, which the derive cannot give.
    meta: bool,
}

/// Every derived tool, with its known differences.
const KNOWN: &[Known] = &[
    Known {
        tool: "get_me",
        nullable: &[],
        null_spelling: &[],
        meta: true,
    },
    Known {
        tool: "issue_read",
        nullable: &["page", "perPage"],
        null_spelling: &[],
        meta: false,
    },
    Known {
        tool: "list_issues",
        nullable: &[
            "state",
            "labels",
            "orderBy",
            "direction",
            "since",
            "field_filters",
            "fields",
            "perPage",
            "after",
        ],
        null_spelling: &[],
        meta: false,
    },
    Known {
        tool: "search_issues",
        nullable: &[
            "owner", "repo", "sort", "order", "fields", "page", "perPage",
        ],
        null_spelling: &[],
        meta: false,
    },
    Known {
        tool: "create_issue",
        nullable: &["body"],
        null_spelling: &[],
        meta: false,
    },
    Known {
        tool: "issue_write",
        nullable: &[
            "issue_number",
            "title",
            "body",
            "assignees",
            "labels",
            "milestone",
            "state",
            "state_reason",
            "duplicate_of",
            "issue_fields",
            "issue_fields/items/properties/value",
            "issue_fields/items/properties/field_option_name",
            "issue_fields/items/properties/delete",
        ],
        null_spelling: &["type"],
        meta: true,
    },
    Known {
        tool: "update_issue_state",
        nullable: &[
            "state_reason",
            "duplicate_of",
            "confidence",
            "rationale",
            "is_suggestion",
        ],
        null_spelling: &[],
        meta: false,
    },
    Known {
        tool: "search_code",
        nullable: &["sort", "order", "fields", "page", "perPage"],
        null_spelling: &[],
        meta: false,
    },
    Known {
        tool: "get_file_contents",
        nullable: &["ref", "sha", "fields"],
        null_spelling: &[],
        meta: false,
    },
    Known {
        tool: "list_commits",
        nullable: &[
            "sha", "path", "author", "since", "until", "fields", "page", "perPage",
        ],
        null_spelling: &[],
        meta: false,
    },
    Known {
        tool: "create_pull_request",
        nullable: &["body", "draft", "maintainer_can_modify", "reviewers"],
        null_spelling: &[],
        meta: true,
    },
    Known {
        tool: "merge_pull_request",
        nullable: &["commit_title", "commit_message", "merge_method"],
        null_spelling: &[],
        meta: false,
    },
];

impl Known {
    /// The differences, as [`compare::compare_tool`] reports them (sorted by their text).
    fn differences(&self) -> Vec<String> {
        let at = |path: &&str| format!("/inputSchema/properties/{path}");
        let mut all: Vec<Difference> = self
            .nullable
            .iter()
            .map(|path| Difference::NullableOptional(at(path)))
            .chain(
                self.null_spelling
                    .iter()
                    .map(|path| Difference::NullSpelling(at(path))),
            )
            .collect();
        if self.meta {
            all.push(Difference::Meta);
        }
        let mut all: Vec<String> = all.iter().map(ToString::to_string).collect();
        all.sort();
        all
    }
}

#[test]
fn every_derived_tool_matches_its_snapshot_but_for_the_known_differences() {
    let names: Vec<&str> = github::tools().iter().map(|t| t.name.as_str()).collect();
    let known: Vec<&str> = KNOWN.iter().map(|k| k.tool).collect();
    assert_eq!(names, known, "KNOWN lists every derived tool, in order");

    let Some(folder) = snapshots() else {
        return;
    };
    for (tool, known) in github::tools().iter().zip(KNOWN) {
        let snapshot = compare::read_snapshot(&folder, &tool.name).expect("the snapshot");
        let found: Vec<String> = compare::compare_tool(&tool.to_mcp_json(), &snapshot)
            .iter()
            .map(ToString::to_string)
            .collect();
        assert_eq!(found, known.differences(), "{}", tool.name);
    }
}

#[test]
fn the_comparison_finds_what_differs() {
    let tool = IssueWrite::tool().to_mcp_json();
    assert_eq!(compare::compare_tool(&tool, &tool), []);

    let mismatch_at = |snapshot: &Value| -> Vec<String> {
        compare::compare_tool(&tool, snapshot)
            .into_iter()
            .filter_map(|d| match d {
                Difference::Mismatch { pointer, .. } => Some(pointer),
                _ => None,
            })
            .collect()
    };
    let changed = |pointer: &str, value: Value| {
        let mut snapshot = tool.clone();
        *snapshot.pointer_mut(pointer).expect("the pointer exists") = value;
        snapshot
    };
    let p = "/inputSchema/properties";
    for (pointer, value) in [
        ("/description", json!("Creates issues.")),
        ("/annotations/readOnlyHint", json!(true)),
        (&format!("{p}/owner/description") as &str, json!("Owner")),
        (
            &format!("{p}/method/enum"),
            json!(["create", "update", "delete"]),
        ),
        (&format!("{p}/owner/type"), json!("number")),
        (&format!("{p}/labels/items/type"), json!("integer")),
        (
            &format!("{p}/issue_fields/items/additionalProperties"),
            json!(true),
        ),
    ] {
        assert_eq!(
            mismatch_at(&changed(pointer, value)),
            [pointer],
            "{pointer}"
        );
    }
    // A required property the snapshot does not have, a property it lacks.
    let mut snapshot = tool.clone();
    snapshot["inputSchema"]["required"] = json!(["method", "owner"]);
    assert_eq!(mismatch_at(&snapshot), ["/inputSchema/required"]);
    let mut snapshot = tool.clone();
    snapshot["inputSchema"]["properties"]
        .as_object_mut()
        .expect("properties")
        .remove("milestone");
    assert_eq!(mismatch_at(&snapshot), [format!("{p}/milestone")]);
    // A snapshot without `null` in an optional property's type is the known kind; `null`
    // where the derived schema has none is a mismatch.
    let snapshot = changed(&format!("{p}/body/type"), json!("string"));
    assert_eq!(
        compare::compare_tool(&tool, &snapshot),
        [Difference::NullableOptional(format!("{p}/body"))]
    );
    let snapshot = changed(&format!("{p}/owner/type"), json!(["string", "null"]));
    assert_eq!(mismatch_at(&snapshot), [format!("{p}/owner/type")]);
    // The `anyOf` spelling of a nullable type is the known kind.
    let snapshot = changed(
        &format!("{p}/type"),
        json!({"anyOf": [{"type": "null"}, {"type": "string", "minLength": 1}],
               "description": tool["inputSchema"]["properties"]["type"]["description"]}),
    );
    assert_eq!(
        compare::compare_tool(&tool, &snapshot),
        [Difference::NullSpelling(format!("{p}/type"))]
    );
    // Set semantics for `required` and `type`, value semantics for numbers.
    let snapshot = changed(&format!("{p}/type/type"), json!(["null", "string"]));
    assert_eq!(compare::compare_tool(&tool, &snapshot), []);
    let update = UpdateIssueState::tool().to_mcp_json();
    let mut snapshot = update.clone();
    snapshot["inputSchema"]["properties"]["issue_number"]["minimum"] = json!(1.0);
    snapshot["inputSchema"]["required"] = json!(["state", "issue_number", "repo", "owner"]);
    assert_eq!(compare::compare_tool(&update, &snapshot), []);
    snapshot["inputSchema"]["properties"]["issue_number"]["minimum"] = json!(2);
    assert_eq!(
        compare::compare_tool(&update, &snapshot)
            .iter()
            .filter(|d| d.is_mismatch())
            .count(),
        1
    );
}

/// How both schemas, and `parse`, must judge a sample.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Verdict {
    /// Accepted by both schemas; `parse` succeeds.
    Valid,
    /// Rejected by both schemas; `parse` fails with `Error::InvalidInstance`.
    Invalid,
    /// The known exception: `null` for an optional property. The derived schema accepts it
    /// (an `Option<T>` field is nullable in toolmodel's profile) and `parse` reads it as
    /// `None`; the snapshot rejects it.
    NullOnlyDerived,
}

use Verdict::{Invalid, NullOnlyDerived, Valid};

/// Judges every sample of a tool by the snapshot's schema (when the snapshots are there),
/// the derived schema and `T::parse`, and returns what `parse` gave for the samples it
/// accepted, in order.
fn judge<T: ToolDefinition>(samples: &[(Value, Verdict)]) -> Vec<T::Input>
where
    T::Input: Debug,
{
    let count = |verdict| samples.iter().filter(|(_, v)| *v == verdict).count();
    assert!(
        count(Valid) >= 3 && count(Invalid) >= 3,
        "{}: at least 3 valid and 3 invalid samples",
        T::NAME
    );
    let validator = DefaultValidator::new();
    let compile = |schema: &Value| -> CompiledSchema {
        validator.compile(schema).expect("the schema compiles")
    };
    let snapshot: Option<CompiledSchema> = snapshots().map(|folder| {
        compile(&compare::read_snapshot(&folder, T::NAME).expect("the snapshot")["inputSchema"])
    });
    let derived = compile(T::tool().input_schema.as_value());
    let mut parsed = Vec::new();
    for (sample, verdict) in samples {
        let in_derived = derived.is_valid(sample);
        let in_snapshot = snapshot.as_ref().map(|s| s.is_valid(sample));
        let result = T::parse(sample);
        let (want_snapshot, want_derived) = match verdict {
            Valid => (true, true),
            Invalid => (false, false),
            NullOnlyDerived => (false, true),
        };
        let context = format!("{} {sample}: {verdict:?}, parse gave {result:?}", T::NAME);
        assert_eq!(in_derived, want_derived, "derived schema: {context}");
        if let Some(in_snapshot) = in_snapshot {
            assert_eq!(in_snapshot, want_snapshot, "snapshot schema: {context}");
        }
        match result {
            Ok(input) => {
                assert!(want_derived, "parse accepted: {context}");
                parsed.push(input);
            }
            Err(Error::InvalidInstance { errors }) => {
                assert!(
                    !want_derived && !errors.is_empty(),
                    "parse rejected: {context}"
                );
            }
            Err(other) => panic!("{context}: unexpected error {other}"),
        }
    }
    parsed
}

#[test]
fn get_me_samples() {
    let parsed = judge::<GetMe>(&[
        (json!({}), Valid),
        (json!({"verbose": true}), Valid),
        (json!({"anything": [1, 2]}), Valid),
        (json!([]), Invalid),
        (json!("me"), Invalid),
        (json!(null), Invalid),
        (json!(7), Invalid),
    ]);
    assert_eq!(parsed, [GetMe {}, GetMe {}, GetMe {}]);
}

#[test]
fn issue_read_samples() {
    let base = json!({"method": "get", "owner": "octo", "repo": "hello", "issue_number": 42});
    let with = |key: &str, value: Value| {
        let mut sample = base.clone();
        sample[key] = value;
        sample
    };
    let parsed = judge::<IssueRead>(&[
        (base.clone(), Valid),
        (with("method", json!("get_sub_issues")), Valid),
        (with("page", json!(2)), Valid),
        (with("perPage", json!(100)), Valid),
        (with("issue_number", json!(42.5)), Valid),
        (with("unknown", json!("kept out")), Valid),
        (with("method", json!("get_reactions")), Invalid),
        (with("issue_number", json!("42")), Invalid),
        (with("page", json!(0)), Invalid),
        (with("perPage", json!(101)), Invalid),
        (
            json!({"method": "get", "owner": "octo", "repo": "hello"}),
            Invalid,
        ),
        (json!({}), Invalid),
        (with("page", Value::Null), NullOnlyDerived),
    ]);
    assert_eq!(parsed[1].method, IssueReadMethod::GetSubIssues);
    assert_eq!(parsed[2].pagination.page, Some(2.0));
    assert_eq!(parsed[3].pagination.per_page, Some(100.0));
    assert_eq!(parsed[4].issue_number, 42.5);
    assert_eq!(parsed[6].pagination.page, None);
}

#[test]
fn list_issues_samples() {
    let parsed = judge::<ListIssues>(&[
        (json!({"owner": "octo", "repo": "hello"}), Valid),
        (
            json!({"owner": "octo", "repo": "hello", "state": "OPEN", "labels": ["bug"],
                   "orderBy": "CREATED_AT", "direction": "DESC", "perPage": 50,
                   "after": "Y3Vyc29y", "since": "2025-01-01T00:00:00Z"}),
            Valid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "fields": ["number", "field_values"],
                   "field_filters": [{"field_name": "Priority", "value": "P1"}]}),
            Valid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "state": "open"}),
            Invalid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "orderBy": "NAME"}),
            Invalid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "labels": "bug"}),
            Invalid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "fields": ["reactions"]}),
            Invalid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "field_filters": [{"field_name": "Priority"}]}),
            Invalid,
        ),
        (json!({"owner": "octo"}), Invalid),
        (
            json!({"owner": "octo", "repo": "hello", "direction": null}),
            NullOnlyDerived,
        ),
    ]);
    assert_eq!(parsed[1].labels.as_deref(), Some(&["bug".to_owned()][..]));
    assert_eq!(parsed[2].field_filters.as_ref().map(Vec::len), Some(1));
    assert_eq!(parsed[3].direction, None);
}

#[test]
fn search_issues_samples() {
    let parsed = judge::<SearchIssues>(&[
        (json!({"query": "login fails after password reset"}), Valid),
        (
            json!({"query": "crash", "owner": "octo", "repo": "hello", "sort": "reactions-+1",
                   "order": "asc", "page": 3}),
            Valid,
        ),
        (
            json!({"query": "crash", "fields": ["state_reason", "closed_by"]}),
            Valid,
        ),
        (json!({"query": "crash", "sort": "reactions-+2"}), Invalid),
        (json!({"query": "crash", "order": "ASC"}), Invalid),
        (json!({"query": 7}), Invalid),
        (json!({"owner": "octo"}), Invalid),
        (json!({"query": "crash", "repo": null}), NullOnlyDerived),
    ]);
    assert_eq!(
        parsed[1].sort,
        Some(toolmodel_examples::github::IssueSearchSort::ReactionsPlusOne)
    );
}

#[test]
fn create_issue_samples() {
    let parsed = judge::<CreateIssue>(&[
        (
            json!({"owner": "octo", "repo": "hello", "title": "Crash"}),
            Valid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "title": "Crash", "body": "Steps: ..."}),
            Valid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "title": ""}),
            Valid,
        ),
        (json!({"owner": "octo", "repo": "hello"}), Invalid),
        (
            json!({"owner": "octo", "repo": "hello", "title": ["Crash"]}),
            Invalid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "title": "Crash", "body": 1}),
            Invalid,
        ),
        (json!("Crash"), Invalid),
        (
            json!({"owner": "octo", "repo": "hello", "title": "Crash", "body": null}),
            NullOnlyDerived,
        ),
    ]);
    assert_eq!(parsed[1].body.as_deref(), Some("Steps: ..."));
    assert_eq!(parsed[3].body, None);
}

#[test]
fn issue_write_samples() {
    let base = json!({"method": "update", "owner": "octo", "repo": "hello", "issue_number": 7});
    let with = |key: &str, value: Value| {
        let mut sample = base.clone();
        sample[key] = value;
        sample
    };
    let parsed = judge::<IssueWrite>(&[
        (base.clone(), Valid),
        (with("type", json!("Bug")), Valid),
        (with("type", Value::Null), Valid),
        (
            with(
                "issue_fields",
                json!([{"field_name": "Priority", "value": 2},
                       {"field_name": "Due", "value": "2025-06-01"},
                       {"field_name": "Flagged", "value": true},
                       {"field_name": "Team", "delete": true}]),
            ),
            Valid,
        ),
        (
            json!({"method": "create", "owner": "octo", "repo": "hello", "title": "New",
                   "labels": ["bug"], "assignees": ["mona"], "milestone": 3}),
            Valid,
        ),
        (
            with("state", json!("closed"))
                .as_object()
                .map(|o| {
                    let mut o = o.clone();
                    o.insert("state_reason".into(), json!("duplicate"));
                    o.insert("duplicate_of".into(), json!(5));
                    Value::Object(o)
                })
                .expect("an object"),
            Valid,
        ),
        (with("method", json!("delete")), Invalid),
        (with("type", json!("")), Invalid),
        (with("state_reason", json!("wontfix")), Invalid),
        (
            with(
                "issue_fields",
                json!([{"field_name": "Priority", "color": "red"}]),
            ),
            Invalid,
        ),
        (with("issue_fields", json!([{"value": 1}])), Invalid),
        (
            with(
                "issue_fields",
                json!([{"field_name": "Priority", "value": [1]}]),
            ),
            Invalid,
        ),
        (json!({"owner": "octo", "repo": "hello"}), Invalid),
        (with("milestone", Value::Null), NullOnlyDerived),
        (
            with(
                "issue_fields",
                json!([{"field_name": "Priority", "value": null}]),
            ),
            NullOnlyDerived,
        ),
    ]);
    assert_eq!(parsed[0].method, IssueWriteMethod::Update);
    assert_eq!(parsed[0].issue_type, Change::Keep);
    assert_eq!(parsed[1].issue_type, Change::Set("Bug".to_owned()));
    assert_eq!(parsed[2].issue_type, Change::Clear);
    let fields = parsed[3].issue_fields.as_deref().expect("issue_fields");
    let values: Vec<Option<&FieldValue>> = fields.iter().map(|f| f.value.as_ref()).collect();
    assert_eq!(
        values,
        [
            Some(&FieldValue::Number(2.0)),
            Some(&FieldValue::Text("2025-06-01".to_owned())),
            Some(&FieldValue::Flag(true)),
            None
        ]
    );
    assert_eq!(
        fields[3],
        IssueFieldUpdate {
            field_name: "Team".to_owned(),
            value: None,
            field_option_name: None,
            delete: Some(true),
        }
    );
    assert_eq!(parsed[5].state, Some(IssueState::Closed));
    assert_eq!(parsed[5].state_reason, Some(StateReason::Duplicate));
}

#[test]
fn update_issue_state_samples() {
    let base = json!({"owner": "octo", "repo": "hello", "issue_number": 7, "state": "closed"});
    let with = |key: &str, value: Value| {
        let mut sample = base.clone();
        sample[key] = value;
        sample
    };
    let parsed = judge::<UpdateIssueState>(&[
        (base.clone(), Valid),
        (with("confidence", json!("HIGH")), Valid),
        (with("rationale", json!("x".repeat(280))), Valid),
        (with("duplicate_of", json!(1)), Valid),
        (with("is_suggestion", json!(true)), Valid),
        (with("issue_number", json!(0)), Invalid),
        (with("duplicate_of", json!(0.5)), Invalid),
        (with("rationale", json!("x".repeat(281))), Invalid),
        (with("confidence", json!("high")), Invalid),
        (with("state", json!("merged")), Invalid),
        (
            json!({"owner": "octo", "repo": "hello", "issue_number": 7}),
            Invalid,
        ),
        (with("confidence", Value::Null), NullOnlyDerived),
    ]);
    assert_eq!(parsed[0].state, IssueState::Closed);
    assert_eq!(parsed[2].rationale.as_ref().map(String::len), Some(280));
}

#[test]
fn search_code_samples() {
    let parsed = judge::<SearchCode>(&[
        (
            json!({"query": "WithContext language:go org:github"}),
            Valid,
        ),
        (
            json!({"query": "func", "sort": "indexed", "order": "desc", "page": 1, "perPage": 1}),
            Valid,
        ),
        (
            json!({"query": "func", "fields": ["path", "text_matches"]}),
            Valid,
        ),
        (json!({"query": "func", "fields": "path"}), Invalid),
        (json!({"query": "func", "fields": ["score"]}), Invalid),
        (json!({"query": "func", "perPage": 0}), Invalid),
        (json!({"sort": "indexed"}), Invalid),
        (json!({"query": "func", "sort": null}), NullOnlyDerived),
    ]);
    assert_eq!(parsed[1].pagination.per_page, Some(1.0));
}

#[test]
fn get_file_contents_samples() {
    let parsed = judge::<GetFileContents>(&[
        (json!({"owner": "octo", "repo": "hello"}), Valid),
        (
            json!({"owner": "octo", "repo": "hello", "path": "src/main.rs",
                   "ref": "refs/heads/main"}),
            Valid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "sha": "abc123", "fields": ["name", "type"]}),
            Valid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "path": null}),
            Invalid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "path": ["src"]}),
            Invalid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "fields": ["mode"]}),
            Invalid,
        ),
        (json!({"repo": "hello"}), Invalid),
        (
            json!({"owner": "octo", "repo": "hello", "ref": null}),
            NullOnlyDerived,
        ),
    ]);
    assert_eq!(parsed[0].path, "/", "the snapshot's default");
    assert_eq!(parsed[1].path, "src/main.rs");
    assert_eq!(parsed[1].git_ref.as_deref(), Some("refs/heads/main"));
}

#[test]
fn list_commits_samples() {
    let parsed = judge::<ListCommits>(&[
        (json!({"owner": "octo", "repo": "hello"}), Valid),
        (
            json!({"owner": "octo", "repo": "hello", "sha": "main", "path": "README.md",
                   "author": "mona", "since": "2025-01-01", "until": "2025-02-01"}),
            Valid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "fields": ["sha", "html_url"], "page": 2}),
            Valid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "fields": ["message"]}),
            Invalid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "page": "2"}),
            Invalid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "perPage": 1000}),
            Invalid,
        ),
        (json!({"owner": "octo", "repo": 1}), Invalid),
        (
            json!({"owner": "octo", "repo": "hello", "until": null}),
            NullOnlyDerived,
        ),
    ]);
    assert_eq!(parsed[2].pagination.page, Some(2.0));
}

#[test]
fn create_pull_request_samples() {
    let base =
        json!({"owner": "octo", "repo": "hello", "title": "Fix", "head": "fix", "base": "main"});
    let with = |key: &str, value: Value| {
        let mut sample = base.clone();
        sample[key] = value;
        sample
    };
    let parsed = judge::<CreatePullRequest>(&[
        (base.clone(), Valid),
        (with("draft", json!(true)), Valid),
        (with("reviewers", json!(["mona", "octo/reviewers"])), Valid),
        (with("maintainer_can_modify", json!(false)), Valid),
        (with("draft", json!("yes")), Invalid),
        (with("reviewers", json!("mona")), Invalid),
        (
            json!({"owner": "octo", "repo": "hello", "title": "Fix", "head": "fix"}),
            Invalid,
        ),
        (with("reviewers", Value::Null), NullOnlyDerived),
    ]);
    assert_eq!(parsed[1].draft, Some(true));
    assert_eq!(parsed[2].reviewers.as_ref().map(Vec::len), Some(2));
}

#[test]
fn merge_pull_request_samples() {
    let parsed = judge::<MergePullRequest>(&[
        (
            json!({"owner": "octo", "repo": "hello", "pullNumber": 12}),
            Valid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "pullNumber": 12, "merge_method": "squash",
                   "commit_title": "Fix (#12)", "commit_message": "Details"}),
            Valid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "pullNumber": 12.0}),
            Valid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "pull_number": 12}),
            Invalid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "pullNumber": 12, "merge_method": "fast-forward"}),
            Invalid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "pullNumber": true}),
            Invalid,
        ),
        (
            json!({"owner": "octo", "repo": "hello", "pullNumber": 12, "commit_title": null}),
            NullOnlyDerived,
        ),
    ]);
    assert_eq!(parsed[1].pull_number, 12.0);
    assert_eq!(parsed[1].merge_method, Some(MergeMethod::Squash));
}

#[test]
fn every_derived_tool_is_a_valid_mcp_tool() {
    for tool in github::tools() {
        tool.validate().expect("valid by toolmodel's rules");
        let text = tool.to_mcp_json().to_string();
        for banned in ["$schema", "$ref", "$defs", "\"format\""] {
            assert!(!text.contains(banned), "{banned} in {text}");
        }
    }
    let Some(validator) = toolmodel_tests::mcp_tool_validator() else {
        return;
    };
    for tool in github::tools() {
        let json = tool.to_mcp_json();
        let errors: Vec<String> = validator
            .iter_errors(&json)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{}: {errors:?}", tool.name);
    }
    // The validator does reject a broken tool (an icon without `src`), so the loop can fail.
    let mut broken = MergePullRequest::tool().to_mcp_json();
    broken["icons"][0]
        .as_object_mut()
        .expect("an icon")
        .remove("src");
    assert!(!validator.is_valid(&broken));
}

#[test]
fn the_example_runs_and_finds_no_mismatch() {
    example::main().expect("no tool differs from its snapshot");
}
