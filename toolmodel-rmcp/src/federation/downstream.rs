//! The gateway's downstream side of what upstreams announce outside a call: their prompt and
//! resource list changes, told to every session of the gateways made of a
//! [`Federation`](super::Federation) ([`ToolboxServer::gateway`](crate::ToolboxServer::gateway)), and
//! `notifications/resources/updated`, sent to the sessions that subscribed to the URI
//! (`resources/subscribe`, MCP 2025-11-25 "Resources", Subscriptions).
//!
//! A downstream session is known by its `initialize` parameters (`rmcp` keeps one copy per
//! session): a session that skipped `initialize` (MCP 2026-07-28 has none) cannot subscribe
//! with `resources/subscribe` anyway, as that method is a 2025-11-25 one.

use std::sync::{Arc, Mutex};

use rmcp::{
    Peer, RoleServer,
    model::{InitializeRequestParams, ResourceUpdatedNotificationParam},
};
use tokio::runtime::Handle;

use crate::lock::lock;
use crate::server::list_changed::ListChanged;
use crate::task_set::TaskSet;

/// Whom to tell what the upstreams announce; one per federation.
#[derive(Default)]
pub(crate) struct Downstream {
    /// The sessions of every server the federation serves.
    servers: Mutex<Vec<ListChanged>>,
    /// Who subscribed to which URI.
    subscriptions: Mutex<Vec<Subscriber>>,
    /// The `notifications/resources/updated` on their way, aborted with the federation.
    sending: TaskSet,
}

/// One downstream session subscribed to one URI.
struct Subscriber {
    uri: String,
    peer: Peer<RoleServer>,
    runtime: Handle,
}

/// Which session a peer is: its `initialize` parameters, one `Arc` per session.
fn session_of(peer: &Peer<RoleServer>) -> Option<Arc<InitializeRequestParams>> {
    peer.peer_info()
}

/// Whether two peers are the same session (both went through `initialize`).
fn same_session(a: &Peer<RoleServer>, b: &Peer<RoleServer>) -> bool {
    match (session_of(a), session_of(b)) {
        (Some(a), Some(b)) => Arc::ptr_eq(&a, &b),
        _ => false,
    }
}

impl Downstream {
    /// Tells the sessions of `server` too, from now on.
    pub(crate) fn serve(&self, server: ListChanged) {
        lock(&self.servers).push(server);
    }

    /// `notifications/prompts/list_changed` to every session.
    pub(crate) fn prompts_changed(&self) {
        for server in lock(&self.servers).iter() {
            server.each_session(|peer| async move {
                let _ = peer.notify_prompt_list_changed().await;
            });
        }
    }

    /// `notifications/resources/list_changed` to every session.
    pub(crate) fn resources_changed(&self) {
        for server in lock(&self.servers).iter() {
            server.each_session(|peer| async move {
                let _ = peer.notify_resource_list_changed().await;
            });
        }
    }

    /// Records that `peer`'s session subscribed to `uri`; true when it is the first live
    /// subscriber of `uri` (the gateway subscribes upstream then).
    pub(crate) fn subscribe(&self, uri: &str, peer: Peer<RoleServer>) -> bool {
        let mut subscribers = lock(&self.subscriptions);
        subscribers.retain(|s| !s.peer.is_transport_closed());
        let first = !subscribers.iter().any(|s| s.uri == uri);
        let known = subscribers
            .iter()
            .any(|s| s.uri == uri && same_session(&s.peer, &peer));
        if !known && let Ok(runtime) = Handle::try_current() {
            subscribers.push(Subscriber {
                uri: uri.to_owned(),
                peer,
                runtime,
            });
        }
        first
    }

    /// Forgets that `peer`'s session subscribed to `uri`; true when no live subscriber of
    /// `uri` is left (the gateway unsubscribes upstream then).
    pub(crate) fn unsubscribe(&self, uri: &str, peer: &Peer<RoleServer>) -> bool {
        let mut subscribers = lock(&self.subscriptions);
        let leaving = |s: &Subscriber| s.uri == uri && same_session(&s.peer, peer);
        subscribers.retain(|s| !s.peer.is_transport_closed() && !leaving(s));
        !subscribers.iter().any(|s| s.uri == uri)
    }

    /// `notifications/resources/updated` to every live session subscribed to its URI.
    pub(crate) fn resource_updated(&self, params: &ResourceUpdatedNotificationParam) {
        let mut subscribers = lock(&self.subscriptions);
        subscribers.retain(|s| !s.peer.is_transport_closed());
        for subscriber in subscribers.iter().filter(|s| s.uri == params.uri) {
            let peer = subscriber.peer.clone();
            let params = params.clone();
            self.sending.spawn_on(&subscriber.runtime, async move {
                let _ = peer.notify_resource_updated(params).await;
            });
        }
    }
}
