//! [`Reloadable`]: a value replaced whole while it is read, by every clone of its owner at
//! once: a server's tool list, its tool policy, a federation's servers.
//!
//! A `std` lock around an `Arc`: a reader holds the lock only to clone the `Arc` (a read lock,
//! so readers never wait for one another), and a replacement only to store the new value,
//! built before. Whoever took the value keeps it as it was: a request that started under the
//! old one finishes under it.

use std::sync::{Arc, RwLock};

use crate::lock::{read, write};

/// A value shared by every clone, replaced whole (see the [module docs](self)).
#[derive(Debug, Default)]
pub(crate) struct Reloadable<T>(Arc<RwLock<Arc<T>>>);

impl<T> Clone for Reloadable<T> {
    fn clone(&self) -> Self {
        Self(Arc::clone(&self.0))
    }
}

impl<T> Reloadable<T> {
    pub(crate) fn new(value: T) -> Self {
        Self(Arc::new(RwLock::new(Arc::new(value))))
    }

    /// The value now; whoever holds it keeps it as it is.
    pub(crate) fn get(&self) -> Arc<T> {
        // The lock guards an `Arc` that is only cloned or replaced: a panic cannot leave it
        // half written, so a poisoned lock holds a whole value.
        Arc::clone(&read(&self.0))
    }

    /// Makes `value` the value of every clone; the one it replaces.
    pub(crate) fn set(&self, value: T) -> Arc<T> {
        std::mem::replace(&mut *write(&self.0), Arc::new(value))
    }

    /// A handle that reads the value while some clone of this one lives.
    #[cfg(feature = "federation")]
    pub(crate) fn downgrade(&self) -> WeakReloadable<T> {
        WeakReloadable(Arc::downgrade(&self.0))
    }
}

/// A [`Reloadable`] that does not keep it alive (`Reloadable::downgrade`): a federation's
/// servers, read by the gateway's passthrough.
#[cfg(feature = "federation")]
#[derive(Debug)]
pub(crate) struct WeakReloadable<T>(std::sync::Weak<RwLock<Arc<T>>>);

#[cfg(feature = "federation")]
impl<T> Clone for WeakReloadable<T> {
    fn clone(&self) -> Self {
        Self(std::sync::Weak::clone(&self.0))
    }
}

#[cfg(feature = "federation")]
impl<T> WeakReloadable<T> {
    /// The value now, while its [`Reloadable`] lives.
    pub(crate) fn get(&self) -> Option<Arc<T>> {
        self.0.upgrade().map(|cell| Arc::clone(&read(&cell)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_replacement_reaches_every_clone_and_spares_the_value_held() {
        let cell = Reloadable::new(1);
        let clone = cell.clone();
        let held = cell.get();
        assert_eq!(*clone.set(2), 1);
        assert_eq!((*cell.get(), *held), (2, 1));
    }

    #[cfg(feature = "federation")]
    #[test]
    fn a_weak_handle_reads_the_value_while_a_clone_lives() {
        let cell = Reloadable::new(1);
        let weak = cell.downgrade();
        cell.set(2);
        assert_eq!(weak.get().as_deref(), Some(&2));
        drop(cell);
        assert!(weak.get().is_none());
    }
}
