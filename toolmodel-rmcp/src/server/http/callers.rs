//! [`CallerTable`]: the requests in flight of each caller that holds no session, to bound
//! them ([`HttpLimits::max_calls_per_caller`]).
//!
//! A request of MCP 2026-07-28 carries its own state and names no session, so
//! [`HttpLimits::max_calls_per_session`] cannot bound it; this table does, per verified
//! caller (the token's issuer and subject under authorization), however many connections it
//! uses. A caller's place is held as long as the response's body, so an open event stream
//! counts. An anonymous caller (no authorization) has no identity but its connection, and an
//! HTTP/1.1 connection carries one request at a time: its requests are bounded by
//! [`HttpLimits::max_connections`] (with [`serve_http`](crate::ToolboxServer::serve_http);
//! by your own server's connection limits when you mount the service). The table holds an
//! entry only while its caller has a request in flight: its size is bounded by the requests
//! in flight.

use std::{
    collections::HashMap,
    sync::{Arc, Mutex, MutexGuard},
};

use toolmodel::Caller;

use super::{
    limits::HttpLimits,
    refusal::Refusal,
    sessions::{Owner, owner},
};
use crate::lock::lock;

/// The requests in flight of the callers that hold no session.
#[derive(Debug)]
pub(super) struct CallerTable {
    in_flight: Mutex<HashMap<Owner, usize>>,
    max_calls: usize,
}

/// A caller's request in flight; dropping it (with the response's body) ends it.
#[derive(Debug)]
pub(super) struct CallerInFlight {
    table: Arc<CallerTable>,
    key: Owner,
}

impl Drop for CallerInFlight {
    fn drop(&mut self) {
        let mut in_flight = self.table.lock();
        if let Some(count) = in_flight.get_mut(&self.key) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                in_flight.remove(&self.key);
            }
        }
    }
}

impl CallerTable {
    pub(super) fn new(limits: &HttpLimits) -> Self {
        Self {
            in_flight: Mutex::new(HashMap::new()),
            max_calls: limits.max_calls_per_caller,
        }
    }

    fn lock(&self) -> MutexGuard<'_, HashMap<Owner, usize>> {
        lock(&self.in_flight)
    }

    /// Starts a request of `caller` that names no session; `Ok(None)` for an anonymous
    /// request (no authorization), which is not counted here (module docs).
    ///
    /// # Errors
    ///
    /// [`Refusal::CallerBusy`] when the caller has `max_calls_per_caller` requests in
    /// flight.
    pub(super) fn start(
        self: &Arc<Self>,
        caller: Option<&Caller>,
    ) -> Result<Option<CallerInFlight>, Refusal> {
        let Some(key) = owner(caller) else {
            return Ok(None);
        };
        let mut in_flight = self.lock();
        let count = in_flight.entry(key.clone()).or_insert(0);
        if *count >= self.max_calls {
            return Err(Refusal::CallerBusy(self.max_calls));
        }
        *count += 1;
        Ok(Some(CallerInFlight {
            table: Arc::clone(self),
            key,
        }))
    }

    /// How many callers have a request in flight.
    #[cfg(test)]
    fn callers(&self) -> usize {
        self.lock().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_subject_is_bounded_and_others_are_not_held_up() {
        let table = Arc::new(CallerTable::new(
            &HttpLimits::default().with_max_calls_per_caller(2),
        ));
        let alice = Caller::new("https://issuer.example", "alice");
        let bob = Caller::new("https://issuer.example", "bob");
        let first = table.start(Some(&alice)).unwrap();
        let second = table.start(Some(&alice)).unwrap();
        assert_eq!(
            table.start(Some(&alice)).unwrap_err(),
            Refusal::CallerBusy(2)
        );
        assert!(table.start(Some(&bob)).unwrap().is_some());
        assert!(
            table.start(None).unwrap().is_none(),
            "anonymous: not counted"
        );
        drop(first);
        let third = table.start(Some(&alice)).unwrap();
        assert!(third.is_some());
        drop((second, third));
        assert_eq!(table.callers(), 0, "no entry outlives its requests");
    }
}
