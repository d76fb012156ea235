//! The clock of a 2025-era session (one that began with `initialize`), for
//! `mcp.server.session.duration` and the sessions open: started by `initialize`, read when the
//! session's server is dropped (its transport closed, `DELETE`, idle expiry).

use std::{sync::OnceLock, time::Instant};

use super::metrics;

/// One session's clock; shared by the clones of its server.
#[derive(Debug)]
pub(crate) struct SessionClock {
    transport: &'static str,
    opened: OnceLock<(Instant, Option<String>)>,
}

impl SessionClock {
    /// The clock of a session over `transport` (`tcp` or `pipe`), not started.
    pub(crate) fn new(transport: &'static str) -> Self {
        Self {
            transport,
            opened: OnceLock::new(),
        }
    }

    /// `initialize` answered under `protocol_version`: the session is open (once).
    pub(crate) fn open(&self, protocol_version: Option<String>) {
        let mut first = false;
        self.opened.get_or_init(|| {
            first = true;
            (Instant::now(), protocol_version)
        });
        if first {
            metrics::session(1, None, None, self.transport);
        }
    }
}

impl Drop for SessionClock {
    fn drop(&mut self) {
        if let Some((opened, version)) = self.opened.get() {
            metrics::session(
                -1,
                Some(opened.elapsed()),
                version.as_deref(),
                self.transport,
            );
        }
    }
}
