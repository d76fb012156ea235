//! Where a server keeps its tasks (the tasks extension, `io.modelcontextprotocol/tasks`,
//! SEP-2663): the [`TaskStore`] trait, the [`MemoryTaskStore`] a server uses unless told
//! otherwise, and with the `redis` feature the `RedisTaskStore` that replicas share, so that
//! any replica answers for any task and a replica that dies loses nothing.
//!
//! A server takes its store from
//! [`ToolboxServer::with_task_store`](crate::ToolboxServer::with_task_store);
//! [`task_store_from_url`] makes one from a URL (the examples read it from
//! `MCP_TASK_STORE=redis://HOST:PORT[/DB]`). How a server
//! uses the store (leases, what happens when a replica dies) is in the guide,
//! [Tasks across replicas](crate::guide::tasks#tasks-across-replicas).

mod env;
#[cfg(feature = "redis")]
mod finished;
mod id;
mod memory;
mod record;
#[cfg(feature = "redis")]
mod redis;
mod store;

pub use env::task_store_from_url;
pub(crate) use id::new_task_id;
pub use memory::MemoryTaskStore;
pub use record::{TaskOutcome, TaskRecord};
#[cfg(feature = "redis")]
pub use redis::{DEFAULT_REDIS_PREFIX, RedisTaskStore};
pub(crate) use store::now_ms;
pub use store::{DEFAULT_LIVE_TASK_LIMIT, Lease, StoreFuture, TaskChanges, TaskStore};
