//! What the two Redis stores (feature `redis`) share: the client made from a store's URL, the
//! errors of a Redis command, the DEBUG span around each operation, and the pub/sub
//! subscription that resubscribes by itself after a lost connection.
//!
//! [`RedisTaskStore`](crate::tasks::RedisTaskStore) and
//! [`RedisSessionStore`](crate::sessions::RedisSessionStore) differ in their error variant,
//! their `tracing` target and their span's name: [`Store`] says which.

use std::{future::Future, time::Duration};

use futures_util::StreamExt as _;
use redis::{IntoConnectionInfo as _, io::tcp::TcpSettings};
use tracing::Instrument as _;

use crate::{Error, store_url::without_password, tasks::StoreFuture};

/// How long a lost subscription waits before it subscribes again (and again, until Redis is
/// back).
const RESUBSCRIBE_EVERY: Duration = Duration::from_millis(500);

/// Which Redis store: its error variant ([`Error::TaskStore`] or [`Error::SessionStore`]),
/// its `tracing` target and its span's name.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Store {
    /// [`RedisTaskStore`](crate::tasks::RedisTaskStore): target `toolmodel_rmcp::tasks`,
    /// span `task_store`.
    Tasks,
    /// [`RedisSessionStore`](crate::sessions::RedisSessionStore): target
    /// `toolmodel_rmcp::sessions`, span `session_store`.
    Sessions,
    /// Shared [`RateLimits`](crate::server::RateLimits): target `toolmodel_rmcp::limits`,
    /// span `limit_store`.
    Limits,
    /// Users' third-party tokens ([`TokenStore`](crate::federation::TokenStore)): target
    /// `toolmodel_rmcp::federation`, span `token_store`.
    #[cfg(feature = "federation")]
    Tokens,
}

impl Store {
    /// The store's error: `message`, caused by `source`.
    pub(crate) fn error(
        self,
        message: String,
        source: Option<Box<dyn std::error::Error + Send + Sync>>,
    ) -> Error {
        match self {
            Self::Tasks => Error::TaskStore { message, source },
            Self::Sessions => Error::SessionStore { message, source },
            Self::Limits => Error::LimitStore { message, source },
            #[cfg(feature = "federation")]
            Self::Tokens => Error::TokenStore { message, source },
        }
    }

    /// The error of a Redis command that failed while `doing` (`"redis: {doing}"`).
    pub(crate) fn redis_error(self, doing: &str, err: redis::RedisError) -> Error {
        self.error(format!("redis: {doing}"), Some(Box::new(err)))
    }

    /// `operation` of the store as a future, inside a DEBUG span (`task_store` or
    /// `session_store`, of the store's target; `db.system.name` `redis`, `db.operation.name`
    /// the trait method).
    pub(crate) fn traced<'a, T>(
        self,
        operation: &'static str,
        future: impl Future<Output = Result<T, Error>> + Send + 'a,
    ) -> StoreFuture<'a, T> {
        let span = match self {
            Self::Tasks => tracing::debug_span!(
                target: "toolmodel_rmcp::tasks",
                "task_store",
                db.system.name = "redis",
                db.operation.name = operation,
            ),
            Self::Sessions => tracing::debug_span!(
                target: "toolmodel_rmcp::sessions",
                "session_store",
                db.system.name = "redis",
                db.operation.name = operation,
            ),
            Self::Limits => tracing::debug_span!(
                target: "toolmodel_rmcp::limits",
                "limit_store",
                db.system.name = "redis",
                db.operation.name = operation,
            ),
            #[cfg(feature = "federation")]
            Self::Tokens => tracing::debug_span!(
                target: "toolmodel_rmcp::federation",
                "token_store",
                db.system.name = "redis",
                db.operation.name = operation,
            ),
        };
        Box::pin(future.instrument(span))
    }

    /// A client of the Redis (or Valkey) server at `url` (`redis://HOST:PORT[/DB]`, the
    /// `redis` crate's URL syntax) whose connections have `TCP_NODELAY`; it connects nothing
    /// yet.
    ///
    /// # Errors
    ///
    /// The store's error when `url` is not a Redis URL (the message shows it without its
    /// password).
    pub(crate) fn client(self, url: &str) -> Result<redis::Client, Error> {
        let url_error = |err: redis::RedisError| {
            self.error(
                format!("redis: {:?} is not a Redis URL", without_password(url)),
                Some(Box::new(err)),
            )
        };
        let info = url
            .into_connection_info()
            .map_err(url_error)?
            // Without TCP_NODELAY a command written while another is unanswered (two
            // operations on the one multiplexed connection) waits for the server's ACK of the
            // first (Nagle's algorithm, RFC 896).
            .set_tcp_settings(TcpSettings::default().set_nodelay(true));
        redis::Client::open(info).map_err(url_error)
    }
}

impl Store {
    /// A client of `url` ([`client`](Self::client)) and its connection manager, connected:
    /// `TCP_NODELAY`, `timeout` to connect and to each answer, one attempt per connection (a
    /// command fails at once rather than after retries, and the next command connects
    /// again; the manager reconnects by itself). `shown` is the URL as errors show it.
    ///
    /// # Errors
    ///
    /// The store's error when `url` is not a Redis URL, or the server cannot be reached within
    /// `timeout` or refuses the URL's password or database.
    pub(crate) async fn connect(
        self,
        url: &str,
        shown: &str,
        timeout: Duration,
    ) -> Result<(redis::Client, redis::aio::ConnectionManager), Error> {
        let client = self.client(url)?;
        let config = redis::aio::ConnectionManagerConfig::new()
            .set_response_timeout(Some(timeout))
            .set_connection_timeout(Some(timeout))
            .set_number_of_retries(0);
        let connection = client
            .get_connection_manager_with_config(config)
            .await
            .map_err(|err| self.redis_error(&format!("connecting to {shown}"), err))?;
        Ok((client, connection))
    }
}

/// A pub/sub connection of `client` subscribed to `channels` (the subscription confirmed by
/// the server), within `within` when given.
///
/// # Errors
///
/// The client's error when the server cannot be reached or refuses; a timeout error
/// (`io::ErrorKind::TimedOut`) after `within`.
pub(crate) async fn subscribe(
    client: &redis::Client,
    channels: &[String],
    within: Option<Duration>,
) -> redis::RedisResult<redis::aio::PubSub> {
    let subscribing = async {
        let mut pubsub = client.get_async_pubsub().await?;
        pubsub.subscribe(channels).await?;
        Ok(pubsub)
    };
    match within {
        None => subscribing.await,
        Some(within) => tokio::time::timeout(within, subscribing)
            .await
            .unwrap_or_else(|_| {
                Err(std::io::Error::new(
                    std::io::ErrorKind::TimedOut,
                    format!("no subscription within {} ms", within.as_millis()),
                )
                .into())
            }),
    }
}

/// Hands each message published on `channels` to `message`, from the subscription `first`
/// on; after a lost connection calls `lost`, then subscribes again (every half second until
/// Redis is back, each attempt bounded by `within` when given). Never returns: the caller
/// ends it (aborting its task, or dropping it in a `select!`).
pub(crate) async fn follow(
    client: redis::Client,
    channels: Vec<String>,
    within: Option<Duration>,
    first: redis::aio::PubSub,
    mut message: impl FnMut(redis::Msg),
    mut lost: impl FnMut(),
) {
    let mut pubsub = Some(first);
    loop {
        let current = match pubsub.take() {
            Some(current) => current,
            None => match subscribe(&client, &channels, within).await {
                Ok(current) => current,
                Err(_) => {
                    tokio::time::sleep(RESUBSCRIBE_EVERY).await;
                    continue;
                }
            },
        };
        let mut messages = current.into_on_message();
        while let Some(published) = messages.next().await {
            message(published);
        }
        lost();
        tokio::time::sleep(RESUBSCRIBE_EVERY).await;
    }
}
