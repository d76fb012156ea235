//! The configuration file as `toolmodel gateway` runs it, checked against its options: what
//! `--check-config` checks of the file, at start and at each reload (`reload`).

use toolmodel_rmcp::{
    federation::{
        Credentials, ExchangeClient, FederationConfig, REDIRECT_PATH, TOKEN_STORE_KEY_ENV,
        TokenStore,
    },
    sessions::SESSION_STORE_ENV,
};

use crate::cli::GatewayArgs;
use crate::gateway::EXCHANGE_SECRET_ENV;
use crate::text::about_file;

/// The configuration of `--config` and what its check found.
pub(crate) struct Checked {
    /// The configuration, when the file could be read and used.
    pub(crate) config: Option<FederationConfig>,
    /// Each problem, one sentence naming the file, the server and the JSON Pointer where it
    /// has them: the configuration must not be run.
    pub(crate) problems: Vec<String>,
    /// What is worth saying but no problem (a `requiredScopes` nothing checks over stdio).
    pub(crate) notes: Vec<String>,
}

impl Checked {
    /// The configuration, when the check found no problem; the problems otherwise.
    pub(crate) fn usable(self) -> Result<FederationConfig, Vec<String>> {
        match (self.config, self.problems.is_empty()) {
            (Some(config), true) => Ok(config),
            (_, _) => Err(self.problems),
        }
    }
}

/// Reads `--config` and checks it against the options of `args`: a file that cannot be read
/// or used (naming the file, the server and the JSON Pointer), without `--auth-issuer` a
/// `toolmodelPolicy` rule with `when` (no request would have a caller), and over HTTP without
/// `--auth-issuer` a server with `requiredScopes` (nothing would check them; over stdio a
/// note says so), `toolmodelCredentials` without `--http`, `--auth-issuer` and the exchange
/// client (whose secret must be set): the configuration comes back with that client.
pub(crate) fn check(args: &GatewayArgs) -> Checked {
    let mut checked = Checked {
        config: None,
        problems: Vec::new(),
        notes: Vec::new(),
    };
    let config = match FederationConfig::from_path(&args.config) {
        Ok(config) => config,
        Err(err) => {
            checked.problems.push(about_file(&args.config, &err));
            return checked;
        }
    };
    if args.auth_issuer.is_none()
        && let Some(Err(err)) = config
            .tool_policy
            .as_ref()
            .map(|policy| policy.check_without_authorization())
    {
        checked.problems.push(about_file(&args.config, &err));
    }
    for server in config.enabled() {
        if server.required_scopes.is_empty() {
            continue;
        }
        match (args.http, &args.auth_issuer) {
            (Some(_), None) => checked.problems.push(format!(
                "server {:?} has requiredScopes {:?}, which only a gateway with --auth-issuer checks: add --auth-issuer, or remove requiredScopes",
                server.name, server.required_scopes
            )),
            (None, _) => checked.notes.push(format!(
                "the requiredScopes of server {:?} are not checked over stdio (one local client; they are with --http and --auth-issuer)",
                server.name
            )),
            (Some(_), Some(_)) => {}
        }
    }
    match with_exchange_client(args, config) {
        Ok(config) => checked.config = Some(config),
        Err(problem) => checked.problems.push(problem),
    }
    checked
}

/// `config` with the gateway's exchange client (`--exchange-client-id`, its secret from
/// [`EXCHANGE_SECRET_ENV`], at `--auth-issuer`) when one is given.
///
/// # Errors
///
/// A sentence: a server with `toolmodelCredentials` and no `--http`, `--auth-issuer` or
/// `--exchange-client-id`, or the client without its secret.
fn with_exchange_client(
    args: &GatewayArgs,
    mut config: FederationConfig,
) -> Result<FederationConfig, String> {
    if let Some(client) = &args.exchange_client_id {
        let secret = std::env::var(EXCHANGE_SECRET_ENV)
            .ok()
            .filter(|secret| !secret.is_empty())
            .ok_or_else(|| {
                format!(
                    "--exchange-client-id {client:?}: {EXCHANGE_SECRET_ENV} is not set (the client's secret is read from it, never from the command line)"
                )
            })?;
        if let Some(issuer) = &args.auth_issuer {
            config.exchange_client = Some(ExchangeClient::new(issuer, client, secret));
        }
    }
    let config = with_redirect_uri(args, config)?;
    let Some(server) = config
        .enabled()
        .find(|server| matches!(server.credentials, Some(Credentials::TokenExchange(_))))
    else {
        return Ok(config);
    };
    let missing = match (args.http, &args.auth_issuer, &config.exchange_client) {
        (None, _, _) => Some("--http (over stdio no caller has a token to exchange)"),
        (_, None, _) => Some("--auth-issuer (the callers' tokens are exchanged at its issuer)"),
        (_, _, None) => Some(
            "--exchange-client-id and MCP_EXCHANGE_CLIENT_SECRET (the gateway's own client at the issuer)",
        ),
        _ => None,
    };
    match missing {
        Some(missing) => Err(format!(
            "server {:?} has toolmodelCredentials, which need {missing}",
            server.name
        )),
        None => Ok(config),
    }
}

/// `config` with the gateway's OAuth redirect endpoint when a server has
/// `toolmodelCredentials.oauth`: the origin of `--resource` (else of `http://<--http>`)
/// followed by [`REDIRECT_PATH`]; with [`TOKEN_STORE_KEY_ENV`] set, the users' tokens kept
/// encrypted in the Redis of [`SESSION_STORE_ENV`] too.
///
/// # Errors
///
/// A sentence: such a server and no `--http` or `--auth-issuer` (the users are told apart by
/// their tokens), a `--resource` that is not an absolute URL, or a token store key that is
/// not 32 bytes of base64 or without a Redis session store.
fn with_redirect_uri(
    args: &GatewayArgs,
    mut config: FederationConfig,
) -> Result<FederationConfig, String> {
    let Some(server) = config
        .enabled()
        .find(|server| matches!(server.credentials, Some(Credentials::OAuth(_))))
    else {
        return Ok(config);
    };
    let (Some(addr), Some(_)) = (args.http, &args.auth_issuer) else {
        return Err(format!(
            "server {:?} has toolmodelCredentials.oauth, which needs --http and --auth-issuer (each user's authorization is kept for the subject of their token)",
            server.name
        ));
    };
    let base = args
        .resource
        .clone()
        .unwrap_or_else(|| format!("http://{addr}"));
    let origin = base
        .split_once("://")
        .and_then(|(scheme, rest)| {
            let authority = rest.split(['/', '?', '#']).next()?;
            (!authority.is_empty()).then(|| format!("{scheme}://{authority}"))
        })
        .ok_or_else(|| format!("--resource {base:?} is not an absolute URL"))?;
    config.redirect_uri = Some(format!("{origin}{REDIRECT_PATH}"));
    let key = std::env::var(TOKEN_STORE_KEY_ENV)
        .ok()
        .filter(|key| !key.trim().is_empty());
    if let Some(key) = key {
        let url = std::env::var(SESSION_STORE_ENV)
            .ok()
            .map(|url| url.trim().to_owned())
            .filter(|url| url.starts_with("redis://") || url.starts_with("rediss://"))
            .ok_or_else(|| {
                format!(
                    "{TOKEN_STORE_KEY_ENV} is set, but {SESSION_STORE_ENV} names no Redis server to keep the users' tokens in"
                )
            })?;
        config.token_store = Some(TokenStore::new(url, &key).map_err(|err| err.to_string())?);
    }
    Ok(config)
}
