//! MCP servers as backends (feature `federation`): many servers' tools in one
//! [`Toolbox`](toolmodel::Toolbox), called with local validation, served again as one gateway.
//!
//! - [`config`]: which servers ([`FederationConfig`], read from the `mcpServers` JSON clients
//!   share by [`parse`], variables expanded by [`expand`]).
//! - [`names`]: how their tools are named where a flat name is needed ([`NamePolicy`]).

pub mod config;
pub mod expand;
pub mod names;
pub mod parse;
pub(crate) mod pointer;

pub use config::{
    FederationConfig, FederationConfigBuilder, HttpTransport, ServerConfig, ServerTransport,
    StdioTransport, Timeouts,
};
pub use names::NamePolicy;
