//! The ring of the local transport's channels (see [`super::transport::local`]): one producer, one
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
    /// `i + 1` once the cell holds message `i` (written by the sender only: the receiver
    /// never writes a cell, so a message costs the cell's line one trip to the receiver).
    seq: AtomicU64,
    message: UnsafeCell<MaybeUninit<T>>,
}

/// The sender's own line: the next message number and the last value of `head` it read.
#[repr(align(64))]
struct SenderSide {
    tail: AtomicU64,
    head_seen: AtomicU64,
}

#[repr(align(64))]
struct Counter(AtomicU64);

/// Publishes the receiver's next message number when dropped (see `Channel::take_with`).
struct GiveBack<'a> {
    head: &'a AtomicU64,
    next: u64,
}

impl Drop for GiveBack<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        self.head.store(self.next, Ordering::Release);
    }
}

/// One sender's channel to one receiver: `push` from one thread at a time, `pop`/`drain`
/// from one thread at a time (the two may be different threads).
pub struct Channel<T> {
    cells: Box<[Cell<T>]>,
    /// Sender side (only the sender touches it; atomics for `Sync`, all relaxed).
    sender: SenderSide,
    /// Next message number to take, published by the receiver after it has read the
    /// message before it; the sender reads it only when the ring looks full.
    head: Counter,
    /// Messages sent while the ring was full, and everything after them until the receiver
    /// empties it; `overflowing` says it is not empty (both change under its lock).
    overflow: Mutex<VecDeque<T>>,
    overflowing: AtomicBool,
}

// SAFETY: a cell's message is written only by the sender, before it publishes `seq` and
// after it has seen (acquire) `head` pass the cell's previous message; read only by the
// receiver after it sees `seq` (acquire) and before it publishes `head` (release).
unsafe impl<T: Send> Send for Channel<T> {}
// SAFETY: as for `Send`, given one producer and one consumer at a time, which the
// local transport keeps: a channel is pushed only by calls on its sending endpoint and drained
// only by calls on its receiving endpoint, and each endpoint is used by one thread at a time
// (the C interface's rule). The overflow list is behind its mutex.
unsafe impl<T: Send> Sync for Channel<T> {}

impl<T> Channel<T> {
    /// A channel whose ring has `cells` cells (a power of two, at least 2: positions are
    /// masked, as a division by a run-time length cost more than the rest of a push).
    pub fn new(cells: u64) -> Channel<T> {
        assert!(cells >= 2 && cells.is_power_of_two(), "a channel ring needs at least 2 cells, a power of two");
        Channel {
            cells: (0..cells).map(|_| Cell { seq: AtomicU64::new(0), message: UnsafeCell::new(MaybeUninit::uninit()) }).collect(),
            sender: SenderSide { tail: AtomicU64::new(0), head_seen: AtomicU64::new(0) },
            head: Counter(AtomicU64::new(0)),
            overflow: Mutex::new(VecDeque::new()),
            overflowing: AtomicBool::new(false),
        }
    }

    #[inline]
    fn ring_len(&self) -> u64 {
        self.cells.len() as u64
    }

    /// The cell of message `i`.
    #[inline]
    fn cell(&self, i: u64) -> &Cell<T> {
        &self.cells[(i & (self.ring_len() - 1)) as usize]
    }

    /// Sends a message (never blocks; the sender's side).
    #[inline]
    pub fn push(&self, m: T) {
        self.push_with(|slot| {
            slot.write(m);
        })
    }

    /// Sends the message `write` builds in place, in the ring's cell itself when there is
    /// room (never blocks; the sender's side). A message built on the stack and then moved
    /// in was written in one width and read back in another, which stalls the store
    /// forwarding on the sender's critical path. `write` must initialise the slot.
    #[inline(always)]
    pub fn push_with(&self, write: impl FnOnce(&mut MaybeUninit<T>)) {
        if !self.overflowing.load(Ordering::Acquire) {
            let t = self.sender.tail.load(Ordering::Relaxed);
            let mut head = self.sender.head_seen.load(Ordering::Relaxed);
            if t - head >= self.ring_len() {
                // Looks full: see how far the receiver has got (once per lap at most while
                // it keeps up, so `head`'s line rarely travels).
                head = self.head.0.load(Ordering::Acquire);
                self.sender.head_seen.store(head, Ordering::Relaxed);
            }
            if t - head < self.ring_len() {
                let cell = self.cell(t);
                // SAFETY: the receiver has read message t - cells from this cell (head > it,
                // acquire) and does not look at it again before we publish t + 1.
                cell.message.with_mut(|p| write(unsafe { &mut *p }));
                cell.seq.store(t + 1, Ordering::Release);
                self.sender.tail.store(t + 1, Ordering::Relaxed);
                return;
            }
        }
        self.push_overflow(write);
    }

    /// Ring full, or earlier messages already wait in the overflow: keep the order.
    #[cold]
    fn push_overflow(&self, write: impl FnOnce(&mut MaybeUninit<T>)) {
        let mut slot = MaybeUninit::uninit();
        write(&mut slot);
        // SAFETY: `write` initialises the slot (push_with's contract).
        let m = unsafe { slot.assume_init() };
        let mut o = self.overflow.lock();
        o.push_back(m);
        self.overflowing.store(true, Ordering::Release);
    }

    /// Takes the next message of the ring, if any (the receiver's side).
    #[inline(always)]
    pub fn pop(&self) -> Option<T> {
        // SAFETY: `take_with` hands over an initialised message, read once here.
        self.take_with(|m| unsafe { m.read() })
    }

    /// Hands the next message of the ring, in its cell, to `take`, if any (the receiver's
    /// side): the receiver reads the fields it needs where they are, without the copy to the
    /// stack a `pop` makes. `take` must move the message out (`ptr::read` it, or the parts
    /// that own something, exactly once): the cell is given back to the sender afterwards.
    #[inline(always)]
    pub fn take_with<R>(&self, take: impl FnOnce(*mut T) -> R) -> Option<R> {
        let h = self.head.0.load(Ordering::Relaxed);
        let cell = self.cell(h);
        if cell.seq.load(Ordering::Acquire) != h + 1 {
            return None;
        }
        // The cell is given back even if `take` unwinds: it may have moved the message out
        // already, and taking it a second time would drop what it owns twice.
        let _give_back = GiveBack { head: &self.head.0, next: h + 1 };
        // SAFETY (for `take`): the sender published message h in this cell (seq == h + 1,
        // acquire) and does not touch it again before it sees head > h.
        Some(cell.message.with_mut(|p| take(p as *mut T)))
    }

    /// Takes every message in order (the receiver's side). While the overflow is in use the
    /// sender leaves the ring alone, so the ring then holds only messages older than the
    /// overflow's: they are taken first, under the overflow lock, even those the sender wrote
    /// after this call's first look at the ring.
    #[cfg(any(test, loom))]
    #[inline(always)]
    pub fn drain<E>(&self, mut each: impl FnMut(T) -> Result<(), E>) -> Result<(), E> {
        // SAFETY: each message is read once, then handed over.
        self.drain_with(|m| each(unsafe { m.read() }))
    }

    /// [`Self::drain`] with every message handed over in place, as by [`Self::take_with`]:
    /// `each` must move it out (from the ring's cell or, for messages that overflowed, from
    /// a temporary).
    #[inline(always)]
    pub fn drain_with<E>(&self, mut each: impl FnMut(*mut T) -> Result<(), E>) -> Result<(), E> {
        while let Some(r) = self.take_with(&mut each) {
            r?;
        }
        if self.overflowing.load(Ordering::Acquire) {
            return self.drain_overflow(each);
        }
        Ok(())
    }

    /// The overflow part of [`Self::drain_with`]. `overflowing` stays set while the batch is
    /// delivered, so the sender keeps to the overflow meanwhile: whatever it sends then comes
    /// after the batch, and messages of the batch that a failed delivery leaves go back in
    /// front of it, in order. The flag is cleared (under the lock) only once the overflow is
    /// empty; before that, the ring holds nothing newer than the overflow.
    #[cold]
    fn drain_overflow<E>(&self, mut each: impl FnMut(*mut T) -> Result<(), E>) -> Result<(), E> {
        let batch: Vec<T> = {
            let mut o = self.overflow.lock();
            // Sized once: the ring holds at most its cells, and growing the vector as it
            // fills was several allocations per batch.
            let mut batch: Vec<T> = Vec::with_capacity(self.cells.len() + o.len());
            batch.extend(std::iter::from_fn(|| self.pop()));
            batch.extend(o.drain(..));
            batch
        };
        let mut batch = batch.into_iter();
        while let Some(m) = batch.next() {
            let mut m = std::mem::ManuallyDrop::new(m);
            if let Err(e) = each(&mut *m as *mut T) {
                let mut o = self.overflow.lock();
                for later in batch.rev() {
                    o.push_front(later);
                }
                return Err(e);
            }
        }
        let o = self.overflow.lock();
        if o.is_empty() {
            self.overflowing.store(false, Ordering::Release);
        }
        Ok(())
    }

    /// Messages taken from the ring so far (the receiver's side; those of the overflow are
    /// not counted, nor by [`Self::all_taken`]).
    #[inline]
    pub fn taken(&self) -> u64 {
        self.head.0.load(Ordering::Relaxed)
    }

    /// True when a message waits (the receiver's side, which does not take it): the ring's
    /// next cell is published, or the overflow is in use.
    #[inline]
    pub fn has_next(&self) -> bool {
        let h = self.head.0.load(Ordering::Relaxed);
        self.cell(h).seq.load(Ordering::Acquire) == h + 1 || self.overflowing.load(Ordering::Acquire)
    }

    /// True when the receiver had taken every message sent so far once it had taken `taken`
    /// (a count of [`Self::taken`]): nothing sent waits in the ring or the overflow (the
    /// sender's side; false when unsure).
    #[inline]
    pub fn all_taken(&self, taken: u64) -> bool {
        // The sender's own writes: its count, and `overflowing` set by its own overflow push
        // (cleared by the receiver only once the overflow is empty).
        !self.overflowing.load(Ordering::Acquire) && self.sender.tail.load(Ordering::Relaxed) == taken
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
