//! [`Users`]: the sessions of one credentialed server, one per caller (issuer, subject), so
//! that the server sees each call as its caller's (a toolmodel upstream binds a session to
//! its token's subject, so one session could not carry several users' tokens). A new user's
//! session past [`MAX_USER_SESSIONS`] closes the least recently used idle one; one unused for
//! [`USER_SESSION_IDLE`] is closed by the next call of the server. A session a call is using
//! is never closed (so more users calling at once than the bound exceed it until their calls
//! end).

use std::{
    collections::HashMap,
    sync::{Arc, Mutex},
    time::{Duration, Instant},
};

use toolmodel::{CallContext, ToolError};

use super::authorization::{Authorizer, User};
use super::bearer::Bearer;
use super::config::TokenExchange;
use super::exchange::Exchanger;
use crate::federation::upstream::Upstream;
use crate::lock::lock;

/// The most sessions one credentialed server keeps open, one per user: a new user's session
/// past it closes the least recently used one no call is using.
pub const MAX_USER_SESSIONS: usize = 256;

/// How long a user's session to a credentialed server stays open unused (it is closed by the
/// next call of that server after).
pub const USER_SESSION_IDLE: Duration = Duration::from_secs(600);

/// Where a credentialed server's users' tokens come from.
pub(crate) enum Issuing {
    /// Exchanged at the gateway's authorization server as the entry's `tokenExchange` says.
    Exchange(Arc<Exchanger>, TokenExchange),
    /// Authorized by each user at the upstream's own authorization server (`oauth`).
    OAuth(Arc<Authorizer>),
}

/// One credentialed server's sessions by user.
pub(crate) struct Users {
    issuing: Issuing,
    sessions: Mutex<HashMap<User, (Arc<Upstream>, Instant)>>,
}

impl Users {
    pub(crate) fn new(issuing: Issuing) -> Self {
        Self {
            issuing,
            sessions: Mutex::new(HashMap::new()),
        }
    }

    /// The session of the caller of `cx` to `shared`'s server, its token ready: exchanged
    /// now when none is kept (`tokenExchange`), or authorized by the user now through
    /// URL-mode elicitation when none is kept or it can no longer be refreshed (`oauth`).
    ///
    /// # Errors
    ///
    /// An `isError` result ([`ToolError::Execution`]): no verified caller or no access token
    /// on `cx` (the gateway checks no tokens), the exchange failed, the user declined the
    /// authorization or it failed; what [`Authorizer::authorize`] returns besides
    /// (`-32042`, an input round).
    pub(crate) async fn session_for(
        &self,
        shared: &Upstream,
        cx: &CallContext,
    ) -> Result<Arc<Upstream>, ToolError> {
        let server = &shared.config.name;
        let limit = shared.config.timeouts.request / 2;
        let (Some(caller), Some(token)) = (cx.caller(), cx.caller().and_then(|c| c.access_token()))
        else {
            return Err(ToolError::new(format!(
                "server {server:?} is called with each user's own credentials (toolmodelCredentials), and this call has no verified access token: the gateway must check tokens (--auth-issuer)"
            )));
        };
        let user = (caller.issuer().to_owned(), caller.subject().to_owned());
        let bearer = || match &self.issuing {
            Issuing::Exchange(exchanger, exchange) => Bearer::user(
                Arc::clone(exchanger),
                server,
                exchange.clone(),
                limit,
                (&user.0, &user.1),
                token.clone(),
            ),
            Issuing::OAuth(authorizer) => {
                Bearer::authorized(Arc::clone(authorizer), limit, Some(user.clone()))
            }
        };
        if let Issuing::OAuth(authorizer) = &self.issuing {
            let kept = authorizer
                .token(&user)
                .await
                .map_err(|why| ToolError::new(format!("server {server:?}: {why}")))?;
            if kept.is_none() {
                authorizer.authorize(&user, cx).await?;
            }
        }
        let session = {
            let mut sessions = lock(&self.sessions);
            let now = Instant::now();
            let mut closing = Vec::new();
            // A session a call holds (another reference than this map's) is never closed.
            let busy = |session: &Arc<Upstream>| Arc::strong_count(session) > 1;
            sessions.retain(|_, (session, used)| {
                let keep = busy(session) || now.duration_since(*used) < USER_SESSION_IDLE;
                if !keep {
                    closing.push(Arc::clone(session));
                }
                keep
            });
            if !sessions.contains_key(&user)
                && sessions.len() >= MAX_USER_SESSIONS
                && let Some(oldest) = sessions
                    .iter()
                    .filter(|(_, (session, _))| !busy(session))
                    .min_by_key(|(_, (_, used))| *used)
                    .map(|(user, _)| user.clone())
                && let Some((session, _)) = sessions.remove(&oldest)
            {
                closing.push(session);
            }
            close_later(closing);
            let (session, used) = sessions.entry(user.clone()).or_insert_with(|| {
                (
                    Arc::new(Upstream::for_user(shared, Arc::new(bearer()))),
                    now,
                )
            });
            *used = now;
            Arc::clone(session)
        };
        let bearer = session.bearer.as_ref().ok_or_else(|| {
            ToolError::new(format!("server {server:?}: a user session without a token"))
        })?;
        bearer.renew(token);
        match bearer.token().await {
            Ok(_) => Ok(session),
            Err(err) => Err(ToolError::new(format!("server {server:?}: {err}"))),
        }
    }

    /// Whether no call holds a user's session (a reconfiguration drains the server until
    /// then).
    pub(crate) fn idle(&self) -> bool {
        lock(&self.sessions)
            .values()
            .all(|(session, _)| Arc::strong_count(session) == 1)
    }

    /// Closes every user's session.
    pub(crate) async fn close(&self) {
        let sessions: Vec<Arc<Upstream>> = lock(&self.sessions)
            .drain()
            .map(|(_, (session, _))| session)
            .collect();
        for session in sessions {
            // A user's session has no users of its own: the recursion ends there.
            Box::pin(session.close()).await;
        }
    }
}

/// Closes `sessions` on a task of its own (the call that found them idle does not wait).
fn close_later(sessions: Vec<Arc<Upstream>>) {
    if sessions.is_empty() {
        return;
    }
    if let Ok(runtime) = tokio::runtime::Handle::try_current() {
        runtime.spawn(async move {
            for session in sessions {
                session.close().await;
            }
        });
    }
}
