//! Choosing a task store from configuration: [`task_store_from_url`], for a server that
//! reads its settings (the examples read the URL from `MCP_TASK_STORE`).

use std::sync::Arc;

use super::{memory::MemoryTaskStore, store::TaskStore};
use crate::{
    Error,
    store_url::{StoreUrl, parse},
};

/// The store `url` names: `None` or `""` for a [`MemoryTaskStore`]; `redis://...` or
/// `rediss://...` for a `RedisTaskStore` (feature `redis`), connected.
///
/// # Errors
///
/// [`Error::TaskStoreUrl`] for another scheme, or a Redis URL in a build without the `redis`
/// feature; [`Error::TaskStore`] when the Redis server cannot be reached.
pub async fn task_store_from_url(url: Option<&str>) -> Result<Arc<dyn TaskStore>, Error> {
    match parse(url) {
        Ok(StoreUrl::Memory) => Ok(Arc::new(MemoryTaskStore::new())),
        #[cfg(feature = "redis")]
        Ok(StoreUrl::Redis(url)) => {
            Ok(Arc::new(super::redis::RedisTaskStore::connect(&url).await?))
        }
        Err((url, message)) => Err(Error::TaskStoreUrl { url, message }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn no_url_is_the_memory_store_and_another_scheme_is_refused() {
        let store = task_store_from_url(None).await.unwrap();
        assert!(format!("{store:?}").starts_with("MemoryTaskStore"));
        // The URL is shown without its password.
        for (given, shown) in [
            ("memcached://127.0.0.1:1", "memcached://127.0.0.1:1"),
            (
                "memcached://app:s3cret@127.0.0.1:1",
                "memcached://app:***@127.0.0.1:1",
            ),
        ] {
            let err = task_store_from_url(Some(given)).await.unwrap_err();
            assert!(
                matches!(&err, Error::TaskStoreUrl { url, .. } if url == shown),
                "{err}"
            );
        }
    }
}
