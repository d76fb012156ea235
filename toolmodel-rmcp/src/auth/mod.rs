//! Authorization (MCP 2025-11-25 and 2026-07-28, "Authorization"): a
//! [`ToolboxServer`](crate::ToolboxServer) served over Streamable HTTP as an OAuth 2.1
//! resource server. Configure it with [`ResourceServer`] and
//! [`ToolboxServer::with_authorization`](crate::ToolboxServer::with_authorization); the
//! [guide](crate::guide::public) shows the whole flow.
//!
//! What the server does, by module:
//!
//! - `metadata`: Protected Resource Metadata (RFC 9728) at both well-known URIs;
//! - `bearer`: the token of a request, from the `Authorization` header only (RFC 6750 §2.1);
//! - `discovery`: the issuer's metadata (RFC 8414, OpenID Connect Discovery), its endpoints
//!   kept only when `https` (or `http` on loopback, for an issuer on loopback);
//! - `keys`: its JSON Web Key Set, fetched again on an unknown `kid` at most once per interval,
//!   one fetch at a time, never holding up a token signed with a known key;
//! - `jwt`: JWT access tokens (RFC 9068) verified with `typ` `at+jwt`, pinned algorithms,
//!   `iss`, `aud` (RFC 8707), `sub`, `exp` and `nbf`;
//! - `introspection`: opaque tokens, asked of the issuer (RFC 7662) at a bounded rate, its
//!   refusals remembered briefly;
//! - `token_cache`: tokens verified once, remembered by their SHA-256 until they expire;
//! - `scopes`: the scopes a call needs and the hierarchy that grants them;
//! - `challenge`: the `WWW-Authenticate` header of a 401 or 403 (RFC 6750 §3);
//! - `rejection`: why a token was refused; `verifier` ties them together; `config` holds
//!   [`ResourceServer`].
//!
//! The HTTP front calls them from its gate stage, before a request's body is read or a
//! session admitted. Tokens are never logged, never put in an error or a response, and never
//! sent anywhere but to the issuer's introspection endpoint.

mod bearer;
mod challenge;
mod config;
mod discovery;
mod introspection;
mod jwt;
mod keys;
mod metadata;
mod outage;
mod rejection;
mod scopes;
mod token_cache;
mod verifier;

pub(crate) use challenge::Challenge;
pub use config::{
    DEFAULT_HTTP_TIMEOUT, DEFAULT_INTROSPECTION_RATE, DEFAULT_KEY_REFETCH_INTERVAL, DEFAULT_LEEWAY,
    DEFAULT_TOKEN_CACHE_CAPACITY, ResourceServer,
};
#[cfg(feature = "federation")]
pub(crate) use discovery::discover_at;
pub(crate) use metadata::{document as metadata_document, is_metadata_path};
pub(crate) use rejection::Rejection;
pub(crate) use scopes::{needed as needed_scopes, satisfied as scopes_satisfied};
pub(crate) use verifier::Verifier;
