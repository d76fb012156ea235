//! Locks that outlive a panic: [`lock`](fn), [`read`](fn) and [`write`](fn) take a `std::sync` lock even
//! when a thread panicked while holding it.
//!
//! Every critical section of this crate leaves the data it guards whole (a table entry
//! inserted or removed, a value replaced), so a panic elsewhere under the lock (a bug, an
//! allocation failure) leaves nothing half-written: refusing the lock from then on would
//! turn one panic into a server that answers nothing. The guard is taken as it is.

use std::sync::{Mutex, MutexGuard, PoisonError, RwLock, RwLockReadGuard, RwLockWriteGuard};

/// `mutex`, locked, poisoned or not.
pub(crate) fn lock<T: ?Sized>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// `rwlock`, read-locked, poisoned or not.
pub(crate) fn read<T: ?Sized>(rwlock: &RwLock<T>) -> RwLockReadGuard<'_, T> {
    rwlock.read().unwrap_or_else(PoisonError::into_inner)
}

/// `rwlock`, write-locked, poisoned or not.
pub(crate) fn write<T: ?Sized>(rwlock: &RwLock<T>) -> RwLockWriteGuard<'_, T> {
    rwlock.write().unwrap_or_else(PoisonError::into_inner)
}
