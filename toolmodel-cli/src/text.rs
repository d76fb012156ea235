//! Text for messages and reports: cutting long text, quoting tool names, writing a value
//! through its `Display`.

use std::{borrow::Cow, fmt::Display};

use serde::Serializer;

/// `text` cut to `max` characters with `…` when longer.
#[must_use]
pub fn shorten(text: &str, max: usize) -> Cow<'_, str> {
    match text.char_indices().nth(max) {
        Some((end, _)) => Cow::Owned(format!("{}…", text.get(..end).unwrap_or(text))),
        None => Cow::Borrowed(text),
    }
}

/// A tool named in a message: its name [`quoted`], or `(no name)`.
pub(crate) fn tool_label(name: Option<&str>) -> String {
    name.map_or_else(|| "(no name)".into(), quoted)
}

/// A name quoted for messages: shortened to 64 characters, escaped as a Rust string.
pub(crate) fn quoted(name: &str) -> String {
    format!("{:?}", shorten(name, 64))
}

/// Serializes a value through its `Display` (for `serialize_with`).
pub(crate) fn display<T: Display, S: Serializer>(
    value: &T,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serializer.collect_str(value)
}

/// An error and its causes, each after a `: ` (as `anyhow`'s `{:#}` writes them): a library
/// error says what failed and keeps the I/O, JSON or Redis error that caused it as its
/// `source`.
pub(crate) struct Chain<'a>(pub(crate) &'a (dyn std::error::Error + 'static));

impl Display for Chain<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.0)?;
        let mut cause = self.0.source();
        while let Some(err) = cause {
            write!(f, ": {err}")?;
            cause = err.source();
        }
        Ok(())
    }
}

/// `err` about the file `path`: its [`Chain`], after `PATH: ` unless it names the file itself
/// (a file that cannot be read or parsed is named by the error).
pub(crate) fn about_file(
    path: &std::path::Path,
    err: &(dyn std::error::Error + 'static),
) -> String {
    let text = Chain(err).to_string();
    let path = path.display().to_string();
    if text.contains(&path) {
        text
    } else {
        format!("{path}: {text}")
    }
}
