//! The authorization server of the authorization tests (toolmodel-rmcp's, the gateway's in
//! toolmodel-cli, the example server's in toolmodel-tests) and of toolmodel-rmcp's `auth`
//! bench: `serve/auth/provider.mjs` (npm `oidc-provider`, installed by `serve/auth/install.sh`)
//! on a loopback port, its tokens (client_credentials with a resource indicator), and the
//! forged ones it signs on request. [`Issuer::start`] is `None`, with a notice printed, when
//! the provider cannot start (no `node`, not installed), and panics instead when `CI` is set.
//! toolmodel-rmcp's `tests/support/issuer_front.rs` has an issuer of the test's own, for what
//! the provider cannot be made to do.

use std::{path::PathBuf, process::Stdio, time::Duration};

use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt as _, BufReader},
    process::{Child, Command},
};

/// The test client of `provider.mjs`, and its secret.
pub const CLIENT: (&str, &str) = ("toolmodel-test", "test-secret");
/// A second client with the same scopes: another subject.
pub const OTHER_CLIENT: (&str, &str) = ("toolmodel-other", "other-secret");
/// A gateway's own client: `client_credentials` and token exchange (RFC 8693) of the tokens
/// whose audience [`Issuer::allow_exchange_from`] registered.
pub const GATEWAY_CLIENT: (&str, &str) = ("toolmodel-gateway", "gateway-secret");
/// The client of a third-party authorization server ([`Issuer::start_third_party`]):
/// `authorization_code` with PKCE to its one redirect URI, `refresh_token`,
/// `client_credentials`, scope `profile:read`.
pub const UPSTREAM_CLIENT: (&str, &str) = ("toolmodel-upstream", "upstream-secret");
/// The resource server's own client, for introspection.
pub const SERVER_CLIENT: (&str, &str) = ("toolmodel-server", "server-secret");

/// The third-party mode of `provider.mjs` ([`Issuer::start_third_party`]).
struct ThirdParty<'a> {
    redirect_uri: &'a str,
    token_ttl_secs: u64,
    refresh_ttl_secs: Option<u64>,
    /// Each refresh token single-use (oidc-provider's `rotateRefreshToken`).
    rotate: bool,
}

/// A running `provider.mjs`.
pub struct Issuer {
    /// Its issuer identifier, `http://127.0.0.1:<port>`.
    pub url: String,
    port: u16,
    child: Child,
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

impl Issuer {
    /// Starts the provider on `port` (0: any free one). `None` (with a notice) when it cannot
    /// start outside CI.
    pub async fn start(port: u16) -> Option<Self> {
        Self::start_with(port, None).await
    }

    /// Starts another provider as a third-party upstream's own authorization server: its
    /// client [`UPSTREAM_CLIENT`] may redirect to `redirect_uri` only, and a user signs in at
    /// `/interaction/<uid>` by posting the form field `login` (their subject); the consent is
    /// granted at once; its access tokens live `token_ttl_secs`, its refresh tokens
    /// `refresh_ttl_secs` (`None`: oidc-provider's default, 14 days). `None` (with a notice)
    /// when it cannot start outside CI.
    pub async fn start_third_party(
        redirect_uri: &str,
        token_ttl_secs: u64,
        refresh_ttl_secs: Option<u64>,
    ) -> Option<Self> {
        let third_party = ThirdParty {
            redirect_uri,
            token_ttl_secs,
            refresh_ttl_secs,
            rotate: false,
        };
        Self::start_with(0, Some(third_party)).await
    }

    /// [`start_third_party`](Self::start_third_party) (refresh tokens of 14 days) whose
    /// refresh tokens are single-use (oidc-provider's `rotateRefreshToken`, RFC 9700
    /// §4.14.2): each refresh issues a new one, and one presented again is refused
    /// (`invalid_grant`) and its whole grant revoked. [`refreshes`](Self::refreshes) counts
    /// them.
    pub async fn start_third_party_rotating(
        redirect_uri: &str,
        token_ttl_secs: u64,
    ) -> Option<Self> {
        let third_party = ThirdParty {
            redirect_uri,
            token_ttl_secs,
            refresh_ttl_secs: None,
            rotate: true,
        };
        Self::start_with(0, Some(third_party)).await
    }

    async fn start_with(port: u16, third_party: Option<ThirdParty<'_>>) -> Option<Self> {
        match Self::try_start(port, third_party).await {
            Ok(issuer) => Some(issuer),
            Err(why) if std::env::var_os("CI").is_some() => {
                panic!("the authorization server did not start under CI: {why}")
            }
            Err(why) => {
                eprintln!(
                    "skipped: the authorization server did not start ({why}); run serve/auth/install.sh"
                );
                None
            }
        }
    }

    async fn try_start(port: u16, third_party: Option<ThirdParty<'_>>) -> Result<Self, String> {
        let root = repo();
        if !root.join("serve/auth/node_modules/oidc-provider").is_dir() {
            return Err("serve/auth/node_modules/oidc-provider is not installed".into());
        }
        let mut command = Command::new("node");
        if let Some(third_party) = third_party {
            command
                .env("AUTH_CODE_REDIRECT_URI", third_party.redirect_uri)
                .env("ACCESS_TOKEN_TTL", third_party.token_ttl_secs.to_string());
            if let Some(ttl) = third_party.refresh_ttl_secs {
                command.env("REFRESH_TOKEN_TTL", ttl.to_string());
            }
            if third_party.rotate {
                command.env("ROTATE_REFRESH_TOKENS", "1");
            }
        }
        let mut child = command
            .arg(root.join("serve/auth/provider.mjs"))
            .env("PORT", port.to_string())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|err| format!("node: {err}"))?;
        let stdout = child.stdout.take().ok_or("no stdout")?;
        let mut lines = BufReader::new(stdout).lines();
        let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
            .await
            .map_err(|_| "no ISSUER line within 30 s".to_owned())?
            .map_err(|err| err.to_string())?
            .ok_or("the provider exited")?;
        let url = line
            .strip_prefix("ISSUER ")
            .ok_or_else(|| format!("unexpected line {line:?}"))?
            .to_owned();
        let port = url
            .rsplit(':')
            .next()
            .and_then(|port| port.parse().ok())
            .ok_or("no port")?;
        // Keep reading, so the provider never blocks on a full pipe.
        tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
        Ok(Self { url, port, child })
    }

    /// Stops it and starts a new one on the same port: the same issuer with a new signing key.
    pub async fn restart(mut self) -> Self {
        let port = self.port;
        self.child.kill().await.unwrap();
        let _ = self.child.wait().await;
        Self::try_start(port, None)
            .await
            .expect("the provider restarts")
    }

    /// An access token of `client` for `resource` with `scope` (client_credentials, RFC 8707).
    pub async fn token_for(&self, client: (&str, &str), resource: &str, scope: &str) -> String {
        let response = reqwest::Client::new()
            .post(format!("{}/token", self.url))
            .basic_auth(client.0, Some(client.1))
            .form(&[
                ("grant_type", "client_credentials"),
                ("resource", resource),
                ("scope", scope),
            ])
            .send()
            .await
            .unwrap();
        let body: Value = response.json().await.unwrap();
        body["access_token"]
            .as_str()
            .unwrap_or_else(|| panic!("no token: {body}"))
            .to_owned()
    }

    /// An access token of the test client for `resource` with `scope`.
    pub async fn token(&self, resource: &str, scope: &str) -> String {
        self.token_for(CLIENT, resource, scope).await
    }

    /// Lets [`GATEWAY_CLIENT`] exchange the access tokens issued for `resource` (a gateway's
    /// resource identifier) for tokens of other resources.
    pub async fn allow_exchange_from(&self, resource: &str) {
        let response = reqwest::Client::new()
            .post(format!("{}/gateway-audience", self.url))
            .body(resource.to_owned())
            .send()
            .await
            .unwrap();
        assert!(response.status().is_success(), "{}", response.status());
    }

    /// How many token exchanges the provider made for the subject `sub` and `resource`.
    pub async fn exchanges(&self, sub: &str, resource: &str) -> u64 {
        let counts = self.counts("exchanges").await;
        counts[format!("{sub} {resource}")].as_u64().unwrap_or(0)
    }

    /// How many `refresh_token` grants (RFC 6749 §6) the provider granted and refused.
    pub async fn refreshes(&self) -> (u64, u64) {
        let counts = self.counts("refreshes").await;
        let count = |outcome: &str| counts[outcome].as_u64().unwrap_or(0);
        (count("granted"), count("refused"))
    }

    /// The provider's counts at `/<what>`.
    async fn counts(&self, what: &str) -> Value {
        reqwest::Client::new()
            .get(format!("{}/{what}", self.url))
            .send()
            .await
            .unwrap()
            .json()
            .await
            .unwrap()
    }

    /// A token signed as `key` (`issuer`, `rogue`, `none`, `hs256-public`) with `claims`
    /// over an honest token's (`null` removes one), by the provider's `/forge`.
    pub async fn forge(&self, key: &str, claims: Value) -> String {
        self.forge_with_header(key, json!({}), claims).await
    }

    /// [`forge`](Self::forge) with `header` over an honest token's JOSE header (`null`
    /// removes a parameter: `{"typ": null}`).
    pub async fn forge_with_header(&self, key: &str, header: Value, claims: Value) -> String {
        reqwest::Client::new()
            .post(format!("{}/forge", self.url))
            .body(json!({"key": key, "header": header, "claims": claims}).to_string())
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    }
}
