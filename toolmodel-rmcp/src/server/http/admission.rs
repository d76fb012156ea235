//! The session stage: admits a request into the [`SessionTable`] before `rmcp` serves it
//! ([`admit`]), and records what `rmcp` did with the session once it has answered
//! ([`Ticket::after`]).
//!
//! | request | before `rmcp` | after |
//! |---|---|---|
//! | `POST` without `Mcp-Session-Id`, an `initialize` | room for a session ([`HttpLimits::max_sessions`](super::HttpLimits::max_sessions)), else 503 | the session the response names is recorded |
//! | `POST` without `Mcp-Session-Id`, anything else (MCP 2026-07-28's requests) | under authorization, a place among the caller's requests in flight ([`HttpLimits::max_calls_per_caller`](super::HttpLimits::max_calls_per_caller), by its `iss` and `sub`), else 429 | the place is held as long as the response's body |
//! | `DELETE` with `Mcp-Session-Id` | 404 when `rmcp` does not hold the session or it is another caller's (`rmcp` 3.11 answers 202) | the session is forgotten once deleted |
//! | any other with `Mcp-Session-Id` | with authorization, the session must be the caller's (its `iss` and `sub`: 404 otherwise, as for a session that does not exist); a place among the session's requests in flight ([`HttpLimits::max_calls_per_session`](super::HttpLimits::max_calls_per_session)), else 429 | the place is held as long as the response's body |
//! | any other | — | — |

use std::sync::Arc;

use http::{Method, Response, request::Parts};
use rmcp::transport::streamable_http_server::session::SessionId;

use super::{
    callers::{CallerInFlight, CallerTable},
    refusal::Refusal,
    response::{Body, hold},
    sessions::{InFlight, Owner, SessionTable, owner},
};
use crate::server::log_throttle::LogThrottle;

/// The `Mcp-Session-Id` header (MCP, Streamable HTTP, "Session Management").
pub(super) const SESSION_ID: &str = "mcp-session-id";

/// What the session stage does once `rmcp` has answered an admitted request.
#[derive(Debug)]
pub(super) enum Ticket {
    /// A request in a session: its place among the session's requests in flight, held until
    /// the response's body is dropped.
    InSession(InFlight),
    /// A `DELETE` of a session the server holds: forgotten when `rmcp` deleted it.
    Delete(SessionId),
    /// A `POST` of an `initialize`: the session `rmcp` makes for it is recorded, for its
    /// owner.
    New(Option<Owner>),
    /// A `POST` of anything else without a session: its place among its caller's requests in
    /// flight (none for an anonymous caller), held until the response's body is dropped.
    Sessionless(Option<CallerInFlight>),
    /// Nothing to record.
    Free,
}

/// The session id a request names.
pub(super) fn session_id(headers: &http::HeaderMap) -> Option<SessionId> {
    headers
        .get(SESSION_ID)
        .and_then(|value| value.to_str().ok())
        .map(SessionId::from)
}

/// Admits the request of `head` (`initialize`: its body is an `initialize` request) into
/// `table` (the module's table says how).
///
/// # Errors
///
/// [`Refusal::SessionNotFound`] for a `DELETE` of a session `rmcp` does not hold,
/// [`Refusal::CallsInFlight`] for a request in a session with
/// `max_calls_per_session` in flight, [`Refusal::SessionsBusy`] for an `initialize` when
/// every one of `max_sessions` sessions has a request in flight, [`Refusal::CallerBusy`]
/// for a request without a session whose caller has `max_calls_per_caller` in flight.
pub(super) async fn admit(
    table: &Arc<SessionTable>,
    callers: &Arc<CallerTable>,
    head: &Parts,
    initialize: bool,
) -> Result<Ticket, Refusal> {
    let admitted = admit_unlogged(table, callers, head, initialize).await;
    if let Err(refusal) = &admitted {
        log_limit(refusal);
    }
    admitted
}

/// One `warn` event (target `toolmodel_rmcp::limits`) per limit per
/// [`EVERY`](crate::server::log_throttle::EVERY) when a limit refuses a request, with how
/// many refusals of that limit were not logged since (each refusal is a `debug` event of
/// `toolmodel_rmcp::http` already, where it becomes a response: `Refusal::response`).
fn log_limit(refusal: &Refusal) {
    static SESSIONS: LogThrottle = LogThrottle::new();
    static SESSION_CALLS: LogThrottle = LogThrottle::new();
    static CALLER_CALLS: LogThrottle = LogThrottle::new();
    let (limit, value, throttle) = match refusal {
        Refusal::SessionsBusy(value) => ("max_sessions", *value, &SESSIONS),
        Refusal::CallsInFlight(value) => ("max_calls_per_session", *value, &SESSION_CALLS),
        Refusal::CallerBusy(value) => ("max_calls_per_caller", *value, &CALLER_CALLS),
        _ => return,
    };
    if let Some(suppressed) = throttle.admit() {
        tracing::warn!(
            target: "toolmodel_rmcp::limits",
            limit,
            value,
            suppressed,
            "limit reached: request refused"
        );
    }
}

async fn admit_unlogged(
    table: &Arc<SessionTable>,
    callers: &Arc<CallerTable>,
    head: &Parts,
    initialize: bool,
) -> Result<Ticket, Refusal> {
    let caller = head
        .extensions
        .get::<Arc<toolmodel::Caller>>()
        .map(Arc::as_ref);
    match (&head.method, session_id(&head.headers)) {
        (&Method::DELETE, Some(id)) => {
            if table.exists(&id).await && table.owned_by(&id, caller) {
                Ok(Ticket::Delete(id))
            } else {
                Err(Refusal::SessionNotFound)
            }
        }
        (_, Some(id)) => table.start(&id, caller).map(Ticket::InSession),
        (&Method::POST, None) => {
            if initialize {
                table.make_room().await?;
                Ok(Ticket::New(owner(caller)))
            } else {
                callers.start(caller).map(Ticket::Sessionless)
            }
        }
        (_, None) => Ok(Ticket::Free),
    }
}

impl Ticket {
    /// `response`, `rmcp`'s answer to the admitted request, after recording in `table` what
    /// it did (the module's table).
    pub(super) fn after(self, table: &SessionTable, response: Response<Body>) -> Response<Body> {
        match self {
            Self::InSession(in_flight) => {
                hold(response, in_flight).map(http_body_util::BodyExt::boxed)
            }
            Self::Sessionless(Some(in_flight)) => {
                hold(response, in_flight).map(http_body_util::BodyExt::boxed)
            }
            Self::Delete(id) => {
                if response.status().is_success() {
                    table.deleted(&id);
                }
                response
            }
            Self::New(owner) => {
                if let Some(id) = session_id(response.headers()) {
                    table.created(id, owner);
                }
                response
            }
            Self::Sessionless(None) | Self::Free => response,
        }
    }
}

#[cfg(test)]
mod tests {
    use rmcp::transport::streamable_http_server::session::{
        SessionManager as _, local::LocalSessionManager,
    };

    use super::{super::limits::HttpLimits, *};

    const INITIALIZE: &[u8] = br#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{}}"#;

    fn head(method: Method, session: Option<&str>) -> Parts {
        let mut request = http::Request::builder().method(method).uri("/mcp");
        if let Some(session) = session {
            request = request.header(SESSION_ID, session);
        }
        request.body(()).unwrap().into_parts().0
    }

    /// A table over a fresh `rmcp` session manager, with these limits.
    fn table(
        max_sessions: usize,
        max_calls: usize,
    ) -> (Arc<LocalSessionManager>, Arc<SessionTable>) {
        let manager = Arc::new(LocalSessionManager::default());
        let limits = HttpLimits::default()
            .with_max_sessions(max_sessions)
            .with_max_calls_per_session(max_calls);
        let table = Arc::new(SessionTable::new(Arc::clone(&manager), &limits));
        (manager, table)
    }

    /// [`admit`] with a caller table of the default limits.
    async fn admit(
        table: &Arc<SessionTable>,
        head: &Parts,
        body: &[u8],
    ) -> Result<Ticket, Refusal> {
        let callers = Arc::new(CallerTable::new(&HttpLimits::default()));
        super::admit(table, &callers, head, initialize(body)).await
    }

    /// A response of `rmcp` that names session `id`.
    fn naming(id: &SessionId) -> Response<Body> {
        let mut response = super::super::response::plain(http::StatusCode::OK, "");
        response
            .headers_mut()
            .insert(SESSION_ID, id.as_ref().parse().unwrap());
        response
    }

    /// Whether `body` is an `initialize`, as the front reads it.
    fn initialize(body: &[u8]) -> bool {
        super::super::message::Envelope::read(body).is_initialize()
    }

    #[test]
    fn only_initialize_is_initialize() {
        assert!(initialize(INITIALIZE));
        assert!(!initialize(
            br#"{"jsonrpc":"2.0","id":1,"method":"tools/list"}"#
        ));
        assert!(!initialize(b"not json"));
    }

    #[tokio::test]
    async fn deleting_a_session_the_server_does_not_hold_is_refused() {
        let (_, table) = table(3, 1);
        let refused = admit(&table, &head(Method::DELETE, Some("made-up")), b"").await;
        assert_eq!(refused.unwrap_err(), Refusal::SessionNotFound);
    }

    #[tokio::test]
    async fn requests_without_a_session_are_free_unless_posted() {
        let (_, table) = table(3, 1);
        let ticket = admit(&table, &head(Method::GET, None), b"").await.unwrap();
        assert!(matches!(ticket, Ticket::Free));
        let ticket = admit(&table, &head(Method::POST, None), INITIALIZE)
            .await
            .unwrap();
        assert!(matches!(ticket, Ticket::New(None)));
    }

    /// A `POST` without a session that is no `initialize` (MCP 2026-07-28) takes a place
    /// among its caller's requests in flight, and is refused past the limit.
    #[tokio::test]
    async fn a_sessionless_request_counts_against_its_caller() {
        let (_, table) = table(3, 1);
        let callers = Arc::new(CallerTable::new(
            &HttpLimits::default().with_max_calls_per_caller(1),
        ));
        let mut post = head(Method::POST, None);
        post.extensions.insert(Arc::new(toolmodel::Caller::new(
            "https://i.example",
            "alice",
        )));
        let call = br#"{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{}}"#;
        let first = super::admit(&table, &callers, &post, initialize(call))
            .await
            .unwrap();
        assert!(matches!(first, Ticket::Sessionless(Some(_))));
        let refused = super::admit(&table, &callers, &post, initialize(call)).await;
        assert_eq!(refused.unwrap_err(), Refusal::CallerBusy(1));
        drop(first);
        assert!(
            super::admit(&table, &callers, &post, initialize(call))
                .await
                .is_ok()
        );
    }

    /// A session recorded after its `initialize` holds at most `max_calls_per_session`
    /// requests in flight; a place frees when the response's body is dropped.
    #[tokio::test]
    async fn a_sessions_requests_in_flight_are_bounded() {
        let (manager, table) = table(3, 1);
        let (id, _transport) = manager.create_session().await.unwrap();
        let response = Ticket::New(None).after(&table, naming(&id));
        let post = head(Method::POST, Some(id.as_ref()));
        let first = admit(&table, &post, b"{}").await.unwrap();
        let refused = admit(&table, &post, b"{}").await.unwrap_err();
        assert_eq!(refused, Refusal::CallsInFlight(1));
        let held = first.after(&table, response);
        assert!(admit(&table, &post, b"{}").await.is_err());
        drop(held);
        assert!(matches!(
            admit(&table, &post, b"{}").await.unwrap(),
            Ticket::InSession(_)
        ));
    }

    /// At `max_sessions`, an `initialize` closes an idle session; when every session has a
    /// request in flight, it is refused and closes none.
    #[tokio::test]
    async fn an_initialize_makes_room_or_is_refused_when_all_are_busy() {
        let (manager, table) = table(1, 4);
        let (id, _transport) = manager.create_session().await.unwrap();
        let _ = Ticket::New(None).after(&table, naming(&id));
        let in_flight = admit(&table, &head(Method::POST, Some(id.as_ref())), b"{}")
            .await
            .unwrap();
        let refused = admit(&table, &head(Method::POST, None), INITIALIZE).await;
        assert_eq!(refused.unwrap_err(), Refusal::SessionsBusy(1));
        assert!(manager.has_session(&id).await.unwrap());
        drop(in_flight);
        let admitted = admit(&table, &head(Method::POST, None), INITIALIZE).await;
        assert!(matches!(admitted, Ok(Ticket::New(None))));
        assert!(!manager.has_session(&id).await.unwrap());
    }
}
