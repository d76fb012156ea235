//! [`TokenCache`]: the callers of tokens verified recently, so a client that sends the same
//! token on every request costs one verification, not one per request. Keyed by the token's
//! SHA-256 (the token itself is never kept), bounded, and each entry expires with its token.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, SystemTime},
};

use sha2::{Digest as _, Sha256};
use toolmodel::Caller;

/// A token's SHA-256.
type TokenHash = [u8; 32];

/// Verified tokens, by hash: the caller and when the token expires.
#[derive(Debug)]
pub(crate) struct TokenCache {
    capacity: usize,
    entries: Mutex<HashMap<TokenHash, (Arc<Caller>, SystemTime)>>,
}

/// The SHA-256 of `token`.
fn hash(token: &str) -> TokenHash {
    Sha256::digest(token.as_bytes()).into()
}

impl TokenCache {
    /// A cache of at most `capacity` tokens (0: nothing is kept).
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            capacity,
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<TokenHash, (Arc<Caller>, SystemTime)>> {
        self.entries
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// The caller of `token` when it was verified and has not expired by `now`.
    pub(crate) fn get(&self, token: &str, now: SystemTime) -> Option<Arc<Caller>> {
        let key = hash(token);
        let mut entries = self.lock();
        match entries.get(&key) {
            Some((caller, expires)) if *expires > now => Some(Arc::clone(caller)),
            Some(_) => {
                entries.remove(&key);
                None
            }
            None => None,
        }
    }

    /// Keeps `caller` for `token` until `expires`. When the cache is full, the expired
    /// entries go first, then the one that expires soonest.
    pub(crate) fn insert(
        &self,
        token: &str,
        caller: Arc<Caller>,
        expires: SystemTime,
        now: SystemTime,
    ) {
        if self.capacity == 0 || expires <= now {
            return;
        }
        let mut entries = self.lock();
        if entries.len() >= self.capacity {
            entries.retain(|_, (_, at)| *at > now);
        }
        if entries.len() >= self.capacity {
            let soonest = entries
                .iter()
                .min_by_key(|(_, (_, at))| *at)
                .map(|(key, _)| *key);
            if let Some(key) = soonest {
                entries.remove(&key);
            }
        }
        entries.insert(hash(token), (caller, expires));
    }
}

/// `exp` (seconds since the Unix epoch) as a time.
pub(crate) fn expiry(exp: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_secs(exp)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn caller(subject: &str) -> Arc<Caller> {
        Arc::new(Caller::new("https://issuer.example", subject))
    }

    #[test]
    fn a_verified_token_is_found_until_it_expires() {
        let cache = TokenCache::new(4);
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1000);
        cache.insert("token-a", caller("a"), expiry(1060), now);
        assert_eq!(cache.get("token-a", now), Some(caller("a")));
        assert_eq!(cache.get("token-b", now), None);
        assert_eq!(cache.get("token-a", expiry(1060)), None);
        assert!(cache.lock().is_empty(), "the expired entry is dropped");
    }

    #[test]
    fn a_full_cache_drops_the_token_that_expires_soonest() {
        let cache = TokenCache::new(2);
        let now = SystemTime::UNIX_EPOCH;
        cache.insert("soon", caller("soon"), expiry(10), now);
        cache.insert("late", caller("late"), expiry(100), now);
        cache.insert("new", caller("new"), expiry(50), now);
        assert_eq!(cache.get("soon", now), None);
        assert_eq!(cache.get("late", now), Some(caller("late")));
        assert_eq!(cache.get("new", now), Some(caller("new")));
    }

    #[test]
    fn the_cache_holds_hashes_not_tokens() {
        let cache = TokenCache::new(1);
        cache.insert(
            "secret-token",
            caller("a"),
            expiry(10),
            SystemTime::UNIX_EPOCH,
        );
        let debug = format!("{cache:?}");
        assert!(!debug.contains("secret-token"));
    }
}
