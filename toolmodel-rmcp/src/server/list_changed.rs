//! [`ListChanged`]: telling clients that the tool list changed, with
//! `notifications/tools/list_changed`, the two ways MCP has.
//!
//! - **Sessions** (MCP 2025-11-25 and older, "Tools", List Changed Notification): a server
//!   that declares `tools.listChanged` SHOULD send it when the list changes. Every session
//!   that went through `initialize` (stdio, or a Streamable HTTP session) is held here, with
//!   the runtime that serves it; each change is sent to each live one from a task on that
//!   runtime, and sessions whose transport has closed are forgotten. `initialize` never
//!   negotiates 2026-07-28 (it has no handshake), so these are all older sessions.
//! - **Subscriptions** (MCP 2026-07-28, "Subscriptions"): there are no sessions, and a server
//!   MUST NOT send a notification the client did not ask for. A client opens a
//!   `subscriptions/listen` stream with `toolsListChanged: true`; `rmcp` acknowledges it
//!   (`notifications/subscriptions/acknowledged` with the subset this server honors: only
//!   `toolsListChanged`, the other types omitted, as "Subscriptions", Acknowledgment, says),
//!   then [`ListChanged::listen`] sends the notification on the stream (with its
//!   `io.modelcontextprotocol/subscriptionId`) on each change until the client cancels it or
//!   the connection ends. A stream that asks for nothing this server honors is acknowledged
//!   with an empty filter and sent nothing.

use std::sync::{Arc, Mutex, MutexGuard};

use crate::lock::lock;
use crate::task_set::TaskSet;
use rmcp::{
    ErrorData, Peer, RoleServer,
    model::SubscriptionFilter,
    service::{SubscriptionContext, SubscriptionSendError},
};
use tokio::{runtime::Handle, sync::watch};

/// The sessions and subscriptions to tell, shared by every clone and session of a server.
#[derive(Clone)]
pub(crate) struct ListChanged(Arc<Inner>);

struct Inner {
    /// The sessions that went through `initialize`, each with the runtime that serves it.
    sessions: Mutex<Vec<(Peer<RoleServer>, Handle)>>,
    /// Counts the changes: each subscription waits for the next.
    changes: watch::Sender<u64>,
    /// The notifications on their way, aborted when the last server is dropped.
    sending: TaskSet,
}

impl Default for ListChanged {
    fn default() -> Self {
        Self(Arc::new(Inner {
            sessions: Mutex::new(Vec::new()),
            changes: watch::channel(0).0,
            sending: TaskSet::default(),
        }))
    }
}

impl std::fmt::Debug for ListChanged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let sessions = self.sessions().len();
        let subscriptions = self.0.changes.receiver_count();
        write!(
            f,
            "ListChanged({sessions} sessions, {subscriptions} subscriptions)"
        )
    }
}

impl ListChanged {
    fn sessions(&self) -> MutexGuard<'_, Vec<(Peer<RoleServer>, Handle)>> {
        // The list is only pushed to and pruned: a poisoned lock holds a whole list.
        lock(&self.0.sessions)
    }

    /// Holds the session of `peer`, which is going through `initialize` on the current
    /// runtime, and forgets those whose transport has closed. Outside a runtime there is no
    /// session to hold (`rmcp` serves on one).
    pub(crate) fn add_session(&self, peer: Peer<RoleServer>) {
        let Ok(runtime) = Handle::try_current() else {
            return;
        };
        let mut sessions = self.sessions();
        sessions.retain(|(peer, _)| !peer.is_transport_closed());
        sessions.push((peer, runtime));
    }

    /// Tells every live session and every subscription that the list changed. Returns at
    /// once: each session's notification is sent from a task of its own, on its runtime.
    pub(crate) fn notify(&self) {
        self.0
            .changes
            .send_modify(|count| *count = count.wrapping_add(1));
        self.each_session(|peer| async move {
            // A session that closed meanwhile has nobody left to tell.
            let _ = peer.notify_tool_list_changed().await;
        });
    }

    /// Runs `send` with the peer of every live session, each from a task of its own on the
    /// session's runtime, and forgets the sessions whose transport has closed. Returns at once.
    /// The federation's passthrough tells sessions of prompt and resource list changes so.
    pub(crate) fn each_session<F, Fut>(&self, send: F)
    where
        F: Fn(Peer<RoleServer>) -> Fut,
        Fut: std::future::Future<Output = ()> + Send + 'static,
    {
        let mut sessions = self.sessions();
        sessions.retain(|(peer, _)| !peer.is_transport_closed());
        for (peer, runtime) in sessions.iter() {
            self.0.sending.spawn_on(runtime, send(peer.clone()));
        }
    }

    /// The filter a `subscriptions/listen` stream asking for `requested` is granted: the
    /// subset this server honors, `toolsListChanged` when asked for and nothing else (MCP
    /// 2026-07-28, "Subscriptions", Acknowledgment: "Notification types the server does not
    /// support are omitted"). A stream that asks for nothing it honors (only prompt or resource
    /// changes, which a composed handler's clients may ask for) is acknowledged with an empty
    /// filter, so its client learns that none will come; a server that declares
    /// `tools.listChanged` answers every stream, never `-32601`.
    pub(crate) fn accepted_filter(requested: &SubscriptionFilter) -> SubscriptionFilter {
        if requested.tools_list_changed == Some(true) {
            SubscriptionFilter::builder().tools_list_changed().build()
        } else {
            SubscriptionFilter::new()
        }
    }

    /// Serves one `subscriptions/listen` stream until the client cancels it or the
    /// connection ends: `notifications/tools/list_changed` on each change, when the stream's
    /// accepted filter has `toolsListChanged`.
    ///
    /// `rmcp` sends the acknowledgment before it calls this, so a change between the two
    /// (the time it takes to poll this once) is not sent on the stream.
    ///
    /// # Errors
    ///
    /// JSON-RPC `-32603` when a notification cannot be sent for another reason than the
    /// stream having ended (then `rmcp` answers the `subscriptions/listen` request with it).
    pub(crate) async fn listen(&self, subscription: SubscriptionContext) -> Result<(), ErrorData> {
        if subscription.accepted().tools_list_changed != Some(true) {
            subscription.cancelled().await;
            return Ok(());
        }
        let mut changes = self.0.changes.subscribe();
        loop {
            tokio::select! {
                () = subscription.cancelled() => return Ok(()),
                changed = changes.changed() => {
                    // The sender lives as long as `self`, which this borrows.
                    if changed.is_err() {
                        return Ok(());
                    }
                }
            }
            match subscription.sink().notify_tool_list_changed().await {
                Ok(()) => {}
                Err(SubscriptionSendError::SubscriptionClosed) => return Ok(()),
                Err(err) => {
                    return Err(ErrorData::internal_error(
                        format!("notifications/tools/list_changed: {err}"),
                        None,
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use rmcp::{ServerHandler, ServiceExt as _, model::InitializeRequestParams};

    use super::*;

    /// Holds each session at `initialize`, as `ToolboxServer` does.
    #[derive(Clone, Default)]
    struct Holding(ListChanged);

    impl ServerHandler for Holding {
        async fn initialize(
            &self,
            request: InitializeRequestParams,
            context: rmcp::service::RequestContext<RoleServer>,
        ) -> Result<rmcp::model::InitializeResult, ErrorData> {
            self.0.add_session(context.peer);
            self.negotiate_initialize(&request)
        }
    }

    async fn connect(server: Holding) -> rmcp::service::RunningService<rmcp::RoleClient, ()> {
        let (client_io, server_io) = tokio::io::duplex(1 << 16);
        tokio::spawn(async move {
            if let Ok(running) = server.serve(server_io).await {
                let _ = running.waiting().await;
            }
        });
        ().serve(client_io).await.unwrap()
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn closed_sessions_are_forgotten() {
        let server = Holding::default();
        let first = connect(server.clone()).await;
        let second = connect(server.clone()).await;
        assert_eq!(server.0.sessions().len(), 2);
        first.cancel().await.unwrap();
        // The server side ends its session once it sees the transport close.
        for _ in 0..100 {
            server.0.notify();
            if server.0.sessions().len() == 1 {
                break;
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        assert_eq!(server.0.sessions().len(), 1);
        second.cancel().await.unwrap();
    }
}
