//! [`Authorizer`]: the gateway as one third-party upstream's own OAuth client
//! ([`OAuthClient`], JSON `toolmodelCredentials.oauth`). It finds the upstream's
//! authorization server from the upstream's `401` (RFC 9728 §5.1 `resource_metadata`, then
//! the protected resource metadata, RFC 9728 §3, whose `resource` must be the upstream's URL,
//! then RFC 8414 / OpenID Connect Discovery metadata); asks a user to authorize it through
//! URL-mode elicitation (MCP 2025-11-25 "Elicitation"; an input round under 2026-07-28) with
//! the authorization code grant (RFC 6749 §4.1), PKCE S256 (RFC 7636), `state` and RFC 8707's
//! `resource`; redeems the code its redirect endpoint receives
//! ([`Callbacks`]); keeps each user's tokens and refreshes them
//! (RFC 6749 §6) before they expire. No token, code or verifier is logged, put in a span, shown
//! by `Debug` or put in an error.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use base64::Engine as _;
use serde::Deserialize;
use serde_json::json;
use sha2::{Digest as _, Sha256};
use toolmodel::{
    AccessToken, CallContext, ToolError,
    input::{ClientCapability, ElicitRequest, InputRequest, InputRequests},
};
use url::Url;

use super::cache::Exchanged;
use super::callback::Callbacks;
use super::config::{DEFAULT_EXCHANGE_TIMEOUT, OAuthClient};
use super::exchange::{ExchangeError, Issued, request_token};
use super::flight::Flights;
use crate::lock::lock;

/// MCP 2025-11-25's `URLElicitationRequiredError` code: the call needs a URL-mode
/// elicitation the client cannot receive (no `elicitation.url` capability).
pub const URL_ELICITATION_REQUIRED: i64 = -32042;

/// How long a user has to finish an authorization (the `state` it sent lives as long).
pub const AUTHORIZATION_TTL: Duration = Duration::from_secs(600);

/// Whose tokens: the caller's issuer and subject (at the gateway's authorization server).
pub(crate) type User = (String, String);

/// What the gateway found of the upstream's authorization server.
#[derive(Debug)]
struct Found {
    /// The upstream's resource identifier (RFC 9728 §2 `resource`), sent as RFC 8707's
    /// `resource`.
    resource: String,
    authorization_endpoint: Url,
    token_endpoint: Url,
}

/// A user's tokens for the upstream.
struct Held {
    /// The access token and until when it is used (the [`cache`](super::cache) skew).
    access: Exchanged,
    refresh: Option<String>,
}

/// One authorization a user was asked for, until its `state` comes back or expires.
pub(crate) struct Pending {
    /// RFC 6749 §10.12's `state`: 256 random bits, single-use.
    pub(crate) state: String,
    /// The authorization request's URL, which the user opens.
    pub(crate) url: String,
    /// The `elicitationId` of the URL-mode elicitation.
    pub(crate) elicitation_id: String,
    /// RFC 7636's `code_verifier`.
    verifier: String,
    pub(crate) user: User,
    pub(crate) expires: Instant,
    /// Whether it is in the token store too, for a redirect that reaches another replica.
    #[cfg(feature = "redis")]
    pub(crate) shared: bool,
    /// `Some(Ok)` once the tokens are kept, `Some(Err(why))` when it failed.
    done: tokio::sync::watch::Sender<Option<Result<(), String>>>,
}

impl Pending {
    /// Ends the authorization: its waiting call goes on (or fails with `outcome`'s sentence).
    pub(crate) fn finish(&self, outcome: Result<(), String>) {
        self.done.send_replace(Some(outcome));
    }

    /// What another replica needs of it to redeem its code (feature `redis`).
    #[cfg(feature = "redis")]
    fn handoff(&self, server: &str) -> super::shared::Handoff {
        let left = self.expires.saturating_duration_since(Instant::now());
        super::shared::Handoff {
            server: server.to_owned(),
            user: self.user.clone(),
            verifier: self.verifier.clone(),
            expires_at: super::store::now_unix() + left.as_secs(),
        }
    }
}

/// The token endpoint's RFC 6749 §5.2 refusal of a refresh, which needs a new authorization.
enum Refresh {
    Refused,
    Failed(String),
}

/// One third-party upstream's OAuth client, and its users' tokens (kept in memory).
pub(crate) struct Authorizer {
    server: String,
    url: String,
    client: OAuthClient,
    callbacks: Arc<Callbacks>,
    http: reqwest::Client,
    /// The Redis store of the tokens, when the gateway has one (feature `redis`).
    #[cfg(feature = "redis")]
    store: Option<Arc<super::store::Sealed>>,
    found: tokio::sync::Mutex<Option<Arc<Found>>>,
    tokens: Mutex<HashMap<User, Held>>,
    gateway: Mutex<Option<Exchanged>>,
    pending: Mutex<HashMap<User, Arc<Pending>>>,
    /// The refreshes running, one per user: a refresh token is presented once (RFC 9700
    /// §4.14.2 rotation spends it), however many calls find the token nearly expired.
    refreshing: Flights<User, Result<Option<AccessToken>, String>>,
}

impl std::fmt::Debug for Authorizer {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Authorizer")
            .field("server", &self.server)
            .field("client", &self.client)
            .finish_non_exhaustive()
    }
}

/// RFC 9728 §3.2's protected resource metadata, the members read.
#[derive(Deserialize)]
struct ResourceMetadata {
    resource: String,
    #[serde(default)]
    authorization_servers: Vec<String>,
}

/// 256 random bits from the operating system, base64url without padding (RFC 7636 §4.1's
/// `code_verifier` alphabet); a sentence when it has none to give.
fn random() -> Result<String, String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)
        .map_err(|err| format!("the operating system gave no random bytes: {err}"))?;
    Ok(base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(bytes))
}

impl Authorizer {
    /// The client `client` of the server `server` at `url`, its redirect endpoint and HTTP
    /// client those of `callbacks`.
    pub(crate) fn new(
        server: &str,
        url: &str,
        client: OAuthClient,
        callbacks: Arc<Callbacks>,
    ) -> Arc<Self> {
        let authorizer = Arc::new(Self {
            server: server.to_owned(),
            url: url.to_owned(),
            client,
            http: callbacks.http().clone(),
            #[cfg(feature = "redis")]
            store: callbacks.store(),
            callbacks,
            found: tokio::sync::Mutex::new(None),
            tokens: Mutex::new(HashMap::new()),
            gateway: Mutex::new(None),
            pending: Mutex::new(HashMap::new()),
            refreshing: Flights::new(),
        });
        #[cfg(feature = "redis")]
        authorizer.callbacks.enrol(&authorizer);
        authorizer
    }

    /// The server's name.
    pub(crate) fn server(&self) -> &str {
        &self.server
    }

    /// The upstream's authorization server, found once (again after a failure): the `401`
    /// of a request without a token names its protected resource metadata (RFC 9728 §5.1;
    /// without `resource_metadata`, the well-known URI of RFC 9728 §3.1), whose `resource`
    /// must be the upstream's URL (RFC 9728 §3.3) and whose first `authorization_servers`
    /// entry is the issuer; its RFC 8414 metadata names the endpoints.
    async fn found(&self) -> Result<Arc<Found>, String> {
        let mut found = self.found.lock().await;
        if let Some(found) = &*found {
            return Ok(Arc::clone(found));
        }
        let failed = |err: reqwest::Error| err.without_url().to_string();
        let probe = self
            .http
            .post(&self.url)
            .header(http::header::ACCEPT, "application/json, text/event-stream")
            .json(&json!({"jsonrpc": "2.0", "id": 0, "method": "ping"}))
            .send()
            .await
            .map_err(failed)?;
        let named = probe
            .headers()
            .get_all(http::header::WWW_AUTHENTICATE)
            .iter()
            .filter_map(|value| value.to_str().ok())
            .find_map(resource_metadata_of);
        let metadata_url = match named {
            Some(url) => url,
            None => {
                let mut url = Url::parse(&self.url).map_err(|err| err.to_string())?;
                let path = url.path().trim_end_matches('/').to_owned();
                url.set_path(&format!("/.well-known/oauth-protected-resource{path}"));
                url.set_query(None);
                url.to_string()
            }
        };
        let metadata: ResourceMetadata = self
            .http
            .get(&metadata_url)
            .send()
            .await
            .map_err(failed)?
            .error_for_status()
            .map_err(failed)?
            .json()
            .await
            .map_err(|err| format!("its protected resource metadata (RFC 9728 §3.2): {err}"))?;
        if metadata.resource.trim_end_matches('/') != self.url.trim_end_matches('/') {
            return Err(format!(
                "its protected resource metadata names the resource {:?}, not its URL (RFC 9728 §3.3)",
                metadata.resource
            ));
        }
        let issuer = metadata.authorization_servers.first().ok_or(
            "its protected resource metadata names no authorization_servers (RFC 9728 §2)",
        )?;
        let endpoints = crate::auth::discover_at(&self.http, issuer, DEFAULT_EXCHANGE_TIMEOUT)
            .await
            .ok_or_else(|| {
                format!("no metadata of its authorization server {issuer:?} (RFC 8414, OpenID Connect Discovery)")
            })?;
        let (Some(authorization_endpoint), Some(token_endpoint)) =
            (endpoints.authorization_endpoint, endpoints.token_endpoint)
        else {
            return Err(format!(
                "the metadata of {issuer:?} names no authorization_endpoint and token_endpoint the gateway may use (https, or http on loopback for a loopback issuer)"
            ));
        };
        let new = Arc::new(Found {
            resource: metadata.resource,
            authorization_endpoint,
            token_endpoint,
        });
        *found = Some(Arc::clone(&new));
        Ok(new)
    }

    /// The form's client, authenticated by its secret when it has one.
    fn credentials(&self) -> (&str, Option<&str>) {
        (&self.client.client_id, self.client.client_secret.as_deref())
    }

    /// `form` with the upstream's `resource` (RFC 8707) and the client's `scope`.
    fn targeted(
        &self,
        found: &Found,
        mut form: Vec<(&'static str, String)>,
    ) -> Vec<(&'static str, String)> {
        form.push(("resource", found.resource.clone()));
        if !self.client.scope.is_empty() {
            form.push(("scope", self.client.scope.join(" ")));
        }
        form
    }

    /// The gateway's own token for the upstream (`client_credentials`, RFC 6749 §4.4, with
    /// `resource` and `scope`): what its catalog is read with; kept until shortly before it
    /// expires.
    ///
    /// # Errors
    ///
    /// [`ExchangeError`] when the authorization server cannot be found or refuses.
    pub(crate) async fn for_gateway(&self) -> Result<AccessToken, ExchangeError> {
        if let Some(kept) = &*lock(&self.gateway)
            && kept.until > Instant::now()
        {
            return Ok(kept.token.clone());
        }
        if self.client.client_secret.is_none() {
            return Err(ExchangeError::Refused {
                error: "unauthorized_client".into(),
                description: Some(
                    "a public client has no token of its own to read the catalog with".into(),
                ),
            });
        }
        let found = self.found().await.map_err(ExchangeError::Unreachable)?;
        let form = self.targeted(
            &found,
            vec![("grant_type", "client_credentials".to_owned())],
        );
        let issued = request_token(
            &self.http,
            found.token_endpoint.clone(),
            self.credentials(),
            &form,
        )
        .await?;
        let kept = Exchanged::new(issued.access_token, issued.lifetime);
        *lock(&self.gateway) = Some(kept.clone());
        Ok(kept.token)
    }

    /// `user`'s token for the upstream: the one kept, or a refreshed one (RFC 6749 §6) when
    /// it nearly expired; `None` when the user must authorize (none kept, or the refresh
    /// refused). Concurrent calls of a user share one refresh ([`Flights`]), whose outcome
    /// they all get: with refresh-token rotation a second one would present a spent token.
    ///
    /// # Errors
    ///
    /// A sentence when the refresh failed otherwise (the server unreachable, its answer not
    /// valid).
    pub(crate) async fn token(
        self: &Arc<Self>,
        user: &User,
    ) -> Result<Option<AccessToken>, String> {
        #[cfg(feature = "redis")]
        self.load(user).await;
        if let Err(answer) = self.kept(user) {
            return Ok(answer);
        }
        let (this, whose) = (Arc::clone(self), user.clone());
        self.refreshing
            .join(user.clone(), || async move { this.refreshed(&whose).await })
            .await
            .unwrap_or_else(|| Err("refreshing the user's token ended without an answer".into()))
    }

    /// What is kept for `user`: `Err` with the answer to a call when it needs no refresh (no
    /// tokens, or an access token still used), else `Ok` with the refresh token, if any.
    fn kept(&self, user: &User) -> Result<Option<String>, Option<AccessToken>> {
        match lock(&self.tokens).get(user) {
            None => Err(None),
            Some(held) if held.access.until > Instant::now() => {
                Err(Some(held.access.token.clone()))
            }
            Some(held) => Ok(held.refresh.clone()),
        }
    }

    /// The refresh of [`token`](Self::token), one per user at a time: what is kept is read
    /// again (a refresh that ended just before this one began kept new tokens, and spent the
    /// refresh token it presented).
    async fn refreshed(&self, user: &User) -> Result<Option<AccessToken>, String> {
        let refresh = match self.kept(user) {
            Err(answer) => return Ok(answer),
            Ok(refresh) => refresh,
        };
        let Some(refresh) = refresh else {
            self.drop_tokens(user).await;
            return Ok(None);
        };
        match self.refresh(&refresh).await {
            Ok(issued) => {
                let token = issued.access_token.clone();
                self.keep(user, issued, Some(refresh)).await;
                Ok(Some(token))
            }
            Err(Refresh::Refused) => {
                self.drop_tokens(user).await;
                Ok(None)
            }
            Err(Refresh::Failed(why)) => Err(why),
        }
    }

    async fn refresh(&self, refresh_token: &str) -> Result<Issued, Refresh> {
        let found = self.found().await.map_err(Refresh::Failed)?;
        let form = self.targeted(
            &found,
            vec![
                ("grant_type", "refresh_token".to_owned()),
                ("refresh_token", refresh_token.to_owned()),
            ],
        );
        match request_token(
            &self.http,
            found.token_endpoint.clone(),
            self.credentials(),
            &form,
        )
        .await
        {
            Ok(issued) => Ok(issued),
            Err(ExchangeError::Refused { .. }) => Err(Refresh::Refused),
            Err(err) => Err(Refresh::Failed(format!(
                "refreshing the user's token failed: {}",
                described(&err)
            ))),
        }
    }

    /// Keeps `issued` for `user` (its refresh token, or `previous` when none was issued:
    /// RFC 6749 §6 lets the server keep the old one), in memory and in the store.
    async fn keep(&self, user: &User, issued: Issued, previous: Option<String>) {
        let refresh = issued.refresh_token.or(previous);
        #[cfg(feature = "redis")]
        if let Some(store) = &self.store {
            let record = super::store::Record {
                access_token: issued.access_token.secret().to_owned(),
                refresh_token: refresh.clone(),
                expires_at: super::store::now_unix() + issued.lifetime.as_secs(),
            };
            store.put(&self.server, user, &record).await;
        }
        let held = Held {
            access: Exchanged::new(issued.access_token, issued.lifetime),
            refresh,
        };
        lock(&self.tokens).insert(user.clone(), held);
    }

    /// Forgets `user`'s tokens, in memory and in the store.
    async fn drop_tokens(&self, user: &User) {
        lock(&self.tokens).remove(user);
        #[cfg(feature = "redis")]
        if let Some(store) = &self.store {
            store.remove(&self.server, user).await;
        }
    }

    /// Reads `user`'s tokens from the store into memory when memory has none (another
    /// replica, or this one before a restart, obtained them).
    #[cfg(feature = "redis")]
    async fn load(&self, user: &User) {
        let Some(store) = &self.store else { return };
        if lock(&self.tokens).contains_key(user) {
            return;
        }
        let Some(record) = store.get(&self.server, user).await else {
            return;
        };
        let lifetime =
            Duration::from_secs(record.expires_at.saturating_sub(super::store::now_unix()));
        let held = Held {
            access: Exchanged::new(AccessToken::new(record.access_token), lifetime),
            refresh: record.refresh_token,
        };
        lock(&self.tokens).entry(user.clone()).or_insert(held);
    }

    /// Redeems `code` for `pending`'s user (RFC 6749 §4.1.3 with RFC 7636's `code_verifier`
    /// and RFC 8707's `resource`) and keeps the tokens.
    ///
    /// # Errors
    ///
    /// A sentence (no secret in it) when the token endpoint refuses or fails.
    pub(crate) async fn redeem(&self, pending: &Pending, code: &str) -> Result<(), String> {
        lock(&self.pending).remove(&pending.user);
        self.redeem_for(&pending.user, &pending.verifier, code)
            .await
    }

    /// Redeems `code` for `user` with RFC 7636's `verifier` (a pending authorization another
    /// replica asked for) and keeps the tokens, in memory and in the store.
    ///
    /// # Errors
    ///
    /// A sentence (no secret in it) when the token endpoint refuses or fails.
    pub(crate) async fn redeem_for(
        &self,
        user: &User,
        verifier: &str,
        code: &str,
    ) -> Result<(), String> {
        let found = self.found().await?;
        let form = self.targeted(
            &found,
            vec![
                ("grant_type", "authorization_code".to_owned()),
                ("code", code.to_owned()),
                ("redirect_uri", self.callbacks.redirect_uri().to_string()),
                ("code_verifier", verifier.to_owned()),
            ],
        );
        let issued = request_token(
            &self.http,
            found.token_endpoint.clone(),
            self.credentials(),
            &form,
        )
        .await
        .map_err(|err| described(&err))?;
        self.keep(user, issued, None).await;
        Ok(())
    }

    /// Forgets `pending` (its state expired or came back with an error).
    pub(crate) fn forget(&self, pending: &Pending) {
        let mut all = lock(&self.pending);
        if all
            .get(&pending.user)
            .is_some_and(|kept| kept.state == pending.state)
        {
            all.remove(&pending.user);
        }
    }

    /// The authorization `user` is asked for now: the one pending (a 2026-07-28 call retried
    /// after its input round waits for the same), or a new one, registered with the redirect
    /// endpoint.
    async fn pending(self: &Arc<Self>, user: &User) -> Result<Arc<Pending>, String> {
        let now = Instant::now();
        if let Some(pending) = lock(&self.pending).get(user)
            && pending.expires > now
            && pending.done.borrow().is_none()
        {
            return Ok(Arc::clone(pending));
        }
        let found = self.found().await?;
        let verifier = random()?;
        let challenge = base64::engine::general_purpose::URL_SAFE_NO_PAD
            .encode(Sha256::digest(verifier.as_bytes()));
        let state = random()?;
        let mut url = found.authorization_endpoint.clone();
        {
            let mut query = url.query_pairs_mut();
            query
                .append_pair("response_type", "code")
                .append_pair("client_id", &self.client.client_id)
                .append_pair("redirect_uri", self.callbacks.redirect_uri().as_str())
                .append_pair("state", &state)
                .append_pair("code_challenge", &challenge)
                .append_pair("code_challenge_method", "S256")
                .append_pair("resource", &found.resource);
            if !self.client.scope.is_empty() {
                query.append_pair("scope", &self.client.scope.join(" "));
            }
        }
        let pending = Pending {
            state,
            url: url.to_string(),
            elicitation_id: random()?,
            verifier,
            user: user.clone(),
            expires: now + AUTHORIZATION_TTL,
            #[cfg(feature = "redis")]
            shared: false,
            done: tokio::sync::watch::Sender::new(None),
        };
        #[cfg(feature = "redis")]
        let pending = self.share(pending).await;
        let pending = Arc::new(pending);
        lock(&self.pending).insert(user.clone(), Arc::clone(&pending));
        self.callbacks
            .register(Arc::downgrade(self), Arc::clone(&pending));
        Ok(pending)
    }

    /// `pending`, kept in the token store too when the gateway has one (a failure is logged:
    /// its redirect must then reach this replica).
    #[cfg(feature = "redis")]
    async fn share(&self, mut pending: Pending) -> Pending {
        let Some(store) = &self.store else {
            return pending;
        };
        match store
            .share(&pending.state, &pending.handoff(&self.server))
            .await
        {
            Ok(()) => pending.shared = true,
            Err(err) => tracing::warn!(
                target: "toolmodel_rmcp::federation",
                server = self.server,
                "a pending authorization is kept in this replica's memory only (its redirect must reach this replica): {err}"
            ),
        }
        pending
    }

    /// The outcome of `pending` when its redirect reached another replica: asked of the
    /// token store every [`POLL_INTERVAL`](super::shared::POLL_INTERVAL) (a Redis failure
    /// asks again at the next); never, when `pending` is not shared.
    async fn elsewhere(&self, pending: &Pending) -> Result<(), String> {
        #[cfg(feature = "redis")]
        if let Some(store) = self.store.as_ref().filter(|_| pending.shared) {
            loop {
                tokio::time::sleep(super::shared::POLL_INTERVAL).await;
                if let Ok(Some(outcome)) = store.outcome(&pending.state).await {
                    self.forget(pending);
                    self.callbacks.drop_state(&pending.state);
                    // Other calls waiting for the same authorization learn it too.
                    pending.finish(outcome.clone());
                    return outcome;
                }
            }
        }
        #[cfg(not(feature = "redis"))]
        let _ = pending;
        std::future::pending().await
    }

    /// Asks the caller of `cx` (`user`) to authorize the gateway at the upstream's
    /// authorization server, and waits until its redirect endpoint (or, with the token store,
    /// another replica's) has the tokens.
    ///
    /// # Errors
    ///
    /// - [`ToolError::Protocol`] [`URL_ELICITATION_REQUIRED`] (`-32042`, its `data` the
    ///   elicitation) when the client did not declare `elicitation.url` (MCP 2025-11-25,
    ///   "URL Elicitation Required Error");
    /// - [`ToolError::InputRequired`] under MCP 2026-07-28 until the client answers the
    ///   input round;
    /// - an `isError` result ([`ToolError::Execution`]) when the user declined or cancelled,
    ///   when the authorization failed or was not finished in [`AUTHORIZATION_TTL`], or when
    ///   the upstream's authorization server cannot be found.
    pub(crate) async fn authorize(
        self: &Arc<Self>,
        user: &User,
        cx: &CallContext,
    ) -> Result<(), ToolError> {
        let server = &self.server;
        let pending = self.pending(user).await.map_err(|why| {
            ToolError::new(format!(
                "server {server:?}: its authorization server cannot be found: {why}"
            ))
        })?;
        let message = format!(
            "Server {server:?} needs your authorization: sign in at its authorization server to let the gateway call it as you."
        );
        if !cx.declares(ClientCapability::ElicitationUrl) {
            return Err(ToolError::Protocol {
                code: URL_ELICITATION_REQUIRED,
                message: format!(
                    "server {server:?} needs the user's authorization, through a URL this client cannot show (no elicitation.url capability)"
                ),
                data: Some(json!({"elicitations": [{
                    "mode": "url",
                    "elicitationId": pending.elicitation_id,
                    "url": pending.url,
                    "message": message,
                }]})),
            });
        }
        let key = format!("authorize:{server}");
        let ask = InputRequest::Elicit(ElicitRequest::url(
            message,
            pending.url.clone(),
            pending.elicitation_id.clone(),
        ));
        let answers = cx.input(InputRequests::new().with(&key, ask)).await?;
        let accepted = answers
            .elicit(&key)
            .is_some_and(|answer| matches!(answer.action, toolmodel::input::ElicitAction::Accept));
        if !accepted {
            return Err(ToolError::new(format!(
                "the user declined authorization of server {server:?}"
            )));
        }
        let mut done = pending.done.subscribe();
        let until = tokio::time::Instant::from_std(pending.expires);
        let waited = async {
            tokio::select! {
                outcome = done.wait_for(Option::is_some) => outcome.ok().and_then(|outcome| outcome.clone()),
                outcome = self.elsewhere(&pending) => Some(outcome),
            }
        };
        let outcome = tokio::time::timeout_at(until, waited).await.ok().flatten();
        let outcome = outcome.unwrap_or_else(|| {
            Err(format!(
                "not finished within {} s",
                AUTHORIZATION_TTL.as_secs()
            ))
        });
        if let Err(why) = outcome {
            return Err(ToolError::new(format!(
                "server {server:?}: the user's authorization failed: {why}"
            )));
        }
        // The client may stop waiting for it (MCP 2025-11-25 "URL Mode Elicitation"); a
        // connection that closed meanwhile loses nothing.
        let _ = cx.elicitation_complete(&pending.elicitation_id).await;
        Ok(())
    }
}

/// The `resource_metadata` parameter of a `WWW-Authenticate` challenge (RFC 9728 §5.1).
fn resource_metadata_of(challenge: &str) -> Option<String> {
    let at = challenge.find("resource_metadata=")? + "resource_metadata=".len();
    let rest = &challenge[at..];
    let value = match rest.strip_prefix('"') {
        Some(quoted) => &quoted[..quoted.find('"')?],
        None => rest.split([',', ' ']).next()?,
    };
    Some(value.to_owned())
}

/// `err` said of a token request (not of a token exchange).
fn described(err: &ExchangeError) -> String {
    match err {
        ExchangeError::Refused { error, description } => format!(
            "the authorization server refused: {error}{}",
            description
                .as_deref()
                .map(|d| format!(" ({d})"))
                .unwrap_or_default()
        ),
        ExchangeError::Unreachable(why) => {
            format!("the authorization server could not be reached: {why}")
        }
        ExchangeError::Malformed(why) => {
            format!("the authorization server's answer is not valid: {why}")
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_resource_metadata_of_a_challenge() {
        assert_eq!(
            resource_metadata_of(
                r#"Bearer error="invalid_token", resource_metadata="https://a.example/.well-known/oauth-protected-resource/mcp""#
            )
            .as_deref(),
            Some("https://a.example/.well-known/oauth-protected-resource/mcp")
        );
        assert_eq!(
            resource_metadata_of("Bearer resource_metadata=https://a.example/m, scope=x")
                .as_deref(),
            Some("https://a.example/m")
        );
        assert_eq!(resource_metadata_of("Bearer realm=\"x\""), None);
    }

    #[test]
    fn a_verifier_and_a_state_are_256_random_bits_in_base64url() {
        let (a, b) = (random().unwrap(), random().unwrap());
        assert_eq!(a.len(), 43);
        assert_ne!(a, b);
        assert!(
            a.bytes()
                .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_')
        );
    }
}
