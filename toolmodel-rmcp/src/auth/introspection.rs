//! Opaque access tokens, verified by the issuer's introspection endpoint (RFC 7662): `active`,
//! `iss` (when given) the issuer, `aud` holding the resource, `sub` (the caller's subject,
//! never taken from `client_id`), `exp` and `nbf` within the leeway. Asked as the resource
//! server's own client
//! ([`ResourceServer::with_introspection`](super::ResourceServer::with_introspection)).
//!
//! Each request to the issuer costs it work and uses the server's credentials, and anyone can
//! send a token: a token the issuer refused is remembered ([`INTROSPECTION_REFUSAL_TTL`]), and
//! the requests are bounded to
//! [`with_introspection_rate`](super::ResourceServer::with_introspection_rate) a second, past
//! which a token not known already is refused as when the issuer is unreachable (503).

use std::{
    sync::Mutex,
    time::{Duration, Instant, SystemTime},
};

use serde::Deserialize;
use serde_json::Value;
use toolmodel::Caller;

use super::{
    config::{IntrospectionClient, ResourceServer},
    keys::Keys,
    rejection::Rejection,
    token_cache::TokenCache,
};
use crate::lock::lock;

/// The longest an introspected token is remembered, so that a revoked one stops working
/// within it.
pub(crate) const INTROSPECTION_CACHE_TTL: Duration = Duration::from_secs(60);

/// How long a token the issuer refused (inactive, or not for this server) is refused without
/// asking again.
pub(crate) const INTROSPECTION_REFUSAL_TTL: Duration = Duration::from_secs(30);

/// The members of an introspection response (RFC 7662 §2.2) the server reads.
#[derive(Deserialize)]
struct Introspected {
    active: bool,
    scope: Option<String>,
    client_id: Option<String>,
    sub: Option<String>,
    iss: Option<String>,
    aud: Option<Value>,
    exp: Option<u64>,
    nbf: Option<u64>,
    /// Every other member: those of strings become the caller's [`Caller::claim`]s.
    #[serde(flatten)]
    other: serde_json::Map<String, Value>,
}

/// Whether `aud` (a string or a list, RFC 7662 §2.2) holds `resource`.
fn holds(aud: Option<&Value>, resource: &str) -> bool {
    match aud {
        Some(Value::String(aud)) => aud == resource,
        Some(Value::Array(items)) => items.iter().any(|item| item.as_str() == Some(resource)),
        _ => false,
    }
}

fn unix_now() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// A token bucket: up to `rate` requests at once, refilled at `rate` a second.
#[derive(Debug)]
struct Bucket {
    rate: f64,
    /// The requests that may be made now, and when that was counted.
    state: Mutex<(f64, Instant)>,
}

impl Bucket {
    /// A full bucket of `rate` (at least 1) requests a second, at `now`.
    fn new(rate: u32, now: Instant) -> Self {
        let rate = f64::from(rate.max(1));
        Self {
            rate,
            state: Mutex::new((rate, now)),
        }
    }

    /// Whether a request may be made at `now` (it is counted when it may).
    fn take(&self, now: Instant) -> bool {
        let mut state = lock(&self.state);
        let (available, counted) = *state;
        let refilled = now.saturating_duration_since(counted).as_secs_f64() * self.rate;
        let available = (available + refilled).min(self.rate);
        let taken = available >= 1.0;
        *state = (if taken { available - 1.0 } else { available }, now);
        taken
    }
}

/// The introspection state of a server: the tokens the issuer refused, and the requests it
/// may still be sent.
#[derive(Debug)]
pub(crate) struct Introspection {
    refused: TokenCache<&'static str>,
    bucket: Bucket,
}

impl Introspection {
    /// The state for `auth`: as many refused tokens remembered as verified ones, `auth`'s
    /// introspection rate.
    pub(crate) fn new(auth: &ResourceServer) -> Self {
        Self {
            refused: TokenCache::new(auth.token_cache_capacity),
            bucket: Bucket::new(auth.introspection_rate, Instant::now()),
        }
    }

    /// The caller of `token` and its `exp`: asks the issuer, unless it refused `token`
    /// within [`INTROSPECTION_REFUSAL_TTL`].
    ///
    /// # Errors
    ///
    /// [`Rejection::Invalid`] for a token that is not active or not for this server (now, or
    /// when last asked), or without introspection configured; [`Rejection::Unavailable`] when
    /// the endpoint is not known or does not answer, [`Rejection::Busy`] when the rate of
    /// requests to it is spent.
    pub(crate) async fn verify(
        &self,
        auth: &ResourceServer,
        keys: &Keys,
        token: &str,
    ) -> Result<(Caller, u64), Rejection> {
        let Some(client) = &auth.introspection else {
            return Err(Rejection::Invalid("the token is no JWT"));
        };
        let now = SystemTime::now();
        if let Some(why) = self.refused.get(token, now) {
            return Err(Rejection::Invalid(why));
        }
        let answer = self.ask(auth, client, keys, token).await?;
        let verified = check(auth, answer, unix_now());
        if let Err(Rejection::Invalid(why)) = verified {
            let until = now + INTROSPECTION_REFUSAL_TTL;
            self.refused.insert(token, why, until, now);
        }
        verified
    }

    /// The issuer's answer about `token` (RFC 7662 §2.2), asked as `client`, when the rate
    /// allows.
    async fn ask(
        &self,
        auth: &ResourceServer,
        client: &IntrospectionClient,
        keys: &Keys,
        token: &str,
    ) -> Result<Introspected, Rejection> {
        let endpoint = keys
            .endpoints(auth)
            .await
            .and_then(|endpoints| endpoints.introspection_endpoint)
            .ok_or(Rejection::Unavailable)?;
        if !self.bucket.take(Instant::now()) {
            return Err(Rejection::Busy);
        }
        let response = auth
            .client
            .post(endpoint)
            .timeout(auth.http_timeout)
            .basic_auth(&client.client_id, Some(&client.client_secret))
            .form(&[("token", token), ("token_type_hint", "access_token")])
            .send()
            .await;
        let outage = &keys.outages().introspection;
        let response = match response {
            Ok(response) if response.status().is_success() => response,
            Ok(response) => {
                let status = response.status();
                outage.failed(
                    "introspection",
                    &auth.issuer,
                    &format!("it answered {status}"),
                );
                return Err(Rejection::Unavailable);
            }
            Err(err) => {
                // reqwest's error names the URL, never the form it sent.
                outage.failed(
                    "introspection",
                    &auth.issuer,
                    &err.without_url().to_string(),
                );
                return Err(Rejection::Unavailable);
            }
        };
        let answer = response.json().await;
        if answer.is_ok() {
            outage.reached("introspection", &auth.issuer);
        } else {
            outage.failed("introspection", &auth.issuer, "its answer is not JSON");
        }
        answer.map_err(|_| Rejection::Unavailable)
    }
}

/// The caller of an introspection `answer`, checked at `now` (Unix seconds).
fn check(
    auth: &ResourceServer,
    answer: Introspected,
    now: u64,
) -> Result<(Caller, u64), Rejection> {
    if !answer.active {
        return Err(Rejection::Invalid("the token is not active"));
    }
    if answer.iss.as_deref().is_some_and(|iss| iss != auth.issuer) {
        return Err(Rejection::Invalid("the token is from another issuer"));
    }
    if auth.audience_check && !holds(answer.aud.as_ref(), auth.resource.as_str()) {
        return Err(Rejection::Invalid("the token is for another resource"));
    }
    let leeway = auth.leeway.as_secs();
    let exp = answer
        .exp
        .ok_or(Rejection::Invalid("the token lacks a required claim"))?;
    if exp.saturating_add(leeway) <= now {
        return Err(Rejection::Invalid("the token has expired"));
    }
    if answer
        .nbf
        .is_some_and(|nbf| nbf > now.saturating_add(leeway))
    {
        return Err(Rejection::Invalid("the token is not valid yet"));
    }
    // Never `client_id` in its place: a client whose ID is a user's subject would be that
    // user (RFC 9068 §5 for the same confusion in JWT access tokens).
    let subject = answer
        .sub
        .clone()
        .ok_or(Rejection::Invalid("the token lacks a required claim: sub"))?;
    let scopes = answer
        .scope
        .as_deref()
        .unwrap_or_default()
        .split_whitespace();
    let mut caller = super::jwt::with_string_claims(
        Caller::new(auth.issuer.clone(), subject).with_scopes(scopes),
        &answer.other,
    );
    if let Some(client_id) = answer.client_id {
        caller = caller.with_client_id(client_id);
    }
    let cached_until = now.saturating_add(INTROSPECTION_CACHE_TTL.as_secs());
    Ok((caller, exp.min(cached_until)))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn auth() -> ResourceServer {
        ResourceServer::new("https://a.example", "https://m.example/mcp").unwrap()
    }

    fn answer(value: Value) -> Introspected {
        serde_json::from_value(value).unwrap()
    }

    #[test]
    fn an_active_token_for_this_resource_names_its_caller() {
        let (caller, until) = check(
            &auth(),
            answer(
                json!({"active": true, "sub": "user", "client_id": "app", "scope": "a b",
                "iss": "https://a.example", "aud": "https://m.example/mcp", "exp": 2000}),
            ),
            1000,
        )
        .unwrap();
        assert_eq!(caller.subject(), "user");
        assert_eq!(caller.client_id(), Some("app"));
        assert!(caller.has_scope("b"));
        assert_eq!(until, 1060, "remembered a minute, not until exp");
    }

    #[test]
    fn the_bucket_allows_its_rate_at_once_then_refills_at_it() {
        let start = Instant::now();
        let bucket = Bucket::new(4, start);
        let taken = |at: Instant| (0..10).filter(|_| bucket.take(at)).count();
        assert_eq!(taken(start), 4, "a burst of the rate");
        assert_eq!(
            taken(start + Duration::from_millis(500)),
            2,
            "half a second: half the rate"
        );
        assert_eq!(
            taken(start + Duration::from_secs(60)),
            4,
            "never more than the rate at once"
        );
    }

    #[test]
    fn inactive_foreign_and_expired_tokens_are_refused() {
        for (value, why) in [
            (json!({"active": false}), "not active"),
            (
                json!({"active": true, "client_id": "user", "aud": "https://m.example/mcp", "exp": 2000}),
                "required claim: sub",
            ),
            (
                json!({"active": true, "sub": "u", "aud": ["https://other/mcp"], "exp": 2000}),
                "another resource",
            ),
            (
                json!({"active": true, "sub": "u", "iss": "https://evil", "aud": "https://m.example/mcp", "exp": 2000}),
                "another issuer",
            ),
            (
                json!({"active": true, "sub": "u", "aud": "https://m.example/mcp", "exp": 900}),
                "expired",
            ),
            (
                json!({"active": true, "sub": "u", "aud": "https://m.example/mcp", "exp": 2000, "nbf": 1500}),
                "not valid yet",
            ),
        ] {
            let Err(Rejection::Invalid(reason)) = check(&auth(), answer(value), 1000) else {
                panic!("accepted: {why}");
            };
            assert!(reason.contains(why), "{reason} / {why}");
        }
    }
}
