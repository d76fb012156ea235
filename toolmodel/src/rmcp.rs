//! Conversions to and from [`rmcp`](https://docs.rs/rmcp/3.9.0/rmcp/), the official Rust MCP
//! SDK (feature `rmcp`).
//!
//! `toolmodel` mirrors the MCP 2025-11-25 specification rather than embedding
//! `rmcp::model::Tool` (see the crate docs, "Why not `rmcp`'s types"). This module converts
//! between the two, field by field, and never changes anything silently: a conversion that would
//! drop information fails with [`Error::Lossy`], listing every value it would drop, and
//! [`Tool::to_rmcp_lossy`] converts anyway and returns the same list.
//!
//! | MCP key | `toolmodel` | `rmcp` 3.9 | to `rmcp` | from `rmcp` |
//! |---|---|---|---|---|
//! | `name` | [`Tool::name`] `String` | `name` `Cow<'static, str>` | exact | exact |
//! | `title` | [`Tool::title`] | `title` | exact | exact |
//! | `description` | [`Tool::description`] | `description` `Option<Cow<'static, str>>` | exact | exact |
//! | `inputSchema` | [`Tool::input_schema`] [`ToolSchema`] | `input_schema` `Arc<JsonObject>` | exact¹ | exact¹ |
//! | `outputSchema` | [`Tool::output_schema`] | `output_schema` | exact¹ | exact¹ |
//! | `annotations` `title` and the four hints | [`ToolAnnotations`] | `ToolAnnotations` | exact, `None` stays `None` | exact |
//! | `annotations`, other keys | [`ToolAnnotations::extra`] | none | **dropped**: `/annotations/<key>` | none to read |
//! | `icons` (`src`, `mimeType`, `sizes`, `theme`) | [`Icon`] | `Icon` | exact; `Some(vec![])` stays | exact; a `theme` `rmcp` adds after `light`/`dark` is [`Error::UnknownValue`] |
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
//! ² [`namespace`](Tool::namespace), [`version`](Tool::version), [`tags`](Tool::tags) and
//! [`backends`](Tool::backends) are not MCP: [`Tool::to_mcp_json`] leaves them out too.
//!
//! Dropped values are named by their JSON Pointer in [`Tool::to_mcp_json`]. An
//! [`extra`](Tool::extra) key that is also an MCP key (say `"execution"`) is written by neither
//! form and is not listed; [`Tool::validate`] reports it. `rmcp` has no field that `toolmodel`
//! lacks.
//!
//! The guarantees, checked by the tests on every MCP tool of the project's real-world corpus
//! and on generated tools:
//!
//! - When the conversion to `rmcp` succeeds, the `rmcp` tool serializes to exactly
//!   [`Tool::to_mcp_json`]; [`Tool::to_rmcp_lossy`] gives that JSON minus the listed pointers.
//! - From `rmcp`, [`Tool::to_mcp_json`] of the result is exactly the `rmcp` tool's JSON, and
//!   converting back gives the `rmcp` tool again.
//!
//! `rmcp` 3.9 reads `execution` and unknown keys from JSON and forgets them, so a tool read by
//! `rmcp` has already lost them before any conversion.
//!
//! # Examples
//!
//! ```
//! use serde_json::json;
//! use toolmodel::{Error, Tool};
//!
//! let tool = Tool::from_mcp_json(&json!({
//!     "name": "add",
//!     "inputSchema": {"type": "object"},
//!     "annotations": {"readOnlyHint": true},
//!     "execution": {"taskSupport": "optional"}
//! }))?;
//!
//! // The strict conversion refuses to drop `execution`...
//! let err = rmcp::model::Tool::try_from(&tool).unwrap_err();
//! assert!(matches!(&err, Error::Lossy { lost, .. } if lost == &["/execution"]));
//!
//! // ...the lossy one converts and says what it dropped.
//! let (converted, lost) = tool.to_rmcp_lossy();
//! assert_eq!(lost, ["/execution"]);
//! assert_eq!(converted.annotations.and_then(|a| a.read_only_hint), Some(true));
//!
//! // From rmcp, nothing is lost.
//! let back = Tool::try_from(rmcp::model::Tool::try_from(&Tool::from_mcp_json(&json!({
//!     "name": "add", "inputSchema": {"type": "object"}
//! }))?)?)?;
//! assert_eq!(back.to_mcp_json(), json!({"name": "add", "inputSchema": {"type": "object"}}));
//! # Ok::<(), toolmodel::Error>(())
//! ```

use std::{borrow::Cow, sync::Arc};

use ::rmcp::model;
use serde_json::{Map, Value};

use crate::{
    Error, Icon, IconTheme, Tool, ToolAnnotations, ToolSchema, pointer::escape_pointer_token,
    wire::keys::MCP_KEYS,
};

const TOOL: &str = "rmcp::model::Tool";
const ANNOTATIONS: &str = "rmcp::model::ToolAnnotations";
const ICON: &str = "rmcp::model::Icon";

impl Tool {
    /// Converts this tool to an `rmcp` tool even when that drops information, and returns the
    /// JSON Pointer (in [`Tool::to_mcp_json`]) of every value dropped: `/execution`, unknown keys
    /// (`/<key>`, `/annotations/<key>`, `/icons/<i>/<key>`), in the order `to_mcp_json` writes
    /// them. The list is empty exactly when `rmcp::model::Tool::try_from(&tool)` succeeds. The
    /// extensions ([`namespace`](Self::namespace) and friends) are not MCP and are never listed.
    /// See the [module docs](crate::rmcp) for each field.
    #[cfg_attr(docsrs, doc(cfg(feature = "rmcp")))]
    #[must_use]
    pub fn to_rmcp_lossy(&self) -> (model::Tool, Vec<String>) {
        (tool_to_rmcp(self.mcp_clone()), self.rmcp_losses())
    }

    /// The JSON Pointers of what `rmcp::model::Tool` cannot hold, in `to_mcp_json` order.
    fn rmcp_losses(&self) -> Vec<String> {
        let mut lost = Vec::new();
        if let Some(annotations) = &self.annotations {
            extra_losses("/annotations", &annotations.extra, &mut lost);
        }
        for (index, icon) in self.icons.iter().flatten().enumerate() {
            extra_losses(&format!("/icons/{index}"), &icon.extra, &mut lost);
        }
        if self.execution.is_some() {
            lost.push("/execution".to_owned());
        }
        let written = self
            .extra
            .keys()
            .filter(|key| !MCP_KEYS.contains(&key.as_str()));
        lost.extend(written.map(|key| format!("/{}", escape_pointer_token(key))));
        lost
    }

    /// A copy of the fields `rmcp` holds (schemas are shared, not copied).
    fn mcp_clone(&self) -> Self {
        let mut copy = Self::new(self.name.clone(), self.input_schema.clone());
        copy.title.clone_from(&self.title);
        copy.description.clone_from(&self.description);
        copy.output_schema.clone_from(&self.output_schema);
        copy.annotations.clone_from(&self.annotations);
        copy.icons.clone_from(&self.icons);
        copy.meta.clone_from(&self.meta);
        copy
    }
}

fn extra_losses(pointer: &str, extra: &Map<String, Value>, lost: &mut Vec<String>) {
    lost.extend(
        extra
            .keys()
            .map(|key| format!("{pointer}/{}", escape_pointer_token(key))),
    );
}

fn lossy(target: &'static str, lost: Vec<String>) -> Result<(), Error> {
    if lost.is_empty() {
        Ok(())
    } else {
        Err(Error::Lossy { target, lost })
    }
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
    out.theme = icon.theme.map(model::IconTheme::from);
    out
}

/// Converts a tool to `rmcp`'s; see the [module docs](crate::rmcp) for each field.
///
/// # Errors
///
/// [`Error::Lossy`] listing the JSON Pointer of every value `rmcp` cannot hold (`execution`,
/// unknown keys at any level); [`Tool::to_rmcp_lossy`] converts anyway.
#[cfg_attr(docsrs, doc(cfg(feature = "rmcp")))]
impl TryFrom<&Tool> for model::Tool {
    type Error = Error;

    fn try_from(tool: &Tool) -> Result<Self, Error> {
        lossy(TOOL, tool.rmcp_losses())?;
        Ok(tool_to_rmcp(tool.mcp_clone()))
    }
}

/// Converts a tool to `rmcp`'s, moving its strings and (when not shared) its schemas; as for
/// `&Tool`.
///
/// # Errors
///
/// [`Error::Lossy`], as for `TryFrom<&Tool>`.
#[cfg_attr(docsrs, doc(cfg(feature = "rmcp")))]
impl TryFrom<Tool> for model::Tool {
    type Error = Error;

    fn try_from(tool: Tool) -> Result<Self, Error> {
        lossy(TOOL, tool.rmcp_losses())?;
        Ok(tool_to_rmcp(tool))
    }
}

/// Converts an `rmcp` tool; every field `rmcp` has is kept exactly. `execution` and
/// [`extra`](Tool::extra) are left empty (`rmcp` has neither), and so are the extensions.
///
/// # Errors
///
/// [`Error::UnknownValue`] for an icon `theme` other than `light` or `dark` (possible only if a
/// later `rmcp` adds one).
#[cfg_attr(docsrs, doc(cfg(feature = "rmcp")))]
impl TryFrom<model::Tool> for Tool {
    type Error = Error;

    fn try_from(tool: model::Tool) -> Result<Self, Error> {
        let mut out = Self::new(tool.name.into_owned(), schema_from_rmcp(tool.input_schema));
        out.title = tool.title;
        out.description = tool.description.map(Cow::into_owned);
        out.output_schema = tool.output_schema.map(schema_from_rmcp);
        out.annotations = tool.annotations.map(ToolAnnotations::from);
        out.icons = tool
            .icons
            .map(|icons| icons.into_iter().map(Icon::try_from).collect())
            .transpose()?;
        out.meta = tool.meta.map(|meta| meta.0);
        Ok(out)
    }
}

/// Converts annotations to `rmcp`'s: `title` and the four hints, exactly.
///
/// # Errors
///
/// [`Error::Lossy`] listing `/<key>` for each key in [`ToolAnnotations::extra`].
#[cfg_attr(docsrs, doc(cfg(feature = "rmcp")))]
impl TryFrom<ToolAnnotations> for model::ToolAnnotations {
    type Error = Error;

    fn try_from(annotations: ToolAnnotations) -> Result<Self, Error> {
        let mut lost = Vec::new();
        extra_losses("", &annotations.extra, &mut lost);
        lossy(ANNOTATIONS, lost)?;
        Ok(annotations_to_rmcp(annotations))
    }
}

/// Converts `rmcp` annotations: `title` and the four hints, exactly; `extra` is empty.
#[cfg_attr(docsrs, doc(cfg(feature = "rmcp")))]
impl From<model::ToolAnnotations> for ToolAnnotations {
    fn from(annotations: model::ToolAnnotations) -> Self {
        Self {
            title: annotations.title,
            read_only_hint: annotations.read_only_hint,
            destructive_hint: annotations.destructive_hint,
            idempotent_hint: annotations.idempotent_hint,
            open_world_hint: annotations.open_world_hint,
            extra: Map::new(),
        }
    }
}

/// Converts an icon to `rmcp`'s: `src`, `mimeType`, `sizes` and `theme`, exactly.
///
/// # Errors
///
/// [`Error::Lossy`] listing `/<key>` for each key in [`Icon::extra`].
#[cfg_attr(docsrs, doc(cfg(feature = "rmcp")))]
impl TryFrom<Icon> for model::Icon {
    type Error = Error;

    fn try_from(icon: Icon) -> Result<Self, Error> {
        let mut lost = Vec::new();
        extra_losses("", &icon.extra, &mut lost);
        lossy(ICON, lost)?;
        Ok(icon_to_rmcp(icon))
    }
}

/// Converts an `rmcp` icon: `src`, `mimeType`, `sizes` and `theme`, exactly; `extra` is empty.
///
/// # Errors
///
/// [`Error::UnknownValue`] for a `theme` other than `light` or `dark`.
#[cfg_attr(docsrs, doc(cfg(feature = "rmcp")))]
impl TryFrom<model::Icon> for Icon {
    type Error = Error;

    fn try_from(icon: model::Icon) -> Result<Self, Error> {
        let mut out = Self::new(icon.src);
        out.mime_type = icon.mime_type;
        out.sizes = icon.sizes;
        out.theme = icon.theme.map(IconTheme::try_from).transpose()?;
        Ok(out)
    }
}

/// `light` to `Light`, `dark` to `Dark`.
#[cfg_attr(docsrs, doc(cfg(feature = "rmcp")))]
impl From<IconTheme> for model::IconTheme {
    fn from(theme: IconTheme) -> Self {
        match theme {
            IconTheme::Light => Self::Light,
            IconTheme::Dark => Self::Dark,
        }
    }
}

/// `Light` to `light`, `Dark` to `dark`.
///
/// # Errors
///
/// [`Error::UnknownValue`] (field `theme`, with `rmcp`'s spelling of the value) for a theme
/// added to `rmcp`'s `#[non_exhaustive]` enum after 3.9.
#[cfg_attr(docsrs, doc(cfg(feature = "rmcp")))]
impl TryFrom<model::IconTheme> for IconTheme {
    type Error = Error;

    fn try_from(theme: model::IconTheme) -> Result<Self, Error> {
        match theme {
            model::IconTheme::Light => Ok(Self::Light),
            model::IconTheme::Dark => Ok(Self::Dark),
            other => Err(Error::UnknownValue {
                field: "theme",
                value: serde_json::to_value(other)
                    .ok()
                    .and_then(|value| value.as_str().map(str::to_owned))
                    .unwrap_or_else(|| format!("{other:?}")),
                expected: "light, dark",
            }),
        }
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::{Backend, TaskSupport, ToolExecution};

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
        tool.annotations = Some(ToolAnnotations {
            title: Some("Issue creator".into()),
            read_only_hint: Some(false),
            destructive_hint: Some(true),
            idempotent_hint: None,
            open_world_hint: Some(false),
            extra: Map::new(),
        });
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
        let out = model::Tool::try_from(&tool).unwrap();
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

        let tool = Tool::try_from(source.clone()).unwrap();
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
        assert_eq!(model::Tool::try_from(tool).unwrap(), source);
    }

    #[test]
    fn absent_fields_stay_absent_both_ways() {
        let tool = Tool::new("bare", ToolSchema::empty_object());
        let out = model::Tool::try_from(&tool).unwrap();
        assert_eq!(out.title, None);
        assert_eq!(out.description, None);
        assert_eq!(out.output_schema, None);
        assert_eq!(out.annotations, None);
        assert_eq!(out.icons, None);
        assert_eq!(out.meta, None);
        assert_eq!(Tool::try_from(out).unwrap(), tool);

        let mut empty = Tool::new("empty", ToolSchema::empty_object());
        empty.annotations = Some(ToolAnnotations::default());
        empty.icons = Some(Vec::new());
        empty.meta = Some(Map::new());
        let out = model::Tool::try_from(&empty).unwrap();
        assert_eq!(out.annotations, Some(model::ToolAnnotations::default()));
        assert_eq!(out.icons, Some(Vec::new()));
        assert_eq!(out.meta, Some(model::MetaObject::new()));
        assert_eq!(serde_json::to_value(&out).unwrap(), empty.to_mcp_json());
        assert_eq!(Tool::try_from(out).unwrap(), empty);
    }

    #[test]
    fn round_trip_through_rmcp_keeps_every_mcp_field() {
        let tool = full_tool();
        let owned = model::Tool::try_from(tool.clone()).unwrap();
        assert_eq!(owned, model::Tool::try_from(&tool).unwrap());
        assert_eq!(Tool::try_from(owned).unwrap(), tool);
    }

    #[test]
    fn execution_and_unknown_keys_are_refused_with_their_pointers() {
        let mut tool = full_tool();
        tool.execution = Some(ToolExecution {
            task_support: Some(TaskSupport::Optional),
            extra: Map::new(),
        });
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

        let err = model::Tool::try_from(&tool).unwrap_err();
        assert_eq!(
            err,
            Error::Lossy {
                target: "rmcp::model::Tool",
                lost: expected.map(str::to_owned).to_vec(),
            }
        );
        assert_eq!(
            err.to_string(),
            "converting to rmcp::model::Tool would drop /annotations/audience, /icons/1/alt, \
             /execution, /a~0b, /x~1vendor"
        );
        assert_eq!(model::Tool::try_from(tool.clone()).unwrap_err(), err);

        let (out, lost) = tool.to_rmcp_lossy();
        assert_eq!(lost, expected);
        let mut expected_json = tool.to_mcp_json();
        for pointer in expected {
            let (parent, key) = pointer.rsplit_once('/').unwrap();
            let key = key.replace("~1", "/").replace("~0", "~");
            let parent = expected_json.pointer_mut(parent).unwrap();
            assert!(parent.as_object_mut().unwrap().remove(&key).is_some());
        }
        assert_eq!(serde_json::to_value(&out).unwrap(), expected_json);
        assert_eq!(out, model::Tool::try_from(&full_tool()).unwrap());
    }

    #[test]
    fn an_empty_execution_is_still_reported() {
        let mut tool = Tool::new("t", ToolSchema::empty_object());
        tool.execution = Some(ToolExecution::default());
        assert_eq!(tool.to_rmcp_lossy().1, ["/execution"]);
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
        let (out, lost) = tool.to_rmcp_lossy();
        assert_eq!(lost, Vec::<String>::new());
        assert_eq!(serde_json::to_value(&out).unwrap(), tool.to_mcp_json());
        let back = Tool::try_from(model::Tool::try_from(&tool).unwrap()).unwrap();
        assert_eq!(back, Tool::new("t", ToolSchema::empty_object()));
    }

    #[test]
    fn annotations_and_icons_convert_alone() {
        let annotations = ToolAnnotations {
            title: Some("T".into()),
            read_only_hint: Some(true),
            destructive_hint: Some(false),
            idempotent_hint: Some(true),
            open_world_hint: None,
            extra: Map::new(),
        };
        let out = model::ToolAnnotations::try_from(annotations.clone()).unwrap();
        assert_eq!(
            out,
            model::ToolAnnotations::with_title("T")
                .read_only(true)
                .destructive(false)
                .idempotent(true)
        );
        assert_eq!(ToolAnnotations::from(out), annotations);

        let mut with_extra = annotations;
        with_extra.extra = object(json!({"x": true}));
        assert_eq!(
            model::ToolAnnotations::try_from(with_extra).unwrap_err(),
            Error::Lossy {
                target: "rmcp::model::ToolAnnotations",
                lost: vec!["/x".into()],
            }
        );

        let mut icon = Icon::new("https://example.com/i.png");
        icon.theme = Some(IconTheme::Dark);
        let out = model::Icon::try_from(icon.clone()).unwrap();
        assert_eq!(
            out,
            model::Icon::new("https://example.com/i.png").with_theme(model::IconTheme::Dark)
        );
        assert_eq!(Icon::try_from(out).unwrap(), icon);
        icon.extra = object(json!({"alt": "x"}));
        assert_eq!(
            model::Icon::try_from(icon).unwrap_err(),
            Error::Lossy {
                target: "rmcp::model::Icon",
                lost: vec!["/alt".into()],
            }
        );
    }

    #[test]
    fn themes_map_one_to_one() {
        for (ours, theirs) in [
            (IconTheme::Light, model::IconTheme::Light),
            (IconTheme::Dark, model::IconTheme::Dark),
        ] {
            assert_eq!(model::IconTheme::from(ours), theirs);
            assert_eq!(IconTheme::try_from(theirs).unwrap(), ours);
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
            Tool::try_from(read).unwrap(),
            Tool::from_mcp_json(&expected).unwrap()
        );
    }
}
