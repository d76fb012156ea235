//! [`Exchanger`]: the gateway's requests to its authorization server's token endpoint (found
//! in the issuer's RFC 8414 metadata): each user's token exchanged for one of an upstream's
//! audience (RFC 8693 §2.1, or Entra's on-behalf-of), the gateway's own token for an
//! upstream's catalog (`client_credentials`, RFC 6749 §4.4, with RFC 8707's `resource`); each
//! response read strictly (RFC 8693 §2.2), each refusal read as RFC 6749 §5.2 says (RFC 8693
//! §2.2.2), each request bounded; the tokens kept until shortly before they expire
//! ([`cache`](super::cache)). No token is logged, put in a span or shown by `Debug`.

use std::{sync::Arc, time::Duration};

use serde::Deserialize;
use toolmodel::AccessToken;
use url::Url;

use super::cache::{Exchanged, Key, Whose};
use super::config::{ExchangeClient, ExchangeGrant, TokenExchange};
use super::flight::Flights;

/// RFC 8693 §2.1's `grant_type`.
const TOKEN_EXCHANGE: &str = "urn:ietf:params:oauth:grant-type:token-exchange";
/// RFC 7523's `grant_type`, which Entra's on-behalf-of flow uses.
const JWT_BEARER: &str = "urn:ietf:params:oauth:grant-type:jwt-bearer";
/// RFC 8693 §3's token type of an access token.
const ACCESS_TOKEN_TYPE: &str = "urn:ietf:params:oauth:token-type:access_token";
/// How long a token whose response states no `expires_in` is kept.
const UNSTATED_LIFETIME: Duration = Duration::from_secs(60);

/// Why the gateway has no token of a user for an upstream.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ExchangeError {
    /// The authorization server refused (RFC 6749 §5.2, RFC 8693 §2.2.2: `invalid_grant`,
    /// `invalid_target`, `invalid_scope`, `unauthorized_client`, ...).
    #[error("the authorization server refused the token exchange: {error}{}", .description.as_deref().map(|d| format!(" ({d})")).unwrap_or_default())]
    Refused {
        /// Its `error` code.
        error: String,
        /// Its `error_description`, when it gave one.
        description: Option<String>,
    },
    /// It could not be reached, or did not answer in time.
    #[error("the authorization server could not be reached for the token exchange: {0}")]
    Unreachable(String),
    /// It answered something RFC 8693 §2.2 does not allow.
    #[error("the authorization server's token exchange response is not valid: {0}")]
    Malformed(String),
}

impl ExchangeError {
    /// No token within `limit`.
    pub(crate) fn no_answer_within(limit: Duration) -> Self {
        Self::Unreachable(format!("no answer within {} ms", limit.as_millis()))
    }
}

/// RFC 8693 §2.2.1's response (RFC 6749 §5.1's), the members read.
#[derive(Deserialize)]
struct Response {
    access_token: String,
    issued_token_type: Option<String>,
    token_type: String,
    expires_in: Option<u64>,
    refresh_token: Option<String>,
}

/// RFC 6749 §5.2's error response.
#[derive(Deserialize)]
struct Refusal {
    error: String,
    error_description: Option<String>,
}

/// The gateway's client at its authorization server, and the tokens it obtained.
pub(crate) struct Exchanger {
    client: ExchangeClient,
    http: reqwest::Client,
    /// The token endpoint, once discovered.
    token_endpoint: tokio::sync::Mutex<Option<Url>>,
    cache: super::cache::Cache,
    /// The requests to the token endpoint running, one per key: concurrent first calls of a
    /// user share one exchange.
    flights: Flights<Key, Result<AccessToken, ExchangeError>>,
}

impl std::fmt::Debug for Exchanger {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Exchanger")
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}

impl Exchanger {
    /// The exchanger of `client` (nothing fetched yet).
    ///
    /// # Errors
    ///
    /// A sentence when the HTTP client cannot be built (no TLS backend).
    pub(crate) fn new(client: ExchangeClient) -> Result<Arc<Self>, String> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .build()
            .map_err(|err| format!("cannot build the token exchange's HTTP client: {err}"))?;
        Ok(Arc::new(Self {
            cache: super::cache::Cache::new(client.cache_capacity),
            client,
            http,
            token_endpoint: tokio::sync::Mutex::new(None),
            flights: Flights::new(),
        }))
    }

    /// The token of the caller `subject` of `issuer` (whose own access token is
    /// `subject_token`) for `server`, as `exchange` describes it: the one kept, or a new one
    /// exchanged, waiting at most `limit` for the authorization server. Concurrent calls for
    /// the same key share one exchange ([`Flights`]).
    ///
    /// # Errors
    ///
    /// [`ExchangeError`] when the exchange is refused, fails or takes longer than `limit`.
    pub(crate) async fn for_user(
        self: &Arc<Self>,
        server: &str,
        exchange: &TokenExchange,
        (issuer, subject): (&str, &str),
        subject_token: &AccessToken,
        limit: Duration,
    ) -> Result<AccessToken, ExchangeError> {
        let key = Key::new(
            Whose::User {
                issuer: issuer.to_owned(),
                subject: subject.to_owned(),
            },
            server,
            exchange,
        );
        let mut form = vec![];
        match exchange.grant {
            ExchangeGrant::TokenExchange => {
                form.push(("grant_type", TOKEN_EXCHANGE.to_owned()));
                form.push(("subject_token", subject_token.secret().to_owned()));
                let subject_type = exchange.subject_token_type.as_deref();
                form.push((
                    "subject_token_type",
                    subject_type.unwrap_or(ACCESS_TOKEN_TYPE).to_owned(),
                ));
                form.push(("requested_token_type", ACCESS_TOKEN_TYPE.to_owned()));
            }
            ExchangeGrant::OnBehalfOf => {
                form.push(("grant_type", JWT_BEARER.to_owned()));
                form.push(("assertion", subject_token.secret().to_owned()));
                form.push(("requested_token_use", "on_behalf_of".to_owned()));
            }
        }
        self.kept_or_asked(key, exchange, form, limit).await
    }

    /// The gateway's own token for `server` (`client_credentials` with `exchange`'s
    /// `resource`, `audience` and `scope`): what it reads the server's catalog with.
    ///
    /// # Errors
    ///
    /// As [`for_user`](Self::for_user).
    pub(crate) async fn for_gateway(
        self: &Arc<Self>,
        server: &str,
        exchange: &TokenExchange,
        limit: Duration,
    ) -> Result<AccessToken, ExchangeError> {
        let key = Key::new(Whose::Gateway, server, exchange);
        let form = vec![("grant_type", "client_credentials".to_owned())];
        self.kept_or_asked(key, exchange, form, limit).await
    }

    /// The token kept under `key`, or the one the token endpoint gives for `form` and
    /// `exchange`'s target (kept then): one request per key at a time, which the calls that
    /// come meanwhile wait for, each at most `limit`; the request itself is bounded by the
    /// client's timeout.
    async fn kept_or_asked(
        self: &Arc<Self>,
        key: Key,
        exchange: &TokenExchange,
        mut form: Vec<(&'static str, String)>,
        limit: Duration,
    ) -> Result<AccessToken, ExchangeError> {
        if let Some(token) = self.cache.get(&key) {
            return Ok(token);
        }
        if let Some(resource) = &exchange.resource {
            form.push(("resource", resource.clone()));
        }
        if let Some(audience) = &exchange.audience {
            form.push(("audience", audience.clone()));
        }
        if !exchange.scope.is_empty() {
            form.push(("scope", exchange.scope.join(" ")));
        }
        let this = Arc::clone(self);
        let flight_key = key.clone();
        let flight = self.flights.join(key, || async move {
            // A request that ended just before this one started kept its token.
            if let Some(token) = this.cache.get(&flight_key) {
                return Ok(token);
            }
            let timeout = this.client.timeout;
            let asked = tokio::time::timeout(timeout, this.ask(&form))
                .await
                .unwrap_or_else(|_| Err(ExchangeError::no_answer_within(timeout)))?;
            this.cache.insert(flight_key, asked.clone());
            Ok(asked.token)
        });
        let limit = limit.min(self.client.timeout);
        tokio::time::timeout(limit, flight)
            .await
            .map_err(|_| ExchangeError::no_answer_within(limit))?
            .unwrap_or_else(|| {
                Err(ExchangeError::Unreachable(
                    "the token request ended without an answer".into(),
                ))
            })
    }

    /// The token endpoint, discovered once (again after a failure).
    async fn endpoint(&self) -> Result<Url, ExchangeError> {
        let mut endpoint = self.token_endpoint.lock().await;
        if let Some(url) = &*endpoint {
            return Ok(url.clone());
        }
        let found = crate::auth::discover_at(&self.http, &self.client.issuer, self.client.timeout)
            .await
            .ok_or_else(|| {
                ExchangeError::Unreachable(format!(
                    "no metadata of issuer {:?} (RFC 8414, OpenID Connect Discovery)",
                    self.client.issuer
                ))
            })?
            .token_endpoint
            .ok_or_else(|| {
                ExchangeError::Malformed(format!(
                    "the metadata of issuer {:?} names no token_endpoint the gateway may use (https, or http on loopback for a loopback issuer)",
                    self.client.issuer
                ))
            })?;
        *endpoint = Some(found.clone());
        Ok(found)
    }

    /// One request to the token endpoint with `form`, the client authenticated with HTTP
    /// Basic ([`request_token`]).
    async fn ask(&self, form: &[(&'static str, String)]) -> Result<Exchanged, ExchangeError> {
        let endpoint = self.endpoint().await?;
        let client = (
            self.client.client_id.as_str(),
            Some(self.client.client_secret.as_str()),
        );
        let issued = request_token(&self.http, endpoint, client, form).await?;
        Ok(Exchanged::new(issued.access_token, issued.lifetime))
    }
}

/// What a token endpoint issued (RFC 6749 §5.1, RFC 8693 §2.2.1).
pub(crate) struct Issued {
    /// The access token.
    pub(crate) access_token: AccessToken,
    /// The refresh token (RFC 6749 §5.1 `refresh_token`), when one was issued. Never logged.
    pub(crate) refresh_token: Option<String>,
    /// Its stated lifetime (`expires_in`; a minute when not stated).
    pub(crate) lifetime: Duration,
}

/// One request to the token `endpoint` with `form`: the client `(id, secret)` authenticated
/// with HTTP Basic (RFC 6749 §2.3.1) when it has a secret, else named by `client_id` in the
/// form (a public client, RFC 6749 §3.2.1). The answer must be a `Bearer` token (a
/// sender-constrained one could not be sent as it is) and, when it states its RFC 8693
/// §2.2.1 `issued_token_type`, an access token (Auth0's Custom Token Exchange and Entra's
/// on-behalf-of answer as RFC 6749 §5.1 does, without it); a missing `expires_in` is taken as
/// a minute.
///
/// # Errors
///
/// [`ExchangeError::Refused`] for an RFC 6749 §5.2 error response,
/// [`ExchangeError::Unreachable`] when the request fails, [`ExchangeError::Malformed`] for
/// any other answer.
pub(crate) async fn request_token(
    http: &reqwest::Client,
    endpoint: Url,
    (client_id, client_secret): (&str, Option<&str>),
    form: &[(&'static str, String)],
) -> Result<Issued, ExchangeError> {
    let unreachable =
        |err: reqwest::Error| ExchangeError::Unreachable(err.without_url().to_string());
    let request = match client_secret {
        Some(secret) => http
            .post(endpoint)
            .basic_auth(form_encode(client_id), Some(form_encode(secret)))
            .form(form),
        None => {
            let mut form = form.to_vec();
            form.push(("client_id", client_id.to_owned()));
            http.post(endpoint).form(&form)
        }
    };
    let response = request.send().await.map_err(unreachable)?;
    let status = response.status();
    let body = response.bytes().await.map_err(unreachable)?;
    if !status.is_success() {
        return Err(match serde_json::from_slice::<Refusal>(&body) {
            Ok(refusal) => ExchangeError::Refused {
                error: refusal.error,
                description: refusal.error_description,
            },
            Err(_) => {
                ExchangeError::Malformed(format!("HTTP {status} without an RFC 6749 §5.2 error"))
            }
        });
    }
    let issued: Response = serde_json::from_slice(&body)
        .map_err(|err| ExchangeError::Malformed(format!("{err} (RFC 8693 §2.2.1)")))?;
    if !issued.token_type.eq_ignore_ascii_case("bearer") {
        return Err(ExchangeError::Malformed(format!(
            "token_type {:?}, not Bearer",
            issued.token_type
        )));
    }
    if let Some(issued_type) = &issued.issued_token_type
        && issued_type != ACCESS_TOKEN_TYPE
    {
        return Err(ExchangeError::Malformed(format!(
            "issued_token_type {issued_type:?}, not {ACCESS_TOKEN_TYPE}"
        )));
    }
    if issued.access_token.is_empty() {
        return Err(ExchangeError::Malformed("an empty access_token".into()));
    }
    Ok(Issued {
        access_token: AccessToken::new(issued.access_token),
        refresh_token: issued.refresh_token.filter(|token| !token.is_empty()),
        lifetime: issued
            .expires_in
            .map_or(UNSTATED_LIFETIME, Duration::from_secs),
    })
}

/// `text` encoded as RFC 6749 §2.3.1 has a client ID and secret encoded before HTTP Basic
/// (`application/x-www-form-urlencoded`).
fn form_encode(text: &str) -> String {
    url::form_urlencoded::byte_serialize(text.as_bytes()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};

    /// An issuer on loopback whose metadata names its `/token`, which answers `status` and
    /// `body` to every request; the bodies of the token requests it received.
    async fn canned(
        status: u16,
        body: serde_json::Value,
    ) -> (String, Arc<std::sync::Mutex<Vec<String>>>) {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let issuer = format!("http://{}", listener.local_addr().unwrap());
        let received = Arc::new(std::sync::Mutex::new(Vec::new()));
        let (url, seen) = (issuer.clone(), Arc::clone(&received));
        tokio::spawn(async move {
            while let Ok((mut connection, _)) = listener.accept().await {
                let mut request = vec![0u8; 16 * 1024];
                let n = connection.read(&mut request).await.unwrap_or(0);
                let request = String::from_utf8_lossy(&request[..n]).into_owned();
                let (status, body) = if request
                    .starts_with("GET /.well-known/oauth-authorization-server")
                {
                    (
                        200,
                        serde_json::json!({"issuer": url, "token_endpoint": format!("{url}/token")}),
                    )
                } else {
                    seen.lock().unwrap().push(request);
                    (status, body.clone())
                };
                let body = body.to_string();
                let head = format!(
                    "HTTP/1.1 {status} X\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
                    body.len()
                );
                let _ = connection
                    .write_all(format!("{head}{body}").as_bytes())
                    .await;
            }
        });
        (issuer, received)
    }

    async fn exchange(issuer: &str) -> Result<AccessToken, ExchangeError> {
        let exchanger = Exchanger::new(ExchangeClient::new(issuer, "gate way", "s3cr:t")).unwrap();
        exchanger
            .for_user(
                "notes",
                &TokenExchange::for_resource("https://notes.example.com/mcp")
                    .with_scopes(["a", "b"]),
                (issuer, "alice"),
                &AccessToken::new("the-callers-token"),
                Duration::from_secs(5),
            )
            .await
    }

    #[tokio::test]
    async fn the_request_is_rfc_8693_and_the_response_is_read_strictly() {
        let token = |extra: serde_json::Value| {
            let mut body = serde_json::json!({"access_token": "new", "token_type": "Bearer", "expires_in": 300});
            body.as_object_mut()
                .unwrap()
                .extend(extra.as_object().unwrap().clone());
            body
        };
        let (issuer, received) = canned(
            200,
            token(serde_json::json!({"issued_token_type": ACCESS_TOKEN_TYPE})),
        )
        .await;
        assert_eq!(exchange(&issuer).await.unwrap().secret(), "new");
        let request = received.lock().unwrap()[0].clone();
        assert!(request.starts_with("POST /token "), "{request}");
        // RFC 6749 §2.3.1: the ID and secret form-encoded, then HTTP Basic.
        let basic = base64::Engine::encode(
            &base64::engine::general_purpose::STANDARD,
            "gate+way:s3cr%3At",
        );
        assert!(
            request.contains(&format!("authorization: Basic {basic}")),
            "{request}"
        );
        let body = request.split("\r\n\r\n").nth(1).unwrap();
        assert_eq!(
            body,
            "grant_type=urn%3Aietf%3Aparams%3Aoauth%3Agrant-type%3Atoken-exchange&subject_token=the-callers-token\
             &subject_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token\
             &requested_token_type=urn%3Aietf%3Aparams%3Aoauth%3Atoken-type%3Aaccess_token\
             &resource=https%3A%2F%2Fnotes.example.com%2Fmcp&scope=a+b"
        );
        for (status, body, expected) in [
            (
                200,
                token(serde_json::json!({"token_type": "DPoP"})),
                ExchangeError::Malformed("token_type \"DPoP\", not Bearer".into()),
            ),
            (
                200,
                token(
                    serde_json::json!({"issued_token_type": "urn:ietf:params:oauth:token-type:refresh_token"}),
                ),
                ExchangeError::Malformed(format!(
                    "issued_token_type \"urn:ietf:params:oauth:token-type:refresh_token\", not {ACCESS_TOKEN_TYPE}"
                )),
            ),
            (
                400,
                serde_json::json!({"error": "invalid_target", "error_description": "no such API"}),
                ExchangeError::Refused {
                    error: "invalid_target".into(),
                    description: Some("no such API".into()),
                },
            ),
            (
                502,
                serde_json::json!("bad gateway"),
                ExchangeError::Malformed(
                    "HTTP 502 Bad Gateway without an RFC 6749 §5.2 error".into(),
                ),
            ),
        ] {
            let (issuer, _) = canned(status, body).await;
            assert_eq!(exchange(&issuer).await.unwrap_err(), expected);
        }
        // Auth0 and Entra state no issued_token_type: accepted.
        let (issuer, _) = canned(200, token(serde_json::json!({}))).await;
        assert_eq!(exchange(&issuer).await.unwrap().secret(), "new");
    }

    /// An issuer that accepts connections and never answers: the exchange ends at its limit
    /// with [`ExchangeError::Unreachable`], never hangs.
    #[tokio::test]
    async fn an_issuer_that_never_answers_is_unreachable_at_the_limit() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let issuer = format!("http://{}", listener.local_addr().unwrap());
        let held = tokio::spawn(async move {
            let mut connections = Vec::new();
            while let Ok((connection, _)) = listener.accept().await {
                connections.push(connection);
            }
        });
        let exchanger = Exchanger::new(ExchangeClient::new(&issuer, "gateway", "secret")).unwrap();
        let started = std::time::Instant::now();
        let err = exchanger
            .for_user(
                "notes",
                &TokenExchange::for_resource("https://notes.example.com/mcp"),
                (&issuer, "alice"),
                &AccessToken::new("t"),
                Duration::from_millis(300),
            )
            .await
            .unwrap_err();
        assert_eq!(
            err,
            ExchangeError::Unreachable("no answer within 300 ms".into())
        );
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "{:?}",
            started.elapsed()
        );
        held.abort();
    }
}
