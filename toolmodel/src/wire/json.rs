//! The JSON forms of a [`Tool`](struct@crate::Tool): the MCP form and the full form.
//!
//! See [`Tool`](struct@crate::Tool) for the policy on unknown keys and `null`s.

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::{Map, Value};

use crate::error::Error;
use crate::model::backend::Backend;
use crate::model::schema::ToolSchema;
use crate::model::tool::{Icon, Tool, ToolAnnotations, ToolExecution};
use crate::wire::keys::{FULL_KEYS, MCP_KEYS};

/// The MCP keys of a tool, borrowed for writing.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct McpOut<'a> {
    name: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    title: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    description: Option<&'a str>,
    input_schema: &'a ToolSchema,
    #[serde(skip_serializing_if = "Option::is_none")]
    output_schema: Option<&'a ToolSchema>,
    #[serde(skip_serializing_if = "Option::is_none")]
    annotations: Option<&'a ToolAnnotations>,
    #[serde(skip_serializing_if = "Option::is_none")]
    icons: Option<&'a [Icon]>,
    #[serde(skip_serializing_if = "Option::is_none")]
    execution: Option<&'a ToolExecution>,
    #[serde(rename = "_meta", skip_serializing_if = "Option::is_none")]
    meta: Option<&'a Map<String, Value>>,
    #[serde(flatten)]
    extra: ExtraOut<'a>,
}

/// The unknown keys, minus any that would shadow a key written before them.
struct ExtraOut<'a> {
    extra: &'a Map<String, Value>,
    reserved: &'static [&'static str],
}

impl Serialize for ExtraOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_map(
            self.extra
                .iter()
                .filter(|(key, _)| !self.reserved.contains(&key.as_str())),
        )
    }
}

/// The full form: the MCP keys plus the extensions.
#[derive(Serialize)]
struct FullOut<'a> {
    #[serde(flatten)]
    mcp: McpOut<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    namespace: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<&'a str>,
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    tags: &'a [String],
    #[serde(skip_serializing_if = "<[_]>::is_empty")]
    backends: &'a [Backend],
}

#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct McpIn {
    name: String,
    #[serde(default)]
    title: Option<String>,
    #[serde(default)]
    description: Option<String>,
    input_schema: ToolSchema,
    #[serde(default)]
    output_schema: Option<ToolSchema>,
    #[serde(default)]
    annotations: Option<ToolAnnotations>,
    #[serde(default)]
    icons: Option<Vec<Icon>>,
    #[serde(default)]
    execution: Option<ToolExecution>,
    #[serde(rename = "_meta", default)]
    meta: Option<Map<String, Value>>,
    #[serde(flatten)]
    extra: Map<String, Value>,
}

#[derive(Deserialize)]
struct FullIn {
    #[serde(flatten)]
    mcp: McpIn,
    #[serde(default)]
    namespace: Option<String>,
    #[serde(default)]
    version: Option<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    tags: Vec<String>,
    #[serde(default, deserialize_with = "null_as_default")]
    backends: Vec<Backend>,
}

fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

impl From<McpIn> for Tool {
    fn from(input: McpIn) -> Self {
        let mut tool = Tool::new(input.name, input.input_schema);
        tool.title = input.title;
        tool.description = input.description;
        tool.output_schema = input.output_schema;
        tool.annotations = input.annotations;
        tool.icons = input.icons;
        tool.execution = input.execution;
        tool.meta = input.meta;
        tool.extra = input.extra;
        tool
    }
}

impl From<FullIn> for Tool {
    fn from(input: FullIn) -> Self {
        let mut tool = Tool::from(input.mcp);
        tool.namespace = input.namespace;
        tool.version = input.version;
        tool.tags = input.tags;
        tool.backends = input.backends;
        tool
    }
}

/// A serde view of a tool in the MCP form; see [`Tool::mcp`].
#[derive(Clone, Copy, Debug)]
pub struct McpTool<'a>(&'a Tool);

impl Serialize for McpTool<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.mcp_out(MCP_KEYS).serialize(serializer)
    }
}

fn to_value<T: Serialize>(value: &T) -> Value {
    // Every type written here has string keys and no fallible `Serialize`, so this cannot fail;
    // should it ever, an empty object is returned rather than a panic.
    serde_json::to_value(value).unwrap_or_else(|_| Value::Object(Map::new()))
}

fn from_value<T: for<'de> Deserialize<'de>>(value: &Value) -> Result<T, Error> {
    // Reading a `Value` recurses once per level; text is limited by `serde_json` itself.
    let limit = crate::validate::limits::ValidationLimits::DEFAULT.max_depth;
    if let Some(path) = crate::validate::limits::deeper_than(value, limit) {
        return Err(crate::json::json_error(
            path,
            format!("nested more than {limit} levels"),
        ));
    }
    crate::json::from_value(value)
}

/// Reads `T` from JSON text, refusing repeated keys ([`unique_keys`](crate::wire::unique_keys));
/// `reader` gives a fresh reader of the text for each of the two passes.
fn from_text<'de, T, R>(reader: impl Fn() -> R) -> Result<T, Error>
where
    T: Deserialize<'de>,
    R: serde_json::de::Read<'de>,
{
    crate::wire::unique_keys::check(serde_json::Deserializer::new(reader()))?;
    crate::json::deserialize_text(serde_json::Deserializer::new(reader()))
}

fn from_str<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T, Error> {
    from_text(|| serde_json::de::StrRead::new(text))
}

pub(crate) fn from_slice<T: for<'de> Deserialize<'de>>(bytes: &[u8]) -> Result<T, Error> {
    from_text(|| serde_json::de::SliceRead::new(bytes))
}

impl Tool {
    fn mcp_out(&self, reserved: &'static [&'static str]) -> McpOut<'_> {
        McpOut {
            name: &self.name,
            title: self.title.as_deref(),
            description: self.description.as_deref(),
            input_schema: &self.input_schema,
            output_schema: self.output_schema.as_ref(),
            annotations: self.annotations.as_ref(),
            icons: self.icons.as_deref(),
            execution: self.execution.as_ref(),
            meta: self.meta.as_ref(),
            extra: ExtraOut {
                extra: &self.extra,
                reserved,
            },
        }
    }

    fn full_out(&self) -> FullOut<'_> {
        FullOut {
            mcp: self.mcp_out(FULL_KEYS),
            namespace: self.namespace.as_deref(),
            version: self.version.as_deref(),
            tags: &self.tags,
            backends: &self.backends,
        }
    }

    /// A serde view of this tool in the MCP form (extensions left out), for embedding tools in
    /// your own `tools/list` result types without building a [`Value`].
    #[must_use]
    pub fn mcp(&self) -> McpTool<'_> {
        McpTool(self)
    }

    /// The tool as MCP `Tool` JSON (MCP 2025-11-25, `tools/list`): the MCP keys, then the
    /// unknown keys from [`extra`](Self::extra); the extensions are left out. An `extra` key that
    /// is also an MCP key is not written (the field wins; [`Tool::validate`] reports it).
    #[must_use]
    pub fn to_mcp_json(&self) -> Value {
        to_value(&self.mcp())
    }

    /// Reads a tool from MCP `Tool` JSON.
    ///
    /// Unknown keys go to [`extra`](Self::extra) (the extension keys too: MCP does not define
    /// them); `null` optional fields are read as absent. Nothing else is checked here: call
    /// [`Tool::validate`].
    ///
    /// # Errors
    ///
    /// [`Error::Json`] with the JSON Pointer of the offending value when a key has the wrong type
    /// (`inputSchema` not an object, `name` missing or not a string, an icon `theme` outside
    /// `light`/`dark`, ...), or when a value nests more than
    /// [`ValidationLimits::max_depth`](crate::validate::ValidationLimits::max_depth) (128) levels
    /// (checked first, without recursion: reading a `Value` recurses once per level).
    pub fn from_mcp_json(value: &Value) -> Result<Self, Error> {
        from_value::<McpIn>(value).map(Self::from)
    }

    /// Reads a tool from MCP `Tool` JSON text; like [`Tool::from_mcp_json`].
    ///
    /// The text may not repeat a key within an object, anywhere: JSON leaves the meaning of a
    /// repeated key to each parser (`serde_json` keeps the last value, others the first), so
    /// `{"type": "object", "type": "string"}` could mean one thing here and another to whoever
    /// else reads the same text.
    ///
    /// # Errors
    ///
    /// [`Error::Json`] with the line and column (1-based) and the JSON Pointer of the error:
    /// malformed JSON, trailing characters, a number beyond the range of `f64` (`1e400`), a
    /// document nested 128 levels or more, a repeated key (naming it; the pointer is its
    /// object's), or a key of the wrong type.
    ///
    /// # Examples
    ///
    /// ```
    /// use toolmodel::{Error, Tool};
    ///
    /// let text = r#"{"name": "t", "inputSchema": {"type": "object",
    ///                "type": "string"}}"#;
    /// let Err(Error::Json { path, line, message, .. }) = Tool::from_mcp_str(text) else {
    ///     panic!("a repeated key is an error")
    /// };
    /// assert_eq!((path.as_str(), line), ("/inputSchema", 2));
    /// assert!(message.starts_with("duplicate key \"type\""));
    /// ```
    pub fn from_mcp_str(text: &str) -> Result<Self, Error> {
        from_str::<McpIn>(text).map(Self::from)
    }

    /// Reads a tool from MCP `Tool` JSON given as bytes (as read from a socket or a file);
    /// like [`Tool::from_mcp_str`], without converting to `&str` first.
    ///
    /// # Errors
    ///
    /// As [`Tool::from_mcp_str`], and [`Error::Json`] with the line and column for bytes that
    /// are not UTF-8.
    pub fn from_mcp_slice(bytes: &[u8]) -> Result<Self, Error> {
        from_slice::<McpIn>(bytes).map(Self::from)
    }

    /// The tool as full JSON: the MCP form plus `namespace`, `version`, `tags` and `backends`
    /// (each left out when empty). Lossless: `Tool::from_json(&t.to_json()) == Ok(t)`.
    #[must_use]
    pub fn to_json(&self) -> Value {
        to_value(&self.full_out())
    }

    /// Reads a tool from full JSON (see [`Tool::to_json`]).
    ///
    /// # Errors
    ///
    /// [`Error::Json`] with the JSON Pointer of the offending value, as for
    /// [`Tool::from_mcp_json`] (a value nested too deep included), and for a backend of
    /// unknown kind or without its body.
    pub fn from_json(value: &Value) -> Result<Self, Error> {
        from_value::<FullIn>(value).map(Self::from)
    }

    /// Reads a tool from full JSON text; like [`Tool::from_json`].
    ///
    /// # Errors
    ///
    /// [`Error::Json`] with line, column and JSON Pointer, as for [`Tool::from_mcp_str`]
    /// (repeated keys included).
    pub fn from_json_str(text: &str) -> Result<Self, Error> {
        from_str::<FullIn>(text).map(Self::from)
    }

    /// Reads a tool from full JSON given as bytes; like [`Tool::from_json_str`].
    ///
    /// # Errors
    ///
    /// As [`Tool::from_json_str`], and [`Error::Json`] with the line and column for bytes that
    /// are not UTF-8.
    pub fn from_json_slice(bytes: &[u8]) -> Result<Self, Error> {
        from_slice::<FullIn>(bytes).map(Self::from)
    }
}

impl Serialize for Tool {
    /// Writes the full form (see [`Tool::to_json`]); use [`Tool::mcp`] for the MCP form.
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.full_out().serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Tool {
    /// Reads the full form (see [`Tool::from_json`]).
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        FullIn::deserialize(deserializer).map(Self::from)
    }
}
