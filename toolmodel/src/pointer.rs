//! JSON Pointers (RFC 6901): escaping a reference token, and the pointer of a serde path.

use std::fmt::Write as _;

/// Escapes one JSON Pointer reference token (RFC 6901: `~` as `~0`, `/` as `~1`).
pub(crate) fn escape_pointer_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// Appends `/` and one JSON Pointer reference token, escaped (RFC 6901: `~` as `~0`, `/` as
/// `~1`), without allocating for a token that needs no escaping.
pub(crate) fn push_token(pointer: &mut String, token: &str) {
    pointer.push('/');
    if token.bytes().any(|b| b == b'~' || b == b'/') {
        for ch in token.chars() {
            match ch {
                '~' => pointer.push_str("~0"),
                '/' => pointer.push_str("~1"),
                ch => pointer.push(ch),
            }
        }
    } else {
        pointer.push_str(token);
    }
}

/// Turns a serde path into a JSON Pointer.
pub(crate) fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut out = String::new();
    for segment in path.iter() {
        match segment {
            Segment::Seq { index } => {
                let _ = write!(out, "/{index}");
            }
            Segment::Map { key } => push_token(&mut out, key),
            Segment::Enum { .. } | Segment::Unknown => {}
        }
    }
    out
}
