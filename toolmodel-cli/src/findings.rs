//! What `toolmodel lint` finds: the options it runs with ([`LintOptions`]) and its report of
//! one tool ([`ToolReport`]: spec errors, per-profile portability, per-version losses), shared
//! by the linter that makes them and the [`report`](crate::report) that prints them. Public as
//! [`toolmodel_cli::lint`](crate::lint)'s items.

use serde::Serialize;
use toolmodel::{
    ProtocolVersion,
    adapters::{ConvertOptions, Profile},
};

/// What to check besides the MCP spec.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct LintOptions {
    /// The profiles to report portability for, in order.
    pub profiles: Vec<Profile>,
    /// Count a rejection by one of [`profiles`](Self::profiles) as an error (the command line
    /// sets it when `--target` names the profiles).
    pub deny_rejections: bool,
    /// The conversion options every profile uses (its strictness aside).
    pub convert: ConvertOptions,
    /// The protocol version whose rules are errors.
    pub protocol: ProtocolVersion,
}

impl LintOptions {
    /// The profiles reported by default: every provider profile of [`Profile::ALL`] (MCP
    /// itself is what the spec checks cover).
    #[must_use]
    pub fn default_profiles() -> Vec<Profile> {
        Profile::ALL
            .into_iter()
            .filter(|p| p.target != toolmodel::adapters::Target::Mcp)
            .collect()
    }
}

impl Default for LintOptions {
    fn default() -> Self {
        Self {
            profiles: Self::default_profiles(),
            deny_rejections: false,
            convert: ConvertOptions::default(),
            protocol: ProtocolVersion::LATEST,
        }
    }
}

/// The kind of an MCP spec error.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "kebab-case")]
#[non_exhaustive]
pub enum Kind {
    /// The tool object cannot be read as an MCP `Tool`.
    ToolShape,
    /// The name breaks MCP "Tool Names".
    Name,
    /// A schema root is not `"type": "object"`.
    SchemaRoot,
    /// An icon `src` with a scheme other than `https:`, `http:`, `data:`.
    IconUri,
    /// An `x-mcp-header` rule (MCP 2026-07-28).
    Header,
    /// Another rule of [`Tool::validate`](toolmodel::Tool::validate).
    Tool,
    /// A `$schema` other than JSON Schema 2020-12 or draft-07.
    SchemaDialect,
    /// A schema invalid against its dialect's meta-schema, or not compilable.
    InvalidSchema,
    /// A `$ref` to a resource outside the schema.
    ExternalRef,
    /// A name an earlier tool of the same server has.
    DuplicateName,
}

impl Kind {
    /// The kebab-case spelling used in the text and JSON reports.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::ToolShape => "tool-shape",
            Self::Name => "name",
            Self::SchemaRoot => "schema-root",
            Self::IconUri => "icon-uri",
            Self::Header => "header",
            Self::Tool => "tool",
            Self::SchemaDialect => "schema-dialect",
            Self::InvalidSchema => "invalid-schema",
            Self::ExternalRef => "external-ref",
            Self::DuplicateName => "duplicate-name",
        }
    }
}

/// One MCP spec error.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Finding {
    /// What kind of error.
    pub kind: Kind,
    /// JSON Pointer into the document (the tool's pointer, then the place in the tool).
    pub pointer: String,
    /// What is wrong.
    pub message: String,
}

/// Why a target rejects a tool.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct Rejection {
    /// The error's kind: `conversion`, `recursive-schema`, `schema-too-large`,
    /// `schema-too-deep`, `external-ref`, or `other`.
    pub kind: &'static str,
    /// JSON Pointer into the document of the offending value (the tool's pointer when the
    /// error names no place).
    pub pointer: String,
    /// What the target cannot hold.
    pub message: String,
}

/// One change a conversion makes, as reported.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub struct WarningReport {
    /// JSON Pointer into the document.
    pub pointer: String,
    /// The keyword or tool field.
    pub feature: String,
    /// What was done: `dropped`, `dropped-widened`, `rewritten-exact`, `rewritten-inexact`,
    /// `narrowed`, `moved-to-description`, `unsupported`, `unsupported-widened`.
    pub action: &'static str,
    /// Whether the converted schema accepts values the original rejects.
    pub widens: bool,
    /// What the target lacks and what was written instead.
    pub detail: String,
}

/// What one profile would do with one tool.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct TargetReport {
    /// The target and strictness, e.g. `openai-chat-strict`.
    #[serde(serialize_with = "crate::text::display")]
    pub profile: Profile,
    /// Why the target rejects the tool, when it does.
    pub rejection: Option<Rejection>,
    /// What it changes, sorted (empty when rejected).
    pub warnings: Vec<WarningReport>,
}

/// What one protocol version does with one tool.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct VersionReport {
    /// The version.
    pub version: ProtocolVersion,
    /// What writing the tool for it leaves out (or writes with no meaning for it): JSON
    /// Pointers into the document, each with its message.
    pub losses: Vec<Finding>,
    /// The version's rules the tool breaks (including what cannot be written for it), as
    /// spec errors would report them.
    pub breaks: Vec<Finding>,
}

/// The lint of one tool object.
#[derive(Clone, Debug, Serialize)]
#[non_exhaustive]
pub struct ToolReport {
    /// JSON Pointer of the tool object in the document.
    pub pointer: String,
    /// Its `name`, when it has a string one.
    pub name: Option<String>,
    /// Every MCP spec error, in the order of the module docs.
    pub errors: Vec<Finding>,
    /// One report per profile, in the order asked (empty when the tool cannot be read).
    pub targets: Vec<TargetReport>,
    /// One report per protocol version, oldest first (empty when the tool cannot be read).
    pub versions: Vec<VersionReport>,
}

impl ToolReport {
    /// The number of errors: spec errors, plus rejections when `deny_rejections`.
    #[must_use]
    pub fn error_count(&self, deny_rejections: bool) -> usize {
        let rejected = if deny_rejections {
            self.targets
                .iter()
                .filter(|t| t.rejection.is_some())
                .count()
        } else {
            0
        };
        self.errors.len() + rejected
    }
}
