//! [`Violation`]: one MCP rule a tool breaks, with its JSON Pointer (a leaf module: the crate's
//! error carries violations).

use std::fmt;

use crate::model::name::rules::NameError;

/// The URI schemes an icon `src` may use (MCP 2025-11-25, `Icon.src`: "an HTTP/HTTPS URL or a
/// `data:` URI"; clients must reject others such as `javascript:` and `file:`).
pub const ICON_SCHEMES: &[&str] = &["https", "http", "data"];

/// Which schema of a tool a finding is about.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum SchemaSlot {
    /// `inputSchema`.
    Input,
    /// `outputSchema`.
    Output,
}

impl SchemaSlot {
    /// The MCP key: `"inputSchema"` or `"outputSchema"`.
    #[must_use]
    pub const fn key(self) -> &'static str {
        match self {
            Self::Input => "inputSchema",
            Self::Output => "outputSchema",
        }
    }
}

impl fmt::Display for SchemaSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// One rule a [`Tool`](struct@crate::Tool) breaks, found by [`Tool::validate`](crate::Tool::validate).
///
/// [`Violation::pointer`] gives where, as a JSON Pointer into the tool's full JSON
/// ([`Tool::to_json`](crate::Tool::to_json)).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Violation {
    /// The name breaks MCP "Tool Names" (1–128 characters of `[A-Za-z0-9_.-]`).
    Name(NameError),
    /// The namespace breaks the same rules.
    Namespace(NameError),
    /// The version is not a semantic version (`1.2.3` or `v1.2.3`, with optional prerelease and
    /// build).
    Version {
        /// The version as given.
        value: String,
        /// Why the `semver` crate rejected it.
        reason: String,
    },
    /// A schema root is not `"type": "object"` (MCP 2025-11-25 `Tool.inputSchema` and
    /// `Tool.outputSchema`).
    SchemaRoot {
        /// Which schema.
        slot: SchemaSlot,
        /// The root `type` found, as JSON text, or `None` when absent.
        found: Option<String>,
    },
    /// The tags are not in normal form.
    Tags {
        /// The normal form to write instead.
        normal: Vec<String>,
    },
    /// An icon `src` with a scheme other than `https:`, `http:` or `data:`.
    IconScheme {
        /// The icon's index in `icons`.
        index: usize,
        /// The `src` as given.
        src: String,
    },
    /// A backend field that must not be empty is empty.
    EmptyBackendField {
        /// The backend's index in `backends`.
        index: usize,
        /// The backend kind.
        kind: &'static str,
        /// The field's JSON name.
        field: &'static str,
    },
    /// A key in [`Tool::extra`](crate::Tool::extra) that is also a key of the tool. An MCP key (`name`,
    /// `inputSchema`, ...) is never written from `extra` (the field wins). An extension key
    /// (`namespace`, `version`, `tags`, `backends`; a server may send one in its MCP JSON) is
    /// written by [`Tool::to_mcp_json`](crate::Tool::to_mcp_json), but [`Tool::to_json`](crate::Tool::to_json) writes the extension field
    /// instead and loses it.
    ShadowedKey {
        /// The key.
        key: String,
    },
    /// A value nests deeper than [`Limits::max_depth`](crate::Limits::max_depth) levels,
    /// counted from the tool's own object: its JSON could not be read back (`serde_json` reads
    /// at most 127 levels), and writing it, cloning it or comparing it recurses once per level.
    TooDeep {
        /// JSON Pointer of the first value found too deep.
        pointer: String,
        /// The limit, in levels.
        limit: usize,
    },
}

impl Violation {
    /// Where the problem is, as a JSON Pointer (RFC 6901) into the tool's full JSON.
    #[must_use]
    pub fn pointer(&self) -> String {
        match self {
            Self::Name(_) => "/name".into(),
            Self::Namespace(_) => "/namespace".into(),
            Self::Version { .. } => "/version".into(),
            Self::SchemaRoot { slot, .. } => format!("/{}/type", slot.key()),
            Self::Tags { .. } => "/tags".into(),
            Self::IconScheme { index, .. } => format!("/icons/{index}/src"),
            Self::EmptyBackendField {
                index, kind, field, ..
            } => format!("/backends/{index}/{kind}/{field}"),
            Self::ShadowedKey { key } => format!("/{}", crate::pointer::escape_pointer_token(key)),
            Self::TooDeep { pointer, .. } => pointer.clone(),
        }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: ", self.pointer())?;
        match self {
            Self::Name(err) => write!(f, "name {err}"),
            Self::Namespace(err) => write!(f, "namespace {err}"),
            Self::Version { value, reason } => {
                write!(f, "version {value:?} is not a semantic version: {reason}")
            }
            Self::SchemaRoot { slot, found: None } => {
                write!(
                    f,
                    "{slot} root has no \"type\"; MCP requires \"type\": \"object\""
                )
            }
            Self::SchemaRoot {
                slot,
                found: Some(found),
            } => write!(
                f,
                "{slot} root has \"type\": {found}; MCP requires \"type\": \"object\""
            ),
            Self::Tags { normal } => write!(f, "tags are not in normal form; write {normal:?}"),
            Self::IconScheme { src, .. } => write!(
                f,
                "icon src {:?} does not use one of the schemes https:, http:, data:",
                truncate(src, 80)
            ),
            Self::EmptyBackendField { kind, field, .. } => {
                write!(f, "{kind} backend has an empty {field:?}")
            }
            Self::ShadowedKey { key } if crate::wire::keys::MCP_KEYS.contains(&key.as_str()) => {
                write!(
                    f,
                    "unknown-field map holds {key:?}, an MCP key: the field is written instead, never this value"
                )
            }
            Self::ShadowedKey { key } => write!(
                f,
                "unknown-field map holds {key:?}, the name of a toolmodel extension: MCP JSON writes it, the full form (to_json) writes the extension instead and loses it"
            ),
            Self::TooDeep { limit, .. } => write!(
                f,
                "nested more than {limit} levels below the tool; it could not be read back"
            ),
        }
    }
}

fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", text.get(..end).unwrap_or(text)),
        None => text.to_owned(),
    }
}
