//! toolmodel-tests' integration tests, one test binary (one link instead of one per file): each
//! file of `tests/tests/` is a module, the helpers they share are in [`support`]. One file or
//! one test: `cargo test -p toolmodel-tests --test integration feedback::`.
//!
//! Two files are programs of their own, `registered_toolbox` and `registered_unservable`:
//! `inventory` collects the `#[tool(register)]` types of a whole program, and each asserts
//! exactly which ones it finds. [`registry`] does too, here: no other module of this binary
//! registers a tool.

mod support;

mod adapter_findings;
mod adapters;
mod adversarial;
mod auth_discovery;
mod browser;
mod call;
mod concurrency;
mod corpus;
mod corpus_dump;
mod derive;
mod derive_rules;
mod feedback;
mod fuzz_regressions;
mod gateway_input_rounds;
mod github_tools;
mod guide_outputs;
mod input;
mod input_rounds_across_replicas;
mod integer_valued;
mod json_schema_suite;
mod list_and_call_over_stdio;
mod model_calls;
mod model_search;
mod no_network;
mod properties;
mod quickstart;
mod registry;
mod rmcp;
mod stdio_robustness;
mod validator;
mod versions;
