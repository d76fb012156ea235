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
