//! Backend bindings: where calls to a tool go (a `toolmodel` extension).
//!
//! JSON shape: an object with a `kind` and one body named after the kind, e.g.
//! `{"kind":"mcp","mcp":{"serverName":"filesystem-server"}}`. Each kind has exactly its own body,
//! so a binding of one kind with another kind's fields cannot be built.

use serde::{Deserialize, Deserializer, Serialize, Serializer, de, ser::SerializeMap};
use serde_json::{Map, Value};

/// Where calls to a tool are sent.
///
/// | kind | JSON | body |
/// |---|---|---|
/// | [`Backend::Mcp`] | `{"kind":"mcp","mcp":{"serverName":"…"}}` | an MCP server, by the name the gateway knows it by |
/// | [`Backend::Provider`] | `{"kind":"provider","provider":{"providerId":"…","toolId":"…"}}` | a tool hosted by a model provider |
/// | [`Backend::Local`] | `{"kind":"local","local":{"name":"…"}}` | a handler in this process |
///
/// The enum is `#[non_exhaustive]`: more kinds may come. Reading JSON, an unknown `kind`, a
/// missing body, or an unknown key is an error naming it.
///
/// # Examples
///
/// ```
/// use serde_json::json;
/// use toolmodel::Backend;
///
/// let backend = Backend::mcp("filesystem-server");
/// let text = json!({"kind": "mcp", "mcp": {"serverName": "filesystem-server"}});
/// assert_eq!(serde_json::to_value(&backend)?, text);
/// assert_eq!(serde_json::from_value::<Backend>(text)?, backend);
///
/// let err = serde_json::from_value::<Backend>(json!({"kind": "ftp"})).unwrap_err();
/// assert!(err.to_string().contains("unknown backend kind \"ftp\""));
/// # Ok::<(), serde_json::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Backend {
    /// A tool served by an MCP server.
    Mcp(McpBackend),
    /// A tool hosted by a model provider.
    Provider(ProviderBackend),
    /// A tool handled in this process.
    Local(LocalBackend),
}

/// The body of [`Backend::Mcp`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct McpBackend {
    /// The MCP server's name, as the gateway knows it (`serverName`).
    pub server_name: String,
}

/// The body of [`Backend::Provider`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderBackend {
    /// The provider (`providerId`), e.g. `openai`.
    pub provider_id: String,
    /// The provider's identifier of the tool (`toolId`).
    pub tool_id: String,
}

/// The body of [`Backend::Local`].
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct LocalBackend {
    /// The name of the handler (`name`).
    pub name: String,
}

impl Backend {
    /// The kinds this version knows, as written in `kind`.
    pub const KINDS: &'static [&'static str] = &["mcp", "provider", "local"];

    /// A binding to an MCP server.
    #[must_use]
    pub fn mcp(server_name: impl Into<String>) -> Self {
        Self::Mcp(McpBackend {
            server_name: server_name.into(),
        })
    }

    /// A binding to a provider-hosted tool.
    #[must_use]
    pub fn provider(provider_id: impl Into<String>, tool_id: impl Into<String>) -> Self {
        Self::Provider(ProviderBackend {
            provider_id: provider_id.into(),
            tool_id: tool_id.into(),
        })
    }

    /// A binding to a local handler.
    #[must_use]
    pub fn local(name: impl Into<String>) -> Self {
        Self::Local(LocalBackend { name: name.into() })
    }

    /// The kind, as written in `kind`: `"mcp"`, `"provider"` or `"local"`.
    #[must_use]
    pub const fn kind(&self) -> &'static str {
        match self {
            Self::Mcp(_) => "mcp",
            Self::Provider(_) => "provider",
            Self::Local(_) => "local",
        }
    }

    /// The body's fields that must not be empty, with their JSON names and values.
    pub(crate) fn required_fields(&self) -> Vec<(&'static str, &str)> {
        match self {
            Self::Mcp(body) => vec![("serverName", &body.server_name)],
            Self::Provider(body) => {
                vec![("providerId", &body.provider_id), ("toolId", &body.tool_id)]
            }
            Self::Local(body) => vec![("name", &body.name)],
        }
    }
}

impl Serialize for Backend {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("kind", self.kind())?;
        match self {
            Self::Mcp(body) => map.serialize_entry("mcp", body)?,
            Self::Provider(body) => map.serialize_entry("provider", body)?,
            Self::Local(body) => map.serialize_entry("local", body)?,
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Backend {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let mut map = Map::<String, Value>::deserialize(deserializer)?;
        let kind = match map.remove("kind") {
            Some(Value::String(kind)) => kind,
            Some(other) => {
                return Err(de::Error::custom(format_args!(
                    "backend `kind` must be a string, found {other}"
                )));
            }
            None => {
                return Err(de::Error::custom(format_args!(
                    "backend has no `kind`; expected one of {}",
                    Backend::KINDS.join(", ")
                )));
            }
        };
        if !Backend::KINDS.contains(&kind.as_str()) {
            return Err(de::Error::custom(format_args!(
                "unknown backend kind {kind:?}; expected one of {}",
                Backend::KINDS.join(", ")
            )));
        }
        let Some(body) = map.remove(&kind) else {
            return Err(de::Error::custom(format_args!(
                "backend of kind {kind:?} has no `{kind}` body"
            )));
        };
        if let Some(key) = map.keys().next() {
            return Err(de::Error::custom(format_args!(
                "backend of kind {kind:?} has an unexpected key {key:?}"
            )));
        }
        let body_error =
            |err: serde_json::Error| de::Error::custom(format_args!("in `{kind}` body: {err}"));
        match kind.as_str() {
            "mcp" => serde_json::from_value(body)
                .map(Self::Mcp)
                .map_err(body_error),
            "provider" => serde_json::from_value(body)
                .map(Self::Provider)
                .map_err(body_error),
            _ => serde_json::from_value(body)
                .map(Self::Local)
                .map_err(body_error),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(value: Value) -> Result<Backend, String> {
        serde_json::from_value(value).map_err(|e| e.to_string())
    }

    #[test]
    fn every_kind_round_trips() {
        for backend in [
            Backend::mcp("fs"),
            Backend::provider("openai", "web_search"),
            Backend::local("h"),
        ] {
            let value = serde_json::to_value(&backend).unwrap();
            assert_eq!(value["kind"], json!(backend.kind()));
            assert!(value.get(backend.kind()).is_some());
            assert_eq!(read(value), Ok(backend));
        }
        assert_eq!(
            serde_json::to_value(Backend::provider("openai", "t")).unwrap(),
            json!({"kind": "provider", "provider": {"providerId": "openai", "toolId": "t"}})
        );
    }

    #[test]
    fn errors_name_the_problem() {
        assert!(
            read(json!({"mcp": {"serverName": "x"}}))
                .unwrap_err()
                .contains("no `kind`")
        );
        assert!(
            read(json!({"kind": "mcp"}))
                .unwrap_err()
                .contains("has no `mcp` body")
        );
        assert!(
            read(json!({"kind": "grpc", "grpc": {}}))
                .unwrap_err()
                .contains("unknown backend kind \"grpc\"")
        );
        assert!(
            read(json!({"kind": "mcp", "mcp": {"serverName": "x"}, "local": {}}))
                .unwrap_err()
                .contains("unexpected key \"local\"")
        );
        assert!(
            read(json!({"kind": "mcp", "mcp": {}}))
                .unwrap_err()
                .contains("serverName")
        );
        assert!(
            read(json!({"kind": "local", "local": {"name": "a", "nam": 1}}))
                .unwrap_err()
                .contains("nam")
        );
        assert!(
            read(json!({"kind": 3}))
                .unwrap_err()
                .contains("must be a string")
        );
    }
}
