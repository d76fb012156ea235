//! Reading a [`FederationConfig`] from the JSON clients share: the keys are listed on
//! [`FederationConfig::from_json`].

use std::{cell::RefCell, path::Path, time::Duration};

use serde_json::{Map, Value};

use crate::error::Error;
use crate::federation::config::{
    FederationConfig, HttpTransport, InheritEnv, StdioTransport, UpstreamConfig, UpstreamTransport,
};
use crate::federation::credentials::{Credentials, ExchangeGrant, OAuthClient, TokenExchange};
use crate::federation::expand::{Env, expand_into};
use crate::federation::names::NamePolicy;
use crate::pointer::escape;
use crate::server::{LIMITS_KEY, POLICY_KEY, RateLimits, ToolPolicy};
use crate::suggest::{did_you_mean, nearest};

impl FederationConfig {
    /// Reads a configuration file (see [`from_json`](Self::from_json)).
    ///
    /// # Errors
    ///
    /// [`Error::Config`] when the file cannot be read or is not JSON (naming the path), and
    /// what [`from_json`](Self::from_json) returns.
    pub fn from_path(path: impl AsRef<Path>) -> Result<Self, Error> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|err| Error::Config {
            server: None,
            pointer: String::new(),
            message: format!("cannot read {}", path.display()),
            source: Some(Box::new(err)),
        })?;
        let value: Value = serde_json::from_str(&text).map_err(|err| Error::Config {
            server: None,
            pointer: String::new(),
            message: format!("{} is not JSON", path.display()),
            source: Some(Box::new(err)),
        })?;
        Self::from_json(&value)
    }

    /// Reads the JSON of a client configuration (`mcpServers` or VS Code's `servers`; every key
    /// below), variables expanded from the process environment.
    ///
    /// # Keys
    ///
    /// The servers are the members of `mcpServers` (Claude Desktop, Claude Code, Cursor, Windsurf,
    /// Cline, Roo Code, Gemini CLI, GitHub Copilot CLI) or of `servers` (VS Code's `mcp.json`); one
    /// file has one of the two. Each member is a server, and these are the keys toolmodel reads,
    /// in either form:
    ///
    /// | key | meaning |
    /// |---|---|
    /// | `type`, `transport`, `transportType` | `stdio` (also `local`), or Streamable HTTP: `http`, `streamable-http`, `streamableHttp`, `streamable_http` (also `remote`); inferred from `command` (stdio) or `url` (HTTP) when absent. `sse` (the 2024-11-05 HTTP+SSE transport) is refused: rmcp 3.11 has no client for it |
    /// | `command`, `args`, `env`, `cwd` | the child process (stdio) |
    /// | `inheritEnv` (toolmodel's) | which of the gateway's environment variables the child inherits besides [`DEFAULT_INHERITED_ENV_VARS`](super::DEFAULT_INHERITED_ENV_VARS): an array of names, or `true` for all ([`InheritEnv`]) |
    /// | `url` (also `serverUrl`, `httpUrl`), `headers` | the endpoint (HTTP) |
    /// | `disabled`, `enabled` | `disabled: true` or `enabled: false` keeps the server out |
    /// | `allowedTools` (`includeTools`), `hiddenTools` (`excludeTools`, `disabledTools`) | which tools are served |
    /// | `requiredScopes` (toolmodel's) | OAuth scopes a token must grant to call any of the server's tools ([`UpstreamConfig::required_scopes`]) |
    /// | `toolmodelCredentials` (toolmodel's) | each user's own credentials upstream ([`UpstreamConfig::credentials`]): `{"tokenExchange": {"resource": URL, "audience": NAME, "scope": "a b", "grant": "token-exchange" \| "on-behalf-of", "subjectTokenType": URI}}` ([`TokenExchange`]) |
    /// | `required` (toolmodel's) | `true`: the gateway is not ready while the server has no open session ([`UpstreamConfig::required`]; default `false`) |
    /// | `maxConcurrentCalls` (toolmodel's) | the most calls waiting for or running on the server at once, an integer from 1 to 2^20 ([`UpstreamConfig::max_concurrent_calls`]; default [`MAX_PENDING_CALLS`](super::MAX_PENDING_CALLS)) |
    /// | `startupTimeout`, `timeout`, `maxTotalTimeout` | [`Timeouts`](super::Timeouts), in milliseconds |
    ///
    /// **Other clients' keys.** A key another client defines for its own use is accepted, and
    /// ignored, in the form that client writes, and refused in the other:
    ///
    /// | form | keys accepted and ignored |
    /// |---|---|
    /// | `mcpServers` | `autoApprove` (Cline), `alwaysAllow`, `watchPaths` (Roo Code), `trust`, `description` (Gemini CLI), `tools` (GitHub Copilot CLI) when it is `["*"]` (every tool, as without `allowedTools`) |
    /// | `servers` | `dev` (VS Code) |
    ///
    /// A key that would change what the server receives or which tools are served, and that the
    /// gateway does not carry out, is refused in both forms with what to write instead: `envFile`
    /// (VS Code, Cursor; write `env`), `headersHelper` (Claude Code; write `headers`), `auth`
    /// (Cursor), `oauth`, `authProviderType`, `targetAudience` and `targetServiceAccount` (Gemini
    /// CLI; the gateway sends only `headers`), `tools` other than `["*"]` (GitHub Copilot CLI;
    /// write `allowedTools`).
    ///
    /// **Unknown keys are refused**, naming the nearest known key and the key's JSON Pointer
    /// (`server "time", at /mcpServers/time/hidenTools: unknown key "hidenTools": did you mean
    /// "hiddenTools"?`): a misspelled `hiddenTools` or `disabled` would otherwise serve what it
    /// meant to keep out. At the top level, `mcpServers`, `servers`, `toolNames` (toolmodel's,
    /// the [`NamePolicy`]: `"always"`, `"onCollision"`, `"never"`), `toolmodelPolicy`
    /// (toolmodel's, below) and `inputs` (VS Code's) are read; a client's file also holds its
    /// other settings (Claude Desktop's `preferences`, Gemini CLI's `theme`...), so another
    /// top-level key is accepted unless it is a likely misspelling of one of those five (at
    /// most 3 edits and a third of the word), which is refused the same way.
    ///
    /// **Each user's own tools**: the top-level `toolmodelPolicy` (a [`ToolPolicy`]) is
    /// `{"rules": [rule, ...]}`, each rule `{"allow": [glob, ...], "when": {...}}`:
    ///
    /// | key | meaning |
    /// |---|---|
    /// | `allow` | the tool IDs the rule allows, `server.tool` (the server's name here, the tool's name on it), `*` standing for any run of characters: `notes.*`, `*.read_*`, `*` |
    /// | `when` | whom the rule applies to (left out: everyone); every member must hold |
    /// | `when.sub`, `when.client_id` | the token's `sub` or `client_id` is one of these |
    /// | `when.scope` | the token grants every one of these scopes |
    /// | `when.groups`, `when.roles` | the token's claim of that name (a string or an array of strings) holds one of these |
    /// | `when.claims` | `{"NAME": [values]}`: the same for any other claim |
    ///
    /// A caller sees and may call the tools a rule that applies to it allows, and no other;
    /// without a verified caller only the rules without `when` apply. An unknown key of the
    /// policy, a rule or a `when` is refused with the nearest known one, as above.
    ///
    /// `${VAR}`, `${VAR:-default}` and `${env:VAR}` are expanded in `command`, `args`, `env`,
    /// `cwd`, `url`, `headers` and the tool and scope lists (`${VAR}` forms: [`from_json_with`](Self::from_json_with)); each value
    /// read from the environment is one of the server's [`secrets`](super::UpstreamConfig::secrets),
    /// never shown in an error.
    ///
    /// # Errors
    ///
    /// [`Error::Config`] naming the server and the JSON Pointer of the value: no `mcpServers`
    /// or `servers` object (or both), a server that is not an object, a value of the wrong
    /// type, an unknown or unsupported transport, neither `command` nor `url`, a variable that
    /// is not set, a timeout that is not a positive integer, a `toolmodelPolicy` that
    /// [`ToolPolicy::from_json`] refuses; then what
    /// [`FederationConfigBuilder::build`](super::FederationConfigBuilder::build) checks.
    pub fn from_json(value: &Value) -> Result<Self, Error> {
        Self::from_json_with(value, &|name| std::env::var(name).ok())
    }

    /// [`from_json`](Self::from_json) with variables read from `env` instead of the process
    /// environment.
    ///
    /// ```
    /// use serde_json::json;
    /// use toolmodel_rmcp::federation::{FederationConfig, UpstreamTransport};
    ///
    /// let config = FederationConfig::from_json_with(
    ///     &json!({"mcpServers": {"docs": {"url": "${DOCS_URL:-http://127.0.0.1:3001/mcp}",
    ///                                     "headers": {"Authorization": "Bearer ${env:TOKEN}"}}}}),
    ///     &|name| (name == "TOKEN").then(|| "abc".to_owned()),
    /// )?;
    /// let UpstreamTransport::Http(http) = &config.upstreams[0].transport else { unreachable!() };
    /// assert_eq!(http.url, "http://127.0.0.1:3001/mcp");
    /// assert_eq!(http.headers["Authorization"], "Bearer abc");
    ///
    /// let err = FederationConfig::from_json_with(&json!({"servers": {"t": {"command": 1}}}), &|_| None)
    ///     .unwrap_err();
    /// assert_eq!(err.to_string(), "server \"t\", at /servers/t/command: expected a string");
    /// # Ok::<(), toolmodel_rmcp::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`from_json`](Self::from_json).
    pub fn from_json_with(value: &Value, env: Env<'_>) -> Result<Self, Error> {
        let root = value.as_object().ok_or_else(|| Error::Config {
            server: None,
            pointer: String::new(),
            message: format!(
                "the configuration is {}, not an object with mcpServers or servers",
                crate::server::json_kind(value)
            ),
            source: None,
        })?;
        check_top_keys(root)?;
        let (form, servers) = match (root.get("mcpServers"), root.get("servers")) {
            (Some(servers), None) => (Form::McpServers, servers),
            (None, Some(servers)) => (Form::Servers, servers),
            (Some(_), Some(_)) => {
                return Err(Error::Config {
                    server: None,
                    pointer: "/servers".into(),
                    message: "both mcpServers and servers: write one".into(),
                    source: None,
                });
            }
            (None, None) => {
                return Err(Error::Config {
                    server: None,
                    pointer: String::new(),
                    message: "no mcpServers or servers object".into(),
                    source: None,
                });
            }
        };
        let key = form.key();
        let servers = servers.as_object().ok_or_else(|| Error::Config {
            server: None,
            pointer: format!("/{key}"),
            message: "expected an object of servers by name".into(),
            source: None,
        })?;
        let mut builder = FederationConfig::builder();
        if let Some(policy) = root.get("toolNames") {
            builder = builder.with_tool_names(read_policy(policy)?);
        }
        if let Some(policy) = root.get(POLICY_KEY) {
            builder = builder.with_tool_policy(ToolPolicy::from_json(policy)?);
        }
        if let Some(limits) = root.get(LIMITS_KEY) {
            builder = builder.with_rate_limits(RateLimits::from_json(limits)?);
        }
        for (name, entry) in servers {
            let reader = Reader {
                server: name,
                form,
                base: format!("/{key}/{}", escape(name)),
                env,
                read: RefCell::default(),
            };
            builder = builder.with_upstream(reader.server(entry)?);
        }
        builder.build().map_err(|err| match err {
            // The builder's pointers are under `/mcpServers`; this file's may be `/servers`.
            Error::Config {
                server,
                pointer,
                message,
                source,
            } => Error::Config {
                server,
                pointer: match pointer.strip_prefix("/mcpServers") {
                    Some(rest) => format!("/{key}{rest}"),
                    None => pointer,
                },
                message,
                source,
            },
            other => other,
        })
    }
}

/// The top-level `toolNames`.
fn read_policy(value: &Value) -> Result<NamePolicy, Error> {
    match value.as_str() {
        Some("always") => Ok(NamePolicy::Always),
        Some("onCollision") => Ok(NamePolicy::OnCollision),
        Some("never") => Ok(NamePolicy::Never),
        _ => Err(Error::Config {
            server: None,
            pointer: "/toolNames".into(),
            message: format!("{value} is not \"always\", \"onCollision\" or \"never\""),
            source: None,
        }),
    }
}

/// Reads one server's entry, every error naming it.
struct Reader<'a> {
    server: &'a str,
    /// The form of the file, whose clients' keys the entry may hold.
    form: Form,
    /// The entry's JSON Pointer.
    base: String,
    env: Env<'a>,
    /// The values its variables took from `env`: the server's [`UpstreamConfig::secrets`].
    read: RefCell<Vec<String>>,
}

impl Reader<'_> {
    fn error(&self, key: &str, message: impl Into<String>) -> Error {
        Error::Config {
            server: Some(self.server.to_owned()),
            pointer: format!("{}{key}", self.base),
            message: message.into(),
            source: None,
        }
    }

    fn server(&self, entry: &Value) -> Result<UpstreamConfig, Error> {
        let entry = entry
            .as_object()
            .ok_or_else(|| self.error("", "expected an object"))?;
        for (key, value) in entry {
            self.check_key(key, value)?;
        }
        let transport = match self.transport_kind(entry)? {
            Kind::Stdio => UpstreamTransport::Stdio(self.stdio(entry)?),
            Kind::Http => UpstreamTransport::Http(self.http(entry)?),
        };
        let mut server = match transport {
            UpstreamTransport::Stdio(stdio) => UpstreamConfig::stdio(self.server, stdio),
            UpstreamTransport::Http(http) => UpstreamConfig::http(self.server, http),
        };
        let disabled = self.bool(entry, "disabled")?.unwrap_or(false);
        let enabled = self.bool(entry, "enabled")?.unwrap_or(true);
        server.enabled = enabled && !disabled;
        if let Some((_, allowed)) = self.first_list(entry, &["allowedTools", "includeTools"])? {
            server.allowed_tools = Some(allowed);
        }
        if let Some((_, hidden)) =
            self.first_list(entry, &["hiddenTools", "excludeTools", "disabledTools"])?
        {
            server.hidden_tools = hidden;
        }
        if let Some(scopes) = self.list(entry, "requiredScopes")? {
            server.required_scopes = scopes;
        }
        if let Some(credentials) = self.credentials(entry)? {
            server.credentials = Some(credentials);
        }
        if let Some(required) = self.bool(entry, "required")? {
            server.required = required;
        }
        if let Some(max) = entry.get("maxConcurrentCalls") {
            server.max_concurrent_calls = max
                .as_u64()
                .filter(|max| (1..=MAX_CONCURRENT_CALLS_LIMIT).contains(max))
                .and_then(|max| usize::try_from(max).ok())
                .ok_or_else(|| {
                    self.error(
                        "/maxConcurrentCalls",
                        format!("{max} is not an integer from 1 to {MAX_CONCURRENT_CALLS_LIMIT}"),
                    )
                })?;
        }
        if let Some(ms) = self.millis(entry, "startupTimeout")? {
            server.timeouts.startup = ms;
        }
        if let Some(ms) = self.millis(entry, "timeout")? {
            server.timeouts.request = ms;
        }
        if let Some(ms) = self.millis(entry, "maxTotalTimeout")? {
            server.timeouts.max_total = ms;
        }
        server.secrets.extend(self.read.take());
        Ok(server)
    }

    /// Refuses `key` of the entry, holding `value`, unless toolmodel reads it or a client of
    /// the file's form defines it for a use the gateway may ignore (see the [module
    /// docs](self)).
    fn check_key(&self, key: &str, value: &Value) -> Result<(), Error> {
        let pointer = format!("/{}", escape(key));
        let Some((_, known)) = ENTRY_KEYS.iter().find(|(name, _)| *name == key) else {
            let near = self.form.nearest_entry_keys(key);
            let message = match did_you_mean(key, &near) {
                Some(message) => message,
                None => format!(
                    "unknown key {key:?}: neither one toolmodel reads ({}) nor one another client defines for {} entries",
                    ENTRY_KEYS
                        .iter()
                        .filter(|(_, known)| matches!(known, Key::Read))
                        .map(|(name, _)| *name)
                        .collect::<Vec<_>>()
                        .join(", "),
                    self.form.key()
                ),
            };
            return Err(self.error(&pointer, message));
        };
        match *known {
            Key::Read => Ok(()),
            Key::Ignored { form, .. } if form == self.form => Ok(()),
            Key::EveryToolOnly { clients, form } if form == self.form => {
                if *value == serde_json::json!(["*"]) {
                    Ok(())
                } else {
                    Err(self.error(
                        &pointer,
                        format!(
                            "{key:?} ({clients}) other than [\"*\"] is not read by toolmodel: list the tools to serve in \"allowedTools\""
                        ),
                    ))
                }
            }
            Key::Ignored { clients, form } | Key::EveryToolOnly { clients, form } => Err(self
                .error(
                    &pointer,
                    format!(
                        "{key:?} is a key of {clients} for {} entries, not of {} entries",
                        form.key(),
                        self.form.key()
                    ),
                )),
            Key::Refused { clients, instead } => Err(self.error(
                &pointer,
                format!("{key:?} ({clients}) is not supported by the gateway: {instead}"),
            )),
        }
    }

    /// The transport named by `type`, `transport` or `transportType`, else inferred.
    fn transport_kind(&self, entry: &Map<String, Value>) -> Result<Kind, Error> {
        let mut named: Option<(&str, Kind)> = None;
        for key in ["type", "transport", "transportType"] {
            let Some(value) = entry.get(key) else {
                continue;
            };
            let pointer = format!("/{key}");
            let text = value
                .as_str()
                .ok_or_else(|| self.error(&pointer, "expected a string"))?;
            let folded: String = text
                .chars()
                .filter(|c| *c != '-' && *c != '_')
                .map(|c| c.to_ascii_lowercase())
                .collect();
            let kind = match folded.as_str() {
                "stdio" | "local" => Kind::Stdio,
                "http" | "streamablehttp" | "streamable" | "remote" => Kind::Http,
                "sse" => {
                    return Err(self.error(
                        &pointer,
                        "the HTTP+SSE transport (MCP 2024-11-05) is not supported (rmcp 3.11 has no client for it): use the server's Streamable HTTP endpoint with \"type\": \"http\"",
                    ));
                }
                _ => {
                    return Err(self.error(
                        &pointer,
                        format!("unknown transport {text:?}: expected \"stdio\" or \"http\""),
                    ));
                }
            };
            if let Some((first, earlier)) = named
                && earlier != kind
            {
                return Err(self.error(
                    &pointer,
                    format!("{key} says {text:?}, but {first} names another transport"),
                ));
            }
            named = Some((key, kind));
        }
        if let Some((_, kind)) = named {
            return Ok(kind);
        }
        if entry.contains_key("command") {
            Ok(Kind::Stdio)
        } else if URL_KEYS.iter().any(|key| entry.contains_key(*key)) {
            Ok(Kind::Http)
        } else {
            Err(self.error(
                "",
                "neither command (a stdio server) nor url (a Streamable HTTP server)",
            ))
        }
    }

    fn stdio(&self, entry: &Map<String, Value>) -> Result<StdioTransport, Error> {
        let command = self
            .string(entry, "command")?
            .ok_or_else(|| self.error("/command", "a stdio server needs a command"))?;
        let mut stdio = StdioTransport::new(command);
        if let Some(args) = self.list(entry, "args")? {
            stdio.args = args;
        }
        if let Some(env) = self.map(entry, "env")? {
            stdio.env = env;
        }
        if let Some(inherit) = self.inherit_env(entry)? {
            stdio.inherit_env = inherit;
        }
        stdio.cwd = self.string(entry, "cwd")?.map(Into::into);
        Ok(stdio)
    }

    fn http(&self, entry: &Map<String, Value>) -> Result<HttpTransport, Error> {
        let mut url = None;
        for key in URL_KEYS {
            if let Some(found) = self.string(entry, key)? {
                url = Some(found);
                break;
            }
        }
        let url = url.ok_or_else(|| self.error("/url", "an HTTP server needs a url"))?;
        let mut http = HttpTransport::new(url);
        if let Some(headers) = self.map(entry, "headers")? {
            http.headers = headers;
        }
        Ok(http)
    }

    /// Expands the variables of a string found at `pointer`.
    fn expand(&self, pointer: &str, text: &str) -> Result<String, Error> {
        expand_into(text, self.env, &mut self.read.borrow_mut())
            .map_err(|err| self.error(pointer, err.0))
    }

    fn string(&self, entry: &Map<String, Value>, key: &str) -> Result<Option<String>, Error> {
        self.string_in("", entry, key)
    }

    /// The string member `key` of the object at `at` (a JSON Pointer within the entry),
    /// its variables expanded.
    fn string_in(
        &self,
        at: &str,
        entry: &Map<String, Value>,
        key: &str,
    ) -> Result<Option<String>, Error> {
        let pointer = format!("{at}/{key}");
        entry
            .get(key)
            .map(|value| {
                let text = value
                    .as_str()
                    .ok_or_else(|| self.error(&pointer, "expected a string"))?;
                self.expand(&pointer, text)
            })
            .transpose()
    }

    /// `inheritEnv`: `true`, `false`, or an array of variable names (not expanded).
    fn inherit_env(&self, entry: &Map<String, Value>) -> Result<Option<InheritEnv>, Error> {
        const KEY: &str = "inheritEnv";
        match entry.get(KEY) {
            None => Ok(None),
            Some(Value::Bool(true)) => Ok(Some(InheritEnv::All)),
            Some(Value::Bool(false)) => Ok(Some(InheritEnv::default())),
            Some(Value::Array(names)) => names
                .iter()
                .enumerate()
                .map(|(index, name)| {
                    name.as_str().map(str::to_owned).ok_or_else(|| {
                        self.error(&format!("/{KEY}/{index}"), "expected a variable name")
                    })
                })
                .collect::<Result<_, _>>()
                .map(|names| Some(InheritEnv::Named(names))),
            Some(other) => Err(self.error(
                &format!("/{KEY}"),
                format!("{other} is not true, false or an array of variable names"),
            )),
        }
    }

    fn bool(&self, entry: &Map<String, Value>, key: &str) -> Result<Option<bool>, Error> {
        entry
            .get(key)
            .map(|value| {
                value
                    .as_bool()
                    .ok_or_else(|| self.error(&format!("/{key}"), "expected true or false"))
            })
            .transpose()
    }

    fn list(&self, entry: &Map<String, Value>, key: &str) -> Result<Option<Vec<String>>, Error> {
        let Some(value) = entry.get(key) else {
            return Ok(None);
        };
        let items = value
            .as_array()
            .ok_or_else(|| self.error(&format!("/{key}"), "expected an array of strings"))?;
        items
            .iter()
            .enumerate()
            .map(|(index, item)| {
                let pointer = format!("/{key}/{index}");
                let text = item
                    .as_str()
                    .ok_or_else(|| self.error(&pointer, "expected a string"))?;
                self.expand(&pointer, text)
            })
            .collect::<Result<Vec<_>, _>>()
            .map(Some)
    }

    /// `toolmodelCredentials`: `{"tokenExchange": {"resource", "audience", "scope", "grant",
    /// "subjectTokenType"}}`,
    /// each string expanded, a misspelled key refused with its suggestion.
    fn credentials(&self, entry: &Map<String, Value>) -> Result<Option<Credentials>, Error> {
        const KEY: &str = "toolmodelCredentials";
        const KINDS: [&str; 2] = ["tokenExchange", "oauth"];
        const EXCHANGE_KEYS: [&str; 5] =
            ["resource", "audience", "scope", "grant", "subjectTokenType"];
        let Some(value) = entry.get(KEY) else {
            return Ok(None);
        };
        let members = self.object(&format!("/{KEY}"), value, &KINDS)?;
        if members.len() > 1 {
            return Err(self.error(
                &format!("/{KEY}"),
                "names two ways to obtain credentials: keep \"tokenExchange\" or \"oauth\"",
            ));
        }
        if let Some(oauth) = members.get("oauth") {
            return self.oauth(&format!("/{KEY}/oauth"), oauth).map(Some);
        }
        let Some(exchange) = members.get("tokenExchange") else {
            return Err(self.error(
                &format!("/{KEY}"),
                "names no way to obtain credentials: write \"tokenExchange\" or \"oauth\"",
            ));
        };
        let at = format!("/{KEY}/tokenExchange");
        let members = self.object(&at, exchange, &EXCHANGE_KEYS)?;
        let text = |key: &str| self.string_in(&at, members, key);
        let grant = match text("grant")?.as_deref() {
            None | Some("token-exchange") => ExchangeGrant::TokenExchange,
            Some("on-behalf-of") => ExchangeGrant::OnBehalfOf,
            Some(other) => {
                return Err(self.error(
                    &format!("{at}/grant"),
                    format!("{other:?} is neither \"token-exchange\" (RFC 8693) nor \"on-behalf-of\" (Microsoft Entra ID)"),
                ));
            }
        };
        let mut exchange = TokenExchange::default().with_grant(grant);
        exchange.resource = text("resource")?;
        exchange.audience = text("audience")?;
        exchange.subject_token_type = text("subjectTokenType")?;
        exchange.scope = text("scope")?
            .map(|scope| {
                scope
                    .split(' ')
                    .filter(|s| !s.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        Ok(Some(Credentials::TokenExchange(exchange)))
    }

    /// `toolmodelCredentials.oauth` at `at`: `{"clientId", "clientSecret", "scope"}`, each
    /// string expanded; the secret must come from the environment (`${env:NAME}`).
    fn oauth(&self, at: &str, value: &Value) -> Result<Credentials, Error> {
        const KEYS: [&str; 3] = ["clientId", "clientSecret", "scope"];
        let members = self.object(at, value, &KEYS)?;
        let text = |key: &str| -> Result<Option<(String, String)>, Error> {
            let pointer = format!("{at}/{key}");
            members
                .get(key)
                .map(|value| {
                    let raw = value
                        .as_str()
                        .ok_or_else(|| self.error(&pointer, "expected a string"))?;
                    Ok((raw.to_owned(), self.expand(&pointer, raw)?))
                })
                .transpose()
        };
        let Some((_, client_id)) = text("clientId")?.filter(|(_, id)| !id.is_empty()) else {
            return Err(self.error(
                at,
                "names no \"clientId\": the client the upstream's authorization server registered for the gateway",
            ));
        };
        let mut client = OAuthClient::new(client_id);
        if let Some((raw, secret)) = text("clientSecret")? {
            if !raw.contains("${") {
                return Err(self.error(
                    &format!("{at}/clientSecret"),
                    "a secret written in the file: write \"${env:NAME}\" and set NAME in the gateway's environment",
                ));
            }
            client = client.with_secret(secret);
        }
        if let Some((_, scope)) = text("scope")? {
            client = client.with_scopes(scope.split(' ').filter(|s| !s.is_empty()));
        }
        Ok(Credentials::OAuth(client))
    }

    /// `value` at `pointer` as an object whose keys are all of `known` (an unknown one
    /// refused, with a suggestion when it is near one).
    fn object<'v>(
        &self,
        pointer: &str,
        value: &'v Value,
        known: &[&'static str],
    ) -> Result<&'v Map<String, Value>, Error> {
        let members = value
            .as_object()
            .ok_or_else(|| self.error(pointer, "expected an object"))?;
        if let Some(key) = members.keys().find(|key| !known.contains(&key.as_str())) {
            let message =
                did_you_mean(key, &nearest(key, known.iter().copied())).unwrap_or_else(|| {
                    format!("unknown key {key:?}: the keys are {}", known.join(", "))
                });
            return Err(self.error(&format!("{pointer}/{}", escape(key)), message));
        }
        Ok(members)
    }

    /// The first of `keys` present, as a list of strings (tool names: not expanded).
    fn first_list(
        &self,
        entry: &Map<String, Value>,
        keys: &[&'static str],
    ) -> Result<Option<(&'static str, Vec<String>)>, Error> {
        for key in keys {
            if let Some(list) = self.list(entry, key)? {
                return Ok(Some((key, list)));
            }
        }
        Ok(None)
    }

    fn map(
        &self,
        entry: &Map<String, Value>,
        key: &str,
    ) -> Result<Option<std::collections::BTreeMap<String, String>>, Error> {
        let Some(value) = entry.get(key) else {
            return Ok(None);
        };
        let members = value
            .as_object()
            .ok_or_else(|| self.error(&format!("/{key}"), "expected an object of strings"))?;
        members
            .iter()
            .map(|(name, item)| {
                let pointer = format!("/{key}/{}", escape(name));
                let text = item
                    .as_str()
                    .ok_or_else(|| self.error(&pointer, "expected a string"))?;
                Ok((name.clone(), self.expand(&pointer, text)?))
            })
            .collect::<Result<_, Error>>()
            .map(Some)
    }

    fn millis(&self, entry: &Map<String, Value>, key: &str) -> Result<Option<Duration>, Error> {
        entry
            .get(key)
            .map(|value| {
                value
                    .as_u64()
                    .filter(|ms| *ms > 0)
                    .map(Duration::from_millis)
                    .ok_or_else(|| {
                        self.error(
                            &format!("/{key}"),
                            format!("{value} is not a positive number of milliseconds"),
                        )
                    })
            })
            .transpose()
    }
}

/// The keys an HTTP server's endpoint goes by: `url`, Windsurf's `serverUrl`, Gemini CLI's
/// `httpUrl`.
const URL_KEYS: [&str; 3] = ["url", "serverUrl", "httpUrl"];

/// The two forms of a configuration file: the key its servers are under.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    /// `mcpServers`: Claude Desktop, Claude Code, Cursor, Windsurf, Cline, Roo Code, Gemini
    /// CLI, GitHub Copilot CLI.
    McpServers,
    /// `servers`: VS Code.
    Servers,
}

impl Form {
    /// The top-level key of the form.
    fn key(self) -> &'static str {
        match self {
            Self::McpServers => "mcpServers",
            Self::Servers => "servers",
        }
    }

    /// Whether a server entry of this form may hold `key` (which `known` describes), or be
    /// told it is misspelled for it.
    fn admits(self, known: Key) -> bool {
        match known {
            Key::Read | Key::Refused { .. } => true,
            Key::Ignored { form, .. } | Key::EveryToolOnly { form, .. } => form == self,
        }
    }

    /// The keys of a server entry of this form nearest to the unknown `key`, when it is a
    /// likely misspelling of one ([`nearest`]).
    fn nearest_entry_keys(self, key: &str) -> Vec<&'static str> {
        nearest(
            key,
            ENTRY_KEYS
                .iter()
                .filter(|(_, known)| self.admits(*known))
                .map(|(name, _)| *name),
        )
    }
}

/// What the gateway does with a key of a server's entry.
#[derive(Clone, Copy, Debug)]
enum Key {
    /// toolmodel reads it, in either form.
    Read,
    /// `clients` define it in `form`, for their own use (approvals, their UI, development):
    /// accepted there and ignored, refused in the other form.
    Ignored { clients: &'static str, form: Form },
    /// `clients` define it in `form` as the tools to enable: accepted there when it is
    /// `["*"]` (every tool, as without `allowedTools`), refused otherwise.
    EveryToolOnly { clients: &'static str, form: Form },
    /// `clients` define it to change what the server receives; the gateway does not carry it
    /// out, so it is refused in either form with what to write `instead`.
    Refused {
        clients: &'static str,
        instead: &'static str,
    },
}

/// The largest `maxConcurrentCalls` (a `tokio` semaphore holds at most about 2^61 permits;
/// no server takes this many calls at once anyway).
const MAX_CONCURRENT_CALLS_LIMIT: u64 = 1 << 20;

/// What to write instead of a client's own way to authenticate to a server.
const HEADERS_INSTEAD: &str = "the gateway sends only \"headers\": write the credentials there (\"Authorization\": \"Bearer ${TOKEN}\")";

/// Every key a server's entry may hold, in either form, toolmodel's first (the order
/// suggestions are made in: the first of equally near keys wins).
const ENTRY_KEYS: &[(&str, Key)] = &[
    ("type", Key::Read),
    ("transport", Key::Read),
    ("transportType", Key::Read),
    ("command", Key::Read),
    ("args", Key::Read),
    ("env", Key::Read),
    ("cwd", Key::Read),
    ("inheritEnv", Key::Read),
    ("url", Key::Read),
    ("serverUrl", Key::Read),
    ("httpUrl", Key::Read),
    ("headers", Key::Read),
    ("disabled", Key::Read),
    ("enabled", Key::Read),
    ("allowedTools", Key::Read),
    ("includeTools", Key::Read),
    ("hiddenTools", Key::Read),
    ("excludeTools", Key::Read),
    ("disabledTools", Key::Read),
    ("requiredScopes", Key::Read),
    ("required", Key::Read),
    ("toolmodelCredentials", Key::Read),
    ("maxConcurrentCalls", Key::Read),
    ("startupTimeout", Key::Read),
    ("timeout", Key::Read),
    ("maxTotalTimeout", Key::Read),
    (
        "autoApprove",
        Key::Ignored {
            clients: "Cline",
            form: Form::McpServers,
        },
    ),
    (
        "alwaysAllow",
        Key::Ignored {
            clients: "Roo Code",
            form: Form::McpServers,
        },
    ),
    (
        "watchPaths",
        Key::Ignored {
            clients: "Roo Code",
            form: Form::McpServers,
        },
    ),
    (
        "trust",
        Key::Ignored {
            clients: "Gemini CLI",
            form: Form::McpServers,
        },
    ),
    (
        "description",
        Key::Ignored {
            clients: "Gemini CLI",
            form: Form::McpServers,
        },
    ),
    (
        "tools",
        Key::EveryToolOnly {
            clients: "GitHub Copilot CLI",
            form: Form::McpServers,
        },
    ),
    (
        "dev",
        Key::Ignored {
            clients: "VS Code",
            form: Form::Servers,
        },
    ),
    (
        "envFile",
        Key::Refused {
            clients: "VS Code, Cursor",
            instead: "write the variables in \"env\" (${VAR} reads the gateway's environment)",
        },
    ),
    (
        "headersHelper",
        Key::Refused {
            clients: "Claude Code",
            instead: "write the headers in \"headers\" (${VAR} reads the gateway's environment)",
        },
    ),
    (
        "auth",
        Key::Refused {
            clients: "Cursor",
            instead: HEADERS_INSTEAD,
        },
    ),
    (
        "oauth",
        Key::Refused {
            clients: "Gemini CLI",
            instead: HEADERS_INSTEAD,
        },
    ),
    (
        "authProviderType",
        Key::Refused {
            clients: "Gemini CLI",
            instead: HEADERS_INSTEAD,
        },
    ),
    (
        "targetAudience",
        Key::Refused {
            clients: "Gemini CLI",
            instead: HEADERS_INSTEAD,
        },
    ),
    (
        "targetServiceAccount",
        Key::Refused {
            clients: "Gemini CLI",
            instead: HEADERS_INSTEAD,
        },
    ),
];

/// The top-level keys of a configuration: the two forms, toolmodel's `toolNames` and
/// `toolmodelPolicy`, and VS Code's `inputs`.
const TOP_KEYS: [&str; 6] = [
    "mcpServers",
    "servers",
    "toolNames",
    POLICY_KEY,
    LIMITS_KEY,
    "inputs",
];

/// Refuses a top-level key that is a likely misspelling of one of [`TOP_KEYS`]; other keys
/// are the client's other settings, accepted (see the [module docs](self)).
fn check_top_keys(root: &Map<String, Value>) -> Result<(), Error> {
    for key in root.keys() {
        if TOP_KEYS.contains(&key.as_str()) {
            continue;
        }
        if let Some(message) = did_you_mean(key, &nearest(key, TOP_KEYS)) {
            return Err(Error::Config {
                server: None,
                pointer: format!("/{}", escape(key)),
                message,
                source: None,
            });
        }
    }
    Ok(())
}

/// The two transports.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Kind {
    Stdio,
    Http,
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::json;

    fn read(value: Value) -> Result<FederationConfig, Error> {
        FederationConfig::from_json_with(&value, &|name| match name {
            "TOKEN" => Some("t0k".into()),
            _ => None,
        })
    }

    fn message(value: Value) -> String {
        read(value).unwrap_err().to_string()
    }

    #[test]
    fn claude_desktop_and_vs_code_files_read_to_the_same_servers() {
        let claude = read(json!({"mcpServers": {
            "time": {"command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}},
            "docs": {"url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${TOKEN}"}}
        }}))
        .unwrap();
        let vscode = read(json!({"servers": {
            "time": {"type": "stdio", "command": "uvx", "args": ["mcp-server-time"], "env": {"TZ": "UTC"}},
            "docs": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer ${env:TOKEN}"}}
        }}))
        .unwrap();
        assert_eq!(claude, vscode);
        let expected = FederationConfig::builder()
            .with_upstream(UpstreamConfig::stdio(
                "time",
                StdioTransport::new("uvx")
                    .with_arg("mcp-server-time")
                    .with_env("TZ", "UTC"),
            ))
            .with_upstream(
                UpstreamConfig::http(
                    "docs",
                    HttpTransport::new("https://example.com/mcp")
                        .with_header("Authorization", "Bearer t0k"),
                )
                .with_secret("t0k"),
            )
            .build()
            .unwrap();
        assert_eq!(claude, expected);
    }

    #[test]
    fn transport_aliases_disabled_filters_and_timeouts_are_read() {
        let config = read(json!({"toolNames": "always", "mcpServers": {
            "a": {"transportType": "streamable-http", "serverUrl": "http://h/mcp", "disabled": true},
            "b": {"transport": "local", "command": "x", "enabled": false},
            "c": {"command": "x", "includeTools": ["t1"], "excludeTools": ["t2"],
                  "timeout": 1500, "maxTotalTimeout": 9000, "startupTimeout": 700, "autoApprove": []}
        }}))
        .unwrap();
        assert_eq!(config.tool_names, NamePolicy::Always);
        assert!(matches!(
            config.upstreams[0].transport,
            UpstreamTransport::Http(_)
        ));
        assert_eq!(
            config
                .enabled()
                .map(|s| s.name.as_str())
                .collect::<Vec<_>>(),
            ["c"]
        );
        let c = &config.upstreams[2];
        assert_eq!(c.allowed_tools.as_deref(), Some(&["t1".to_owned()][..]));
        assert!(c.serves("t1") && !c.serves("t2") && !c.serves("t3"));
        assert_eq!(c.timeouts.request, Duration::from_millis(1500));
        assert_eq!(c.timeouts.max_total, Duration::from_millis(9000));
        assert_eq!(c.timeouts.startup, Duration::from_millis(700));
    }

    #[test]
    fn inherit_env_names_the_variables_a_child_inherits_or_all_of_them() {
        let config = read(json!({"mcpServers": {
            "a": {"command": "x", "inheritEnv": ["LANG", "NODE_OPTIONS"]},
            "b": {"command": "x", "inheritEnv": true},
            "c": {"command": "x", "inheritEnv": false},
            "d": {"command": "x"}
        }}))
        .unwrap();
        let inherits: Vec<InheritEnv> = config
            .upstreams
            .iter()
            .map(|server| match &server.transport {
                UpstreamTransport::Stdio(stdio) => stdio.inherit_env.clone(),
                UpstreamTransport::Http(_) => unreachable!("stdio servers"),
            })
            .collect();
        let built = StdioTransport::new("x").with_inherited_env(["NODE_OPTIONS", "LANG"]);
        assert_eq!(
            inherits,
            [
                built.inherit_env,
                StdioTransport::new("x")
                    .with_all_env_inherited()
                    .inherit_env,
                InheritEnv::default(),
                InheritEnv::default(),
            ]
        );
        assert_eq!(
            message(json!({"mcpServers": {"s": {"command": "x", "inheritEnv": "LANG"}}})),
            "server \"s\", at /mcpServers/s/inheritEnv: \"LANG\" is not true, false or an array of variable names"
        );
        assert_eq!(
            message(json!({"mcpServers": {"s": {"command": "x", "inheritEnv": ["A=B"]}}})),
            "server \"s\", at /mcpServers/s/inheritEnv: \"A=B\" is not an environment variable name (empty, or holds '=' or NUL)"
        );
    }

    #[test]
    fn every_error_names_the_server_and_the_json_pointer() {
        assert_eq!(
            message(json!({"mcpServers": {"a/b": {"command": "x", "args": ["ok", 2]}}})),
            "server \"a/b\", at /mcpServers/a~1b/args/1: expected a string"
        );
        assert_eq!(
            message(json!({"mcpServers": {"s": {"type": "sse", "url": "http://h"}}})),
            "server \"s\", at /mcpServers/s/type: the HTTP+SSE transport (MCP 2024-11-05) is not supported (rmcp 3.11 has no client for it): use the server's Streamable HTTP endpoint with \"type\": \"http\""
        );
        assert_eq!(
            message(
                json!({"mcpServers": {"s": {"url": "http://h", "headers": {"X": "${MISSING}"}}}})
            ),
            "server \"s\", at /mcpServers/s/headers/X: environment variable MISSING is not set (write ${MISSING:-default} for a default)"
        );
        assert_eq!(
            message(json!({"servers": {"s": {"args": []}}})),
            "server \"s\", at /servers/s: neither command (a stdio server) nor url (a Streamable HTTP server)"
        );
        assert_eq!(
            message(json!({"servers": {"s": {"command": "x", "timeout": 0}}})),
            "server \"s\", at /servers/s/timeout: 0 is not a positive number of milliseconds"
        );
        assert_eq!(
            message(
                json!({"servers": {"s": {"type": "http", "transport": "stdio", "command": "x"}}})
            ),
            "server \"s\", at /servers/s/transport: transport says \"stdio\", but type names another transport"
        );
        assert_eq!(
            message(json!({"servers": {"s": {"url": "ftp://h"}}})),
            "server \"s\", at /servers/s/url: \"ftp://h\" is not an http:// or https:// URL"
        );
        assert_eq!(
            message(json!({"servers": {"has space": {"command": "x"}}})),
            format!(
                "server \"has space\", at /servers/has space: the server name is the namespace of its tools: {}",
                toolmodel::model::name::check_name("has space").unwrap_err()
            )
        );
        assert_eq!(
            message(json!({"servers": {"a.b": {"command": "x"}, "a_b": {"command": "x"}}})),
            "server \"a_b\", at /servers/a_b: server \"a.b\" has the same tool prefix \"a_b\" ('.' reads as '_' in a prefixed tool name)"
        );
        assert_eq!(
            message(json!({"servers": {}, "mcpServers": {}})),
            "at /servers: both mcpServers and servers: write one"
        );
    }

    /// The keys a server's entry of `form` may hold.
    fn keys_of(form: Form) -> Vec<&'static str> {
        ENTRY_KEYS
            .iter()
            .filter(|(_, known)| form.admits(*known))
            .map(|(name, _)| *name)
            .collect()
    }

    /// `key` misspelled three ways: its middle letter left out, its middle two letters
    /// swapped, and in lowercase (when that differs).
    fn misspellings(key: &str) -> Vec<String> {
        let chars: Vec<char> = key.chars().collect();
        let middle = chars.len() / 2;
        let mut dropped = chars.clone();
        dropped.remove(middle);
        let mut swapped = chars.clone();
        swapped.swap(middle - 1, middle);
        let mut typos: Vec<String> = [dropped, swapped]
            .into_iter()
            .map(|chars| chars.into_iter().collect())
            .collect();
        if key.to_lowercase() != key {
            typos.push(key.to_lowercase());
        }
        typos.retain(|typo| typo != key);
        typos
    }

    #[test]
    fn every_misspelled_key_of_each_form_is_refused_with_its_suggestion() {
        let mut checked = 0;
        for form in [Form::McpServers, Form::Servers] {
            for key in keys_of(form) {
                for typo in misspellings(key) {
                    let mut entry = json!({"command": "x"});
                    entry[&typo] = json!(true);
                    let err = message(json!({form.key(): {"s": entry}}));
                    let prefix = format!(
                        "server \"s\", at /{}/s/{typo}: unknown key {typo:?}: did you mean ",
                        form.key()
                    );
                    // The key itself, or it among keys as near (`edv`: `env` or `dev`).
                    let suggested = err
                        .strip_prefix(&prefix)
                        .and_then(|rest| rest.strip_suffix('?'))
                        .unwrap_or_else(|| panic!("{key} misspelled as {typo} in {form:?}: {err}"));
                    assert!(
                        suggested == format!("{key:?}")
                            || suggested
                                .split([',', ' '])
                                .any(|near| near == format!("{key:?}")),
                        "{key} misspelled as {typo} in {form:?}: {err}"
                    );
                    checked += 1;
                }
            }
        }
        assert!(checked > 80, "{checked} misspellings");
        assert_eq!(
            message(json!({"servers": {"s": {"command": "x", "edv": {}}}})),
            "server \"s\", at /servers/s/edv: unknown key \"edv\": did you mean \"env\" or \"dev\"?"
        );
        // The two of the issue: both served what they meant to keep out before.
        assert_eq!(
            message(
                json!({"mcpServers": {"time": {"command": "x", "hidenTools": ["convert_time"]}}})
            ),
            "server \"time\", at /mcpServers/time/hidenTools: unknown key \"hidenTools\": did you mean \"hiddenTools\"?"
        );
        assert_eq!(
            message(json!({"servers": {"time": {"command": "x", "disabeld": true}}})),
            "server \"time\", at /servers/time/disabeld: unknown key \"disabeld\": did you mean \"disabled\"?"
        );
    }

    #[test]
    fn rate_limits_and_concurrent_calls_are_read_and_bad_ones_refused() {
        let config = read(json!({
            "mcpServers": {"a": {"command": "x", "maxConcurrentCalls": 4}, "b": {"command": "y"}},
            "toolmodelLimits": {"rules": [{"per": ["user"], "rate": 2, "burst": 3}]}
        }))
        .unwrap();
        assert_eq!(config.upstreams[0].max_concurrent_calls, 4);
        assert_eq!(
            config.upstreams[1].max_concurrent_calls,
            super::super::MAX_PENDING_CALLS
        );
        assert_eq!(config.rate_limits.map(|limits| limits.len()), Some(1));
        assert_eq!(
            message(json!({"mcpServers": {"a": {"command": "x", "maxConcurrentCalls": 0}}})),
            "server \"a\", at /mcpServers/a/maxConcurrentCalls: 0 is not an integer from 1 to 1048576"
        );
        assert_eq!(
            message(json!({"mcpServers": {}, "toolmodelLimits": {"rules": [{"rate": 1}]}})),
            "at /toolmodelLimits/rules/0/burst: expected \"burst\": the most calls admitted at once, an integer >= 1"
        );
        assert_eq!(
            message(json!({"mcpServers": {}, "toolmodelLimit": {}})),
            "at /toolmodelLimit: unknown key \"toolmodelLimit\": did you mean \"toolmodelLimits\"?"
        );
    }

    #[test]
    fn a_key_near_no_known_one_is_refused_with_the_keys_toolmodel_reads() {
        let err = message(json!({"mcpServers": {"a~b": {"command": "x", "colour/x": "red"}}}));
        assert!(
            err.starts_with(
                "server \"a~b\", at /mcpServers/a~0b/colour~1x: unknown key \"colour/x\": neither one toolmodel reads (type, transport, transportType, command, "
            ) && err.ends_with(
                "requiredScopes, required, toolmodelCredentials, maxConcurrentCalls, startupTimeout, timeout, maxTotalTimeout) nor one another client defines for mcpServers entries"
            ),
            "{err}"
        );
    }

    #[test]
    fn other_clients_keys_are_accepted_in_their_form_only() {
        let cline = json!({"command": "x", "autoApprove": ["t"], "alwaysAllow": [], "watchPaths": ["a"],
                           "trust": true, "description": "d", "tools": ["*"]});
        let config = read(json!({"mcpServers": {"s": cline.clone()}})).unwrap();
        assert_eq!(
            config.upstreams[0].allowed_tools, None,
            "tools [\"*\"]: every tool"
        );
        assert_eq!(
            message(json!({"servers": {"s": cline}})),
            "server \"s\", at /servers/s/alwaysAllow: \"alwaysAllow\" is a key of Roo Code for mcpServers entries, not of servers entries"
        );
        let vscode = json!({"command": "x", "dev": {"watch": "src/**/*.ts"}});
        read(json!({"servers": {"s": vscode.clone()}})).unwrap();
        assert_eq!(
            message(json!({"mcpServers": {"s": vscode}})),
            "server \"s\", at /mcpServers/s/dev: \"dev\" is a key of VS Code for servers entries, not of mcpServers entries"
        );
        // Every key toolmodel reads, in either form.
        for form in ["mcpServers", "servers"] {
            let entry = json!({"type": "stdio", "transport": "stdio", "transportType": "stdio",
                "command": "x", "args": [], "env": {}, "cwd": "/", "inheritEnv": false,
                "serverUrl": "http://h", "httpUrl": "http://h", "url": "http://h", "headers": {},
                "disabled": false, "enabled": true, "allowedTools": ["a"], "includeTools": ["a"],
                "hiddenTools": [], "excludeTools": [], "disabledTools": [], "requiredScopes": ["s"],
                "maxConcurrentCalls": 8, "startupTimeout": 1, "timeout": 1, "maxTotalTimeout": 1});
            read(json!({form: {"s": entry}})).unwrap();
        }
    }

    #[test]
    fn keys_the_gateway_does_not_carry_out_are_refused_with_what_to_write_instead() {
        for (key, value, expected) in [
            (
                "envFile",
                json!(".env"),
                "\"envFile\" (VS Code, Cursor) is not supported by the gateway: write the variables in \"env\" (${VAR} reads the gateway's environment)",
            ),
            (
                "headersHelper",
                json!("./token.sh"),
                "\"headersHelper\" (Claude Code) is not supported by the gateway: write the headers in \"headers\" (${VAR} reads the gateway's environment)",
            ),
            (
                "oauth",
                json!({"enabled": true}),
                "\"oauth\" (Gemini CLI) is not supported by the gateway: the gateway sends only \"headers\": write the credentials there (\"Authorization\": \"Bearer ${TOKEN}\")",
            ),
            (
                "tools",
                json!(["read_file"]),
                "\"tools\" (GitHub Copilot CLI) other than [\"*\"] is not read by toolmodel: list the tools to serve in \"allowedTools\"",
            ),
        ] {
            let err = message(json!({"mcpServers": {"s": {"url": "http://h", key: value}}}));
            assert_eq!(
                err,
                format!("server \"s\", at /mcpServers/s/{key}: {expected}")
            );
        }
        assert_eq!(
            message(json!({"servers": {"s": {"url": "http://h", "auth": {}}}})),
            "server \"s\", at /servers/s/auth: \"auth\" (Cursor) is not supported by the gateway: the gateway sends only \"headers\": write the credentials there (\"Authorization\": \"Bearer ${TOKEN}\")"
        );
    }

    #[test]
    fn a_misspelled_top_level_key_is_refused_and_a_clients_other_settings_are_not() {
        for (typo, key) in [
            ("toolName", "toolNames"),
            ("tool_names", "toolNames"),
            ("mcpServer", "mcpServers"),
            ("input", "inputs"),
        ] {
            assert_eq!(
                message(json!({"mcpServers": {}, typo: "always"})),
                format!("at /{typo}: unknown key {typo:?}: did you mean {key:?}?")
            );
        }
        // Claude Desktop's and Gemini CLI's other settings, VS Code's inputs.
        read(
            json!({"mcpServers": {"s": {"command": "x"}}, "globalShortcut": "Ctrl+Space",
                    "preferences": {}, "theme": "Default", "mcp": {"allowed": ["s"]}}),
        )
        .unwrap();
        read(json!({"servers": {"s": {"command": "x"}}, "inputs": [{"id": "key", "type": "promptString"}]}))
        .unwrap();
    }

    #[test]
    fn required_scopes_are_read_and_checked_as_scope_tokens() {
        let config = read(json!({"mcpServers": {
            "notes": {"command": "x", "requiredScopes": ["notes:write", "${SCOPE:-notes:admin}"]}
        }}))
        .unwrap();
        assert_eq!(
            config.upstreams[0].required_scopes,
            ["notes:write", "notes:admin"]
        );
        assert_eq!(
            message(json!({"mcpServers": {"s": {"command": "x", "requiredScopes": ["a", "b c"]}}})),
            "server \"s\", at /mcpServers/s/requiredScopes/1: scope \"b c\" holds ' ' (U+0020) at position 1, not an RFC 6749 §3.3 scope-token character (printable ASCII except space, '\"' and '\\')"
        );
        assert_eq!(
            message(json!({"servers": {"s": {"command": "x", "requiredScopes": ["a", "a"]}}})),
            "server \"s\", at /servers/s/requiredScopes/1: scope \"a\" repeats requiredScopes/0"
        );
        assert_eq!(
            message(json!({"servers": {"s": {"command": "x", "requiredScopes": "a"}}})),
            "server \"s\", at /servers/s/requiredScopes: expected an array of strings"
        );
    }

    #[test]
    fn toolmodel_credentials_are_read_and_every_mistake_is_named_at_its_pointer() {
        let config = read(json!({"mcpServers": {
            "notes": {"url": "https://notes.example.com/mcp", "toolmodelCredentials": {"tokenExchange": {
                "resource": "https://notes.example.com/mcp", "audience": "notes", "scope": "notes:read  notes:write",
                "subjectTokenType": "urn:example:gateway"
            }}},
            "graph": {"url": "https://graph.example.com/mcp", "toolmodelCredentials": {"tokenExchange": {
                "grant": "on-behalf-of", "scope": "api://graph/.default"
            }}}
        }}))
        .unwrap();
        let expected = [
            TokenExchange::default()
                .with_grant(ExchangeGrant::OnBehalfOf)
                .with_scopes(["api://graph/.default"]),
            TokenExchange::for_resource("https://notes.example.com/mcp")
                .with_audience("notes")
                .with_subject_token_type("urn:example:gateway")
                .with_scopes(["notes:read", "notes:write"]),
        ];
        for (server, exchange) in config.upstreams.iter().zip(expected) {
            assert_eq!(
                server.credentials,
                Some(Credentials::TokenExchange(exchange))
            );
        }
        let env = |name: &str| (name == "SAAS_SECRET").then(|| "from-env".to_owned());
        let oauth = FederationConfig::from_json_with(
            &json!({"mcpServers": {"saas": {"url": "https://saas.example.com/mcp", "toolmodelCredentials": {"oauth": {
                "clientId": "toolmodel-gateway", "clientSecret": "${env:SAAS_SECRET}", "scope": "read  write"}}}}}),
            &env,
        )
        .unwrap();
        assert_eq!(
            oauth.upstreams[0].credentials,
            Some(Credentials::OAuth(
                OAuthClient::new("toolmodel-gateway")
                    .with_secret("from-env")
                    .with_scopes(["read", "write"])
            ))
        );
        let at = "/mcpServers/s/toolmodelCredentials";
        for (entry, expected) in [
            (
                json!({"command": "x", "toolmodelCredentials": {"tokenExchange": {"resource": "https://a"}}}),
                format!("at {at}: a stdio server receives no token: each user's own credentials are for Streamable HTTP servers"),
            ),
            (
                json!({"url": "https://a", "headers": {"authorization": "Bearer x"}, "toolmodelCredentials": {"tokenExchange": {"resource": "https://a"}}}),
                "at /mcpServers/s/headers/authorization: a static Authorization header beside toolmodelCredentials: the server would receive one credential for every user; remove one of them".to_owned(),
            ),
            (
                json!({"url": "https://a", "toolmodelCredentials": {"tokenExchange": {"scope": "a"}}}),
                format!("at {at}/tokenExchange: names neither \"resource\" nor \"audience\": the token the gateway asks for needs a target (RFC 8693 §2.1)"),
            ),
            (
                json!({"url": "https://a", "toolmodelCredentials": {"tokenExchange": {"grant": "on-behalf-of"}}}),
                format!("at {at}/tokenExchange: names no \"scope\": Entra's on-behalf-of request names its target by scope (api://<app>/.default)"),
            ),
            (
                json!({"url": "https://a", "toolmodelCredentials": {"tokenExchange": {"grant": "on-behalf-of", "scope": "s", "subjectTokenType": "urn:x"}}}),
                format!("at {at}/tokenExchange/subjectTokenType: on-behalf-of sends the caller's token as an assertion, of no subject_token_type: remove it, or use \"grant\": \"token-exchange\""),
            ),
            (
                json!({"url": "https://a", "toolmodelCredentials": {"tokenExchange": {"resource": "https://a/mcp#x"}}}),
                format!("at {at}/tokenExchange/resource: \"https://a/mcp#x\" is not an absolute http(s) URI without a fragment (RFC 8707 §2)"),
            ),
            (
                json!({"url": "https://a", "toolmodelCredentials": {"tokenExchange": {"audience": "a", "scope": "a\\b"}}}),
                format!(r#"at {at}/tokenExchange/scope: scope "a\\b" holds '\\' (U+005C) at position 1, not an RFC 6749 §3.3 scope-token character (printable ASCII except space, '"' and '\')"#),
            ),
            (
                json!({"url": "https://a", "toolmodelCredentials": {"tokenExchange": {"resource": "https://a", "grant": "jwt"}}}),
                format!("at {at}/tokenExchange/grant: \"jwt\" is neither \"token-exchange\" (RFC 8693) nor \"on-behalf-of\" (Microsoft Entra ID)"),
            ),
            (
                json!({"url": "https://a", "toolmodelCredentials": {"tokenExchange": {"resorce": "https://a"}}}),
                format!("at {at}/tokenExchange/resorce: unknown key \"resorce\": did you mean \"resource\"?"),
            ),
            (
                json!({"url": "https://a", "toolmodelCredentials": {"tokenExchnge": {}}}),
                format!("at {at}/tokenExchnge: unknown key \"tokenExchnge\": did you mean \"tokenExchange\"?"),
            ),
            (
                json!({"url": "https://a", "toolmodelCredentials": {}}),
                format!("at {at}: names no way to obtain credentials: write \"tokenExchange\" or \"oauth\""),
            ),
            (
                json!({"url": "https://a", "toolmodelCredentials": {"oauth": {"clientId": "g"}, "tokenExchange": {"resource": "https://a"}}}),
                format!("at {at}: names two ways to obtain credentials: keep \"tokenExchange\" or \"oauth\""),
            ),
            (
                json!({"url": "https://a", "toolmodelCredentials": {"oauth": {"scope": "a"}}}),
                format!("at {at}/oauth: names no \"clientId\": the client the upstream's authorization server registered for the gateway"),
            ),
            (
                json!({"url": "https://a", "toolmodelCredentials": {"oauth": {"clientId": "g", "clientSecret": "s3cr3t"}}}),
                format!("at {at}/oauth/clientSecret: a secret written in the file: write \"${{env:NAME}}\" and set NAME in the gateway's environment"),
            ),
            (
                json!({"url": "https://a", "toolmodelCredentials": {"oauth": {"clientId": "g", "scopes": "a"}}}),
                format!("at {at}/oauth/scopes: unknown key \"scopes\": did you mean \"scope\"?"),
            ),
            (
                json!({"url": "https://a", "toolmodelCredentials": {"oauth": {"clientId": "g", "scope": "a\\b"}}}),
                format!(r#"at {at}/oauth/scope: scope "a\\b" holds '\\' (U+005C) at position 1, not an RFC 6749 §3.3 scope-token character (printable ASCII except space, '"' and '\')"#),
            ),
            (
                json!({"command": "x", "toolmodelCredentials": {"oauth": {"clientId": "g"}}}),
                format!("at {at}: a stdio server receives no token: each user's own credentials are for Streamable HTTP servers"),
            ),
            (
                json!({"url": "https://a", "toolmodelCredentials": {"tokenExchange": {"resource": 7}}}),
                format!("at {at}/tokenExchange/resource: expected a string"),
            ),
            (
                json!({"url": "https://a", "toolmodelCredential": {}}),
                "at /mcpServers/s/toolmodelCredential: unknown key \"toolmodelCredential\": did you mean \"toolmodelCredentials\"?".to_owned(),
            ),
        ] {
            assert_eq!(
                message(json!({"mcpServers": {"s": entry}})),
                format!("server \"s\", {expected}")
            );
        }
    }

    #[test]
    fn required_is_read_defaults_to_false_and_a_misspelling_is_refused() {
        let config = read(json!({"mcpServers": {
            "db": {"command": "x", "required": true},
            "search": {"url": "http://127.0.0.1:1/mcp"}
        }}))
        .unwrap();
        let required: Vec<(&str, bool)> = config
            .upstreams
            .iter()
            .map(|server| (server.name.as_str(), server.required))
            .collect();
        assert_eq!(required, [("db", true), ("search", false)]);
        assert_eq!(
            message(json!({"mcpServers": {"s": {"command": "x", "requried": true}}})),
            "server \"s\", at /mcpServers/s/requried: unknown key \"requried\": did you mean \"required\"?"
        );
        assert_eq!(
            message(json!({"servers": {"s": {"command": "x", "required": "yes"}}})),
            "server \"s\", at /servers/s/required: expected true or false"
        );
    }

    #[test]
    fn an_error_about_the_whole_file_names_no_pointer() {
        assert_eq!(
            message(json!([])),
            "the configuration is an array, not an object with mcpServers or servers"
        );
        assert_eq!(message(json!({})), "no mcpServers or servers object");
        let missing = std::env::temp_dir().join("toolmodel-no-such-config.json");
        let err = FederationConfig::from_path(&missing).unwrap_err();
        assert_eq!(
            err.to_string(),
            format!("cannot read {}", missing.display())
        );
        // The I/O error is the cause, not text in the message.
        let cause = std::error::Error::source(&err).expect("the I/O error as the source");
        assert_eq!(
            cause
                .downcast_ref::<std::io::Error>()
                .map(std::io::Error::kind),
            Some(std::io::ErrorKind::NotFound),
            "{cause}"
        );
    }

    proptest! {
        #[test]
        fn any_server_name_that_is_a_namespace_reads_back_under_that_name(name in "[A-Za-z0-9-]{1,8}([_.][A-Za-z0-9-]{1,8}){0,4}") {
            let config = read(json!({"mcpServers": {name.clone(): {"command": "x"}}})).unwrap();
            prop_assert_eq!(&config.upstreams[0].name, &name);
        }

        #[test]
        fn a_server_name_holding_the_separator_or_ending_with_it_is_refused(
            head in "[a-z]{1,6}",
            tail in prop::sample::select(vec!["__x", "._x", "_", ".", "_.x"]),
        ) {
            let name = format!("{head}{tail}");
            let err = read(json!({"mcpServers": {name.clone(): {"command": "x"}}})).unwrap_err();
            prop_assert_eq!(
                err.to_string(),
                format!("server {name:?}, at /mcpServers/{name}: the server name holds \"__\" or ends with '_' ('.' reads as '_'): the gateway's <server>__<tool> names could not say where it ends")
            );
        }

        #[test]
        fn a_value_of_the_wrong_type_is_an_error_at_its_pointer(key in prop::sample::select(vec!["command", "cwd", "url"]), n in 0u32..100) {
            let mut entry = json!({"command": "x", "url": "http://h"});
            entry[key] = json!(n);
            if key == "url" { entry["type"] = json!("http"); }
            let err = read(json!({"mcpServers": {"s": entry}})).unwrap_err().to_string();
            prop_assert_eq!(err, format!("server \"s\", at /mcpServers/s/{key}: expected a string"));
        }
    }
}
