//! Conformance of [`DefaultValidator`] to the official JSON Schema Test Suite (commit
//! `44401e0c`, in `../shared/JSON-Schema-Test-Suite`), drafts 2020-12 and 7.
//!
//! # What is run
//!
//! Every file `tests/<draft>/*.json` (the *required* tests) and, for a report only, every file
//! under `tests/<draft>/optional/` (recursively). A file is an array of groups
//! `{description, schema, tests: [{description, data, valid}]}`. Each group's schema is compiled
//! once with [`DefaultValidator::compile`]: 2020-12 with `DefaultValidator::new()`, draft 7 with
//! `DefaultValidator::new().with_default_dialect(Dialect::Draft7)` (the suite's schemas mostly
//! have no `$schema`, and some are booleans). Format assertions are off, except for the files
//! under `optional/format/`, which are run with `with_format_assertions(true)`.
//!
//! Each test's `data` must give `valid` through both [`CompiledSchema::is_valid`] and
//! [`CompiledSchema::validate`]; `validate` must be `Ok` for a valid instance and
//! [`Error::InvalidInstance`] with at least one violation otherwise, every violation with a
//! JSON Pointer instance path that exists in the instance, a JSON Pointer schema path and a
//! keyword. A test that does not hold all of that fails.
//!
//! # Groups that need a remote resource
//!
//! The suite serves `remotes/` at `http://localhost:1234/` and some groups refer there;
//! `toolmodel` never fetches anything. A group *needs a remote resource* when, and only when,
//! compiling its schema fails with
//!
//! - [`Error::ExternalRef`] whose `reference` (without its fragment) is **not** the URI of a
//!   resource embedded in the schema, or
//! - [`Error::UnsupportedSchema`] for the root `$schema` whose `uri` is **not** a json-schema.org
//!   URI (so it names a custom meta-schema, which would have to be fetched) and is not embedded.
//!
//! "Embedded" URIs are computed from the schema alone: every `$id` in it resolved (RFC 3986)
//! against the `$id`s around it, starting from `json-schema:///` (the base `jsonschema` gives a
//! schema without `$id`). The walk visits every object in the schema, including `enum`/`const`
//! values, so it can only find *more* embedded URIs than really exist: the rule can wrongly
//! count an external reference as a failure, never wrongly excuse one. The two kinds are
//! counted separately and their tests are not run. Any other compile error of a required group
//! (including an `ExternalRef` to an embedded resource, an `UnsupportedSchema` for an official
//! dialect, or an `InvalidSchema`) fails the test. A group that refers to a remote but compiles
//! anyway is run like any other group, so any disagreement fails.
//!
//! The optional tests are reported (counts per draft, failures per file), never gated.
//!
//! Run with `cargo test -p toolmodel-tests --test integration json_schema_suite:: -- --nocapture`
//! to see the counts.

use std::{
    collections::{BTreeMap, BTreeSet},
    fmt,
    path::{Path, PathBuf},
};

use fluent_uri::{Uri, UriRef};
use serde_json::Value;
use toolmodel::{
    DefaultValidator, Error,
    validate::{CompiledSchema, Dialect},
};

/// The base `jsonschema` gives a schema without `$id`.
const DEFAULT_BASE: &str = "json-schema:///";

/// One draft of the suite and the dialect it is run in.
struct Draft {
    name: &'static str,
    dialect: Dialect,
}

const DRAFTS: [Draft; 2] = [
    Draft {
        name: "draft2020-12",
        dialect: Dialect::Draft202012,
    },
    Draft {
        name: "draft7",
        dialect: Dialect::Draft7,
    },
];

/// What became of the groups and tests of one part (required or optional) of one draft.
#[derive(Default)]
struct Tally {
    groups: usize,
    passed: usize,
    /// `file: group: test: what went wrong`, one per failed test.
    failures: Vec<String>,
    /// Groups (and their tests) refused with `ExternalRef` to a resource not in the schema.
    external_groups: usize,
    external_tests: usize,
    /// Groups (and their tests) refused with `UnsupportedSchema` naming a custom meta-schema.
    custom_meta_groups: usize,
    custom_meta_tests: usize,
    /// `file: group: error`, one per group that failed to compile for any other reason.
    compile_failures: Vec<String>,
    /// Failed tests (including those of groups that did not compile) per file.
    failed_per_file: BTreeMap<String, usize>,
}

impl Tally {
    fn failed(&self) -> usize {
        self.failures.len()
    }

    fn tests_in_failed_groups(&self) -> usize {
        self.failed_per_file.values().sum::<usize>() - self.failed()
    }
}

impl fmt::Display for Tally {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} passed, {} failed ({} groups); {} tests in {} groups need a remote reference \
             (ExternalRef); {} tests in {} groups use a custom meta-schema (UnsupportedSchema); \
             {} groups ({} tests) failed to compile for another reason",
            self.passed,
            self.failed(),
            self.groups,
            self.external_tests,
            self.external_groups,
            self.custom_meta_tests,
            self.custom_meta_groups,
            self.compile_failures.len(),
            self.tests_in_failed_groups(),
        )
    }
}

/// The `.json` files under `dir`, sorted; with `recursive`, those of its subfolders too.
fn json_files(dir: &Path, recursive: bool) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut entries: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap_or_else(|err| panic!("cannot list {}: {err}", dir.display()))
        .map(|entry| entry.expect("directory entry").path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            if recursive {
                files.extend(json_files(&path, true));
            }
        } else if path.extension().is_some_and(|ext| ext == "json") {
            files.push(path);
        }
    }
    files
}

/// The URIs (without fragment) of every resource embedded in `schema`: see the module docs.
fn embedded_uris(schema: &Value) -> BTreeSet<String> {
    fn walk(value: &Value, base: &Uri<String>, out: &mut BTreeSet<String>) {
        match value {
            Value::Object(map) => {
                let mut base = base.clone();
                if let Some(Value::String(id)) = map.get("$id")
                    && !id.starts_with('#')
                    && let Ok(id) = UriRef::parse(id.as_str())
                    && let Ok(resolved) = id.resolve_against(&base)
                {
                    out.insert(resolved.strip_fragment().normalize().to_string());
                    base = resolved;
                }
                for child in map.values() {
                    walk(child, &base, out);
                }
            }
            Value::Array(items) => {
                for item in items {
                    walk(item, base, out);
                }
            }
            _ => {}
        }
    }
    let base = Uri::parse(DEFAULT_BASE.to_owned()).expect("the default base is a URI");
    let mut out = BTreeSet::new();
    walk(schema, &base, &mut out);
    out
}

/// `uri` without its fragment, normalized, or `uri` itself when it is no URI.
fn resource_of(uri: &str) -> String {
    Uri::parse(uri).map_or_else(
        |_| uri.to_owned(),
        |uri| uri.strip_fragment().normalize().to_string(),
    )
}

/// Why a group's schema did not compile, as the module docs classify it.
enum Refusal {
    /// Needs a remote resource through a reference.
    External,
    /// Needs a remote (custom) meta-schema.
    CustomMeta,
    /// Any other compile error: a failure.
    Other,
}

fn classify(schema: &Value, err: &Error) -> Refusal {
    match err {
        Error::ExternalRef { reference }
            if !embedded_uris(schema).contains(&resource_of(reference)) =>
        {
            Refusal::External
        }
        Error::UnsupportedSchema { uri, pointer }
            if pointer == "/$schema"
                && Uri::parse(uri.as_str())
                    .ok()
                    .and_then(|u| u.authority().map(|a| a.host().to_owned()))
                    .is_none_or(|host| host != "json-schema.org")
                && !embedded_uris(schema).contains(&resource_of(uri)) =>
        {
            Refusal::CustomMeta
        }
        _ => Refusal::Other,
    }
}

/// Checks one instance against what the suite expects, through both `is_valid` and
/// `validate`; `Err` says what went wrong.
fn check(compiled: &CompiledSchema, data: &Value, expected: bool) -> Result<(), String> {
    let is_valid = compiled.is_valid(data);
    if is_valid != expected {
        return Err(format!("is_valid gave {is_valid}, expected {expected}"));
    }
    match (expected, compiled.validate(data)) {
        (true, Ok(())) => Ok(()),
        (true, Err(err)) => Err(format!("is_valid gave true but validate gave {err:?}")),
        (false, Ok(())) => Err("is_valid gave false but validate gave Ok".into()),
        (false, Err(Error::InvalidInstance { errors })) => {
            if errors.is_empty() {
                return Err("validate gave InvalidInstance with no violation".into());
            }
            for error in &errors {
                let pointers_ok = [&error.instance_path, &error.schema_path]
                    .iter()
                    .all(|p| p.is_empty() || p.starts_with('/'));
                if !pointers_ok
                    || data.pointer(&error.instance_path).is_none()
                    || error.keyword.is_empty()
                    || error.message.is_empty()
                {
                    return Err(format!("malformed violation {error:?}"));
                }
            }
            Ok(())
        }
        (false, Err(err)) => Err(format!("validate gave {err:?}, not InvalidInstance")),
    }
}

/// Runs every group of `file` with `validator`, adding to `tally`.
fn run_file(file: &Path, label: &str, validator: &DefaultValidator, tally: &mut Tally) {
    let text = std::fs::read_to_string(file)
        .unwrap_or_else(|err| panic!("cannot read {}: {err}", file.display()));
    let groups: Vec<Value> = serde_json::from_str(&text)
        .unwrap_or_else(|err| panic!("{} is not a suite file: {err}", file.display()));
    for group in &groups {
        let description = group["description"].as_str().expect("group description");
        let tests = group["tests"].as_array().expect("group tests");
        tally.groups += 1;
        let schema = &group["schema"];
        let compiled = match validator.compile(schema) {
            Ok(compiled) => compiled,
            Err(err) => {
                match classify(schema, &err) {
                    Refusal::External => {
                        tally.external_groups += 1;
                        tally.external_tests += tests.len();
                    }
                    Refusal::CustomMeta => {
                        tally.custom_meta_groups += 1;
                        tally.custom_meta_tests += tests.len();
                    }
                    Refusal::Other => {
                        tally
                            .compile_failures
                            .push(format!("{label}: {description}: {err:?}"));
                        *tally.failed_per_file.entry(label.to_owned()).or_default() += tests.len();
                    }
                }
                continue;
            }
        };
        for test in tests {
            let test_description = test["description"].as_str().expect("test description");
            let expected = test["valid"].as_bool().expect("test valid");
            match check(&compiled, &test["data"], expected) {
                Ok(()) => tally.passed += 1,
                Err(why) => {
                    tally
                        .failures
                        .push(format!("{label}: {description}: {test_description}: {why}"));
                    *tally.failed_per_file.entry(label.to_owned()).or_default() += 1;
                }
            }
        }
    }
}

/// The file's name relative to the draft folder, e.g. `optional/format/date.json`.
fn label_of(file: &Path, draft_dir: &Path) -> String {
    file.strip_prefix(draft_dir)
        .unwrap_or(file)
        .to_string_lossy()
        .replace('\\', "/")
}

/// Runs the required tests of a draft.
fn run_required(draft_dir: &Path, dialect: Dialect) -> Tally {
    let validator = DefaultValidator::new().with_default_dialect(dialect);
    let mut tally = Tally::default();
    for file in json_files(draft_dir, false) {
        run_file(&file, &label_of(&file, draft_dir), &validator, &mut tally);
    }
    tally
}

/// Runs the optional tests of a draft, with format assertions under `optional/format/`.
fn run_optional(draft_dir: &Path, dialect: Dialect) -> Tally {
    let annotating = DefaultValidator::new().with_default_dialect(dialect);
    let asserting = DefaultValidator::new()
        .with_default_dialect(dialect)
        .with_format_assertions(true);
    let optional = draft_dir.join("optional");
    let format = optional.join("format");
    let mut tally = Tally::default();
    for file in json_files(&optional, true) {
        let validator = if file.starts_with(&format) {
            &asserting
        } else {
            &annotating
        };
        run_file(&file, &label_of(&file, draft_dir), validator, &mut tally);
    }
    tally
}

#[test]
fn required_tests_pass_and_optional_tests_are_reported() {
    let Some(suite) = toolmodel_tests::shared_dir("JSON-Schema-Test-Suite") else {
        return;
    };
    let mut problems = Vec::new();
    for draft in &DRAFTS {
        let dir = suite.join("tests").join(draft.name);

        let required = run_required(&dir, draft.dialect);
        println!("{} required: {required}", draft.name);
        assert!(
            required.passed > 0,
            "{}: no required test ran in {}",
            draft.name,
            dir.display()
        );
        problems.extend(
            required
                .compile_failures
                .iter()
                .chain(&required.failures)
                .map(|problem| format!("{} {problem}", draft.name)),
        );

        let optional = run_optional(&dir, draft.dialect);
        println!("{} optional (not gated): {optional}", draft.name);
        for (file, failed) in &optional.failed_per_file {
            println!("    {file}: {failed} failed");
        }
    }
    assert!(
        problems.is_empty(),
        "{} required group(s)/test(s) failed:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

#[test]
fn the_remote_rule_tells_embedded_resources_from_remote_ones() {
    let schema = serde_json::json!({
        "$id": "http://example.com/root.json",
        "$defs": {
            "a": {"$id": "nested/a.json", "$defs": {"b": {"$id": "b.json#"}}},
            "c": {"$id": "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed"},
            "anchor": {"$id": "#not-a-resource"}
        }
    });
    assert_eq!(
        embedded_uris(&schema),
        BTreeSet::from(
            [
                "http://example.com/root.json",
                "http://example.com/nested/a.json",
                "http://example.com/nested/b.json",
                "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed",
            ]
            .map(String::from)
        )
    );
    let external = |reference: &str| Error::ExternalRef {
        reference: reference.to_owned(),
    };
    assert!(matches!(
        classify(
            &schema,
            &external("http://localhost:1234/draft2020-12/integer.json")
        ),
        Refusal::External
    ));
    assert!(matches!(
        classify(&schema, &external("http://example.com/nested/b.json#/x")),
        Refusal::Other
    ));
    let unsupported = |uri: &str| Error::UnsupportedSchema {
        uri: uri.to_owned(),
        pointer: "/$schema".to_owned(),
    };
    assert!(matches!(
        classify(
            &schema,
            &unsupported("http://localhost:1234/draft2020-12/meta.json")
        ),
        Refusal::CustomMeta
    ));
    assert!(matches!(
        classify(
            &schema,
            &unsupported("http://json-schema.org/draft-04/schema#")
        ),
        Refusal::Other
    ));
}

#[test]
fn a_test_fails_on_a_wrong_expectation_and_passes_on_the_right_one() {
    let compiled = DefaultValidator::new()
        .compile(&serde_json::json!({"properties": {"n": {"type": "integer"}}}))
        .expect("compiles");
    let good = serde_json::json!({"n": 1});
    let bad = serde_json::json!({"n": "1"});
    assert_eq!(check(&compiled, &good, true), Ok(()));
    assert_eq!(check(&compiled, &bad, false), Ok(()));
    assert_eq!(
        check(&compiled, &good, false),
        Err("is_valid gave true, expected false".to_owned())
    );
    assert_eq!(
        check(&compiled, &bad, true),
        Err("is_valid gave false, expected true".to_owned())
    );
}
