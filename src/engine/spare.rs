//! Allocations kept by a thread for reuse: the objects every nonblocking call makes (its
//! request, a receive's state, a small host send's packet) come from here and go back here
//! when they complete.
//!
//! A nonblocking message makes three objects (both requests and the receive) and frees them at
//! completion. A window of 64 messages in flight holds 192 of them, more than glibc's
//! per-thread cache keeps of one size (7), so from the allocator most allocations and frees
//! would take its slower paths: about 1,200 of a message's 4,000 instructions
//! (`docs/performance.md`, "What a nonblocking message costs"). A library cannot replace the
//! application's allocator; it can keep its own allocations.
//!
//! Only an allocation nothing else refers to is kept (see [`keep`]), emptied first of
//! everything it refers to, so a kept object holds no communicator, buffer or host request
//! alive. At most [`KEEP`] per thread and kind; the rest are freed.
//! Each list belongs to its thread's `thread_local!` and is freed with the thread.

use std::cell::RefCell;
use std::sync::atomic::{fence, Ordering};
use std::sync::Arc;
use std::thread::LocalKey;

/// Objects of one kind a thread keeps: two windows of 64 nonblocking calls in flight
/// (`msgrate`'s, a halo exchange's), which complete together and are posted again together.
pub(crate) const KEEP: usize = 128;

/// A type whose `Arc`s are never downgraded: no `Weak<Self>` ever exists, so an `Arc` that
/// is the only strong reference is the only reference (see [`keep`]).
///
/// # Safety
/// Nothing may call `Arc::downgrade` on an `Arc<Self>`.
pub(crate) unsafe trait NeverWeak {}

/// One thread's kept allocations of one kind (`Arc<T>`s through [`wrap`] and [`keep`], or
/// packets), held in a `thread_local!`.
pub(crate) struct List<P>(RefCell<Vec<P>>);

/// One thread's spare `Arc<T>` allocations.
pub(crate) type Spares<T> = List<Arc<T>>;

impl<P> List<P> {
    pub(crate) const fn new() -> Self {
        List(RefCell::new(Vec::new()))
    }
}

/// One of this thread's kept items, if any (none while the thread is being torn down).
#[inline]
fn take<P: 'static>(list: &'static LocalKey<List<P>>) -> Option<P> {
    list.try_with(|l| l.0.try_borrow_mut().ok().and_then(|mut v| v.pop())).ok().flatten()
}

/// Keeps `item` among this thread's, when fewer than [`KEEP`] are; drops it otherwise (and
/// while the thread is being torn down).
#[inline]
fn put<P: 'static>(list: &'static LocalKey<List<P>>, item: P) {
    let _ = list.try_with(|l| {
        if let Ok(mut v) = l.0.try_borrow_mut() {
            if v.len() < KEEP {
                v.push(item);
            }
        }
    });
}

/// `value` in one of this thread's kept allocations (`spares`) when there is one, else in a
/// new one (also while the thread is being torn down).
#[inline]
pub(crate) fn wrap<T: NeverWeak + 'static>(spares: &'static LocalKey<Spares<T>>, value: T) -> Arc<T> {
    // The list's borrow ends before the old value is dropped: that value holds nothing (see
    // `keep`), but no drop runs while the list is borrowed.
    match take(spares) {
        Some(a) => {
            // SAFETY: `a` is the only reference to its allocation: `keep` kept it only once
            // it was (see there), and it has since been in this thread's list, from which
            // nothing clones. So writing through the pointer (whose provenance is the
            // allocation's) races with nothing; the old value is dropped in place, as an
            // assignment through `Arc::get_mut` would (it holds nothing). `Arc::get_mut` here
            // would repeat the uniqueness test, a locked compare-exchange per allocation.
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
pub(crate) fn keep<T: NeverWeak + 'static>(spares: &'static LocalKey<Spares<T>>, a: Arc<T>, empty: impl FnOnce(&mut T)) {
    // `Arc::get_mut` would lock the weak count with a compare-exchange to rule out a `Weak`
    // being upgraded meanwhile; `T` has no `Weak`s (`NeverWeak`), so one strong reference,
    // ours, means no other. A load suffices, and the acquire fence orders every access other
    // holders made before they dropped their references (each drop a release decrement, the
    // one `Arc`'s own last drop synchronises with) before ours.
    if Arc::strong_count(&a) != 1 {
        return;
    }
    fence(Ordering::Acquire);
    // SAFETY: `a` is the only reference to its allocation (above), so the exclusive borrow
    // aliases nothing; the pointer's provenance is the allocation's.
    let value = unsafe { &mut *(Arc::as_ptr(&a) as *mut T) };
    // Outside the list's borrow: emptying may drop the last reference to a communicator, whose
    // teardown may complete requests and keep them here.
    empty(value);
    put(spares, a);
}

/// Capacity of a kept packet: the eager host packets of small messages (a header and up to
/// 244 bytes of data) are built in these.
pub(crate) const PACKET_CAPACITY: usize = 256;

thread_local! {
    /// This thread's spare packets, each of capacity `PACKET_CAPACITY`.
    static PACKETS: List<Vec<u8>> = const { List::new() };
}

/// An empty packet for `bytes` bytes: one this thread kept when they fit in
/// `PACKET_CAPACITY`, else a new one.
#[inline]
pub(crate) fn packet(bytes: usize) -> Vec<u8> {
    if bytes > PACKET_CAPACITY {
        return Vec::with_capacity(bytes);
    }
    take(&PACKETS).unwrap_or_else(|| Vec::with_capacity(PACKET_CAPACITY))
}

/// Keeps a packet the host no longer reads for this thread's next [`packet`], when it is one
/// of their capacity (and fewer than `KEEP` are kept); frees it otherwise.
#[inline]
pub(crate) fn keep_packet(mut p: Vec<u8>) {
    if p.capacity() != PACKET_CAPACITY {
        return;
    }
    p.clear();
    put(&PACKETS, p);
}

#[cfg(test)]
mod tests {
    use super::*;

    struct Bytes(Vec<u8>);
    // SAFETY: the tests never downgrade.
    unsafe impl NeverWeak for Bytes {}
    // SAFETY: the tests never downgrade.
    unsafe impl NeverWeak for u32 {}

    thread_local! {
        static VECS: Spares<Bytes> = const { Spares::new() };
        static NUMBERS: Spares<u32> = const { Spares::new() };
    }

    #[test]
    fn kept_allocations_are_reused_and_shared_ones_are_not() {
        let a = wrap(&VECS, Bytes(vec![1, 2, 3]));
        let addr = Arc::as_ptr(&a);
        keep(&VECS, a, |v| v.0.clear());
        let b = wrap(&VECS, Bytes(vec![4]));
        assert_eq!(Arc::as_ptr(&b), addr, "the kept allocation is reused");
        assert_eq!(b.0, vec![4]);
        let shared = b.clone();
        keep(&VECS, b, |_| panic!("a shared allocation is not emptied"));
        let c = wrap(&VECS, Bytes(vec![5]));
        assert_ne!(Arc::as_ptr(&c), addr, "a shared allocation is not kept");
        assert_eq!(shared.0, vec![4]);
    }

    #[test]
    fn small_packets_are_kept_and_large_ones_are_not() {
        let p = packet(20);
        assert!(p.is_empty() && p.capacity() == PACKET_CAPACITY);
        let addr = p.as_ptr();
        let mut p = p;
        p.extend_from_slice(&[7; 20]);
        keep_packet(p);
        let q = packet(PACKET_CAPACITY);
        assert!(q.is_empty() && q.as_ptr() == addr, "a kept packet is reused, emptied");
        let big = packet(PACKET_CAPACITY + 1);
        assert!(big.capacity() > PACKET_CAPACITY);
        let kept = || PACKETS.with(|v| v.0.borrow().len());
        let before = kept();
        keep_packet(big);
        assert_eq!(kept(), before, "a large packet is not kept");
        keep_packet(q);
        assert_eq!(kept(), before + 1);
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
