//! [`ResourceServer`]: what a protected server is configured with, its defaults, and the
//! checks made on it when it is built.

use std::{fmt, time::Duration};

use jsonwebtoken::Algorithm;
use url::Url;

use super::jwt::{AT_JWT, media_type};
use crate::Error;

/// How far `exp` and `nbf` may be off, for clocks that differ a little (RFC 7519 §4.1.4).
pub const DEFAULT_LEEWAY: Duration = Duration::from_secs(30);

/// The shortest time between two fetches of the issuer's keys caused by a token signed with a
/// key the server does not know, so that forged `kid`s cannot make it hammer the issuer.
pub const DEFAULT_KEY_REFETCH_INTERVAL: Duration = Duration::from_secs(30);

/// How many verified tokens the server remembers (by their SHA-256), each until it expires.
pub const DEFAULT_TOKEN_CACHE_CAPACITY: usize = 10_000;

/// How many requests a second the server may send the issuer's introspection endpoint, at
/// most (and at once).
pub const DEFAULT_INTROSPECTION_RATE: u32 = 50;

/// How long a request to the authorization server (discovery, keys, introspection) may take.
pub const DEFAULT_HTTP_TIMEOUT: Duration = Duration::from_secs(5);

/// The signature algorithms accepted by default: RSA (PKCS#1 v1.5 and PSS), ECDSA and EdDSA,
/// every asymmetric algorithm of RFC 7518 §3.1 and RFC 8037. Never `none`, never HMAC (a
/// resource server holds no shared secret, and an HMAC "key" made from a public key is the
/// classic algorithm-confusion attack).
const DEFAULT_ALGORITHMS: [Algorithm; 9] = [
    Algorithm::RS256,
    Algorithm::RS384,
    Algorithm::RS512,
    Algorithm::PS256,
    Algorithm::PS384,
    Algorithm::PS512,
    Algorithm::ES256,
    Algorithm::ES384,
    Algorithm::EdDSA,
];

/// The client a resource server authenticates as to the introspection endpoint (RFC 7662
/// §2.1, HTTP Basic).
#[derive(Clone)]
pub(crate) struct IntrospectionClient {
    pub(crate) client_id: String,
    pub(crate) client_secret: String,
}

/// Makes a [`ToolboxServer`](crate::ToolboxServer) an OAuth 2.1 resource server (MCP,
/// "Authorization"; both 2025-11-25 and 2026-07-28): every request to its Streamable HTTP
/// front needs an access token from `issuer` for `resource`, and each tool's
/// [`required_scopes`](toolmodel::Tool::required_scopes) are checked before it is called.
/// Give it to [`ToolboxServer::with_authorization`](crate::ToolboxServer::with_authorization);
/// the [guide](crate::guide::public) walks through the flow.
///
/// | setting | default | set with |
/// |---|---|---|
/// | scopes every request needs | none | [`with_scopes`](Self::with_scopes) |
/// | scope hierarchy | none | [`with_scope_implying`](Self::with_scope_implying) |
/// | audience check (`aud` holds `resource`, RFC 8707) | on | [`without_audience_check`](Self::without_audience_check) |
/// | JWT `typ` header (RFC 9068 §2.1) | `at+jwt` only | [`with_typ_accepted`](Self::with_typ_accepted), [`with_missing_typ_accepted`](Self::with_missing_typ_accepted) |
/// | `exp`/`nbf` leeway | [`DEFAULT_LEEWAY`] (30 s) | [`with_leeway`](Self::with_leeway) |
/// | signature algorithms | RS256/384/512, PS256/384/512, ES256/384, EdDSA | [`with_algorithms`](Self::with_algorithms) |
/// | keys refetched on an unknown `kid` at most every | [`DEFAULT_KEY_REFETCH_INTERVAL`] (30 s) | [`with_key_refetch_interval`](Self::with_key_refetch_interval) |
/// | verified tokens remembered | [`DEFAULT_TOKEN_CACHE_CAPACITY`] | [`with_token_cache_capacity`](Self::with_token_cache_capacity) |
/// | opaque tokens (RFC 7662 introspection) | refused | [`with_introspection`](Self::with_introspection) |
/// | introspection requests a second, at most | [`DEFAULT_INTROSPECTION_RATE`] (50) | [`with_introspection_rate`](Self::with_introspection_rate) |
/// | requests to the issuer time out after | [`DEFAULT_HTTP_TIMEOUT`] (5 s) | [`with_http_timeout`](Self::with_http_timeout) |
///
/// The issuer's endpoints are discovered on the first request that carries a token (RFC 8414
/// `/.well-known/oauth-authorization-server`, then OpenID Connect Discovery
/// `/.well-known/openid-configuration`), not when the server starts, so a server starts while
/// its issuer is down and refuses every token until it is reachable.
///
/// ```
/// use toolmodel_rmcp::auth::ResourceServer;
///
/// let auth = ResourceServer::new("https://auth.example.com", "https://mcp.example.com/mcp")?
///     .with_scopes(["mcp:tools"])
///     .with_scope_implying("notes:admin", ["notes:read", "notes:write"]);
/// # Ok::<(), toolmodel_rmcp::Error>(())
/// ```
#[derive(Clone)]
pub struct ResourceServer {
    pub(crate) issuer: String,
    pub(crate) resource: Url,
    pub(crate) scopes: Vec<String>,
    pub(crate) implied: Vec<(String, Vec<String>)>,
    pub(crate) algorithms: Vec<Algorithm>,
    pub(crate) leeway: Duration,
    pub(crate) audience_check: bool,
    /// The `typ` values a JWT access token may carry, as media types ([`media_type`]).
    pub(crate) typs: Vec<String>,
    /// Whether a JWT access token without `typ` is accepted.
    pub(crate) missing_typ_accepted: bool,
    pub(crate) key_refetch_interval: Duration,
    pub(crate) token_cache_capacity: usize,
    pub(crate) introspection: Option<IntrospectionClient>,
    pub(crate) introspection_rate: u32,
    pub(crate) http_timeout: Duration,
    /// The client for the issuer's endpoints (built once: it pools connections).
    pub(crate) client: reqwest::Client,
}

impl fmt::Debug for ResourceServer {
    fn fmt(&self, formatter: &mut fmt::Formatter<'_>) -> fmt::Result {
        formatter
            .debug_struct("Authorization")
            .field("issuer", &self.issuer)
            .field("resource", &self.resource.as_str())
            .field("scopes", &self.scopes)
            .field("audience_check", &self.audience_check)
            .field(
                "introspection_client",
                &self.introspection.as_ref().map(|client| &client.client_id),
            )
            .finish_non_exhaustive()
    }
}

/// Whether `url`'s host is a loopback one: `localhost`, `127.0.0.0/8` or `::1` (written as
/// such: an IPv4-mapped `::ffff:127.0.0.1` is not taken for one).
pub(super) fn on_loopback(url: &Url) -> bool {
    match url.host() {
        Some(url::Host::Domain(domain)) => domain == "localhost",
        Some(url::Host::Ipv4(ip)) => ip.is_loopback(),
        Some(url::Host::Ipv6(ip)) => ip.is_loopback(),
        None => false,
    }
}

/// Whether `url` may be talked to: `https`, or `http` on a loopback host (a test or a local
/// issuer).
fn secure_or_loopback(url: &Url) -> bool {
    match url.scheme() {
        "https" => true,
        "http" => on_loopback(url),
        _ => false,
    }
}

/// The client for the issuer's endpoints: rustls (the process's default provider when the
/// application installed one, else aws-lc-rs) with the platform's certificate verifier;
/// redirects are not followed (the metadata and keys are served where the issuer says).
fn http_client() -> Result<reqwest::Client, Error> {
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|err| config_error_from("no HTTP client for the issuer".to_owned(), err))
}

fn config_error(message: String) -> Error {
    Error::ResourceServer {
        message,
        source: None,
    }
}

fn config_error_from(
    message: String,
    source: impl std::error::Error + Send + Sync + 'static,
) -> Error {
    Error::ResourceServer {
        message,
        source: Some(Box::new(source)),
    }
}

impl ResourceServer {
    /// Tokens issued by `issuer` (the authorization server's issuer identifier, compared with
    /// each token's `iss` exactly as written) for `resource` (this server's canonical URI,
    /// RFC 8707 §2: the URL clients connect to, e.g. `https://mcp.example.com/mcp`; each
    /// token's `aud` must hold it).
    ///
    /// # Errors
    ///
    /// [`Error::ResourceServer`] when `issuer` or `resource` is not an absolute URL, when
    /// either is neither `https` nor `http` on a loopback host (RFC 8414 §2, RFC 9728 §3),
    /// when `issuer` has a query or fragment, or `resource` a fragment (RFC 8707 §2).
    pub fn new(issuer: &str, resource: &str) -> Result<Self, Error> {
        let issuer_url = Url::parse(issuer)
            .map_err(|err| config_error_from(format!("issuer {issuer:?} is not a URL"), err))?;
        let resource = Url::parse(resource)
            .map_err(|err| config_error_from(format!("resource {resource:?} is not a URL"), err))?;
        for (what, url) in [("issuer", &issuer_url), ("resource", &resource)] {
            if !secure_or_loopback(url) {
                return Err(config_error(format!(
                    "{what} {:?} is neither https nor http on a loopback host",
                    url.as_str()
                )));
            }
        }
        if issuer_url.query().is_some() || issuer_url.fragment().is_some() {
            return Err(config_error(format!(
                "issuer {issuer:?} has a query or a fragment (RFC 8414 §2)"
            )));
        }
        if resource.fragment().is_some() {
            return Err(config_error(format!(
                "resource {:?} has a fragment (RFC 8707 §2)",
                resource.as_str()
            )));
        }
        Ok(Self {
            client: http_client()?,
            issuer: issuer.to_owned(),
            resource,
            scopes: Vec::new(),
            implied: Vec::new(),
            algorithms: DEFAULT_ALGORITHMS.to_vec(),
            leeway: DEFAULT_LEEWAY,
            audience_check: true,
            typs: vec![media_type(AT_JWT)],
            missing_typ_accepted: false,
            key_refetch_interval: DEFAULT_KEY_REFETCH_INTERVAL,
            token_cache_capacity: DEFAULT_TOKEN_CACHE_CAPACITY,
            introspection: None,
            introspection_rate: DEFAULT_INTROSPECTION_RATE,
            http_timeout: DEFAULT_HTTP_TIMEOUT,
        })
    }

    /// The issuer identifier tokens must carry in `iss`.
    #[must_use]
    pub fn issuer(&self) -> &str {
        &self.issuer
    }

    /// This server's canonical URI, the audience tokens must be issued for.
    #[must_use]
    pub fn resource(&self) -> &str {
        self.resource.as_str()
    }

    /// Scopes every request needs, besides each tool's own: named in the `scope` of a 401
    /// challenge (MCP, "Scope Selection Strategy") and in `scopes_supported`.
    #[must_use]
    pub fn with_scopes<S: Into<String>>(mut self, scopes: impl IntoIterator<Item = S>) -> Self {
        self.scopes.extend(scopes.into_iter().map(Into::into));
        self
    }

    /// A token granted `broader` holds each of `narrower` too (MCP, "Step-Up Authorization
    /// Flow": servers account for scope hierarchies). Chains are followed: `admin` implying
    /// `write` implying `read` makes `admin` enough for `read`.
    #[must_use]
    pub fn with_scope_implying<S: Into<String>>(
        mut self,
        broader: impl Into<String>,
        narrower: impl IntoIterator<Item = S>,
    ) -> Self {
        self.implied.push((
            broader.into(),
            narrower.into_iter().map(Into::into).collect(),
        ));
        self
    }

    /// Accepts tokens whatever their `aud`. MCP requires the audience check (a token issued
    /// for another server must not be accepted here): turn it off only behind a gateway that
    /// checked it already.
    #[must_use]
    pub fn without_audience_check(mut self) -> Self {
        self.audience_check = false;
        self
    }

    /// Also accepts JWT access tokens whose `typ` header (RFC 7515 §4.1.9) is `typ`, e.g.
    /// `"JWT"`, for an issuer that does not type its access tokens `at+jwt` as RFC 9068 §2.1
    /// asks. Compared as a media type: case-insensitively, `application/` implied when it has
    /// no `/` (`"JWT"` also accepts `application/jwt`). Each call adds one.
    ///
    /// Without it only `at+jwt` (or `application/at+jwt`) is accepted: the type is what tells
    /// an access token from another JWT the issuer signs with the same keys (an OpenID
    /// Connect ID token, a logout token), so accept another only for an issuer that issues
    /// its access tokens with it, and keep the audience check on (RFC 9068 §4).
    ///
    /// # Errors
    ///
    /// [`Error::ResourceServer`] when `typ` is empty or holds whitespace (a token without
    /// `typ` is accepted with [`with_missing_typ_accepted`](Self::with_missing_typ_accepted)).
    pub fn with_typ_accepted(mut self, typ: impl Into<String>) -> Result<Self, Error> {
        let typ = typ.into();
        if typ.is_empty() || typ.contains(char::is_whitespace) {
            return Err(config_error(format!(
                "{typ:?} is no JWS typ (RFC 7515 §4.1.9): empty or with whitespace"
            )));
        }
        self.typs.push(media_type(&typ));
        Ok(self)
    }

    /// Also accepts JWT access tokens without a `typ` header, for an issuer that leaves it
    /// out (RFC 9068 §2.1 requires `at+jwt`). Such a token could as well be another JWT of the
    /// issuer's: keep the audience check on, so that only tokens for this resource pass.
    #[must_use]
    pub fn with_missing_typ_accepted(mut self) -> Self {
        self.missing_typ_accepted = true;
        self
    }

    /// How far `exp` and `nbf` may be off ([`DEFAULT_LEEWAY`] without it).
    #[must_use]
    pub fn with_leeway(mut self, leeway: Duration) -> Self {
        self.leeway = leeway;
        self
    }

    /// Accepts only tokens signed with these algorithms (JWA names, RFC 7518 §3.1: `"RS256"`,
    /// `"ES256"`, `"EdDSA"`...), in place of the defaults.
    ///
    /// # Errors
    ///
    /// [`Error::ResourceServer`] for an empty list, a name that is no JWA signature algorithm,
    /// `none`, or an HMAC algorithm (`HS256`, `HS384`, `HS512`: a resource server verifies
    /// with the issuer's public keys, never a shared secret).
    pub fn with_algorithms<'a>(
        mut self,
        names: impl IntoIterator<Item = &'a str>,
    ) -> Result<Self, Error> {
        let mut algorithms = Vec::new();
        for name in names {
            let algorithm: Algorithm = name.parse().map_err(|_| {
                config_error(format!("{name:?} is no JWA signature algorithm (RFC 7518)"))
            })?;
            if matches!(
                algorithm,
                Algorithm::HS256 | Algorithm::HS384 | Algorithm::HS512
            ) {
                return Err(config_error(format!(
                    "{name} is an HMAC algorithm: a resource server verifies with public keys"
                )));
            }
            algorithms.push(algorithm);
        }
        if algorithms.is_empty() {
            return Err(config_error("no signature algorithm accepted".to_owned()));
        }
        self.algorithms = algorithms;
        Ok(self)
    }

    /// The shortest time between two fetches of the issuer's keys caused by an unknown `kid`
    /// ([`DEFAULT_KEY_REFETCH_INTERVAL`] without it). A key rotated in at the issuer is picked
    /// up by the first token that uses it, once this long has passed since the last fetch.
    #[must_use]
    pub fn with_key_refetch_interval(mut self, interval: Duration) -> Self {
        self.key_refetch_interval = interval;
        self
    }

    /// How many verified tokens to remember ([`DEFAULT_TOKEN_CACHE_CAPACITY`] without it; 0:
    /// verify every request).
    #[must_use]
    pub fn with_token_cache_capacity(mut self, capacity: usize) -> Self {
        self.token_cache_capacity = capacity;
        self
    }

    /// Accepts opaque (non-JWT) tokens too, asking the issuer's introspection endpoint (RFC
    /// 7662, from its metadata's `introspection_endpoint`) as the client `client_id` with
    /// `client_secret` (HTTP Basic, RFC 7662 §2.1). An introspected token is remembered for
    /// at most a minute, so a revoked one stops working within that; a token the issuer
    /// refused is refused without asking again for 30 seconds (as many of them remembered as
    /// [verified tokens](Self::with_token_cache_capacity)), and the issuer is sent at most
    /// [`with_introspection_rate`](Self::with_introspection_rate) requests a second.
    #[must_use]
    pub fn with_introspection(
        mut self,
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> Self {
        self.introspection = Some(IntrospectionClient {
            client_id: client_id.into(),
            client_secret: client_secret.into(),
        });
        self
    }

    /// The most requests a second the server sends the issuer's introspection endpoint
    /// ([`DEFAULT_INTROSPECTION_RATE`] without it), that many at once at most: anyone can send
    /// a token, and each new one would cost the issuer a request made with the server's
    /// credentials. A token bucket: past the rate, an opaque token not verified or refused
    /// already gets 503 with `Retry-After`, as when the issuer is unreachable (it is not
    /// taken for invalid: a client would throw a good token away), until the bucket refills.
    ///
    /// # Errors
    ///
    /// [`Error::ResourceServer`] for 0 (opaque tokens would all be refused: leave
    /// [`with_introspection`](Self::with_introspection) out instead).
    pub fn with_introspection_rate(mut self, per_second: u32) -> Result<Self, Error> {
        if per_second == 0 {
            return Err(config_error(
                "an introspection rate of 0 requests a second refuses every opaque token"
                    .to_owned(),
            ));
        }
        self.introspection_rate = per_second;
        Ok(self)
    }

    /// How long a request to the authorization server may take ([`DEFAULT_HTTP_TIMEOUT`]
    /// without it).
    #[must_use]
    pub fn with_http_timeout(mut self, timeout: Duration) -> Self {
        self.http_timeout = timeout;
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_http_is_refused_off_loopback() {
        assert!(
            ResourceServer::new("https://auth.example.com", "https://mcp.example.com/mcp").is_ok()
        );
        assert!(ResourceServer::new("http://127.0.0.1:9000", "http://localhost:8080/mcp").is_ok());
        let err = ResourceServer::new("http://auth.example.com", "https://mcp.example.com/mcp")
            .unwrap_err();
        assert!(err.to_string().contains("auth.example.com"), "{err}");
        assert!(ResourceServer::new("https://a.example", "https://m.example/mcp#x").is_err());
        assert!(ResourceServer::new("not a url", "https://m.example/mcp").is_err());
    }

    #[test]
    fn hmac_and_none_are_never_accepted() {
        let auth = ResourceServer::new("https://a.example", "https://m.example/mcp").unwrap();
        for names in [vec!["HS256"], vec!["none"], vec![], vec!["ES256", "HS512"]] {
            assert!(
                auth.clone().with_algorithms(names.clone()).is_err(),
                "{names:?}"
            );
        }
        let pinned = auth.with_algorithms(["ES256"]).unwrap();
        assert_eq!(pinned.algorithms, vec![Algorithm::ES256]);
    }

    #[test]
    fn a_typ_is_kept_as_a_media_type_and_an_empty_one_is_refused() {
        let auth = ResourceServer::new("https://a.example", "https://m.example/mcp").unwrap();
        assert_eq!(auth.typs, ["application/at+jwt"]);
        assert!(!auth.missing_typ_accepted);
        let auth = auth.with_typ_accepted("JWT").unwrap();
        assert_eq!(auth.typs, ["application/at+jwt", "application/jwt"]);
        for bad in ["", "at jwt"] {
            assert!(auth.clone().with_typ_accepted(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_secret_is_not_in_debug_output() {
        let auth = ResourceServer::new("https://a.example", "https://m.example/mcp")
            .unwrap()
            .with_introspection("rs", "very-secret");
        assert!(!format!("{auth:?}").contains("very-secret"));
    }
}
