//! [`Tool::validate`]: the MCP rules a tool definition must follow, all checked at once.

use crate::{
    Error, Limits, Tool,
    model::name::name_problems,
    model::tags::{is_normalized, normalize_tags},
    validate::limits::{deeper_than, tool_deeper_than},
    validate::violation::{ICON_SCHEMES, SchemaSlot, Violation},
    wire::keys::FULL_KEYS,
};

/// The scheme of a URI (RFC 3986 `scheme ":"`), lowercased, when it has one.
fn uri_scheme(uri: &str) -> Option<String> {
    let (scheme, _) = uri.split_once(':')?;
    let mut chars = scheme.chars();
    let first = chars.next()?;
    (first.is_ascii_alphabetic() && chars.all(|c| c.is_ascii_alphanumeric() || "+-.".contains(c)))
        .then(|| scheme.to_ascii_lowercase())
}

impl Tool {
    /// Checks the tool against the MCP 2025-11-25 rules and the extensions' rules, reporting
    /// every violation found, not only the first.
    ///
    /// The rules:
    /// - `name`: 1–128 characters of `[A-Za-z0-9_.-]` (MCP "Tool Names"); `namespace` the same.
    /// - `version`: a semantic version, `1.2.3` or `v1.2.3`, prerelease and build allowed.
    /// - `inputSchema` and `outputSchema`: root `"type": "object"` (MCP schema, `Tool`).
    /// - `tags`: already normalized ([`normalize_tags`]).
    /// - icon `src`: scheme `https:`, `http:` or `data:` (MCP `Icon`, security considerations).
    /// - backends: no empty server, provider, tool or handler name.
    /// - `extra`: no key that is a tool key.
    /// - every value: nested at most [`Limits::max_depth`](crate::Limits::max_depth) (128)
    ///   levels below the tool's own object, checked without recursion.
    ///
    /// Whether each schema is itself valid JSON Schema is the validator's concern:
    /// [`DefaultValidator::compile`](crate::DefaultValidator::compile).
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
        let violations = self.violations();
        if violations.is_empty() {
            Ok(())
        } else {
            Err(Error::InvalidTool {
                name: self.name.clone(),
                violations,
            })
        }
    }

    /// Every [`Violation`] of the tool, in the order of [`Tool::validate`]'s rules; empty when
    /// the tool is valid.
    #[must_use]
    pub fn violations(&self) -> Vec<Violation> {
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
        let max_depth = Limits::DEFAULT.max_depth;
        for (slot, schema) in schemas {
            if !schema.has_object_root() {
                // Printing a value recurses once per level: print only what is shallow.
                let found = schema.get("type").map(|found| {
                    if deeper_than(found, max_depth).is_some() {
                        format!("a value nested more than {max_depth} levels")
                    } else {
                        found.to_string()
                    }
                });
                out.push(Violation::SchemaRoot { slot, found });
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
    use crate::{Backend, Icon, ToolSchema};
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
        let text: Vec<String> = t.violations().iter().map(ToString::to_string).collect();
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
}
