//! MCP 2026-07-28 `requestState` (multi round-trip requests, SEP-2322) that no client can
//! forge and any replica holding the key can read: [`RequestStateKey`], and the sealing of a
//! call's [`RoundState`] answers and state.
//!
//! A sealed state is `rmcp`'s `RequestStateCodec` format (`rs1.<body>.<tag>`: base64url of
//! the expiry and the JSON payload, then an HMAC-SHA256 tag from the RustCrypto `hmac` and
//! `sha2` crates). The tag also covers, without storing them, the method, the tool's name
//! and its arguments (keys sorted), so a state is refused on any other call. It is signed,
//! not encrypted: the client can read it, not change it.

use std::{
    sync::{Arc, OnceLock},
    time::Duration,
};

use base64::{
    Engine,
    engine::general_purpose::{STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD},
};
use rmcp::{
    ErrorData,
    model::{JsonObject, RequestStateCodec, RequestStateError, SealOptions},
};
use serde_json::Value;
use toolmodel::{Caller, input::RoundState};

use crate::error::Error;

/// How long a `requestState` stays valid by default: 10 minutes (MCP 2026-07-28 asks for "a
/// short expiry"; long enough for a person to fill in a form).
pub const DEFAULT_REQUEST_STATE_TTL: Duration = Duration::from_secs(600);

/// The largest `requestState` accepted or written by default, in bytes: 64 KiB.
pub const DEFAULT_REQUEST_STATE_LIMIT: usize = 64 * 1024;

/// The key that authenticates `requestState`: at least 32 bytes. Every replica that must read
/// the states of the others needs the same key; keep it secret (with it, anyone can forge
/// state). `Debug` does not show it.
#[derive(Clone)]
pub struct RequestStateKey(Arc<[u8]>);

impl std::fmt::Debug for RequestStateKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "RequestStateKey({} bytes)", self.0.len())
    }
}

impl RequestStateKey {
    /// The shortest key accepted, in bytes (HMAC-SHA256's output size).
    pub const MIN_LEN: usize = RequestStateCodec::MIN_KEY_LENGTH;

    /// A key of these bytes.
    ///
    /// # Errors
    ///
    /// [`Error::RequestStateKey`] when it is shorter than [`MIN_LEN`](Self::MIN_LEN) bytes.
    pub fn from_bytes(bytes: impl Into<Vec<u8>>) -> Result<Self, Error> {
        let bytes = bytes.into();
        if bytes.len() < Self::MIN_LEN {
            return Err(Error::RequestStateKey {
                message: format!(
                    "the key has {} bytes; at least {} are needed",
                    bytes.len(),
                    Self::MIN_LEN
                ),
                source: None,
            });
        }
        Ok(Self(bytes.into()))
    }

    /// A key written in base64 (standard or URL-safe alphabet, padded or not; surrounding
    /// whitespace ignored) of at least 32 bytes: the format of `MCP_REQUEST_STATE_KEY`.
    /// `openssl rand -base64 32` makes one.
    ///
    /// ```
    /// use toolmodel_rmcp::server::RequestStateKey;
    ///
    /// let key = RequestStateKey::from_base64("q83vEjRWeJCrze8SNFZ4kKvN7xI0VniQq83vEjRWeJA=")?;
    /// assert!(RequestStateKey::from_base64("c2hvcnQ=").is_err()); // 5 bytes
    /// # Ok::<(), toolmodel_rmcp::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`Error::RequestStateKey`] when `text` is not base64, naming the byte offset, or
    /// decodes to fewer than 32 bytes.
    pub fn from_base64(text: &str) -> Result<Self, Error> {
        let text = text.trim();
        let decoded = [STANDARD, STANDARD_NO_PAD, URL_SAFE, URL_SAFE_NO_PAD]
            .iter()
            .find_map(|engine| engine.decode(text).ok());
        match decoded {
            Some(bytes) => Self::from_bytes(bytes),
            None => Err(Error::RequestStateKey {
                message: "the key is not base64".to_owned(),
                source: STANDARD.decode(text).err().map(Into::into),
            }),
        }
    }

    /// A key of 32 random bytes from the operating system.
    ///
    /// # Errors
    ///
    /// [`Error::RequestStateKey`] when the operating system gives no random bytes.
    pub fn random() -> Result<Self, Error> {
        let mut bytes = [0u8; 32];
        getrandom::fill(&mut bytes).map_err(|err| Error::RequestStateKey {
            message: "no random bytes from the operating system".to_owned(),
            source: Some(Box::new(err)),
        })?;
        Self::from_bytes(bytes.to_vec())
    }

    /// The random key of this process, made on first use: what a server without a configured
    /// key uses (its states are readable only by this process).
    pub(crate) fn process() -> Result<Self, Error> {
        // The first failure is kept (an `Error` is not `Clone`): its cause shared by every
        // later caller.
        static KEY: OnceLock<Result<RequestStateKey, Arc<Error>>> = OnceLock::new();
        KEY.get_or_init(|| Self::random().map_err(Arc::new))
            .clone()
            .map_err(|first| Error::RequestStateKey {
                message: "no process key".to_owned(),
                source: Some(Box::new(SharedError(first))),
            })
    }
}

/// Seals and opens a call's `requestState`: the key, the expiry, the size limit; and, for a
/// gateway (feature `federation`), makes the tags that bind an ID to its owner with the
/// same key.
#[derive(Clone)]
pub(crate) struct Sealer {
    codec: Arc<Result<RequestStateCodec, Error>>,
    /// The key `codec` was made with (`None` when there is none), for the tags.
    #[cfg_attr(
        not(feature = "federation"),
        expect(dead_code, reason = "only the federation makes tags")
    )]
    key: Option<RequestStateKey>,
    pub(crate) ttl: Duration,
    pub(crate) limit: usize,
}

impl std::fmt::Debug for Sealer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Sealer")
            .field("ttl", &self.ttl)
            .field("limit", &self.limit)
            .finish_non_exhaustive()
    }
}

/// An error shared by reference (the process key's first failure), as a cause.
#[derive(Debug)]
struct SharedError(Arc<Error>);

impl std::fmt::Display for SharedError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

impl std::error::Error for SharedError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        std::error::Error::source(&*self.0)
    }
}

impl Sealer {
    /// A sealer with `key`, or the process's random key.
    pub(crate) fn new(key: Option<RequestStateKey>) -> Self {
        let (codec, key) = match key.map_or_else(RequestStateKey::process, Ok) {
            Ok(key) => (
                RequestStateCodec::try_new(key.0.to_vec()).map_err(|err| Error::RequestStateKey {
                    message: "the key does not make a codec".to_owned(),
                    source: Some(err.into()),
                }),
                Some(key),
            ),
            Err(err) => (Err(err), None),
        };
        Self {
            codec: Arc::new(codec),
            key,
            ttl: DEFAULT_REQUEST_STATE_TTL,
            limit: DEFAULT_REQUEST_STATE_LIMIT,
        }
    }

    fn codec(&self) -> Result<&RequestStateCodec, ErrorData> {
        self.codec
            .as_ref()
            .as_ref()
            .map_err(|err| ErrorData::internal_error(format!("no requestState key: {err}"), None))
    }

    /// The MAC under `purpose` of `parts`, as an unguessable tag that only a holder of the
    /// key can make: HMAC-SHA256 (RFC 2104) under a key derived from this sealer's for
    /// `purpose` (`HMAC(key, purpose)`, so that no tag serves another purpose or is a
    /// `requestState`'s), over `parts` as a JSON array of strings (no part can run into the
    /// next); its first [`TAG_BYTES`] bytes in base64url without padding (22 characters).
    ///
    /// # Errors
    ///
    /// JSON-RPC `-32603` when there is no key (the operating system gave no random bytes
    /// for the process's key).
    #[cfg(feature = "federation")]
    pub(crate) fn tag(&self, purpose: &str, parts: &[&str]) -> Result<String, ErrorData> {
        use hmac::Mac as _;
        let tag = self.mac(purpose, parts)?.finalize().into_bytes();
        // HMAC-SHA256 gives 32 bytes, of which the first TAG_BYTES are kept.
        let (kept, _) = tag.split_at(TAG_BYTES.min(tag.len()));
        Ok(URL_SAFE_NO_PAD.encode(kept))
    }

    /// Whether `tag` is [`tag`](Self::tag)`(purpose, parts)`, compared in constant time
    /// (`digest`'s `verify_truncated_left`).
    #[cfg(feature = "federation")]
    pub(crate) fn verify_tag(&self, purpose: &str, parts: &[&str], tag: &str) -> bool {
        use hmac::Mac as _;
        let (Ok(mac), Ok(given)) = (self.mac(purpose, parts), URL_SAFE_NO_PAD.decode(tag)) else {
            return false;
        };
        given.len() == TAG_BYTES && mac.verify_truncated_left(&given).is_ok()
    }

    /// HMAC-SHA256 over `parts` (a JSON array) under the key derived for `purpose`, ready
    /// to finalize.
    #[cfg(feature = "federation")]
    fn mac(&self, purpose: &str, parts: &[&str]) -> Result<HmacSha256, ErrorData> {
        use hmac::{KeyInit as _, Mac as _};
        let key = self.key.as_ref().ok_or_else(|| {
            ErrorData::internal_error("no key to bind the ID to its owner with", None)
        })?;
        let keyed = |key: &[u8]| {
            HmacSha256::new_from_slice(key).map_err(|err| {
                ErrorData::internal_error(format!("HMAC-SHA256 refused the key: {err}"), None)
            })
        };
        let derived = keyed(&key.0)?
            .chain_update(purpose.as_bytes())
            .finalize()
            .into_bytes();
        let message = serde_json::to_vec(parts).unwrap_or_default();
        Ok(keyed(&derived)?.chain_update(message))
    }

    /// Seals `carried` for a retry of `tools/call` `name` with `arguments` by `caller` (the
    /// verified caller under authorization: MCP 2026-07-28 binds state to the user,
    /// `<user_id>:<handle>`).
    ///
    /// # Errors
    ///
    /// JSON-RPC `-32603` when the sealed state is larger than the limit (the handler's state
    /// and the answers so far are too big) or there is no key.
    pub(crate) fn seal(
        &self,
        name: &str,
        arguments: Option<&JsonObject>,
        caller: Option<&Caller>,
        carried: &RoundState,
    ) -> Result<String, ErrorData> {
        let bound = binding("tools/call", name, arguments, caller);
        self.seal_bound(&bound, carried, |size| {
            ErrorData::internal_error(
                format!(
                    "requestState of tools/call {name:?} would be {size} bytes, over the limit \
                     of {}: the handler's state and the answers so far are too large",
                    self.limit
                ),
                None,
            )
        })
    }

    /// Opens the `requestState` a client sent back with `tools/call` `name` and `arguments`,
    /// as `caller` (a state sealed for another caller fails verification).
    ///
    /// # Errors
    ///
    /// JSON-RPC `-32602` (invalid params; MCP 2026-07-28: the server "MUST reject state that
    /// fails verification") when the state is over the size limit, malformed, tampered with,
    /// sealed with another key, for another tool or other arguments, or expired; the message
    /// says which.
    pub(crate) fn open(
        &self,
        name: &str,
        arguments: Option<&JsonObject>,
        caller: Option<&Caller>,
        state: &str,
    ) -> Result<RoundState, ErrorData> {
        self.open_bound(&binding("tools/call", name, arguments, caller), state)
    }

    /// Seals an upstream's `requestState` of `method` (`prompts/get`, `resources/read`) about
    /// `target` (the prompt's name or the resource's URI, as the client named it) for
    /// `caller`, so that a gateway hands a client state only that caller can send back
    /// (MCP 2026-07-28 binds state to the user; the upstream sees every caller as the
    /// gateway and cannot).
    ///
    /// # Errors
    ///
    /// JSON-RPC `-32603` when the sealed state is larger than the limit or there is no key.
    #[cfg(feature = "federation")]
    pub(crate) fn seal_relayed(
        &self,
        method: &str,
        target: &str,
        caller: Option<&Caller>,
        upstream_state: &str,
    ) -> Result<String, ErrorData> {
        let bound = binding(method, target, None, caller);
        self.seal_bound(&bound, &upstream_state, |size| {
            ErrorData::internal_error(
                format!(
                    "requestState of {method} {target:?} would be {size} bytes, over the limit \
                     of {}: the upstream's state is too large",
                    self.limit
                ),
                None,
            )
        })
    }

    /// The upstream's `requestState` in `state`, which [`seal_relayed`](Self::seal_relayed)
    /// sealed for `method`, `target` and `caller`.
    ///
    /// # Errors
    ///
    /// As [`open`](Self::open): `-32602` for a state over the limit, malformed, tampered
    /// with, of another key, method, target or caller, or expired.
    #[cfg(feature = "federation")]
    pub(crate) fn open_relayed(
        &self,
        method: &str,
        target: &str,
        caller: Option<&Caller>,
        state: &str,
    ) -> Result<String, ErrorData> {
        self.open_bound(&binding(method, target, None, caller), state)
    }

    /// `value` sealed under `bound` with the expiry.
    ///
    /// # Errors
    ///
    /// JSON-RPC `-32603` when there is no key or sealing fails; `too_large(size)` for a
    /// sealed state of `size` bytes, over the limit.
    fn seal_bound<T: serde::Serialize>(
        &self,
        bound: &[u8],
        value: &T,
        too_large: impl FnOnce(usize) -> ErrorData,
    ) -> Result<String, ErrorData> {
        let options = SealOptions::new().associated_data(bound).ttl(self.ttl);
        let sealed = self
            .codec()?
            .seal_json_with(value, &options)
            .map_err(|err| ErrorData::internal_error(format!("requestState: {err}"), None))?;
        if sealed.len() > self.limit {
            return Err(too_large(sealed.len()));
        }
        Ok(sealed)
    }

    /// The value sealed under `bound` in `state` ([`open`](Self::open)'s errors).
    fn open_bound<T: serde::de::DeserializeOwned>(
        &self,
        bound: &[u8],
        state: &str,
    ) -> Result<T, ErrorData> {
        if state.len() > self.limit {
            return Err(ErrorData::invalid_params(
                format!(
                    "requestState is {} bytes, over the limit of {}",
                    state.len(),
                    self.limit
                ),
                None,
            ));
        }
        self.codec()?
            .open_json_with(state, bound)
            .map_err(|err| ErrorData::invalid_params(refusal(&err), None))
    }
}

/// How many bytes of the MAC a `Sealer::tag` keeps: 128 bits, unguessable.
#[cfg(feature = "federation")]
pub(crate) const TAG_BYTES: usize = 16;

/// HMAC-SHA256 (RustCrypto `hmac`, `sha2`).
#[cfg(feature = "federation")]
type HmacSha256 = hmac::Hmac<sha2::Sha256>;

/// Why a `requestState` was refused, for the client.
fn refusal(err: &RequestStateError) -> String {
    match err {
        RequestStateError::Expired => "requestState has expired: call the tool again".to_owned(),
        RequestStateError::IntegrityCheckFailed => {
            "requestState failed verification: it was changed, sealed by another server, or \
             belongs to another tool, other arguments or another caller"
                .to_owned()
        }
        other => format!("requestState is invalid: {other}"),
    }
}

/// What a state is bound to: the method, the tool's name (or prompt's, or resource's URI),
/// its arguments (keys sorted, so the client's key order does not matter) and, under
/// authorization, the caller's issuer and subject.
fn binding(
    method: &str,
    name: &str,
    arguments: Option<&JsonObject>,
    caller: Option<&Caller>,
) -> Vec<u8> {
    let mut bound = format!("toolmodel-rmcp/{method}\0").into_bytes();
    bound.extend_from_slice(name.as_bytes());
    bound.push(0);
    let arguments = arguments.cloned().map_or(Value::Null, Value::Object);
    bound.extend_from_slice(sorted(&arguments).to_string().as_bytes());
    if let Some(caller) = caller {
        // JSON strings: no issuer or subject can end early and run into the other.
        let user = serde_json::json!([caller.issuer(), caller.subject()]);
        bound.extend_from_slice(b"\0caller\0");
        bound.extend_from_slice(user.to_string().as_bytes());
    }
    bound
}

/// `value` with every object's keys in order.
fn sorted(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let mut entries: Vec<(&String, &Value)> = map.iter().collect();
            entries.sort_by(|a, b| a.0.cmp(b.0));
            Value::Object(
                entries
                    .into_iter()
                    .map(|(key, value)| (key.clone(), sorted(value)))
                    .collect(),
            )
        }
        Value::Array(items) => Value::Array(items.iter().map(sorted).collect()),
        other => other.clone(),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn key(byte: u8) -> RequestStateKey {
        RequestStateKey::from_bytes(vec![byte; 32]).unwrap()
    }

    fn carried() -> RoundState {
        let mut answers = serde_json::Map::new();
        answers.insert(
            "name".into(),
            json!({"action": "accept", "content": {"name": "Ada"}}),
        );
        RoundState::new(answers, Some(json!({"step": 2})))
    }

    fn args(value: Value) -> JsonObject {
        value.as_object().unwrap().clone()
    }

    #[test]
    fn a_sealed_state_opens_on_any_replica_with_the_key() {
        let sealed = Sealer::new(Some(key(7)))
            .seal("t", Some(&args(json!({"a": 1, "b": 2}))), None, &carried())
            .unwrap();
        // Another replica, the same key, the arguments in another order.
        let opened = Sealer::new(Some(key(7)))
            .open("t", Some(&args(json!({"b": 2, "a": 1}))), None, &sealed)
            .unwrap();
        assert_eq!(opened, carried());
    }

    #[test]
    fn tampered_foreign_rebound_and_expired_states_are_invalid_params() {
        let sealer = Sealer::new(Some(key(7)));
        let a = args(json!({"a": 1}));
        let sealed = sealer.seal("t", Some(&a), None, &carried()).unwrap();
        let refused = |result: Result<RoundState, ErrorData>| {
            let err = result.unwrap_err();
            assert_eq!(err.code, rmcp::model::ErrorCode::INVALID_PARAMS, "{err:?}");
            err.message.into_owned()
        };
        let mut tampered = sealed.clone().into_bytes();
        let middle = tampered.len() / 2;
        tampered[middle] = if tampered[middle] == b'A' { b'B' } else { b'A' };
        let tampered = String::from_utf8(tampered).unwrap();
        assert!(refused(sealer.open("t", Some(&a), None, &tampered)).contains("requestState"));
        assert!(
            refused(sealer.open("t", Some(&a), None, &format!("{sealed}-TAMPERED")))
                .contains("requestState")
        );
        assert!(
            refused(Sealer::new(Some(key(8))).open("t", Some(&a), None, &sealed))
                .contains("verification")
        );
        assert!(refused(sealer.open("u", Some(&a), None, &sealed)).contains("another tool"));
        assert!(
            refused(sealer.open("t", Some(&args(json!({"a": 2}))), None, &sealed))
                .contains("verification")
        );
        let mut short = Sealer::new(Some(key(7)));
        short.ttl = Duration::from_millis(1);
        let sealed = short.seal("t", Some(&a), None, &carried()).unwrap();
        std::thread::sleep(Duration::from_millis(20));
        assert!(refused(short.open("t", Some(&a), None, &sealed)).contains("expired"));
    }

    #[test]
    fn the_size_limit_holds_both_ways() {
        let mut sealer = Sealer::new(Some(key(7)));
        sealer.limit = 200;
        let big = RoundState::new(serde_json::Map::new(), Some(json!("x".repeat(500))));
        let err = sealer.seal("t", None, None, &big).unwrap_err();
        assert_eq!(err.code, rmcp::model::ErrorCode::INTERNAL_ERROR);
        assert!(err.message.contains("limit of 200"), "{}", err.message);
        let err = sealer.open("t", None, None, &"x".repeat(201)).unwrap_err();
        assert_eq!(err.code, rmcp::model::ErrorCode::INVALID_PARAMS);
    }

    #[test]
    fn keys_are_checked_and_the_process_key_is_stable() {
        assert!(matches!(
            RequestStateKey::from_bytes(vec![0; 31]),
            Err(Error::RequestStateKey { .. })
        ));
        let text = STANDARD.encode([3u8; 32]);
        assert_eq!(RequestStateKey::from_base64(&text).unwrap().0.len(), 32);
        assert_eq!(
            RequestStateKey::from_base64(&URL_SAFE_NO_PAD.encode([250u8; 40]))
                .unwrap()
                .0
                .len(),
            40
        );
        let err = RequestStateKey::from_base64("not base64!").unwrap_err();
        assert!(err.to_string().contains("base64"), "{err}");
        let first = RequestStateKey::process().unwrap();
        assert_eq!(first.0, RequestStateKey::process().unwrap().0);
        assert_ne!(first.0, RequestStateKey::random().unwrap().0);
    }

    #[test]
    fn a_state_sealed_for_one_caller_is_refused_to_another() {
        let sealer = Sealer::new(Some(key(7)));
        let a = args(json!({"a": 1}));
        let alice = Caller::new("https://issuer.example", "alice");
        let bob = Caller::new("https://issuer.example", "bob");
        let elsewhere = Caller::new("https://other.example", "alice");
        let sealed = sealer
            .seal("t", Some(&a), Some(&alice), &carried())
            .unwrap();
        assert!(sealer.open("t", Some(&a), Some(&alice), &sealed).is_ok());
        for other in [Some(&bob), Some(&elsewhere), None] {
            let err = sealer.open("t", Some(&a), other, &sealed).unwrap_err();
            assert!(err.message.contains("another caller"), "{other:?}: {err:?}");
        }
    }
}
