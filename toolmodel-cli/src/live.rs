//! `toolmodel tools --config`: the live tools of the MCP servers of a configuration file,
//! listed as a `tools/list` result, linted as [`lint`](crate::lint) lints a file, or converted
//! as [`convert`](crate::convert) converts one.

use std::{
    io::{self, Write},
    path::Path,
};

use serde_json::{Value, json};
use toolmodel::ProtocolVersion;
use toolmodel_rmcp::federation::{Federation, FederationConfig, UpstreamStatus};

use crate::cli::{ConversionArgs, ConvertArgs, Format, LintArgs, ToolsArgs};
use crate::input;
use crate::status::Status;
use crate::text::about_file;

/// Starts the servers, reads their tools under the gateway's names, stops them, then prints,
/// lints or converts the tools. Each server's state is a line on `errors`.
///
/// # Errors
///
/// Writing failed.
pub fn run(args: &ToolsArgs, out: &mut dyn Write, errors: &mut dyn Write) -> io::Result<Status> {
    let Some((config, runtime)) = prepare(&args.config, errors)? else {
        return Ok(Status::Failure);
    };
    let live = runtime.block_on(async {
        let federation = Federation::start(config).await?;
        let statuses = federation.status().await;
        let toolbox = federation.toolbox();
        let mut tools: Vec<Value> = Vec::with_capacity(toolbox.len());
        let mut cursor: Option<String> = None;
        loop {
            let page = toolbox.list_for(ProtocolVersion::LATEST, cursor.as_deref())?;
            tools.extend(page.tools().iter().cloned());
            match page.next_cursor() {
                Some(next) => cursor = Some(next.to_owned()),
                None => break,
            }
        }
        federation.shutdown().await;
        Ok::<_, toolmodel_rmcp::Error>((statuses, tools))
    });
    let (statuses, tools) = match live {
        Ok(live) => live,
        Err(err) => {
            writeln!(errors, "error: {}", about_file(&args.config, &err))?;
            return Ok(Status::Failure);
        }
    };
    let mut status = Status::Clean;
    for server in &statuses {
        write_status(errors, server)?;
        if !server.session.is_open() {
            status = Status::Findings;
        }
    }
    let listed = json!({ "tools": tools });
    let label = format!("{} (live)", args.config.display());
    let bytes = serde_json::to_vec(&listed).map_err(io::Error::other)?;
    let outcome = if args.lint {
        match input::parse_document(&label, &bytes) {
            Ok(document) => crate::lint::run_document(&lint_args(), &document, out, errors)?,
            Err(err) => {
                writeln!(errors, "error: {err}")?;
                Status::Failure
            }
        }
    } else if let Some(target) = args.to {
        match input::parse_document(&label, &bytes) {
            Ok(document) => {
                crate::convert::run_documents(&convert_args(target), &[document], out, errors)?
            }
            Err(err) => {
                writeln!(errors, "error: {err}")?;
                Status::Failure
            }
        }
    } else {
        serde_json::to_writer_pretty(&mut *out, &listed).map_err(io::Error::other)?;
        writeln!(out)?;
        Status::Clean
    };
    Ok(status.max(outcome))
}

/// The configuration at `path` and a runtime to start it on; `None` when the file cannot be
/// used, which is then written to `errors`.
///
/// # Errors
///
/// Writing failed, or no runtime could be built.
pub(crate) fn prepare(
    path: &Path,
    errors: &mut dyn Write,
) -> io::Result<Option<(FederationConfig, tokio::runtime::Runtime)>> {
    let config = match FederationConfig::from_path(path) {
        Ok(config) => config,
        Err(err) => {
            writeln!(errors, "error: {}: {err}", path.display())?;
            return Ok(None);
        }
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    Ok(Some((config, runtime)))
}

/// One server's state line: `NAME: N tools` or `NAME: unavailable: CAUSE`.
pub(crate) fn write_status(errors: &mut dyn Write, server: &UpstreamStatus) -> io::Result<()> {
    if server.session.is_open() {
        writeln!(errors, "{}: {} tools", server.name, server.tools)
    } else {
        writeln!(errors, "{}: unavailable: {}", server.name, server.session)
    }
}

/// `toolmodel lint`'s defaults.
fn lint_args() -> LintArgs {
    LintArgs {
        paths: Vec::new(),
        format: Format::Text,
        targets: Vec::new(),
        verbose: false,
        protocol: ProtocolVersion::LATEST,
        conversion: ConversionArgs {
            allow_widening: false,
            gemini_json_schema: false,
        },
    }
}

/// `toolmodel convert --to TARGET`'s defaults.
fn convert_args(to: toolmodel::adapters::Target) -> ConvertArgs {
    ConvertArgs {
        to,
        strict: false,
        compact: false,
        protocol: None,
        conversion: ConversionArgs {
            allow_widening: false,
            gemini_json_schema: false,
        },
        paths: Vec::new(),
    }
}
