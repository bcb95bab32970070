//! A process-wide list of operations whose owners went before the host finished them: a
//! request freed while active, a host operation dropped by a call that failed, a direct-mode
//! transfer whose receive was freed. Patient blocked calls test each orphan until it is done
//! (the scheme of the MPICH ADI2 note for freed requests: the device keeps a freed request
//! until its operation completes). The kinds of orphans differ in what "done" means and what
//! must happen then; the list, its lock and the test outside the lock are the same.
//!
//! Engine support: it knows nothing of what it holds.

use parking_lot::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Orphans of one kind. Thread safety: any thread adopts and progresses.
pub struct Orphanage<T> {
    list: Mutex<Vec<T>>,
    /// `list`'s length, read without its lock by calls that have nothing to do.
    len: AtomicUsize,
}

impl<T> Orphanage<T> {
    /// An empty orphanage (for a `static`).
    pub const fn new() -> Self {
        Orphanage { list: Mutex::new(Vec::new()), len: AtomicUsize::new(0) }
    }

    /// How many orphans wait (read without the lock: a hint).
    pub fn waiting(&self) -> usize {
        self.len.load(Ordering::Relaxed)
    }

    /// Takes in `orphans`.
    pub fn adopt(&self, orphans: impl IntoIterator<Item = T>) {
        let mut l = self.list.lock();
        l.extend(orphans);
        self.len.store(l.len(), Ordering::Relaxed);
    }

    /// Runs `still_pending` once on every orphan and keeps those for which it returns true.
    /// The orphans are tested outside the lock: a test may progress endpoints whose own
    /// orphans come here meanwhile, and what leaves is dropped without the lock held.
    pub fn progress(&self, still_pending: impl FnMut(&mut T) -> bool) {
        if self.len.load(Ordering::Relaxed) == 0 {
            return;
        }
        let mut taken = std::mem::take(&mut *self.list.lock());
        taken.retain_mut(still_pending);
        self.adopt(taken);
    }
}
