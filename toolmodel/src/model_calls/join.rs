//! Running futures side by side on whatever executor polls them: a `join_all` on
//! `std::future` alone (no runtime, no `futures` crate).

use std::{
    future::Future,
    pin::Pin,
    task::{Context, Poll},
};

/// One future of a [`JoinAll`]: running, or finished with its output kept until all are.
enum Slot<F: Future> {
    Running(F),
    Done(Option<F::Output>),
}

/// Polls every unfinished future on each wake-up and gives their outputs in the order given.
///
/// Every future registers the same waker, so any of them waking the task gets all unfinished
/// ones polled again: `O(n)` polls per wake-up, nothing for a handful of tool calls, and no
/// queue to keep. The futures are `Unpin` (a tool call's future is boxed by the
/// [`Toolbox`](crate::Toolbox) already), so they are polled where they are, with no box of
/// their own.
pub(crate) struct JoinAll<F: Future> {
    slots: Vec<Slot<F>>,
}

/// The futures of `futures`, run concurrently; the output is in the order given.
pub(crate) fn join_all<F: Future + Unpin>(futures: impl IntoIterator<Item = F>) -> JoinAll<F> {
    JoinAll {
        slots: futures.into_iter().map(Slot::Running).collect(),
    }
}

// The futures are `Unpin` and the outputs are never pinned: moving a `JoinAll` moves
// nothing pinned.
impl<F: Future + Unpin> Unpin for JoinAll<F> {}

impl<F: Future + Unpin> Future for JoinAll<F> {
    type Output = Vec<F::Output>;

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = self.get_mut();
        let mut pending = false;
        for slot in &mut this.slots {
            if let Slot::Running(future) = slot {
                match Pin::new(future).poll(cx) {
                    Poll::Ready(output) => *slot = Slot::Done(Some(output)),
                    Poll::Pending => pending = true,
                }
            }
        }
        if pending {
            return Poll::Pending;
        }
        Poll::Ready(
            this.slots
                .iter_mut()
                .filter_map(|slot| match slot {
                    Slot::Done(output) => output.take(),
                    Slot::Running(_) => None,
                })
                .collect(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::{
        sync::{
            Arc,
            atomic::{AtomicUsize, Ordering},
        },
        time::Duration,
    };

    /// Ready after `n` polls, waking itself each time: the order of completion is the reverse
    /// of the order given when `n` falls along the list.
    struct Countdown {
        left: usize,
        value: usize,
        finished: Arc<AtomicUsize>,
        order: Arc<std::sync::Mutex<Vec<usize>>>,
    }

    impl Future for Countdown {
        type Output = usize;
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
            if self.left == 0 {
                self.finished.fetch_add(1, Ordering::SeqCst);
                self.order.lock().unwrap().push(self.value);
                Poll::Ready(self.value)
            } else {
                self.left -= 1;
                cx.waker().wake_by_ref();
                Poll::Pending
            }
        }
    }

    fn countdowns(
        finished: &Arc<AtomicUsize>,
        order: &Arc<std::sync::Mutex<Vec<usize>>>,
    ) -> Vec<Countdown> {
        (0..5)
            .map(|value| Countdown {
                left: 5 - value,
                value,
                finished: Arc::clone(finished),
                order: Arc::clone(order),
            })
            .collect()
    }

    #[test]
    fn outputs_keep_the_order_given_whatever_order_they_finish_in() {
        let finished = Arc::new(AtomicUsize::new(0));
        let order = Arc::new(std::sync::Mutex::new(Vec::new()));
        let out = pollster::block_on(join_all(countdowns(&finished, &order)));
        assert_eq!(out, [0, 1, 2, 3, 4]);
        assert_eq!(*order.lock().unwrap(), [4, 3, 2, 1, 0]);
        assert_eq!(finished.load(Ordering::SeqCst), 5);
        let empty: Vec<Countdown> = Vec::new();
        assert!(pollster::block_on(join_all(empty)).is_empty());
    }

    #[test]
    fn futures_run_at_the_same_time_under_tokio_and_futures_executor() {
        // Three sleeps of 200 ms: concurrent, they take about 200 ms, not 600.
        let rt = tokio::runtime::Builder::new_multi_thread()
            .enable_time()
            .build()
            .unwrap();
        let started = std::time::Instant::now();
        let out = rt.block_on(join_all((0..3).map(|i| {
            Box::pin(async move {
                tokio::time::sleep(Duration::from_millis(200)).await;
                i
            })
        })));
        assert_eq!(out, [0, 1, 2]);
        assert!(started.elapsed() < Duration::from_millis(500));

        // futures::executor, with threads that wake the task: the same.
        let started = std::time::Instant::now();
        let out = futures_executor::block_on(join_all((0..3).map(|value| ThreadDone {
            done: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            spawned: false,
            value,
        })));
        assert_eq!(out, [0, 1, 2]);
        assert!(started.elapsed() < Duration::from_millis(500));
    }

    /// Ready 200 ms after its first poll; a thread of its own sets the flag, then wakes the
    /// task.
    struct ThreadDone {
        done: Arc<std::sync::atomic::AtomicBool>,
        spawned: bool,
        value: usize,
    }

    impl Future for ThreadDone {
        type Output = usize;
        fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<usize> {
            if self.done.load(Ordering::SeqCst) {
                return Poll::Ready(self.value);
            }
            if !self.spawned {
                self.spawned = true;
                let (done, waker) = (Arc::clone(&self.done), cx.waker().clone());
                std::thread::spawn(move || {
                    std::thread::sleep(Duration::from_millis(200));
                    done.store(true, Ordering::SeqCst);
                    waker.wake();
                });
            }
            Poll::Pending
        }
    }
}
