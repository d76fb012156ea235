//! `toolmodel convert`: every tool of the input converted to one target, as a JSON array on
//! stdout, with every warning on stderr.

use std::io::{self, Write};

use serde_json::Value;
use toolmodel::{
    ProtocolVersion, Tool,
    adapters::{Profile, Target, convert_all},
    wire::Written,
};

use crate::cli::ConvertArgs;
use crate::input::{self, Document, Entry};
use crate::lint;
use crate::report::clip;
use crate::status::Status;
use crate::text::tool_label;

/// Runs `toolmodel convert`: the converted tools to `out` (a JSON array, pretty unless
/// `--compact`), warnings and errors to `errors`.
///
/// Names are assigned by [`convert_all`] over all the tools of all the files, so that mapped
/// names never collide. With `--to mcp`, each tool is written for `--protocol` (default the
/// newest) by [`Tool::to_mcp_json_for`]: what the version cannot carry is a warning
/// (`warning[mcp-VERSION]`), a tool it cannot express an error. `--protocol` with another
/// target is a usage error. A tool that cannot be read or converted is reported and left out;
/// the status is then [`Status::Findings`]. An input error (or `--strict` on a target without a
/// strict mode) converts nothing: [`Status::Failure`].
///
/// # Errors
///
/// Writing failed.
pub fn run(args: &ConvertArgs, out: &mut dyn Write, errors: &mut dyn Write) -> io::Result<Status> {
    let target = args.to;
    if args.strict && !target.has_strict_mode() {
        writeln!(
            errors,
            "error: {target} has no strict mode; --strict applies to openai-chat, openai-responses and anthropic"
        )?;
        return Ok(Status::Failure);
    }
    if let Some(version) = args.protocol
        && target != Target::Mcp
    {
        writeln!(
            errors,
            "error: --protocol {version} applies to --to mcp only; {target} has no protocol versions"
        )?;
        return Ok(Status::Failure);
    }
    let documents = match input::read_all(&args.paths) {
        Ok(documents) => documents,
        Err(list) => {
            for err in list {
                writeln!(errors, "error: {err}")?;
            }
            return Ok(Status::Failure);
        }
    };
    run_documents(args, &documents, out, errors)
}

/// Converts the tools of documents read elsewhere (the live tools of `toolmodel tools
/// --config`) as [`run`] converts files, with `args`' options (its `paths` are not read).
///
/// # Errors
///
/// Writing failed.
pub fn run_documents(
    args: &ConvertArgs,
    documents: &[Document],
    out: &mut dyn Write,
    errors: &mut dyn Write,
) -> io::Result<Status> {
    let target = args.to;
    let protocol = args.protocol.unwrap_or(ProtocolVersion::LATEST);
    let profile = Profile {
        target,
        strict: args.strict,
    };
    let mut status = Status::Clean;
    let mut tools = Vec::new();
    let mut origins: Vec<(&Document, &Entry)> = Vec::new();
    for document in documents {
        for entry in &document.entries {
            match &entry.tool {
                Ok(tool) => {
                    tools.push(tool.clone());
                    origins.push((document, entry));
                }
                Err(err) => {
                    lint::write_unreadable(errors, document, entry, err)?;
                    status = Status::Findings;
                }
            }
        }
    }
    let options = args.conversion.options().with_strict(args.strict);
    let batch = convert_all(&tools, target, &options);
    let mut converted = Vec::with_capacity(tools.len());
    for ((result, (document, entry)), tool) in batch.results.into_iter().zip(origins).zip(&tools) {
        let name = tool_label(entry.name.as_deref());
        let mut losses = Vec::new();
        let result = result.and_then(|mut conversion| {
            if target == Target::Mcp {
                let written = for_version(tool, protocol, &conversion.value)?;
                losses = written.losses;
                conversion.value = written.json;
            }
            Ok(conversion)
        });
        for loss in &losses {
            writeln!(
                errors,
                "{}#{}{}: warning[mcp-{protocol}]: {name}: {}",
                document.path,
                entry.pointer,
                loss.pointer,
                clip(&lint::loss_message(loss))
            )?;
        }
        match result {
            Ok(conversion) => {
                for warning in &conversion.warnings {
                    writeln!(
                        errors,
                        "{}#{}{}: warning[{profile}]: {name}: {}: {}: {}",
                        document.path,
                        entry.pointer,
                        warning.pointer,
                        warning.feature,
                        lint::action_tag(warning.action),
                        clip(&warning.detail)
                    )?;
                }
                converted.push(conversion.value);
            }
            Err(err) => {
                let rejection = lint::rejection(&entry.pointer, &err);
                writeln!(
                    errors,
                    "{}#{}: error[{profile}]: {name}: rejected: {}",
                    document.path,
                    rejection.pointer,
                    clip(&rejection.message)
                )?;
                status = Status::Findings;
            }
        }
    }
    if args.compact {
        serde_json::to_writer(&mut *out, &converted)?;
    } else {
        serde_json::to_writer_pretty(&mut *out, &converted)?;
    }
    writeln!(out)?;
    Ok(status)
}

/// `tool` written for `version`, under the name the conversion gave it.
fn for_version(
    tool: &Tool,
    version: ProtocolVersion,
    converted: &Value,
) -> Result<Written, toolmodel::Error> {
    let mut written = tool.to_mcp_json_for(version)?;
    if let (Value::Object(map), Some(name)) = (&mut written.json, converted.get("name")) {
        map.insert("name".into(), name.clone());
    }
    Ok(written)
}
