//! What the tests of several packages of the workspace share: the servers they start, each
//! skipped with a notice when it cannot start, and a failure under `CI`.
//!
//! - [`issuer`]: the authorization server (`oidc-provider`), for toolmodel-rmcp's tests and
//!   `auth` bench, toolmodel-cli's gateway tests and toolmodel-tests' example server tests;
//! - [`upstreams`]: the real MCP servers `serve/install_upstreams.sh` installs, for the
//!   federation tests of toolmodel-rmcp and toolmodel-cli;
//! - [`redis`]: a throwaway `redis-server`, for toolmodel-rmcp's Redis task store tests and
//!   `tasks` bench;
//!
//! and [`test_name`], for a test that runs its own test binary again for one test.
//!
//! It depends on no toolmodel crate, so that toolmodel-rmcp can dev-depend on it (a
//! dev-dependency on `toolmodel-tests` would link a second copy of toolmodel-rmcp).

pub mod issuer;
pub mod redis;
pub mod upstreams;

/// The name the test harness gives the test function `name` of the module whose
/// `module_path!()` is `module`: the module path without the crate's name (`no_network::child`
/// in the test binary `integration`), to select exactly that test with `--exact` when a test
/// runs its test binary again.
#[must_use]
pub fn test_name(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_crate, path)) => format!("{path}::{name}"),
        None => name.to_owned(),
    }
}
