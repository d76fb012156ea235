//! [`HttpLimits`]: what one client, or all of them together, may hold on a Streamable HTTP
//! server ([`ToolboxServer::serve_http`](crate::ToolboxServer::serve_http), or the
//! [`McpHttpService`](super::McpHttpService) mounted in a server of your own), each with a
//! default meant for a production server on a machine with the common open-file limit of
//! 1,024.

use std::time::Duration;

/// Bounds on sessions, connections, reads and calls of a Streamable HTTP server (MCP
/// 2025-11-25, "Transports": Streamable HTTP), set with
/// [`ToolboxServer::with_limits`](crate::ToolboxServer::with_limits). Every refusal names the
/// limit it hit.
///
/// | limit | default | when reached |
/// |---|---|---|
/// | [`max_sessions`](Self::max_sessions) | 1,000 | a session with no call in flight is closed, abandoned ones first, fresh ones last (its client gets 404 and initializes again, as MCP says; abandoned: no request since `initialize` for 1 s; fresh: made or used less than 1 s ago); when every session is busy, `initialize` gets 503 with `Retry-After` |
/// | [`max_connections`](Self::max_connections) | 512 | the longest idle connection (no request in flight) is closed; when every connection is busy, the new one gets 503 with `Retry-After` and is closed |
/// | [`header_read_timeout`](Self::header_read_timeout) | 10 s | the connection is closed (from the moment the server waits for a request: a new connection, or a keep-alive one after its last response) |
/// | [`body_read_timeout`](Self::body_read_timeout) | 30 s | 408 Request Timeout, and the connection is closed |
/// | [`max_body_bytes`](Self::max_body_bytes) | 4 MiB | 413 Content Too Large, and the connection is closed |
/// | [`session_idle_timeout`](Self::session_idle_timeout) | 120 s | the session is closed (404 afterwards) |
/// | [`max_calls_per_session`](Self::max_calls_per_session) | 64 | 429 Too Many Requests with `Retry-After` |
/// | [`max_calls_per_caller`](Self::max_calls_per_caller) | 64 | 429 Too Many Requests with `Retry-After` (requests that name no session, per verified caller) |
/// | [`client_request_timeout`](Self::client_request_timeout) | 120 s | the request to the client is cancelled (`notifications/cancelled`) and the handler gets `-32603` naming the limit |
///
/// [`client_request_timeout`](Self::client_request_timeout) holds on every transport (stdio
/// too); the others are Streamable HTTP's. [`max_connections`](Self::max_connections) and
/// [`header_read_timeout`](Self::header_read_timeout) bound the TCP connections
/// [`serve_http`](crate::ToolboxServer::serve_http) accepts; a server of your own that mounts
/// the [`McpHttpService`](super::McpHttpService) owns its connections and sets its own, and
/// the service enforces every other limit.
///
/// Sessions are those of the handshake era (MCP before 2026-07-28: `initialize` and
/// `Mcp-Session-Id`); a 2026-07-28 request carries its own state and holds none.
///
/// ```
/// use std::time::Duration;
/// use toolmodel_rmcp::server::HttpLimits;
///
/// let limits = HttpLimits::default()
///     .with_max_sessions(200)
///     .with_header_read_timeout(Duration::from_secs(5));
/// assert_eq!(limits.max_sessions, 200);
/// assert_eq!(limits.max_connections, 512);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpLimits {
    /// Handshake-era sessions held at once.
    pub max_sessions: usize,
    /// TCP connections held at once. Keep it below the process's open-file limit
    /// (`ulimit -n`) minus the files the process opens besides.
    pub max_connections: usize,
    /// How long a connection may take to send a request's header, counted from when the
    /// server starts waiting for one; it also bounds how long a keep-alive connection may sit
    /// idle between requests.
    pub header_read_timeout: Duration,
    /// How long a request's body may take to arrive, from the end of its header.
    pub body_read_timeout: Duration,
    /// The largest request body accepted.
    pub max_body_bytes: usize,
    /// How long a session may go without a request before it is closed.
    pub session_idle_timeout: Duration,
    /// Requests of one session in flight at once (a response's stream still open counts).
    pub max_calls_per_session: usize,
    /// Requests that name no session (MCP 2026-07-28's, which carry their own state) in
    /// flight at once per caller under authorization (the verified token's issuer and
    /// subject), whatever connections it uses; a response's stream still open counts. An
    /// anonymous caller's only identity is its connection, which carries one HTTP/1.1
    /// request at a time: [`max_connections`](Self::max_connections) bounds those.
    pub max_calls_per_caller: usize,
    /// How long a request a call sends to the client (`sampling/createMessage`,
    /// `elicitation/create`, `roots/list`, before MCP 2026-07-28) may go unanswered: then
    /// the server cancels it (`notifications/cancelled`; MCP 2025-11-25, "Lifecycle",
    /// "Timeouts": senders SHOULD time out their requests) and the handler's
    /// [`CallContext::input`](toolmodel::CallContext::input) gets `-32603`. The default gives
    /// a person two minutes to fill in an elicitation form; a request the call no longer
    /// waits for (the call cancelled or ended, the client gone) is cancelled at once, whatever
    /// this says.
    pub client_request_timeout: Duration,
}

impl HttpLimits {
    /// Default of [`max_sessions`](Self::max_sessions).
    pub const DEFAULT_MAX_SESSIONS: usize = 1_000;
    /// Default of [`max_connections`](Self::max_connections).
    pub const DEFAULT_MAX_CONNECTIONS: usize = 512;
    /// Default of [`header_read_timeout`](Self::header_read_timeout).
    pub const DEFAULT_HEADER_READ_TIMEOUT: Duration = Duration::from_secs(10);
    /// Default of [`body_read_timeout`](Self::body_read_timeout).
    pub const DEFAULT_BODY_READ_TIMEOUT: Duration = Duration::from_secs(30);
    /// Default of [`max_body_bytes`](Self::max_body_bytes) (`rmcp`'s).
    pub const DEFAULT_MAX_BODY_BYTES: usize = 4 * 1024 * 1024;
    /// Default of [`session_idle_timeout`](Self::session_idle_timeout).
    pub const DEFAULT_SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(120);
    /// Default of [`max_calls_per_session`](Self::max_calls_per_session).
    pub const DEFAULT_MAX_CALLS_PER_SESSION: usize = 64;
    /// Default of [`max_calls_per_caller`](Self::max_calls_per_caller).
    pub const DEFAULT_MAX_CALLS_PER_CALLER: usize = 64;
    /// Default of [`client_request_timeout`](Self::client_request_timeout).
    pub const DEFAULT_CLIENT_REQUEST_TIMEOUT: Duration = Duration::from_secs(120);

    /// Sets [`max_sessions`](Self::max_sessions) (at least 1).
    #[must_use]
    pub fn with_max_sessions(mut self, sessions: usize) -> Self {
        self.max_sessions = sessions.max(1);
        self
    }

    /// Sets [`max_connections`](Self::max_connections) (at least 1).
    #[must_use]
    pub fn with_max_connections(mut self, connections: usize) -> Self {
        self.max_connections = connections.max(1);
        self
    }

    /// Sets [`header_read_timeout`](Self::header_read_timeout).
    #[must_use]
    pub fn with_header_read_timeout(mut self, timeout: Duration) -> Self {
        self.header_read_timeout = timeout;
        self
    }

    /// Sets [`body_read_timeout`](Self::body_read_timeout).
    #[must_use]
    pub fn with_body_read_timeout(mut self, timeout: Duration) -> Self {
        self.body_read_timeout = timeout;
        self
    }

    /// Sets [`max_body_bytes`](Self::max_body_bytes).
    #[must_use]
    pub fn with_max_body_bytes(mut self, bytes: usize) -> Self {
        self.max_body_bytes = bytes;
        self
    }

    /// Sets [`session_idle_timeout`](Self::session_idle_timeout).
    #[must_use]
    pub fn with_session_idle_timeout(mut self, timeout: Duration) -> Self {
        self.session_idle_timeout = timeout;
        self
    }

    /// Sets [`max_calls_per_session`](Self::max_calls_per_session) (at least 1).
    #[must_use]
    pub fn with_max_calls_per_session(mut self, calls: usize) -> Self {
        self.max_calls_per_session = calls.max(1);
        self
    }

    /// Sets [`max_calls_per_caller`](Self::max_calls_per_caller) (at least 1).
    #[must_use]
    pub fn with_max_calls_per_caller(mut self, calls: usize) -> Self {
        self.max_calls_per_caller = calls.max(1);
        self
    }

    /// Sets [`client_request_timeout`](Self::client_request_timeout).
    #[must_use]
    pub fn with_client_request_timeout(mut self, timeout: Duration) -> Self {
        self.client_request_timeout = timeout;
        self
    }
}

impl Default for HttpLimits {
    fn default() -> Self {
        Self {
            max_sessions: Self::DEFAULT_MAX_SESSIONS,
            max_connections: Self::DEFAULT_MAX_CONNECTIONS,
            header_read_timeout: Self::DEFAULT_HEADER_READ_TIMEOUT,
            body_read_timeout: Self::DEFAULT_BODY_READ_TIMEOUT,
            max_body_bytes: Self::DEFAULT_MAX_BODY_BYTES,
            session_idle_timeout: Self::DEFAULT_SESSION_IDLE_TIMEOUT,
            max_calls_per_session: Self::DEFAULT_MAX_CALLS_PER_SESSION,
            max_calls_per_caller: Self::DEFAULT_MAX_CALLS_PER_CALLER,
            client_request_timeout: Self::DEFAULT_CLIENT_REQUEST_TIMEOUT,
        }
    }
}
