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

/// Where users' third-party tokens, and their pending authorizations, are kept besides
/// memory (features `federation` and `redis`; [`FederationConfig::token_store`](crate::federation::FederationConfig::token_store)):
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

/// `prefix` followed by the SHA-256 of `text` in hex: a Redis key that does not show `text`.
pub(super) fn hashed(prefix: &str, text: &str) -> String {
    let digest = Sha256::digest(text.as_bytes());
    let hex: String = digest.iter().map(|byte| format!("{byte:02x}")).collect();
    format!("{prefix}{hex}")
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
        hashed(
            "toolmodel:oauth-tokens:",
            &format!("{server}\0{issuer}\0{subject}"),
        )
    }

    /// `plain` sealed for the Redis key `key`: a random 96-bit nonce, then the AES-256-GCM
    /// ciphertext with `key` as associated data; `None` when the system has no random bytes.
    pub(super) fn seal(&self, key: &str, plain: &[u8]) -> Option<Vec<u8>> {
        let mut nonce = [0u8; 12];
        getrandom::fill(&mut nonce).ok()?;
        let sealed = self
            .cipher
            .encrypt(
                &Nonce::<Aes256Gcm>::from(nonce),
                Payload {
                    msg: plain,
                    aad: key.as_bytes(),
                },
            )
            .ok()?;
        Some([&nonce[..], &sealed].concat())
    }

    /// What [`seal`](Self::seal) sealed for `key`, when the key opens it.
    pub(super) fn open(&self, key: &str, value: &[u8]) -> Option<Vec<u8>> {
        let (nonce, sealed) = value.split_at_checked(12)?;
        let nonce = Nonce::<Aes256Gcm>::from(<[u8; 12]>::try_from(nonce).ok()?);
        self.cipher
            .decrypt(
                &nonce,
                Payload {
                    msg: sealed,
                    aad: key.as_bytes(),
                },
            )
            .ok()
    }

    /// `value` at `key` for `ttl_secs` seconds (Redis `SET … EX`), inside the store's span
    /// `operation`.
    ///
    /// # Errors
    ///
    /// [`Error::TokenStore`] when Redis fails.
    pub(super) async fn set(
        &self,
        operation: &'static str,
        key: String,
        value: Vec<u8>,
        ttl_secs: u64,
    ) -> Result<(), Error> {
        let mut connection = self.connection.clone();
        Store::Tokens
            .traced(operation, async move {
                redis::cmd("SET")
                    .arg(&key)
                    .arg(value)
                    .arg("EX")
                    .arg(ttl_secs.max(1))
                    .query_async::<()>(&mut connection)
                    .await
                    .map_err(|err| Store::Tokens.redis_error("SET", err))
            })
            .await
    }

    /// The value at `key`, read with `command` (`GET`, or `GETDEL` to take it once), inside
    /// the store's span `operation`.
    ///
    /// # Errors
    ///
    /// [`Error::TokenStore`] when Redis fails.
    pub(super) async fn read(
        &self,
        operation: &'static str,
        command: &'static str,
        key: String,
    ) -> Result<Option<Vec<u8>>, Error> {
        let mut connection = self.connection.clone();
        Store::Tokens
            .traced(operation, async move {
                redis::cmd(command)
                    .arg(&key)
                    .query_async::<Option<Vec<u8>>>(&mut connection)
                    .await
                    .map_err(|err| Store::Tokens.redis_error(command, err))
            })
            .await
    }

    /// Keeps `record` for `user` of `server`; a failure is logged (without the tokens) and
    /// the tokens stay in memory only.
    pub(crate) async fn put(&self, server: &str, user: &User, record: &Record) {
        let key = Self::key(server, user);
        let Ok(plain) = serde_json::to_vec(record) else {
            return;
        };
        let Some(value) = self.seal(&key, &plain) else {
            return;
        };
        let ttl = if record.refresh_token.is_some() {
            STORED_REFRESH_TTL.as_secs()
        } else {
            record.expires_at.saturating_sub(now_unix()).max(1)
        };
        if let Err(err) = self.set("put", key, value, ttl).await {
            tracing::warn!(target: "toolmodel_rmcp::federation", server, "a user's tokens were not stored: {err}");
        }
    }

    /// `user`'s tokens for `server`, when stored and opened with the key (a record the key
    /// does not open, or Redis unreachable, is none).
    pub(crate) async fn get(&self, server: &str, user: &User) -> Option<Record> {
        let key = Self::key(server, user);
        let value = self.read("get", "GET", key.clone()).await.ok()??;
        serde_json::from_slice(&self.open(&key, &value)?).ok()
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
