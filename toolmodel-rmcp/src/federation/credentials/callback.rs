//! [`Callbacks`]: the gateway's OAuth redirect endpoint (RFC 6749 §3.1.2), shared by its
//! third-party upstreams' [`Authorizer`]s: each `state` it issued, single-use, bound to the
//! user and the server that asked, valid for [`AUTHORIZATION_TTL`]; the page a user's browser
//! lands on. A `state` that is unknown, used already or expired gets a 400 page; no page
//! shows a code or a token. With the token store (feature `redis`), each state is in Redis
//! too ([`shared`](super::shared)), and the redirect may reach any replica.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, Weak},
    time::Instant,
};

use url::Url;

use super::authorization::{AUTHORIZATION_TTL, Authorizer, Pending};
use super::config::DEFAULT_EXCHANGE_TIMEOUT;
use crate::lock::lock;

/// The path of the gateway's redirect endpoint on its HTTP listener
/// ([`FederationConfig::redirect_uri`](crate::federation::FederationConfig::redirect_uri)
/// is `<origin>` followed by it).
pub const REDIRECT_PATH: &str = "/oauth/callback";

/// A state's authorization, and the client that asked for it.
type Issued = (Weak<Authorizer>, Arc<Pending>);

/// The states issued and not yet come back.
pub(crate) struct Callbacks {
    redirect_uri: Url,
    /// The HTTP client of every [`Authorizer`]: no redirect followed, each request bounded
    /// by [`DEFAULT_EXCHANGE_TIMEOUT`].
    http: reqwest::Client,
    /// Where the users' tokens are kept besides memory (feature `redis`).
    #[cfg(feature = "redis")]
    store: Option<Arc<super::store::Sealed>>,
    states: Mutex<HashMap<String, Issued>>,
    /// The authorizers by server name, which redeem the codes of states other replicas
    /// issued (feature `redis`).
    #[cfg(feature = "redis")]
    authorizers: Mutex<HashMap<String, Weak<Authorizer>>>,
}

impl std::fmt::Debug for Callbacks {
    fn fmt(&self, formatter: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        formatter
            .debug_struct("Callbacks")
            .field("redirect_uri", &self.redirect_uri.as_str())
            .finish_non_exhaustive()
    }
}

/// What the redirect endpoint answers: an HTTP status and an HTML page.
pub(crate) struct Page {
    /// 200, 400 for a `state` that is not valid, or 503 when the token store failed.
    pub(crate) status: u16,
    /// The page.
    pub(crate) html: String,
}

impl Page {
    /// The page of a `state` that is unknown, used already or expired.
    fn invalid() -> Self {
        Self::new(
            400,
            "This authorization link is not valid",
            "It was used already, it expired (after 10 minutes), or it was never issued. Start again from your MCP client.",
        )
    }

    /// The page of a redirect the token store failed (`err`, logged once as a WARN line).
    #[cfg(feature = "redis")]
    fn unavailable(err: &crate::Error) -> Self {
        tracing::warn!(target: "toolmodel_rmcp::federation", "an authorization's redirect could not be handled, the token store failed: {err}");
        Self::new(
            503,
            "The gateway could not finish this authorization now",
            "Its store did not answer. Reload this page in a moment, or start again from your MCP client.",
        )
    }

    fn new(status: u16, title: &str, text: &str) -> Self {
        let escape = |text: &str| {
            text.replace('&', "&amp;")
                .replace('<', "&lt;")
                .replace('>', "&gt;")
                .replace('"', "&quot;")
        };
        Self {
            status,
            html: format!(
                "<!doctype html><meta charset=\"utf-8\"><title>{}</title><h1>{}</h1><p>{}</p>",
                escape(title),
                escape(title),
                escape(text)
            ),
        }
    }
}

impl Callbacks {
    /// The endpoint at `redirect_uri`, no state issued, the users' tokens kept in `store` too
    /// (feature `redis`).
    ///
    /// # Errors
    ///
    /// A sentence when the HTTP client cannot be built (no TLS backend).
    pub(crate) fn new(
        redirect_uri: Url,
        #[cfg(feature = "redis")] store: Option<Arc<super::store::Sealed>>,
    ) -> Result<Arc<Self>, String> {
        let http = reqwest::Client::builder()
            .redirect(reqwest::redirect::Policy::none())
            .timeout(DEFAULT_EXCHANGE_TIMEOUT)
            .build()
            .map_err(|err| format!("cannot build the OAuth client's HTTP client: {err}"))?;
        Ok(Arc::new(Self {
            redirect_uri,
            http,
            #[cfg(feature = "redis")]
            store,
            states: Mutex::new(HashMap::new()),
            #[cfg(feature = "redis")]
            authorizers: Mutex::new(HashMap::new()),
        }))
    }

    /// The store of the users' tokens, when the gateway has one.
    #[cfg(feature = "redis")]
    pub(crate) fn store(&self) -> Option<Arc<super::store::Sealed>> {
        self.store.clone()
    }

    /// The HTTP client of the authorizers.
    pub(crate) fn http(&self) -> &reqwest::Client {
        &self.http
    }

    /// Its public URL, the `redirect_uri` of every authorization request.
    pub(crate) fn redirect_uri(&self) -> &Url {
        &self.redirect_uri
    }

    /// Whether a request for `path` is the endpoint's.
    pub(crate) fn serves(&self, path: &str) -> bool {
        path == self.redirect_uri.path()
    }

    /// Enrols `authorizer` for the codes of its server's states other replicas issued (the
    /// latest of a server's name wins, as after a reload).
    #[cfg(feature = "redis")]
    pub(crate) fn enrol(&self, authorizer: &Arc<Authorizer>) {
        let mut authorizers = lock(&self.authorizers);
        authorizers.retain(|_, kept| kept.strong_count() > 0);
        authorizers.insert(authorizer.server().to_owned(), Arc::downgrade(authorizer));
    }

    /// Forgets `state` (its redirect reached another replica).
    #[cfg(feature = "redis")]
    pub(crate) fn drop_state(&self, state: &str) {
        lock(&self.states).remove(state);
    }

    /// Keeps `pending` of `authorizer` until its state comes back (the expired ones go).
    pub(crate) fn register(&self, authorizer: Weak<Authorizer>, pending: Arc<Pending>) {
        let now = Instant::now();
        let mut states = lock(&self.states);
        states.retain(|_, (_, kept)| kept.expires > now);
        states.insert(pending.state.clone(), (authorizer, pending));
    }

    /// The page for a request whose query string is `query`: RFC 6749 §4.1.2's `code` and
    /// `state`, or §4.1.2.1's `error`. The state is used up whatever the outcome. With the
    /// token store, a state this replica did not issue is taken from the store, and its
    /// outcome left there for the replica whose call waits; a store that fails gets a 503
    /// page (try again) and one WARN line.
    pub(crate) async fn answer(&self, query: Option<&str>) -> Page {
        let params: HashMap<String, String> = query
            .map(|query| {
                url::form_urlencoded::parse(query.as_bytes())
                    .into_owned()
                    .collect()
            })
            .unwrap_or_default();
        let Some(state) = params.get("state") else {
            return Page::invalid();
        };
        let Some((authorizer, pending)) = lock(&self.states).remove(state) else {
            #[cfg(feature = "redis")]
            return self.answer_elsewhere(state, &params).await;
            #[cfg(not(feature = "redis"))]
            return Page::invalid();
        };
        let Some(authorizer) = authorizer.upgrade() else {
            return Page::invalid();
        };
        if pending.expires <= Instant::now() {
            authorizer.forget(&pending);
            pending.finish(Err(format!(
                "not finished within {} s",
                AUTHORIZATION_TTL.as_secs()
            )));
            return Page::invalid();
        }
        #[cfg(feature = "redis")]
        if let Some(store) = self.store.as_ref().filter(|_| pending.shared) {
            match store.take(state).await {
                Ok(Some(_)) => {}
                // Another replica took it: its outcome reaches the waiting call from there.
                Ok(None) => return Page::invalid(),
                Err(err) => {
                    lock(&self.states).insert(
                        state.clone(),
                        (Arc::downgrade(&authorizer), Arc::clone(&pending)),
                    );
                    return Page::unavailable(&err);
                }
            }
        }
        let (page, outcome) = conclude(authorizer.server(), &params, async |code| {
            authorizer.redeem(&pending, code).await
        })
        .await;
        authorizer.forget(&pending);
        pending.finish(outcome);
        page
    }

    /// The page for a `state` this replica did not issue: the pending authorization another
    /// replica shared, taken once from the store; its outcome left there for the replica
    /// whose call waits.
    #[cfg(feature = "redis")]
    async fn answer_elsewhere(&self, state: &str, params: &HashMap<String, String>) -> Page {
        let Some(store) = &self.store else {
            return Page::invalid();
        };
        let handoff = match store.take(state).await {
            Ok(Some(handoff)) => handoff,
            Ok(None) => return Page::invalid(),
            Err(err) => return Page::unavailable(&err),
        };
        let authorizer = lock(&self.authorizers)
            .get(&handoff.server)
            .and_then(Weak::upgrade);
        let (page, outcome) = match authorizer {
            Some(authorizer) => {
                conclude(&handoff.server, params, async |code| {
                    authorizer
                        .redeem_for(&handoff.user, &handoff.verifier, code)
                        .await
                })
                .await
            }
            None => (
                Page::invalid(),
                Err(format!(
                    "its redirect reached a gateway replica that does not serve server {:?}",
                    handoff.server
                )),
            ),
        };
        match store.report(state, &handoff, &outcome).await {
            Ok(()) => page,
            Err(err) => Page::unavailable(&err),
        }
    }
}

/// The page and the outcome of a redirect with `params` (RFC 6749 §4.1.2, §4.1.2.1) for
/// `server`, its code redeemed by `redeem`.
async fn conclude(
    server: &str,
    params: &HashMap<String, String>,
    redeem: impl AsyncFnOnce(&str) -> Result<(), String>,
) -> (Page, Result<(), String>) {
    if let Some(error) = params.get("error") {
        // RFC 6749 §4.1.2.1: an ASCII code, shown as it is, never echoed into markup
        // unescaped.
        let code: String = error
            .chars()
            .filter(|c| c.is_ascii_graphic())
            .take(64)
            .collect();
        return (
            Page::new(
                200,
                "Authorization not granted",
                &format!("Server {server:?} was not authorized ({code}). You may close this tab."),
            ),
            Err(format!("the authorization server answered {code}")),
        );
    }
    let Some(code) = params.get("code") else {
        return (Page::invalid(), Err("the redirect carried no code".into()));
    };
    match redeem(code).await {
        Ok(()) => (
            Page::new(
                200,
                "Authorization complete",
                &format!(
                    "The gateway may now call server {server:?} as you. You may close this tab."
                ),
            ),
            Ok(()),
        ),
        Err(why) => (
            Page::new(
                400,
                "Authorization failed",
                &format!("Server {server:?}: {why}. Start again from your MCP client."),
            ),
            Err(why),
        ),
    }
}
