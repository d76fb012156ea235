//! The compile-time contract of `#[derive(Tool)]`: every `ui/fail/*.rs` fails to compile with
//! exactly the committed `.stderr` (one error per case, on the offending token, no secondary
//! errors), and every `ui/pass/*.rs` compiles and runs (its `main` asserts what the derive
//! generated). Regenerate the `.stderr` files with `TRYBUILD=overwrite`, then read each.

#[test]
fn ui() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/fail/*.rs");
    cases.pass("ui/pass/*.rs");
}
