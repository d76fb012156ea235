//! A tool's [`timeout`](crate::Tool::timeout) enforced on a call: the call raced against the
//! peer's timer ([`CallPeer::sleep`](crate::peer::CallPeer::sleep)) with `std` futures alone, so
//! that it works under any executor.

use std::future::{Future, poll_fn};
use std::pin::pin;
use std::task::Poll;
use std::time::Duration;

use crate::call::cancellation::Cancellation;
use crate::call::peer::BoxFuture;
use crate::call::result::CallToolResult;
use crate::error::Error;

/// Runs `call` until it ends or `timer` fires, whichever comes first (the call is polled
/// first, so a call that is ready when the timer is returns its own result).
///
/// When the timer fires, `cancellation` (the call's, which its handler sees) is set, the call
/// is dropped, and the result is [`timed_out`]'s `isError` result naming `tool` and `limit`.
pub(crate) async fn within<T>(
    call: impl Future<Output = Result<CallToolResult, Error>>,
    timer: BoxFuture<'static, T>,
    limit: Duration,
    tool: &str,
    cancellation: &Cancellation,
) -> Result<CallToolResult, Error> {
    let mut call = pin!(call);
    let mut timer = timer;
    let finished = poll_fn(|cx| {
        if let Poll::Ready(outcome) = call.as_mut().poll(cx) {
            return Poll::Ready(Some(outcome));
        }
        timer.as_mut().poll(cx).map(|_| None)
    })
    .await;
    match finished {
        Some(outcome) => outcome,
        None => {
            cancellation.cancel();
            Ok(timed_out(tool, limit))
        }
    }
}

/// The `isError` result of a call that ran past its tool's timeout: it names the tool and
/// the limit (as `#[tool(timeout = "...")]` writes it, and in milliseconds as `timeoutMs`).
pub(crate) fn timed_out(tool: &str, limit: Duration) -> CallToolResult {
    CallToolResult::error(format!(
        "tool {tool:?} did not finish within its timeout of {} (timeoutMs {}); the call was cancelled",
        spelled(limit),
        limit.as_millis()
    ))
}

/// A limit in the largest unit of `ms`, `s` and `m` that writes it whole: `90s`, `2m`,
/// `1500ms`.
fn spelled(limit: Duration) -> String {
    let millis = limit.as_millis();
    if millis != 0 && millis.is_multiple_of(60_000) {
        format!("{}m", millis / 60_000)
    } else if millis != 0 && millis.is_multiple_of(1_000) {
        format!("{}s", millis / 1_000)
    } else {
        format!("{millis}ms")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_are_spelled_in_the_largest_whole_unit() {
        let spell = |ms| spelled(Duration::from_millis(ms));
        assert_eq!(
            [spell(120_000), spell(90_000), spell(1_500), spell(30_000)],
            ["2m", "90s", "1500ms", "30s"]
        );
    }

    #[test]
    fn a_call_that_never_ends_loses_to_a_fired_timer_and_is_cancelled() {
        let cancellation = Cancellation::new();
        let result = pollster::block_on(within(
            std::future::pending(),
            Box::pin(std::future::ready(())),
            Duration::from_secs(30),
            "slow",
            &cancellation,
        ))
        .unwrap();
        assert!(result.is_error());
        assert!(cancellation.is_cancelled());
        let text = serde_json::to_string(&result).unwrap();
        assert!(
            text.contains(
                r#"tool \"slow\" did not finish within its timeout of 30s (timeoutMs 30000)"#
            ),
            "{text}"
        );
    }

    #[test]
    fn a_ready_call_wins_over_a_fired_timer() {
        let cancellation = Cancellation::new();
        let result = pollster::block_on(within(
            std::future::ready(Ok(CallToolResult::text("done"))),
            Box::pin(std::future::ready(())),
            Duration::from_millis(1),
            "fast",
            &cancellation,
        ))
        .unwrap();
        assert!(!result.is_error());
        assert!(!cancellation.is_cancelled());
    }
}
