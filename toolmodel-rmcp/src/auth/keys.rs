//! [`Keys`]: the issuer's JSON Web Key Set (RFC 7517), fetched from its `jwks_uri`, kept, and
//! fetched again when a token names a key the set lacks (a rotation at the issuer), at most
//! once per [`key_refetch_interval`](super::Authorization::with_key_refetch_interval), and
//! when it is older than [`KEYS_MAX_AGE`] (a key withdrawn at the issuer stops being trusted).

use std::time::{Duration, Instant};

use jsonwebtoken::{DecodingKey, jwk::Jwk};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::Mutex;
use url::Url;

use super::{
    config::Authorization,
    discovery::{self, Endpoints},
};

/// How long a fetched key set is used before it is fetched again.
pub(crate) const KEYS_MAX_AGE: Duration = Duration::from_secs(600);

/// Why no key could be had.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum KeyError {
    /// The issuer's metadata or keys could not be fetched, and none are known.
    Unavailable,
    /// The set has no key with that `kid` (or, without one, no single key).
    Unknown,
}

/// What was fetched from the issuer, and when.
#[derive(Default)]
struct Fetched {
    endpoints: Option<Endpoints>,
    keys: Vec<Jwk>,
    /// When `keys` were fetched; `None`: never.
    at: Option<Instant>,
    /// When a fetch was last tried, whatever came of it.
    tried: Option<Instant>,
}

/// The issuer's endpoints and keys, fetched on demand.
#[derive(Default)]
pub(crate) struct Keys {
    fetched: Mutex<Fetched>,
}

/// The keys of a JWKS document that this server can verify with; the others (encryption
/// keys, unknown `kty`, incomplete parameters) are skipped, not fatal.
fn usable_keys(document: &Value) -> Vec<Jwk> {
    #[derive(Deserialize)]
    struct Set {
        keys: Vec<Value>,
    }
    let Ok(set) = Set::deserialize(document) else {
        return Vec::new();
    };
    set.keys
        .into_iter()
        .filter_map(|key| serde_json::from_value::<Jwk>(key).ok())
        .filter(|key| {
            !matches!(
                key.common.public_key_use,
                Some(jsonwebtoken::jwk::PublicKeyUse::Encryption)
            ) && DecodingKey::from_jwk(key).is_ok()
        })
        .collect()
}

impl Keys {
    /// The issuer's endpoints, discovered once.
    pub(crate) async fn endpoints(&self, auth: &Authorization) -> Option<Endpoints> {
        let mut fetched = self.fetched.lock().await;
        if fetched.endpoints.is_none() {
            let now = Instant::now();
            if fetched
                .tried
                .is_some_and(|tried| now.duration_since(tried) < auth.key_refetch_interval)
            {
                return None;
            }
            fetched.tried = Some(now);
            fetched.endpoints = discovery::discover(auth).await;
        }
        fetched.endpoints.clone()
    }

    /// The key to verify a token whose header names `kid`, fetching the set when it is
    /// missing, old, or lacks that key (module docs for how often).
    pub(crate) async fn key(
        &self,
        auth: &Authorization,
        kid: Option<&str>,
    ) -> Result<(DecodingKey, Jwk), KeyError> {
        let mut fetched = self.fetched.lock().await;
        let now = Instant::now();
        let stale = fetched
            .at
            .is_none_or(|at| now.duration_since(at) >= KEYS_MAX_AGE);
        let may_fetch = fetched
            .tried
            .is_none_or(|tried| now.duration_since(tried) >= auth.key_refetch_interval);
        if may_fetch && (stale || find(&fetched.keys, kid).is_none()) {
            fetched.tried = Some(now);
            if fetched.endpoints.is_none() {
                fetched.endpoints = discovery::discover(auth).await;
            }
            let uri = fetched.endpoints.as_ref().and_then(|e| e.jwks_uri.clone());
            if let Some(keys) = fetch(auth, uri).await {
                fetched.keys = keys;
                fetched.at = Some(now);
            }
        }
        if fetched.at.is_none() {
            return Err(KeyError::Unavailable);
        }
        let jwk = find(&fetched.keys, kid).ok_or(KeyError::Unknown)?;
        let key = DecodingKey::from_jwk(jwk).map_err(|_| KeyError::Unknown)?;
        Ok((key, jwk.clone()))
    }
}

/// The key named `kid`, or the only key of the set when the token names none.
fn find<'a>(keys: &'a [Jwk], kid: Option<&str>) -> Option<&'a Jwk> {
    match kid {
        Some(kid) => keys
            .iter()
            .find(|key| key.common.key_id.as_deref() == Some(kid)),
        None => match keys {
            [only] => Some(only),
            _ => None,
        },
    }
}

/// The usable keys at `uri`; `None` when there is no URI or the fetch fails.
async fn fetch(auth: &Authorization, uri: Option<Url>) -> Option<Vec<Jwk>> {
    let response = auth
        .client
        .get(uri?)
        .timeout(auth.http_timeout)
        .send()
        .await
        .ok()?;
    if !response.status().is_success() {
        return None;
    }
    let document: Value = response.json().await.ok()?;
    Some(usable_keys(&document))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn keys_of_unknown_kinds_are_skipped_and_found_by_kid() {
        let document = json!({"keys": [
            {"kty": "EC", "crv": "P-256", "kid": "a", "use": "sig", "alg": "ES256",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
            {"kty": "weird", "kid": "b"},
            {"kty": "EC", "crv": "P-256", "kid": "c", "use": "enc",
             "x": "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU",
             "y": "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"},
        ]});
        let keys = usable_keys(&document);
        let kids: Vec<_> = keys.iter().map(|k| k.common.key_id.clone()).collect();
        assert_eq!(kids.len(), 1, "{kids:?}");
        assert!(find(&keys, Some("a")).is_some());
        assert!(find(&keys, Some("b")).is_none());
        assert!(
            find(&keys, None).is_some(),
            "the only key, for a token without kid"
        );
    }
}
