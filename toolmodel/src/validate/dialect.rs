//! JSON Schema dialects: which `$schema` URIs the validator understands.
//!
//! MCP 2025-11-25 ("JSON Schema Usage"): a schema without `$schema` is JSON Schema 2020-12;
//! implementations must support 2020-12, should document the other dialects they support, and
//! must handle unsupported dialects gracefully by returning an appropriate error.

use std::{fmt, str::FromStr};

use crate::error::Error;

/// The canonical `$schema` URI of JSON Schema 2020-12.
pub const DIALECT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";
/// The canonical `$schema` URI of JSON Schema draft-07.
pub const DIALECT_DRAFT_07: &str = "http://json-schema.org/draft-07/schema#";

/// A JSON Schema dialect that [`DefaultValidator`](crate::DefaultValidator) validates natively.
///
/// Read from a `$schema` URI with [`Dialect::from_uri`] or [`FromStr`]: for each dialect the
/// `http` and `https` forms, with or without the trailing `#`, are accepted.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Dialect {
    /// JSON Schema 2020-12, MCP's default.
    #[default]
    Draft202012,
    /// JSON Schema draft-07. Tuple `items`, `additionalItems` and `dependencies` keep their
    /// draft-07 meaning.
    Draft7,
}

impl Dialect {
    /// The dialect a `$schema` URI names, or `None` for any other URI (draft-04, draft-06,
    /// 2019-09, a custom meta-schema, ...).
    #[must_use]
    pub fn from_uri(uri: &str) -> Option<Self> {
        let uri = uri.strip_suffix('#').unwrap_or(uri);
        let rest = uri
            .strip_prefix("https://")
            .or_else(|| uri.strip_prefix("http://"))?;
        match rest {
            "json-schema.org/draft/2020-12/schema" => Some(Self::Draft202012),
            "json-schema.org/draft-07/schema" => Some(Self::Draft7),
            _ => None,
        }
    }

    /// The canonical `$schema` URI: [`DIALECT_2020_12`] or [`DIALECT_DRAFT_07`].
    #[must_use]
    pub const fn uri(self) -> &'static str {
        match self {
            Self::Draft202012 => DIALECT_2020_12,
            Self::Draft7 => DIALECT_DRAFT_07,
        }
    }

    pub(crate) const fn draft(self) -> jsonschema::Draft {
        match self {
            Self::Draft202012 => jsonschema::Draft::Draft202012,
            Self::Draft7 => jsonschema::Draft::Draft7,
        }
    }
}

impl FromStr for Dialect {
    type Err = Error;

    /// # Errors
    ///
    /// [`Error::UnsupportedSchema`] naming the URI.
    fn from_str(uri: &str) -> Result<Self, Error> {
        Self::from_uri(uri).ok_or_else(|| Error::UnsupportedSchema {
            uri: uri.to_owned(),
            pointer: "/$schema".into(),
        })
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.uri())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uri_variants() {
        for uri in [
            "https://json-schema.org/draft/2020-12/schema",
            "http://json-schema.org/draft/2020-12/schema",
            "https://json-schema.org/draft/2020-12/schema#",
            "http://json-schema.org/draft/2020-12/schema#",
        ] {
            assert_eq!(Dialect::from_uri(uri), Some(Dialect::Draft202012), "{uri}");
        }
        for uri in [
            "http://json-schema.org/draft-07/schema#",
            "http://json-schema.org/draft-07/schema",
            "https://json-schema.org/draft-07/schema#",
            "https://json-schema.org/draft-07/schema",
        ] {
            assert_eq!(Dialect::from_uri(uri), Some(Dialect::Draft7), "{uri}");
        }
        for uri in [
            "http://json-schema.org/draft-04/schema#",
            "http://json-schema.org/draft-06/schema#",
            "https://json-schema.org/draft/2019-09/schema",
            "https://example.com/my-meta",
            "json-schema.org/draft-07/schema",
            "",
        ] {
            assert!(
                matches!(uri.parse::<Dialect>(), Err(Error::UnsupportedSchema { uri: u, .. }) if u == uri)
            );
        }
    }
}
