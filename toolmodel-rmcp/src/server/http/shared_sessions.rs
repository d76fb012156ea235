//! The shared-sessions stage: what a shared session store
//! ([`ToolboxServer::with_session_store`](crate::ToolboxServer::with_session_store)) changes
//! for a request that names a session, around `rmcp`'s own serving ([`Relay`] does the work).
//!
//! | request | before `rmcp` | after |
//! |---|---|---|
//! | any, in a session this replica does not hold | read from the store (404 when it has no such session or it is another user's; 503 when it cannot be reached); `rmcp` then replays its `initialize` here | the record read is forgotten if `rmcp` did not take it |
//! | `DELETE` | deleted from the store, here and on every replica: 202, answered here | — |
//! | the client's answer to another replica's request | sent to that replica: 202, answered here (400 with a JSON-RPC error when it is gone) | — |
//! | `notifications/cancelled`, `notifications/progress` | sent to every replica as well | — |
//! | `logging/setLevel` | — | the level goes to the store and every replica's copy |
//! | `initialize` (no session yet) | — | the new session is recorded in the store (503, and the session closed, when it cannot be) |

use std::sync::Arc;

use bytes::Bytes;
use http::{Method, Response, StatusCode, request::Parts};
use rmcp::transport::streamable_http_server::session::SessionId;
use serde_json::Value;
use toolmodel::{Caller, peer::LoggingLevel};

use super::{
    admission::{Ticket, session_id},
    message::Envelope,
    refusal::Refusal,
    response::{Body, empty},
    sessions::{SessionTable, owns},
};
use crate::sessions::relay::{Found, Relay};

/// Admits the request of `head` in session `id` (the module's table, "before"): `Some` with
/// the response of a `DELETE`, answered here; `None` when `rmcp` serves the request.
///
/// # Errors
///
/// [`Refusal::SessionNotFound`] for a session the store does not have or another user's;
/// [`Refusal::SessionStoreUnavailable`] when the store cannot be reached; what
/// [`SessionTable::make_room`] refuses for a copy this replica must make.
pub(super) async fn admit(
    relay: &Arc<Relay>,
    table: &SessionTable,
    id: &SessionId,
    head: &Parts,
) -> Result<Option<Response<Body>>, Refusal> {
    let caller = head.extensions.get::<Arc<Caller>>().map(Arc::as_ref);
    let owned = match relay.restore(id).await {
        Ok(Found::Here) => table.owned_by(id, caller),
        Ok(Found::Stored(owner)) => {
            let owned = owns(owner.as_ref(), caller);
            if owned && head.method != Method::DELETE {
                // A copy held here counts among `max_sessions` as any session.
                table.make_room().await?;
                table.adopt(id, owner);
            }
            owned
        }
        Ok(Found::Missing) => false,
        Err(_) => return Err(Refusal::SessionStoreUnavailable),
    };
    if !owned {
        relay.restored(id);
        return Err(Refusal::SessionNotFound);
    }
    if head.method != Method::DELETE {
        return Ok(None);
    }
    // Deleted from the store, then here and on every replica (202 Accepted, as `rmcp`
    // answers); when the store cannot be reached, nothing is deleted.
    relay.restored(id);
    relay
        .delete(id)
        .await
        .map_err(|_| Refusal::SessionStoreUnavailable)?;
    table.deleted(id);
    Ok(Some(empty(StatusCode::ACCEPTED)))
}

/// What goes to other replicas of a body in session `id` (`None`: nothing is answered here,
/// `rmcp` serves it):
/// - the client's answer to a request another replica sent goes to that replica (202
///   Accepted; 400 with a JSON-RPC error when no replica waits for it: the replica is gone;
///   503 when the store cannot be reached);
/// - a `notifications/cancelled` or `notifications/progress` goes to every replica too (one
///   of them may be running the request it names), and to `rmcp` here.
pub(super) async fn across(
    relay: &Arc<Relay>,
    id: &SessionId,
    envelope: Option<&Envelope>,
    body: &Bytes,
) -> Option<Result<Response<Body>, Refusal>> {
    let Some(Envelope::Messages(heads)) = envelope else {
        return None;
    };
    let [one] = heads.as_slice() else {
        return None;
    };
    match (one.method.as_deref(), &one.id) {
        (None, Some(answer_id)) => {
            let to = relay.answers_another(answer_id)?;
            let message: Value = serde_json::from_slice(body).ok()?;
            Some(match relay.forward_answer(id, to, message).await {
                Ok(true) => Ok(empty(StatusCode::ACCEPTED)),
                Ok(false) => Err(Refusal::NoReplicaWaiting(answer_id.to_string())),
                Err(_) => Err(Refusal::SessionStoreUnavailable),
            })
        }
        (Some("notifications/cancelled" | "notifications/progress"), _) => {
            if let Ok(message) = serde_json::from_slice::<Value>(body) {
                relay.broadcast(id, message);
            }
            None
        }
        _ => None,
    }
}

/// The level a body that is one `logging/setLevel` request asks for.
pub(super) fn asked_level(envelope: Option<&Envelope>, body: &Bytes) -> Option<LoggingLevel> {
    #[derive(serde::Deserialize)]
    struct Params {
        level: LoggingLevel,
    }
    #[derive(serde::Deserialize)]
    struct Request {
        params: Params,
    }
    let Some(Envelope::Messages(heads)) = envelope else {
        return None;
    };
    let [one] = heads.as_slice() else {
        return None;
    };
    if one.method.as_deref() != Some("logging/setLevel") {
        return None;
    }
    let request: Request = serde_json::from_slice(body).ok()?;
    Some(request.params.level)
}

/// After `rmcp` answered `response` to a request admitted with `ticket`, in `session` when it
/// named one (the module's table, "after").
///
/// # Errors
///
/// For an `initialize` whose session the store cannot record:
/// [`Refusal::SessionStoreFull`] at its limit, [`Refusal::SessionStoreUnavailable`] when it
/// cannot be reached (the session is closed either way).
pub(super) async fn after(
    relay: &Arc<Relay>,
    ticket: &Ticket,
    session: Option<&SessionId>,
    response: &Response<Body>,
    asked_level: Option<LoggingLevel>,
) -> Result<(), Refusal> {
    match (ticket, session) {
        (Ticket::New(owner), None) => {
            if let Some(id) = session_id(response.headers()) {
                relay
                    .created(&id, owner.clone())
                    .await
                    .map_err(|err| Refusal::from_store(&err))?;
            }
        }
        (_, Some(id)) => {
            relay.restored(id);
            if response.status().is_success()
                && let Some(level) = asked_level
            {
                relay.level_set(id, level);
            }
        }
        _ => {}
    }
    Ok(())
}
