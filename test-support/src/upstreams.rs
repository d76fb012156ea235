//! The real MCP servers the federation tests use (`@modelcontextprotocol/server-everything`,
//! `@modelcontextprotocol/server-memory`, `mcp-server-time`), installed by
//! `serve/install_upstreams.sh` into `.upstreams/`.

use std::{collections::BTreeMap, path::Path, sync::Mutex};

/// The commands of the installed servers, or `None` (with a notice) when they cannot be
/// installed outside CI.
pub fn upstreams() -> Option<BTreeMap<String, String>> {
    static INSTALL: Mutex<()> = Mutex::new(());
    let _once = INSTALL
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    let env_file = root.join(".upstreams/env");
    if !env_file.exists() {
        let status = std::process::Command::new("bash")
            .arg(root.join("serve/install_upstreams.sh"))
            .stdout(std::process::Stdio::null())
            .status();
        if !matches!(status, Ok(status) if status.success()) {
            assert!(
                std::env::var_os("CI").is_none(),
                "serve/install_upstreams.sh failed under CI: the federation tests need the real upstreams"
            );
            eprintln!(
                "notice: skipped, the upstream MCP servers could not be installed (serve/install_upstreams.sh)"
            );
            return None;
        }
    }
    let text = std::fs::read_to_string(env_file).ok()?;
    Some(
        text.lines()
            .filter_map(|line| line.split_once('='))
            .map(|(name, command)| (name.to_owned(), command.to_owned()))
            .collect(),
    )
}
