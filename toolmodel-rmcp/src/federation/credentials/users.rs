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

use toolmodel::{CallContext, CallToolResult};

use super::bearer::Bearer;
use super::config::Credentials;
use super::exchange::Exchanger;
use crate::federation::upstream::Upstream;
use crate::lock::lock;

/// The most sessions one credentialed server keeps open, one per user: a new user's session
/// past it closes the least recently used one no call is using.
pub const MAX_USER_SESSIONS: usize = 256;

/// How long a user's session to a credentialed server stays open unused (it is closed by the
/// next call of that server after).
pub const USER_SESSION_IDLE: Duration = Duration::from_secs(600);

type User = (String, String);

/// One credentialed server's sessions by user.
pub(crate) struct Users {
    exchanger: Arc<Exchanger>,
    sessions: Mutex<HashMap<User, (Arc<Upstream>, Instant)>>,
}

impl Users {
    pub(crate) fn new(exchanger: Arc<Exchanger>) -> Self {
        Self {
            exchanger,
            sessions: Mutex::new(HashMap::new()),
        }
    }

    /// The session of the caller of `cx` to `shared`'s server, its token ready (exchanged
    /// now when none is kept).
    ///
    /// # Errors
    ///
    /// The `isError` result of the call: no verified caller or no access token on `cx` (the
    /// gateway checks no tokens), or the exchange failed.
    pub(crate) async fn session_for(
        &self,
        shared: &Upstream,
        cx: &CallContext,
    ) -> Result<Arc<Upstream>, CallToolResult> {
        let server = &shared.config.name;
        let Some(Credentials::TokenExchange(exchange)) = &shared.config.credentials else {
            return Err(CallToolResult::error(format!(
                "server {server:?} has no toolmodelCredentials"
            )));
        };
        let (Some(caller), Some(token)) = (cx.caller(), cx.caller().and_then(|c| c.access_token()))
        else {
            return Err(CallToolResult::error(format!(
                "server {server:?} is called with each user's own credentials (toolmodelCredentials), and this call has no verified access token: the gateway must check tokens (--auth-issuer)"
            )));
        };
        let user = (caller.issuer().to_owned(), caller.subject().to_owned());
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
                let bearer = Bearer::user(
                    Arc::clone(&self.exchanger),
                    server,
                    exchange.clone(),
                    shared.config.timeouts.request / 2,
                    (&user.0, &user.1),
                    token.clone(),
                );
                (Arc::new(Upstream::for_user(shared, Arc::new(bearer))), now)
            });
            *used = now;
            Arc::clone(session)
        };
        let bearer = session.bearer.as_ref().ok_or_else(|| {
            CallToolResult::error(format!("server {server:?}: a user session without a token"))
        })?;
        bearer.renew(token);
        match bearer.token().await {
            Ok(_) => Ok(session),
            Err(err) => Err(CallToolResult::error(format!("server {server:?}: {err}"))),
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
