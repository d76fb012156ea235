//! The MCP `Tool` (the union of every protocol version's) and its parts: [`ToolAnnotations`],
//! [`Icon`], [`ToolExecution`].

use std::time::Duration;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::backend::Backend;
use crate::model::schema::ToolSchema;

/// A tool definition: the MCP `Tool` of every protocol version at once (schema `#/$defs/Tool` of
/// 2025-11-25 and 2026-07-28, whose union it holds; see [`ProtocolVersion`](crate::ProtocolVersion)
/// for what each version carries and [`Tool::to_mcp_json_for`] to write for one), plus the
/// `toolmodel` extensions `namespace`, `version`, `tags`, `backends`, `category`,
/// `required_scopes` and `timeout`.
///
/// | field | MCP key | source |
/// |---|---|---|
/// | [`name`](Self::name) | `name` | `Tool.name` (BaseMetadata) |
/// | [`title`](Self::title) | `title` | `Tool.title` (BaseMetadata) |
/// | [`description`](Self::description) | `description` | `Tool.description` |
/// | [`input_schema`](Self::input_schema) | `inputSchema` | `Tool.inputSchema` |
/// | [`output_schema`](Self::output_schema) | `outputSchema` | `Tool.outputSchema` |
/// | [`annotations`](Self::annotations) | `annotations` | `ToolAnnotations` |
/// | [`icons`](Self::icons) | `icons` | `Icon` (Icons) |
/// | [`execution`](Self::execution) | `execution` | `ToolExecution` |
/// | [`meta`](Self::meta) | `_meta` | `Tool._meta` |
/// | [`extra`](Self::extra) | any other key | kept, see below |
/// | [`namespace`](Self::namespace), [`version`](Self::version), [`tags`](Self::tags), [`backends`](Self::backends) | — | `toolmodel` extensions |
/// | [`category`](Self::category), [`required_scopes`](Self::required_scopes), [`timeout`](Self::timeout) | — | `toolmodel` extensions (full form: `category`, `requiredScopes`, `timeoutMs`) |
///
/// # JSON forms
///
/// - MCP form: [`Tool::to_mcp_json`] / [`Tool::from_mcp_json`] / [`Tool::from_mcp_str`], and
///   [`Tool::mcp`] for a serde view. The extensions are not written. Reading, a key MCP does not
///   define (including `namespace`, `tags` and friends) goes to [`extra`](Self::extra).
/// - Full form: [`Tool::to_json`] / [`Tool::from_json`], which is also what `Tool`'s own
///   `Serialize` and `Deserialize` give. The MCP keys plus `namespace`, `version`, `tags`
///   (omitted when empty), `backends` (omitted when empty), `category`, `requiredScopes`
///   (omitted when empty) and `timeoutMs` (the [`timeout`](Self::timeout) in whole
///   milliseconds, a JSON integer).
///
/// # Policy for what MCP servers really send
///
/// - **Unknown keys are kept**, at every level (the tool, `annotations`, each icon,
///   `execution`), in an `extra` map, and written back after the known keys. A gateway passes on
///   what it received, byte-for-byte as JSON values.
/// - **A `null` optional field is read as absent** (`description: null`, `annotations: null`,
///   `title: null`, ...) and is not written back: MCP gives `null` no meaning different from
///   absence, and the official schema rejects it. This is the one difference a round trip makes.
/// - `inputSchema` must be a JSON object; `null` or a missing `inputSchema` is an error.
/// - An icon `theme` or `taskSupport` outside the spec's enum is an error naming the value.
/// - **Reading text** ([`Tool::from_mcp_str`], [`Tool::from_mcp_slice`], ...), **a key
///   repeated within an object is an error** naming the key, its line and column: JSON leaves
///   its meaning to each parser, so the tool could mean something else to another reader.
/// - **Bounds**: a value nested more than 128 levels is an error when reading a `Value` and a
///   violation for [`Tool::validate`] (see
///   [`ValidationLimits`](crate::validate::ValidationLimits)).
///
/// Clones share the schemas (see [`ToolSchema`]); share whole tools with `Arc<Tool>` when you
/// hold thousands.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use toolmodel::{Tool, ToolSchema};
///
/// let mut tool = Tool::new(
///     "get_weather",
///     ToolSchema::try_from(json!({
///         "type": "object",
///         "properties": {"city": {"type": "string"}},
///         "required": ["city"]
///     }))?,
/// );
/// tool.description = Some("Current weather for a city".into());
/// tool.validate()?;
/// assert_eq!(tool.to_mcp_json()["inputSchema"]["required"], json!(["city"]));
/// # Ok::<(), toolmodel::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct Tool {
    /// The programmatic name (`name`). Checked by [`Tool::validate`]: 1–128 characters of
    /// `[A-Za-z0-9_.-]` (MCP "Tool Names").
    pub name: String,
    /// A human-readable display name (`title`).
    pub title: Option<String>,
    /// A human-readable description, a hint to the model (`description`).
    pub description: Option<String>,
    /// The JSON Schema of the arguments (`inputSchema`); MCP requires root `"type": "object"`.
    pub input_schema: ToolSchema,
    /// The JSON Schema of `structuredContent` in results (`outputSchema`), when declared.
    pub output_schema: Option<ToolSchema>,
    /// Behaviour hints (`annotations`).
    pub annotations: Option<ToolAnnotations>,
    /// Icons for user interfaces (`icons`). `Some(vec![])` and `None` differ on the wire.
    pub icons: Option<Vec<Icon>>,
    /// Execution properties (`execution`).
    pub execution: Option<ToolExecution>,
    /// Protocol metadata (`_meta`).
    pub meta: Option<Map<String, Value>>,
    /// Keys the MCP `Tool` does not define, kept as received.
    pub extra: Map<String, Value>,
    /// Extension: the namespace of the tool's ID (`namespace:name`). Same rules as the name.
    pub namespace: Option<String>,
    /// Extension: the tool's version, a semantic version (`1.2.3` or `v1.2.3`).
    pub version: Option<String>,
    /// Extension: tags in normal form (see [`normalize_tags`](crate::model::tags::normalize_tags)).
    pub tags: Vec<String>,
    /// Extension: where calls to this tool go. A tool may have several backends.
    pub backends: Vec<Backend>,
    /// Extension: the tool's category, for a registry to group tools by (full form:
    /// `category`). Checked by [`Tool::validate`]: not empty, no leading or trailing
    /// whitespace, no control character, at most [`MAX_CATEGORY_LEN`](crate::validate::MAX_CATEGORY_LEN)
    /// (64) characters ([`Violation::Category`](crate::Violation::Category)). Compared as
    /// written (case-sensitive); no list of categories is imposed.
    pub category: Option<String>,
    /// Extension: the OAuth scopes an access token must carry to call this tool (full form:
    /// `requiredScopes`), each an RFC 6749 §3.3 `scope-token`
    /// (`1*( %x21 / %x23-5B / %x5D-7E )`: printable ASCII but space, `"` and `\`), none
    /// repeated ([`Violation::Scope`](crate::Violation::Scope)). Empty: the tool asks for no
    /// scope of its own. The model only carries them: the server that checks tokens enforces
    /// them.
    pub required_scopes: Vec<String>,
    /// Extension: the longest a call may run (full form: `timeoutMs`, whole milliseconds).
    /// Checked by [`Tool::validate`]: not zero, whole milliseconds
    /// ([`Violation::Timeout`](crate::Violation::Timeout)). [`Toolbox::call`](crate::Toolbox::call)
    /// enforces it when the call's peer gives a timer ([`CallPeer::sleep`](crate::peer::CallPeer::sleep));
    /// see the guide chapter [calling](crate::guide::calling) for who enforces what.
    pub timeout: Option<Duration>,
}

impl Tool {
    /// A tool with a name and an input schema, every other field empty.
    #[must_use]
    pub fn new(name: impl Into<String>, input_schema: ToolSchema) -> Self {
        Self {
            name: name.into(),
            title: None,
            description: None,
            input_schema,
            output_schema: None,
            annotations: None,
            icons: None,
            execution: None,
            meta: None,
            extra: Map::new(),
            namespace: None,
            version: None,
            tags: Vec::new(),
            backends: Vec::new(),
            category: None,
            required_scopes: Vec::new(),
            timeout: None,
        }
    }

    /// The name clients should show: `title`, else `annotations.title`, else `name` (MCP
    /// "display name precedence").
    #[must_use]
    pub fn display_name(&self) -> &str {
        self.title
            .as_deref()
            .or_else(|| self.annotations.as_ref().and_then(|a| a.title.as_deref()))
            .unwrap_or(&self.name)
    }
}

/// Behaviour hints of a tool (MCP 2025-11-25 `ToolAnnotations`).
///
/// Every hint is an `Option<bool>`: `None` (unset, the client applies the spec's default) and
/// `Some(false)` differ and round-trip. All are hints: clients must not trust them from
/// untrusted servers.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolAnnotations {
    /// A human-readable title (`title`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// The tool does not modify its environment (`readOnlyHint`; spec default `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read_only_hint: Option<bool>,
    /// The tool may perform destructive updates (`destructiveHint`; spec default `true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub destructive_hint: Option<bool>,
    /// Repeated calls with the same arguments have no further effect (`idempotentHint`; spec
    /// default `false`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub idempotent_hint: Option<bool>,
    /// The tool interacts with an open world of external entities (`openWorldHint`; spec
    /// default `true`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub open_world_hint: Option<bool>,
    /// Keys MCP does not define, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// An icon for user interfaces (MCP 2025-11-25 `Icon`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Icon {
    /// The icon's URI (`src`): `https:`, `http:` or `data:` (checked by
    /// [`Tool::validate`]; MCP: clients must reject other schemes such as `javascript:`).
    pub src: String,
    /// A MIME type override (`mimeType`), e.g. `image/png`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Sizes (`sizes`), each `WxH` (e.g. `48x48`) or `any`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sizes: Option<Vec<String>>,
    /// The background the icon is designed for (`theme`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub theme: Option<IconTheme>,
    /// Keys MCP does not define, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl Icon {
    /// An icon with only a `src`.
    #[must_use]
    pub fn new(src: impl Into<String>) -> Self {
        Self {
            src: src.into(),
            mime_type: None,
            sizes: None,
            theme: None,
            extra: Map::new(),
        }
    }
}

/// The background an [`Icon`] is designed for (MCP `Icon.theme`: `"light"` or `"dark"`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// `"light"`: for a light background.
    Light,
    /// `"dark"`: for a dark background.
    Dark,
}

/// Execution properties of a tool (MCP 2025-11-25 `ToolExecution`; gone from 2026-07-28, where
/// tasks are the `io.modelcontextprotocol/tasks` extension: [`Tool::to_mcp_json_for`] leaves it
/// out and reports it).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolExecution {
    /// Whether the tool supports task-augmented execution (`taskSupport`; spec default
    /// `forbidden`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub task_support: Option<TaskSupport>,
    /// Keys MCP does not define, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// Whether a tool supports task-augmented execution (MCP `ToolExecution.taskSupport`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskSupport {
    /// `"forbidden"`: clients must not invoke the tool as a task (the default).
    #[default]
    Forbidden,
    /// `"optional"`: clients may invoke it as a task or as a normal request.
    Optional,
    /// `"required"`: clients must invoke it as a task.
    Required,
}

impl std::str::FromStr for TaskSupport {
    type Err = crate::error::Error;

    fn from_str(text: &str) -> Result<Self, crate::error::Error> {
        match text {
            "forbidden" => Ok(Self::Forbidden),
            "optional" => Ok(Self::Optional),
            "required" => Ok(Self::Required),
            _ => Err(crate::error::Error::UnknownValue {
                field: "taskSupport",
                value: text.to_owned(),
                expected: "forbidden, optional, required",
            }),
        }
    }
}

impl std::str::FromStr for IconTheme {
    type Err = crate::error::Error;

    fn from_str(text: &str) -> Result<Self, crate::error::Error> {
        match text {
            "light" => Ok(Self::Light),
            "dark" => Ok(Self::Dark),
            _ => Err(crate::error::Error::UnknownValue {
                field: "theme",
                value: text.to_owned(),
                expected: "light, dark",
            }),
        }
    }
}

impl TaskSupport {
    /// The MCP spelling: `"forbidden"`, `"optional"` or `"required"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Forbidden => "forbidden",
            Self::Optional => "optional",
            Self::Required => "required",
        }
    }
}

impl IconTheme {
    /// The MCP spelling: `"light"` or `"dark"`.
    #[must_use]
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Light => "light",
            Self::Dark => "dark",
        }
    }
}

impl std::fmt::Display for TaskSupport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::fmt::Display for IconTheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
