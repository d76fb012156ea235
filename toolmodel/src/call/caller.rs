//! [`Caller`]: who a call is made for, as the server verified it from the request's access
//! token (MCP, "Authorization": the token's issuer, subject, client and scopes), for a handler
//! to read from its [`CallContext`](crate::CallContext). The model holds the verified values
//! only: checking the token is the server's work.

use std::collections::{BTreeMap, BTreeSet};

/// Who a call is made for, verified by the server from the request's OAuth 2.1 access token
/// (RFC 9068 JWT claims, or the RFC 7662 introspection response): the token's issuer (`iss`),
/// subject (`sub`), client (`client_id`, else `azp`), scopes (`scope`) and its other claims of
/// strings (`groups`, `roles`: [`claim`](Self::claim)).
///
/// A server that checks access tokens puts one on each call's context
/// ([`CallContext::with_caller`](crate::CallContext::with_caller)); a handler reads it with
/// [`CallContext::caller`](crate::CallContext::caller), which is `None` when the server checks
/// no token (stdio, or HTTP without authorization).
///
/// ```
/// use toolmodel::{CallContext, Caller};
///
/// let caller = Caller::new("https://auth.example.com", "user-42")
///     .with_client_id("notes-app")
///     .with_scopes(["notes:read", "notes:write"]);
/// let cx = CallContext::new().with_caller(caller);
/// let caller = cx.caller().expect("set above");
/// assert_eq!(caller.subject(), "user-42");
/// assert!(caller.has_scope("notes:write"));
/// assert!(!caller.has_scope("notes:admin"));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Caller {
    issuer: String,
    subject: String,
    client_id: Option<String>,
    scopes: BTreeSet<String>,
    claims: BTreeMap<String, BTreeSet<String>>,
    access_token: Option<AccessToken>,
}

/// The access token a [`Caller`] was verified from, as the request carried it: for a gateway
/// to exchange for a token of an upstream's own audience (OAuth 2.0 Token Exchange, RFC 8693
/// §2.1 `subject_token`), never to pass on as it is (MCP "Security Best Practices", token
/// passthrough is forbidden).
///
/// Its [`Debug`] output is `AccessToken(***)`: a token never reaches a log line or an error
/// through a `{:?}`. It is not serializable, so no task store or session store can hold it.
///
/// ```
/// use toolmodel::AccessToken;
///
/// let token = AccessToken::new("eyJhbGciOi.secret.sig");
/// assert_eq!(token.secret(), "eyJhbGciOi.secret.sig");
/// assert_eq!(format!("{token:?}"), "AccessToken(***)");
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct AccessToken(std::sync::Arc<str>);

impl AccessToken {
    /// The token `value`, as it came in the request's `Authorization: Bearer` header.
    #[must_use]
    pub fn new(value: impl Into<String>) -> Self {
        Self(std::sync::Arc::from(value.into()))
    }

    /// The token itself: to send to the authorization server that issued it, and nowhere
    /// else.
    #[must_use]
    pub fn secret(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for AccessToken {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter.write_str("AccessToken(***)")
    }
}

impl Caller {
    /// The caller `subject` (the token's `sub`) of the authorization server `issuer` (its
    /// `iss`), with no client and no scope.
    #[must_use]
    pub fn new(issuer: impl Into<String>, subject: impl Into<String>) -> Self {
        Self {
            issuer: issuer.into(),
            subject: subject.into(),
            client_id: None,
            scopes: BTreeSet::new(),
            claims: BTreeMap::new(),
            access_token: None,
        }
    }

    /// The access token the caller was verified from ([`AccessToken`], its `Debug` redacted):
    /// a server that checks tokens sets it, so that a gateway can exchange it for a token of
    /// an upstream (RFC 8693).
    ///
    /// ```
    /// use toolmodel::{AccessToken, Caller};
    ///
    /// let caller = Caller::new("https://auth.example.com", "user-42").with_access_token(AccessToken::new("t0k3n"));
    /// assert_eq!(caller.access_token().map(AccessToken::secret), Some("t0k3n"));
    /// assert!(!format!("{caller:?}").contains("t0k3n"));
    /// ```
    #[must_use]
    pub fn with_access_token(mut self, token: AccessToken) -> Self {
        self.access_token = Some(token);
        self
    }

    /// The access token the caller was verified from, when the server that verified it
    /// kept it ([`with_access_token`](Self::with_access_token)).
    #[must_use]
    pub fn access_token(&self) -> Option<&AccessToken> {
        self.access_token.as_ref()
    }

    /// The OAuth client the token was issued to (`client_id`, RFC 9068 §2.2; RFC 7662 §2.2).
    #[must_use]
    pub fn with_client_id(mut self, client_id: impl Into<String>) -> Self {
        self.client_id = Some(client_id.into());
        self
    }

    /// The scopes the token grants (its `scope`, RFC 6749 §3.3), added to those already set.
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Another claim of the token whose value is a string or an array of strings (a `groups`
    /// or `roles` claim, say), its values added to those already set: what a server's tool
    /// policy may select callers by.
    ///
    /// ```
    /// use toolmodel::Caller;
    ///
    /// let caller = Caller::new("https://auth.example.com", "user-42").with_claim("groups", ["eng", "ops"]);
    /// assert_eq!(caller.claim("groups").collect::<Vec<_>>(), ["eng", "ops"]);
    /// assert_eq!(caller.claim("roles").count(), 0);
    /// ```
    #[must_use]
    pub fn with_claim<S: Into<String>>(
        mut self,
        name: impl Into<String>,
        values: impl IntoIterator<Item = S>,
    ) -> Self {
        self.claims
            .entry(name.into())
            .or_default()
            .extend(values.into_iter().map(Into::into));
        self
    }

    /// The values of the claim `name` ([`with_claim`](Self::with_claim)), sorted, each once;
    /// none when the token has no such claim of strings.
    pub fn claim(&self, name: &str) -> impl Iterator<Item = &str> {
        self.claims
            .get(name)
            .into_iter()
            .flatten()
            .map(String::as_str)
    }

    /// The authorization server that issued the token (`iss`).
    #[must_use]
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// The resource owner, or the client itself for a `client_credentials` token (`sub`);
    /// unique within [`issuer`](Self::issuer) only.
    #[must_use]
    pub fn subject(&self) -> &str {
        &self.subject
    }

    /// The OAuth client the token was issued to, when the token names it.
    #[must_use]
    pub fn client_id(&self) -> Option<&str> {
        self.client_id.as_deref()
    }

    /// The scopes the token grants, sorted, each once.
    pub fn scopes(&self) -> impl Iterator<Item = &str> {
        self.scopes.iter().map(String::as_str)
    }

    /// Whether the token grants `scope` (compared as written, RFC 6749 §3.3).
    #[must_use]
    pub fn has_scope(&self, scope: &str) -> bool {
        self.scopes.contains(scope)
    }
}
