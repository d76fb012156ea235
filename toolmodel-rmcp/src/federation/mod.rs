//! MCP servers as backends (feature `federation`): many servers' tools in one
//! [`Toolbox`](toolmodel::Toolbox) beside local tools, called with local validation, and served
//! again as one gateway by a [`ToolboxServer`](crate::ToolboxServer).
//!
//! - `config`: which servers ([`FederationConfig`], read from the `mcpServers` JSON clients
//!   share by `parse`, variables expanded by `expand`).
//! - `names`: how their tools are named where a flat name is needed ([`NamePolicy`]).
//! - `import`: every page of each server's `tools/list`.
//! - `call`: one call of an upstream tool, and what each failure gives.
//! - `upstream`: a server's session, respawned with backoff; `session` opens it (a child
//!   process in its own process group, or Streamable HTTP, its transport wrapped by
//!   `counting`) and `relay` carries what the server sends during a call to the caller;
//!   `rounds` relays its MCP 2026-07-28 input rounds; `stderr` passes a child's stderr on to
//!   the gateway's, and `redact` keeps the configuration's secrets out of every error.
//! - `credentials`: each user's own credentials upstream (`toolmodelCredentials`): tokens
//!   exchanged for the caller's at the gateway's authorization server, a session per user.
//! - [`Federation`]: all of it together, kept current; `servers` holds the configuration in
//!   force with its upstreams, which [`Federation::reconfigure`] replaces (`reconfigure`:
//!   what it did, [`Reconfigured`]).
//! - `passthrough` ([`ToolboxServer::gateway`](crate::ToolboxServer::gateway)): the upstreams' prompts, resources and completion, for a gateway
//!   (`catalog` lists them and says which server a prompt name or a resource URI belongs to;
//!   `downstream` relays their announcements to the gateway's clients), and `task_routes`: their
//!   tasks (the tasks extension) passed through, each task ID naming its server.

mod catalog;
mod config;
mod counting;
mod credentials;
mod downstream;
mod expand;
mod federated;
pub(crate) mod history;
mod import;
mod names;
mod pages;
mod parse;
mod passthrough;
mod reconfigure;
mod redact;
mod relay;
mod rounds;
mod servers;
mod session;
mod stderr;
mod task_routes;
mod upstream;
mod upstream_call;
mod uri_template;

pub use config::{
    DEFAULT_INHERITED_ENV_VARS, FederationConfig, FederationConfigBuilder, HttpTransport,
    InheritEnv, StdioTransport, Timeouts, UpstreamConfig, UpstreamTransport,
};
pub use credentials::AUTHORIZATION_TTL;
pub(crate) use credentials::Callbacks;
pub use credentials::{
    Credentials, DEFAULT_EXCHANGE_TIMEOUT, DEFAULT_EXCHANGED_TOKENS, ExchangeClient, ExchangeGrant,
    MAX_USER_SESSIONS, OAuthClient, REDIRECT_PATH, TokenExchange, URL_ELICITATION_REQUIRED,
    USER_SESSION_IDLE,
};
#[cfg(feature = "redis")]
pub use credentials::{STORED_REFRESH_TTL, TOKEN_STORE_KEY_ENV, TokenStore};
pub use expand::Env;
pub use federated::{Federation, RebuildError, SessionState, UpstreamStatus};
pub use import::MAX_PAGES;
pub use names::{MAX_FLAT_NAME, NamePolicy, SEPARATOR};
pub use reconfigure::{Reconfigured, Renamed};
pub use upstream::{DRAIN_GRACE, FIRST_BACKOFF, MAX_BACKOFF, MAX_PENDING_CALLS};
pub use upstream_call::MAX_INPUT_ROUNDS;
