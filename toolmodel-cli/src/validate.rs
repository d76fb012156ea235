//! `toolmodel validate`: arguments against the `inputSchema` of one named tool.

use std::{
    io::{self, Write},
    path::Path,
};

use serde_json::{Value, json};
use toolmodel::{DefaultValidator, Error as ModelError, validate::InstanceError};

use crate::cli::{Format, ValidateArgs};
use crate::error::Error;
use crate::input::{self, Document, Entry, STDIN};
use crate::status::Status;
use crate::text::{quoted, tool_label};

/// Runs `toolmodel validate`: finds the tool, reads the arguments, validates them, and writes
/// the verdict (and every violation) to `out`; input errors go to `errors`.
///
/// Returns [`Status::Clean`] for valid arguments, [`Status::Findings`] for invalid ones, and
/// [`Status::Failure`] when validation could not happen: an input error, no tool (or several
/// tools) of that name, a tool that cannot be read, arguments that are not JSON, a schema that
/// cannot be compiled.
///
/// # Errors
///
/// Writing failed.
pub fn run(args: &ValidateArgs, out: &mut dyn Write, errors: &mut dyn Write) -> io::Result<Status> {
    match prepare(args) {
        Ok((location, arguments, result)) => {
            let violations = match result {
                Ok(()) => Vec::new(),
                Err(ModelError::InvalidInstance { errors }) => errors,
                Err(other) => vec![InstanceError {
                    instance_path: String::new(),
                    schema_path: String::new(),
                    keyword: String::new(),
                    message: other.to_string(),
                }],
            };
            write_verdict(out, args, &location, &arguments, &violations)?;
            Ok(if violations.is_empty() {
                Status::Clean
            } else {
                Status::Findings
            })
        }
        Err(list) => {
            for err in &list {
                writeln!(errors, "error: {err}")?;
            }
            if args.format == Format::Json {
                let list: Vec<Value> = list.iter().map(crate::report::input_error_json).collect();
                serde_json::to_writer_pretty(&mut *out, &json!({"errors": list, "status": 2}))?;
                writeln!(out)?;
            }
            Ok(Status::Failure)
        }
    }
}

/// The tool's location, the arguments, and the validation result; or every input error.
type Prepared = (String, Value, Result<(), ModelError>);

fn prepare(args: &ValidateArgs) -> Result<Prepared, Vec<Error>> {
    let from_stdin = args.args == "@-";
    if from_stdin && args.paths.iter().any(|p| p.as_os_str() == STDIN) {
        return Err(vec![Error::StdinTwice]);
    }
    let documents = input::read_all(&args.paths)?;
    let (document, entry) = find(&documents, &args.tool).map_err(|err| vec![err])?;
    let location = entry.location(document);
    let tool = entry.tool.as_ref().map_err(|source| {
        vec![Error::UnreadableTool {
            location: location.clone(),
            name: args.tool.clone(),
            source: source.clone(),
        }]
    })?;
    let compiled = DefaultValidator::new()
        .compile(tool.input_schema.as_value())
        .map_err(|source| {
            vec![Error::UnusableSchema {
                location: location.clone(),
                name: args.tool.clone(),
                source,
            }]
        })?;
    let arguments = read_arguments(&args.args).map_err(|err| vec![err])?;
    let result = compiled.validate(&arguments);
    Ok((location, arguments, result))
}

/// The one entry named `name` across the documents.
fn find<'a>(documents: &'a [Document], name: &str) -> Result<(&'a Document, &'a Entry), Error> {
    let matches: Vec<(&Document, &Entry)> = documents
        .iter()
        .flat_map(|d| d.entries.iter().map(move |e| (d, e)))
        .filter(|(_, e)| e.name.as_deref() == Some(name))
        .collect();
    match matches.as_slice() {
        [one] => Ok(*one),
        [] => {
            let mut available: Vec<String> = Vec::new();
            for entry in documents.iter().flat_map(|d| &d.entries) {
                let label = tool_label(entry.name.as_deref());
                if !available.contains(&label) {
                    available.push(label);
                }
            }
            Err(Error::ToolNotFound {
                name: name.to_owned(),
                available,
            })
        }
        several => Err(Error::AmbiguousTool {
            name: name.to_owned(),
            locations: several.iter().map(|(d, e)| e.location(d)).collect(),
        }),
    }
}

/// `--args`: inline JSON (named `--args` in errors), or `@FILE` (`@-`: standard input).
fn read_arguments(text: &str) -> Result<Value, Error> {
    match text.strip_prefix('@') {
        Some(file) => {
            let path = Path::new(file);
            input::parse_json(&input::label(path), &input::read_bytes(path)?)
        }
        None => input::parse_json("--args", text.as_bytes()),
    }
}

fn write_verdict(
    out: &mut dyn Write,
    args: &ValidateArgs,
    location: &str,
    arguments: &Value,
    violations: &[InstanceError],
) -> io::Result<()> {
    match args.format {
        Format::Json => {
            let list: Vec<Value> = violations
                .iter()
                .map(|v| {
                    json!({
                        "instance_path": v.instance_path,
                        "schema_path": v.schema_path,
                        "keyword": v.keyword,
                        "message": v.message,
                    })
                })
                .collect();
            let document = json!({
                "tool": args.tool,
                "location": location,
                "arguments": arguments,
                "valid": violations.is_empty(),
                "errors": list,
                "status": if violations.is_empty() { 0 } else { 1 },
            });
            serde_json::to_writer_pretty(&mut *out, &document)?;
            writeln!(out)
        }
        Format::Text if violations.is_empty() => writeln!(
            out,
            "ok: the arguments match the inputSchema of {} ({location})",
            quoted(&args.tool)
        ),
        Format::Text => {
            writeln!(
                out,
                "invalid: {} against the inputSchema of {} ({location}):",
                plural(violations.len()),
                quoted(&args.tool)
            )?;
            for violation in violations {
                writeln!(out, "  {violation}")?;
            }
            Ok(())
        }
    }
}

fn plural(count: usize) -> String {
    if count == 1 {
        "1 violation".into()
    } else {
        format!("{count} violations")
    }
}
