//! `#[derive(Tool)]` checks names, namespaces, versions, tags, icons, themes, task support and
//! the local handler name at compile time with a copy of the runtime's rules
//! (`toolmodel-derive/src/rules.rs`: the derive cannot depend on `toolmodel`). This test
//! includes that very file and holds it and the runtime to one table of cases, plus random
//! inputs.

#[allow(dead_code)]
#[path = "../../toolmodel-derive/src/rules.rs"]
mod rules;

use proptest::prelude::*;
use serde_json::json;
use toolmodel::{
    Backend, Error, Tool, ToolSchema, Violation,
    model::{Icon, IconTheme, TaskSupport, name, tags},
};

fn tool() -> Tool {
    Tool::new("t", ToolSchema::empty_object())
}

/// The runtime's verdict on a name: its problems, as text.
fn runtime_name_problems(text: &str) -> Vec<String> {
    match name::check_name(text) {
        Ok(()) => Vec::new(),
        Err(Error::InvalidName(err)) => err.problems.iter().map(ToString::to_string).collect(),
        Err(other) => panic!("{other}"),
    }
}

fn runtime_version_problem(version: &str) -> Option<String> {
    let mut tool = tool();
    tool.version = Some(version.to_owned());
    tool.violations()
        .into_iter()
        .find_map(|violation| match violation {
            Violation::Version { reason, .. } => Some(reason),
            _ => None,
        })
}

/// The runtime's verdict on an `x-mcp-header` name (MCP 2026-07-28), as text.
fn runtime_header_problem(name: &str) -> Option<String> {
    let tool = Tool::from_mcp_json(&json!({"name": "t", "inputSchema": {"type": "object",
        "properties": {"p": {"type": "string", "x-mcp-header": name}}}}))
    .unwrap();
    tool.violations()
        .into_iter()
        .find_map(|violation| match violation {
            Violation::Header { problem, .. } => Some(problem.to_string()),
            _ => None,
        })
}

fn runtime_icon_allowed(src: &str) -> bool {
    let mut tool = tool();
    tool.icons = Some(vec![Icon::new(src)]);
    tool.validate().is_ok()
}

fn runtime_backend_allowed(name: &str) -> bool {
    let mut tool = tool();
    tool.backends = vec![Backend::local(name)];
    tool.validate().is_ok()
}

fn assert_tags_agree(list: &[String]) {
    let problems = rules::tag_problems(list);
    assert_eq!(problems.is_empty(), tags::is_normalized(list), "{list:?}");
    for (index, problem) in problems {
        if let rules::TagProblem::NotNormal(normal) = problem {
            assert_eq!(Some(normal), tags::normalize_tag(&list[index]), "{list:?}");
        }
    }
}

#[test]
fn names_one_table() {
    let long = "x".repeat(129);
    let cases: &[(&str, bool)] = &[
        ("get_weather", true),
        ("getUser", true),
        ("DATA_EXPORT_v2", true),
        ("admin.tools.list", true),
        ("a-b", true),
        ("a", true),
        (&"y".repeat(128), true),
        ("", false),
        (&long, false),
        ("get weather", false),
        ("a:b", false),
        ("météo", false),
        ("tab\there", false),
        ("slash/name", false),
        ("emoji🙂", false),
    ];
    for &(text, valid) in cases {
        let derive = rules::name_problems(text);
        assert_eq!(derive, runtime_name_problems(text), "{text:?}");
        assert_eq!(derive.is_empty(), valid, "{text:?}");
    }
}

#[test]
fn headers_one_table() {
    for (text, valid) in [
        ("Region", true),
        ("x-Trace_1.v2", true),
        ("!#$%&'*+-.^_`|~", true),
        ("", false),
        ("Re gion", false),
        ("a:b", false),
        ("a\r\nb", false),
        ("\u{7f}", false),
        ("Région", false),
        ("a\"b", false),
    ] {
        let derive = rules::header_problem(text);
        assert_eq!(derive, runtime_header_problem(text), "{text:?}");
        assert_eq!(derive.is_none(), valid, "{text:?}");
    }
}

#[test]
fn versions_one_table() {
    for (text, valid) in [
        ("1.2.3", true),
        ("v1.2.3", true),
        ("0.0.1-rc.1+build.5", true),
        ("1.0", false),
        ("01.2.3", false),
        ("V1.2.3", false),
        ("latest", false),
        ("", false),
        ("v", false),
        ("1.2.3.4", false),
    ] {
        let derive = rules::version_problem(text);
        assert_eq!(derive, runtime_version_problem(text), "{text:?}");
        assert_eq!(derive.is_none(), valid, "{text:?}");
    }
}

#[test]
fn tags_one_table() {
    let many: Vec<String> = (0..21).map(|i| format!("t{i}")).collect();
    let cases: Vec<Vec<String>> = vec![
        vec![],
        vec!["github".into(), "issues".into()],
        vec!["Web Search".into()],
        vec!["web-search".into(), "web-search".into()],
        vec![" spaced ".into()],
        vec!["?!".into()],
        vec!["données".into()],
        vec!["a".repeat(65)],
        many[..20].to_vec(),
        many,
    ];
    for list in &cases {
        assert_tags_agree(list);
    }
    assert!(rules::tag_problems(&cases[1]).is_empty());
    assert_eq!(
        rules::tag_problems(&cases[2]),
        [(0, rules::TagProblem::NotNormal("web-search".into()))]
    );
    assert_eq!(
        rules::tag_problems(&cases[9]),
        [(20, rules::TagProblem::TooMany)]
    );
}

#[test]
fn icons_themes_task_support_and_backends_one_table() {
    for (src, allowed) in [
        ("https://example.com/a.png", true),
        ("HTTP://example.com/a.png", true),
        ("data:image/png;base64,AA", true),
        ("javascript:alert(1)", false),
        ("file:///etc/passwd", false),
        ("a.png", false),
        ("", false),
        ("1http://x", false),
    ] {
        assert_eq!(rules::icon_src_allowed(src), allowed, "{src:?}");
        assert_eq!(runtime_icon_allowed(src), allowed, "{src:?}");
    }
    for theme in ["light", "dark", "Light", "blue", ""] {
        let runtime = serde_json::from_value::<IconTheme>(json!(theme)).is_ok();
        assert_eq!(rules::THEMES.contains(&theme), runtime, "{theme:?}");
        assert_eq!(theme.parse::<IconTheme>().is_ok(), runtime, "{theme:?}");
    }
    for value in [
        "forbidden",
        "optional",
        "required",
        "Required",
        "sometimes",
        "",
    ] {
        let runtime = value.parse::<TaskSupport>().is_ok();
        assert_eq!(rules::TASK_SUPPORT.contains(&value), runtime, "{value:?}");
    }
    for name in ["handler", "github:get_issue", "", " ", "\t"] {
        assert_eq!(
            rules::backend_name_allowed(name),
            runtime_backend_allowed(name),
            "{name:?}"
        );
    }
    assert_eq!(rules::MAX_NAME_LEN, name::MAX_NAME_LEN);
    assert_eq!(rules::MAX_TAG_LEN, tags::MAX_TAG_LEN);
    assert_eq!(rules::MAX_TAGS, tags::MAX_TAGS);
    assert_eq!(rules::ICON_SCHEMES, toolmodel::validate::ICON_SCHEMES);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn names_agree(text in ".{0,140}") {
        prop_assert_eq!(rules::name_problems(&text), runtime_name_problems(&text));
    }

    #[test]
    fn near_valid_names_agree(text in "[A-Za-z0-9_.:/ -]{0,130}") {
        prop_assert_eq!(rules::name_problems(&text), runtime_name_problems(&text));
    }

    #[test]
    fn tags_agree(list in proptest::collection::vec("[a-zA-Z0-9 _.!-]{0,8}", 0..24)) {
        assert_tags_agree(&list);
    }

    #[test]
    fn headers_agree(text in "[A-Za-z0-9!#$%&'*+.^_`|~:\"(),/ \r\n\t\u{7f}é-]{0,12}") {
        prop_assert_eq!(rules::header_problem(&text), runtime_header_problem(&text));
    }

    #[test]
    fn versions_agree(text in "v?[0-9]{1,2}(\\.[0-9]{1,2}){0,3}(-[a-z0-9.]{1,5})?") {
        prop_assert_eq!(rules::version_problem(&text), runtime_version_problem(&text));
    }
}
