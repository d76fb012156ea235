//! Opaque access tokens, verified by the issuer's introspection endpoint (RFC 7662): `active`,
//! `iss` (when given) the issuer, `aud` holding the resource, `sub` (the caller's subject,
//! never taken from `client_id`), `exp` and `nbf` within the leeway. Asked as the resource
//! server's own client
//! ([`Authorization::with_introspection`](super::Authorization::with_introspection)).

use std::time::{Duration, SystemTime};

use serde::Deserialize;
use serde_json::Value;
use toolmodel::Caller;

use super::{config::Authorization, keys::Keys, rejection::Rejection};

/// The longest an introspected token is remembered, so that a revoked one stops working
/// within it.
pub(crate) const INTROSPECTION_CACHE_TTL: Duration = Duration::from_secs(60);

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

/// Asks the issuer about `token`: its caller and its `exp`.
///
/// # Errors
///
/// [`Rejection::Invalid`] for a token that is not active or not for this server,
/// [`Rejection::Unavailable`] when the endpoint is not known or does not answer.
pub(crate) async fn verify(
    auth: &Authorization,
    keys: &Keys,
    token: &str,
) -> Result<(Caller, u64), Rejection> {
    let Some(client) = &auth.introspection else {
        return Err(Rejection::Invalid("the token is no JWT"));
    };
    let endpoint = keys
        .endpoints(auth)
        .await
        .and_then(|endpoints| endpoints.introspection_endpoint)
        .ok_or(Rejection::Unavailable)?;
    let response = auth
        .client
        .post(endpoint)
        .timeout(auth.http_timeout)
        .basic_auth(&client.client_id, Some(&client.client_secret))
        .form(&[("token", token), ("token_type_hint", "access_token")])
        .send()
        .await
        .map_err(|_| Rejection::Unavailable)?;
    if !response.status().is_success() {
        return Err(Rejection::Unavailable);
    }
    let answer: Introspected = response.json().await.map_err(|_| Rejection::Unavailable)?;
    check(auth, answer, unix_now())
}

/// The caller of an introspection `answer`, checked at `now` (Unix seconds).
fn check(auth: &Authorization, answer: Introspected, now: u64) -> Result<(Caller, u64), Rejection> {
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
    let mut caller = Caller::new(auth.issuer.clone(), subject).with_scopes(scopes);
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

    fn auth() -> Authorization {
        Authorization::new("https://a.example", "https://m.example/mcp").unwrap()
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
