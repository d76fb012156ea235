//! [`Verifier`]: a protected server's running state: its [`ResourceServer`], the issuer's keys
//! ([`Keys`]), the verified tokens ([`CallerCache`]) and the introspection state
//! ([`Introspection`]); it turns a request's headers into its [`Caller`], and a refusal into
//! its [`Challenge`].

use std::{sync::Arc, time::SystemTime};

use http::HeaderMap;
use toolmodel::Caller;

use super::outage::TARGET;
use super::{
    bearer,
    challenge::{Challenge, ChallengeError},
    config::ResourceServer,
    introspection::Introspection,
    jwt,
    keys::Keys,
    metadata,
    rejection::Rejection,
    token_cache::{CallerCache, expiry},
};
use crate::server::log_throttle::LogThrottle;

/// Verifies the tokens of one server's requests (shared by its clones).
pub(crate) struct Verifier {
    auth: ResourceServer,
    keys: Keys,
    cache: CallerCache,
    introspection: Introspection,
    metadata_url: String,
}

impl std::fmt::Debug for Verifier {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Verifier")
            .field("auth", &self.auth)
            .finish_non_exhaustive()
    }
}

impl Verifier {
    /// The verifier of `auth`, with nothing fetched yet.
    pub(crate) fn new(auth: ResourceServer) -> Self {
        Self {
            cache: CallerCache::new(auth.token_cache_capacity),
            introspection: Introspection::new(&auth),
            metadata_url: metadata::url(&auth),
            keys: Keys::default(),
            auth,
        }
    }

    /// What the server was configured with.
    pub(crate) fn authorization(&self) -> &ResourceServer {
        &self.auth
    }

    /// The caller of a request with `headers`: its bearer token verified, or found among
    /// those verified before and not expired.
    ///
    /// # Errors
    ///
    /// [`Rejection::Missing`] without a bearer token, [`Rejection::Invalid`] for a token that
    /// is malformed or fails a check, [`Rejection::Unavailable`] when the issuer cannot be
    /// reached to verify it, [`Rejection::Busy`] when it would need an introspection request
    /// past the rate.
    pub(crate) async fn caller(&self, headers: &HeaderMap) -> Result<Arc<Caller>, Rejection> {
        let verified = self.verify(headers).await;
        if let Err(rejection) = &verified {
            log_refusal(rejection);
        }
        verified
    }

    /// [`caller`](Self::caller), not logged.
    async fn verify(&self, headers: &HeaderMap) -> Result<Arc<Caller>, Rejection> {
        let token = bearer::token(headers)?;
        let now = SystemTime::now();
        if let Some(caller) = self.cache.get(token, now) {
            return Ok(caller);
        }
        let (caller, exp) = if jwt::is_jwt(token) {
            jwt::verify(&self.auth, &self.keys, token).await?
        } else {
            self.introspection
                .verify(&self.auth, &self.keys, token)
                .await?
        };
        // Kept for a gateway's token exchange (RFC 8693); redacted from `Debug`.
        let caller = Arc::new(caller.with_access_token(toolmodel::AccessToken::new(token)));
        self.cache
            .insert(token, Arc::clone(&caller), expiry(exp), now);
        Ok(caller)
    }

    /// The challenge of a 401 for `rejection` (missing or invalid: the server's scopes; RFC
    /// 6750 §3.1: `invalid_token` only when a token was sent).
    pub(crate) fn unauthorized(&self, rejection: &Rejection) -> Challenge {
        let (error, description) = match rejection {
            Rejection::Missing | Rejection::Unavailable | Rejection::Busy => (None, None),
            Rejection::Invalid(why) => (Some(ChallengeError::InvalidToken), Some(*why)),
        };
        Challenge {
            resource_metadata: self.metadata_url.clone(),
            scopes: self.auth.scopes.clone(),
            error,
            description,
        }
    }

    /// The challenge of a 403 for a call that needs `scopes` (all of them, the caller's
    /// missing ones among them: MCP, "Runtime Insufficient Scope Errors").
    pub(crate) fn insufficient_scope(&self, scopes: Vec<String>) -> Challenge {
        Challenge {
            resource_metadata: self.metadata_url.clone(),
            scopes,
            error: Some(ChallengeError::InsufficientScope),
            description: Some("the call needs scopes the token does not grant"),
        }
    }
}

/// A refused token, at `debug` each, and at `info` (target `toolmodel_rmcp::auth`) at most
/// once per [`EVERY`](crate::server::log_throttle::EVERY) with how many were not logged since:
/// the reason only (a fixed text), never the token or any part of it. A missing token is
/// `debug` only (every client's first request); an unreachable issuer is logged by
/// [`Outages`](super::outage::Outages), once per outage.
fn log_refusal(rejection: &Rejection) {
    static REFUSED: LogThrottle = LogThrottle::new();
    let reason = match rejection {
        Rejection::Missing => {
            tracing::debug!(target: TARGET, reason = "no bearer token", "token refused");
            return;
        }
        Rejection::Invalid(reason) => *reason,
        Rejection::Unavailable | Rejection::Busy => return,
    };
    tracing::debug!(target: TARGET, reason, "token refused");
    if let Some(suppressed) = REFUSED.admit() {
        tracing::info!(target: TARGET, reason, suppressed, "token refused");
    }
}
