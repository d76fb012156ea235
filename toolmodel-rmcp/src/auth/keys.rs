//! [`Keys`]: the issuer's JSON Web Key Set (RFC 7517), fetched from its `jwks_uri`, kept, and
//! fetched again when a token names a key the set lacks (a rotation at the issuer), at most
//! once per [`key_refetch_interval`](super::ResourceServer::with_key_refetch_interval), and
//! when it is older than [`KEYS_MAX_AGE`] (a key withdrawn at the issuer stops being trusted).
//!
//! What is known is a snapshot read without waiting: a token signed with a known key is
//! verified at once, whatever fetch is in flight (an old set is refreshed in the background
//! meanwhile). One fetch is in flight at a time; a token that needs one waits for it, then
//! uses what it brought, so a burst of unknown `kid`s costs the issuer one request.

use std::{
    sync::{Arc, RwLock},
    time::{Duration, Instant},
};

use jsonwebtoken::{DecodingKey, jwk::Jwk};
use serde::Deserialize;
use serde_json::Value;
use tokio::sync::Mutex;
use url::Url;

use super::outage::Outages;
use super::{
    config::ResourceServer,
    discovery::{self, Endpoints},
};
use crate::lock::{read, write};
use crate::task_set::TaskSet;

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

/// What was fetched from the issuer, and when: each fetch makes a new one.
#[derive(Clone, Default)]
struct Known {
    endpoints: Option<Endpoints>,
    keys: Vec<Jwk>,
    /// When `keys` were fetched; `None`: never.
    at: Option<Instant>,
    /// How many fetches of the keys were tried.
    key_fetches: u64,
    /// When a fetch of the keys, or a discovery that failed, was last tried.
    tried: Option<Instant>,
}

impl Known {
    /// Whether the keys are missing or older than [`KEYS_MAX_AGE`] at `now`.
    fn stale(&self, now: Instant) -> bool {
        self.at
            .is_none_or(|at| now.duration_since(at) >= KEYS_MAX_AGE)
    }

    /// Whether a fetch may be tried at `now`: none was within `interval`.
    fn may_fetch(&self, now: Instant, interval: Duration) -> bool {
        self.tried
            .is_none_or(|tried| now.duration_since(tried) >= interval)
    }
}

/// What a fetch is for: the endpoints alone (introspection), or the keys too.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Want {
    Endpoints,
    Keys,
}

/// The state shared by a [`Keys`] and its background refreshes.
#[derive(Default)]
struct Shared {
    /// The latest snapshot; locked only to read or replace the `Arc`, never across I/O.
    known: RwLock<Arc<Known>>,
    /// Held by the one fetch in flight.
    fetching: Arc<Mutex<()>>,
    /// The fetch started in the background, aborted when the keys are dropped.
    background: TaskSet,
    /// Which of the issuer's endpoints are failing, logged once per outage.
    outages: Outages,
}

/// The issuer's endpoints and keys, fetched on demand.
#[derive(Clone, Default)]
pub(crate) struct Keys {
    shared: Arc<Shared>,
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
    /// Which of the issuer's endpoints are failing.
    pub(crate) fn outages(&self) -> &Outages {
        &self.shared.outages
    }

    /// The latest snapshot.
    fn known(&self) -> Arc<Known> {
        let known = read(&self.shared.known);
        Arc::clone(&known)
    }

    /// The issuer's endpoints, discovered once.
    pub(crate) async fn endpoints(&self, auth: &ResourceServer) -> Option<Endpoints> {
        let known = self.known();
        if known.endpoints.is_some() {
            return known.endpoints.clone();
        }
        self.fetch(auth, &known, Want::Endpoints)
            .await
            .endpoints
            .clone()
    }

    /// The key to verify a token whose header names `kid`: from the snapshot when it holds
    /// it (refreshed in the background when old), else after a fetch (module docs).
    pub(crate) async fn key(
        &self,
        auth: &ResourceServer,
        kid: Option<&str>,
    ) -> Result<(DecodingKey, Jwk), KeyError> {
        let mut known = self.known();
        if find(&known.keys, kid).is_some() {
            self.refresh_if_stale(auth, &known);
        } else {
            known = self.fetch(auth, &known, Want::Keys).await;
        }
        if known.at.is_none() {
            return Err(KeyError::Unavailable);
        }
        let jwk = find(&known.keys, kid).ok_or(KeyError::Unknown)?;
        let key = DecodingKey::from_jwk(jwk).map_err(|_| KeyError::Unknown)?;
        Ok((key, jwk.clone()))
    }

    /// Fetches the keys in a task of their own when `known` is old, a fetch may be tried and
    /// none is in flight; the token at hand is verified with `known` meanwhile.
    fn refresh_if_stale(&self, auth: &ResourceServer, known: &Arc<Known>) {
        let now = Instant::now();
        if !known.stale(now) || !known.may_fetch(now, auth.key_refetch_interval) {
            return;
        }
        let Ok(guard) = Arc::clone(&self.shared.fetching).try_lock_owned() else {
            return;
        };
        // The task holds the keys weakly: they own it.
        let (shared, auth, known) = (
            Arc::downgrade(&self.shared),
            auth.clone(),
            Arc::clone(known),
        );
        self.shared.background.spawn(async move {
            if let Some(shared) = shared.upgrade() {
                Keys { shared }
                    .fetch_holding(&auth, &known, Want::Keys)
                    .await;
            }
            drop(guard);
        });
    }

    /// What is known after the fetch `want` needs, `seen` being what the caller found
    /// lacking: waits for the fetch in flight and takes what it brought, or fetches (at most
    /// once per refetch interval; a discovery that found the endpoints does not count).
    async fn fetch(&self, auth: &ResourceServer, seen: &Arc<Known>, want: Want) -> Arc<Known> {
        let _one = self.shared.fetching.lock().await;
        self.fetch_holding(auth, seen, want).await
    }

    /// [`fetch`](Self::fetch), its caller holding `fetching`. The new snapshot is published
    /// once complete; readers never wait for it.
    async fn fetch_holding(
        &self,
        auth: &ResourceServer,
        seen: &Arc<Known>,
        want: Want,
    ) -> Arc<Known> {
        let known = self.known();
        let brought = match want {
            Want::Endpoints => known.endpoints.is_some(),
            Want::Keys => known.key_fetches != seen.key_fetches,
        };
        if brought || !known.may_fetch(Instant::now(), auth.key_refetch_interval) {
            return known;
        }
        let mut next = Known::clone(&known);
        let outages = &self.shared.outages;
        if next.endpoints.is_none() {
            next.endpoints = discovery::discover(auth).await;
            if next.endpoints.is_some() {
                outages.discovery.reached("discovery", &auth.issuer);
            } else {
                outages.discovery.failed(
                    "discovery",
                    &auth.issuer,
                    "no metadata document of this issuer could be fetched (unreachable, an error status, not JSON, or another issuer's)",
                );
            }
        }
        if want == Want::Keys {
            next.key_fetches += 1;
            let uri = next.endpoints.as_ref().and_then(|e| e.jwks_uri.clone());
            let listed = uri.is_some();
            if let Some(keys) = fetch_set(auth, uri).await {
                outages.jwks.reached("jwks", &auth.issuer);
                next.keys = keys;
                next.at = Some(Instant::now());
            } else if listed {
                outages.jwks.failed(
                    "jwks",
                    &auth.issuer,
                    "its JSON Web Key Set could not be fetched (unreachable, an error status, or not JSON)",
                );
            }
        }
        if want == Want::Keys || next.endpoints.is_none() {
            // From the fetch's end: a slow issuer is not asked back to back.
            next.tried = Some(Instant::now());
        }
        let next = Arc::new(next);
        *write(&self.shared.known) = Arc::clone(&next);
        next
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
async fn fetch_set(auth: &ResourceServer, uri: Option<Url>) -> Option<Vec<Jwk>> {
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
