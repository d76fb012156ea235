//! The authorization server of the authorization tests and bench: `serve/auth/provider.mjs`
//! (npm `oidc-provider`, installed by `serve/auth/install.sh`) on a loopback port, its tokens
//! (client_credentials with a resource indicator), and the forged ones it signs on request.
//! [`Issuer::start`] is `None`, with a notice printed, when the provider cannot start
//! (no `node`, not installed), and panics instead when `CI` is set.
//!
//! [`Front`]: an issuer of the test's own, for what the provider cannot be made to do (slow
//! keys, a metadata document naming other endpoints), counting the requests it gets.

// Each test file uses a part of these.
#![allow(dead_code)]

use std::{
    convert::Infallible,
    path::PathBuf,
    process::Stdio,
    sync::{
        Arc, Mutex,
        atomic::{AtomicUsize, Ordering},
    },
    time::{Duration, Instant},
};

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Request, Response, body::Incoming, service::service_fn};
use hyper_util::rt::TokioIo;
use serde_json::{Value, json};
use tokio::{
    io::{AsyncBufReadExt as _, BufReader},
    net::TcpListener,
    process::{Child, Command},
};

/// The test client of `provider.mjs`, and its secret.
pub const CLIENT: (&str, &str) = ("toolmodel-test", "test-secret");
/// A second client with the same scopes: another subject.
pub const OTHER_CLIENT: (&str, &str) = ("toolmodel-other", "other-secret");
/// The resource server's own client, for introspection.
pub const SERVER_CLIENT: (&str, &str) = ("toolmodel-server", "server-secret");

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
        match Self::try_start(port).await {
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

    async fn try_start(port: u16) -> Result<Self, String> {
        let root = repo();
        if !root.join("serve/auth/node_modules/oidc-provider").is_dir() {
            return Err("serve/auth/node_modules/oidc-provider is not installed".into());
        }
        let mut child = Command::new("node")
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
        Self::try_start(port).await.expect("the provider restarts")
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

/// An authorization server on a loopback port whose issuer identifier is its own URL: its RFC
/// 8414 metadata names its `/jwks` (or the `jwks_uri` a test sets) and its `/introspect`.
/// `/jwks` serves the keys of the provider it was started with (a token that provider forges
/// with `"iss": front.url` verifies with them), or none, after the delay a test sets;
/// `/introspect` answers `{"active": false}` to every token. Each is counted.
pub struct Front {
    /// Its issuer identifier, `http://127.0.0.1:<port>`.
    pub url: String,
    /// Its port.
    pub port: u16,
    state: Arc<FrontState>,
}

struct FrontState {
    url: String,
    /// The provider whose keys `/jwks` serves.
    keys_of: Option<String>,
    jwks_uri: Mutex<Option<String>>,
    jwks_delay: Mutex<Duration>,
    jwks_requests: AtomicUsize,
    introspection_requests: AtomicUsize,
}

impl Front {
    /// Starts one serving the keys of `keys_of` (none: an empty set).
    pub async fn start(keys_of: Option<&Issuer>) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let url = format!("http://127.0.0.1:{port}");
        let state = Arc::new(FrontState {
            url: url.clone(),
            keys_of: keys_of.map(|issuer| issuer.url.clone()),
            jwks_uri: Mutex::new(None),
            jwks_delay: Mutex::new(Duration::ZERO),
            jwks_requests: AtomicUsize::new(0),
            introspection_requests: AtomicUsize::new(0),
        });
        let serving = Arc::clone(&state);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let state = Arc::clone(&serving);
                let service = service_fn(move |request| answer(Arc::clone(&state), request));
                tokio::spawn(
                    hyper::server::conn::http1::Builder::new()
                        .serve_connection(TokioIo::new(stream), service),
                );
            }
        });
        Self { url, port, state }
    }

    /// The `jwks_uri` its metadata names from now on.
    pub fn set_jwks_uri(&self, uri: &str) {
        *self.state.jwks_uri.lock().unwrap() = Some(uri.to_owned());
    }

    /// How long `/jwks` waits before answering, from now on.
    pub fn set_jwks_delay(&self, delay: Duration) {
        *self.state.jwks_delay.lock().unwrap() = delay;
    }

    /// The requests `/jwks` got so far (counted when they arrive).
    pub fn jwks_requests(&self) -> usize {
        self.state.jwks_requests.load(Ordering::SeqCst)
    }

    /// The requests `/introspect` got so far.
    pub fn introspection_requests(&self) -> usize {
        self.state.introspection_requests.load(Ordering::SeqCst)
    }

    /// Waits (up to 10 s) until `/jwks` got `count` requests.
    pub async fn until_jwks_requests(&self, count: usize) {
        let deadline = Instant::now() + Duration::from_secs(10);
        while self.jwks_requests() < count {
            assert!(
                Instant::now() < deadline,
                "{} JWKS requests, not {count}",
                self.jwks_requests()
            );
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    }
}

/// The answer of a [`Front`] to `request`.
async fn answer(
    state: Arc<FrontState>,
    request: Request<Incoming>,
) -> Result<Response<Full<Bytes>>, Infallible> {
    let body = match request.uri().path() {
        "/.well-known/oauth-authorization-server" => {
            let jwks_uri = state.jwks_uri.lock().unwrap().clone();
            json!({
                "issuer": state.url,
                "jwks_uri": jwks_uri.unwrap_or_else(|| format!("{}/jwks", state.url)),
                "introspection_endpoint": format!("{}/introspect", state.url),
            })
        }
        "/jwks" => {
            state.jwks_requests.fetch_add(1, Ordering::SeqCst);
            let delay = *state.jwks_delay.lock().unwrap();
            tokio::time::sleep(delay).await;
            match &state.keys_of {
                Some(provider) => reqwest::get(format!("{provider}/jwks"))
                    .await
                    .unwrap()
                    .json()
                    .await
                    .unwrap(),
                None => json!({"keys": []}),
            }
        }
        "/introspect" => {
            state.introspection_requests.fetch_add(1, Ordering::SeqCst);
            json!({"active": false})
        }
        _ => {
            let mut response = Response::new(Full::new(Bytes::from_static(b"not found")));
            *response.status_mut() = hyper::StatusCode::NOT_FOUND;
            return Ok(response);
        }
    };
    let mut response = Response::new(Full::new(Bytes::from(body.to_string())));
    response.headers_mut().insert(
        hyper::header::CONTENT_TYPE,
        hyper::header::HeaderValue::from_static("application/json"),
    );
    Ok(response)
}
