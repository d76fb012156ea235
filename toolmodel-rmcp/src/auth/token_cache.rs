//! [`TokenCache`]: what became of tokens verified recently (their callers; for opaque tokens
//! the issuer refused, why), so a client that sends the same token on every request costs one
//! verification, not one per request. Keyed by the token's SHA-256 (the token itself is never
//! kept), bounded, and each entry expires with its token or sooner.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, SystemTime},
};

use crate::lock::lock;
use sha2::{Digest as _, Sha256};
use toolmodel::Caller;

/// A token's SHA-256.
type TokenHash = [u8; 32];

/// Tokens by hash: what came of verifying each (`T`: its caller, or why it was refused), and
/// until when that holds.
#[derive(Debug)]
pub(crate) struct TokenCache<T> {
    capacity: usize,
    entries: Mutex<HashMap<TokenHash, (T, SystemTime)>>,
}

/// The callers of verified tokens.
pub(crate) type CallerCache = TokenCache<Arc<Caller>>;

/// The SHA-256 of `token`.
fn hash(token: &str) -> TokenHash {
    Sha256::digest(token.as_bytes()).into()
}

impl<T: Clone> TokenCache<T> {
    /// A cache of at most `capacity` tokens (0: nothing is kept).
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            capacity,
            entries: Mutex::new(HashMap::new()),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<TokenHash, (T, SystemTime)>> {
        lock(&self.entries)
    }

    /// What is kept for `token`, when it has not expired by `now`.
    pub(crate) fn get(&self, token: &str, now: SystemTime) -> Option<T> {
        let key = hash(token);
        let mut entries = self.lock();
        match entries.get(&key) {
            Some((value, expires)) if *expires > now => Some(value.clone()),
            Some(_) => {
                entries.remove(&key);
                None
            }
            None => None,
        }
    }

    /// Keeps `value` for `token` until `expires`. When the cache is full, the expired
    /// entries go first, then the one that expires soonest.
    pub(crate) fn insert(&self, token: &str, value: T, expires: SystemTime, now: SystemTime) {
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
        entries.insert(hash(token), (value, expires));
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
        let cache = CallerCache::new(4);
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1000);
        cache.insert("token-a", caller("a"), expiry(1060), now);
        assert_eq!(cache.get("token-a", now), Some(caller("a")));
        assert_eq!(cache.get("token-b", now), None);
        assert_eq!(cache.get("token-a", expiry(1060)), None);
        assert!(cache.lock().is_empty(), "the expired entry is dropped");
    }

    #[test]
    fn a_full_cache_drops_the_token_that_expires_soonest() {
        let cache = CallerCache::new(2);
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
        let cache = CallerCache::new(1);
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
