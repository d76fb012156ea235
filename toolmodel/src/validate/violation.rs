//! [`Violation`]: one MCP rule a tool breaks, with its JSON Pointer (a leaf module: the crate's
//! error carries violations).

use std::fmt;

use crate::model::name::rules::NameError;
use crate::model::protocol::version::ProtocolVersion;

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

    /// The JSON Pointer of the schema in the tool: `"/inputSchema"` or `"/outputSchema"`.
    pub(crate) const fn pointer(self) -> &'static str {
        match self {
            Self::Input => "/inputSchema",
            Self::Output => "/outputSchema",
        }
    }
}

impl fmt::Display for SchemaSlot {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.key())
    }
}

/// One rule a [`Tool`](struct@crate::Tool) breaks, found by
/// [`Tool::validate`](crate::Tool::validate).
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
    /// A key in [`Tool::extra`](crate::Tool::extra) that is also a key of the tool. An MCP key
    /// (`name`, `inputSchema`, ...) is never written from `extra` (the field wins). An extension
    /// key (`namespace`, `version`, `tags`, `backends`; a server may send one in its MCP JSON) is
    /// written by [`Tool::to_mcp_json`](crate::Tool::to_mcp_json), but
    /// [`Tool::to_json`](crate::Tool::to_json) writes the extension field instead and loses it.
    ShadowedKey {
        /// The key.
        key: String,
    },
    /// A value nests deeper than
    /// [`ValidationLimits::max_depth`](crate::validate::ValidationLimits::max_depth) levels,
    /// counted from the tool's own object: its JSON could not be read back (`serde_json` reads at
    /// most 127 levels), and writing it, cloning it or comparing it recurses once per level.
    TooDeep {
        /// JSON Pointer of the first value found too deep.
        pointer: String,
        /// The limit, in levels.
        limit: usize,
    },
    /// A member of `inputSchema` or `outputSchema` has a shape the version's `Tool` schema
    /// refuses: up to 2025-11-25, `properties` must be an object of object schemas (a boolean
    /// schema is refused) and `required` an array of strings; from 2025-11-25, `$schema` must
    /// be a string.
    SchemaMember {
        /// The version whose `Tool` schema refuses it.
        version: ProtocolVersion,
        /// JSON Pointer of the value.
        pointer: String,
        /// What the schema requires there.
        expected: &'static str,
    },
    /// An `x-mcp-header` in the `inputSchema` breaks a rule of MCP 2026-07-28 (Streamable
    /// HTTP, "Custom Headers from Tool Parameters"; `server/tools`, "x-mcp-header"). Clients
    /// on that transport must drop the whole tool from `tools/list`.
    Header {
        /// JSON Pointer of the `x-mcp-header` keyword.
        pointer: String,
        /// Which rule.
        problem: HeaderProblem,
    },
    /// A `_meta` key breaks the key name format (MCP "General fields: `_meta`", from
    /// 2025-06-18).
    MetaKey {
        /// The key as given.
        key: String,
        /// Which part is wrong.
        problem: MetaKeyProblem,
    },
}

/// The rule an `x-mcp-header` breaks (MCP 2026-07-28, Streamable HTTP, "Schema Extension").
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum HeaderProblem {
    /// The value is not a string (as JSON text).
    NotString(String),
    /// The value is empty ("MUST NOT be empty").
    Empty,
    /// A control character ("MUST NOT contain control characters, including CR or LF").
    ControlChar {
        /// The character.
        ch: char,
        /// Its position, in characters from 0.
        position: usize,
    },
    /// A character outside RFC 9110 `tchar` ("MUST match HTTP field-name token syntax
    /// (`1*tchar`)"): letters, digits and ``!#$%&'*+-.^_`|~``.
    NotToken {
        /// The character.
        ch: char,
        /// Its position, in characters from 0.
        position: usize,
    },
    /// Another `x-mcp-header` has the same value, compared case-insensitively ("MUST be
    /// case-insensitively unique among all `x-mcp-header` values in the `inputSchema`").
    Duplicate {
        /// JSON Pointer of the first `x-mcp-header` with that value.
        first: String,
    },
    /// The property's `type` is not `integer`, `string` or `boolean` ("MUST only be applied to
    /// parameters with primitive types (integer, string, boolean). Parameters with type
    /// `number` are not permitted"). A `type` array may add `"null"` (a null value omits the
    /// header). `None`: the schema has no `type`.
    Type(Option<String>),
    /// The schema holding it is not a property statically reachable from the root: the chain
    /// from the root passes through a keyword other than `properties` (`items`, `anyOf`,
    /// `$defs`, ...), or it is the root itself.
    Unreachable,
    /// `#[derive(Tool)]`: a field with `#[tool(header = "...")]` has no property of that name
    /// in the generated `inputSchema` (a serde attribute the derive does not read renamed it).
    NoProperty,
}

/// What is wrong with a `_meta` key (MCP "General fields: `_meta`", "Key name format").
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum MetaKeyProblem {
    /// A prefix label (before the `/`) that does not start with a letter, end with a letter or
    /// digit, and hold only letters, digits and hyphens; empty labels included.
    PrefixLabel(String),
    /// The name (after the prefix) is not empty and does not begin and end with `[A-Za-z0-9]`
    /// with only `[A-Za-z0-9._-]` between.
    Name(String),
}

impl fmt::Display for HeaderProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::NotString(found) => write!(f, "is {found}, not a string"),
            Self::Empty => f.write_str("is empty"),
            Self::ControlChar { ch, position } => write!(
                f,
                "holds the control character U+{:04X} at position {position}",
                u32::from(*ch)
            ),
            Self::NotToken { ch, position } => write!(
                f,
                "holds {ch:?} at position {position}, not an RFC 9110 token character (letters, digits, !#$%&'*+-.^_`|~)"
            ),
            Self::Duplicate { first } => write!(
                f,
                "repeats, case-insensitively, the x-mcp-header at {first}"
            ),
            Self::Type(None) => f.write_str(
                "is on a property with no \"type\"; it must be \"integer\", \"string\" or \"boolean\"",
            ),
            Self::Type(Some(found)) => write!(
                f,
                "is on a property of \"type\": {found}; it must be \"integer\", \"string\" or \"boolean\" (never \"number\")"
            ),
            Self::Unreachable => f.write_str(
                "is not on a property statically reachable from the root through `properties` alone",
            ),
            Self::NoProperty => f.write_str(
                "names a property the generated inputSchema does not have: set the field's serde name with `#[serde(rename = \"...\")]`",
            ),
        }
    }
}

impl fmt::Display for MetaKeyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::PrefixLabel(label) => write!(
                f,
                "prefix label {label:?} must start with a letter, end with a letter or digit, and hold only letters, digits and hyphens"
            ),
            Self::Name(name) => write!(
                f,
                "name {name:?} must begin and end with a letter or digit, with only letters, digits, '-', '_' and '.' between"
            ),
        }
    }
}

impl Violation {
    /// Where the problem is, as a JSON Pointer (RFC 6901) into the tool's full JSON.
    #[must_use]
    pub fn pointer(&self) -> String {
        match self {
            Self::Name(_) => "/name".into(),
            Self::Namespace(_) => "/namespace".into(),
            Self::Version { .. } => "/version".into(),
            Self::SchemaRoot { slot, .. } => format!("{}/type", slot.pointer()),
            Self::Tags { .. } => "/tags".into(),
            Self::IconScheme { index, .. } => format!("/icons/{index}/src"),
            Self::EmptyBackendField {
                index, kind, field, ..
            } => format!("/backends/{index}/{kind}/{field}"),
            Self::ShadowedKey { key } => format!("/{}", crate::pointer::escape_pointer_token(key)),
            Self::TooDeep { pointer, .. }
            | Self::SchemaMember { pointer, .. }
            | Self::Header { pointer, .. } => pointer.clone(),
            Self::MetaKey { key, .. } => {
                format!("/_meta/{}", crate::pointer::escape_pointer_token(key))
            }
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
            Self::SchemaMember {
                version, expected, ..
            } => write!(f, "the MCP {version} Tool schema requires {expected}"),
            Self::Header { problem, .. } => write!(f, "x-mcp-header {problem}"),
            Self::MetaKey { key, problem } => write!(f, "_meta key {key:?}: {problem}"),
        }
    }
}

fn truncate(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((end, _)) => format!("{}…", text.get(..end).unwrap_or(text)),
        None => text.to_owned(),
    }
}
