//! What the integration tests share. The servers they start that other packages' tests start
//! too (the authorization server, the upstream MCP servers, Redis) are in the
//! `toolmodel-test-support` crate.

pub mod add;
#[cfg(feature = "auth")]
pub mod issuer_front;
pub mod pipe;
pub mod raw_http;
pub mod task_ids;
pub mod task_tools;
#[cfg(all(feature = "federation", feature = "auth"))]
pub mod two_users;
