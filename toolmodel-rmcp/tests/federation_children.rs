//! What a stdio server's child process gets from the gateway: the environment it inherits
//! (the default set, its configured `env` and what `inheritEnv` names; never the gateway's
//! secrets), and where its stderr goes (the gateway's, each line prefixed with its name).
//!
//! Both depend on the gateway's own process: its environment, its stderr. So each test runs
//! this test binary again as the gateway (one test of it, selected by name, with
//! [`INNER`] set), with the variables it needs and its stderr captured, and the inner run
//! makes the assertions that need the federation.

use std::{path::PathBuf, process::Output, time::Duration};

use serde_json::json;
use toolmodel_rmcp::federation::{Federation, FederationConfig};

/// Set in the environment of an inner run: the name of the test it runs as the gateway.
const INNER: &str = "TOOLMODEL_FEDERATION_CHILDREN_INNER";

/// A secret of the gateway's that no child may see, beside `MCP_REQUEST_STATE_KEY`.
const GATEWAY_SECRET: (&str, &str) = ("TOOLMODEL_TEST_GATEWAY_SECRET", "gw-secret-31d9c2e8");

/// A variable of the gateway's that a server's `inheritEnv` names.
const OPTED_IN: (&str, &str) = ("TOOLMODEL_TEST_OPTED_IN", "opted-in-value");

/// Runs the test `name` of this module again as the gateway, with `env` set (that test alone:
/// its exact name in this test binary); its output.
fn run_inner(name: &str, env: &[(&str, &str)]) -> Output {
    let exact = toolmodel_test_support::test_name(module_path!(), name);
    let output = std::process::Command::new(std::env::current_exe().expect("this test binary"))
        .args([exact.as_str(), "--exact", "--nocapture", "--test-threads=1"])
        .env(INNER, name)
        .envs(env.iter().copied())
        .output()
        .expect("the inner run starts");
    assert!(
        output.status.success(),
        "the inner run of {name} failed:\n{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    // It ran that test, not none (a name that matches nothing passes too).
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("test result: ok. 1 passed;"),
        "the inner run did not run {exact}:\n{stdout}"
    );
    output
}

/// Whether this run is the inner run of `name`.
fn is_inner(name: &str) -> bool {
    std::env::var(INNER).is_ok_and(|inner| inner == name)
}

/// A file in the temporary directory, for this process and `name`, absent.
fn temp_file(name: &str) -> PathBuf {
    let path = std::env::temp_dir().join(format!(
        "toolmodel-children-{}-{name}.env",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    path
}

/// A stdio server that writes its environment to `file` and exits (its session never opens),
/// with `extra` merged into its entry.
fn env_writer(file: &std::path::Path, extra: serde_json::Value) -> serde_json::Value {
    let mut entry = json!({
        "command": "sh",
        "args": ["-c", "env > \"$0\"", file.display().to_string()],
        "startupTimeout": 5000,
    });
    if let (Some(entry), Some(extra)) = (entry.as_object_mut(), extra.as_object()) {
        entry.extend(extra.clone());
    }
    entry
}

/// The variables of the environment `file` holds (`env`'s output), by name.
fn read_env(file: &std::path::Path) -> std::collections::BTreeMap<String, String> {
    let text = std::fs::read_to_string(file).expect("the child wrote its environment");
    text.lines()
        .filter_map(|line| line.split_once('='))
        .map(|(name, value)| (name.to_owned(), value.to_owned()))
        .collect()
}

#[test]
fn a_child_sees_the_default_set_its_env_and_what_it_opted_into_never_the_gateway_s_secrets() {
    run_inner(
        "child_environment_inner",
        &[
            (
                "MCP_REQUEST_STATE_KEY",
                "c3RhdGUta2V5LW9mLXRoZS1nYXRld2F5LTAxMjM0NTY3",
            ),
            GATEWAY_SECRET,
            OPTED_IN,
        ],
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn child_environment_inner() {
    if !is_inner("child_environment_inner") {
        return;
    }
    let (plain, opted, all) = (temp_file("plain"), temp_file("opted"), temp_file("all"));
    let config = FederationConfig::from_json(&json!({"mcpServers": {
        "plain": env_writer(&plain, json!({"env": {"CONFIGURED": "configured-value"}})),
        "opted": env_writer(&opted, json!({"inheritEnv": [OPTED_IN.0]})),
        "all": env_writer(&all, json!({"inheritEnv": true})),
    }}))
    .expect("the configuration reads");
    let federation = Federation::start(config)
        .await
        .expect("the federation starts");
    federation.shutdown().await;

    let plain = read_env(&plain);
    for secret in ["MCP_REQUEST_STATE_KEY", GATEWAY_SECRET.0, OPTED_IN.0] {
        assert!(
            !plain.contains_key(secret),
            "a child that did not ask for {secret} sees it: {plain:?}"
        );
    }
    assert_eq!(
        plain.get("CONFIGURED").map(String::as_str),
        Some("configured-value")
    );
    assert_eq!(plain.get("PATH"), std::env::var("PATH").ok().as_ref());

    let opted = read_env(&opted);
    assert_eq!(opted.get(OPTED_IN.0).map(String::as_str), Some(OPTED_IN.1));
    assert!(!opted.contains_key(GATEWAY_SECRET.0), "{opted:?}");
    assert!(!opted.contains_key("MCP_REQUEST_STATE_KEY"), "{opted:?}");

    let all = read_env(&all);
    assert_eq!(
        all.get(GATEWAY_SECRET.0).map(String::as_str),
        Some(GATEWAY_SECRET.1),
        "inheritEnv: true passes the whole environment on"
    );
}

#[test]
fn a_child_s_stderr_reaches_the_gateway_s_each_line_prefixed_with_its_name() {
    let output = run_inner("child_stderr_inner", &[]);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("[boom] boom: cannot start, no database\n"),
        "{stderr}"
    );
    assert!(stderr.contains("[boom] second line\n"), "{stderr}");
    let long = stderr
        .lines()
        .find(|line| line.starts_with("[boom] xxx"))
        .unwrap_or_else(|| panic!("the long line is passed on: {stderr}"));
    assert_eq!(
        long,
        format!("[boom] {} [cut at 4096 bytes]", "x".repeat(4096)),
        "a long line is cut at 4 KiB"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn child_stderr_inner() {
    if !is_inner("child_stderr_inner") {
        return;
    }
    let script = "echo 'boom: cannot start, no database' >&2; echo 'second line' >&2; \
                  head -c 6000 /dev/zero | tr '\\0' x >&2; echo >&2; exit 1";
    let config = FederationConfig::from_json(&json!({"mcpServers": {
        "boom": {"command": "sh", "args": ["-c", script], "startupTimeout": 5000},
    }}))
    .expect("the configuration reads");
    let federation = Federation::start(config)
        .await
        .expect("the federation starts");
    let status = federation.status().await;
    assert!(!status[0].session.is_open(), "{status:?}");
    // The lines are written by a task of their own.
    tokio::time::sleep(Duration::from_millis(300)).await;
    federation.shutdown().await;
}
