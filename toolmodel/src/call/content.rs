//! Content blocks: what a tool result's `content` holds (MCP 2025-11-25, `ContentBlock`:
//! [`TextContent`], [`ImageContent`], [`AudioContent`], [`ResourceLink`],
//! [`EmbeddedResource`] with its [`ResourceContents`]), with their [`Annotations`] and the
//! [`Role`]s those name. [`ContentBlock`] is at the crate root too.
//!
//! Reading follows the [`Tool`](struct@crate::Tool) policy: unknown keys are kept in `extra`
//! and written back, `null` optional fields are read as absent. Reading checks what the schema
//! states and a client would trip over: base64 `data` and `blob` (RFC 4648, with padding), a
//! `priority` from 0 to 1, and a known `type`.
//!
//! ```
//! use serde_json::json;
//! use toolmodel::{
//!     CallToolResult,
//!     content::{ContentBlock, EmbeddedResource, ImageContent, TextResourceContents},
//! };
//!
//! let result = CallToolResult::from_content([
//!     ContentBlock::text("the chart and its data"),
//!     ImageContent::from_bytes(&[0x89, b'P', b'N', b'G'], "image/png").into(),
//!     EmbeddedResource::new(TextResourceContents::new("file:///data.csv", "a,b\n1,2")).into(),
//! ]);
//! let json = serde_json::to_value(&result)?;
//! assert_eq!(json["content"][1], json!({"type": "image", "data": "iVBORw==", "mimeType": "image/png"}));
//! # Ok::<(), serde_json::Error>(())
//! ```

use serde::{Deserialize, Deserializer, Serialize, de::Error as _};
use serde_json::{Map, Value};

use crate::model::tool::Icon;

/// One item of a result's `content` (MCP 2025-11-25, `ContentBlock`), tagged by `type`.
///
/// ```
/// use serde_json::json;
/// use toolmodel::content::{ContentBlock, TextContent};
///
/// let block: ContentBlock = serde_json::from_value(json!({"type": "text", "text": "hi"}))?;
/// assert_eq!(block, ContentBlock::Text(TextContent::new("hi")));
/// assert_eq!(serde_json::to_value(&block)?, json!({"type": "text", "text": "hi"}));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type")]
#[non_exhaustive]
pub enum ContentBlock {
    /// `"type": "text"`.
    #[serde(rename = "text")]
    Text(TextContent),
    /// `"type": "image"`.
    #[serde(rename = "image")]
    Image(ImageContent),
    /// `"type": "audio"`.
    #[serde(rename = "audio")]
    Audio(AudioContent),
    /// `"type": "resource_link"`.
    #[serde(rename = "resource_link")]
    ResourceLink(ResourceLink),
    /// `"type": "resource"`.
    #[serde(rename = "resource")]
    Resource(EmbeddedResource),
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        Self::Text(TextContent::new(text))
    }
}

impl From<TextContent> for ContentBlock {
    fn from(block: TextContent) -> Self {
        Self::Text(block)
    }
}

impl From<ImageContent> for ContentBlock {
    fn from(block: ImageContent) -> Self {
        Self::Image(block)
    }
}

impl From<AudioContent> for ContentBlock {
    fn from(block: AudioContent) -> Self {
        Self::Audio(block)
    }
}

impl From<ResourceLink> for ContentBlock {
    fn from(block: ResourceLink) -> Self {
        Self::ResourceLink(block)
    }
}

impl From<EmbeddedResource> for ContentBlock {
    fn from(block: EmbeddedResource) -> Self {
        Self::Resource(block)
    }
}

/// Text for the model or the user (MCP 2025-11-25, `TextContent`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct TextContent {
    /// The text.
    pub text: String,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Keys MCP does not define, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TextContent {
    /// A text block with no annotations.
    pub fn new(text: impl Into<String>) -> Self {
        Self {
            text: text.into(),
            ..Self::default()
        }
    }
}

/// Binary media carried inline: the fields an image and an audio block share.
macro_rules! media_content {
    ($(#[$doc:meta])* $name:ident, $what:literal) => {
        $(#[$doc])*
        #[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
        #[serde(rename_all = "camelCase")]
        #[non_exhaustive]
        pub struct $name {
            #[doc = concat!("The ", $what, ", base64-encoded (RFC 4648, padded); checked when read.")]
            #[serde(deserialize_with = "base64_text")]
            pub data: String,
            #[doc = concat!("The ", $what, "'s MIME type, e.g. `image/png` or `audio/wav`.")]
            pub mime_type: String,
            /// Hints for the client.
            #[serde(default, skip_serializing_if = "Option::is_none")]
            pub annotations: Option<Annotations>,
            /// `_meta`.
            #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
            pub meta: Option<Map<String, Value>>,
            /// Keys MCP does not define, kept as received.
            #[serde(flatten)]
            pub extra: Map<String, Value>,
        }

        impl $name {
            #[doc = concat!("The ", $what, " from its bytes, base64-encoded here.")]
            pub fn from_bytes(bytes: &[u8], mime_type: impl Into<String>) -> Self {
                Self {
                    data: encode_base64(bytes),
                    mime_type: mime_type.into(),
                    ..Self::default()
                }
            }

            #[doc = concat!("The ", $what, "'s bytes, decoded from [`data`](Self::data).")]
            ///
            /// # Errors
            ///
            /// [`Error::Json`](crate::Error::Json) at `/data` when `data` is not base64 (only
            /// possible for a value changed after reading).
            pub fn bytes(&self) -> Result<Vec<u8>, crate::error::Error> {
                decode_base64(&self.data, "/data")
            }
        }
    };
}

media_content!(
    /// An image (MCP 2025-11-25, `ImageContent`).
    ImageContent,
    "image"
);
media_content!(
    /// Audio (MCP 2025-11-25, `AudioContent`).
    AudioContent,
    "audio"
);

/// A link to a resource the server can read (MCP 2025-11-25, `ResourceLink`: a `Resource` with
/// `"type": "resource_link"`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResourceLink {
    /// The resource's URI.
    pub uri: String,
    /// Its programmatic name.
    pub name: String,
    /// Its display name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    /// What it represents, for the model.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Its MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// Its size in bytes (before any encoding), if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// Icons for a user interface.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub icons: Option<Vec<Icon>>,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Keys MCP does not define, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl ResourceLink {
    /// A link with a URI and a name.
    pub fn new(uri: impl Into<String>, name: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            name: name.into(),
            ..Self::default()
        }
    }
}

/// A resource's contents embedded in the result (MCP 2025-11-25, `EmbeddedResource`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct EmbeddedResource {
    /// The contents: text or a base64 blob.
    pub resource: ResourceContents,
    /// Hints for the client.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub annotations: Option<Annotations>,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Keys MCP does not define, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl EmbeddedResource {
    /// An embedded resource with no annotations.
    pub fn new(resource: impl Into<ResourceContents>) -> Self {
        Self {
            resource: resource.into(),
            annotations: None,
            meta: None,
            extra: Map::new(),
        }
    }
}

/// A resource's contents (MCP 2025-11-25, `TextResourceContents` or `BlobResourceContents`),
/// told apart by which of `text` and `blob` is present.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum ResourceContents {
    /// Text contents.
    Text(TextResourceContents),
    /// Binary contents, base64-encoded.
    Blob(BlobResourceContents),
}

impl<'de> Deserialize<'de> for ResourceContents {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let object = Map::<String, Value>::deserialize(deserializer)?;
        let has = |key: &str| object.get(key).is_some_and(|value| !value.is_null());
        let (text, blob) = (has("text"), has("blob"));
        let value = Value::Object(object);
        match (text, blob) {
            (true, false) => TextResourceContents::deserialize(value)
                .map(Self::Text)
                .map_err(D::Error::custom),
            (false, true) => BlobResourceContents::deserialize(value)
                .map(Self::Blob)
                .map_err(D::Error::custom),
            (true, true) => Err(D::Error::custom(
                "resource contents have both `text` and `blob`; exactly one is allowed",
            )),
            (false, false) => Err(D::Error::custom(
                "resource contents need `text` (TextResourceContents) or `blob` (BlobResourceContents)",
            )),
        }
    }
}

impl From<TextResourceContents> for ResourceContents {
    fn from(contents: TextResourceContents) -> Self {
        Self::Text(contents)
    }
}

impl From<BlobResourceContents> for ResourceContents {
    fn from(contents: BlobResourceContents) -> Self {
        Self::Blob(contents)
    }
}

/// A resource as text (MCP 2025-11-25, `TextResourceContents`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct TextResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// Its MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The text.
    pub text: String,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Keys MCP does not define, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl TextResourceContents {
    /// Text contents of a URI.
    pub fn new(uri: impl Into<String>, text: impl Into<String>) -> Self {
        Self {
            uri: uri.into(),
            text: text.into(),
            ..Self::default()
        }
    }
}

/// A resource as bytes (MCP 2025-11-25, `BlobResourceContents`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct BlobResourceContents {
    /// The resource's URI.
    pub uri: String,
    /// Its MIME type, if known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mime_type: Option<String>,
    /// The bytes, base64-encoded (RFC 4648, padded); checked when read.
    #[serde(deserialize_with = "base64_text")]
    pub blob: String,
    /// `_meta`.
    #[serde(rename = "_meta", default, skip_serializing_if = "Option::is_none")]
    pub meta: Option<Map<String, Value>>,
    /// Keys MCP does not define, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

impl BlobResourceContents {
    /// Binary contents of a URI, base64-encoded here.
    pub fn from_bytes(uri: impl Into<String>, bytes: &[u8]) -> Self {
        Self {
            uri: uri.into(),
            blob: encode_base64(bytes),
            ..Self::default()
        }
    }
}

/// Hints for the client about a content block (MCP 2025-11-25, `Annotations`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Annotations {
    /// Who the content is for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub audience: Option<Vec<Role>>,
    /// How important it is: 0 (optional) to 1 (required); checked when read.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "priority"
    )]
    pub priority: Option<f64>,
    /// When the content was last modified, as an ISO 8601 string (e.g.
    /// `"2025-01-12T15:00:58Z"`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_modified: Option<String>,
    /// Keys MCP does not define, kept as received.
    #[serde(flatten)]
    pub extra: Map<String, Value>,
}

/// A party of the conversation (MCP 2025-11-25, `Role`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// `"user"`.
    User,
    /// `"assistant"`.
    Assistant,
}

fn encode_base64(bytes: &[u8]) -> String {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

fn decode_base64(text: &str, pointer: &str) -> Result<Vec<u8>, crate::error::Error> {
    use base64::Engine as _;
    base64::engine::general_purpose::STANDARD
        .decode(text)
        .map_err(|err| crate::json::json_error(pointer, format!("not base64: {err}")))
}

/// Reads a base64 string, refusing anything RFC 4648's standard alphabet with padding does not
/// decode (the error names the offset).
fn base64_text<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    use base64::Engine as _;
    let text = String::deserialize(deserializer)?;
    base64::engine::general_purpose::STANDARD
        .decode(&text)
        .map_err(|err| D::Error::custom(format!("not base64: {err}")))?;
    Ok(text)
}

/// Reads a `priority`: `null` as absent, a number from 0 to 1.
fn priority<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<f64>, D::Error> {
    match Option::<f64>::deserialize(deserializer)? {
        Some(value) if !(0.0..=1.0).contains(&value) => Err(D::Error::custom(format!(
            "priority {value} is outside 0 to 1"
        ))),
        other => Ok(other),
    }
}
