//! Pending authorizations shared through the token store (feature `redis`): behind a load
//! balancer, the redirect of a user's browser (RFC 6749 §4.1.2) may reach a replica other
//! than the one whose call waits. The replica that asked keeps each pending authorization in
//! Redis too ([`Handoff`]: the server, the user, RFC 7636's `code_verifier`), sealed like the
//! tokens (AES-256-GCM, the key of
//! [`TOKEN_STORE_KEY_ENV`](super::store::TOKEN_STORE_KEY_ENV)), under a SHA-256 of its
//! `state` and for the state's remaining lifetime. The replica the redirect reaches takes it
//! once (`GETDEL`), redeems the code, and leaves the outcome under another SHA-256 of the
//! state; the waiting replica takes that outcome (also `GETDEL`) every
//! [`POLL_INTERVAL`].

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::authorization::User;
use super::store::{Sealed, hashed, now_unix};
use crate::Error;

/// How often a waiting replica asks Redis for the outcome of its shared authorization.
pub(crate) const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// What another replica needs of a pending authorization to redeem its code (inside the
/// ciphertext).
#[derive(Serialize, Deserialize)]
pub(crate) struct Handoff {
    /// The credentialed server's name.
    pub(crate) server: String,
    /// Whose authorization.
    pub(crate) user: User,
    /// RFC 7636's `code_verifier`.
    pub(crate) verifier: String,
    /// When the `state` expires, in seconds since the Unix epoch.
    pub(crate) expires_at: u64,
}

impl Handoff {
    /// Its state's remaining lifetime, in seconds (at least 1).
    pub(crate) fn ttl_secs(&self) -> u64 {
        self.expires_at.saturating_sub(now_unix()).max(1)
    }
}

/// The outcome of an authorization: `Err` with the sentence of its failure.
pub(crate) type Outcome = Result<(), String>;

/// The Redis key of the pending authorization of `state`.
fn pending_key(state: &str) -> String {
    hashed("toolmodel:oauth-pending:", state)
}

/// The Redis key of the outcome of the authorization of `state`.
fn outcome_key(state: &str) -> String {
    hashed("toolmodel:oauth-outcome:", state)
}

impl Sealed {
    /// `value` as JSON sealed for `key`.
    fn sealed_json(&self, key: &str, value: &impl Serialize) -> Result<Vec<u8>, Error> {
        serde_json::to_vec(value)
            .ok()
            .and_then(|plain| self.seal(key, &plain))
            .ok_or_else(|| Error::TokenStore {
                message: "a pending authorization could not be sealed (no random bytes)".into(),
                source: None,
            })
    }

    /// The JSON at `key`, taken once (`GETDEL`); `None` when absent or not opened by the key.
    async fn take_json<T: for<'de> Deserialize<'de>>(
        &self,
        operation: &'static str,
        key: String,
    ) -> Result<Option<T>, Error> {
        let Some(value) = self.read(operation, "GETDEL", key.clone()).await? else {
            return Ok(None);
        };
        Ok(self
            .open(&key, &value)
            .and_then(|plain| serde_json::from_slice(&plain).ok()))
    }

    /// Keeps `handoff`, the pending authorization of `state`, until its state expires.
    ///
    /// # Errors
    ///
    /// [`Error::TokenStore`] when Redis fails.
    pub(crate) async fn share(&self, state: &str, handoff: &Handoff) -> Result<(), Error> {
        let key = pending_key(state);
        let value = self.sealed_json(&key, handoff)?;
        self.set("share", key, value, handoff.ttl_secs()).await
    }

    /// The pending authorization of `state`, taken once: `None` when another replica took
    /// it, it expired, or it was never shared.
    ///
    /// # Errors
    ///
    /// [`Error::TokenStore`] when Redis fails.
    pub(crate) async fn take(&self, state: &str) -> Result<Option<Handoff>, Error> {
        self.take_json("take", pending_key(state)).await
    }

    /// Leaves `outcome` of the authorization of `state` (its `handoff`) for the replica
    /// that waits.
    ///
    /// # Errors
    ///
    /// [`Error::TokenStore`] when Redis fails.
    pub(crate) async fn report(
        &self,
        state: &str,
        handoff: &Handoff,
        outcome: &Outcome,
    ) -> Result<(), Error> {
        let key = outcome_key(state);
        let value = self.sealed_json(&key, outcome)?;
        self.set("report", key, value, handoff.ttl_secs()).await
    }

    /// The outcome of the authorization of `state`, taken once, when another replica left it.
    ///
    /// # Errors
    ///
    /// [`Error::TokenStore`] when Redis fails.
    pub(crate) async fn outcome(&self, state: &str) -> Result<Option<Outcome>, Error> {
        self.take_json("outcome", outcome_key(state)).await
    }
}

#[cfg(test)]
mod tests {
    use toolmodel_test_support::redis::RedisServer;

    use super::*;
    use crate::federation::TokenStore;

    const KEY: &str = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
    const OTHER_KEY: &str = "ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTA=";

    #[tokio::test]
    async fn a_pending_authorization_is_sealed_under_a_hash_of_its_state_and_taken_once() {
        let Some(redis) = RedisServer::start() else {
            return;
        };
        let store = Sealed::connect(&TokenStore::new(&redis.url, KEY).unwrap())
            .await
            .unwrap();
        let verifier = "v".repeat(43);
        let handoff = Handoff {
            server: "saas".into(),
            user: ("https://issuer.example".into(), "alice".into()),
            verifier: verifier.clone(),
            expires_at: now_unix() + 600,
        };
        store.share("the-state", &handoff).await.unwrap();
        let keys = redis.keys("*");
        assert_eq!(keys, [pending_key("the-state")]);
        assert!(!keys[0].contains("the-state"));
        let ttl = redis.ttl(&keys[0]);
        assert!((590..=600).contains(&ttl), "{ttl}");
        let value = redis.value(&keys[0]);
        let value = String::from_utf8_lossy(&value);
        assert!(!value.contains(&verifier) && !value.contains("alice"));

        // Another key does not open it (and the take still uses it up).
        let other = Sealed::connect(&TokenStore::new(&redis.url, OTHER_KEY).unwrap())
            .await
            .unwrap();
        store.share("copied", &handoff).await.unwrap();
        assert!(other.take("copied").await.unwrap().is_none());

        let taken = store.take("the-state").await.unwrap().expect("shared");
        assert_eq!(
            (taken.server.as_str(), taken.user),
            ("saas", handoff.user.clone())
        );
        assert_eq!(taken.verifier, verifier);
        assert!(
            store.take("the-state").await.unwrap().is_none(),
            "single use"
        );

        let denied: Outcome = Err("the authorization server answered access_denied".into());
        store.report("the-state", &handoff, &denied).await.unwrap();
        assert_eq!(store.outcome("the-state").await.unwrap(), Some(denied));
        assert_eq!(
            store.outcome("the-state").await.unwrap(),
            None,
            "single use"
        );
    }
}
