//! The crate's one error type, [`Error`].

/// The cause an [`Error`] keeps as its [`source`](std::error::Error::source): another crate's
/// error (`redis`, `serde_json`, `std::io`, `reqwest`, `base64`, `getrandom`, `url`), or a
/// task store's own.
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// Every error `toolmodel-rmcp` returns.
///
/// The enum is `#[non_exhaustive]`; classify with `matches!`. An error caused by another
/// (an I/O, Redis, JSON, HTTP or JWT library's error, a panicked task) says what failed and
/// keeps the cause as its [`source`](std::error::Error::source): print the chain (as
/// `anyhow`'s `{:#}` does) to see both.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// A conversion to an `rmcp` type would drop values that type cannot hold (`execution` and
    /// unknown keys going to `rmcp::model::Tool`). Nothing was converted;
    /// [`to_rmcp_lossy`](crate::to_rmcp_lossy) converts anyway and returns the same list.
    #[error("converting to {target} would drop {}", lost.join(", "))]
    Lossy {
        /// The type converted to, e.g. `rmcp::model::Tool`.
        target: &'static str,
        /// The JSON Pointer of every value that would be dropped, in the MCP JSON of the value
        /// converted (`/execution`, `/annotations/x-vendor`, `/icons/0/x-vendor`, ...).
        lost: Vec<String>,
    },

    /// An error of `toolmodel` (an icon theme `rmcp` added after 3.11, say).
    #[error(transparent)]
    Toolmodel(#[from] toolmodel::Error),

    /// The client's `initialize` handshake failed (`rmcp`'s error: the connection closed
    /// first, the first message was not `initialize`, ...).
    #[error("the MCP session did not start")]
    Initialize(#[source] Box<rmcp::service::ServerInitializeError>),

    /// The task running an MCP session panicked or was aborted.
    #[error("the MCP session task failed")]
    Join(#[from] tokio::task::JoinError),

    /// A `requestState` key that cannot be used (MCP 2026-07-28 multi round-trip requests):
    /// shorter than 32 bytes, not base64, or no random bytes for a process key.
    #[error("bad requestState key: {message}")]
    RequestStateKey {
        /// What is wrong with it.
        message: String,
        /// The cause: the base64 decoder's or the operating system's random source's error.
        #[source]
        source: Option<BoxError>,
    },

    /// A task store failed (the tasks extension): the Redis server cannot be reached or
    /// answered an error, or a stored task cannot be read; `message` says which and where.
    #[error("task store: {message}")]
    TaskStore {
        /// What failed.
        message: String,
        /// The cause: the Redis client's error, a stored value's JSON error, ...
        #[source]
        source: Option<BoxError>,
    },

    /// A task store refused a new task: it keeps `limit` tasks not expired yet already. A
    /// `tools/call` that would run as a task gets JSON-RPC `-32603` with this message.
    #[error("too many live tasks: this server keeps at most {limit}; retry once some expire")]
    TaskLimit {
        /// The store's limit.
        limit: usize,
    },

    /// A task store URL that cannot be used ([`task_store_from_url`](crate::tasks::task_store_from_url)).
    #[error("bad task store URL {url:?}: {message}")]
    TaskStoreUrl {
        /// The URL given, its password replaced by `***`.
        url: String,
        /// What is wrong with it.
        message: String,
    },

    /// A session store failed ([`SessionStore`](crate::sessions::SessionStore)): the Redis
    /// server cannot be reached or answered an error, or a stored session cannot be read;
    /// `message` says which and where. A request that needs the store then gets
    /// `503 Service Unavailable` with `Retry-After`.
    #[error("session store: {message}")]
    SessionStore {
        /// What failed.
        message: String,
        /// The cause: the Redis client's error, a stored value's JSON error, ...
        #[source]
        source: Option<BoxError>,
    },

    /// The Redis server that shares [`RateLimits`](crate::server::RateLimits) across replicas
    /// cannot be used at the start
    /// ([`shared_through_redis`](crate::server::RateLimits::shared_through_redis)): `url` is
    /// not a Redis URL, or the server cannot be reached; `message` says which. Once started,
    /// an outage is not an error: each replica counts in its own buckets until Redis answers.
    #[error("rate limit store: {message}")]
    LimitStore {
        /// What failed.
        message: String,
        /// The cause: the Redis client's error.
        #[source]
        source: Option<BoxError>,
    },

    /// The store of users' third-party tokens (`federation::TokenStore`, features
    /// `federation` and `redis`): its key is not 32 bytes of base64, or its Redis cannot be
    /// reached when the federation starts.
    #[error("token store: {message}")]
    TokenStore {
        /// What failed.
        message: String,
        /// The cause: the Redis client's error.
        #[source]
        source: Option<BoxError>,
    },

    /// A session store refused a new session: it keeps `limit` sessions not expired yet
    /// already (over every replica). The `initialize` gets `503 Service Unavailable`.
    #[error("too many sessions: the session store keeps at most {limit}; retry once some expire")]
    SessionLimit {
        /// The store's limit.
        limit: usize,
    },

    /// A session store URL that cannot be used
    /// ([`session_store_from_url`](crate::sessions::session_store_from_url)).
    #[error("bad session store URL {url:?}: {message}")]
    SessionStoreUrl {
        /// The URL given, its password replaced by `***`.
        url: String,
        /// What is wrong with it.
        message: String,
    },

    /// A [`ResourceServer`](crate::auth::ResourceServer) that cannot be used: an issuer or
    /// resource that is no URL, not `https` (nor `http` on loopback), a resource with a
    /// fragment, an HMAC or unknown signature algorithm, or no HTTP client for the issuer
    /// (feature `auth`).
    #[cfg(feature = "auth")]
    #[error("bad authorization configuration: {message}")]
    ResourceServer {
        /// What is wrong, naming the value.
        message: String,
        /// The cause: the URL parser's error, or the HTTP client's that could not be built.
        #[source]
        source: Option<BoxError>,
    },

    /// Accepting or serving connections failed.
    #[error("serving MCP over HTTP failed")]
    Io(#[source] std::io::Error),

    /// Telemetry could not be set up (feature `otel`,
    /// [`Telemetry::init`](crate::telemetry::otel::Telemetry::init)): a subscriber or a
    /// provider was installed already, an exporter could not be built (an OTLP endpoint that is
    /// not a URL), or the `RUST_LOG` directives do not parse.
    #[cfg(feature = "otel")]
    #[error("telemetry: {message}")]
    Telemetry {
        /// What could not be set up.
        message: String,
        /// The cause: the exporter's, the subscriber's or the filter's error.
        #[source]
        source: Option<BoxError>,
    },

    /// A federation configuration that cannot be used (feature `federation`), or a
    /// [`ToolPolicy`](crate::server::ToolPolicy) (its top-level key `toolmodelPolicy`): the
    /// server it is about (`None` for the file as a whole and for the policy) and the JSON
    /// Pointer of the value in the configuration file (for a configuration built in code, the
    /// pointer it would have under `mcpServers`).
    #[error("{}{message}", config_place(server.as_deref(), pointer))]
    Config {
        /// The server's name.
        server: Option<String>,
        /// The JSON Pointer of the value (RFC 6901); empty for the file as a whole, and then
        /// not shown.
        pointer: String,
        /// What is wrong with it.
        message: String,
        /// The cause: the I/O error reading the file, or the JSON parser's.
        #[source]
        source: Option<BoxError>,
    },
}

/// Where an [`Error::Config`] is: `server "NAME", at POINTER: `, each part left out when
/// there is none (the file as a whole has neither).
fn config_place(server: Option<&str>, pointer: &str) -> String {
    match (server, pointer.is_empty()) {
        (Some(server), false) => format!("server {server:?}, at {pointer}: "),
        (Some(server), true) => format!("server {server:?}: "),
        (None, false) => format!("at {pointer}: "),
        (None, true) => String::new(),
    }
}

#[cfg(feature = "federation")]
impl Error {
    /// [`Error::Config`] about `server`, at `key` (a pointer relative to the server's entry)
    /// under `/mcpServers/<server>`.
    pub(crate) fn config(server: &str, key: &str, message: String) -> Self {
        Self::Config {
            server: Some(server.to_owned()),
            pointer: format!("/mcpServers/{}{key}", crate::pointer::escape(server)),
            message,
            source: None,
        }
    }
}

/// `err` and each of its sources, joined by `: `.
pub(crate) fn chain(err: &dyn std::error::Error) -> String {
    let mut text = err.to_string();
    let mut source = err.source();
    while let Some(cause) = source {
        let cause = cause.to_string();
        if !text.contains(&cause) {
            text.push_str(": ");
            text.push_str(&cause);
        }
        source = source.and_then(std::error::Error::source);
    }
    text
}
