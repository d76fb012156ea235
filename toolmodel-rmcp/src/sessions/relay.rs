//! The relay between replicas sharing a session store.

/// One `warn` event: a relayed message for `replica` was dropped, its queue full.
pub(crate) fn dropped(replica: &str) {
    tracing::warn!(
        target: "toolmodel_rmcp::sessions",
        replica,
        queue = super::RELAY_QUEUE,
        "a relayed session message was dropped: the replica's queue is full"
    );
}
