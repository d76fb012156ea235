//! [`Error`]: every way the `toolmodel` command fails before it can report on a tool.
//!
//! Each variant names the file (as the user wrote its path, or `<stdin>`, or `--args`) and where
//! in it: a line and column for text that is not JSON, a JSON Pointer for JSON of the wrong
//! shape. All of them end the command with [`Status::Failure`](crate::Status::Failure) (exit
//! status 2), except that `lint` goes on with its other files first.

use std::fmt::Write as _;

/// An input the command cannot use, or a request it cannot serve.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A file or folder could not be read (missing, unreadable, a broken link, ...).
    #[error("{path}: cannot read: {source}")]
    Io {
        /// The path as given (or found in a folder).
        path: String,
        /// What the operating system said.
        #[source]
        source: std::io::Error,
    },

    /// The text is not one JSON value: malformed, truncated, empty, nested deeper than 128
    /// levels, or followed by more text (JSON Lines). `serde_json` gives the line and column.
    #[error("{}", syntax_message(path, *line, *column, message))]
    Syntax {
        /// The file (or `--args`).
        path: String,
        /// 1-based line; 0 when unknown.
        line: usize,
        /// Column on that line (1-based; 0 before the first character, as `serde_json` counts).
        column: usize,
        /// What is wrong, without `serde_json`'s "at line … column …" suffix.
        message: String,
    },

    /// Valid JSON, but not a document that holds MCP tools in any shape
    /// [`toolmodel::wire::catalog::tool_values`] knows (a string, an array of numbers,
    /// `{"tools": 5}`, a JSON Schema, ...).
    #[error("{path}#{pointer}: not an MCP tool document: {reason}")]
    NotToolDocument {
        /// The file.
        path: String,
        /// JSON Pointer of the value that was not understood (`""` is the whole document).
        pointer: String,
        /// What was expected there.
        reason: String,
    },

    /// A folder holds no `*.json` or `*.snap` file, at any depth.
    #[error("{path}: no *.json or *.snap file in this folder")]
    EmptyFolder {
        /// The folder.
        path: String,
    },

    /// `validate --tool NAME`: no tool of that name in the files given.
    #[error("no tool named {name:?}; the tools are: {}", list(available, 20))]
    ToolNotFound {
        /// The name asked for.
        name: String,
        /// The names present, in document order.
        available: Vec<String>,
    },

    /// `validate --tool NAME`: several tools have that name, so which schema applies is unclear.
    #[error("{} tools are named {name:?}: {}; pass only the file that holds the one you mean", locations.len(), list(locations, 20))]
    AmbiguousTool {
        /// The name asked for.
        name: String,
        /// Where each one is, `FILE#POINTER`.
        locations: Vec<String>,
    },

    /// `validate`: the tool's `inputSchema` cannot be used to validate (an unsupported
    /// `$schema` dialect, an invalid schema, an external `$ref`).
    #[error("{location}: the inputSchema of {name:?} cannot be used: {source}")]
    UnusableSchema {
        /// Where the tool is, `FILE#POINTER`.
        location: String,
        /// The tool's name.
        name: String,
        /// Why, from [`toolmodel::DefaultValidator::compile`].
        #[source]
        source: toolmodel::Error,
    },

    /// `validate`: the tool itself could not be read (for example its `inputSchema` is not an
    /// object), so it has no schema to validate against.
    #[error("{location}: tool {name:?} cannot be read: {source}")]
    UnreadableTool {
        /// Where the tool is, `FILE#POINTER`.
        location: String,
        /// The tool's name.
        name: String,
        /// Why, from [`toolmodel::Tool::from_mcp_json`].
        #[source]
        source: toolmodel::Error,
    },

    /// Standard input named twice (`-` as a file and `--args @-`).
    #[error("standard input can be read only once: `-` as a file and `--args @-` together")]
    StdinTwice,
}

fn syntax_message(path: &str, line: usize, column: usize, message: &str) -> String {
    if line == 0 {
        format!("{path}: {message}")
    } else {
        format!("{path}:{line}:{column}: {message}")
    }
}

/// Up to `max` items, comma-separated, then how many more.
fn list(items: &[String], max: usize) -> String {
    if items.is_empty() {
        return "(none)".into();
    }
    let mut out = String::new();
    for (index, item) in items.iter().take(max).enumerate() {
        if index > 0 {
            out.push_str(", ");
        }
        out.push_str(item);
    }
    if items.len() > max {
        let _ = write!(out, " and {} more", items.len() - max);
    }
    out
}

impl Error {
    /// A [`Error::Syntax`] from a `serde_json` error in the text of `path`.
    ///
    /// A file holding more than one JSON value (JSON Lines, such as BFCL's `.json` files) gets
    /// a hint: the command reads one JSON document per file.
    /// `err` from [`toolmodel::wire::catalog::parse_slice`]: an [`Error::Syntax`] with its line and
    /// column (and, for a repeated key, the pointer of its object in the message).
    pub(crate) fn syntax(path: &str, err: toolmodel::Error) -> Self {
        let toolmodel::Error::Json {
            path: pointer,
            line,
            column,
            message: full,
        } = err
        else {
            return Self::Syntax {
                path: path.to_owned(),
                line: 0,
                column: 0,
                message: err.to_string(),
            };
        };
        let suffix = format!(" at line {line} column {column}");
        let mut message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
        if message == "trailing characters" {
            message.push_str(
                ": the file holds more than one JSON value (JSON Lines?); a tool file holds one JSON document",
            );
        } else if message.starts_with("duplicate key") {
            let place = if pointer.is_empty() {
                "at the top level".to_owned()
            } else {
                format!("in the object at {pointer}")
            };
            message.push_str(&format!(
                " {place}: JSON leaves a repeated key's meaning to each reader"
            ));
        }
        Self::Syntax {
            path: path.to_owned(),
            line,
            column,
            message,
        }
    }
}
