//! The federation's configuration in code: [`FederationConfig`], built with
//! [`FederationConfig::builder`] or read from the JSON clients share
//! ([`FederationConfig::from_json`], which lists the keys).

use std::{
    collections::{BTreeMap, BTreeSet},
    path::PathBuf,
    time::Duration,
};

use toolmodel::{Tool, ToolSchema, Violation};

use crate::error::Error;
use crate::federation::credentials::{Credentials, ExchangeClient, ExchangeGrant};
use crate::federation::names::{NamePolicy, SEPARATOR, holds_separator};
use crate::server::{RateLimits, ToolPolicy};

/// The MCP servers a [`Federation`](super::Federation) connects to, and how their tools are
/// named.
///
/// ```
/// use std::time::Duration;
/// use toolmodel_rmcp::federation::{FederationConfig, HttpTransport, UpstreamConfig, StdioTransport};
///
/// let config = FederationConfig::builder()
///     .with_upstream(UpstreamConfig::stdio("time", StdioTransport::new("mcp-server-time").with_arg("--local-timezone=UTC")))
///     .with_upstream(
///         UpstreamConfig::http("docs", HttpTransport::new("http://127.0.0.1:3001/mcp").with_header("Authorization", "Bearer abc"))
///             .with_timeout(Duration::from_secs(10))
///             .with_hidden_tools(["delete_page"]),
///     )
///     .build()?;
/// assert_eq!(config.upstreams.iter().map(|s| s.name.as_str()).collect::<Vec<_>>(), ["docs", "time"]);
/// # Ok::<(), toolmodel_rmcp::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct FederationConfig {
    /// Every configured server, enabled or not, sorted by name.
    pub upstreams: Vec<UpstreamConfig>,
    /// How the tools' flat names are made (JSON: top-level `toolNames`).
    pub tool_names: NamePolicy,
    /// Which tools each caller sees and may call (JSON: top-level `toolmodelPolicy`); every
    /// tool to everyone when `None`.
    pub tool_policy: Option<ToolPolicy>,
    /// The gateway's own OAuth client at its authorization server, which obtains the tokens
    /// of servers with [`credentials`](UpstreamConfig::credentials) (not JSON: the
    /// gateway's flags give it); [`Federation::start`](super::Federation::start) refuses
    /// such a server without it.
    pub exchange_client: Option<ExchangeClient>,
    /// The public URL of the gateway's OAuth redirect endpoint (RFC 6749 §3.1.2), which the
    /// servers of [`OAuth`](Credentials::OAuth) credentials send their users' browsers back
    /// to: `<origin of the gateway's resource>` followed by
    /// [`REDIRECT_PATH`](super::REDIRECT_PATH) (not JSON: `toolmodel gateway` derives it from
    /// `--resource`). [`Federation::start`](super::Federation::start) refuses such a server
    /// without it; read at start only (a reconfiguration keeps the first).
    pub redirect_uri: Option<String>,
    /// Where the users' tokens of servers with [`OAuth`](Credentials::OAuth) credentials are
    /// kept besides memory: Redis, encrypted (feature `redis`; `toolmodel gateway`: the Redis
    /// of `MCP_SESSION_STORE` with the key of [`TOKEN_STORE_KEY_ENV`](super::TOKEN_STORE_KEY_ENV)),
    /// and their pending authorizations too, so that the redirect of a user's browser may
    /// reach any replica sharing the Redis and the key; in memory only when `None` (the
    /// redirect must then reach the replica that asked). Read at start only.
    #[cfg(feature = "redis")]
    pub token_store: Option<super::TokenStore>,
    /// The rate limits of calls and requests (JSON: top-level `toolmodelLimits`); none when
    /// `None`.
    pub rate_limits: Option<RateLimits>,
}

impl FederationConfig {
    /// A builder with no servers and the default [`NamePolicy`].
    pub fn builder() -> FederationConfigBuilder {
        FederationConfigBuilder {
            upstreams: Vec::new(),
            tool_names: NamePolicy::default(),
            tool_policy: None,
            exchange_client: None,
            redirect_uri: None,
            #[cfg(feature = "redis")]
            token_store: None,
            rate_limits: None,
        }
    }

    /// The servers to connect to: those not disabled.
    pub fn enabled(&self) -> impl Iterator<Item = &UpstreamConfig> {
        self.upstreams.iter().filter(|server| server.enabled)
    }
}

/// Builds a [`FederationConfig`]; see [`FederationConfig::builder`].
#[derive(Clone, Debug)]
#[must_use]
pub struct FederationConfigBuilder {
    upstreams: Vec<UpstreamConfig>,
    tool_names: NamePolicy,
    tool_policy: Option<ToolPolicy>,
    exchange_client: Option<ExchangeClient>,
    redirect_uri: Option<String>,
    #[cfg(feature = "redis")]
    token_store: Option<super::TokenStore>,
    rate_limits: Option<RateLimits>,
}

impl FederationConfigBuilder {
    /// Keeps the users' third-party tokens in `store` too
    /// ([`FederationConfig::token_store`]).
    #[cfg(feature = "redis")]
    pub fn with_token_store(mut self, store: super::TokenStore) -> Self {
        self.token_store = Some(store);
        self
    }

    /// The public URL of the gateway's redirect endpoint
    /// ([`FederationConfig::redirect_uri`]).
    pub fn with_redirect_uri(mut self, url: impl Into<String>) -> Self {
        self.redirect_uri = Some(url.into());
        self
    }

    /// The gateway's own client for its servers' [`credentials`](UpstreamConfig::credentials)
    /// ([`FederationConfig::exchange_client`]).
    pub fn with_exchange_client(mut self, client: ExchangeClient) -> Self {
        self.exchange_client = Some(client);
        self
    }

    /// Limits the rate of calls and requests (see [`RateLimits`]).
    pub fn with_rate_limits(mut self, limits: RateLimits) -> Self {
        self.rate_limits = Some(limits);
        self
    }

    /// Serves each caller only the tools `policy` lets it see (see [`ToolPolicy`]).
    pub fn with_tool_policy(mut self, policy: ToolPolicy) -> Self {
        self.tool_policy = Some(policy);
        self
    }

    /// Adds a server.
    pub fn with_upstream(mut self, server: UpstreamConfig) -> Self {
        self.upstreams.push(server);
        self
    }

    /// How flat tool names are made (default [`NamePolicy::OnCollision`]).
    pub fn with_tool_names(mut self, policy: NamePolicy) -> Self {
        self.tool_names = policy;
        self
    }

    /// The configuration, servers sorted by name.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] naming the server and its JSON Pointer (`/mcpServers/<name>`): a name
    /// that is not a valid tool namespace (MCP tool name rules: 1 to 128 of `A-Z a-z 0-9 _ - .`),
    /// a name that holds `__` or ends with `_` (`.` read as `_`: the separator of prefixed tool
    /// names, see [`NamePolicy`]), an `inheritEnv` name that is empty or holds `=`,
    /// a required scope that is no RFC 6749 `scope-token` or repeats one (`/requiredScopes/<i>`),
    /// two servers of one name (or of names that differ only in `.` against `_`), an empty
    /// `command` or `url`, a `url` that is not `http://` or
    /// `https://`, or a zero timeout.
    pub fn build(self) -> Result<FederationConfig, Error> {
        let mut servers = self.upstreams;
        servers.sort_by(|a, b| a.name.cmp(&b.name));
        for pair in servers.windows(2) {
            if let [first, second] = pair
                && first.name == second.name
            {
                return Err(Error::config(
                    &second.name,
                    "",
                    "two servers have this name".to_owned(),
                ));
            }
        }
        for server in &servers {
            server.check()?;
        }
        // A prefixed tool name reads `.` as `_` (see `names`): two servers whose names differ
        // only there would prefix their tools alike.
        let mut prefixes: BTreeMap<String, &str> = BTreeMap::new();
        for server in &servers {
            let prefix = server.name.replace('.', "_");
            if let Some(first) = prefixes.insert(prefix.clone(), &server.name) {
                return Err(Error::config(
                    &server.name,
                    "",
                    format!(
                        "server {first:?} has the same tool prefix {prefix:?} ('.' reads as '_' in a prefixed tool name)"
                    ),
                ));
            }
        }
        Ok(FederationConfig {
            upstreams: servers,
            tool_names: self.tool_names,
            tool_policy: self.tool_policy,
            exchange_client: self.exchange_client,
            redirect_uri: self.redirect_uri,
            #[cfg(feature = "redis")]
            token_store: self.token_store,
            rate_limits: self.rate_limits,
        })
    }
}

/// One MCP server: its name (the namespace of its tools), how to reach it, which of its tools
/// to serve, and its timeouts.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub struct UpstreamConfig {
    /// The server's name: its key under `mcpServers`, the `namespace` of its tools and the
    /// `serverName` of their [`Backend::Mcp`](toolmodel::Backend::Mcp).
    pub name: String,
    /// How to reach it.
    pub transport: UpstreamTransport,
    /// Whether to connect to it (JSON: `disabled: true` or `enabled: false` turn it off).
    pub enabled: bool,
    /// When set, only these tools (by the server's names) are served (JSON: `allowedTools` or
    /// `includeTools`).
    pub allowed_tools: Option<Vec<String>>,
    /// Tools never served, by the server's names (JSON: `hiddenTools`, `excludeTools` or
    /// `disabledTools`).
    pub hidden_tools: Vec<String>,
    /// Its timeouts.
    pub timeouts: Timeouts,
    /// OAuth scopes an access token must grant to call any of its tools (JSON:
    /// `requiredScopes`, a key of toolmodel's): added to each imported tool's
    /// [`required_scopes`](toolmodel::Tool::required_scopes), so that a gateway serving with
    /// an `auth::ResourceServer` (feature `auth`) answers a call whose token lacks one with 403
    /// `insufficient_scope` naming them, and lists them in its Protected Resource Metadata's
    /// `scopes_supported`. Each is an RFC 6749 §3.3 `scope-token`, none repeated. Nothing
    /// checks them over stdio or without a `ResourceServer`.
    pub required_scopes: Vec<String>,
    /// Whether the gateway is not ready while this server has no open session (JSON:
    /// `required`, a key of toolmodel's; default `false`): the readiness check of an admin
    /// listener ([`Admin::with_federation`](crate::admin::Admin::with_federation)) fails
    /// until its session is open, and again whenever it is down. A gateway whose servers are
    /// all optional is ready once started, and serves the tools of those that answer.
    pub required: bool,
    /// The most calls waiting for or running on this server at once (JSON:
    /// `maxConcurrentCalls`, a key of toolmodel's; default
    /// [`MAX_PENDING_CALLS`](super::MAX_PENDING_CALLS)): a call past it is answered at once
    /// with an `isError` result naming the limit, and never reaches the server.
    pub max_concurrent_calls: usize,
    /// Values never shown in an error or a log line about this server: every value a `${VAR}`
    /// expansion put into its configuration ([`FederationConfig::from_json`] fills it in), and
    /// those [`with_secret`](Self::with_secret) adds. Each is replaced by `***` (one of fewer than 6
    /// characters is not searched for in free text). The values of `headers` and `env`, and
    /// the userinfo, query and fragment of `url`, are hidden without being listed here.
    pub secrets: BTreeSet<String>,
    /// How the gateway calls the server with each user's own credentials (JSON:
    /// `toolmodelCredentials`, a key of toolmodel's; Streamable HTTP servers only, and not
    /// beside an `Authorization` header): its tool calls run on a session of the caller's,
    /// with a token obtained for the caller ([`Credentials`]); its catalog is read with the
    /// gateway's own token (`client_credentials`); its prompts, resources and tasks are not
    /// served. `None`: every call on the one session, with the configured `headers`.
    pub credentials: Option<Credentials>,
}

/// How to reach a server.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum UpstreamTransport {
    /// A child process speaking MCP over its stdin and stdout (MCP "Transports", stdio).
    Stdio(StdioTransport),
    /// An MCP endpoint over Streamable HTTP (MCP "Transports", Streamable HTTP).
    Http(HttpTransport),
}

/// The gateway's environment variables every stdio server's child inherits: the MCP
/// TypeScript SDK's default set (`DEFAULT_INHERITED_ENV_VARS` of its stdio client), enough to
/// find and run a program (`npx`, `uvx`, a Python script) and nothing that holds a secret. A
/// value that starts with `()` (a shell function) is not passed on.
#[cfg(not(windows))]
pub const DEFAULT_INHERITED_ENV_VARS: &[&str] =
    &["HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER"];

/// The gateway's environment variables every stdio server's child inherits: the MCP
/// TypeScript SDK's default set for Windows (`DEFAULT_INHERITED_ENV_VARS` of its stdio
/// client). A value that starts with `()` is not passed on.
#[cfg(windows)]
pub const DEFAULT_INHERITED_ENV_VARS: &[&str] = &[
    "APPDATA",
    "HOMEDRIVE",
    "HOMEPATH",
    "LOCALAPPDATA",
    "PATH",
    "PROCESSOR_ARCHITECTURE",
    "SYSTEMDRIVE",
    "SYSTEMROOT",
    "TEMP",
    "USERNAME",
    "USERPROFILE",
];

/// Which of the gateway's environment variables a stdio server's child inherits (JSON:
/// `inheritEnv`, a key of toolmodel's that other clients ignore).
///
/// A child's environment is [`DEFAULT_INHERITED_ENV_VARS`], then the variables named here,
/// then its configured `env` (which wins): the gateway's own secrets (`MCP_REQUEST_STATE_KEY`,
/// its upstreams' API keys) never reach a server that was not given them.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum InheritEnv {
    /// [`DEFAULT_INHERITED_ENV_VARS`] and these names (JSON: `"inheritEnv": ["LANG",
    /// "NODE_OPTIONS"]`; `false` or absent: none beyond the default set).
    Named(BTreeSet<String>),
    /// The gateway's whole environment (JSON: `"inheritEnv": true`): for a server that needs
    /// variables it cannot be told about one by one.
    All,
}

impl Default for InheritEnv {
    /// [`DEFAULT_INHERITED_ENV_VARS`] only.
    fn default() -> Self {
        Self::Named(BTreeSet::new())
    }
}

/// A server run as a child process.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct StdioTransport {
    /// The program (`command`), found on `PATH` when it has no `/`.
    pub command: String,
    /// Its arguments (`args`).
    pub args: Vec<String>,
    /// Its variables (`env`), set over those it inherits.
    pub env: BTreeMap<String, String>,
    /// Which of the gateway's variables it inherits (`inheritEnv`; default: only
    /// [`DEFAULT_INHERITED_ENV_VARS`]).
    pub inherit_env: InheritEnv,
    /// Its working directory (`cwd`); the gateway's when `None`.
    pub cwd: Option<PathBuf>,
}

impl StdioTransport {
    /// `command` with no arguments, inheriting [`DEFAULT_INHERITED_ENV_VARS`] only.
    pub fn new(command: impl Into<String>) -> Self {
        Self {
            command: command.into(),
            args: Vec::new(),
            env: BTreeMap::new(),
            inherit_env: InheritEnv::default(),
            cwd: None,
        }
    }

    /// Adds an argument.
    #[must_use]
    pub fn with_arg(mut self, arg: impl Into<String>) -> Self {
        self.args.push(arg.into());
        self
    }

    /// Adds arguments.
    #[must_use]
    pub fn with_args<I: IntoIterator<Item = S>, S: Into<String>>(mut self, args: I) -> Self {
        self.args.extend(args.into_iter().map(Into::into));
        self
    }

    /// Sets an environment variable of the child.
    #[must_use]
    pub fn with_env(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.env.insert(name.into(), value.into());
        self
    }

    /// Passes these of the gateway's environment variables on to the child too, beyond
    /// [`DEFAULT_INHERITED_ENV_VARS`] (no change after [`with_all_env_inherited`](Self::with_all_env_inherited)).
    #[must_use]
    pub fn with_inherited_env<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        names: I,
    ) -> Self {
        if let InheritEnv::Named(named) = &mut self.inherit_env {
            named.extend(names.into_iter().map(Into::into));
        }
        self
    }

    /// Passes the gateway's whole environment on to the child ([`InheritEnv::All`]).
    #[must_use]
    pub fn with_all_env_inherited(mut self) -> Self {
        self.inherit_env = InheritEnv::All;
        self
    }

    /// Sets the working directory.
    #[must_use]
    pub fn with_cwd(mut self, cwd: impl Into<PathBuf>) -> Self {
        self.cwd = Some(cwd.into());
        self
    }
}

/// A server reached over Streamable HTTP.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpTransport {
    /// The MCP endpoint (`url`), `http://` or `https://`.
    pub url: String,
    /// Headers sent with every request (`headers`): with the tokens the gateway obtains for
    /// each user when the server has [`credentials`](UpstreamConfig::credentials), the only
    /// credentials the server receives (a gateway never forwards its own clients' headers or
    /// tokens).
    pub headers: BTreeMap<String, String>,
}

impl HttpTransport {
    /// The endpoint `url`, no headers.
    pub fn new(url: impl Into<String>) -> Self {
        Self {
            url: url.into(),
            headers: BTreeMap::new(),
        }
    }

    /// Adds a header.
    #[must_use]
    pub fn with_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Self {
        self.headers.insert(name.into(), value.into());
        self
    }
}

/// A server's timeouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Timeouts {
    /// The connection and `initialize` handshake, and each `tools/list` page (JSON:
    /// `startupTimeout`, milliseconds). Default 30 s.
    pub startup: Duration,
    /// Each request's wait for its answer, restarted by every progress notification of the
    /// request (JSON: `timeout`, milliseconds). Default 60 s.
    pub request: Duration,
    /// The longest a request may take whatever its progress (JSON: `maxTotalTimeout`,
    /// milliseconds). Default 10 minutes.
    pub max_total: Duration,
}

impl Default for Timeouts {
    fn default() -> Self {
        Self {
            startup: Duration::from_secs(30),
            request: Duration::from_secs(60),
            max_total: Duration::from_secs(600),
        }
    }
}

impl UpstreamConfig {
    /// A server run as a child process, enabled, every tool served, default timeouts.
    pub fn stdio(name: impl Into<String>, transport: StdioTransport) -> Self {
        Self::new(name.into(), UpstreamTransport::Stdio(transport))
    }

    /// A server reached over Streamable HTTP, enabled, every tool served, default timeouts.
    pub fn http(name: impl Into<String>, transport: HttpTransport) -> Self {
        Self::new(name.into(), UpstreamTransport::Http(transport))
    }

    fn new(name: String, transport: UpstreamTransport) -> Self {
        Self {
            name,
            transport,
            enabled: true,
            allowed_tools: None,
            hidden_tools: Vec::new(),
            timeouts: Timeouts::default(),
            required_scopes: Vec::new(),
            required: false,
            max_concurrent_calls: super::MAX_PENDING_CALLS,
            secrets: BTreeSet::new(),
            credentials: None,
        }
    }

    /// Calls the server with each user's own credentials
    /// ([`credentials`](Self::credentials)).
    #[must_use]
    pub fn with_credentials(mut self, credentials: Credentials) -> Self {
        self.credentials = Some(credentials);
        self
    }

    /// Adds a value never to show in an error or a log line about this server
    /// ([`secrets`](Self::secrets)): a token written into a URL's path, say.
    #[must_use]
    pub fn with_secret(mut self, value: impl Into<String>) -> Self {
        self.secrets.insert(value.into());
        self
    }

    /// Makes the server [`required`](Self::required) (or optional, the default): the gateway
    /// is not ready while it has no open session.
    #[must_use]
    pub fn with_required(mut self, required: bool) -> Self {
        self.required = required;
        self
    }

    /// Turns the server on or off (off: it stays in the configuration, not connected; JSON
    /// `disabled`, `enabled`).
    #[must_use]
    pub fn with_enabled(mut self, enabled: bool) -> Self {
        self.enabled = enabled;
        self
    }

    /// Serves only these tools (by the server's names).
    #[must_use]
    pub fn with_allowed_tools<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        tools: I,
    ) -> Self {
        self.allowed_tools = Some(tools.into_iter().map(Into::into).collect());
        self
    }

    /// Never serves these tools (by the server's names).
    #[must_use]
    pub fn with_hidden_tools<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        tools: I,
    ) -> Self {
        self.hidden_tools.extend(tools.into_iter().map(Into::into));
        self
    }

    /// Requires these OAuth scopes for every tool of the server
    /// ([`required_scopes`](Self::required_scopes)).
    #[must_use]
    pub fn with_required_scopes<I: IntoIterator<Item = S>, S: Into<String>>(
        mut self,
        scopes: I,
    ) -> Self {
        self.required_scopes
            .extend(scopes.into_iter().map(Into::into));
        self
    }

    /// Each request's wait, restarted by progress ([`Timeouts::request`]).
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.request = timeout;
        self
    }

    /// The cap on a request whatever its progress ([`Timeouts::max_total`]).
    #[must_use]
    pub fn with_max_total_timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.max_total = timeout;
        self
    }

    /// The connection, handshake and `tools/list` limit ([`Timeouts::startup`]).
    #[must_use]
    pub fn with_startup_timeout(mut self, timeout: Duration) -> Self {
        self.timeouts.startup = timeout;
        self
    }

    /// Whether a tool the server lists (by its name) is served.
    pub(crate) fn serves(&self, tool: &str) -> bool {
        self.allowed_tools
            .as_ref()
            .is_none_or(|allowed| allowed.iter().any(|name| name == tool))
            && !self.hidden_tools.iter().any(|name| name == tool)
    }

    /// Adds the server's [`required_scopes`](Self::required_scopes) to `tool`'s, each once.
    pub(crate) fn scope(&self, tool: &mut Tool) {
        for scope in &self.required_scopes {
            if !tool.required_scopes.contains(scope) {
                tool.required_scopes.push(scope.clone());
            }
        }
    }

    /// Checks what [`FederationConfigBuilder::build`] promises.
    fn check(&self) -> Result<(), Error> {
        if let Err(err) = toolmodel::model::name::check_name(&self.name) {
            return Err(Error::config(
                &self.name,
                "",
                format!("the server name is the namespace of its tools: {err}"),
            ));
        }
        if holds_separator(&self.name) || self.name.ends_with(['_', '.']) {
            return Err(Error::config(
                &self.name,
                "",
                format!(
                    "the server name holds {SEPARATOR:?} or ends with '_' ('.' reads as '_'): the gateway's <server>{SEPARATOR}<tool> names could not say where it ends"
                ),
            ));
        }
        match &self.transport {
            UpstreamTransport::Stdio(stdio) if stdio.command.is_empty() => {
                return Err(Error::config(
                    &self.name,
                    "/command",
                    "empty command".into(),
                ));
            }
            UpstreamTransport::Stdio(StdioTransport {
                inherit_env: InheritEnv::Named(names),
                ..
            }) => {
                if let Some(name) = names.iter().find(|name| !is_env_name(name)) {
                    return Err(Error::config(
                        &self.name,
                        "/inheritEnv",
                        format!(
                            "{name:?} is not an environment variable name (empty, or holds '=' or NUL)"
                        ),
                    ));
                }
            }
            UpstreamTransport::Http(http)
                if !(http.url.starts_with("http://") || http.url.starts_with("https://")) =>
            {
                return Err(Error::config(
                    &self.name,
                    "/url",
                    format!("{:?} is not an http:// or https:// URL", http.url),
                ));
            }
            _ => {}
        }
        if let Some(credentials) = &self.credentials {
            self.check_credentials(credentials)?;
        }
        if let Some((index, message)) = scope_problem(&self.required_scopes) {
            return Err(Error::config(
                &self.name,
                &format!("/requiredScopes/{index}"),
                message,
            ));
        }
        for (key, value) in [
            ("/startupTimeout", self.timeouts.startup),
            ("/timeout", self.timeouts.request),
            ("/maxTotalTimeout", self.timeouts.max_total),
        ] {
            if value.is_zero() {
                return Err(Error::config(&self.name, key, "a timeout of 0".into()));
            }
        }
        Ok(())
    }
}

impl UpstreamConfig {
    /// Checks [`credentials`](Self::credentials): an HTTP server without an `Authorization`
    /// header, a target named (`resource` or `audience`; `scope` for on-behalf-of), a `resource` that is an absolute `http(s)` URI without a
    /// fragment (RFC 8707 §2), scope tokens.
    fn check_credentials(&self, credentials: &Credentials) -> Result<(), Error> {
        const KEY: &str = "/toolmodelCredentials";
        let UpstreamTransport::Http(http) = &self.transport else {
            return Err(Error::config(
                &self.name,
                KEY,
                "a stdio server receives no token: each user's own credentials are for Streamable HTTP servers".into(),
            ));
        };
        if let Some(name) = http
            .headers
            .keys()
            .find(|name| name.eq_ignore_ascii_case("authorization"))
        {
            return Err(Error::config(
                &self.name,
                &format!("/headers/{}", crate::pointer::escape(name)),
                "a static Authorization header beside toolmodelCredentials: the server would receive one credential for every user; remove one of them".into(),
            ));
        }
        let exchange = match credentials {
            Credentials::TokenExchange(exchange) => exchange,
            Credentials::OAuth(client) => {
                return match scope_problem(&client.scope) {
                    Some((_, message)) => Err(Error::config(
                        &self.name,
                        &format!("{KEY}/oauth/scope"),
                        message,
                    )),
                    None => Ok(()),
                };
            }
        };
        let at = format!("{KEY}/tokenExchange");
        let targeted = match exchange.grant {
            ExchangeGrant::TokenExchange => {
                exchange.audience.is_some() || exchange.resource.is_some()
            }
            ExchangeGrant::OnBehalfOf => !exchange.scope.is_empty(),
        };
        if !targeted {
            let message = match exchange.grant {
                ExchangeGrant::OnBehalfOf => {
                    "names no \"scope\": Entra's on-behalf-of request names its target by scope (api://<app>/.default)"
                }
                _ => {
                    "names neither \"resource\" nor \"audience\": the token the gateway asks for needs a target (RFC 8693 §2.1)"
                }
            };
            return Err(Error::config(&self.name, &at, message.into()));
        }
        if exchange.grant == ExchangeGrant::OnBehalfOf && exchange.subject_token_type.is_some() {
            return Err(Error::config(
                &self.name,
                &format!("{at}/subjectTokenType"),
                "on-behalf-of sends the caller's token as an assertion, of no subject_token_type: remove it, or use \"grant\": \"token-exchange\"".into(),
            ));
        }
        if let Some(resource) = &exchange.resource {
            let parsed = url::Url::parse(resource);
            let fine = parsed.as_ref().is_ok_and(|url| {
                matches!(url.scheme(), "http" | "https") && url.fragment().is_none()
            });
            if !fine {
                return Err(Error::config(
                    &self.name,
                    &format!("{at}/resource"),
                    format!(
                        "{resource:?} is not an absolute http(s) URI without a fragment (RFC 8707 §2)"
                    ),
                ));
            }
        }
        if let Some((_, message)) = scope_problem(&exchange.scope) {
            return Err(Error::config(&self.name, &format!("{at}/scope"), message));
        }
        Ok(())
    }
}

/// The first scope of `scopes` that breaks the rules of a tool's
/// [`required_scopes`](toolmodel::Tool::required_scopes) (an RFC 6749 §3.3 `scope-token`, not
/// repeated), as its index and what is wrong: the rules [`Tool::violations`] checks, so that
/// a scope accepted here never makes an imported tool invalid.
pub(crate) fn scope_problem(scopes: &[String]) -> Option<(usize, String)> {
    let mut probe = Tool::new("scopes", ToolSchema::empty_object());
    probe.required_scopes = scopes.to_vec();
    probe
        .violations()
        .into_iter()
        .find_map(|violation| match violation {
            Violation::Scope {
                index,
                scope,
                problem,
            } => Some((index, format!("scope {scope:?} {problem}"))),
            _ => None,
        })
}

/// Whether `name` can name an environment variable: not empty, no `=` and no NUL.
fn is_env_name(name: &str) -> bool {
    !name.is_empty() && !name.contains(['=', '\0'])
}
