//! [`Front`]: an authorization server of the test's own, for what `oidc-provider` cannot be
//! made to do (slow keys, a metadata document naming other endpoints), counting the requests
//! it gets. Here rather than beside [`Issuer`] in `toolmodel-test-support`: only these tests
//! use it, and it needs `hyper`, which the other packages' tests do not.

use std::{
    convert::Infallible,
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
use serde_json::json;
use tokio::net::TcpListener;

use toolmodel_test_support::issuer::Issuer;

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
