//! The outputs the guide shows (`toolmodel/src/guide/files/`) are the examples' real outputs:
//! each example runs and its stdout must equal the file byte for byte. Both examples are
//! deterministic (no clock, no randomness, JSON objects in sorted key order), so nothing is
//! normalized.

use std::process::Command;

use toolmodel_tests::assert_shown;

/// Runs a binary of this package and returns its stdout, after checking that it succeeded
/// and wrote nothing on stderr.
fn stdout_of(binary: &str) -> String {
    let output = Command::new(binary).output().expect("the example runs");
    assert!(output.status.success(), "{binary}: {}", output.status);
    assert_eq!(
        String::from_utf8_lossy(&output.stderr),
        "",
        "{binary}: stderr"
    );
    String::from_utf8(output.stdout).expect("UTF-8 output")
}

#[test]
fn the_quickstart_prints_what_the_guide_shows() {
    let printed = stdout_of(env!("CARGO_BIN_EXE_example-quickstart"));
    assert_shown(
        "toolmodel/src/guide/files/quickstart.txt",
        "cargo run --example quickstart",
        &printed,
    );
}

#[test]
fn the_agent_loop_prints_what_the_guide_shows() {
    let printed = stdout_of(env!("CARGO_BIN_EXE_example-agent-loop"));
    assert_shown(
        "toolmodel/src/guide/files/agent_loop.txt",
        "cargo run --example agent_loop",
        &printed,
    );
}
