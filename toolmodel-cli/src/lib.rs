//! # toolmodel-cli
//!
//! The `toolmodel` command (`cargo install toolmodel-cli`), and the library behind it: lint
//! MCP tool catalogs against the MCP spec and for portability to OpenAI, Anthropic and Gemini,
//! convert them to those formats, validate tool-call arguments.
//!
//! ```
//! use clap::Parser;
//! use toolmodel_cli::{Cli, Status, run};
//!
//! let file = std::env::temp_dir().join("toolmodel-cli-doc.json");
//! std::fs::write(&file, r#"[{"name": "bad name", "inputSchema": {"type": "object"}}]"#)?;
//! let cli = Cli::parse_from(["toolmodel", "lint", "--target", "openai-chat", file.to_str().unwrap()]);
//! let (mut out, mut err) = (Vec::new(), Vec::new());
//! let status = run(&cli, &mut out, &mut err)?;
//! assert_eq!(status, Status::Findings);
//! assert!(String::from_utf8_lossy(&out).contains("#/0/name: error[name]: \"bad name\""));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! The chapter [converting and
//! linting](https://docs.rs/toolmodel/latest/toolmodel/guide/converting/index.html) of the
//! `toolmodel` guide shows each command on a file with its real output; the crate's README
//! has every option.
//!
//! - `toolmodel lint PATH...`: MCP spec errors and provider portability of every tool
//!   ([`lint`], [`report`]);
//! - `toolmodel convert --to TARGET [--strict] PATH...`: tools in a provider's format
//!   ([`convert`]);
//! - `toolmodel validate --tool NAME --args JSON|@FILE PATH...`: arguments against a tool's
//!   `inputSchema` ([`validate`]);
//! - `toolmodel gateway --config FILE [--check-config] [--http ADDR [--allowed-hosts HOST,...]
//!   [--allowed-origins ORIGIN,...] [--auth-issuer URL [--resource URL] [--scopes SCOPE,...]
//!   [--introspection-client-id ID [--introspection-rate N]]]]`: the tools of the MCP servers of
//!   a configuration file served as one MCP server, over HTTP as an OAuth 2.1 resource server
//!   with `--auth-issuer`; `--check-config` checks it all and exits ([`gateway`]);
//! - `toolmodel tools --config FILE [--lint] [--to TARGET]`: their live tools listed, linted
//!   or converted ([`live`]);
//! - `toolmodel search (CATALOG... | --config FILE) (--query TEXT | --queries FILE) [--limit K]
//!   [--format text|json]`: the tools that fit a request, best first ([`search`]).
//!
//! [`input`] reads the files, in every shape real MCP servers and captures use;
//! [`input::parse_document`] is the reader on bytes, which never panics.
//!
//! Exit statuses ([`Status`]): 0 nothing found, 1 problems found, 2 the command could not run
//! as asked (usage, unreadable input).

pub mod cli;
pub mod convert;
mod error;
mod findings;
pub mod gateway;
mod gateway_config;
pub mod input;
pub mod lint;
pub mod live;
mod reload;
pub mod report;
pub mod search;
mod status;
mod text;
pub mod validate;

use std::io::{self, Write};

pub use cli::{Cli, Command};
pub use error::Error;
pub use status::Status;

/// Runs a parsed command line: the report to `out` (stdout), input errors and conversion
/// warnings to `errors` (stderr).
///
/// # Errors
///
/// Writing to `out` or `errors` failed (for example a closed pipe).
pub fn run(cli: &Cli, out: &mut dyn Write, errors: &mut dyn Write) -> io::Result<Status> {
    match &cli.command {
        Command::Lint(args) => lint::run(args, out, errors),
        Command::Convert(args) => convert::run(args, out, errors),
        Command::Validate(args) => validate::run(args, out, errors),
        Command::Gateway(args) => gateway::run(args, out, errors),
        Command::Tools(args) => live::run(args, out, errors),
        Command::Search(args) => search::run(args, out, errors),
    }
}
