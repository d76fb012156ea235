//! The TypeScript MCP SDK's Streamable HTTP client in headless Chromium against
//! `examples/server.rs`, without and with authorization (oidc-provider, client_credentials),
//! from an allowed loopback origin and from a foreign one: `serve/browser/run.mjs` (what it
//! checks is written there), run here with the example server built by this package. Skips with
//! a notice when Chromium, the page's npm packages (`serve/browser/install.sh`) or oidc-provider
//! (`serve/auth/install.sh`) are missing, and fails under `CI`.
//!
//! It runs the example programs this package builds (`CARGO_BIN_EXE_*`): `cargo test -p
//! toolmodel-tests --test integration browser::`.

use std::{
    path::{Path, PathBuf},
    process::Command,
};

const SERVER: &str = env!("CARGO_BIN_EXE_example-server");

/// The repository's root.
fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// What is missing to run the page, if anything.
fn missing() -> Option<String> {
    let root = repo();
    let chromium = Command::new("chromium").arg("--version").output();
    if !chromium.is_ok_and(|output| output.status.success()) {
        return Some("chromium (serve/browser/install.sh)".into());
    }
    for (path, install) in [
        (
            "serve/browser/node_modules/@modelcontextprotocol/sdk",
            "serve/browser/install.sh",
        ),
        (
            "serve/browser/node_modules/esbuild",
            "serve/browser/install.sh",
        ),
        (
            "serve/auth/node_modules/oidc-provider",
            "serve/auth/install.sh",
        ),
    ] {
        if !root.join(path).is_dir() {
            return Some(format!("{path} ({install})"));
        }
    }
    None
}

#[test]
fn the_typescript_sdk_in_chromium_calls_the_server_with_and_without_a_token_and_a_foreign_origin_is_refused()
 {
    if let Some(what) = missing() {
        assert!(
            std::env::var_os("CI").is_none(),
            "the browser test cannot run under CI: {what} is missing"
        );
        eprintln!("notice: skipped, {what} is missing");
        return;
    }
    let output = Command::new("node")
        .arg(repo().join("serve/browser/run.mjs"))
        .args([SERVER, "chromium"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success() && stdout.contains("browser: 11 passed, 0 failed"),
        "{}\n{stdout}\n{stderr}",
        output.status
    );
}
