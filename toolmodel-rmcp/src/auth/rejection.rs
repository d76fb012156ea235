//! [`Rejection`]: why a request's token was not accepted, before it becomes a 401 or 503.

/// Why a token was not accepted. The reasons are fixed texts: they never carry the token or
/// any part of it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Rejection {
    /// No bearer token in the `Authorization` header (a token in the query string is not
    /// looked at: MCP, "Access Token Usage").
    Missing,
    /// The token was sent and is not valid (why).
    Invalid(&'static str),
    /// The authorization server could not be reached to verify it (its metadata, keys or
    /// introspection endpoint), so nothing is let through.
    Unavailable,
    /// The token would need an introspection request, and the rate of those
    /// ([`with_introspection_rate`](super::ResourceServer::with_introspection_rate)) is spent
    /// for now.
    Busy,
}
