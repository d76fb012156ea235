//! [`Tool::validate_for`] and [`Tool::validate`]: the MCP rules a tool definition must follow
//! in one protocol version, all checked at once.

use serde_json::Value;

use crate::error::Error;
use crate::model::name::rules::name_problems;
use crate::model::protocol::version::ProtocolVersion;
use crate::model::schema::ToolSchema;
use crate::model::tags::{is_normalized, normalize_tags};
use crate::model::tool::Tool;
use crate::validate::limits::{ValidationLimits, shallow_text, tool_deeper_than};
use crate::validate::mcp_header::header_violations;
use crate::validate::meta_keys::meta_key_problem;
use crate::validate::violation::{ICON_SCHEMES, SchemaSlot, Violation};
use crate::wire::keys::FULL_KEYS;

/// The scheme of a URI (RFC 3986 `scheme ":"`), lowercased, when it has one.
fn uri_scheme(uri: &str) -> Option<String> {
    let (scheme, _) = uri.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)))
        .then(|| scheme.to_ascii_lowercase())
}

/// The rules of a version's `Tool` schema on the members of a tool schema (see
/// [`Violation::SchemaMember`]).
fn member_violations(
    version: ProtocolVersion,
    slot: SchemaSlot,
    schema: &ToolSchema,
    out: &mut Vec<Violation>,
) {
    let at = slot.pointer();
    let mut report = |pointer: String, expected| {
        out.push(Violation::SchemaMember {
            version,
            pointer,
            expected,
        });
    };
    if version >= ProtocolVersion::V2025_11_25
        && schema.get("$schema").is_some_and(|uri| !uri.is_string())
    {
        report(format!("{at}/$schema"), "\"$schema\" to be a string");
    }
    if !version.constrains_schema_members() {
        return;
    }
    match schema.get("properties") {
        None | Some(Value::Object(_)) => {}
        Some(_) => report(format!("{at}/properties"), "\"properties\" to be an object"),
    }
    if let Some(Value::Object(properties)) = schema.get("properties") {
        for (name, property) in properties {
            if !property.is_object() {
                report(
                    format!(
                        "{at}/properties/{}",
                        crate::pointer::escape_pointer_token(name)
                    ),
                    "each property schema to be an object (not a boolean schema)",
                );
            }
        }
    }
    let strings = |value: &Value| {
        value
            .as_array()
            .is_some_and(|items| items.iter().all(Value::is_string))
    };
    if schema
        .get("required")
        .is_some_and(|required| !strings(required))
    {
        report(
            format!("{at}/required"),
            "\"required\" to be an array of strings",
        );
    }
}

impl Tool {
    /// Checks the tool against the rules of [`ProtocolVersion::LATEST`] (MCP 2026-07-28) and
    /// the extensions' rules: `validate_for(ProtocolVersion::LATEST)`. See
    /// [`validate_for`](Self::validate_for) for the rules.
    ///
    /// # Errors
    ///
    /// [`Error::InvalidTool`] with the tool's name and every [`Violation`].
    ///
    /// # Examples
    ///
    /// ```
    /// use serde_json::json;
    /// use toolmodel::{Error, Tool, ToolSchema};
    ///
    /// let mut tool = Tool::new("bad name", ToolSchema::try_from(json!({"type": "array"}))?);
    /// tool.version = Some("1.0".into());
    /// let Err(Error::InvalidTool { violations, .. }) = tool.validate() else { panic!() };
    /// let pointers: Vec<String> = violations.iter().map(|v| v.pointer()).collect();
    /// assert_eq!(pointers, ["/name", "/version", "/inputSchema/type"]);
    /// # Ok::<(), toolmodel::Error>(())
    /// ```
    pub fn validate(&self) -> Result<(), Error> {
        self.validate_for(ProtocolVersion::LATEST)
    }

    /// Checks the tool against the MCP rules of `version` and the extensions' rules,
    /// reporting every violation found, not only the first.
    ///
    /// The rules, for every version:
    /// - `name`: 1–128 characters of `[A-Za-z0-9_.-]` (MCP "Tool Names", 2025-11-25 and
    ///   later; applied to every version, since older ones set no rule and these names pass
    ///   everywhere); `namespace` the same.
    /// - `version`: a semantic version, `1.2.3` or `v1.2.3`, prerelease and build allowed.
    /// - `inputSchema`: root `"type": "object"` (MCP schema, `Tool.inputSchema`).
    /// - `tags`: already normalized ([`normalize_tags`]).
    /// - icon `src`: scheme `https:`, `http:` or `data:` (MCP `Icon`, security considerations).
    /// - backends: no empty server, provider, tool or handler name.
    /// - `extra`: no key that is a tool key.
    /// - every value: nested at most
    ///   [`ValidationLimits::max_depth`](crate::validate::ValidationLimits::max_depth) (128) levels
    ///   below the tool's own object, checked without recursion.
    ///
    /// By version:
    /// - 2025-11-25 and older: `outputSchema` root `"type": "object"` (a version before
    ///   2025-06-18 has no `outputSchema`, but a tool whose output is not an object cannot be
    ///   written for it either: [`to_mcp_json_for`](Self::to_mcp_json_for) refuses it);
    ///   in both schemas, `properties` an object of object schemas and `required` an array of
    ///   strings ([`Violation::SchemaMember`]).
    /// - 2025-11-25 and later: `$schema`, when present, a string.
    /// - 2025-06-18 and later: every `_meta` key in the key name format ("General fields:
    ///   `_meta`"; [`Violation::MetaKey`]). Keys under reserved prefixes
    ///   (`io.modelcontextprotocol/`, ...) are allowed: MCP and its extensions define them.
    /// - 2026-07-28: `outputSchema` may be any JSON Schema 2020-12; each `x-mcp-header` in the
    ///   `inputSchema` is a non-empty RFC 9110 token without control characters,
    ///   case-insensitively unique, on a property of type `integer`, `string` or `boolean`
    ///   (never `number`; a type array may add `null`), reached from the root through
    ///   `properties` keys alone ([`Violation::Header`]; MCP 2026-07-28, Streamable HTTP,
    ///   "Custom Headers from Tool Parameters"). The rule that integer values stay within
    ///   ±(2<sup>53</sup>−1) concerns call arguments, not the definition.
    ///
    /// What a version cannot carry at all (`execution` in 2026-07-28, `icons` before
    /// 2025-11-25, ...) is no violation: [`to_mcp_json_for`](Self::to_mcp_json_for) leaves it
    /// out and reports it.
    ///
    /// Whether each schema is itself valid JSON Schema is the validator's concern:
    /// [`DefaultValidator::compile`](crate::DefaultValidator::compile). It never dereferences a
    /// network `$ref` (2026-07-28 `basic`, "`$ref` Resolution": MUST NOT) and bounds what a
    /// schema may make it do (2026-07-28 `basic`, "Composition-Keyword Resource Use": SHOULD;
    /// see [`crate::validate::ValidationLimits`]).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidTool`] with the tool's name and every [`Violation`].
    ///
    /// # Examples
    ///
    /// ```
    /// use serde_json::json;
    /// use toolmodel::{Error, ProtocolVersion, Tool};
    ///
    /// let tool = Tool::from_mcp_json(&json!({
    ///     "name": "list_items",
    ///     "inputSchema": {"type": "object", "properties": {
    ///         "region": {"type": "string", "x-mcp-header": "Region"},
    ///         "limit": {"type": "number", "x-mcp-header": "region"}
    ///     }},
    ///     "outputSchema": {"type": "array"}
    /// }))?;
    /// let Err(Error::InvalidTool { violations, .. }) = tool.validate() else { panic!() };
    /// let pointers: Vec<String> = violations.iter().map(|v| v.pointer()).collect();
    /// assert_eq!(
    ///     pointers,
    ///     [
    ///         "/inputSchema/properties/limit/x-mcp-header",  // on a number
    ///         "/inputSchema/properties/region/x-mcp-header", // "region" = "Region", ignoring case
    ///     ],
    /// );
    /// let Err(Error::InvalidTool { violations, .. }) =
    ///     tool.validate_for(ProtocolVersion::V2025_11_25) else { panic!() };
    /// assert_eq!(violations[0].pointer(), "/outputSchema/type");
    /// # Ok::<(), toolmodel::Error>(())
    /// ```
    pub fn validate_for(&self, version: ProtocolVersion) -> Result<(), Error> {
        let violations = self.violations_for(version);
        if violations.is_empty() {
            Ok(())
        } else {
            Err(Error::InvalidTool {
                name: self.name.clone(),
                violations,
            })
        }
    }

    /// Every [`Violation`] of the rules of [`ProtocolVersion::LATEST`]:
    /// `violations_for(ProtocolVersion::LATEST)`.
    #[must_use]
    pub fn violations(&self) -> Vec<Violation> {
        self.violations_for(ProtocolVersion::LATEST)
    }

    /// Every [`Violation`] of the rules of `version`, in the order of
    /// [`Tool::validate_for`]'s rules; empty when the tool is valid for it.
    #[must_use]
    pub fn violations_for(&self, version: ProtocolVersion) -> Vec<Violation> {
        let mut out = Vec::new();
        if let Err(err) = name_problems(&self.name) {
            out.push(Violation::Name(err));
        }
        if let Some(namespace) = &self.namespace
            && let Err(err) = name_problems(namespace)
        {
            out.push(Violation::Namespace(err));
        }
        if let Some(version) = &self.version {
            let bare = version.strip_prefix('v').unwrap_or(version);
            if let Err(err) = semver::Version::parse(bare) {
                out.push(Violation::Version {
                    value: version.clone(),
                    reason: err.to_string(),
                });
            }
        }
        let schemas = std::iter::once((SchemaSlot::Input, &self.input_schema))
            .chain(self.output_schema.iter().map(|s| (SchemaSlot::Output, s)));
        let max_depth = ValidationLimits::DEFAULT.max_depth;
        for (slot, schema) in schemas {
            let object_root = slot == SchemaSlot::Input || version.requires_object_output();
            if object_root && !schema.has_object_root() {
                let found = schema.get("type").map(shallow_text);
                out.push(Violation::SchemaRoot { slot, found });
            }
            member_violations(version, slot, schema, &mut out);
        }
        if version.has_mcp_headers() {
            header_violations(self.input_schema.as_value(), &mut out);
        }
        if version.has_meta_key_format() {
            for key in self.meta.iter().flat_map(|meta| meta.keys()) {
                if let Some(problem) = meta_key_problem(key) {
                    out.push(Violation::MetaKey {
                        key: key.clone(),
                        problem,
                    });
                }
            }
        }
        if !is_normalized(&self.tags) {
            out.push(Violation::Tags {
                normal: normalize_tags(&self.tags),
            });
        }
        for (index, icon) in self.icons.iter().flatten().enumerate() {
            let allowed = uri_scheme(&icon.src).is_some_and(|s| ICON_SCHEMES.contains(&s.as_str()));
            if !allowed {
                out.push(Violation::IconScheme {
                    index,
                    src: icon.src.clone(),
                });
            }
        }
        for (index, backend) in self.backends.iter().enumerate() {
            for (field, value) in backend.required_fields() {
                if value.trim().is_empty() {
                    out.push(Violation::EmptyBackendField {
                        index,
                        kind: backend.kind(),
                        field,
                    });
                }
            }
        }
        for key in self
            .extra
            .keys()
            .filter(|k| FULL_KEYS.contains(&k.as_str()))
        {
            out.push(Violation::ShadowedKey { key: key.clone() });
        }
        if let Some(pointer) = tool_deeper_than(self, max_depth) {
            out.push(Violation::TooDeep {
                pointer,
                limit: max_depth,
            });
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::backend::Backend;
    use crate::model::schema::ToolSchema;
    use crate::model::tool::Icon;
    use serde_json::json;

    fn tool() -> Tool {
        Tool::new(
            "ok",
            ToolSchema::try_from(json!({"type": "object"})).unwrap(),
        )
    }

    #[test]
    fn a_minimal_tool_is_valid() {
        assert_eq!(tool().validate(), Ok(()));
    }

    #[test]
    fn versions() {
        for good in ["1.2.3", "v1.2.3", "1.0.0-alpha.1+build.5", "v0.0.1-rc1"] {
            let mut t = tool();
            t.version = Some(good.into());
            assert_eq!(t.validate(), Ok(()), "{good}");
        }
        for bad in ["1.2", "v", "", "01.2.3", "1.2.3.4", "V1.2.3", "latest"] {
            let mut t = tool();
            t.version = Some(bad.into());
            assert!(
                matches!(t.violations().as_slice(), [Violation::Version { .. }]),
                "{bad}"
            );
        }
    }

    #[test]
    fn icon_schemes() {
        let mut t = tool();
        t.icons = Some(
            [
                "https://a/x.png",
                "HTTP://a",
                "data:image/png;base64,AA",
                "javascript:alert(1)",
                "file:///etc/passwd",
                "x.png",
                "",
            ]
            .into_iter()
            .map(Icon::new)
            .collect(),
        );
        let bad: Vec<usize> = t
            .violations()
            .iter()
            .map(|v| match v {
                Violation::IconScheme { index, .. } => *index,
                other => panic!("{other}"),
            })
            .collect();
        assert_eq!(bad, [3, 4, 5, 6]);
    }

    #[test]
    fn every_violation_is_reported_with_its_pointer() {
        let mut t = Tool::new(
            "a b",
            ToolSchema::try_from(json!({"type": "array"})).unwrap(),
        );
        t.namespace = Some(String::new());
        t.output_schema = Some(ToolSchema::try_from(json!({})).unwrap());
        t.tags = vec!["Web".into()];
        t.backends = vec![Backend::mcp(" ")];
        t.extra.insert("name".into(), json!("shadow"));
        t.extra.insert("version".into(), json!(3));
        let text: Vec<String> = t
            .violations_for(ProtocolVersion::V2025_11_25)
            .iter()
            .map(ToString::to_string)
            .collect();
        // 2026-07-28 allows any output schema: the same tool without that one violation.
        let latest: Vec<String> = t.violations().iter().map(ToString::to_string).collect();
        let mut older = text.clone();
        older.remove(3);
        assert_eq!(latest, older);
        assert_eq!(
            text,
            [
                "/name: name \"a b\" is not a valid name: character ' ' (U+0020) at position 1 is not one of [A-Za-z0-9_.-]",
                "/namespace: namespace \"\" is not a valid name: it is empty",
                "/inputSchema/type: inputSchema root has \"type\": \"array\"; MCP requires \"type\": \"object\"",
                "/outputSchema/type: outputSchema root has no \"type\"; MCP requires \"type\": \"object\"",
                "/tags: tags are not in normal form; write [\"web\"]",
                "/backends/0/mcp/serverName: mcp backend has an empty \"serverName\"",
                "/name: unknown-field map holds \"name\", an MCP key: the field is written instead, never this value",
                "/version: unknown-field map holds \"version\", the name of a toolmodel extension: MCP JSON writes it, the full form (to_json) writes the extension instead and loses it",
            ]
        );
    }

    #[test]
    fn schema_members_by_version() {
        let mut t = Tool::new(
            "ok",
            ToolSchema::try_from(json!({"type": "object", "$schema": 7,
                "properties": {"a": true, "b": {}}, "required": ["b", 1]}))
            .unwrap(),
        );
        t.output_schema =
            Some(ToolSchema::try_from(json!({"type": "object", "properties": []})).unwrap());
        let pointers = |version| {
            t.violations_for(version)
                .iter()
                .map(Violation::pointer)
                .collect::<Vec<_>>()
        };
        assert_eq!(
            pointers(ProtocolVersion::V2026_07_28),
            ["/inputSchema/$schema"]
        );
        assert_eq!(
            pointers(ProtocolVersion::V2025_11_25),
            [
                "/inputSchema/$schema",
                "/inputSchema/properties/a",
                "/inputSchema/required",
                "/outputSchema/properties"
            ]
        );
        assert_eq!(
            pointers(ProtocolVersion::V2024_11_05),
            [
                "/inputSchema/properties/a",
                "/inputSchema/required",
                "/outputSchema/properties"
            ]
        );
        assert!(
            t.violations_for(ProtocolVersion::V2025_06_18)[0]
                .to_string()
                .contains(
                    "MCP 2025-06-18 Tool schema requires each property schema to be an object"
                )
        );
    }

    #[test]
    fn meta_keys_from_2025_06_18() {
        let mut t = tool();
        t.meta = Some(
            json!({"com.example/ok": 1, "io.modelcontextprotocol/ui": {}, "bad key": 2, "-x.y/z": 3})
                .as_object()
                .unwrap()
                .clone(),
        );
        let expected = ["/_meta/-x.y~1z", "/_meta/bad key"];
        for version in ProtocolVersion::ALL {
            let mut found: Vec<String> = t
                .violations_for(version)
                .iter()
                .map(Violation::pointer)
                .collect();
            found.sort();
            if version >= ProtocolVersion::V2025_06_18 {
                assert_eq!(found, expected, "{version}");
            } else {
                assert!(found.is_empty(), "{version}");
            }
        }
    }

    #[test]
    fn headers_are_checked_for_2026_07_28_only() {
        let t = Tool::new(
            "ok",
            ToolSchema::try_from(json!({"type": "object", "properties": {
                "n": {"type": "number", "x-mcp-header": "N"}}}))
            .unwrap(),
        );
        for version in ProtocolVersion::ALL {
            let found = t.violations_for(version);
            if version == ProtocolVersion::V2026_07_28 {
                assert_eq!(
                    found.iter().map(ToString::to_string).collect::<Vec<_>>(),
                    [
                        "/inputSchema/properties/n/x-mcp-header: x-mcp-header is on a property of \"type\": \"number\"; it must be \"integer\", \"string\" or \"boolean\" (never \"number\")"
                    ]
                );
            } else {
                assert_eq!(found, [], "{version}");
            }
        }
    }
}
