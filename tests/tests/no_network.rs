//! Proof that validation fetches nothing and reads no file, two ways:
//!
//! 1. The external-reference cases (`toolmodel_tests::external_reference_cases`) run again in
//!    a child process inside a new user and network namespace (`unshare -rn`: no interface but
//!    a loopback that is down, so no connection can be made). Its results must be identical to
//!    this process's: had anything been fetched here, the outcome would differ there. When the
//!    sandbox cannot be made (no `unshare`, no user namespaces), the test says so and relies on
//!    the second proof.
//! 2. Always: a schema referring to a server listening on this machine, and to a file that
//!    holds a valid schema, is refused with `Error::ExternalRef`, the server receives no
//!    connection, and the file is not opened (its access time is not checked; its content would
//!    have made the schema compile).

use std::{
    io::ErrorKind,
    net::{TcpListener, TcpStream},
    process::Command,
    time::Duration,
};

use serde_json::json;
use toolmodel::{DefaultValidator, Error, SchemaValidator, Tool, ToolSchema};
use toolmodel_tests::external_reference_cases;

const CHILD: &str = "TOOLMODEL_NO_NETWORK_CHILD";

/// One line per case and entry point: what each gives.
fn outcomes() -> Vec<String> {
    let validator = DefaultValidator::new();
    let mut lines = Vec::new();
    for (what, schema, _) in external_reference_cases() {
        lines.push(format!(
            "case {what}: compile {:?}",
            validator.compile(&schema).map(|_| ())
        ));
        lines.push(format!(
            "case {what}: validate {:?}",
            validator.validate(&schema, &json!({"a": 1}))
        ));
        let tool = Tool::new("t", ToolSchema::try_from(schema).unwrap());
        lines.push(format!(
            "case {what}: validate_arguments {:?}",
            validator.validate_arguments(&tool, &json!({"a": 1}))
        ));
    }
    lines
}

/// Whether this process can open a connection to the outside (a public address; any answer,
/// even a refusal, means a network is there).
fn network_reachable() -> bool {
    match TcpStream::connect_timeout(&"192.0.2.1:80".parse().unwrap(), Duration::from_secs(2)) {
        Ok(_) => true,
        Err(err) => !matches!(
            err.kind(),
            ErrorKind::NetworkUnreachable | ErrorKind::HostUnreachable
        ),
    }
}

/// The child's half: prints the outcomes and whether it had a network.
#[test]
#[ignore = "run inside `unshare -rn` by the_external_reference_cases_behave_the_same_without_a_network"]
fn child_prints_the_outcomes() {
    assert!(
        std::env::var_os(CHILD).is_some(),
        "run by the parent test, with {CHILD} set"
    );
    println!();
    println!("network reachable: {}", network_reachable());
    for line in outcomes() {
        println!("{line}");
    }
}

#[test]
fn the_external_reference_cases_behave_the_same_without_a_network() {
    let here = outcomes();
    // Each case gives the error the shared list expects, at every entry point.
    for (what, _, expected) in external_reference_cases() {
        for entry in ["compile", "validate", "validate_arguments"] {
            let line = format!("case {what}: {entry} {:?}", Err::<(), _>(&expected));
            assert!(here.contains(&line), "missing {line}");
        }
    }
    let exe = std::env::current_exe().unwrap();
    // That one test of this test binary: its exact name.
    let child = toolmodel_test_support::test_name(module_path!(), "child_prints_the_outcomes");
    let output = Command::new("unshare")
        .arg("-rn")
        .arg(&exe)
        .args([
            "--exact",
            child.as_str(),
            "--ignored",
            "--nocapture",
            "--test-threads",
            "1",
        ])
        .env(CHILD, "1")
        .output();
    let output = match output {
        Ok(output) if output.status.success() => output,
        Ok(output) => {
            println!(
                "notice: the network sandbox could not be made (`unshare -rn` exited with {}: {}); \
                 the proof rests on the retriever refusing every URI",
                output.status,
                String::from_utf8_lossy(&output.stderr).trim()
            );
            return;
        }
        Err(err) => {
            println!(
                "notice: the network sandbox could not be made (`unshare`: {err}); the proof \
                 rests on the retriever refusing every URI"
            );
            return;
        }
    };
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(
        stdout.contains("network reachable: false"),
        "the sandbox has a network:\n{stdout}"
    );
    let there: Vec<String> = stdout
        .lines()
        .filter(|line| line.starts_with("case "))
        .map(str::to_owned)
        .collect();
    assert_eq!(there, here, "outcomes differ without a network");
    println!(
        "sandbox: {} outcomes identical inside `unshare -rn`",
        there.len()
    );
}

/// A reference to a server that is listening, and to a file holding a valid schema: both are
/// `ExternalRef`, and the server sees no connection.
#[test]
fn a_listening_server_and_a_readable_file_are_never_used() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("http://{}/schema.json", listener.local_addr().unwrap());

    let dir = std::env::temp_dir().join(format!("toolmodel-no-network-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("schema.json");
    std::fs::write(&file, r#"{"type": "integer"}"#).unwrap();
    let file_url = format!("file://{}", file.display());

    let validator = DefaultValidator::new();
    for reference in [url.as_str(), file_url.as_str()] {
        let schema = json!({"type": "object", "properties": {"a": {"$ref": reference}}});
        assert_eq!(
            validator.compile(&schema).unwrap_err(),
            Error::ExternalRef {
                reference: reference.into()
            }
        );
        let tool = Tool::new("t", ToolSchema::try_from(schema).unwrap());
        assert_eq!(
            validator
                .validate_arguments(&tool, &json!({"a": 1}))
                .unwrap_err(),
            Error::ExternalRef {
                reference: reference.into()
            }
        );
    }
    match listener.accept() {
        Err(err) if err.kind() == ErrorKind::WouldBlock => {}
        other => panic!("the server was contacted: {other:?}"),
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
