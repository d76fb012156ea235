//! A dump of everything `toolmodel` makes of the real corpus, to compare two revisions of the
//! library byte for byte (a refactoring must leave it unchanged).
//!
//! For every MCP tool of `../shared/corpus` ([`toolmodel_tests::corpus_tools`]) it writes, one
//! line each: the parse result, the full JSON ([`Tool::to_json`]), the MCP JSON
//! ([`Tool::to_mcp_json`]) and the MCP JSON for every [`ProtocolVersion`] with its losses, the
//! rule violations for every version, the compile verdict of [`DefaultValidator`] on each
//! schema, and the conversion to every adapter [`Profile`] (plus Gemini's JSON Schema mode)
//! with its warnings. For every BFCL function it writes the lenient reading as OpenAI Chat and
//! the same conversions.
//!
//! Ignored by default (it writes a large file): run it with the output path in
//! `TOOLMODEL_CORPUS_DUMP`:
//!
//! ```text
//! TOOLMODEL_CORPUS_DUMP=/tmp/dump.txt cargo test -p toolmodel-tests --test integration corpus_dump:: -- --ignored
//! ```

use std::{fmt::Write as _, fs};

use toolmodel::{
    DefaultValidator, ProtocolVersion, Tool,
    adapters::{ReadOptions, Target, convert, read},
};

/// Every output of `tool`, one line each, under `label`.
fn dump_tool(out: &mut String, label: &str, tool: &Tool, validator: &DefaultValidator) {
    writeln!(out, "{label} full {}", tool.to_json()).unwrap();
    writeln!(out, "{label} mcp {}", tool.to_mcp_json()).unwrap();
    for version in ProtocolVersion::ALL {
        match tool.to_mcp_json_for(version) {
            Ok(written) => writeln!(
                out,
                "{label} mcp@{version} {} losses {:?}",
                written.json, written.losses
            ),
            Err(err) => writeln!(out, "{label} mcp@{version} error {err}"),
        }
        .unwrap();
        writeln!(
            out,
            "{label} violations@{version} {:?}",
            tool.violations_for(version)
        )
        .unwrap();
    }
    let schemas = std::iter::once(("inputSchema", &tool.input_schema))
        .chain(tool.output_schema.iter().map(|s| ("outputSchema", s)));
    for (slot, schema) in schemas {
        match validator.compile(schema.as_value()) {
            Ok(_) => writeln!(out, "{label} compile {slot} ok"),
            Err(err) => writeln!(out, "{label} compile {slot} error {err}"),
        }
        .unwrap();
    }
    for (column, target, options) in toolmodel_tests::adapter_columns() {
        match convert(tool, target, &options) {
            Ok(conversion) => {
                writeln!(
                    out,
                    "{label} {column} {} {}",
                    conversion.name, conversion.value
                )
                .unwrap();
                for warning in &conversion.warnings {
                    writeln!(out, "{label} {column} warning {warning}").unwrap();
                }
            }
            Err(err) => writeln!(out, "{label} {column} error {err}").unwrap(),
        }
    }
}

#[test]
#[ignore = "writes a large file; run with TOOLMODEL_CORPUS_DUMP set"]
fn every_output_of_the_corpus_is_written_to_one_file() {
    let path = std::env::var_os("TOOLMODEL_CORPUS_DUMP")
        .expect("TOOLMODEL_CORPUS_DUMP names the file to write");
    let (Some(tools), Some(functions)) = (
        toolmodel_tests::corpus_tools(),
        toolmodel_tests::bfcl_functions(),
    ) else {
        return;
    };
    let validator = DefaultValidator::new();
    let mut out = String::new();
    for (label, value) in &tools {
        match Tool::from_mcp_json(value) {
            Ok(tool) => dump_tool(&mut out, label, &tool, &validator),
            Err(err) => writeln!(out, "{label} parse error {err}").unwrap(),
        }
    }
    let lenient = ReadOptions::default().with_lenient(true);
    for (label, function) in &functions {
        let label = format!("bfcl/{label}");
        match read(Target::OpenAiChat, function, &lenient) {
            Ok(reading) => {
                for warning in &reading.warnings {
                    writeln!(out, "{label} read warning {warning}").unwrap();
                }
                dump_tool(&mut out, &label, &reading.tool, &validator);
            }
            Err(err) => writeln!(out, "{label} read error {err}").unwrap(),
        }
    }
    assert!(
        tools.len() > 900 && functions.len() > 3000,
        "{} tools, {} functions",
        tools.len(),
        functions.len()
    );
    fs::write(&path, out).unwrap();
}
