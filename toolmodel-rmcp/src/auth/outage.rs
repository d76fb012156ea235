//! [`Outages`]: whether each of the issuer's endpoints answered its last request, so that an
//! unreachable authorization server is logged once when it starts failing (`warn`) and once
//! when it answers again (`info`), not for each request it fails (target
//! `toolmodel_rmcp::auth`).

use std::sync::atomic::{AtomicBool, Ordering};

/// The `tracing` target of authorization's events.
pub(crate) const TARGET: &str = "toolmodel_rmcp::auth";

/// Whether one endpoint is failing.
#[derive(Debug, Default)]
pub(crate) struct Outage {
    down: AtomicBool,
}

impl Outage {
    /// A request to `endpoint` (its kind: `discovery`, `jwks`, `introspection`) of `issuer`
    /// failed (`error`, which never holds a token): logged when it answered before.
    pub(crate) fn failed(&self, endpoint: &'static str, issuer: &str, error: &str) {
        if !self.down.swap(true, Ordering::AcqRel) {
            tracing::warn!(
                target: TARGET,
                endpoint,
                issuer,
                error,
                "authorization server unreachable: tokens it must verify are refused with 503 until it answers"
            );
        }
    }

    /// A request to `endpoint` of `issuer` was answered: logged when it failed before.
    pub(crate) fn reached(&self, endpoint: &'static str, issuer: &str) {
        if self.down.swap(false, Ordering::AcqRel) {
            tracing::info!(
                target: TARGET,
                endpoint,
                issuer,
                "authorization server reachable again"
            );
        }
    }
}

/// The outage of each endpoint of the issuer.
#[derive(Debug, Default)]
pub(crate) struct Outages {
    /// Its metadata (RFC 8414, OpenID Connect Discovery).
    pub(crate) discovery: Outage,
    /// Its JSON Web Key Set.
    pub(crate) jwks: Outage,
    /// Its introspection endpoint (RFC 7662).
    pub(crate) introspection: Outage,
}
