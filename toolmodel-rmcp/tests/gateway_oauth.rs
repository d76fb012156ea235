//! Per-user authorization of a third-party upstream (issue 44): a gateway behind the test
//! authorization server, and an upstream behind a second oidc-provider (its own
//! authorization server, in its third-party mode: an authorization-code client with PKCE and
//! a login form), configured with `toolmodelCredentials.oauth`. A user's first call asks them
//! to authorize through URL-mode elicitation; the test client follows the URL with an HTTP
//! client that signs in as `alice` and lands on the gateway's redirect endpoint; the call
//! completes as `alice` at the third-party server, `notifications/elicitation/complete`
//! arrives, and a second call asks nothing. A client that declines gets a tool error; one
//! without `elicitation.url` gets `-32042` with the URL; a replayed `state` is a 400 page;
//! under MCP 2026-07-28 the elicitation is an input round; tokens about to expire are
//! refreshed; kept in Redis (encrypted), they serve another gateway sharing it and its key;
//! an `error` redirect ends the waiting call with a tool error naming it; with Redis, the
//! redirect may land on another gateway (replica) sharing it and its key.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::Duration,
};

use rmcp::{
    ClientHandler, ErrorData as McpError,
    model::{
        CallToolRequestParams, ClientCapabilities, ClientConfig, CustomNotification,
        ElicitRequestParams, ElicitResult, ElicitationAction, ElicitationCapability,
        Implementation, UrlElicitationCapability,
    },
    service::{NotificationContext, RequestContext, RoleClient, RunningService, ServiceError},
};
use serde_json::json;
use tokio::net::TcpListener;
use toolmodel_rmcp::{
    ToolboxServer,
    auth::ResourceServer,
    federation::{Federation, FederationConfig, REDIRECT_PATH, URL_ELICITATION_REQUIRED},
};
use toolmodel_test_support::issuer::{self, Issuer};

use crate::gateway_credentials::{Seen, text, upstream};
use crate::support::two_users::connect;

/// What the test client does with a URL-mode elicitation.
#[derive(Clone, Copy)]
enum Answer {
    /// Follows the URL, signs in as this subject, and accepts.
    SignIn(&'static str),
    /// Declines without opening it.
    Decline,
    /// Opens the redirect endpoint with `error=access_denied` and the URL's `state` (as an
    /// authorization server whose user refused), then accepts.
    Deny,
}

/// A client declaring `elicitation.url` (or not, `url: false`), which answers as `answer`
/// and records the URLs it was sent to, the pages it landed on and the completion
/// notifications it received.
#[derive(Clone)]
struct Browser {
    answer: Answer,
    url: bool,
    seen: Arc<Mutex<Vec<String>>>,
    landed: Arc<Mutex<Vec<(u16, String)>>>,
    completed: Arc<Mutex<Vec<String>>>,
    /// The origin the redirect to the gateway's endpoint is sent to instead of the one it
    /// names (another replica behind the same public URL).
    land_at: Option<String>,
}

impl Browser {
    fn new(answer: Answer, url: bool) -> Self {
        Self {
            answer,
            url,
            seen: Arc::default(),
            landed: Arc::default(),
            completed: Arc::default(),
            land_at: None,
        }
    }

    /// The browser whose redirect to the gateway's endpoint lands at `origin`.
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    fn landing_at(mut self, origin: &str) -> Self {
        self.land_at = Some(origin.to_owned());
        self
    }
}

/// `url` followed as a browser would (redirects, cookies per host), the form of the
/// third-party login posted with `login=<subject>`: the status and body of the last page.
async fn sign_in(url: &str, subject: &str, land_at: Option<&str>) -> (u16, String) {
    let http = reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .expect("an HTTP client");
    let mut cookies: HashMap<String, String> = HashMap::new();
    let mut next = (reqwest::Method::GET, url.to_owned(), None::<String>);
    for _ in 0..12 {
        let (method, at, body) = next.clone();
        let mut request = http.request(method.clone(), &at);
        let jar: Vec<String> = cookies.iter().map(|(k, v)| format!("{k}={v}")).collect();
        if !jar.is_empty() {
            request = request.header("cookie", jar.join("; "));
        }
        if let Some(body) = body {
            request = request
                .header("content-type", "application/x-www-form-urlencoded")
                .body(body);
        }
        let response = request.send().await.expect("the page answers");
        for value in response.headers().get_all("set-cookie") {
            let pair = value.to_str().unwrap().split(';').next().unwrap();
            if let Some((name, value)) = pair.split_once('=') {
                cookies.insert(name.to_owned(), value.to_owned());
            }
        }
        let status = response.status().as_u16();
        if let Some(location) = response.headers().get("location") {
            let mut location = reqwest::Url::parse(&at)
                .unwrap()
                .join(location.to_str().unwrap())
                .unwrap();
            if let Some(origin) = land_at
                && location.path() == REDIRECT_PATH
            {
                location = endpoint(origin, location.query().unwrap_or_default());
            }
            next = (reqwest::Method::GET, location.to_string(), None);
            continue;
        }
        let page = response.text().await.unwrap_or_default();
        if method == reqwest::Method::GET && page.contains("name=\"login\"") {
            next = (reqwest::Method::POST, at, Some(format!("login={subject}")));
            continue;
        }
        return (status, page);
    }
    panic!("more than 12 redirects from {url}");
}

/// The redirect endpoint at `origin` with the query string `query`.
fn endpoint(origin: &str, query: &str) -> reqwest::Url {
    let mut url = reqwest::Url::parse(&format!("{origin}{REDIRECT_PATH}")).unwrap();
    url.set_query(Some(query));
    url
}

impl ClientHandler for Browser {
    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        _context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, McpError> {
        let ElicitRequestParams::UrlElicitationParams { url, .. } = request else {
            return Ok(ElicitResult::new(ElicitationAction::Decline));
        };
        self.seen.lock().unwrap().push(url.clone());
        match self.answer {
            Answer::Decline => Ok(ElicitResult::new(ElicitationAction::Decline)),
            Answer::SignIn(subject) => {
                let landed = sign_in(&url, subject, self.land_at.as_deref()).await;
                self.landed.lock().unwrap().push(landed);
                Ok(ElicitResult::new(ElicitationAction::Accept))
            }
            Answer::Deny => {
                let asked = reqwest::Url::parse(&url).unwrap();
                let (_, state) = asked.query_pairs().find(|(k, _)| k == "state").unwrap();
                let redirect = asked
                    .query_pairs()
                    .find(|(k, _)| k == "redirect_uri")
                    .unwrap()
                    .1
                    .into_owned();
                let origin = self
                    .land_at
                    .clone()
                    .unwrap_or_else(|| redirect.trim_end_matches(REDIRECT_PATH).to_owned());
                let query = format!("error=access_denied&state={state}");
                let page = reqwest::get(endpoint(&origin, &query)).await.unwrap();
                let landed = (page.status().as_u16(), page.text().await.unwrap());
                self.landed.lock().unwrap().push(landed);
                Ok(ElicitResult::new(ElicitationAction::Accept))
            }
        }
    }

    async fn on_custom_notification(
        &self,
        notification: CustomNotification,
        _context: NotificationContext<RoleClient>,
    ) {
        if notification.method == "notifications/elicitation/complete" {
            let id = notification
                .params
                .as_ref()
                .and_then(|params| params.get("elicitationId"))
                .and_then(|id| id.as_str())
                .unwrap_or_default()
                .to_owned();
            self.completed.lock().unwrap().push(id);
        }
    }

    fn get_info(&self) -> ClientConfig {
        let mut capabilities = ClientCapabilities::default();
        let mut elicitation = ElicitationCapability::new();
        if self.url {
            elicitation = elicitation.with_url(UrlElicitationCapability::default());
        }
        capabilities.elicitation = Some(elicitation);
        ClientConfig::new(capabilities, Implementation::new("oauth-test", "0"))
    }
}

/// The gateway, its issuer and the third-party upstream.
struct Setup {
    _federation: Federation,
    issuer: Issuer,
    third_party: Issuer,
    gateway: String,
    origin: String,
    /// The upstream's MCP URL.
    url: String,
    resource: String,
    seen: Seen,
}

impl Setup {
    /// `browser` connected to the gateway with a `notes:read` token of the gateway's issuer:
    /// in an MCP 2025-11-25 session, or sessionless (2026-07-28) when `sessionless`.
    async fn caller(
        &self,
        browser: Browser,
        sessionless: bool,
    ) -> RunningService<RoleClient, Browser> {
        let token = self.issuer.token(&self.gateway, "notes:read").await;
        connect(&self.gateway, token, browser, sessionless).await
    }
}

/// The federation of one server `saas` at `url` with `toolmodelCredentials.oauth`,
/// redirecting to `redirect_uri`, its configuration finished by `configure`; served on
/// `listener` behind `issuer`.
async fn gateway(
    issuer: &Issuer,
    listener: TcpListener,
    url: &str,
    redirect_uri: &str,
    configure: impl FnOnce(&mut FederationConfig),
) -> Federation {
    let gateway = format!("http://{}/mcp", listener.local_addr().expect("an address"));
    let secret = issuer::UPSTREAM_CLIENT.1.to_owned();
    let mut config = FederationConfig::from_json_with(
        &json!({"mcpServers": {"saas": {"url": url, "toolmodelCredentials": {"oauth": {
            "clientId": issuer::UPSTREAM_CLIENT.0,
            "clientSecret": "${env:SAAS_CLIENT_SECRET}",
            "scope": "profile:read",
        }}}}, "toolNames": "always"}),
        &|name| (name == "SAAS_CLIENT_SECRET").then(|| secret.clone()),
    )
    .expect("the configuration reads");
    config.redirect_uri = Some(redirect_uri.to_owned());
    configure(&mut config);
    let federation = Federation::start(config)
        .await
        .expect("the federation starts");
    let server = ToolboxServer::gateway(&federation)
        .with_authorization(ResourceServer::new(&issuer.url, &gateway).expect("authorization"));
    tokio::spawn(server.serve_http(listener).into_future());
    federation
}

/// The third-party authorization server's refresh tokens.
#[derive(Clone, Copy)]
enum Refreshes {
    /// Living this many seconds (`None`: 14 days), each one usable again.
    Lasting(Option<u64>),
    /// Single-use: each refresh issues a new one, and one presented again is refused and its
    /// grant revoked (RFC 9700 §4.14.2 rotation).
    Rotated,
}

/// The gateway on a port bound first (its redirect endpoint's URL is the third-party
/// client's one redirect URI), the third-party authorization server, an upstream `saas`
/// behind it with `whoami`, configured with `toolmodelCredentials.oauth`; the third-party
/// access tokens live `token_ttl_secs`, its refresh tokens as `refreshes` says; the
/// configuration finished by `configure`.
async fn setup_with(
    (token_ttl_secs, refreshes): (u64, Refreshes),
    configure: impl FnOnce(&mut FederationConfig),
) -> Option<Setup> {
    let issuer = Issuer::start(0).await?;
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let origin = format!("http://{}", listener.local_addr().expect("an address"));
    let redirect_uri = format!("{origin}{REDIRECT_PATH}");
    let third_party = match refreshes {
        Refreshes::Lasting(refresh_ttl_secs) => {
            Issuer::start_third_party(&redirect_uri, token_ttl_secs, refresh_ttl_secs).await?
        }
        Refreshes::Rotated => {
            Issuer::start_third_party_rotating(&redirect_uri, token_ttl_secs).await?
        }
    };
    let (url, resource, seen) = upstream(&third_party, "mcp").await;
    let federation = gateway(&issuer, listener, &url, &redirect_uri, configure).await;
    Some(Setup {
        _federation: federation,
        issuer,
        third_party,
        gateway: format!("{origin}/mcp"),
        origin,
        url,
        resource,
        seen,
    })
}

/// [`setup_with`] with the configuration as it is.
async fn setup(token_ttl_secs: u64) -> Option<Setup> {
    setup_with((token_ttl_secs, Refreshes::Lasting(None)), |_| {}).await
}

/// `client`'s call of `saas__whoami`, bounded by 20 s.
async fn whoami<C: ClientHandler>(
    client: &RunningService<RoleClient, C>,
) -> Result<rmcp::model::CallToolResult, ServiceError> {
    let call = client.call_tool(CallToolRequestParams::new("saas__whoami"));
    tokio::time::timeout(Duration::from_secs(20), call)
        .await
        .expect("an answer within 20 s")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_authorizes_a_third_party_upstream_through_url_elicitation() {
    let Some(setup) = setup(300).await else {
        return;
    };
    let token = setup.issuer.token(&setup.gateway, "notes:read").await;
    let browser = Browser::new(Answer::SignIn("alice"), true);
    let client = connect(&setup.gateway, token.clone(), browser.clone(), false).await;
    let result = whoami(&client).await.expect("a result");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert_eq!(
        text(&result),
        format!(
            "subject alice, client {}, audience {}, scopes profile:read",
            issuer::UPSTREAM_CLIENT.0,
            setup.resource
        )
    );
    let urls = browser.seen.lock().unwrap().clone();
    assert_eq!(urls.len(), 1, "{urls:?}");
    let url = reqwest::Url::parse(&urls[0]).unwrap();
    let query: HashMap<String, String> = url.query_pairs().into_owned().collect();
    assert_eq!(query["code_challenge_method"], "S256");
    assert_eq!(query["resource"], setup.resource);
    assert_eq!(
        setup.resource, setup.url,
        "RFC 9728: the resource is the upstream's URL"
    );
    assert_eq!(query["client_id"], issuer::UPSTREAM_CLIENT.0);
    let landed = browser.landed.lock().unwrap().clone();
    assert_eq!(landed[0].0, 200, "{landed:?}");
    assert!(landed[0].1.contains("You may close this tab"), "{landed:?}");
    let completed = browser.completed.lock().unwrap().clone();
    assert_eq!(
        completed.len(),
        1,
        "notifications/elicitation/complete: {completed:?}"
    );
    // A second call: the kept token, no new authorization.
    let again = whoami(&client).await.expect("a result");
    assert_ne!(again.is_error, Some(true), "{again:?}");
    assert_eq!(browser.seen.lock().unwrap().len(), 1);
    // The state, replayed: a 400 page, no token in it.
    let mut callback = reqwest::Url::parse(&format!("{}{REDIRECT_PATH}", setup.origin)).unwrap();
    callback
        .query_pairs_mut()
        .append_pair("state", &query["state"])
        .append_pair("code", "replayed");
    let replayed = reqwest::get(callback).await.expect("the endpoint answers");
    assert_eq!(replayed.status().as_u16(), 400);
    let page = replayed.text().await.unwrap();
    assert!(page.contains("not valid"), "{page}");
    // The upstream never received the caller's token: only the third-party server's.
    let seen = setup.seen.lock().unwrap().clone();
    assert!(!seen.is_empty());
    assert!(
        seen.iter().all(|header| !header.contains(&token)),
        "the caller's token went upstream"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_user_who_declines_gets_a_tool_error_and_a_client_without_url_elicitation_gets_32042() {
    let Some(setup) = setup(300).await else {
        return;
    };
    let token = setup.issuer.token(&setup.gateway, "notes:read").await;
    let decliner = Browser::new(Answer::Decline, true);
    let client = connect(&setup.gateway, token.clone(), decliner, false).await;
    let result = whoami(&client).await.expect("a result");
    assert_eq!(result.is_error, Some(true), "{result:?}");
    assert_eq!(
        text(&result),
        "the user declined authorization of server \"saas\""
    );
    let formless = Browser::new(Answer::SignIn("alice"), false);
    let client = connect(&setup.gateway, token, formless, false).await;
    let Err(ServiceError::McpError(error)) = whoami(&client).await else {
        panic!("a JSON-RPC error")
    };
    assert_eq!(
        i64::from(error.code.0),
        URL_ELICITATION_REQUIRED,
        "{error:?}"
    );
    let data = error.data.expect("data");
    let elicitation = &data["elicitations"][0];
    assert_eq!(elicitation["mode"], "url");
    assert!(
        elicitation["url"]
            .as_str()
            .is_some_and(|url| url.contains("code_challenge=")),
        "{data}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_redirect_ends_the_waiting_call_with_a_tool_error_naming_it() {
    let Some(setup) = setup(300).await else {
        return;
    };
    let denier = Browser::new(Answer::Deny, true);
    let client = setup.caller(denier.clone(), false).await;
    let denied = whoami(&client).await.expect("a result");
    assert_eq!(denied.is_error, Some(true), "{denied:?}");
    assert_eq!(
        text(&denied),
        "server \"saas\": the user's authorization failed: the authorization server answered access_denied"
    );
    let landed = denier.landed.lock().unwrap().clone();
    assert_eq!(landed[0].0, 200, "{landed:?}");
    assert!(
        landed[0].1.contains("not authorized (access_denied)"),
        "{landed:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_2026_07_28_the_authorization_is_an_input_round() {
    let Some(setup) = setup(300).await else {
        return;
    };
    let browser = Browser::new(Answer::SignIn("bob"), true);
    let client = setup.caller(browser.clone(), true).await;
    let result = whoami(&client).await.expect("a result");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert!(text(&result).starts_with("subject bob,"), "{result:?}");
    assert_eq!(browser.seen.lock().unwrap().len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_about_to_expire_is_refreshed_without_asking_the_user_again() {
    // Tokens of 2 s are used for 1 s (the skew), then refreshed (RFC 6749 §6).
    let Some(setup) = setup(2).await else { return };
    let browser = Browser::new(Answer::SignIn("carol"), true);
    let client = setup.caller(browser.clone(), false).await;
    let first = whoami(&client).await.expect("a result");
    assert!(text(&first).starts_with("subject carol,"), "{first:?}");
    let before = setup.seen.lock().unwrap().last().cloned();
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let second = whoami(&client).await.expect("a result");
    assert!(text(&second).starts_with("subject carol,"), "{second:?}");
    assert_eq!(browser.seen.lock().unwrap().len(), 1, "asked once only");
    let after = setup.seen.lock().unwrap().last().cloned();
    assert_ne!(before, after, "a new access token after the refresh");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_calls_with_a_token_about_to_expire_share_one_refresh() {
    // Access tokens of 10 s are used for 5 s, then refreshed; each refresh token is
    // single-use: a second refresh with the same one would be refused, the grant revoked
    // and the user asked to authorize again.
    let Some(setup) = setup_with((10, Refreshes::Rotated), |_| {}).await else {
        return;
    };
    let token = setup.issuer.token(&setup.gateway, "notes:read").await;
    let browser = Browser::new(Answer::SignIn("frank"), true);
    let first = connect(&setup.gateway, token.clone(), browser.clone(), false).await;
    let result = whoami(&first).await.expect("a result");
    assert!(text(&result).starts_with("subject frank,"), "{result:?}");
    let mut clients = Vec::new();
    for _ in 0..8 {
        clients.push(connect(&setup.gateway, token.clone(), browser.clone(), false).await);
    }
    tokio::time::sleep(Duration::from_millis(5500)).await;
    let results = futures_util::future::join_all(clients.iter().map(whoami)).await;
    for result in results {
        let result = result.expect("a result");
        assert!(text(&result).starts_with("subject frank,"), "{result:?}");
    }
    assert_eq!(
        setup.third_party.refreshes().await,
        (1, 0),
        "one refresh granted, none refused"
    );
    assert_eq!(browser.seen.lock().unwrap().len(), 1, "asked once only");
    for client in clients {
        client.cancel().await.unwrap();
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_refresh_asks_the_user_again_by_elicitation() {
    // Access tokens of 2 s (used for 1 s), refresh tokens of 1 s: refused after 1.5 s.
    let Some(setup) = setup_with((2, Refreshes::Lasting(Some(1))), |_| {}).await else {
        return;
    };
    let browser = Browser::new(Answer::SignIn("erin"), true);
    let client = setup.caller(browser.clone(), false).await;
    let first = whoami(&client).await.expect("a result");
    assert!(text(&first).starts_with("subject erin,"), "{first:?}");
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let second = whoami(&client).await.expect("a result");
    assert!(text(&second).starts_with("subject erin,"), "{second:?}");
    assert_eq!(
        browser.seen.lock().unwrap().len(),
        2,
        "asked again once the refresh was refused"
    );
}

#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn tokens_kept_in_redis_serve_another_gateway_with_the_key_and_are_encrypted_at_rest() {
    use toolmodel_rmcp::federation::TokenStore;
    use toolmodel_test_support::redis::RedisServer;
    // Two keys of 32 bytes, base64.
    const KEY: &str = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";
    const OTHER_KEY: &str = "ZmVkY2JhOTg3NjU0MzIxMGZlZGNiYTk4NzY1NDMyMTA=";

    let Some(redis) = RedisServer::start() else {
        return;
    };
    let store = TokenStore::new(&redis.url, KEY).expect("a key");
    let kept = store.clone();
    let Some(setup) = setup_with((300, Refreshes::Lasting(None)), move |config| {
        config.token_store = Some(kept)
    })
    .await
    else {
        return;
    };
    let client = setup
        .caller(Browser::new(Answer::SignIn("dave"), true), false)
        .await;
    let first = whoami(&client).await.expect("a result");
    assert!(text(&first).starts_with("subject dave,"), "{first:?}");
    // Another gateway (another process, say) with the same Redis and key: the same user is
    // not asked (its client would decline), the call runs as dave.
    let redirect_uri = format!("{}{REDIRECT_PATH}", setup.origin);
    let other = |store: TokenStore| async {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
        let url = format!("http://{}/mcp", listener.local_addr().expect("an address"));
        let configure = move |config: &mut FederationConfig| config.token_store = Some(store);
        let federation = gateway(
            &setup.issuer,
            listener,
            &setup.url,
            &redirect_uri,
            configure,
        )
        .await;
        (federation, url)
    };
    let (_second, second_url) = other(store).await;
    let token = setup.issuer.token(&second_url, "notes:read").await;
    let decliner = Browser::new(Answer::Decline, true);
    let client = connect(&second_url, token, decliner.clone(), false).await;
    let result = whoami(&client).await.expect("a result");
    assert!(text(&result).starts_with("subject dave,"), "{result:?}");
    assert!(decliner.seen.lock().unwrap().is_empty(), "asked again");
    // Redis holds ciphertext: no token the upstream received is in it.
    let keys = redis.keys("toolmodel:oauth-tokens:*");
    assert_eq!(keys.len(), 1, "{keys:?}");
    let value = redis.value(&keys[0]);
    let value = String::from_utf8_lossy(&value).into_owned();
    for header in setup.seen.lock().unwrap().iter() {
        let sent = header.trim_start_matches("Bearer ");
        assert!(!value.contains(sent), "a token in clear in Redis");
    }
    assert!(!value.contains("dave") && !value.contains("refresh"));
    // A gateway with another key cannot open them: the user is asked (and declines).
    let other_store = TokenStore::new(&redis.url, OTHER_KEY).expect("a key");
    let (_third, third_url) = other(other_store).await;
    let token = setup.issuer.token(&third_url, "notes:read").await;
    let client = connect(&third_url, token, decliner.clone(), false).await;
    let result = whoami(&client).await.expect("a result");
    assert_eq!(
        text(&result),
        "the user declined authorization of server \"saas\""
    );
}

#[cfg(feature = "redis")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_redirect_of_an_authorization_may_reach_another_replica() {
    use toolmodel_rmcp::federation::TokenStore;
    use toolmodel_test_support::redis::RedisServer;
    const KEY: &str = "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=";

    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    let store = TokenStore::new(&redis.url, KEY).expect("a key");
    let kept = store.clone();
    let Some(setup) = setup_with((300, Refreshes::Lasting(None)), move |config| {
        config.token_store = Some(kept)
    })
    .await
    else {
        return;
    };
    // Replica B: the same configuration, Redis and key, the same public redirect URI (A's,
    // the one the third-party client has), its own listener.
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("a port");
    let other = format!("http://{}", listener.local_addr().expect("an address"));
    let redirect_uri = format!("{}{REDIRECT_PATH}", setup.origin);
    let configure = move |config: &mut FederationConfig| config.token_store = Some(store);
    let _b = gateway(
        &setup.issuer,
        listener,
        &setup.url,
        &redirect_uri,
        configure,
    )
    .await;
    let token = setup.issuer.token(&setup.gateway, "notes:read").await;

    // The user refuses at the authorization server; its error redirect reaches B: the call
    // waiting on A ends with a tool error naming it.
    let denier = Browser::new(Answer::Deny, true).landing_at(&other);
    let client = connect(&setup.gateway, token.clone(), denier.clone(), false).await;
    let denied = whoami(&client).await.expect("a result");
    assert_eq!(denied.is_error, Some(true), "{denied:?}");
    assert_eq!(
        text(&denied),
        "server \"saas\": the user's authorization failed: the authorization server answered access_denied"
    );
    let landed = denier.landed.lock().unwrap().clone();
    assert_eq!(landed[0].0, 200, "{landed:?}");
    assert!(landed[0].1.contains("access_denied"), "{landed:?}");

    // The user signs in; the code reaches B, which redeems it: the call on A runs as the
    // user, notifications/elicitation/complete arrives.
    let browser = Browser::new(Answer::SignIn("frank"), true).landing_at(&other);
    let client = connect(&setup.gateway, token, browser.clone(), false).await;
    let result = whoami(&client).await.expect("a result");
    assert_ne!(result.is_error, Some(true), "{result:?}");
    assert!(text(&result).starts_with("subject frank,"), "{result:?}");
    let landed = browser.landed.lock().unwrap().clone();
    assert_eq!(landed[0].0, 200, "{landed:?}");
    assert!(landed[0].1.contains("Authorization complete"), "{landed:?}");
    assert_eq!(browser.completed.lock().unwrap().len(), 1);
    let urls = browser.seen.lock().unwrap().clone();
    assert_eq!(urls.len(), 1, "{urls:?}");
    let asked = reqwest::Url::parse(&urls[0]).unwrap();
    let state = asked
        .query_pairs()
        .find(|(k, _)| k == "state")
        .unwrap()
        .1
        .into_owned();

    // Redis keeps no pending authorization, and no key shows a state.
    let keys = redis.keys("*");
    assert!(
        keys.iter()
            .all(|key| !key.contains("oauth-pending") && !key.contains(&state)),
        "{keys:?}"
    );

    // The state, replayed at A and at B: a 400 page.
    let query = format!("code=replayed&state={state}");
    for origin in [&setup.origin, &other] {
        let replayed = reqwest::get(endpoint(origin, &query)).await.unwrap();
        assert_eq!(replayed.status().as_u16(), 400, "at {origin}");
    }

    // Redis down: a redirect B cannot look up gets a 503 page (try again), not a 400.
    redis.stop();
    let page = tokio::time::timeout(
        Duration::from_secs(20),
        reqwest::get(endpoint(&other, "code=c&state=unknown")),
    )
    .await
    .expect("an answer within 20 s")
    .unwrap();
    assert_eq!(page.status().as_u16(), 503);
    assert!(page.text().await.unwrap().contains("Reload this page"));
}
