//! MCP protocol versions: [`ProtocolVersion`], and which version each API reads and writes.
//!
//! # Defaults, and why
//!
//! The model ([`Tool`](struct@crate::Tool)) holds the union of every version's `Tool`, so one
//! value can stand for a tool read from any server. Where an API must pick a version, it picks
//! [`ProtocolVersion::LATEST`] (2026-07-28, [`MCP_VERSION`](crate::MCP_VERSION)), because new
//! servers and clients speak it and the older versions are reached by asking for them:
//!
//! | API | reads | writes / checks |
//! |---|---|---|
//! | [`Tool::from_mcp_json`](crate::Tool::from_mcp_json) and friends | any version (the union) | — |
//! | [`Tool::to_mcp_json`](crate::Tool::to_mcp_json) | — | every field the model holds, as read (a gateway passes on what it received) |
//! | [`Tool::to_mcp_json_for`](crate::Tool::to_mcp_json_for) | — | exactly what the version carries, every loss reported |
//! | [`Tool::validate`](crate::Tool::validate) | — | the rules of [`LATEST`](ProtocolVersion::LATEST) |
//! | [`Tool::validate_for`](crate::Tool::validate_for) | — | the rules of the version asked for |
//! | `#[derive(Tool)]` ([`ToolDefinition::try_tool`](crate::ToolDefinition::try_tool)) | — | built and checked for [`LATEST`](ProtocolVersion::LATEST); write it for an older version with `to_mcp_json_for` |

pub(crate) mod version;

pub use version::ProtocolVersion;

use std::str::FromStr;

use serde::{Deserialize, Deserializer, de};

use crate::error::Error;

impl FromStr for ProtocolVersion {
    type Err = Error;

    /// Reads the date string of a version.
    ///
    /// # Errors
    ///
    /// [`Error::UnknownValue`] naming the text when it is not one of the five dates.
    fn from_str(text: &str) -> Result<Self, Error> {
        Self::ALL
            .into_iter()
            .find(|version| version.as_str() == text)
            .ok_or_else(|| Error::UnknownValue {
                field: "protocolVersion",
                value: text.to_owned(),
                expected: "2024-11-05, 2025-03-26, 2025-06-18, 2025-11-25, 2026-07-28",
            })
    }
}

impl<'de> Deserialize<'de> for ProtocolVersion {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
        text.parse().map_err(de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_read_write_and_order() {
        let mut previous = None;
        for version in ProtocolVersion::ALL {
            assert_eq!(version.as_str().parse::<ProtocolVersion>(), Ok(version));
            assert_eq!(version.to_string(), version.as_str());
            let json = serde_json::to_value(version).unwrap();
            assert_eq!(json, serde_json::Value::from(version.as_str()));
            assert_eq!(
                serde_json::from_value::<ProtocolVersion>(json).unwrap(),
                version
            );
            assert!(previous < Some(version));
            previous = Some(version);
        }
        assert_eq!(previous, Some(ProtocolVersion::LATEST));
        assert_eq!(crate::MCP_VERSION, ProtocolVersion::LATEST.as_str());
    }

    #[test]
    fn other_text_is_refused_by_name() {
        for bad in ["", "2025-11-24", "latest", " 2025-11-25", "2025-11-25\n"] {
            let err = bad.parse::<ProtocolVersion>().unwrap_err();
            assert!(
                matches!(&err, Error::UnknownValue { field: "protocolVersion", value, .. } if value == bad),
                "{err:?}"
            );
            assert!(serde_json::from_value::<ProtocolVersion>(bad.into()).is_err());
        }
        assert!(serde_json::from_value::<ProtocolVersion>(serde_json::json!(20251125)).is_err());
    }

    #[test]
    fn what_each_version_carries() {
        use ProtocolVersion as V;
        let carried = |key| {
            V::ALL
                .into_iter()
                .filter(|v| v.has_tool_key(key))
                .map(V::as_str)
                .collect::<Vec<_>>()
        };
        assert_eq!(carried("execution"), ["2025-11-25"]);
        assert_eq!(carried("icons"), ["2025-11-25", "2026-07-28"]);
        assert_eq!(carried("title"), ["2025-06-18", "2025-11-25", "2026-07-28"]);
        assert_eq!(carried("annotations").len(), 4);
        assert_eq!(carried("inputSchema").len(), 5);
        assert!(V::V2025_11_25.requires_object_output());
        assert!(!V::V2026_07_28.requires_object_output());
        assert!(!V::V2025_03_26.has_structured_content());
        assert!(V::V2026_07_28.has_result_type() && !V::V2025_11_25.has_result_type());
    }
}
