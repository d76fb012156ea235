//! The checks each fuzz target runs on its input, so that the targets stay one line each.
//!
//! Beyond "no panic, no crash, no hang" (what libFuzzer detects), each check asserts a
//! property, so that a wrong answer is a finding too.

use std::{
    sync::OnceLock,
    time::{Duration, Instant},
};

use serde_json::Value;
use toolmodel::{
    DefaultValidator, Error, Tool, ToolSchema,
    adapters::{ConvertOptions, ReadOptions, Target, convert, read},
    model::{
        parse_tool_id,
        tags::{MAX_TAG_LEN, MAX_TAGS, is_normalized, normalize_tags},
    },
    validate::{Dialect, ValidationLimits},
};

/// The gateway's resource-template matcher (`toolmodel-rmcp`, feature `federation`), its
/// source compiled here as it is there: no public path exposes it.
#[path = "../../toolmodel-rmcp/src/federation/uri_template.rs"]
#[allow(dead_code, reason = "the matcher's constants and its tests are the crate's")]
mod uri_template;

/// The longest a match may take, on any input up to 1 MiB (a template over 512 bytes or a
/// URI over 16 KiB matches nothing at once): what a request pays.
const URI_TEMPLATE_BUDGET: Duration = Duration::from_millis(10);

/// A resource template and a URI (the input's text before and after its first NUL byte): the
/// match takes under [`URI_TEMPLATE_BUDGET`] whatever both hold, and agrees with a plain
/// matcher of the same rules on inputs small enough for it.
pub fn uri_template(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let (template, uri) = text.split_once('\0').unwrap_or((&text, ""));
    let started = Instant::now();
    let matched = uri_template::matches(template, uri);
    let took = started.elapsed();
    assert!(
        took < URI_TEMPLATE_BUDGET,
        "{} template bytes, {} URI bytes: {took:?}",
        template.len(),
        uri.len()
    );
    if template.len() <= 64 && uri.len() <= 64 {
        assert_eq!(matched, reference_match(template, uri), "{template:?} {uri:?}");
    }
}

/// The matcher's rules written the slow, obvious way (a table of which piece matches from
/// which character, filled backwards; cubic, so only for small inputs): `Err(any)` for an
/// expression (`any`: `+`, `#`, `/`, `?` or `&`, which may hold `/`, `?` and `#`), `Ok(c)`
/// for a literal character.
fn reference_match(template: &str, uri: &str) -> bool {
    let mut pieces: Vec<Result<char, bool>> = Vec::new();
    let mut chars = template.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '{' {
            let operator = chars.peek().copied();
            loop {
                match chars.next() {
                    Some('}') => break,
                    Some(_) => {}
                    None => return false,
                }
            }
            pieces.push(Err(matches!(operator, Some('+' | '#' | '/' | '?' | '&'))));
        } else {
            pieces.push(Ok(c));
        }
    }
    let uri: Vec<char> = uri.chars().collect();
    // matched[p][u]: pieces[p..] match uri[u..].
    let mut matched = vec![vec![false; uri.len() + 1]; pieces.len() + 1];
    matched[pieces.len()][uri.len()] = true;
    for p in (0..pieces.len()).rev() {
        for u in (0..=uri.len()).rev() {
            matched[p][u] = match pieces[p] {
                Ok(c) => uri.get(u) == Some(&c) && matched[p + 1][u + 1],
                Err(any) => (u..=uri.len()).any(|end| {
                    uri[u..end].iter().all(|c| any || !matches!(c, '/' | '?' | '#'))
                        && matched[p + 1][end]
                }),
            };
        }
    }
    matched[0][0]
}

/// MCP tool text: `from_mcp_slice` and `from_mcp_str` agree; a tool read back from its MCP
/// JSON (as a value and as text) gives the same JSON; a tool without violations round-trips
/// through the full form.
pub fn tool_json(data: &[u8]) {
    let from_slice = Tool::from_mcp_slice(data);
    if let Ok(text) = std::str::from_utf8(data) {
        assert_eq!(Tool::from_mcp_str(text), from_slice);
        let _ = Tool::from_json_str(text);
    }
    let Ok(tool) = from_slice else {
        return;
    };
    let violations = tool.violations();
    let mcp = tool.to_mcp_json();
    let again = Tool::from_mcp_json(&mcp).expect("the MCP JSON of a tool reads back");
    assert_eq!(again.to_mcp_json(), mcp);
    let text = mcp.to_string();
    let from_text = Tool::from_mcp_str(&text).expect("the MCP text of a tool reads back");
    assert_eq!(from_text.to_mcp_json(), mcp);
    if violations.is_empty() {
        assert_eq!(Tool::from_json(&tool.to_json()).as_ref(), Ok(&tool));
    }
}

/// Tool IDs: whatever parses displays as text that parses back to it.
pub fn tool_id(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    if let Ok(id) = parse_tool_id(text) {
        let shown = id.to_string();
        assert_eq!(shown, text, "an ID displays as it was written");
        assert!(parse_tool_id(&shown) == Ok(id));
    }
}

/// Tags (one per line): the normal form is bounded, made of allowed characters, and a fixed
/// point.
pub fn tags(data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let raw: Vec<&str> = text.split('\n').collect();
    let normal = normalize_tags(&raw);
    assert!(normal.len() <= MAX_TAGS);
    for tag in &normal {
        assert!(!tag.is_empty() && tag.len() <= MAX_TAG_LEN, "{tag:?}");
        assert!(
            tag.chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || "-_.".contains(c)),
            "{tag:?}"
        );
    }
    assert_eq!(normalize_tags(&normal), normal);
    assert!(is_normalized(&normal));
}

fn validators() -> &'static [DefaultValidator; 4] {
    static VALIDATORS: OnceLock<[DefaultValidator; 4]> = OnceLock::new();
    VALIDATORS.get_or_init(|| {
        let mut backtracking = ValidationLimits::default();
        backtracking.pattern_backtrack_limit = Some(10_000);
        let mut small = ValidationLimits::default();
        small.max_depth = 8;
        small.max_expansion = 1_000;
        [
            DefaultValidator::new(),
            DefaultValidator::new()
                .with_default_dialect(Dialect::Draft7)
                .with_format_assertions(true),
            DefaultValidator::new().with_limits(backtracking),
            DefaultValidator::new().with_limits(small),
        ]
    })
}

/// A schema and an instance (the first two JSON values of the input; the instance defaults to
/// `null`): compiling gives a schema or a schema error; validating agrees with `is_valid`,
/// gives a typed outcome, and gives the same outcome cached and uncached.
pub fn schema_validate(data: &[u8]) {
    let mut values = serde_json::Deserializer::from_slice(data).into_iter::<Value>();
    let Some(Ok(schema)) = values.next() else {
        return;
    };
    let instance = match values.next() {
        Some(Ok(instance)) => instance,
        _ => Value::Null,
    };
    for validator in validators() {
        let compiled = match validator.compile(&schema) {
            Ok(compiled) => compiled,
            Err(err) => {
                assert!(
                    matches!(
                        err,
                        Error::InvalidSchema { .. }
                            | Error::UnsupportedSchema { .. }
                            | Error::ExternalRef { .. }
                            | Error::SchemaTooDeep { .. }
                            | Error::SchemaTooLarge { .. }
                    ),
                    "{err:?}"
                );
                continue;
            }
        };
        let outcome = compiled.validate(&instance);
        assert_eq!(outcome.is_ok(), compiled.is_valid(&instance));
        match &outcome {
            Ok(()) | Err(Error::PatternUndecided { .. } | Error::InstanceTooDeep { .. }) => {}
            Err(Error::InvalidInstance { errors }) => assert!(!errors.is_empty()),
            Err(other) => panic!("unexpected {other:?}"),
        }
        if let Ok(schema) = ToolSchema::try_from(schema.clone()) {
            let tool = Tool::new("t", schema);
            let first = toolmodel::SchemaValidator::validate_arguments(validator, &tool, &instance);
            let cached = toolmodel::SchemaValidator::validate_arguments(validator, &tool, &instance);
            assert_eq!(first, cached);
            assert_eq!(first, outcome);
        }
    }
}

/// The conversions a target is fuzzed with: plain, strict (where the target has it), with
/// widening, Gemini's JSON Schema mode, qualified names without moved constraints, and a small
/// inlining budget.
fn options(target: Target) -> Vec<ConvertOptions> {
    let mut out = vec![
        ConvertOptions::default(),
        ConvertOptions::default().with_allow_widening(true),
        ConvertOptions::default()
            .with_qualified_names(true)
            .with_constraints_to_description(false)
            .with_inline_budget(500),
    ];
    if target.has_strict_mode() {
        out.push(ConvertOptions::default().with_strict(true));
        out.push(
            ConvertOptions::default()
                .with_strict(true)
                .with_allow_widening(true),
        );
    }
    if target == Target::Gemini {
        out.push(ConvertOptions::default().with_gemini_json_schema(true));
    }
    out
}

/// One adapter: the input read as the target's format (plain and lenient) never panics; the
/// input read as an MCP tool and converted reads back, and gives back the tool's MCP form when
/// the conversion issued no warning (the documented round trip).
pub fn adapter(target: Target, data: &[u8]) {
    if let Ok(value) = serde_json::from_slice::<Value>(data) {
        for lenient in [false, true] {
            let _ = read(
                target,
                &value,
                &ReadOptions::default().with_lenient(lenient),
            );
        }
    }
    let Ok(tool) = Tool::from_mcp_slice(data) else {
        return;
    };
    for options in options(target) {
        let Ok(conversion) = convert(&tool, target, &options) else {
            continue;
        };
        let back = read(target, &conversion.value, &ReadOptions::default());
        let back = match back {
            Ok(back) => back.tool,
            Err(err) => panic!("{target}: {} does not read back: {err}", conversion.value),
        };
        if conversion.warnings.is_empty() {
            let mut back = back;
            if !tool.extra.contains_key("strict") {
                back.extra.remove("strict");
            }
            assert_eq!(back.to_mcp_json(), tool.to_mcp_json(), "{target}");
        }
    }
}

/// The CLI's input reader (`toolmodel_cli::input::parse_document`): any bytes give a document
/// or a typed error that names the file; a syntax error has a 1-based line; every entry's
/// pointer is a pointer into the document, and every entry that reads as a tool reads the same
/// from its MCP JSON.
pub fn cli_input(data: &[u8]) {
    use toolmodel_cli::{Error as CliError, input::parse_document};

    match parse_document("fuzz.json", data) {
        Ok(document) => {
            assert_eq!(document.path, "fuzz.json");
            let Ok(value) = serde_json::from_slice::<Value>(
                data.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(data),
            ) else {
                panic!("parse_document accepted text serde_json refuses");
            };
            for entry in &document.entries {
                let Some(object) = value.pointer(&entry.pointer) else {
                    panic!("entry pointer {:?} is not in the document", entry.pointer);
                };
                assert!(entry.pointer.starts_with(&entry.group));
                if let Ok(tool) = &entry.tool {
                    assert_eq!(entry.name.as_deref(), Some(tool.name.as_str()));
                    assert_eq!(Tool::from_mcp_json(object).as_ref(), Ok(tool));
                }
            }
        }
        Err(CliError::Syntax { path, line, .. }) => {
            assert_eq!(path, "fuzz.json");
            assert!(line >= 1, "a syntax error has a line");
        }
        Err(CliError::NotToolDocument { path, .. }) => assert_eq!(path, "fuzz.json"),
        Err(other) => panic!("unexpected {other:?}"),
    }
}
