//! Conversions between `toolmodel` and [`rmcp`](https://docs.rs/rmcp/3.11.0/rmcp/), the
//! official Rust MCP SDK: [`TryIntoRmcp`], [`TryFromRmcp`] and [`to_rmcp_lossy`].
//!
//! `toolmodel` mirrors the MCP 2025-11-25 specification rather than embedding
//! `rmcp::model::Tool` (see the `toolmodel` crate docs, "Why not `rmcp`'s types"). This module
//! converts between the two, field by field, and never changes anything silently: a conversion
//! that would drop information fails with [`Error::Lossy`], listing every value it would drop,
//! and [`to_rmcp_lossy`] converts anyway and returns the same list.
//!
//! The messages around tools (a `tools/list` page, a `CallToolResult`, a JSON-RPC error, a log
//! level, a protocol version) are converted by this module's `message` part, which the crate
//! uses inside ([`server`](crate::server)) and does not export.
//!
//! | MCP key | `toolmodel` | `rmcp` 3.11 | to `rmcp` | from `rmcp` |
//! |---|---|---|---|---|
//! | `name` | [`Tool::name`] `String` | `name` `Cow<'static, str>` | exact | exact |
//! | `title` | [`Tool::title`] | `title` | exact | exact |
//! | `description` | [`Tool::description`] | `description` `Option<Cow<'static, str>>` | exact | exact |
//! | `inputSchema` | [`Tool::input_schema`] [`ToolSchema`] | `input_schema` `Arc<JsonObject>` | exact¹ | exact¹ |
//! | `outputSchema` | [`Tool::output_schema`] | `output_schema` | exact¹ | exact¹ |
//! | `annotations` `title` and the four hints | [`ToolAnnotations`] | `ToolAnnotations` | exact, `None` stays `None` | exact |
//! | `annotations`, other keys | [`ToolAnnotations::extra`] | none | **dropped**: `/annotations/<key>` | none to read |
//! | `icons` (`src`, `mimeType`, `sizes`, `theme`) | [`Icon`] | `Icon` | exact; `Some(vec![])` stays | exact; a `theme` `rmcp` adds after `light`/`dark` is [`toolmodel::Error::UnknownValue`] |
//! | `icons`, other keys | [`Icon::extra`] | none | **dropped**: `/icons/<i>/<key>` | none to read |
//! | `execution` | [`Tool::execution`] | none | **dropped**: `/execution` | always `None` |
//! | `_meta` | [`Tool::meta`] | `meta` `Option<MetaObject>` | exact | exact |
//! | any other key | [`Tool::extra`] | none | **dropped**: `/<key>` | always empty |
//! | — | extensions² | none | left out, not an error² | empty |
//!
//! ¹ A schema is one `Arc` on each side, but of a `Value` here and of a map in `rmcp`, so a
//! conversion copies the schema object, except when the tool is converted by value and nothing
//! else shares the schema (from `rmcp`: nothing else shares the `Arc`).
//!
//! ² [`namespace`](Tool::namespace), [`version`](Tool::version), [`tags`](Tool::tags),
//! [`backends`](Tool::backends), [`category`](Tool::category),
//! [`required_scopes`](Tool::required_scopes) and [`timeout`](Tool::timeout) are not MCP:
//! [`Tool::to_mcp_json`] leaves them out too.
//!
//! Dropped values are named by their JSON Pointer in [`Tool::to_mcp_json`]. An
//! [`extra`](Tool::extra) key that is also an MCP key (one of [`toolmodel::wire::MCP_TOOL_KEYS`],
//! say `"execution"`) is written by neither form and is not listed; [`Tool::validate`] reports
//! it. `rmcp` has no field that `toolmodel` lacks.
//!
//! The guarantees, checked by the tests on every MCP tool of the project's real-world corpus
//! and on generated tools:
//!
//! - When the conversion to `rmcp` succeeds, the `rmcp` tool serializes to exactly
//!   [`Tool::to_mcp_json`]; [`to_rmcp_lossy`] gives that JSON minus the listed pointers.
//! - From `rmcp`, [`Tool::to_mcp_json`] of the result is exactly the `rmcp` tool's JSON, and
//!   converting back gives the `rmcp` tool again.
//!
//! `rmcp` 3.11 reads `execution` and unknown keys from JSON and forgets them, so a tool read by
//! `rmcp` has already lost them before any conversion.
//!
//! # Examples
//!
//! ```
//! use serde_json::json;
//! use toolmodel::Tool;
//! use toolmodel_rmcp::{Error, TryFromRmcp, TryIntoRmcp, to_rmcp_lossy};
//!
//! let tool = Tool::from_mcp_json(&json!({
//!     "name": "add",
//!     "inputSchema": {"type": "object"},
//!     "annotations": {"readOnlyHint": true},
//!     "execution": {"taskSupport": "optional"}
//! }))?;
//!
//! // The strict conversion refuses to drop `execution`...
//! let err = (&tool).try_into_rmcp().unwrap_err();
//! assert!(matches!(&err, Error::Lossy { lost, .. } if lost == &["/execution"]));
//!
//! // ...the lossy one converts and says what it dropped.
//! let (converted, lost) = to_rmcp_lossy(&tool);
//! assert_eq!(lost, ["/execution"]);
//! assert_eq!(converted.annotations.and_then(|a| a.read_only_hint), Some(true));
//!
//! // From rmcp, nothing is lost.
//! let plain = Tool::from_mcp_json(&json!({"name": "add", "inputSchema": {"type": "object"}}))?;
//! let back = Tool::try_from_rmcp(plain.try_into_rmcp()?)?;
//! assert_eq!(back.to_mcp_json(), json!({"name": "add", "inputSchema": {"type": "object"}}));
//! # Ok::<(), Error>(())
//! ```

pub(crate) mod message;

use std::{borrow::Cow, sync::Arc};

use rmcp::model;
use serde_json::{Map, Value};
use toolmodel::{
    Tool, ToolAnnotations, ToolSchema,
    model::{Icon, IconTheme},
    wire::MCP_TOOL_KEYS,
};

use crate::error::Error;

const TOOL: &str = "rmcp::model::Tool";
const ANNOTATIONS: &str = "rmcp::model::ToolAnnotations";
const ICON: &str = "rmcp::model::Icon";

/// A `toolmodel` value that converts to its `rmcp` counterpart without dropping anything:
/// [`Tool`](struct@Tool) (by value or by reference) to `rmcp::model::Tool`, [`ToolAnnotations`] to
/// `rmcp::model::ToolAnnotations`, [`Icon`] to `rmcp::model::Icon`, [`IconTheme`] to
/// `rmcp::model::IconTheme`. See the [module docs](crate::convert) for each field.
pub trait TryIntoRmcp {
    /// The `rmcp` type converted to.
    type Rmcp;

    /// Converts to `rmcp`, field by field.
    ///
    /// # Errors
    ///
    /// [`Error::Lossy`] listing the JSON Pointer of every value `rmcp` cannot hold (a tool's
    /// `execution`, unknown keys at any level), in the order [`Tool::to_mcp_json`] writes them;
    /// nothing is converted then. [`to_rmcp_lossy`] converts a tool anyway. An [`IconTheme`]
    /// always converts.
    fn try_into_rmcp(self) -> Result<Self::Rmcp, Error>;
}

/// A `toolmodel` value read from its `rmcp` counterpart, keeping every field `rmcp` has:
/// [`Tool`](struct@Tool), [`ToolAnnotations`], [`Icon`] and [`IconTheme`]. `execution` and the `extra` maps
/// are left empty (`rmcp` has neither), and so are the tool extensions.
pub trait TryFromRmcp<R>: Sized {
    /// Converts from `rmcp`, field by field.
    ///
    /// # Errors
    ///
    /// [`Error::Toolmodel`] with [`toolmodel::Error::UnknownValue`] (field `theme`, with
    /// `rmcp`'s spelling of the value) for an icon theme other than `light` or `dark`, which
    /// `rmcp`'s `#[non_exhaustive]` enum may add after 3.11. Annotations always convert.
    fn try_from_rmcp(value: R) -> Result<Self, Error>;
}

/// Converts a tool to an `rmcp` tool even when that drops information, and returns the JSON
/// Pointer (in [`Tool::to_mcp_json`]) of every value dropped: `/execution`, unknown keys
/// (`/<key>`, `/annotations/<key>`, `/icons/<i>/<key>`), in the order `to_mcp_json` writes
/// them. The list is empty exactly when [`TryIntoRmcp::try_into_rmcp`] succeeds. The extensions
/// ([`namespace`](Tool::namespace) and friends) are not MCP and are never listed. See the
/// [module docs](crate::convert) for each field.
#[must_use]
pub fn to_rmcp_lossy(tool: &Tool) -> (model::Tool, Vec<String>) {
    (tool_to_rmcp(mcp_clone(tool)), rmcp_losses(tool))
}

/// The JSON Pointers of what `rmcp::model::Tool` cannot hold, in `to_mcp_json` order.
fn rmcp_losses(tool: &Tool) -> Vec<String> {
    let mut lost = Vec::new();
    if let Some(annotations) = &tool.annotations {
        extra_losses("/annotations", &annotations.extra, &mut lost);
    }
    for (index, icon) in tool.icons.iter().flatten().enumerate() {
        extra_losses(&format!("/icons/{index}"), &icon.extra, &mut lost);
    }
    if tool.execution.is_some() {
        lost.push("/execution".to_owned());
    }
    let written = tool
        .extra
        .keys()
        .filter(|key| !MCP_TOOL_KEYS.contains(&key.as_str()));
    lost.extend(written.map(|key| format!("/{}", escape_token(key))));
    lost
}

/// Escapes one JSON Pointer reference token (RFC 6901: `~` as `~0`, `/` as `~1`).
fn escape_token(token: &str) -> String {
    token.replace('~', "~0").replace('/', "~1")
}

/// A copy of the fields `rmcp` holds (schemas are shared, not copied).
fn mcp_clone(tool: &Tool) -> Tool {
    let mut copy = Tool::new(tool.name.clone(), tool.input_schema.clone());
    copy.title.clone_from(&tool.title);
    copy.description.clone_from(&tool.description);
    copy.output_schema.clone_from(&tool.output_schema);
    copy.annotations.clone_from(&tool.annotations);
    copy.icons.clone_from(&tool.icons);
    copy.meta.clone_from(&tool.meta);
    copy
}

fn extra_losses(pointer: &str, extra: &Map<String, Value>, lost: &mut Vec<String>) {
    lost.extend(
        extra
            .keys()
            .map(|key| format!("{pointer}/{}", escape_token(key))),
    );
}

fn lossy(target: &'static str, lost: Vec<String>) -> Result<(), Error> {
    if lost.is_empty() {
        Ok(())
    } else {
        Err(Error::Lossy { target, lost })
    }
}

/// [`Error::Lossy`] listing `/<key>` for each key of an `extra` map `target` has no place for.
fn refuse_extra(target: &'static str, extra: &Map<String, Value>) -> Result<(), Error> {
    let mut lost = Vec::new();
    extra_losses("", extra, &mut lost);
    lossy(target, lost)
}

/// Moves the fields `rmcp` holds; the rest is dropped (the callers list it first).
fn tool_to_rmcp(tool: Tool) -> model::Tool {
    let mut out = model::Tool::new_with_raw(
        Cow::Owned(tool.name),
        tool.description.map(Cow::Owned),
        schema_to_rmcp(tool.input_schema),
    );
    out.title = tool.title;
    out.output_schema = tool.output_schema.map(schema_to_rmcp);
    out.annotations = tool.annotations.map(annotations_to_rmcp);
    out.icons = tool
        .icons
        .map(|icons| icons.into_iter().map(icon_to_rmcp).collect());
    out.meta = tool.meta.map(model::MetaObject);
    out
}

fn schema_to_rmcp(schema: ToolSchema) -> Arc<model::JsonObject> {
    match Value::from(schema) {
        Value::Object(object) => Arc::new(object),
        // A `ToolSchema` is built from objects only.
        _ => Arc::new(Map::new()),
    }
}

fn schema_from_rmcp(schema: Arc<model::JsonObject>) -> ToolSchema {
    ToolSchema::new(Arc::try_unwrap(schema).unwrap_or_else(|shared| Map::clone(&shared)))
}

fn annotations_to_rmcp(annotations: ToolAnnotations) -> model::ToolAnnotations {
    model::ToolAnnotations::from_raw(
        annotations.title,
        annotations.read_only_hint,
        annotations.destructive_hint,
        annotations.idempotent_hint,
        annotations.open_world_hint,
    )
}

fn icon_to_rmcp(icon: Icon) -> model::Icon {
    let mut out = model::Icon::new(icon.src);
    out.mime_type = icon.mime_type;
    out.sizes = icon.sizes;
    out.theme = icon.theme.map(theme_to_rmcp);
    out
}

fn theme_to_rmcp(theme: IconTheme) -> model::IconTheme {
    match theme {
        IconTheme::Light => model::IconTheme::Light,
        IconTheme::Dark => model::IconTheme::Dark,
    }
}

/// Copies the tool's fields that `rmcp` holds; as for [`Tool`](struct@Tool).
impl TryIntoRmcp for &Tool {
    type Rmcp = model::Tool;

    fn try_into_rmcp(self) -> Result<model::Tool, Error> {
        lossy(TOOL, rmcp_losses(self))?;
        Ok(tool_to_rmcp(mcp_clone(self)))
    }
}

/// Moves the tool's strings and (when not shared) its schemas.
impl TryIntoRmcp for Tool {
    type Rmcp = model::Tool;

    fn try_into_rmcp(self) -> Result<model::Tool, Error> {
        lossy(TOOL, rmcp_losses(&self))?;
        Ok(tool_to_rmcp(self))
    }
}

/// `title` and the four hints, exactly; a key in [`ToolAnnotations::extra`] is
/// [`Error::Lossy`] (`/<key>`).
impl TryIntoRmcp for ToolAnnotations {
    type Rmcp = model::ToolAnnotations;

    fn try_into_rmcp(self) -> Result<model::ToolAnnotations, Error> {
        refuse_extra(ANNOTATIONS, &self.extra)?;
        Ok(annotations_to_rmcp(self))
    }
}

/// `src`, `mimeType`, `sizes` and `theme`, exactly; a key in [`Icon::extra`] is
/// [`Error::Lossy`] (`/<key>`).
impl TryIntoRmcp for Icon {
    type Rmcp = model::Icon;

    fn try_into_rmcp(self) -> Result<model::Icon, Error> {
        refuse_extra(ICON, &self.extra)?;
        Ok(icon_to_rmcp(self))
    }
}

/// `Light` to `Light`, `Dark` to `Dark`; never fails.
impl TryIntoRmcp for IconTheme {
    type Rmcp = model::IconTheme;

    fn try_into_rmcp(self) -> Result<model::IconTheme, Error> {
        Ok(theme_to_rmcp(self))
    }
}

/// Every field `rmcp` has, exactly; `execution`, [`extra`](Tool::extra) and the extensions
/// are empty.
impl TryFromRmcp<model::Tool> for Tool {
    fn try_from_rmcp(tool: model::Tool) -> Result<Self, Error> {
        let mut out = Self::new(tool.name.into_owned(), schema_from_rmcp(tool.input_schema));
        out.title = tool.title;
        out.description = tool.description.map(Cow::into_owned);
        out.output_schema = tool.output_schema.map(schema_from_rmcp);
        out.annotations = tool.annotations.map(annotations_from_rmcp);
        out.icons = tool
            .icons
            .map(|icons| icons.into_iter().map(Icon::try_from_rmcp).collect())
            .transpose()?;
        out.meta = tool.meta.map(|meta| meta.0);
        Ok(out)
    }
}

fn annotations_from_rmcp(annotations: model::ToolAnnotations) -> ToolAnnotations {
    let mut out = ToolAnnotations::default();
    out.title = annotations.title;
    out.read_only_hint = annotations.read_only_hint;
    out.destructive_hint = annotations.destructive_hint;
    out.idempotent_hint = annotations.idempotent_hint;
    out.open_world_hint = annotations.open_world_hint;
    out
}

/// `title` and the four hints, exactly; `extra` is empty. Never fails.
impl TryFromRmcp<model::ToolAnnotations> for ToolAnnotations {
    fn try_from_rmcp(annotations: model::ToolAnnotations) -> Result<Self, Error> {
        Ok(annotations_from_rmcp(annotations))
    }
}

/// `src`, `mimeType`, `sizes` and `theme`, exactly; `extra` is empty.
impl TryFromRmcp<model::Icon> for Icon {
    fn try_from_rmcp(icon: model::Icon) -> Result<Self, Error> {
        let mut out = Self::new(icon.src);
        out.mime_type = icon.mime_type;
        out.sizes = icon.sizes;
        out.theme = icon.theme.map(IconTheme::try_from_rmcp).transpose()?;
        Ok(out)
    }
}

/// `light` and `dark`, by their MCP spelling.
impl TryFromRmcp<model::IconTheme> for IconTheme {
    fn try_from_rmcp(theme: model::IconTheme) -> Result<Self, Error> {
        let spelling = serde_json::to_value(theme)
            .ok()
            .and_then(|value| value.as_str().map(str::to_owned))
            .unwrap_or_else(|| format!("{theme:?}"));
        Ok(spelling.parse::<Self>()?)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use toolmodel::{
        Backend,
        model::{TaskSupport, ToolExecution},
    };

    /// Asserts that `err` is [`Error::Lossy`] with this target and these pointers.
    fn assert_lossy(err: Error, expected_target: &str, expected_lost: &[&str]) {
        match err {
            Error::Lossy { target, lost } => {
                assert_eq!(target, expected_target);
                assert_eq!(lost, expected_lost);
            }
            other => panic!("not Lossy: {other}"),
        }
    }

    fn object(value: Value) -> Map<String, Value> {
        match value {
            Value::Object(object) => object,
            other => panic!("not an object: {other}"),
        }
    }

    /// A tool with every MCP field set, and nothing `rmcp` cannot hold.
    fn full_tool() -> Tool {
        let mut tool = Tool::new(
            "create_issue",
            ToolSchema::new(object(json!({
                "type": "object",
                "properties": {"title": {"type": "string"}},
                "required": ["title"]
            }))),
        );
        tool.title = Some("Create issue".into());
        tool.description = Some("Opens an issue".into());
        tool.output_schema = Some(ToolSchema::new(object(
            json!({"type": "object", "properties": {"id": {"type": "integer"}}}),
        )));
        let mut annotations = ToolAnnotations::default();
        annotations.title = Some("Issue creator".into());
        annotations.read_only_hint = Some(false);
        annotations.destructive_hint = Some(true);
        annotations.open_world_hint = Some(false);
        tool.annotations = Some(annotations);
        let mut dark = Icon::new("https://example.com/dark.png");
        dark.mime_type = Some("image/png".into());
        dark.sizes = Some(vec!["48x48".into(), "any".into()]);
        dark.theme = Some(IconTheme::Dark);
        let mut light = Icon::new("data:image/svg+xml;base64,PHN2Zz4=");
        light.theme = Some(IconTheme::Light);
        light.sizes = Some(vec![]);
        tool.icons = Some(vec![dark, light, Icon::new("http://example.com/plain.ico")]);
        tool.meta = Some(object(json!({"ui": {"visibility": ["model"]}, "n": 1})));
        tool
    }

    #[test]
    fn every_field_goes_to_rmcp_exactly() {
        let tool = full_tool();
        let out = (&tool).try_into_rmcp().unwrap();
        assert_eq!(out.name, "create_issue");
        assert_eq!(out.title.as_deref(), Some("Create issue"));
        assert_eq!(out.description.as_deref(), Some("Opens an issue"));
        assert_eq!(&*out.input_schema, tool.input_schema.as_object());
        assert_eq!(
            out.output_schema.as_deref(),
            tool.output_schema.as_ref().map(ToolSchema::as_object)
        );
        let annotations = out.annotations.as_ref().unwrap();
        assert_eq!(annotations.title.as_deref(), Some("Issue creator"));
        assert_eq!(annotations.read_only_hint, Some(false));
        assert_eq!(annotations.destructive_hint, Some(true));
        assert_eq!(annotations.idempotent_hint, None);
        assert_eq!(annotations.open_world_hint, Some(false));
        let icons = out.icons.as_ref().unwrap();
        assert_eq!(icons.len(), 3);
        assert_eq!(icons[0].src, "https://example.com/dark.png");
        assert_eq!(icons[0].mime_type.as_deref(), Some("image/png"));
        assert_eq!(
            icons[0].sizes.as_deref(),
            Some(&["48x48".to_owned(), "any".to_owned()][..])
        );
        assert_eq!(icons[0].theme, Some(model::IconTheme::Dark));
        assert_eq!(icons[1].theme, Some(model::IconTheme::Light));
        assert_eq!(icons[1].sizes.as_deref(), Some(&[][..]));
        assert_eq!(icons[2].mime_type, None);
        assert_eq!(icons[2].sizes, None);
        assert_eq!(icons[2].theme, None);
        assert_eq!(out.meta.as_ref().map(|meta| &meta.0), tool.meta.as_ref());
        assert_eq!(serde_json::to_value(&out).unwrap(), tool.to_mcp_json());
    }

    #[test]
    fn every_field_comes_from_rmcp_exactly() {
        let mut source = model::Tool::new_with_raw(
            "search",
            Some("Finds things".into()),
            Arc::new(object(json!({"type": "object", "minProperties": 1}))),
        );
        source.title = Some("Search".into());
        source.output_schema = Some(Arc::new(object(json!({"type": "object"}))));
        source.annotations = Some(model::ToolAnnotations::from_raw(
            Some("Searcher".into()),
            Some(true),
            None,
            Some(true),
            Some(false),
        ));
        source.icons = Some(vec![
            model::Icon::new("https://example.com/a.svg")
                .with_mime_type("image/svg+xml")
                .with_sizes(vec!["any".into()])
                .with_theme(model::IconTheme::Light),
            model::Icon::new("https://example.com/b.png").with_theme(model::IconTheme::Dark),
        ]);
        source.meta = Some(model::MetaObject(object(json!({"k": [1, 2]}))));

        let tool = Tool::try_from_rmcp(source.clone()).unwrap();
        assert_eq!(tool.name, "search");
        assert_eq!(tool.title.as_deref(), Some("Search"));
        assert_eq!(tool.description.as_deref(), Some("Finds things"));
        assert_eq!(
            tool.input_schema.as_value(),
            &json!({"type": "object", "minProperties": 1})
        );
        assert_eq!(
            tool.output_schema.as_ref().map(ToolSchema::as_value),
            Some(&json!({"type": "object"}))
        );
        let annotations = tool.annotations.as_ref().unwrap();
        assert_eq!(annotations.title.as_deref(), Some("Searcher"));
        assert_eq!(annotations.read_only_hint, Some(true));
        assert_eq!(annotations.destructive_hint, None);
        assert_eq!(annotations.idempotent_hint, Some(true));
        assert_eq!(annotations.open_world_hint, Some(false));
        assert!(annotations.extra.is_empty());
        let icons = tool.icons.as_ref().unwrap();
        assert_eq!(icons[0].src, "https://example.com/a.svg");
        assert_eq!(icons[0].mime_type.as_deref(), Some("image/svg+xml"));
        assert_eq!(icons[0].sizes.as_deref(), Some(&["any".to_owned()][..]));
        assert_eq!(icons[0].theme, Some(IconTheme::Light));
        assert_eq!(icons[1].theme, Some(IconTheme::Dark));
        assert_eq!(
            (icons[1].mime_type.as_ref(), icons[1].sizes.as_ref()),
            (None, None)
        );
        assert_eq!(tool.meta, Some(object(json!({"k": [1, 2]}))));
        assert_eq!(tool.execution, None);
        assert!(tool.extra.is_empty());
        assert_eq!(
            (tool.namespace.as_ref(), tool.version.as_ref()),
            (None, None)
        );
        assert!(tool.tags.is_empty() && tool.backends.is_empty());

        assert_eq!(tool.to_mcp_json(), serde_json::to_value(&source).unwrap());
        assert_eq!(tool.try_into_rmcp().unwrap(), source);
    }

    #[test]
    fn absent_fields_stay_absent_both_ways() {
        let tool = Tool::new("bare", ToolSchema::empty_object());
        let out = (&tool).try_into_rmcp().unwrap();
        assert_eq!(out.title, None);
        assert_eq!(out.description, None);
        assert_eq!(out.output_schema, None);
        assert_eq!(out.annotations, None);
        assert_eq!(out.icons, None);
        assert_eq!(out.meta, None);
        assert_eq!(Tool::try_from_rmcp(out).unwrap(), tool);

        let mut empty = Tool::new("empty", ToolSchema::empty_object());
        empty.annotations = Some(ToolAnnotations::default());
        empty.icons = Some(Vec::new());
        empty.meta = Some(Map::new());
        let out = (&empty).try_into_rmcp().unwrap();
        assert_eq!(out.annotations, Some(model::ToolAnnotations::default()));
        assert_eq!(out.icons, Some(Vec::new()));
        assert_eq!(out.meta, Some(model::MetaObject::new()));
        assert_eq!(serde_json::to_value(&out).unwrap(), empty.to_mcp_json());
        assert_eq!(Tool::try_from_rmcp(out).unwrap(), empty);
    }

    #[test]
    fn round_trip_through_rmcp_keeps_every_mcp_field() {
        let tool = full_tool();
        let owned = tool.clone().try_into_rmcp().unwrap();
        assert_eq!(owned, (&tool).try_into_rmcp().unwrap());
        assert_eq!(Tool::try_from_rmcp(owned).unwrap(), tool);
    }

    #[test]
    fn execution_and_unknown_keys_are_refused_with_their_pointers() {
        let mut tool = full_tool();
        let mut execution = ToolExecution::default();
        execution.task_support = Some(TaskSupport::Optional);
        tool.execution = Some(execution);
        tool.extra = object(json!({"x/vendor": 1, "a~b": 2}));
        if let Some(annotations) = &mut tool.annotations {
            annotations.extra = object(json!({"audience": "ops"}));
        }
        if let Some(icons) = &mut tool.icons {
            icons[1].extra = object(json!({"alt": "logo"}));
        }
        let expected = [
            "/annotations/audience",
            "/icons/1/alt",
            "/execution",
            "/a~0b",
            "/x~1vendor",
        ];

        let err = (&tool).try_into_rmcp().unwrap_err();
        assert_eq!(
            err.to_string(),
            "converting to rmcp::model::Tool would drop /annotations/audience, /icons/1/alt, \
             /execution, /a~0b, /x~1vendor"
        );
        assert_lossy(err, "rmcp::model::Tool", &expected);
        assert_lossy(
            tool.clone().try_into_rmcp().unwrap_err(),
            "rmcp::model::Tool",
            &expected,
        );

        let (out, lost) = to_rmcp_lossy(&tool);
        assert_eq!(lost, expected);
        let mut expected_json = tool.to_mcp_json();
        for pointer in expected {
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            let key = key.replace("~1", "/").replace("~0", "~");
            let parent = expected_json.pointer_mut(parent).unwrap();
            assert!(parent.as_object_mut().unwrap().remove(&key).is_some());
        }
        assert_eq!(serde_json::to_value(&out).unwrap(), expected_json);
        assert_eq!(out, (&full_tool()).try_into_rmcp().unwrap());
    }

    #[test]
    fn an_empty_execution_is_still_reported() {
        let mut tool = Tool::new("t", ToolSchema::empty_object());
        tool.execution = Some(ToolExecution::default());
        assert_eq!(to_rmcp_lossy(&tool).1, ["/execution"]);
    }

    #[test]
    fn extensions_and_shadowed_keys_are_not_losses() {
        let mut tool = Tool::new("t", ToolSchema::empty_object());
        tool.namespace = Some("github".into());
        tool.version = Some("1.2.3".into());
        tool.tags = vec!["issues".into()];
        tool.backends = vec![Backend::local("handler")];
        // Neither `to_mcp_json` nor `rmcp` writes an `extra` key named like an MCP key.
        tool.extra = object(json!({"execution": {"taskSupport": "required"}}));
        let (out, lost) = to_rmcp_lossy(&tool);
        assert_eq!(lost, Vec::<String>::new());
        assert_eq!(serde_json::to_value(&out).unwrap(), tool.to_mcp_json());
        let back = Tool::try_from_rmcp((&tool).try_into_rmcp().unwrap()).unwrap();
        assert_eq!(back, Tool::new("t", ToolSchema::empty_object()));
    }

    #[test]
    fn annotations_and_icons_convert_alone() {
        let mut annotations = ToolAnnotations::default();
        annotations.title = Some("T".into());
        annotations.read_only_hint = Some(true);
        annotations.destructive_hint = Some(false);
        annotations.idempotent_hint = Some(true);
        let out = annotations.clone().try_into_rmcp().unwrap();
        assert_eq!(
            out,
            model::ToolAnnotations::with_title("T")
                .read_only(true)
                .destructive(false)
                .idempotent(true)
        );
        assert_eq!(ToolAnnotations::try_from_rmcp(out).unwrap(), annotations);

        let mut with_extra = annotations;
        with_extra.extra = object(json!({"x": true}));
        assert_lossy(
            with_extra.try_into_rmcp().unwrap_err(),
            "rmcp::model::ToolAnnotations",
            &["/x"],
        );

        let mut icon = Icon::new("https://example.com/i.png");
        icon.theme = Some(IconTheme::Dark);
        let out = icon.clone().try_into_rmcp().unwrap();
        assert_eq!(
            out,
            model::Icon::new("https://example.com/i.png").with_theme(model::IconTheme::Dark)
        );
        assert_eq!(Icon::try_from_rmcp(out).unwrap(), icon);
        icon.extra = object(json!({"alt": "x"}));
        assert_lossy(
            icon.try_into_rmcp().unwrap_err(),
            "rmcp::model::Icon",
            &["/alt"],
        );
    }

    #[test]
    fn themes_map_one_to_one() {
        for (ours, theirs) in [
            (IconTheme::Light, model::IconTheme::Light),
            (IconTheme::Dark, model::IconTheme::Dark),
        ] {
            assert_eq!(ours.try_into_rmcp().unwrap(), theirs);
            assert_eq!(IconTheme::try_from_rmcp(theirs).unwrap(), ours);
            assert_eq!(
                serde_json::to_value(ours).unwrap(),
                serde_json::to_value(theirs).unwrap()
            );
        }
    }

    /// Fails when an `rmcp` upgrade changes what its `Tool` holds, so that the conversions and
    /// the table in the module docs are updated with it.
    #[test]
    fn rmcp_forgets_exactly_the_documented_gaps() {
        let wire = json!({
            "name": "t",
            "title": "T",
            "description": "d",
            "inputSchema": {"type": "object"},
            "outputSchema": {"type": "object"},
            "annotations": {
                "title": "A", "readOnlyHint": true, "destructiveHint": false,
                "idempotentHint": true, "openWorldHint": false, "x-a": 1
            },
            "icons": [{
                "src": "https://example.com/i.png", "mimeType": "image/png",
                "sizes": ["48x48"], "theme": "light", "x-i": 2
            }],
            "execution": {"taskSupport": "required"},
            "_meta": {"m": 3},
            "x-t": 4
        });
        let read: model::Tool = serde_json::from_value(wire.clone()).unwrap();
        let mut expected = wire;
        let top = expected.as_object_mut().unwrap();
        top.remove("execution");
        top.remove("x-t");
        top["annotations"].as_object_mut().unwrap().remove("x-a");
        top["icons"][0].as_object_mut().unwrap().remove("x-i");
        assert_eq!(serde_json::to_value(&read).unwrap(), expected);
        assert_eq!(
            Tool::try_from_rmcp(read).unwrap(),
            Tool::from_mcp_json(&expected).unwrap()
        );
    }
}
