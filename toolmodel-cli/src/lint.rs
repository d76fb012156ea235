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
//!   should be unique within a server).
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

use serde::Serialize;
use serde_json::Value;
use toolmodel::{
    DefaultValidator, Error as ModelError, ProtocolVersion, SchemaSlot, Tool, Violation,
    adapters::{Action, ConvertOptions, Profile, Warning, check},
    name::NameError,
};

use crate::{
    Status,
    cli::{Format, LintArgs},
    input::{self, Document, Entry},
    report::{self, FileOutcome, InputGroup, Summary, shorten},
};

/// What to check besides the MCP spec.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct LintOptions {
    /// The profiles to report portability for, in order.
    pub profiles: Vec<Profile>,
    /// Count a rejection by one of [`profiles`](Self::profiles) as an error (the command line
    /// sets it when `--target` names the profiles).
    pub deny_rejections: bool,
    /// The conversion options every profile uses (its strictness aside).
    pub convert: ConvertOptions,
    /// The protocol version whose rules are errors.
    pub protocol: ProtocolVersion,
}

impl LintOptions {
    /// The profiles reported by default: every provider profile of [`Profile::ALL`] (MCP
    /// itself is what the spec checks cover).
    #[must_use]
    pub fn default_profiles() -> Vec<Profile> {
        Profile::ALL
            .into_iter()
            .filter(|p| p.target != toolmodel::adapters::Target::Mcp)
            .collect()
    }
}

impl Default for LintOptions {
    fn default() -> Self {
        Self {
            profiles: Self::default_profiles(),
            deny_rejections: false,
            convert: ConvertOptions::default(),
            protocol: ProtocolVersion::LATEST,
        }
    }
}

/// The kind of an MCP spec error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Kind {
    /// The tool object cannot be read as an MCP `Tool`.
    ToolShape,
    /// The name breaks MCP "Tool Names".
    Name,
    /// A schema root is not `"type": "object"`.
    SchemaRoot,
    /// An icon `src` with a scheme other than `https:`, `http:`, `data:`.
    IconUri,
    /// An `x-mcp-header` rule (MCP 2026-07-28).
    Header,
    /// Another rule of [`Tool::validate`](toolmodel::Tool::validate).
    Tool,
    /// A `$schema` other than JSON Schema 2020-12 or draft-07.
    SchemaDialect,
    /// A schema invalid against its dialect's meta-schema, or not compilable.
    InvalidSchema,
    /// A `$ref` to a resource outside the schema.
    ExternalRef,
    /// A name an earlier tool of the same server has.
    DuplicateName,
}

impl Kind {
    /// The kebab-case spelling used in the text and JSON reports.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ToolShape => "tool-shape",
            Self::Name => "name",
            Self::SchemaRoot => "schema-root",
            Self::IconUri => "icon-uri",
            Self::Header => "header",
            Self::Tool => "tool",
            Self::SchemaDialect => "schema-dialect",
            Self::InvalidSchema => "invalid-schema",
            Self::ExternalRef => "external-ref",
            Self::DuplicateName => "duplicate-name",
        }
    }
}

/// One MCP spec error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Finding {
    /// What kind of error.
    pub kind: Kind,
    /// JSON Pointer into the document (the tool's pointer, then the place in the tool).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

/// Why a target rejects a tool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Rejection {
    /// The error's kind: `conversion`, `recursive-schema`, `schema-too-large`,
    /// `schema-too-deep`, `external-ref`, or `other`.
    pub kind: &'static str,
    /// JSON Pointer into the document of the offending value (the tool's pointer when the
    /// error names no place).
    pub pointer: String,
    /// What the target cannot hold.
    pub message: String,
}

/// One change a conversion makes, as reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct WarningReport {
    /// JSON Pointer into the document.
    pub pointer: String,
    /// The keyword or tool field.
    pub feature: String,
    /// What was done: `dropped`, `dropped-widened`, `rewritten-exact`, `rewritten-inexact`,
    /// `narrowed`, `moved-to-description`, `unsupported`, `unsupported-widened`.
    pub action: &'static str,
    /// Whether the converted schema accepts values the original rejects.
    pub widens: bool,
    /// What the target lacks and what was written instead.
    pub detail: String,
}

/// What one profile would do with one tool.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct TargetReport {
    /// The target and strictness, e.g. `openai-strict`.
    #[serde(serialize_with = "crate::report::display")]
    pub profile: Profile,
    /// Why the target rejects the tool, when it does.
    pub rejection: Option<Rejection>,
    /// What it changes, sorted (empty when rejected).
    pub warnings: Vec<WarningReport>,
}

/// What one protocol version does with one tool.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct VersionReport {
    /// The version.
    pub version: ProtocolVersion,
    /// What writing the tool for it leaves out (or writes with no meaning for it): JSON
    /// Pointers into the document, each with its message.
    pub losses: Vec<Finding>,
    /// The version's rules the tool breaks (including what cannot be written for it), as
    /// spec errors would report them.
    pub breaks: Vec<Finding>,
}

/// The lint of one tool object.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ToolReport {
    /// JSON Pointer of the tool object in the document.
    pub pointer: String,
    /// Its `name`, when it has a string one.
    pub name: Option<String>,
    /// Every MCP spec error, in the order of the module docs.
    pub errors: Vec<Finding>,
    /// One report per profile, in the order asked (empty when the tool cannot be read).
    pub targets: Vec<TargetReport>,
    /// One report per protocol version, oldest first (empty when the tool cannot be read).
    pub versions: Vec<VersionReport>,
}

impl ToolReport {
    /// The number of errors: spec errors, plus rejections when `deny_rejections`.
    #[must_use]
    pub fn error_count(&self, deny_rejections: bool) -> usize {
        let rejected = if deny_rejections {
            self.targets
                .iter()
                .filter(|t| t.rejection.is_some())
                .count()
        } else {
            0
        };
        self.errors.len() + rejected
    }
}

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
pub(crate) fn loss_message(loss: &toolmodel::Loss) -> String {
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

/// A tool named in a message: its name [`quoted`], or `(no name)`.
pub(crate) fn tool_label(name: Option<&str>) -> String {
    name.map_or_else(|| "(no name)".into(), quoted)
}

/// A name quoted for messages: shortened to 64 characters, escaped as a Rust string.
pub(crate) fn quoted(name: &str) -> String {
    format!("{:?}", shorten(name, 64))
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
    let focused = !args.targets.is_empty();
    let options = LintOptions {
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
    };
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
    match args.format {
        Format::Text => {
            report::write_text(out, errors, &groups, &options, args.verbose || focused)?
        }
        Format::Json => report::write_json(out, errors, &groups, &options)?,
    }
    Ok(Summary::of(groups.iter().flat_map(|g| &g.files), &options).status())
}
