//! `toolmodel lint`: the MCP spec errors of every tool of a document, and what each provider
//! target would reject or change.
//!
//! Spec errors ([`Kind`]), per tool, in this order:
//! - the tool object cannot be read as an MCP `Tool` ([`Kind::ToolShape`]: `inputSchema`
//!   missing or not an object, `name` not a string, ...);
//! - [`Tool::violations_for`](toolmodel::Tool::violations_for) the protocol version asked for
//!   (default the newest): the name (MCP "Tool Names"), a schema root that is not
//!   `"type": "object"`, an icon `src` that is not `https:`, `http:` or `data:`, the
//!   `x-mcp-header` rules ([`Kind::Header`]), and the other rules of
//!   [`Tool::validate_for`](toolmodel::Tool::validate_for);
//! - each schema ([`DefaultValidator::compile`]): a `$schema` dialect other than 2020-12 or
//!   draft-07 ([`Kind::SchemaDialect`]), a schema invalid against its meta-schema
//!   ([`Kind::InvalidSchema`], one finding per problem), a `$ref` outside the schema
//!   ([`Kind::ExternalRef`]);
//! - a name used by an earlier tool of the same server ([`Kind::DuplicateName`]; MCP: names
//!   should be unique within a server);
//! - the `toolmodel` extensions a registry or gateway may send beside the MCP keys
//!   (`category`, `requiredScopes`, `timeoutMs`; [`Kind::Extension`]): read as the full form
//!   reads them ([`Tool::from_json`](toolmodel::Tool::from_json)) and checked by their rules
//!   (a category not empty, trimmed, at most 64 characters; each scope an RFC 6749 §3.3
//!   `scope-token`, none repeated; a timeout a positive integer of milliseconds). What they
//!   hold is shown too ([`ToolReport::extensions`], and a `note[extensions]` line in the
//!   detailed text report).
//!
//! Versions: for every protocol version, what writing the tool for it leaves out
//! ([`Tool::to_mcp_json_for`](toolmodel::Tool::to_mcp_json_for)) and which of its rules the
//! tool breaks ([`VersionReport`]); reported, not counted as errors.
//!
//! Portability: every readable tool is converted to each selected [`Profile`] with
//! [`toolmodel::adapters::check`]; the outcome is the list of warnings (what the target
//! changes) or the error (why the target rejects the tool).

use std::{
    collections::HashMap,
    io::{self, Write},
};

use serde_json::Value;
use toolmodel::{
    DefaultValidator, Error as ModelError, ProtocolVersion, Tool, Violation,
    adapters::{Action, ConvertOptions, Profile, Warning, check},
    model::name::NameError,
    validate::SchemaSlot,
};

pub use crate::findings::{
    Extensions, Finding, Kind, LintOptions, Rejection, TargetReport, ToolReport, VersionReport,
    WarningReport,
};

use crate::cli::{Format, LintArgs};
use crate::input::{self, Document, Entry};
use crate::report::{self, FileOutcome, InputGroup, Summary};
use crate::status::Status;
use crate::text::{quoted, shorten};

/// Lints every tool of a document, in document order.
#[must_use]
pub fn lint_document(
    document: &Document,
    options: &LintOptions,
    validator: &DefaultValidator,
) -> Vec<ToolReport> {
    let mut first_of: HashMap<(&str, &str), &str> = HashMap::new();
    document
        .entries
        .iter()
        .map(|entry| {
            let mut report = lint_entry(entry, options, validator);
            if let Some(name) = entry.name.as_deref() {
                match first_of.get(&(entry.group.as_str(), name)) {
                    Some(first) => report.errors.push(Finding {
                        kind: Kind::DuplicateName,
                        pointer: format!("{}/name", entry.pointer),
                        message: format!(
                            "name {} is also the name of the tool at #{first}; names must be unique within a server",
                            quoted(name)
                        ),
                    }),
                    None => {
                        first_of.insert((entry.group.as_str(), name), entry.pointer.as_str());
                    }
                }
            }
            report
        })
        .collect()
}

fn lint_entry(entry: &Entry, options: &LintOptions, validator: &DefaultValidator) -> ToolReport {
    let base = entry.pointer.as_str();
    let mut report = ToolReport {
        pointer: entry.pointer.clone(),
        name: entry.name.clone(),
        errors: Vec::new(),
        targets: Vec::new(),
        versions: Vec::new(),
        extensions: None,
    };
    let tool = match &entry.tool {
        Ok(tool) => tool,
        Err(err) => {
            report.errors.push(shape_finding(base, err));
            return report;
        }
    };
    for violation in tool.violations_for(options.protocol) {
        if let Some(finding) = violation_finding(base, &violation) {
            report.errors.push(finding);
        }
    }
    report.extensions = extension_findings(tool, base, &mut report.errors);
    report.versions = ProtocolVersion::ALL
        .into_iter()
        .map(|version| version_report(tool, base, version))
        .collect();
    let schemas = std::iter::once((SchemaSlot::Input, &tool.input_schema))
        .chain(tool.output_schema.iter().map(|s| (SchemaSlot::Output, s)));
    for (slot, schema) in schemas {
        if let Err(err) = validator.compile(schema.as_value()) {
            let at = format!("{base}/{}", slot.key());
            report
                .errors
                .extend(schema_findings(&at, slot, schema.as_value(), err));
        }
    }
    report.targets = options
        .profiles
        .iter()
        .map(|&profile| target_report(tool, base, profile, &options.convert))
        .collect();
    report
}

/// Writes the line for an entry of `document` that is not an MCP tool, as `convert` and
/// `search` report it: `PATH#POINTER: error[tool-shape]: TOOL: MESSAGE`.
pub(crate) fn write_unreadable(
    errors: &mut dyn std::io::Write,
    document: &Document,
    entry: &Entry,
    err: &ModelError,
) -> std::io::Result<()> {
    let finding = shape_finding(&entry.pointer, err);
    writeln!(
        errors,
        "{}#{}: error[{}]: {}: {}",
        document.path,
        finding.pointer,
        finding.kind.as_str(),
        crate::text::tool_label(entry.name.as_deref()),
        crate::report::clip(&finding.message)
    )
}

pub(crate) fn shape_finding(base: &str, err: &ModelError) -> Finding {
    match err {
        ModelError::Json { path, message, .. } => Finding {
            kind: Kind::ToolShape,
            pointer: format!("{base}{path}"),
            message: format!("not an MCP tool: {message}"),
        },
        other => Finding {
            kind: Kind::ToolShape,
            pointer: base.to_owned(),
            message: format!("not an MCP tool: {other}"),
        },
    }
}

/// A [`Violation`] as a finding; `None` for [`Violation::ShadowedKey`], which reading MCP JSON
/// cannot produce in a meaningful way: keys MCP does not define (`tags`, `version`, ...) are
/// kept in `extra` and written back as they were.
fn violation_finding(base: &str, violation: &Violation) -> Option<Finding> {
    let pointer = format!("{base}{}", violation.pointer());
    let (kind, message) = match violation {
        Violation::ShadowedKey { .. } => return None,
        Violation::Name(err) => (Kind::Name, name_message(err)),
        Violation::SchemaRoot { .. } => (Kind::SchemaRoot, without_pointer(violation)),
        Violation::IconScheme { .. } => (Kind::IconUri, without_pointer(violation)),
        Violation::Header { .. } => (Kind::Header, without_pointer(violation)),
        other => (Kind::Tool, without_pointer(other)),
    };
    Some(Finding {
        kind,
        pointer,
        message,
    })
}

/// The keys of the extensions [`extension_findings`] reads.
const EXTENSION_KEYS: [&str; 3] = ["category", "requiredScopes", "timeoutMs"];

/// The extensions `tool` carries among its unknown keys (MCP JSON keeps them there), read as
/// the full form reads them: their violations pushed to `errors` ([`Kind::Extension`]), and
/// what they hold, when the tool carries any and they can be read.
fn extension_findings(tool: &Tool, base: &str, errors: &mut Vec<Finding>) -> Option<Extensions> {
    if !EXTENSION_KEYS
        .iter()
        .any(|key| tool.extra.contains_key(*key))
    {
        return None;
    }
    let mut carried = serde_json::Map::new();
    carried.insert("name".into(), Value::from(tool.name.clone()));
    carried.insert("inputSchema".into(), Value::Object(serde_json::Map::new()));
    for key in EXTENSION_KEYS {
        if let Some(value) = tool.extra.get(key) {
            carried.insert(key.into(), value.clone());
        }
    }
    let full = match Tool::from_json(&Value::Object(carried)) {
        Ok(full) => full,
        Err(err) => {
            let mut finding = shape_finding(base, &err);
            finding.kind = Kind::Extension;
            finding.message = finding
                .message
                .replace("not an MCP tool: ", "unreadable extension: ");
            errors.push(finding);
            return None;
        }
    };
    for violation in full.violations() {
        if matches!(
            violation,
            Violation::Category { .. } | Violation::Scope { .. } | Violation::Timeout { .. }
        ) {
            errors.push(Finding {
                kind: Kind::Extension,
                pointer: format!("{base}{}", violation.pointer()),
                message: without_pointer(&violation),
            });
        }
    }
    Some(Extensions {
        category: full.category,
        required_scopes: full.required_scopes,
        timeout_ms: full.timeout.map(|timeout| timeout.as_millis()),
    })
}

/// What `version` loses and breaks of `tool`.
fn version_report(tool: &Tool, base: &str, version: ProtocolVersion) -> VersionReport {
    let breaks = tool
        .violations_for(version)
        .iter()
        .filter_map(|violation| violation_finding(base, violation))
        .collect();
    let losses = match tool.to_mcp_json_for(version) {
        Ok(written) => written
            .losses
            .iter()
            .map(|loss| Finding {
                kind: Kind::Tool,
                pointer: format!("{base}{}", loss.pointer),
                message: loss_message(loss),
            })
            .collect(),
        // Already among the breaks: a non-object output root before 2026-07-28.
        Err(_) => Vec::new(),
    };
    VersionReport {
        version,
        losses,
        breaks,
    }
}

/// A loss's text without the pointer its `Display` starts with.
pub(crate) fn loss_message(loss: &toolmodel::wire::Loss) -> String {
    let text = loss.to_string();
    let prefix = format!("{}: ", loss.pointer);
    text.strip_prefix(&prefix).unwrap_or(&text).to_owned()
}

/// A violation's text without the pointer its `Display` starts with.
fn without_pointer(violation: &Violation) -> String {
    let text = violation.to_string();
    let prefix = format!("{}: ", violation.pointer());
    text.strip_prefix(&prefix).unwrap_or(&text).to_owned()
}

/// How many problems of one name are listed before "and N more".
const NAME_PROBLEMS_SHOWN: usize = 5;

/// A name error with the name shortened and at most [`NAME_PROBLEMS_SHOWN`] problems, so that a
/// 10,000-character name gives one readable line.
fn name_message(err: &NameError) -> String {
    let mut out = String::from("not a valid MCP tool name: ");
    for (index, problem) in err.problems.iter().take(NAME_PROBLEMS_SHOWN).enumerate() {
        if index > 0 {
            out.push_str("; ");
        }
        out.push_str(&problem.to_string());
    }
    if err.problems.len() > NAME_PROBLEMS_SHOWN {
        out.push_str(&format!(
            "; and {} more problems",
            err.problems.len() - NAME_PROBLEMS_SHOWN
        ));
    }
    out
}

fn schema_findings(at: &str, slot: SchemaSlot, schema: &Value, err: ModelError) -> Vec<Finding> {
    match err {
        ModelError::UnsupportedSchema { uri, pointer } => vec![Finding {
            kind: Kind::SchemaDialect,
            pointer: format!("{at}{pointer}"),
            message: format!(
                "{slot} declares the JSON Schema dialect {:?}; MCP tools use 2020-12 (the default) or draft-07",
                shorten(&uri, 200)
            ),
        }],
        ModelError::InvalidSchema { issues } => issues
            .into_iter()
            .map(|issue| Finding {
                kind: Kind::InvalidSchema,
                pointer: format!("{at}{}", issue.pointer),
                message: format!("invalid {slot}: {}", issue.message),
            })
            .collect(),
        ModelError::ExternalRef { reference } => vec![Finding {
            kind: Kind::ExternalRef,
            pointer: format!(
                "{at}{}",
                ref_pointer(schema, &reference).unwrap_or_default()
            ),
            message: format!(
                "{slot} refers to the external resource {:?}, which MCP clients cannot resolve and toolmodel never fetches",
                shorten(&reference, 200)
            ),
        }],
        other => vec![Finding {
            kind: Kind::InvalidSchema,
            pointer: at.to_owned(),
            message: format!("invalid {slot}: {other}"),
        }],
    }
}

/// The JSON Pointer of the first `$ref` (in key order) that is not a local `#...` reference and
/// whose resource part appears in `reference` (the reference resolved against the base).
fn ref_pointer(schema: &Value, reference: &str) -> Option<String> {
    match schema {
        Value::Object(map) => {
            if let Some(Value::String(target)) = map.get("$ref")
                && let Some(stem) = target.split('#').next()
                && !stem.is_empty()
                && reference.contains(stem)
            {
                return Some("/$ref".into());
            }
            map.iter().find_map(|(key, value)| {
                ref_pointer(value, reference).map(|rest| format!("/{}{rest}", escape(key)))
            })
        }
        Value::Array(items) => items.iter().enumerate().find_map(|(index, value)| {
            ref_pointer(value, reference).map(|rest| format!("/{index}{rest}"))
        }),
        _ => None,
    }
}

/// One JSON Pointer reference token, escaped (RFC 6901).
fn escape(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

fn target_report(
    tool: &Tool,
    base: &str,
    profile: Profile,
    options: &ConvertOptions,
) -> TargetReport {
    let options = options.clone().with_strict(profile.strict);
    match check(tool, profile.target, &options) {
        Ok(warnings) => TargetReport {
            profile,
            rejection: None,
            warnings: warnings.iter().map(|w| warning_report(base, w)).collect(),
        },
        Err(err) => TargetReport {
            profile,
            rejection: Some(rejection(base, &err)),
            warnings: Vec::new(),
        },
    }
}

fn warning_report(base: &str, warning: &Warning) -> WarningReport {
    WarningReport {
        pointer: format!("{base}{}", warning.pointer),
        feature: warning.feature.to_string(),
        action: action_tag(warning.action),
        widens: warning.action.widens(),
        detail: warning.detail.to_string(),
    }
}

/// The machine spelling of an [`Action`].
#[must_use]
pub fn action_tag(action: Action) -> &'static str {
    match action {
        Action::Dropped { widened: true } => "dropped-widened",
        Action::Dropped { widened: false } => "dropped",
        Action::Rewritten { exact: true } => "rewritten-exact",
        Action::Rewritten { exact: false } => "rewritten-inexact",
        Action::Narrowed => "narrowed",
        Action::MovedToDescription => "moved-to-description",
        Action::Unsupported { widened: true } => "unsupported-widened",
        Action::Unsupported { widened: false } => "unsupported",
        _ => "other",
    }
}

/// A conversion error as a [`Rejection`], its pointer made document-relative.
#[must_use]
pub fn rejection(base: &str, err: &ModelError) -> Rejection {
    let (kind, pointer, message) = match err {
        ModelError::Conversion {
            pointer, reason, ..
        } => ("conversion", Some(pointer), reason.clone()),
        ModelError::RecursiveSchema {
            pointer, reference, ..
        } => (
            "recursive-schema",
            Some(pointer),
            format!(
                "the recursive reference {:?} can be neither kept nor inlined",
                shorten(reference, 200)
            ),
        ),
        ModelError::SchemaTooLarge { pointer, limit } => (
            "schema-too-large",
            Some(pointer),
            format!("inlining this reference exceeds the budget of {limit} JSON values"),
        ),
        ModelError::SchemaTooDeep { pointer, limit } => (
            "schema-too-deep",
            Some(pointer),
            format!("nested more than {limit} levels"),
        ),
        ModelError::ExternalRef { .. } => ("external-ref", None, err.to_string()),
        other => ("other", None, other.to_string()),
    };
    Rejection {
        kind,
        pointer: format!("{base}{}", pointer.map_or("", String::as_str)),
        message,
    }
}

/// Runs `toolmodel lint`: reads every path, lints every file, writes the report to `out` and
/// input errors to `errors`.
///
/// # Errors
///
/// Writing failed.
pub fn run(args: &LintArgs, out: &mut dyn Write, errors: &mut dyn Write) -> io::Result<Status> {
    let options = lint_options(args);
    let validator = DefaultValidator::new();
    let groups: Vec<InputGroup> = args
        .paths
        .iter()
        .map(|path| {
            let label = input::label(path);
            let folder = path.is_dir();
            let files = match input::expand(path) {
                Ok(files) => files
                    .iter()
                    .map(|file| FileOutcome {
                        path: input::label(file),
                        result: input::read_document(file)
                            .map(|document| lint_document(&document, &options, &validator)),
                    })
                    .collect(),
                Err(err) => vec![FileOutcome {
                    path: label.clone(),
                    result: Err(err),
                }],
            };
            InputGroup {
                label,
                folder,
                files,
            }
        })
        .collect();
    report_groups(args, &options, &groups, out, errors)
}

/// Lints one document read elsewhere (the live tools of `toolmodel tools --config`) as
/// [`run`] lints a file, with `args`' options (its `paths` are not read).
///
/// # Errors
///
/// Writing failed.
pub fn run_document(
    args: &LintArgs,
    document: &Document,
    out: &mut dyn Write,
    errors: &mut dyn Write,
) -> io::Result<Status> {
    let options = lint_options(args);
    let validator = DefaultValidator::new();
    let groups = [InputGroup {
        label: document.path.clone(),
        folder: false,
        files: vec![FileOutcome {
            path: document.path.clone(),
            result: Ok(lint_document(document, &options, &validator)),
        }],
    }];
    report_groups(args, &options, &groups, out, errors)
}

/// The [`LintOptions`] the flags of `args` ask for.
fn lint_options(args: &LintArgs) -> LintOptions {
    let focused = !args.targets.is_empty();
    LintOptions {
        profiles: if focused {
            let mut profiles: Vec<Profile> = Vec::new();
            for profile in &args.targets {
                if !profiles.contains(profile) {
                    profiles.push(*profile);
                }
            }
            profiles
        } else {
            LintOptions::default_profiles()
        },
        deny_rejections: focused,
        convert: args.conversion.options(),
        protocol: args.protocol,
    }
}

/// Writes the report of `groups` in `args`' format and returns the status.
fn report_groups(
    args: &LintArgs,
    options: &LintOptions,
    groups: &[InputGroup],
    out: &mut dyn Write,
    errors: &mut dyn Write,
) -> io::Result<Status> {
    let focused = !args.targets.is_empty();
    match args.format {
        Format::Text => report::write_text(out, errors, groups, options, args.verbose || focused)?,
        Format::Json => report::write_json(out, errors, groups, options)?,
    }
    Ok(Summary::of(groups.iter().flat_map(|g| &g.files), options).status())
}
