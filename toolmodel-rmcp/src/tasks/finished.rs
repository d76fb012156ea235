//! [`FinishedHere`]: the tasks whose outcome a [`RedisTaskStore`](super::RedisTaskStore)
//! recorded itself, kept in its process so that a `tasks/get` for them is answered without
//! a round trip to Redis.
//!
//! Sound because a terminal status is final (SEP-2663): once `finish` has recorded an
//! outcome, no script of the store changes the task's hash again, and Redis deletes it at
//! `expires`, when the copy here expires too. A `tasks/get` that comes while the `finish` is
//! on its way waits for it rather than sending a read behind it on the same connection.
//! Bounded: at most [`MAX_TASKS`] tasks and [`MAX_BYTES`] of stored fields, the oldest
//! forgotten first; a task above [`MAX_TASK_BYTES`] is not kept.

use std::{
    collections::{HashMap, VecDeque},
    sync::{Arc, Mutex},
};

use tokio::sync::watch;

use super::{record::TaskRecord, store::now_ms};
use crate::lock::lock;

/// At most this many tasks are kept.
pub(super) const MAX_TASKS: usize = 1024;
/// At most this many bytes of stored fields (names and values) are kept in all.
pub(super) const MAX_BYTES: usize = 16 << 20;
/// A task whose stored fields take more bytes than this is not kept.
pub(super) const MAX_TASK_BYTES: usize = 1 << 20;

/// The tasks this store ended (see the module docs). Cheap to share: one per store, its
/// clones included.
#[derive(Debug, Default)]
pub(super) struct FinishedHere(Mutex<Kept>);

#[derive(Debug, Default)]
struct Kept {
    tasks: HashMap<Arc<str>, Entry>,
    /// The IDs of ended tasks, oldest first (some perhaps forgotten already).
    order: VecDeque<Arc<str>>,
    /// The bytes of the ended tasks kept.
    bytes: usize,
}

#[derive(Debug)]
enum Entry {
    /// A `finish` is on its way; the receiver turns `true` when it is back, recorded or not.
    Finishing(watch::Receiver<bool>),
    /// Ended by this store: the record as Redis holds it, and the bytes of its fields.
    Ended {
        record: Box<TaskRecord>,
        bytes: usize,
    },
}

/// What [`FinishedHere::lookup`] found.
#[derive(Debug)]
pub(super) enum Lookup {
    /// The task ended here: its record.
    Ended(Box<TaskRecord>),
    /// Its `finish` is on its way: look again once the receiver turns `true`.
    Finishing(watch::Receiver<bool>),
    /// Not known here: ask Redis.
    Unknown,
}

impl FinishedHere {
    fn kept(&self) -> std::sync::MutexGuard<'_, Kept> {
        // A panic while holding the lock leaves the maps consistent: each change is one step.
        lock(&self.0)
    }

    /// Notes that a `finish` of `task_id` is on its way, until the returned guard is ended or
    /// dropped.
    pub(super) fn start(self: &Arc<Self>, task_id: &str) -> Finishing {
        let (done, receiver) = watch::channel(false);
        let id: Arc<str> = Arc::from(task_id);
        let mut kept = self.kept();
        let owned = !kept.tasks.contains_key(&id);
        if owned {
            kept.tasks
                .insert(id.clone(), Entry::Finishing(receiver.clone()));
        }
        Finishing {
            finished: self.clone(),
            id,
            receiver: owned.then_some(receiver),
            done,
        }
    }

    /// The task `task_id` as this store ended it, if it did and it has not expired.
    pub(super) fn lookup(&self, task_id: &str) -> Lookup {
        let mut kept = self.kept();
        match kept.tasks.get(task_id) {
            None => Lookup::Unknown,
            Some(Entry::Finishing(receiver)) => Lookup::Finishing(receiver.clone()),
            Some(Entry::Ended { record, .. })
                if record.expires_at_ms.is_none_or(|at| now_ms() < at) =>
            {
                Lookup::Ended(record.clone())
            }
            Some(Entry::Ended { .. }) => {
                kept.forget(task_id);
                Lookup::Unknown
            }
        }
    }

    /// Forgets every ended task: called when Redis could not be reached, since it may have
    /// restarted without its data.
    pub(super) fn clear(&self) {
        let mut kept = self.kept();
        kept.tasks
            .retain(|_, entry| matches!(entry, Entry::Finishing(_)));
        kept.order.clear();
        kept.bytes = 0;
    }

    #[cfg(test)]
    fn len(&self) -> (usize, usize) {
        let kept = self.kept();
        let ended = kept
            .tasks
            .values()
            .filter(|entry| matches!(entry, Entry::Ended { .. }))
            .count();
        (ended, kept.bytes)
    }
}

impl Kept {
    fn forget(&mut self, task_id: &str) {
        if let Some(Entry::Ended { bytes, .. }) = self.tasks.get(task_id) {
            self.bytes -= bytes;
            self.tasks.remove(task_id);
        }
    }

    fn end(&mut self, id: Arc<str>, record: Box<TaskRecord>, bytes: usize) {
        self.order.push_back(id.clone());
        self.bytes += bytes;
        self.tasks.insert(id, Entry::Ended { record, bytes });
        while self.order.len() > MAX_TASKS || self.bytes > MAX_BYTES {
            let Some(oldest) = self.order.pop_front() else {
                break;
            };
            self.forget(&oldest);
        }
    }
}

/// A `finish` on its way (see [`FinishedHere::start`]): [`ended`](Self::ended) keeps the
/// task; dropped otherwise (not recorded, Redis out of reach, the future dropped), it forgets
/// it. Either way whoever waits on it is woken.
#[derive(Debug)]
pub(super) struct Finishing {
    finished: Arc<FinishedHere>,
    id: Arc<str>,
    /// `Some` when this guard's entry is the task's (no other entry was there before).
    receiver: Option<watch::Receiver<bool>>,
    done: watch::Sender<bool>,
}

impl Finishing {
    /// The `finish` recorded the task's outcome: keep `record`, whose stored fields take
    /// `bytes`.
    pub(super) fn ended(self, record: TaskRecord, bytes: usize) {
        if self.receiver.is_some() && bytes <= MAX_TASK_BYTES {
            let mut kept = self.finished.kept();
            kept.tasks.remove(&self.id);
            kept.end(self.id.clone(), Box::new(record), bytes);
        }
    }
}

impl Drop for Finishing {
    fn drop(&mut self) {
        if let Some(receiver) = &self.receiver {
            let mut kept = self.finished.kept();
            if matches!(kept.tasks.get(&self.id),
                Some(Entry::Finishing(entry)) if entry.same_channel(receiver))
            {
                kept.tasks.remove(&self.id);
            }
        }
        self.done.send_replace(true);
    }
}

#[cfg(test)]
mod tests {
    use rmcp::model::{Task, TaskStatus};

    use super::*;
    use crate::tasks::TaskOutcome;

    /// `RedisTaskStore`'s docs and the guide's "Tasks across replicas" say the bounds in
    /// words, where the constants cannot be linked: they change together.
    #[test]
    fn the_docs_say_the_bounds_these_constants_set() {
        let said = format!(
            "{},{:03} tasks and {} MiB",
            MAX_TASKS / 1000,
            MAX_TASKS % 1000,
            MAX_BYTES >> 20
        );
        let docs = [
            ("tasks/redis.rs", include_str!("redis.rs")),
            ("guide/tasks.md", include_str!("../guide/tasks.md")),
        ];
        for (file, text) in docs {
            let words: Vec<&str> = text
                .split_whitespace()
                .filter(|word| *word != "///")
                .collect();
            assert!(
                words.join(" ").contains(&said),
                "{file} does not say {said:?}"
            );
        }
    }

    fn ended(id: &str, expires_at_ms: Option<u64>) -> TaskRecord {
        let task = Task::new(
            id.to_owned(),
            TaskStatus::Completed,
            String::new(),
            String::new(),
        );
        let mut record = TaskRecord::new(task, "w", 0, 0);
        record.expires_at_ms = expires_at_ms;
        record.outcome = Some(TaskOutcome::Cancelled);
        record
    }

    #[test]
    fn an_ended_task_is_found_until_it_expires() {
        let finished = Arc::new(FinishedHere::default());
        finished.start("a").ended(ended("a", None), 10);
        finished
            .start("b")
            .ended(ended("b", Some(now_ms() - 1)), 10);
        assert!(
            matches!(finished.lookup("a"), Lookup::Ended(record) if record.task.task_id == "a")
        );
        assert!(matches!(finished.lookup("b"), Lookup::Unknown));
        assert!(matches!(finished.lookup("c"), Lookup::Unknown));
        assert_eq!(finished.len(), (1, 10));
    }

    #[tokio::test]
    async fn a_lookup_during_the_finish_waits_for_it() {
        let finished = Arc::new(FinishedHere::default());
        let finishing = finished.start("a");
        let Lookup::Finishing(mut receiver) = finished.lookup("a") else {
            panic!("not finishing");
        };
        let waiter = tokio::spawn(async move { receiver.wait_for(|done| *done).await.is_ok() });
        tokio::task::yield_now().await;
        assert!(!waiter.is_finished());
        finishing.ended(ended("a", None), 1);
        assert!(waiter.await.unwrap());
        assert!(matches!(finished.lookup("a"), Lookup::Ended(_)));
    }

    #[test]
    fn a_finish_not_recorded_is_forgotten_and_wakes_its_waiters() {
        let finished = Arc::new(FinishedHere::default());
        let finishing = finished.start("a");
        let Lookup::Finishing(receiver) = finished.lookup("a") else {
            panic!("not finishing");
        };
        drop(finishing);
        assert!(*receiver.borrow());
        assert!(matches!(finished.lookup("a"), Lookup::Unknown));
    }

    #[test]
    fn the_oldest_go_first_beyond_the_count_or_the_bytes() {
        let finished = Arc::new(FinishedHere::default());
        for n in 0..=MAX_TASKS {
            let id = n.to_string();
            finished.start(&id).ended(ended(&id, None), 1);
        }
        assert!(matches!(finished.lookup("0"), Lookup::Unknown));
        assert!(matches!(finished.lookup("1"), Lookup::Ended(_)));
        assert_eq!(finished.len(), (MAX_TASKS, MAX_TASKS));
        // Large ones push out the oldest, small or large, to stay within the bytes.
        finished
            .start("large")
            .ended(ended("large", None), MAX_TASK_BYTES);
        finished
            .start("too-big")
            .ended(ended("too-big", None), MAX_TASK_BYTES + 1);
        assert!(matches!(finished.lookup("too-big"), Lookup::Unknown));
        for n in 0..16 {
            let id = format!("big{n}");
            finished.start(&id).ended(ended(&id, None), MAX_TASK_BYTES);
        }
        let (count, bytes) = finished.len();
        assert!(bytes <= MAX_BYTES, "{bytes}");
        assert_eq!(count, MAX_BYTES / MAX_TASK_BYTES);
        assert!(matches!(finished.lookup("big15"), Lookup::Ended(_)));
        assert!(matches!(finished.lookup("large"), Lookup::Unknown));
        assert!(matches!(finished.lookup("1024"), Lookup::Unknown));
    }

    #[test]
    fn clearing_forgets_the_ended_and_keeps_the_finishing() {
        let finished = Arc::new(FinishedHere::default());
        finished.start("a").ended(ended("a", None), 5);
        let finishing = finished.start("b");
        finished.clear();
        assert!(matches!(finished.lookup("a"), Lookup::Unknown));
        assert!(matches!(finished.lookup("b"), Lookup::Finishing(_)));
        assert_eq!(finished.len(), (0, 0));
        finishing.ended(ended("b", None), 5);
        assert!(matches!(finished.lookup("b"), Lookup::Ended(_)));
    }
}
