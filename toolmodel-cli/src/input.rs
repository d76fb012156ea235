//! Reading tool files: the paths a command is given, expanded to files; each file's text as
//! JSON; the tools in it, in whatever shape the document holds them.
//!
//! [`parse_document`] is the whole reader on bytes, with no file system: it never panics, on
//! any input (it is a fuzz target).
//!
//! Accepted documents are those of [`toolmodel::wire::catalog::tool_values`]: one tool, an array of
//! tools, a `tools/list` result `{"tools": [...]}` (other keys such as `server_info` or
//! `nextCursor` ignored), a JSON-RPC response `{"result": {"tools": [...]}}`, LiveMCPBench's
//! nested server list, and any nesting of these. One file holds one JSON document: a JSON Lines
//! file (BFCL's data, despite its `.json` ending) is reported as a syntax error at the start of
//! its second line, with a hint.

use std::{
    io::Read as _,
    path::{Path, PathBuf},
};

use serde_json::Value;
use toolmodel::{Tool, wire::catalog::tool_values};

use crate::error::Error;

/// The path that means standard input.
pub const STDIN: &str = "-";

/// File name endings a folder is searched for (ASCII case-insensitive): `json` (tool lists,
/// captures) and `snap` (one tool per file, as github-mcp-server's snapshots).
pub const EXTENSIONS: [&str; 2] = ["json", "snap"];

/// One JSON document and the tools found in it.
#[derive(Debug)]
#[non_exhaustive]
pub struct Document {
    /// The file, as the user wrote its path (or as found in a folder); `<stdin>` for `-`.
    pub path: String,
    /// Every tool object of the document, in document order.
    pub entries: Vec<Entry>,
}

/// One tool object of a document: read into a [`Tool`](struct@toolmodel::Tool), or the reason it could not be.
#[derive(Debug)]
#[non_exhaustive]
pub struct Entry {
    /// JSON Pointer of the tool object in the document (`""` when the document is the tool).
    pub pointer: String,
    /// JSON Pointer of the list holding the tool (its server's `tools` array): tools with the
    /// same `group` come from one server, where names must be unique.
    pub group: String,
    /// The `name`, when the object has a string `name` (also when the tool could not be read).
    pub name: Option<String>,
    /// The tool, or [`toolmodel::Error::Json`] with the pointer (relative to the tool object)
    /// of the key with the wrong type.
    pub tool: Result<Tool, toolmodel::Error>,
}

impl Entry {
    /// `FILE#POINTER` of this entry in `document`.
    #[must_use]
    pub fn location(&self, document: &Document) -> String {
        format!("{}#{}", document.path, self.pointer)
    }
}

/// The files a path stands for: the file itself (whatever its name), `-` for standard input,
/// or, for a folder, every `*.json` and `*.snap` file under it at any depth, sorted by name
/// within each folder (links followed, loops reported).
///
/// # Errors
///
/// [`Error::Io`] for a path that does not exist or cannot be listed; [`Error::EmptyFolder`]
/// for a folder without any such file.
pub fn expand(path: &Path) -> Result<Vec<PathBuf>, Error> {
    if path.as_os_str() == STDIN {
        return Ok(vec![path.to_path_buf()]);
    }
    let label = || path.display().to_string();
    let metadata = std::fs::metadata(path).map_err(|source| Error::Io {
        path: label(),
        source,
    })?;
    if !metadata.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(path)
        .follow_links(true)
        .sort_by_file_name()
    {
        let entry = entry.map_err(|err| Error::Io {
            path: err.path().map_or_else(label, |p| p.display().to_string()),
            source: err.into(),
        })?;
        let wanted = entry
            .path()
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| {
                EXTENSIONS
                    .iter()
                    .any(|wanted| e.eq_ignore_ascii_case(wanted))
            });
        if entry.file_type().is_file() && wanted {
            files.push(entry.into_path());
        }
    }
    if files.is_empty() {
        return Err(Error::EmptyFolder { path: label() });
    }
    Ok(files)
}

/// The label of a path in messages: as written, `<stdin>` for `-`.
#[must_use]
pub fn label(path: &Path) -> String {
    if path.as_os_str() == STDIN {
        "<stdin>".into()
    } else {
        path.display().to_string()
    }
}

/// The bytes of a file, or of standard input for `-`.
///
/// # Errors
///
/// [`Error::Io`] naming the path.
pub fn read_bytes(path: &Path) -> Result<Vec<u8>, Error> {
    let result = if path.as_os_str() == STDIN {
        let mut bytes = Vec::new();
        std::io::stdin().read_to_end(&mut bytes).map(|_| bytes)
    } else {
        std::fs::read(path)
    };
    result.map_err(|source| Error::Io {
        path: label(path),
        source,
    })
}

/// Reads one file (or standard input for `-`) and finds its tools: [`read_bytes`] then
/// [`parse_document`].
///
/// # Errors
///
/// As [`read_bytes`] and [`parse_document`].
pub fn read_document(path: &Path) -> Result<Document, Error> {
    parse_document(&label(path), &read_bytes(path)?)
}

/// Parses JSON text (one value; a leading UTF-8 byte order mark is skipped).
///
/// # Errors
///
/// [`Error::Syntax`] with `label`, the line and the column: malformed or truncated JSON,
/// invalid UTF-8 in a string, nesting deeper than 128 levels, an empty file, trailing text, a
/// number beyond `f64`, or an object that repeats a key (the rule of
/// [`toolmodel::wire::catalog::parse_slice`]: JSON leaves a repeated key's meaning to each parser).
pub fn parse_json(label: &str, bytes: &[u8]) -> Result<Value, Error> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    toolmodel::wire::catalog::parse_slice(bytes).map_err(|err| Error::syntax(label, err))
}

/// Parses a document and reads every tool in it.
///
/// `label` names the document in errors. Each tool object is read on its own, so that one bad
/// tool does not hide the others: an unreadable one is an [`Entry`] whose `tool` is the error.
///
/// # Errors
///
/// [`Error::Syntax`] as [`parse_json`]; [`Error::NotToolDocument`] with the JSON Pointer of the
/// first value that is not a tool, a list of tools or a tools/list result.
///
/// # Examples
///
/// ```
/// use toolmodel_cli::input::parse_document;
///
/// let doc = parse_document("t.json", br#"{"tools": [
///     {"name": "a", "inputSchema": {"type": "object"}},
///     {"name": "b", "inputSchema": 5}
/// ]}"#)?;
/// assert_eq!(doc.entries[1].pointer, "/tools/1");
/// assert!(doc.entries[0].tool.is_ok() && doc.entries[1].tool.is_err());
///
/// let err = parse_document("t.json", br#"{"tools": [{"name": "a""#).unwrap_err();
/// assert_eq!(err.to_string(), "t.json:1:23: EOF while parsing an object");
/// # Ok::<(), toolmodel_cli::Error>(())
/// ```
pub fn parse_document(label: &str, bytes: &[u8]) -> Result<Document, Error> {
    let value = parse_json(label, bytes)?;
    let found = tool_values(&value).map_err(|err| match err {
        toolmodel::Error::UnrecognizedDocument { pointer, reason } => Error::NotToolDocument {
            path: label.to_owned(),
            pointer,
            reason,
        },
        other => Error::NotToolDocument {
            path: label.to_owned(),
            pointer: String::new(),
            reason: other.to_string(),
        },
    })?;
    let entries = found
        .into_iter()
        .map(|(pointer, value)| {
            let group = pointer
                .rfind('/')
                .and_then(|end| pointer.get(..end))
                .unwrap_or_default()
                .to_owned();
            Entry {
                group,
                name: value.get("name").and_then(Value::as_str).map(str::to_owned),
                tool: Tool::from_mcp_json(value),
                pointer,
            }
        })
        .collect();
    Ok(Document {
        path: label.to_owned(),
        entries,
    })
}

/// Reads every document the paths stand for ([`expand`] then [`read_document`]), in order.
///
/// # Errors
///
/// Every input error met (not only the first), in order, when there is at least one.
pub fn read_all(paths: &[PathBuf]) -> Result<Vec<Document>, Vec<Error>> {
    let mut documents = Vec::new();
    let mut errors = Vec::new();
    for path in paths {
        match expand(path) {
            Ok(files) => {
                for file in files {
                    match read_document(&file) {
                        Ok(document) => documents.push(document),
                        Err(err) => errors.push(err),
                    }
                }
            }
            Err(err) => errors.push(err),
        }
    }
    if errors.is_empty() {
        Ok(documents)
    } else {
        Err(errors)
    }
}
