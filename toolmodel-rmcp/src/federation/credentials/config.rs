//! What a server's entry says of its users' own credentials ([`Credentials`], JSON
//! `toolmodelCredentials`), and the gateway's own OAuth client that obtains them
//! ([`ExchangeClient`]).

use std::time::Duration;

/// How the gateway obtains each user's own credentials for one Streamable HTTP server (JSON:
/// `toolmodelCredentials`, a key of toolmodel's that other clients ignore): the caller's
/// access token is never sent upstream as it is (MCP "Security Best Practices": token
/// passthrough is forbidden).
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Credentials {
    /// The caller's access token exchanged at the gateway's authorization server for one of
    /// the upstream's audience (JSON: `"tokenExchange": {...}`).
    TokenExchange(TokenExchange),
    /// The gateway as the upstream's own OAuth client, each user authorizing it once at the
    /// upstream's authorization server through URL-mode elicitation (JSON:
    /// `"oauth": {...}`).
    OAuth(OAuthClient),
}

/// The gateway's client at a third-party upstream's own authorization server (JSON:
/// `toolmodelCredentials.oauth`), found from the upstream's `401` (RFC 9728 protected
/// resource metadata, then RFC 8414 authorization server metadata): each user authorizes it
/// with the authorization code grant (RFC 6749 §4.1) and PKCE S256 (RFC 7636), its token for
/// the upstream's resource (RFC 8707) kept for that user and refreshed. Its `Debug` output
/// leaves the secret out.
///
/// ```
/// use toolmodel_rmcp::federation::OAuthClient;
///
/// let client = OAuthClient::new("toolmodel-gateway")
///     .with_secret("s3cr3t-value")
///     .with_scopes(["notes:read"]);
/// assert_eq!(client.scope, ["notes:read"]);
/// assert!(!format!("{client:?}").contains("s3cr3t"));
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OAuthClient {
    /// The client ID the upstream's authorization server registered for the gateway (JSON
    /// `clientId`).
    pub client_id: String,
    /// Its secret (JSON `clientSecret`, which must come from the environment:
    /// `"${env:NAME}"`), sent with HTTP Basic authentication (RFC 6749 §2.3.1); `None`: a
    /// public client (PKCE only), whose catalog cannot be read (see
    /// [`Federation`](crate::federation::Federation)).
    pub client_secret: Option<String>,
    /// The scopes asked for (JSON `scope`, one string, space-separated).
    pub scope: Vec<String>,
}

impl OAuthClient {
    /// The public client `client_id`, no scope.
    pub fn new(client_id: impl Into<String>) -> Self {
        Self {
            client_id: client_id.into(),
            client_secret: None,
            scope: Vec::new(),
        }
    }

    /// The same with a secret.
    #[must_use]
    pub fn with_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }

    /// The same asking for these scopes too (each once).
    #[must_use]
    pub fn with_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        add_scopes(&mut self.scope, scopes);
        self
    }
}

impl std::fmt::Debug for OAuthClient {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("OAuthClient")
            .field("client_id", &self.client_id)
            .field("scope", &self.scope)
            .finish_non_exhaustive()
    }
}

/// Which grant the gateway asks its authorization server for (JSON: `tokenExchange.grant`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum ExchangeGrant {
    /// OAuth 2.0 Token Exchange (RFC 8693 §2.1): `grant_type`
    /// `urn:ietf:params:oauth:grant-type:token-exchange`, the caller's token as
    /// `subject_token` (JSON: `"grant": "token-exchange"`, the default). Keycloak (standard
    /// token exchange), Auth0 (Custom Token Exchange), Okta, oidc-provider.
    #[default]
    TokenExchange,
    /// Microsoft Entra ID's on-behalf-of flow: `grant_type`
    /// `urn:ietf:params:oauth:grant-type:jwt-bearer` with the caller's token as `assertion`
    /// and `requested_token_use=on_behalf_of` (JSON: `"grant": "on-behalf-of"`).
    OnBehalfOf,
}

/// The token the gateway asks for in each user's name (RFC 8693 §2.1): at least one of
/// [`audience`](Self::audience) and [`resource`](Self::resource).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct TokenExchange {
    /// Which grant ([`ExchangeGrant`]; JSON `grant`).
    pub grant: ExchangeGrant,
    /// The logical name of the upstream at the authorization server (RFC 8693 §2.1
    /// `audience`; JSON `audience`): Keycloak's client ID of the upstream, say.
    pub audience: Option<String>,
    /// The upstream's resource identifier (RFC 8707 `resource`, RFC 8693 §2.1; JSON
    /// `resource`): an absolute `http(s)` URI without a fragment, usually the upstream's MCP
    /// URL, which a toolmodel upstream checks as its tokens' `aud`.
    pub resource: Option<String>,
    /// The scopes asked for (RFC 6749 §3.3 `scope-token`s; JSON `scope`, one string,
    /// space-separated). Entra's on-behalf-of needs one, `api://<app>/.default`.
    pub scope: Vec<String>,
    /// The `subject_token_type` sent (RFC 8693 §2.1; JSON `subjectTokenType`); `None`:
    /// `urn:ietf:params:oauth:token-type:access_token` (RFC 8693 §3). Auth0's Custom Token
    /// Exchange selects its profile by this value, which must be a URI of your own
    /// (`urn:acme:mcp-gateway`): Auth0 refuses the `urn:ietf` namespace.
    pub subject_token_type: Option<String>,
}

impl TokenExchange {
    /// An RFC 8693 exchange for the token of `resource` (RFC 8707), no audience, no scope.
    #[must_use]
    pub fn for_resource(resource: impl Into<String>) -> Self {
        Self {
            resource: Some(resource.into()),
            ..Self::default()
        }
    }

    /// The same with the `audience` parameter.
    #[must_use]
    pub fn with_audience(mut self, audience: impl Into<String>) -> Self {
        self.audience = Some(audience.into());
        self
    }

    /// The same asking for these scopes too (each once).
    #[must_use]
    pub fn with_scopes<I: IntoIterator<Item = S>, S: Into<String>>(mut self, scopes: I) -> Self {
        add_scopes(&mut self.scope, scopes);
        self
    }

    /// The same sending `subject_token_type` ([`subject_token_type`](Self::subject_token_type)).
    #[must_use]
    pub fn with_subject_token_type(mut self, uri: impl Into<String>) -> Self {
        self.subject_token_type = Some(uri.into());
        self
    }

    /// The same with another grant.
    #[must_use]
    pub fn with_grant(mut self, grant: ExchangeGrant) -> Self {
        self.grant = grant;
        self
    }
}

/// The default bound on one request to the authorization server's token endpoint (and on
/// its metadata discovery): 5 s, well under a call's default 60 s timeout.
pub const DEFAULT_EXCHANGE_TIMEOUT: Duration = Duration::from_secs(5);

/// The most users' tokens the gateway keeps at once ([`ExchangeClient::cache_capacity`]'s
/// default).
pub const DEFAULT_EXCHANGED_TOKENS: usize = 10_000;

/// The gateway's own OAuth client at its authorization server, for the token exchanges of
/// [`Credentials`] (not JSON: the `toolmodel gateway` flags `--exchange-client-id` and the
/// environment variable `MCP_EXCHANGE_CLIENT_SECRET` fill it in). The token endpoint is read
/// from the issuer's metadata (RFC 8414, then OpenID Connect Discovery). Its `Debug` output
/// leaves the secret out.
///
/// ```
/// use toolmodel_rmcp::federation::ExchangeClient;
///
/// let client = ExchangeClient::new("https://auth.example.com", "toolmodel-gateway", "s3cr3t-value");
/// assert!(!format!("{client:?}").contains("s3cr3t"));
/// ```
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct ExchangeClient {
    /// The authorization server's issuer identifier: the one that issues the callers' tokens
    /// (the gateway's `--auth-issuer`).
    pub issuer: String,
    /// The gateway's client ID there.
    pub client_id: String,
    /// Its secret, sent with HTTP Basic authentication (RFC 6749 §2.3.1,
    /// `client_secret_basic`).
    pub client_secret: String,
    /// The bound on each request to the authorization server ([`DEFAULT_EXCHANGE_TIMEOUT`]);
    /// a call also never waits for it longer than half its server's request timeout.
    pub timeout: Duration,
    /// The most exchanged tokens kept ([`DEFAULT_EXCHANGED_TOKENS`]).
    pub cache_capacity: usize,
}

impl ExchangeClient {
    /// The client `client_id` with `client_secret` at `issuer`, the default timeout and cache.
    pub fn new(
        issuer: impl Into<String>,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        Self {
            issuer: issuer.into(),
            client_id: client_id.into(),
            client_secret: client_secret.into(),
            timeout: DEFAULT_EXCHANGE_TIMEOUT,
            cache_capacity: DEFAULT_EXCHANGED_TOKENS,
        }
    }

    /// The same with another bound on each request.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }
}

impl std::fmt::Debug for ExchangeClient {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("ExchangeClient")
            .field("issuer", &self.issuer)
            .field("client_id", &self.client_id)
            .field("timeout", &self.timeout)
            .finish_non_exhaustive()
    }
}

/// Adds each of `scopes` to `list` that it does not hold yet, in their order.
fn add_scopes<I: IntoIterator<Item = S>, S: Into<String>>(list: &mut Vec<String>, scopes: I) {
    for scope in scopes {
        let scope = scope.into();
        if !list.contains(&scope) {
            list.push(scope);
        }
    }
}
