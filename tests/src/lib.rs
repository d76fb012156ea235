//! Shared helpers of the integration and conformance tests: where `../shared` is.

use std::path::PathBuf;

/// The `shared/` data folder: `$TOOLMODEL_SHARED`, else `../shared` beside the workspace.
///
/// Returns `None` (after printing a notice) when it is missing and `CI` is not set; panics when
/// it is missing and `CI` is set, because then a missing data folder is a test failure.
#[must_use]
pub fn shared_dir(what: &str) -> Option<PathBuf> {
    let dir = std::env::var_os("TOOLMODEL_SHARED").map_or_else(
        || PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../shared"),
        PathBuf::from,
    );
    let target = dir.join(what);
    if target.exists() {
        return Some(target);
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "shared data {} is missing and CI is set",
        target.display()
    );
    println!(
        "notice: skipping, shared data {} is missing",
        target.display()
    );
    None
}

/// The README's Rust examples, compiled and run as doc tests.
#[doc = include_str!("../../README.md")]
#[cfg(doctest)]
pub struct ReadmeDoctests;
