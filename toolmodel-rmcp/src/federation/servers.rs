//! [`Servers`]: the configuration a federation runs now with its enabled servers' upstreams,
//! replaced whole by [`Federation::reconfigure`](super::Federation::reconfigure); and
//! [`Diff`]: what a new configuration does to them, server by server.

use std::sync::Arc;

use crate::federation::config::{FederationConfig, UpstreamConfig};
use crate::federation::credentials::Exchanger;
use crate::federation::upstream::Upstream;

/// The configuration in force and one upstream per enabled server, in configuration order
/// (sorted by name).
pub(crate) struct Servers {
    pub(crate) config: FederationConfig,
    pub(crate) upstreams: Vec<Arc<Upstream>>,
    /// The gateway's client at its authorization server, which the credentialed servers'
    /// sessions obtain their tokens from (`None` without credentialed servers).
    pub(crate) exchanger: Option<Arc<Exchanger>>,
}

impl Servers {
    /// The upstream of the server named `name`, if it is enabled.
    pub(crate) fn named(&self, name: &str) -> Option<&Arc<Upstream>> {
        self.upstreams
            .iter()
            .find(|upstream| upstream.config.name == name)
    }

    /// Whether `upstream` is the one serving its name (not one a reconfiguration replaced or
    /// removed).
    pub(crate) fn holds(&self, upstream: &Upstream) -> bool {
        self.named(&upstream.config.name)
            .is_some_and(|current| std::ptr::eq(Arc::as_ptr(current), upstream))
    }
}

/// What a new configuration does to the enabled servers of the one in force: servers are
/// matched by name, and a server whose whole configuration ([`UpstreamConfig`], its secrets
/// and timeouts included) is equal is unchanged.
pub(crate) struct Diff<'a> {
    /// Unchanged: their upstream is kept (same session, same child process).
    pub(crate) kept: Vec<Arc<Upstream>>,
    /// Enabled by the new configuration only.
    pub(crate) added: Vec<&'a UpstreamConfig>,
    /// In both, configured otherwise: a new upstream replaces the old one.
    pub(crate) changed: Vec<&'a UpstreamConfig>,
    /// Enabled in the old configuration only (removed, or disabled).
    pub(crate) removed: Vec<Arc<Upstream>>,
    /// The old upstreams of `changed`.
    pub(crate) replaced: Vec<Arc<Upstream>>,
}

impl<'a> Diff<'a> {
    /// What `new` does to `current`. With `new_exchanger` (the gateway's exchange client
    /// changed) every credentialed server counts as changed: its sessions obtain their tokens
    /// from the new client.
    pub(crate) fn new(current: &Servers, new: &'a FederationConfig, new_exchanger: bool) -> Self {
        let mut diff = Self {
            kept: Vec::new(),
            added: Vec::new(),
            changed: Vec::new(),
            removed: Vec::new(),
            replaced: Vec::new(),
        };
        for server in new.enabled() {
            match current.named(&server.name) {
                None => diff.added.push(server),
                Some(old)
                    if old.config == *server
                        && !(new_exchanger && server.credentials.is_some()) =>
                {
                    diff.kept.push(Arc::clone(old));
                }
                Some(old) => {
                    diff.changed.push(server);
                    diff.replaced.push(Arc::clone(old));
                }
            }
        }
        diff.removed = current
            .upstreams
            .iter()
            .filter(|old| !new.enabled().any(|server| server.name == old.config.name))
            .cloned()
            .collect();
        diff
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::federation::config::StdioTransport;
    use crate::federation::downstream::Downstream;

    fn upstream(config: UpstreamConfig) -> Arc<Upstream> {
        Arc::new(Upstream::new(
            config,
            Arc::new(|| {}),
            Arc::new(Downstream::default()),
            (None, None),
        ))
    }

    fn server(name: &str, arg: &str) -> UpstreamConfig {
        UpstreamConfig::stdio(name, StdioTransport::new("server").with_arg(arg))
    }

    fn names(upstreams: &[Arc<Upstream>]) -> Vec<&str> {
        upstreams
            .iter()
            .map(|upstream| upstream.config.name.as_str())
            .collect()
    }

    #[test]
    fn servers_are_matched_by_name_and_compared_by_their_whole_configuration() {
        let old = FederationConfig::builder()
            .with_upstream(server("kept", "1"))
            .with_upstream(server("changed", "1"))
            .with_upstream(server("removed", "1"))
            .with_upstream(server("disabled", "1"))
            .build()
            .unwrap();
        let current = Servers {
            upstreams: old.enabled().cloned().map(upstream).collect(),
            config: old,
            exchanger: None,
        };
        let mut disabled = server("disabled", "1");
        disabled.enabled = false;
        let new = FederationConfig::builder()
            .with_upstream(server("kept", "1"))
            .with_upstream(server("changed", "2"))
            .with_upstream(server("added", "1"))
            .with_upstream(disabled)
            .build()
            .unwrap();
        let diff = Diff::new(&current, &new, false);
        assert_eq!(names(&diff.kept), ["kept"]);
        assert!(Arc::ptr_eq(&diff.kept[0], current.named("kept").unwrap()));
        let added: Vec<&str> = diff.added.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(added, ["added"]);
        assert_eq!(diff.changed[0].transport, server("changed", "2").transport);
        assert_eq!(names(&diff.replaced), ["changed"]);
        assert_eq!(names(&diff.removed), ["disabled", "removed"]);
        assert!(current.holds(&diff.replaced[0]));
        assert!(!current.holds(&upstream(server("kept", "1"))));
    }
}
