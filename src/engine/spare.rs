//! Allocations kept by a thread for reuse: the objects every nonblocking call makes (its
//! request, a receive's state) come from here and go back here when they complete.
//!
//! A nonblocking message allocated three objects (both requests and the receive) and freed
//! them at completion. A window of 64 messages in flight holds 192 of them, more than glibc's
//! per-thread cache keeps of one size (7), so most allocations and frees took its slower paths:
//! about 1,200 of a message's 4,000 instructions (`docs/performance.md`, "What a nonblocking
//! message costs"). A library cannot replace the application's allocator; it can keep its own
//! allocations.
//!
//! Only an allocation nothing else refers to is kept ([`Arc::get_mut`]), emptied first of
//! everything it refers to (see [`Spares::keep`]), so a kept object holds no communicator,
//! buffer or host request alive. At most [`KEEP`] per thread and kind; the rest are freed.
//! Each list belongs to its thread's `thread_local!` and is freed with the thread.

use std::cell::RefCell;
use std::sync::Arc;
use std::thread::LocalKey;

/// Objects of one kind a thread keeps: two windows of 64 nonblocking calls in flight
/// (`msgrate`'s, a halo exchange's), which complete together and are posted again together.
pub(crate) const KEEP: usize = 128;

/// One thread's spare allocations of `T`, held in a `thread_local!` and used through
/// [`wrap`] and [`keep`].
pub(crate) struct Spares<T>(RefCell<Vec<Arc<T>>>);

impl<T> Spares<T> {
    pub(crate) const fn new() -> Self {
        Spares(RefCell::new(Vec::new()))
    }
}

/// `value` in one of this thread's kept allocations (`spares`) when there is one, else in a
/// new one (also while the thread is being torn down).
#[inline]
pub(crate) fn wrap<T: 'static>(spares: &'static LocalKey<Spares<T>>, value: T) -> Arc<T> {
    // The list's borrow ends before the old value is dropped: that value holds nothing (see
    // `keep`), but no drop runs while the list is borrowed.
    let spare = spares.try_with(|s| s.0.try_borrow_mut().ok().and_then(|mut v| v.pop())).ok().flatten();
    match spare {
        Some(a) => {
            // SAFETY: `a` is the only reference to its allocation: `keep` kept it only after
            // `Arc::get_mut` found it unique (no other `Arc`, no `Weak`), and it has since
            // been in this thread's list, from which nothing clones. So writing through the
            // pointer (whose provenance is the allocation's) races with nothing; the old
            // value is dropped in place, as `Arc::get_mut`'s assignment would (it holds
            // nothing). `Arc::get_mut` here would repeat the uniqueness test, a locked
            // compare-exchange per allocation.
            unsafe { *(Arc::as_ptr(&a) as *mut T) = value };
            a
        }
        None => Arc::new(value),
    }
}

/// Keeps `a`'s allocation among this thread's `spares` when nothing else refers to it, after
/// `empty` has dropped what the value refers to; otherwise (shared, `KEEP` already kept, the
/// thread torn down) just drops `a`.
#[inline]
pub(crate) fn keep<T: 'static>(spares: &'static LocalKey<Spares<T>>, mut a: Arc<T>, empty: impl FnOnce(&mut T)) {
    let Some(value) = Arc::get_mut(&mut a) else { return };
    // Outside the list's borrow: emptying may drop the last reference to a communicator, whose
    // teardown may complete requests and keep them here.
    empty(value);
    let _ = spares.try_with(|s| {
        if let Ok(mut v) = s.0.try_borrow_mut() {
            if v.len() < KEEP {
                v.push(a);
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    thread_local! {
        static VECS: Spares<Vec<u8>> = const { Spares::new() };
        static NUMBERS: Spares<u32> = const { Spares::new() };
    }

    #[test]
    fn kept_allocations_are_reused_and_shared_ones_are_not() {
        let a = wrap(&VECS, vec![1, 2, 3]);
        let addr = Arc::as_ptr(&a);
        keep(&VECS, a, |v| v.clear());
        let b = wrap(&VECS, vec![4]);
        assert_eq!(Arc::as_ptr(&b), addr, "the kept allocation is reused");
        assert_eq!(*b, vec![4]);
        let shared = b.clone();
        keep(&VECS, b, |_| panic!("a shared allocation is not emptied"));
        let c = wrap(&VECS, vec![5]);
        assert_ne!(Arc::as_ptr(&c), addr, "a shared allocation is not kept");
        assert_eq!(*shared, vec![4]);
    }

    #[test]
    fn at_most_keep_are_kept() {
        let all: Vec<Arc<u32>> = (0..KEEP as u32 + 10).map(|i| wrap(&NUMBERS, i)).collect();
        for a in all {
            keep(&NUMBERS, a, |_| {});
        }
        assert_eq!(NUMBERS.with(|s| s.0.borrow().len()), KEEP);
    }
}
