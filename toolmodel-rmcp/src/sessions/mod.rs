//! Where a Streamable HTTP server keeps its handshake-era sessions (MCP 2025-11-25, 2025-06-18
//! and 2025-03-26: `initialize` returns an `Mcp-Session-Id` that later requests carry): the
//! [`SessionStore`] trait, the [`MemorySessionStore`] of one process and, with the `redis`
//! feature, the `RedisSessionStore` that replicas share, so that any replica serves any
//! session behind a plain round-robin balancer and a replica that dies loses no session.
//!
//! A server takes its store from
//! [`ToolboxServer::with_session_store`](crate::ToolboxServer::with_session_store);
//! [`session_store_from_url`] makes one from a URL (the examples and `toolmodel gateway` read
//! it from `MCP_SESSION_STORE=redis://HOST:PORT[/DB]`). What a shared store changes, and
//! what it costs, is in the guide's [Scale-out](crate::guide::scale_out) chapter.

mod env;
pub(crate) mod manager;
mod memory;
#[cfg(feature = "redis")]
mod redis;
pub(crate) mod relay;
mod store;

pub use env::{SESSION_STORE_ENV, session_store_from_url};
pub use memory::MemorySessionStore;
#[cfg(feature = "redis")]
pub use redis::{DEFAULT_REDIS_SESSION_PREFIX, RedisSessionStore};
pub use store::{
    DEFAULT_SESSION_LIMIT, RELAY_QUEUE, Relayed, RelayedKind, SessionRecord, SessionStore,
    StoreFuture, Touched,
};
