//! What the scale clients share (`scale_client.rs`, `legacy_client.rs`, each including this
//! file with `#[path]`): a run bounded in time.

use std::{future::Future, time::Duration};

/// What `run` gives within `limit`; exits with status 1 (the reason on stderr, after
/// `what:`) when it fails or takes longer.
pub async fn within_limit<T>(
    what: &str,
    limit: Duration,
    run: impl Future<Output = Result<T, String>>,
) -> T {
    match tokio::time::timeout(limit, run).await {
        Ok(Ok(value)) => value,
        Ok(Err(why)) => {
            eprintln!("{what}: {why}");
            std::process::exit(1);
        }
        Err(_) => {
            eprintln!("{what}: the run did not end in {limit:?}");
            std::process::exit(1);
        }
    }
}
