//! The tokens the gateway obtained ([`Cache`]), by whose they are, which server and which
//! target (issuer, subject, server, resource, audience, scope), each kept until
//! [`SKEW`] before it expires, at most a bounded number.

use std::{
    collections::HashMap,
    sync::Mutex,
    time::{Duration, Instant},
};

use toolmodel::AccessToken;

use super::config::TokenExchange;
use crate::lock::lock;

/// How long before its stated expiry a token is no longer used (the upstream's clock, and
/// the time the request takes); a token stated to live less than twice this is used for
/// half its life.
pub(crate) const SKEW: Duration = Duration::from_secs(30);

/// Whose token it is.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub(crate) enum Whose {
    /// The gateway's own (its catalog sessions).
    Gateway,
    /// A caller's: the subject of an issuer.
    User { issuer: String, subject: String },
}

/// What a token is kept under.
#[derive(Clone, Debug, Hash, PartialEq, Eq)]
pub(crate) struct Key {
    whose: Whose,
    server: String,
    resource: Option<String>,
    audience: Option<String>,
    scope: Vec<String>,
}

impl Key {
    /// The key of `whose` token for `server` as `exchange` asks for it.
    pub(crate) fn new(whose: Whose, server: &str, exchange: &TokenExchange) -> Self {
        Self {
            whose,
            server: server.to_owned(),
            resource: exchange.resource.clone(),
            audience: exchange.audience.clone(),
            scope: exchange.scope.clone(),
        }
    }
}

/// A token obtained, and until when it is used.
#[derive(Clone, Debug)]
pub(crate) struct Exchanged {
    pub(crate) token: AccessToken,
    pub(crate) until: Instant,
}

impl Exchanged {
    /// `token`, stated to expire after `lifetime` from now.
    pub(crate) fn new(token: AccessToken, lifetime: Duration) -> Self {
        let used_for = if lifetime >= SKEW * 2 {
            lifetime - SKEW
        } else {
            lifetime / 2
        };
        Self {
            token,
            until: Instant::now() + used_for,
        }
    }
}

/// At most `capacity` tokens; a full cache drops its expired ones, then the one that
/// expires first.
#[derive(Debug)]
pub(crate) struct Cache {
    capacity: usize,
    entries: Mutex<HashMap<Key, Exchanged>>,
}

impl Cache {
    pub(crate) fn new(capacity: usize) -> Self {
        Self {
            capacity,
            entries: Mutex::new(HashMap::new()),
        }
    }

    /// The token kept under `key`, while it is used.
    pub(crate) fn get(&self, key: &Key) -> Option<AccessToken> {
        let mut entries = lock(&self.entries);
        match entries.get(key) {
            Some(kept) if kept.until > Instant::now() => Some(kept.token.clone()),
            Some(_) => {
                entries.remove(key);
                None
            }
            None => None,
        }
    }

    /// Keeps `exchanged` under `key`.
    pub(crate) fn insert(&self, key: Key, exchanged: Exchanged) {
        if self.capacity == 0 {
            return;
        }
        let mut entries = lock(&self.entries);
        if entries.len() >= self.capacity && !entries.contains_key(&key) {
            let now = Instant::now();
            entries.retain(|_, kept| kept.until > now);
            if entries.len() >= self.capacity
                && let Some(first) = entries
                    .iter()
                    .min_by_key(|(_, kept)| kept.until)
                    .map(|(key, _)| key.clone())
            {
                entries.remove(&first);
            }
        }
        entries.insert(key, exchanged);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(subject: &str) -> Key {
        Key::new(
            Whose::User {
                issuer: "https://auth.example.com".into(),
                subject: subject.into(),
            },
            "notes",
            &TokenExchange::for_resource("https://notes.example.com/mcp"),
        )
    }

    #[test]
    fn a_token_is_kept_per_user_until_the_skew_before_it_expires_and_the_cache_is_bounded() {
        let cache = Cache::new(2);
        cache.insert(
            key("a"),
            Exchanged::new(AccessToken::new("ta"), Duration::from_secs(300)),
        );
        cache.insert(
            key("b"),
            Exchanged::new(AccessToken::new("tb"), Duration::from_secs(600)),
        );
        assert_eq!(cache.get(&key("a")).unwrap().secret(), "ta");
        assert_eq!(cache.get(&key("b")).unwrap().secret(), "tb");
        cache.insert(
            key("c"),
            Exchanged::new(AccessToken::new("tc"), Duration::from_secs(300)),
        );
        assert!(cache.get(&key("a")).is_none(), "the first to expire goes");
        assert_eq!(cache.get(&key("c")).unwrap().secret(), "tc");
        cache.insert(
            key("d"),
            Exchanged::new(AccessToken::new("td"), Duration::ZERO),
        );
        assert!(
            cache.get(&key("d")).is_none(),
            "an expired token is never used"
        );
        let brief = Exchanged::new(AccessToken::new("t"), Duration::from_secs(40));
        let used = brief.until.duration_since(Instant::now());
        assert!(
            used <= Duration::from_secs(20),
            "{used:?}: half of a short life"
        );
    }
}
