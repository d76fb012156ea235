//! Choosing a session store from configuration: [`session_store_from_url`], for a server that
//! reads its settings (the examples and `toolmodel gateway` read the URL from
//! `MCP_SESSION_STORE`).

use std::sync::Arc;

use super::{memory::MemorySessionStore, store::SessionStore};
use crate::{
    Error,
    store_url::{StoreUrl, parse},
};

/// The environment variable the examples and `toolmodel gateway` read the session store's URL
/// from.
pub const SESSION_STORE_ENV: &str = "MCP_SESSION_STORE";

/// The store `url` names: `None` or `""` for a [`MemorySessionStore`] (sessions stay in the
/// process that made them, as without a store); `redis://...` or `rediss://...` for a
/// `RedisSessionStore` (feature `redis`), connected and subscribed.
///
/// # Errors
///
/// [`Error::SessionStoreUrl`] for another scheme, or a Redis URL in a build without the
/// `redis` feature; [`Error::SessionStore`] when the Redis server cannot be reached.
pub async fn session_store_from_url(url: Option<&str>) -> Result<Arc<dyn SessionStore>, Error> {
    match parse(url) {
        Ok(StoreUrl::Memory) => Ok(Arc::new(MemorySessionStore::new())),
        #[cfg(feature = "redis")]
        Ok(StoreUrl::Redis(url)) => Ok(Arc::new(
            super::redis::RedisSessionStore::connect(&url).await?,
        )),
        Err((url, message)) => Err(Error::SessionStoreUrl { url, message }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn no_url_is_the_memory_store_and_another_scheme_is_refused() {
        let store = session_store_from_url(None).await.unwrap();
        assert!(format!("{store:?}").starts_with("MemorySessionStore"));
        assert!(!store.is_shared());
        let err = session_store_from_url(Some("memcached://app:s3cret@127.0.0.1:1"))
            .await
            .unwrap_err();
        assert!(
            matches!(&err, Error::SessionStoreUrl { url, .. } if url == "memcached://app:***@127.0.0.1:1"),
            "{err}"
        );
    }
}
