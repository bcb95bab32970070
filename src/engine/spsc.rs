//! The ring of the local transport's channels (see [`super::local`]): one producer, one
//! consumer, a ring of cache-line cells plus an overflow list for when the ring is full.
//!
//! Depends on nothing but [`crate::engine::sync`] on purpose: `tests/loom` includes this
//! file and model-checks it with `loom`'s atomics, cell and mutex (that module switches on
//! `cfg(loom)`), so every interleaving of a producer and a consumer is explored for lost,
//! duplicated or reordered messages and for unsynchronised accesses to a cell.

use crate::engine::sync::{AtomicBool, AtomicU64, Mutex, Ordering, UnsafeCell};
use std::collections::VecDeque;
use std::mem::MaybeUninit;

#[repr(align(64))]
struct Cell<T> {
    /// `i + 1` when the cell holds message `i`; `i + cells` once message `i` is taken,
    /// which is the value the sender of message `i + cells` waits for.
    seq: AtomicU64,
    message: UnsafeCell<MaybeUninit<T>>,
}

#[repr(align(64))]
struct Counter(AtomicU64);

/// One sender's channel to one receiver: `push` from one thread at a time, `pop`/`drain`
/// from one thread at a time (the two may be different threads).
pub struct Channel<T> {
    cells: Box<[Cell<T>]>,
    /// Next message number to send (sender side).
    tail: Counter,
    /// Next message number to take (receiver side).
    head: Counter,
    /// Messages sent while the ring was full, and everything after them until the receiver
    /// empties it; `overflowing` says it is not empty (both change under its lock).
    overflow: Mutex<VecDeque<T>>,
    overflowing: AtomicBool,
}

// SAFETY: a cell's message is written only by the sender before it publishes `seq`, read only
// by the receiver after it sees `seq` (release/acquire), and the two never hold the same cell.
unsafe impl<T: Send> Send for Channel<T> {}
unsafe impl<T: Send> Sync for Channel<T> {}

impl<T> Channel<T> {
    /// A channel whose ring has `cells` cells, at least 2: with one cell the value that
    /// says "holds message i" (i + 1) would equal the one that says "free for message i + 1"
    /// (i + cells), and the sender would overwrite a message not yet taken (loom found it).
    pub fn new(cells: u64) -> Channel<T> {
        assert!(cells >= 2, "a channel ring needs at least 2 cells");
        Channel {
            cells: (0..cells).map(|i| Cell { seq: AtomicU64::new(i), message: UnsafeCell::new(MaybeUninit::uninit()) }).collect(),
            tail: Counter(AtomicU64::new(0)),
            head: Counter(AtomicU64::new(0)),
            overflow: Mutex::new(VecDeque::new()),
            overflowing: AtomicBool::new(false),
        }
    }

    fn ring_len(&self) -> u64 {
        self.cells.len() as u64
    }

    /// Sends a message (never blocks; the sender's side).
    pub fn push(&self, m: T) {
        if !self.overflowing.load(Ordering::Acquire) {
            let t = self.tail.0.load(Ordering::Relaxed);
            let cell = &self.cells[(t % self.ring_len()) as usize];
            if cell.seq.load(Ordering::Acquire) == t {
                // SAFETY: the receiver released this cell (seq == t) and does not touch it
                // again before we publish t + 1.
                cell.message.with_mut(|p| unsafe { (*p).write(m) });
                cell.seq.store(t + 1, Ordering::Release);
                self.tail.0.store(t + 1, Ordering::Relaxed);
                return;
            }
        }
        // Ring full, or earlier messages already wait in the overflow: keep the order.
        let mut o = self.overflow.lock();
        o.push_back(m);
        self.overflowing.store(true, Ordering::Release);
    }

    /// Takes the next message of the ring, if any (the receiver's side).
    pub fn pop(&self) -> Option<T> {
        let h = self.head.0.load(Ordering::Relaxed);
        let cell = &self.cells[(h % self.ring_len()) as usize];
        if cell.seq.load(Ordering::Acquire) != h + 1 {
            return None;
        }
        // SAFETY: the sender published message h in this cell (seq == h + 1, acquire) and
        // does not touch it again before we release it.
        let m = cell.message.with_mut(|p| unsafe { (*p).assume_init_read() });
        cell.seq.store(h + self.ring_len(), Ordering::Release);
        self.head.0.store(h + 1, Ordering::Relaxed);
        Some(m)
    }

    /// Takes every message in order (the receiver's side). While the overflow is in use the
    /// sender leaves the ring alone, so the ring then holds only messages older than the
    /// overflow's: they are taken first, under the overflow lock, even those the sender wrote
    /// after this call's first look at the ring.
    pub fn drain<E>(&self, mut each: impl FnMut(T) -> Result<(), E>) -> Result<(), E> {
        while let Some(m) = self.pop() {
            each(m)?;
        }
        if self.overflowing.load(Ordering::Acquire) {
            let mut o = self.overflow.lock();
            let mut batch: Vec<T> = std::iter::from_fn(|| self.pop()).collect();
            batch.extend(o.drain(..));
            self.overflowing.store(false, Ordering::Release);
            drop(o);
            for m in batch {
                each(m)?;
            }
        }
        Ok(())
    }

    /// True when the overflow list is in use.
    #[cfg(test)]
    pub fn is_overflowing(&self) -> bool {
        self.overflowing.load(Ordering::Relaxed)
    }
}

impl<T> Drop for Channel<T> {
    fn drop(&mut self) {
        while self.pop().is_some() {}
    }
}
