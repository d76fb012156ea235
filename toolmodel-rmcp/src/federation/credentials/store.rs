//! [`TokenStore`]: each user's tokens of a third-party upstream (`toolmodelCredentials.oauth`)
//! kept in Redis beside the gateway's memory, so that a restart or another replica does not
//! ask the user again; encrypted at rest with AES-256-GCM (RustCrypto `aes-gcm`), a random
//! 96-bit nonce per record, the record's key as associated data (a record copied under
//! another user's or server's key does not open). The key comes from the environment
//! ([`TOKEN_STORE_KEY_ENV`]); Redis sees only ciphertext and a SHA-256 of whose tokens they are.

use std::{
    sync::Arc,
    time::{Duration, SystemTime, UNIX_EPOCH},
};

use aes_gcm::{
    Aes256Gcm, KeyInit as _,
    aead::{Aead as _, Nonce, Payload},
};
use base64::Engine as _;
use serde::{Deserialize, Serialize};
use sha2::{Digest as _, Sha256};

use super::authorization::User;
use crate::{Error, redis_link::Store, store_url::without_password};

/// The environment variable `toolmodel gateway` reads the key from: 32 bytes in base64
/// (`openssl rand -base64 32`).
pub const TOKEN_STORE_KEY_ENV: &str = "MCP_TOKEN_STORE_KEY";

/// How long a record with a refresh token is kept in Redis after it was written (the refresh
/// token's own lifetime is the authorization server's; a refused one asks the user again).
pub const STORED_REFRESH_TTL: Duration = Duration::from_secs(30 * 24 * 3600);

/// The bound on each Redis command of the store.
const TIMEOUT: Duration = Duration::from_secs(2);

/// Where users' third-party tokens are kept besides memory (features `federation` and
/// `redis`; [`FederationConfig::token_store`](crate::federation::FederationConfig::token_store)):
/// a Redis URL and the AES-256-GCM key. Its `Debug` output leaves the key and the URL's
/// password out.
///
/// ```
/// use toolmodel_rmcp::federation::TokenStore;
///
/// let key = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY="; // 32 bytes
/// let store = TokenStore::new("redis://127.0.0.1:6379", key)?;
/// assert!(!format!("{store:?}").contains(key));
/// assert!(TokenStore::new("redis://127.0.0.1:6379", "c2hvcnQ=").is_err());
/// # Ok::<(), toolmodel_rmcp::Error>(())
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct TokenStore {
    url: String,
    key: [u8; 32],
}

impl TokenStore {
    /// The store at the Redis `url` (`redis://HOST:PORT[/DB]`) with the key `key_base64`
    /// (standard base64 of 32 bytes).
    ///
    /// # Errors
    ///
    /// [`Error::TokenStore`] when the key is not base64 of exactly 32 bytes.
    pub fn new(url: impl Into<String>, key_base64: &str) -> Result<Self, Error> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(key_base64.trim())
            .ok()
            .and_then(|bytes| <[u8; 32]>::try_from(bytes).ok())
            .ok_or_else(|| Error::TokenStore {
                message: format!(
                    "the key ({TOKEN_STORE_KEY_ENV}) is not 32 bytes in base64 (make one with: openssl rand -base64 32)"
                ),
                source: None,
            })?;
        Ok(Self {
            url: url.into(),
            key: bytes,
        })
    }
}

impl std::fmt::Debug for TokenStore {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("TokenStore")
            .field("url", &without_password(&self.url))
            .finish_non_exhaustive()
    }
}

/// One user's tokens as stored (inside the ciphertext).
#[derive(Serialize, Deserialize)]
pub(crate) struct Record {
    pub(crate) access_token: String,
    pub(crate) refresh_token: Option<String>,
    /// When the access token expires, in seconds since the Unix epoch.
    pub(crate) expires_at: u64,
}

/// Now, in seconds since the Unix epoch.
pub(crate) fn now_unix() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| since.as_secs())
}

/// The store, connected.
pub(crate) struct Sealed {
    connection: redis::aio::ConnectionManager,
    cipher: Aes256Gcm,
}

impl Sealed {
    /// Connects to `store`'s Redis.
    ///
    /// # Errors
    ///
    /// [`Error::TokenStore`] when it cannot be reached within 2 s.
    pub(crate) async fn connect(store: &TokenStore) -> Result<Arc<Self>, Error> {
        let shown = without_password(&store.url);
        let (_, connection) = Store::Tokens.connect(&store.url, &shown, TIMEOUT).await?;
        let cipher = Aes256Gcm::new_from_slice(&store.key).map_err(|_| Error::TokenStore {
            message: "the key is not 32 bytes".into(),
            source: None,
        })?;
        Ok(Arc::new(Self { connection, cipher }))
    }

    /// The Redis key of `user`'s tokens for `server`: a SHA-256 of both.
    fn key(server: &str, (issuer, subject): &User) -> String {
        let digest = Sha256::digest(format!("{server}\0{issuer}\0{subject}").as_bytes());
        let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
        format!("toolmodel:oauth-tokens:{hex}")
    }

    /// Keeps `record` for `user` of `server`; a failure is logged (without the tokens) and
    /// the tokens stay in memory only.
    pub(crate) async fn put(&self, server: &str, user: &User, record: &Record) {
        let key = Self::key(server, user);
        let Ok(plain) = serde_json::to_vec(record) else {
            return;
        };
        let mut nonce = [0u8; 12];
        if getrandom::fill(&mut nonce).is_err() {
            return;
        }
        let sealed = self.cipher.encrypt(
            &Nonce::<Aes256Gcm>::from(nonce),
            Payload {
                msg: &plain,
                aad: key.as_bytes(),
            },
        );
        let Ok(sealed) = sealed else { return };
        let value = [&nonce[..], &sealed].concat();
        let ttl = if record.refresh_token.is_some() {
            STORED_REFRESH_TTL.as_secs()
        } else {
            record.expires_at.saturating_sub(now_unix()).max(1)
        };
        let mut connection = self.connection.clone();
        let done = Store::Tokens.traced("put", async move {
            redis::cmd("SET")
                .arg(&key)
                .arg(value)
                .arg("EX")
                .arg(ttl)
                .query_async::<()>(&mut connection)
                .await
                .map_err(|err| Store::Tokens.redis_error("SET", err))
        });
        if let Err(err) = done.await {
            tracing::warn!(target: "toolmodel_rmcp::federation", server, "a user's tokens were not stored: {err}");
        }
    }

    /// `user`'s tokens for `server`, when stored and opened with the key (a record the key
    /// does not open, or Redis unreachable, is none).
    pub(crate) async fn get(&self, server: &str, user: &User) -> Option<Record> {
        let key = Self::key(server, user);
        let mut connection = self.connection.clone();
        let asked = key.clone();
        let value = Store::Tokens
            .traced("get", async move {
                redis::cmd("GET")
                    .arg(&asked)
                    .query_async::<Option<Vec<u8>>>(&mut connection)
                    .await
                    .map_err(|err| Store::Tokens.redis_error("GET", err))
            })
            .await
            .ok()??;
        let (nonce, sealed) = value.split_at_checked(12)?;
        let nonce = Nonce::<Aes256Gcm>::from(<[u8; 12]>::try_from(nonce).ok()?);
        let plain = self
            .cipher
            .decrypt(
                &nonce,
                Payload {
                    msg: sealed,
                    aad: key.as_bytes(),
                },
            )
            .ok()?;
        serde_json::from_slice(&plain).ok()
    }

    /// Forgets `user`'s tokens for `server` (their refresh was refused).
    pub(crate) async fn remove(&self, server: &str, user: &User) {
        let key = Self::key(server, user);
        let mut connection = self.connection.clone();
        let _ = Store::Tokens
            .traced("remove", async move {
                redis::cmd("DEL")
                    .arg(&key)
                    .query_async::<()>(&mut connection)
                    .await
                    .map_err(|err| Store::Tokens.redis_error("DEL", err))
            })
            .await;
    }
}
