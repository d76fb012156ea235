//! toolmodel-rmcp's integration tests, one test binary (one link instead of one per file):
//! each file of `tests/` is a module, the helpers they share are in [`support`]. The tests of a
//! feature are compiled with it (`cargo test --workspace` enables every one); one file or one
//! test: `cargo test -p toolmodel-rmcp --test integration tasks::` (`--features federation`
//! for the gateway's).

mod support;

mod admin;
#[cfg(feature = "auth")]
mod authorization;
mod cancellation;
mod composed_handler;
mod cors;
#[cfg(feature = "federation")]
mod federation;
#[cfg(feature = "federation")]
mod federation_children;
#[cfg(feature = "federation")]
mod gateway_credentials;
#[cfg(feature = "federation")]
mod gateway_headers;
#[cfg(feature = "federation")]
mod gateway_oauth;
#[cfg(feature = "federation")]
mod gateway_passthrough;
#[cfg(all(feature = "federation", feature = "auth"))]
mod gateway_policy;
#[cfg(all(feature = "federation", feature = "auth"))]
mod gateway_reload;
#[cfg(all(feature = "federation", feature = "auth"))]
mod gateway_security;
#[cfg(all(feature = "federation", feature = "auth"))]
mod gateway_tasks;
mod http;
mod http_service;
mod list_and_call;
mod rate_limits;
mod refused_requests;
mod session_store;
mod sessions_across_replicas;
mod task_input;
mod task_store;
mod tasks;
mod tasks_across_replicas;
#[cfg(feature = "otel")]
mod telemetry;
mod tool_list_changes;
mod tool_search;
