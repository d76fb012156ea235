//! [`Challenge`]: the `WWW-Authenticate: Bearer ...` header of a refused request (RFC 6750 §3,
//! with RFC 9728 §5.1's `resource_metadata`), as MCP's "Authorization" chapter asks for it:
//! `resource_metadata` always, `scope` when scopes are known, `error` for a token that was
//! sent and refused.

use http::HeaderValue;

/// RFC 6750 §3.1 error codes a resource server answers with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ChallengeError {
    /// 401: the token is expired, revoked, malformed or otherwise invalid.
    InvalidToken,
    /// 403: the token lacks a scope the request needs.
    InsufficientScope,
}

impl ChallengeError {
    fn code(self) -> &'static str {
        match self {
            Self::InvalidToken => "invalid_token",
            Self::InsufficientScope => "insufficient_scope",
        }
    }
}

/// A `Bearer` challenge: what a client needs to get (or step up to) a token the server
/// accepts.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Challenge {
    /// The URL of the Protected Resource Metadata document (RFC 9728 §5.1).
    pub(crate) resource_metadata: String,
    /// The scopes the request needs (RFC 6750 §3: space-separated, each once); none: the
    /// parameter is left out.
    pub(crate) scopes: Vec<String>,
    /// The error, when a token was sent (RFC 6750 §3.1: none when the request had no token).
    pub(crate) error: Option<ChallengeError>,
    /// A human-readable reason, for a developer (never the token, nor any part of it).
    pub(crate) description: Option<&'static str>,
}

impl Challenge {
    /// The header's value: `Bearer error="…", error_description="…", scope="…",
    /// resource_metadata="…"` (RFC 6750 §3, quoted strings).
    pub(crate) fn header_value(&self) -> HeaderValue {
        let mut params = Vec::with_capacity(4);
        if let Some(error) = self.error {
            params.push(format!("error=\"{}\"", error.code()));
        }
        if let Some(description) = self.description {
            params.push(format!("error_description=\"{}\"", quoted(description)));
        }
        if !self.scopes.is_empty() {
            params.push(format!("scope=\"{}\"", quoted(&self.scopes.join(" "))));
        }
        params.push(format!(
            "resource_metadata=\"{}\"",
            quoted(&self.resource_metadata)
        ));
        let text = format!("Bearer {}", params.join(", "));
        // Every part is visible ASCII once quoted: the fallback is never taken.
        HeaderValue::from_str(&text).unwrap_or_else(|_| HeaderValue::from_static("Bearer"))
    }
}

/// `text` as the inside of an RFC 9110 §5.6.4 quoted-string: `"` and `\` escaped, and what a
/// header cannot carry (controls, non-ASCII) dropped.
fn quoted(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '"' | '\\' => {
                out.push('\\');
                out.push(c);
            }
            ' '..='~' => out.push(c),
            _ => {}
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_request_without_a_token_gets_no_error_code() {
        let challenge = Challenge {
            resource_metadata: "https://mcp.example.com/.well-known/oauth-protected-resource/mcp"
                .into(),
            scopes: vec!["notes:read".into()],
            error: None,
            description: None,
        };
        assert_eq!(
            challenge.header_value(),
            "Bearer scope=\"notes:read\", resource_metadata=\"https://mcp.example.com/.well-known/oauth-protected-resource/mcp\""
        );
    }

    #[test]
    fn an_insufficient_scope_names_every_scope_and_escapes_quotes() {
        let challenge = Challenge {
            resource_metadata: "https://x/\"m\"".into(),
            scopes: vec!["notes:read".into(), "notes:write".into()],
            error: Some(ChallengeError::InsufficientScope),
            description: Some("the tool needs more"),
        };
        assert_eq!(
            challenge.header_value(),
            "Bearer error=\"insufficient_scope\", error_description=\"the tool needs more\", scope=\"notes:read notes:write\", resource_metadata=\"https://x/\\\"m\\\"\""
        );
    }
}
