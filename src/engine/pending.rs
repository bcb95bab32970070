//! The process's registry of endpoints with posted receives, which every patient blocked call
//! progresses whichever thread posted them (MPI's progress rule, see
//! [`super::progress::progress_pending`]).
//!
//! Below the receive operations, which register an endpoint when they post, and the progress
//! driver, which visits the registered endpoints: this module only keeps the list.

use super::comm::CommShared;
use super::p2p::queues::Queues;
use parking_lot::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

/// Endpoints with posted receives, registered per process: (communicator, local index).
/// An endpoint is here exactly while its `Queues::registered` is set (both change under its
/// queue lock, or with the list taken by [`visit`]).
static PENDING: Mutex<Vec<(Weak<CommShared>, u32)>> = Mutex::new(Vec::new());
/// `PENDING`'s length (entries taken by a running [`visit`] included), read without its lock
/// by patient calls that have nothing to do.
static PENDING_LEN: AtomicUsize = AtomicUsize::new(0);

/// Registers endpoint `local` of `shared`, which has just posted a receive, with the process,
/// unless it is registered already (`q` is its matching state, locked by the caller): from
/// then on every patient blocked call of the process progresses it, whichever OS thread posted
/// the receive or waits. The common case, an endpoint already registered, reads one flag the
/// caller holds under its lock anyway.
#[inline]
pub(crate) fn register_pending(shared: &Arc<CommShared>, local: u32, q: &mut Queues) {
    if !q.registered {
        q.registered = true;
        register_slow(shared, local);
    }
}

#[cold]
fn register_slow(shared: &Arc<CommShared>, local: u32) {
    PENDING.lock().push((Arc::downgrade(shared), local));
    PENDING_LEN.fetch_add(1, Ordering::Relaxed);
}

/// Runs `visit` on every registered endpoint with its matching state locked; `visit` says
/// whether the endpoint stays registered. Endpoints in use by another thread (their queue
/// lock held) are left to it and stay; freed communicators drop out. One thread visits at a
/// time: another one's call finds the list taken and returns.
pub(crate) fn visit(mut visit: impl FnMut(&CommShared, u32, &mut Queues) -> bool) {
    if PENDING_LEN.load(Ordering::Relaxed) == 0 {
        return;
    }
    let mut entries = std::mem::take(&mut *PENDING.lock());
    if entries.is_empty() {
        return; // another thread is at it
    }
    let before = entries.len();
    entries.retain(|(weak, local)| {
        let Some(shared) = weak.upgrade() else {
            return false;
        };
        let Some(mut q) = shared.endpoints[*local as usize].queues.try_lock() else {
            return true;
        };
        let keep = visit(&shared, *local, &mut q);
        q.registered = keep;
        keep
    });
    PENDING_LEN.fetch_sub(before - entries.len(), Ordering::Relaxed);
    PENDING.lock().append(&mut entries);
}
