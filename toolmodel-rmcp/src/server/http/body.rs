//! The body stage: reads a `POST`'s whole body, within
//! [`HttpLimits::max_body_bytes`](super::HttpLimits::max_body_bytes) and
//! [`HttpLimits::body_read_timeout`](super::HttpLimits::body_read_timeout), from any
//! [`http_body::Body`]. It runs after the stages that look at the head only, so a request
//! they refuse is never read.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt as _, LengthLimitError, Limited};

use super::refusal::Refusal;

/// A request body's errors, as `http-body-util` and `tower` box them.
pub(super) type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The whole of `body`, at most `max_bytes` of it, arrived within `timeout`.
///
/// # Errors
///
/// [`Refusal::BodyTooLarge`] past `max_bytes`, [`Refusal::BodyTimeout`] when `timeout`
/// passes first, [`Refusal::BodyUnreadable`] when the body fails (the client reset the
/// connection, a broken chunked encoding).
pub(super) async fn read<B>(body: B, max_bytes: usize, timeout: Duration) -> Result<Bytes, Refusal>
where
    B: http_body::Body,
    B::Error: Into<BoxError>,
{
    let collect = Limited::new(body, max_bytes).collect();
    match tokio::time::timeout(timeout, collect).await {
        Ok(Ok(collected)) => Ok(collected.to_bytes()),
        Ok(Err(err)) if err.is::<LengthLimitError>() => Err(Refusal::BodyTooLarge(max_bytes)),
        Ok(Err(err)) => Err(Refusal::BodyUnreadable(err.to_string())),
        Err(_elapsed) => Err(Refusal::BodyTimeout(timeout)),
    }
}

#[cfg(test)]
pub(super) mod tests {
    use std::{
        pin::Pin,
        task::{Context, Poll},
    };

    use http_body::Frame;
    use http_body_util::Full;

    use super::*;

    /// A body that does not come: the client sent its head and stalls, or its connection
    /// broke.
    pub(in crate::server::http) enum Missing {
        Stalled,
        Broken,
    }

    impl http_body::Body for Missing {
        type Data = Bytes;
        type Error = std::io::Error;

        fn poll_frame(
            self: Pin<&mut Self>,
            _cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, std::io::Error>>> {
            match *self {
                Self::Stalled => Poll::Pending,
                Self::Broken => Poll::Ready(Some(Err(std::io::Error::new(
                    std::io::ErrorKind::ConnectionReset,
                    "connection reset",
                )))),
            }
        }
    }

    const SECOND: Duration = Duration::from_secs(1);

    #[tokio::test]
    async fn a_body_within_the_limit_is_read_whole() {
        let body = Full::new(Bytes::from_static(b"{\"jsonrpc\":\"2.0\"}"));
        assert_eq!(
            read(body, 17, SECOND).await,
            Ok(Bytes::from_static(b"{\"jsonrpc\":\"2.0\"}"))
        );
    }

    #[tokio::test]
    async fn a_body_over_the_limit_is_too_large() {
        let body = Full::new(Bytes::from_static(b"{\"jsonrpc\":\"2.0\"}"));
        assert_eq!(read(body, 16, SECOND).await, Err(Refusal::BodyTooLarge(16)));
    }

    #[tokio::test]
    async fn a_stalled_body_times_out() {
        let timeout = Duration::from_millis(20);
        assert_eq!(
            read(Missing::Stalled, 64, timeout).await,
            Err(Refusal::BodyTimeout(timeout))
        );
    }

    #[tokio::test]
    async fn a_broken_body_is_unreadable_and_says_why() {
        assert_eq!(
            read(Missing::Broken, 64, SECOND).await,
            Err(Refusal::BodyUnreadable("connection reset".into()))
        );
    }
}
