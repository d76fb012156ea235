//! The `toolmodel` commands the guide shows (`toolmodel/src/guide/files/*.txt`, each a
//! command line `$ toolmodel ...`, what it prints on stdout, and `[exit N]`) print exactly
//! that: each command runs in that folder, on its `tools.json`, and the file must equal the
//! command line, the real stdout and the real exit status, byte for byte.

use std::path::Path;

use assert_cmd::cargo::cargo_bin_cmd;
use toolmodel_tests::assert_shown;

/// The guide's files, from the workspace root.
const FOLDER: &str = "toolmodel/src/guide/files";

/// The files that hold a command and its output.
const SHOWN: [&str; 3] = ["lint.txt", "lint-openai-strict.txt", "validate.txt"];

/// The words of a command line: split at spaces, except inside single quotes (which are
/// removed), as a shell does for the commands the guide shows.
fn words(line: &str) -> Vec<String> {
    let mut words = vec![String::new()];
    let mut quoted = false;
    for c in line.chars() {
        match c {
            '\'' => quoted = !quoted,
            ' ' if !quoted => words.push(String::new()),
            c => words.last_mut().expect("one word at least").push(c),
        }
    }
    assert!(!quoted, "unbalanced quote in {line}");
    words.retain(|word| !word.is_empty());
    words
}

#[test]
fn each_command_the_guide_shows_prints_what_it_shows() {
    let folder = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("..")
        .join(FOLDER);
    for name in SHOWN {
        let shown = std::fs::read_to_string(folder.join(name)).expect("the file reads");
        let command = shown
            .lines()
            .next()
            .and_then(|line| line.strip_prefix("$ toolmodel "))
            .unwrap_or_else(|| panic!("{name} does not start with `$ toolmodel `"));
        let output = cargo_bin_cmd!("toolmodel")
            .args(words(command))
            .current_dir(&folder)
            .output()
            .expect("toolmodel runs");
        assert_eq!(
            String::from_utf8_lossy(&output.stderr),
            "",
            "{name}: stderr"
        );
        let code = output.status.code().expect("an exit status");
        let printed = format!(
            "$ toolmodel {command}\n{}[exit {code}]\n",
            String::from_utf8(output.stdout).expect("UTF-8 output")
        );
        assert_shown(
            &format!("{FOLDER}/{name}"),
            &format!("toolmodel {command}"),
            &printed,
        );
    }
}

#[test]
fn a_command_line_splits_into_words_as_a_shell_would() {
    assert_eq!(
        words(r#"validate --tool t --args '{"a": 1}' tools.json"#),
        [
            "validate",
            "--tool",
            "t",
            "--args",
            r#"{"a": 1}"#,
            "tools.json"
        ]
    );
}
