//! Compile-fail and compile-pass tests of `#[derive(Tool)]`; see `tests/ui.rs`.
