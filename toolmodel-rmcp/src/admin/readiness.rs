//! Readiness checks: named async checks, run at once for each `GET /readyz`, each bounded by
//! [`CHECK_TIMEOUT`], and the JSON that says how each went.

use std::{collections::BTreeMap, future::Future, pin::Pin, sync::Arc, time::Duration};

use serde_json::{Map, Value, json};

/// How long one readiness check may take before it fails (`no answer within 1000 ms`).
pub const CHECK_TIMEOUT: Duration = Duration::from_secs(1);

/// A readiness check's future: `Ok(())` when ready, else the reason.
pub(crate) type CheckFuture = Pin<Box<dyn Future<Output = Result<(), String>> + Send>>;

/// A readiness check.
pub(crate) type Check = Arc<dyn Fn() -> CheckFuture + Send + Sync>;

/// The readiness checks, by name.
#[derive(Clone, Default)]
pub(crate) struct Checks(BTreeMap<String, Check>);

/// How the checks went: whether all passed, and the JSON body of `/readyz`.
pub(crate) struct Verdict {
    pub(crate) ready: bool,
    pub(crate) body: Value,
}

impl Checks {
    pub(crate) fn insert(&mut self, name: String, check: Check) {
        self.0.insert(name, check);
    }

    pub(crate) fn names(&self) -> Vec<&str> {
        self.0.keys().map(String::as_str).collect()
    }

    /// Runs every check at once, each for at most [`CHECK_TIMEOUT`].
    pub(crate) async fn run(&self) -> Verdict {
        let mut running = tokio::task::JoinSet::new();
        let mut names = std::collections::HashMap::with_capacity(self.0.len());
        for (name, check) in &self.0 {
            let check = check();
            let task = running.spawn(async move {
                match tokio::time::timeout(CHECK_TIMEOUT, check).await {
                    Ok(outcome) => outcome,
                    Err(_) => Err(format!("no answer within {} ms", CHECK_TIMEOUT.as_millis())),
                }
            });
            names.insert(task.id(), name.clone());
        }
        let mut outcomes: BTreeMap<String, Result<(), String>> = BTreeMap::new();
        while let Some(joined) = running.join_next_with_id().await {
            let (id, outcome) = match joined {
                Ok((id, outcome)) => (id, outcome),
                Err(err) => (err.id(), Err("the check panicked".to_owned())),
            };
            if let Some(name) = names.remove(&id) {
                outcomes.insert(name, outcome);
            }
        }
        let ready = outcomes.values().all(Result::is_ok);
        let checks: Map<String, Value> = outcomes
            .into_iter()
            .map(|(name, outcome)| {
                let report = match outcome {
                    Ok(()) => json!({"ok": true}),
                    Err(reason) => json!({"ok": false, "reason": reason}),
                };
                (name, report)
            })
            .collect();
        Verdict {
            ready,
            body: json!({"ready": ready, "checks": checks}),
        }
    }
}
