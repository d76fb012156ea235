//! [`Callbacks`]: the gateway's OAuth redirect endpoint (RFC 6749 §3.1.2), shared by its
//! third-party upstreams' [`Authorizer`]s: each `state` it issued, single-use, bound to the
//! user and the server that asked, valid for [`AUTHORIZATION_TTL`]; the page a user's browser
//! lands on. A `state` that is unknown, used already or expired gets a 400 page; no page
//! shows a code or a token.

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
    /// 200, or 400 for a `state` that is not valid.
    pub(crate) status: u16,
    /// The page.
    pub(crate) html: String,
}

impl Page {
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

    /// Keeps `pending` of `authorizer` until its state comes back (the expired ones go).
    pub(crate) fn register(&self, authorizer: Weak<Authorizer>, pending: Arc<Pending>) {
        let now = Instant::now();
        let mut states = lock(&self.states);
        states.retain(|_, (_, kept)| kept.expires > now);
        states.insert(pending.state.clone(), (authorizer, pending));
    }

    /// The page for a request whose query string is `query`: RFC 6749 §4.1.2's `code` and
    /// `state`, or §4.1.2.1's `error`. The state is used up whatever the outcome.
    pub(crate) async fn answer(&self, query: Option<&str>) -> Page {
        let params: HashMap<String, String> = query
            .map(|query| {
                url::form_urlencoded::parse(query.as_bytes())
                    .into_owned()
                    .collect()
            })
            .unwrap_or_default();
        let invalid = || {
            Page::new(
                400,
                "This authorization link is not valid",
                "It was used already, it expired (after 10 minutes), or it was never issued. Start again from your MCP client.",
            )
        };
        let Some(state) = params.get("state") else {
            return invalid();
        };
        let Some((authorizer, pending)) = lock(&self.states).remove(state) else {
            return invalid();
        };
        let Some(authorizer) = authorizer.upgrade() else {
            return invalid();
        };
        if pending.expires <= Instant::now() {
            authorizer.forget(&pending);
            pending.finish(Err(format!(
                "not finished within {} s",
                AUTHORIZATION_TTL.as_secs()
            )));
            return invalid();
        }
        let server = authorizer.server().to_owned();
        if let Some(error) = params.get("error") {
            authorizer.forget(&pending);
            // RFC 6749 §4.1.2.1: an ASCII code, shown as it is, never echoed into markup
            // unescaped.
            let code: String = error
                .chars()
                .filter(|c| c.is_ascii_graphic())
                .take(64)
                .collect();
            pending.finish(Err(format!("the authorization server answered {code}")));
            return Page::new(
                200,
                "Authorization not granted",
                &format!("Server {server:?} was not authorized ({code}). You may close this tab."),
            );
        }
        let Some(code) = params.get("code") else {
            authorizer.forget(&pending);
            pending.finish(Err("the redirect carried no code".into()));
            return invalid();
        };
        match authorizer.redeem(&pending, code).await {
            Ok(()) => {
                pending.finish(Ok(()));
                Page::new(
                    200,
                    "Authorization complete",
                    &format!(
                        "The gateway may now call server {server:?} as you. You may close this tab."
                    ),
                )
            }
            Err(why) => {
                pending.finish(Err(why.clone()));
                Page::new(
                    400,
                    "Authorization failed",
                    &format!("Server {server:?}: {why}. Start again from your MCP client."),
                )
            }
        }
    }
}
