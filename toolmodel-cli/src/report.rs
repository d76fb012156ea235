//! The lint report: one line per finding, a summary table per path given, and the JSON form
//! (`--format json`).
//!
//! Text lines read `LOCATION: SEVERITY[KIND]: TOOL: MESSAGE`, where `LOCATION` is
//! `FILE#JSON-POINTER` (or `FILE:LINE:COLUMN` for text that is not JSON), like a compiler's,
//! so that editors and `grep` can use them. A message longer than [`MESSAGE_MAX`] characters
//! (a detail quoting a 10,000-character name, a schema error quoting a huge value) is cut with
//! `…` in the text form; the JSON form has every message whole.

use std::{
    borrow::Cow,
    io::{self, Write},
};

use serde::{Serialize, Serializer};
use serde_json::{Value, json};
use toolmodel::{ProtocolVersion, adapters::Profile};

pub use crate::text::shorten;

use crate::error::Error;
use crate::findings::{LintOptions, ToolReport};
use crate::status::Status;
use crate::text::{display, tool_label};

/// The lint of one file: its tools' reports, or why it could not be read.
#[derive(Debug)]
#[non_exhaustive]
pub struct FileOutcome {
    /// The file as named in messages.
    pub path: String,
    /// One report per tool object, or the input error.
    pub result: Result<Vec<ToolReport>, Error>,
}

/// The files of one path given on the command line: the file itself, or a folder's files.
#[derive(Debug)]
#[non_exhaustive]
pub struct InputGroup {
    /// The path as given.
    pub label: String,
    /// Whether it is a folder (the summary then counts files).
    pub folder: bool,
    /// Its files, in order.
    pub files: Vec<FileOutcome>,
}

/// What one profile does to a set of tools.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct ProfileCounts {
    /// Tools converted with no warning.
    pub unchanged: usize,
    /// Tools converted with at least one warning.
    pub changed: usize,
    /// Tools the target rejects.
    pub rejected: usize,
    /// Warnings in all.
    pub warnings: usize,
    /// Warnings that make a schema wider (the model may send what the tool refuses).
    pub widening: usize,
}

/// What one protocol version does to a set of tools.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct VersionCounts {
    /// The version.
    pub version: ProtocolVersion,
    /// Tools it carries whole: valid for it, nothing lost.
    pub whole: usize,
    /// Tools valid for it that lose something when written for it.
    pub losing: usize,
    /// Tools that break its rules.
    pub breaking: usize,
}

/// Counts over a set of files.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Summary {
    /// Files read or attempted.
    pub files: usize,
    /// Files that could not be read as a tool document.
    pub unreadable_files: usize,
    /// Tool objects found.
    pub tools: usize,
    /// Errors (spec errors; rejections too when `--target` is given).
    pub errors: usize,
    /// Tools with at least one error.
    pub tools_with_errors: usize,
    /// Per profile, in the order asked.
    #[serde(serialize_with = "profile_counts")]
    pub targets: Vec<(Profile, ProfileCounts)>,
    /// Per protocol version, oldest first.
    pub versions: Vec<VersionCounts>,
}

fn profile_counts<S: Serializer>(
    targets: &[(Profile, ProfileCounts)],
    serializer: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    struct Row<'a> {
        #[serde(serialize_with = "display")]
        target: &'a Profile,
        #[serde(flatten)]
        counts: &'a ProfileCounts,
    }
    serializer.collect_seq(
        targets
            .iter()
            .map(|(target, counts)| Row { target, counts }),
    )
}

impl Summary {
    /// Counts the files' tools.
    #[must_use]
    pub fn of<'a>(files: impl IntoIterator<Item = &'a FileOutcome>, options: &LintOptions) -> Self {
        let mut summary = Self {
            targets: options
                .profiles
                .iter()
                .map(|&p| (p, ProfileCounts::default()))
                .collect(),
            versions: ProtocolVersion::ALL
                .into_iter()
                .map(|version| VersionCounts {
                    version,
                    whole: 0,
                    losing: 0,
                    breaking: 0,
                })
                .collect(),
            ..Self::default()
        };
        for file in files {
            summary.files += 1;
            let Ok(tools) = &file.result else {
                summary.unreadable_files += 1;
                continue;
            };
            for tool in tools {
                summary.tools += 1;
                let errors = tool.error_count(options.deny_rejections);
                summary.errors += errors;
                summary.tools_with_errors += usize::from(errors > 0);
                for report in &tool.versions {
                    let Some(counts) = summary
                        .versions
                        .iter_mut()
                        .find(|c| c.version == report.version)
                    else {
                        continue;
                    };
                    if !report.breaks.is_empty() {
                        counts.breaking += 1;
                    } else if !report.losses.is_empty() {
                        counts.losing += 1;
                    } else {
                        counts.whole += 1;
                    }
                }
                for report in &tool.targets {
                    let Some((_, counts)) = summary
                        .targets
                        .iter_mut()
                        .find(|(p, _)| *p == report.profile)
                    else {
                        continue;
                    };
                    if report.rejection.is_some() {
                        counts.rejected += 1;
                    } else if report.warnings.is_empty() {
                        counts.unchanged += 1;
                    } else {
                        counts.changed += 1;
                    }
                    counts.warnings += report.warnings.len();
                    counts.widening += report.warnings.iter().filter(|w| w.widens).count();
                }
            }
        }
        summary
    }

    /// The exit status these counts call for.
    #[must_use]
    pub fn status(&self) -> Status {
        if self.unreadable_files > 0 {
            Status::Failure
        } else if self.errors > 0 {
            Status::Findings
        } else {
            Status::Clean
        }
    }
}

/// Writes the text report: for each path, its findings, then its summary table; a total line
/// when several paths were given. Input errors go to `errors` (stderr), `error: ` first.
///
/// `details` lists every rejection and warning (not only their counts).
///
/// # Errors
///
/// Writing failed.
pub fn write_text(
    out: &mut dyn Write,
    errors: &mut dyn Write,
    groups: &[InputGroup],
    options: &LintOptions,
    details: bool,
) -> io::Result<()> {
    for group in groups {
        for file in &group.files {
            match &file.result {
                Err(err) => writeln!(errors, "error: {err}")?,
                Ok(tools) => write_findings(out, &file.path, tools, options, details)?,
            }
        }
        write_table(out, group, &Summary::of(&group.files, options))?;
    }
    if groups.len() > 1 {
        let total = Summary::of(groups.iter().flat_map(|g| &g.files), options);
        writeln!(
            out,
            "total: {} paths, {}",
            groups.len(),
            counts_line(&total, true)
        )?;
    }
    Ok(())
}

fn write_findings(
    out: &mut dyn Write,
    path: &str,
    tools: &[ToolReport],
    options: &LintOptions,
    details: bool,
) -> io::Result<()> {
    for tool in tools {
        let name = tool_label(tool.name.as_deref());
        for finding in &tool.errors {
            writeln!(
                out,
                "{path}#{}: error[{}]: {name}: {}",
                finding.pointer,
                finding.kind.as_str(),
                clip(&finding.message)
            )?;
        }
        for target in &tool.targets {
            if let Some(rejection) = &target.rejection
                && (details || options.deny_rejections)
            {
                let severity = if options.deny_rejections {
                    "error"
                } else {
                    "rejected"
                };
                writeln!(
                    out,
                    "{path}#{}: {severity}[{}]: {name}: rejected: {}",
                    rejection.pointer,
                    target.profile,
                    clip(&rejection.message)
                )?;
            }
            if details {
                for warning in &target.warnings {
                    writeln!(
                        out,
                        "{path}#{}: warning[{}]: {name}: {}: {}: {}",
                        warning.pointer,
                        target.profile,
                        warning.feature,
                        warning.action,
                        clip(&warning.detail)
                    )?;
                }
            }
        }
        if details && let Some(extensions) = &tool.extensions {
            writeln!(
                out,
                "{path}#{}: note[extensions]: {name}: {}",
                tool.pointer,
                clip(&extensions.summary())
            )?;
        }
        if details {
            for version in &tool.versions {
                let tag = format!("mcp-{}", version.version);
                for loss in &version.losses {
                    writeln!(
                        out,
                        "{path}#{}: note[{tag}]: {name}: {}",
                        loss.pointer,
                        clip(&loss.message)
                    )?;
                }
                if version.version != options.protocol {
                    for broken in &version.breaks {
                        writeln!(
                            out,
                            "{path}#{}: note[{tag}]: {name}: breaks: {}",
                            broken.pointer,
                            clip(&broken.message)
                        )?;
                    }
                }
            }
        }
    }
    Ok(())
}

fn counts_line(summary: &Summary, files: bool) -> String {
    let mut line = String::new();
    if files {
        line.push_str(&plural(summary.files, "file"));
        if summary.unreadable_files > 0 {
            line.push_str(&format!(" ({} unreadable)", summary.unreadable_files));
        }
        line.push_str(", ");
    }
    line.push_str(&plural(summary.tools, "tool"));
    line.push_str(", ");
    line.push_str(&plural(summary.errors, "error"));
    if summary.errors > 0 {
        line.push_str(&format!(
            " in {}",
            plural(summary.tools_with_errors, "tool")
        ));
    }
    line
}

fn plural(count: usize, noun: &str) -> String {
    if count == 1 {
        format!("1 {noun}")
    } else {
        format!("{count} {noun}s")
    }
}

const COLUMNS: [&str; 5] = ["unchanged", "changed", "rejected", "warnings", "widening"];

fn write_table(out: &mut dyn Write, group: &InputGroup, summary: &Summary) -> io::Result<()> {
    let files = group.folder || summary.unreadable_files > 0;
    writeln!(out, "{}: {}", group.label, counts_line(summary, files))?;
    if summary.tools == 0 {
        return Ok(());
    }
    write_versions(out, summary)?;
    if summary.targets.is_empty() {
        return Ok(());
    }
    let width = summary
        .targets
        .iter()
        .map(|(p, _)| p.to_string().len())
        .chain(["target".len()])
        .max()
        .unwrap_or(6);
    write!(out, "  {:<width$}", "target")?;
    for column in COLUMNS {
        write!(out, "  {column:>9}")?;
    }
    writeln!(out)?;
    for (profile, counts) in &summary.targets {
        write!(out, "  {:<width$}", profile.to_string())?;
        for value in [
            counts.unchanged,
            counts.changed,
            counts.rejected,
            counts.warnings,
            counts.widening,
        ] {
            write!(out, "  {value:>9}")?;
        }
        writeln!(out)?;
    }
    Ok(())
}

/// The protocol version table: per version, tools carried whole, losing something, breaking
/// its rules.
fn write_versions(out: &mut dyn Write, summary: &Summary) -> io::Result<()> {
    writeln!(
        out,
        "  {:<12}  {:>9}  {:>9}  {:>9}",
        "protocol", "whole", "losing", "breaking"
    )?;
    for counts in &summary.versions {
        writeln!(
            out,
            "  {:<12}  {:>9}  {:>9}  {:>9}",
            counts.version.as_str(),
            counts.whole,
            counts.losing,
            counts.breaking
        )?;
    }
    Ok(())
}

/// Writes the JSON report: `{"files": [...], "summary": {...}, "status": N}`.
///
/// Each file is `{"path", "error", "tools", "summary"}`: `error` is `null` or
/// `{"kind", "message", "line", "column", "pointer"}` (the location keys present when known);
/// `tools` holds each tool's `pointer`, `name`, `errors` (`kind`, `pointer`, `message`),
/// `targets` (`profile`, `rejection`, `warnings`), `versions` (`version`, `losses`,
/// `breaks`) and, when it carries any, `extensions` (`category`, `requiredScopes`,
/// `timeoutMs`). Input errors also go to `errors` (stderr),
/// as in the text form.
///
/// # Errors
///
/// Writing failed.
pub fn write_json(
    out: &mut dyn Write,
    errors: &mut dyn Write,
    groups: &[InputGroup],
    options: &LintOptions,
) -> io::Result<()> {
    let all: Vec<&FileOutcome> = groups.iter().flat_map(|g| &g.files).collect();
    let mut files = Vec::with_capacity(all.len());
    for file in &all {
        let (error, tools) = match &file.result {
            Ok(tools) => (Value::Null, json!(tools)),
            Err(err) => {
                writeln!(errors, "error: {err}")?;
                (input_error_json(err), json!([]))
            }
        };
        files.push(json!({
            "path": file.path,
            "error": error,
            "tools": tools,
            "summary": Summary::of([*file], options),
        }));
    }
    let summary = Summary::of(all.iter().copied(), options);
    let document = json!({
        "files": files,
        "summary": summary,
        "status": summary.status().code(),
    });
    serde_json::to_writer_pretty(&mut *out, &document)?;
    writeln!(out)
}

/// An input error as JSON: its kind, message and location.
#[must_use]
pub fn input_error_json(err: &Error) -> Value {
    let kind = match err {
        Error::Io { .. } => "io",
        Error::Syntax { .. } => "syntax",
        Error::NotToolDocument { .. } => "not-tool-document",
        Error::EmptyFolder { .. } => "empty-folder",
        Error::ToolNotFound { .. } => "tool-not-found",
        Error::AmbiguousTool { .. } => "ambiguous-tool",
        Error::UnusableSchema { .. } => "unusable-schema",
        Error::UnreadableTool { .. } => "unreadable-tool",
        Error::StdinTwice => "stdin-twice",
    };
    let mut value = json!({"kind": kind, "message": err.to_string()});
    match err {
        Error::Syntax { line, column, .. } => {
            value["line"] = json!(line);
            value["column"] = json!(column);
        }
        Error::NotToolDocument { pointer, .. } => value["pointer"] = json!(pointer),
        _ => {}
    }
    value
}

/// The longest message the text form prints whole, in characters.
pub const MESSAGE_MAX: usize = 400;

/// A message for the text form: cut to [`MESSAGE_MAX`] characters.
pub(crate) fn clip(message: &str) -> Cow<'_, str> {
    shorten(message, MESSAGE_MAX)
}
