//! Every input a fuzz target (`fuzz/`) crashed on, kept as a regression test: the same check
//! the target runs, on the same bytes, plus the typed error the fixed code gives.
//!
//! Found by the adapter targets on 2026-11-21: a tool whose schema has a `type` name JSON
//! Schema does not define (`"strinG"`, `"^number"`) converted to a provider format that
//! `adapters::read` then refused. Converting now refuses it with [`Error::InvalidSchema`] at
//! the pointer of the `type`, so that whatever a conversion writes reads back.

use toolmodel::{
    Error, Tool,
    adapters::{ConvertOptions, ReadOptions, Target, convert, read},
};

/// The adapter targets' check: every conversion that succeeds reads back, and gives back the
/// tool's MCP form when it issued no warning. Returns the errors of the conversions that
/// failed.
fn converts_and_reads_back(bytes: &str) -> Vec<(Target, Error)> {
    let tool = Tool::from_mcp_str(bytes).expect("the crash input is an MCP tool");
    let mut errors = Vec::new();
    for target in Target::ALL {
        let mut options = vec![ConvertOptions::default()];
        if target.has_strict_mode() {
            options.push(ConvertOptions::default().with_strict(true));
        }
        for options in options {
            match convert(&tool, target, &options) {
                Ok(conversion) => {
                    let back = read(target, &conversion.value, &ReadOptions::default())
                        .unwrap_or_else(|err| {
                            panic!("{target}: {} does not read back: {err}", conversion.value)
                        });
                    if conversion.warnings.is_empty() {
                        let mut back = back.tool;
                        back.extra.remove("strict");
                        assert_eq!(back.to_mcp_json(), tool.to_mcp_json(), "{target}");
                    }
                }
                Err(err) => errors.push((target, err)),
            }
        }
    }
    errors
}

/// Every provider target refuses the tool with one issue at `pointer`; MCP converts it.
fn refused_by_providers_at(bytes: &str, pointer: &str) {
    let errors = converts_and_reads_back(bytes);
    assert!(!errors.is_empty());
    for (target, err) in errors {
        assert_ne!(target, Target::Mcp);
        let Error::InvalidSchema { issues } = &err else {
            panic!("{target}: {err:?}");
        };
        assert_eq!(issues.len(), 1, "{target}: {err}");
        assert_eq!(issues[0].pointer, pointer, "{target}: {err}");
        assert!(
            issues[0].message.contains("is not a JSON Schema type"),
            "{err}"
        );
    }
}

/// `fuzz/artifacts/adapter_anthropic/crash-f8bf99994742c5f43a33d89c96d7d170f02c567c`.
#[test]
fn adapter_anthropic_f8bf9999() {
    refused_by_providers_at(
        r#"{"annotations":null,"description":"\nPerform a detailed commute analysis between home and work locations.\n\nThis advanced tool analyzes commute options between two locations (typically home and work),\ncomparing multiple transportation modes and providing detailed metrics for each option.\nIncludes estimated travel times, distances, turn-by-turn directions, and other commute-relevant\ndata. Essential for real estate decisions, lifestyle planning, and workplace relocation analysis.\n\nArgs:\n    home_latitude: Home location latitude (decimal degrees)\n    home_longitude: Home location longitude (decimal degrees)\n    work_latitude: Workplace location latitude (decimal degrees)\n    work_longitude: Workplace location longitude (decimal degrees)\n    modes: List of transportation modes to analyze (options: \"car\", \"foot\", \"bike\")\n    depart_at: Optional departure time (format: \"HH:MM\") for time-sensitive routing\n    \nReturns:\n    Comprehensive commute analysis with:\n    - Summary comparing all transportation modes\n    - Detailed route information for each mode\n    - Total distance and duration for each option\n    - Turn-by-turn directions\n","inputSchema":{"properties":{"depart_at":{"default":null,"title":"Depart At","type":"string"},"home_latitude":{"title":"Home Latitude","type":"^number"},"home_longitude":{"title":"Home Longitude","type":"number"},"modes":{"default":["car","foot","bike"],"items":{"type":"string"},"title":"Modes","type":"array"},"work_latitude":{"title":"Work Latitude","type":"number"},"work_longitude":{"title":"Work Longitude","type":"number"}},"required":["home_latitude","home_longitude","work_latitude","work_longitude"],"title":"analyze_commuteArguments","type":"object"},"name":"analyze_commute","outputSchema":{"properties":{"result":{"additionalProperties":true,"title":"Result","type":"object"}},"required":["result"],"title":"analyze_commuteOutput","type":"object"}}"#,
        "/inputSchema/properties/home_latitude/type",
    );
}

/// `fuzz/artifacts/adapter_gemini/crash-4ccd90d073701614c687b0c738e46ec79646c7b3`.
#[test]
fn adapter_gemini_4ccd90d0() {
    refused_by_providers_at(
        r#"{"annotations":null,"description":"Perform an HTTP POST request","inputSchema":{"properties":{"headers":{"additionalProperties":{"type":"string"},"description":"Additional headers to include in the request","type":"object"},"token":{"description":"Bearer token for authorization","type":"s4ring"},"url":{"description":"URL to perform POST operation","type":"string"},"value":{"description":"Data to post in the body","type":"string"}},"required":["url","value"],"type":"object"},"name":"playwright_post"}"#,
        "/inputSchema/properties/token/type",
    );
}

/// `fuzz/artifacts/adapter_openai_chat/crash-5ecb81072335106df259c3e380dce9753aa5714a`.
#[test]
fn adapter_openai_chat_5ecb8107() {
    refused_by_providers_at(
        r#"{"annotations":null,"description":"Read a file's raw content by path or permalink","inputSchema":{"properties":{"path":{"title":"Path","type":"string"},"project":{"anyOf":[{"type":"strinG"},{"type":"null"}],"default":null,"title":"Project"}},"required":["path"],"type":"object"},"name":"read_content"}"#,
        "/inputSchema/properties/project/anyOf/0/type",
    );
}

/// `fuzz/artifacts/adapter_openai_responses/crash-18dbcedbda9ee68c16f55c225e4214a9a14df21c`.
#[test]
fn adapter_openai_responses_18dbcedb() {
    refused_by_providers_at(
        r#"{"description":"Add a comment to an existing issue","inputSchema":{"$schema":"http://json-schema.org/draft-07/schema#","additionalProperties":false,"properties":{"body":{"type":"string8"},"issue_number":{"type":"number"},"owner":{"type":"string"},"repo":{"type":"string"}},"required":["owner","repo","issue_number","body"],"type":"object"},"name":"add_issue_comment"}"#,
        "/inputSchema/properties/body/type",
    );
}
