//! toolmodel-cli's integration tests, one test binary (one link instead of one per file): each
//! file of `tests/` is a module. One file or one test: `cargo test -p toolmodel-cli --test
//! integration gateway::`.

mod cli;
mod gateway;
mod gateway_reload;
mod guide_outputs;
mod rules;
mod search;
