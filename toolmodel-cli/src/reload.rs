//! `toolmodel gateway`'s configuration reloaded while it serves: on `SIGHUP`, and when the
//! file's content changes ([`watch`]).
//!
//! **Why the file is read every second rather than watched with inotify** (the `notify`
//! crate): editors save by writing a new file and renaming it over the old one, and
//! Kubernetes replaces a mounted ConfigMap by swapping a symbolic link; a watch on the file
//! follows the old inode and hears nothing after the first save, so a watcher must watch the
//! directory, match names, debounce the bursts of events a save makes and watch again after a
//! delete. Reading a configuration file of a few kilobytes once a second and comparing it
//! with the last one read sees every one of those cases (a file deleted, then created again,
//! included), costs nothing measurable, and brings no dependency; the price is up to a second
//! before a change is seen. A content read while a writer is not done yet (a writer that
//! truncates, then writes) is taken once it has stayed the same for [`SETTLE`].
//!
//! Each reload runs the checks of `--check-config` (`gateway_config`) with the gateway's own
//! options; a configuration that fails them is refused with one log line naming each
//! problem, and the running one is kept. A good one is handed to
//! [`Federation::reconfigure`], and the log line says what it did:
//! `reloaded FILE: added [..] removed [..] changed [..]`.

use std::{convert::Infallible, time::Duration};

use toolmodel_rmcp::federation::Federation;

use crate::cli::GatewayArgs;
use crate::gateway_config;
use crate::text::Chain;

/// How often the configuration file is read for a change.
pub(crate) const POLL: Duration = Duration::from_secs(1);

/// How long a changed content must stay the same before it is reloaded.
pub(crate) const SETTLE: Duration = Duration::from_millis(200);

/// The target of the gateway's log lines.
const TARGET: &str = "toolmodel::gateway";

/// What asks for a reload.
#[derive(Clone, Copy, Debug)]
enum Trigger {
    Hangup,
    FileChanged,
}

impl Trigger {
    fn as_str(self) -> &'static str {
        match self {
            Self::Hangup => "SIGHUP",
            Self::FileChanged => "file changed",
        }
    }
}

/// `SIGHUP`, registered before the gateway starts its upstreams (its default action would end
/// the process); never on a platform without it.
pub(crate) struct Hangups {
    #[cfg(unix)]
    signal: Option<tokio::signal::unix::Signal>,
}

impl Hangups {
    /// Registers the handler (on the current runtime).
    pub(crate) fn register() -> Self {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            let signal = signal(SignalKind::hangup())
                .inspect_err(|err| {
                    tracing::warn!(target: TARGET, error = %err, "no SIGHUP handler: the configuration reloads when the file changes only");
                })
                .ok();
            Self { signal }
        }
        #[cfg(not(unix))]
        Self {}
    }

    /// The next `SIGHUP`.
    async fn next(&mut self) {
        #[cfg(unix)]
        if let Some(signal) = &mut self.signal
            && signal.recv().await.is_some()
        {
            return;
        }
        std::future::pending::<()>().await;
    }
}

/// The content of `--config` now (`None`: it cannot be read, say deleted).
pub(crate) fn read(args: &GatewayArgs) -> Option<Vec<u8>> {
    std::fs::read(&args.config).ok()
}

/// Reloads `--config` into `federation` on each `SIGHUP` of `hangups` and each change of the
/// file's content from `seen` (what the gateway started with); runs until dropped.
pub(crate) async fn watch(
    args: &GatewayArgs,
    federation: &Federation,
    mut seen: Option<Vec<u8>>,
    mut hangups: Hangups,
) -> Infallible {
    let mut poll = tokio::time::interval(POLL);
    poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        let trigger = tokio::select! {
            () = hangups.next() => Trigger::Hangup,
            _ = poll.tick() => {
                let now = read(args);
                if now == seen {
                    continue;
                }
                tokio::time::sleep(SETTLE).await;
                if read(args) != now {
                    continue;
                }
                Trigger::FileChanged
            }
        };
        seen = read(args);
        reload(args, federation, trigger).await;
    }
}

/// Checks `--config` and, when it passes, reconfigures `federation` with it; one log line
/// either way.
async fn reload(args: &GatewayArgs, federation: &Federation, trigger: Trigger) {
    let file = args.config.display().to_string();
    let trigger = trigger.as_str();
    let checked = gateway_config::check(args);
    for note in &checked.notes {
        tracing::info!(target: TARGET, file, "note: {note}");
    }
    let mut config = match checked.usable() {
        Ok(config) => config,
        Err(problems) => {
            tracing::error!(
                target: TARGET,
                file,
                trigger,
                "reload of {file} refused, the running configuration is kept: {}",
                problems.join("; ")
            );
            return;
        }
    };
    // New rules share through Redis as those at start did; the same rules keep theirs
    // (`reconfigure` keeps the limits in force when they are equal).
    if federation.config().rate_limits != config.rate_limits
        && let Err(err) = crate::gateway::share_rate_limits(&mut config).await
    {
        tracing::error!(
            target: TARGET,
            file,
            trigger,
            "reload of {file} refused, the running configuration is kept: {}",
            Chain(&err)
        );
        return;
    }
    match federation.reconfigure(config).await {
        Ok(report) => {
            tracing::info!(
                target: TARGET,
                file,
                trigger,
                unchanged = ?report.unchanged,
                "reloaded {file}: {report}"
            );
            if !report.unavailable.is_empty() {
                tracing::warn!(
                    target: TARGET,
                    servers = ?report.unavailable,
                    "reloaded {file}: servers {:?} did not answer; tried again in the background",
                    report.unavailable
                );
            }
            for renamed in &report.renamed {
                tracing::warn!(target: TARGET, "reloaded {file}: {renamed}");
            }
        }
        Err(err) => tracing::error!(
            target: TARGET,
            file,
            trigger,
            "reloaded {file}, but the toolbox could not be rebuilt (the one before is served): {}",
            Chain(&err)
        ),
    }
}
