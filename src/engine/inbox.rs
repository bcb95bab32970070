//! The receivers' inboxes of the local transport (see [`super::transport::local`]): for each
//! endpoint of a communicator in this process, the channels other endpoints have opened to it,
//! found by sender in constant time and listed in the order they were opened.
//!
//! Memory grows with the pairs that talk, not with all pairs. A receiver's row holds one
//! pointer per block of [`BLOCK`] senders (8 bytes per 64 endpoints of the process); a block,
//! the senders' channel pointers, is allocated when the first of its senders opens a channel,
//! and a channel when its sender first sends. A wildcard drain walks the list of opened
//! channels, so it visits the senders that ever sent and no others.
//!
//! A sender finds its channel with two loads and no lock once it exists; opening one takes
//! the receiver's lock, which only openings take. Channels and blocks live as long as the
//! inboxes: the receiver walks the list without a lock, so nothing in it is ever freed early.
//!
//! Depends on nothing but [`crate::engine::sync`] and [`crate::engine::spsc`] on purpose:
//! `tests/loom` includes this file and model-checks senders opening channels while the
//! receiver drains.

use crate::engine::spsc::Channel;
use crate::engine::sync::{AtomicPtr, Mutex, Ordering};
use std::ptr::null_mut;

/// Senders per block: a block's pointers fill 8 cache lines, and a row has one pointer per
/// block (a row of 1024 endpoints is 16 pointers, two lines). The loom models use blocks of 2
/// so that two senders can share a block or not.
#[cfg(not(loom))]
const BLOCK: usize = 64;
#[cfg(loom)]
const BLOCK: usize = 2;

/// One sender's channel to the receiver, linked into the receiver's list of opened channels.
struct Opened<T> {
    channel: Channel<T>,
    /// The channel opened after this one, null until there is one.
    next: AtomicPtr<Opened<T>>,
}

/// The channel pointers of [`BLOCK`] consecutive senders, null until opened.
struct Block<T> {
    slots: [AtomicPtr<Opened<T>>; BLOCK],
}

/// A receiver's list of opened channels.
struct Inbox<T> {
    /// The first channel opened, null until there is one (the receiver walks from here).
    first: AtomicPtr<Opened<T>>,
    /// The last channel opened, where the next one is linked. Written under `opening` only.
    last: AtomicPtr<Opened<T>>,
    /// Taken by the senders that open a channel to this receiver, and by nothing else.
    opening: Mutex<()>,
}

/// The inboxes of `n` endpoints (receivers and senders are numbered `0..n`).
pub struct Inboxes<T> {
    n: usize,
    /// Blocks per row (`n / BLOCK` rounded up).
    row_len: usize,
    /// Row `r` (entries `r * row_len ..`): receiver `r`'s block pointers, null until a sender of
    /// the block opens a channel to `r`.
    rows: Box<[AtomicPtr<Block<T>>]>,
    inboxes: Box<[Inbox<T>]>,
    /// Cells of each channel's ring.
    cells: u64,
}

// SAFETY: the inboxes own every block and channel their pointers reach (allocated by
// `open`, freed by `drop` only). A channel is `Send` and `Sync` under its rule of one
// producer and one consumer at a time, which the local transport keeps (a channel is pushed
// by calls on its sender and drained by calls on its receiver, each used by one thread at a
// time); the pointers themselves are atomics, published with release and read with acquire.
unsafe impl<T: Send> Send for Inboxes<T> {}
// SAFETY: as for `Send`.
unsafe impl<T: Send> Sync for Inboxes<T> {}

impl<T> Inboxes<T> {
    /// The empty inboxes of `n` endpoints whose channels will have rings of `cells` cells.
    pub fn new(n: usize, cells: u64) -> Inboxes<T> {
        let row_len = n.div_ceil(BLOCK);
        Inboxes {
            n,
            row_len,
            rows: (0..n * row_len).map(|_| AtomicPtr::new(null_mut())).collect(),
            inboxes: (0..n)
                .map(|_| Inbox {
                    first: AtomicPtr::new(null_mut()),
                    last: AtomicPtr::new(null_mut()),
                    opening: Mutex::new(()),
                })
                .collect(),
            cells,
        }
    }

    /// Where `receiver`'s block pointer for `sender` lies.
    #[inline(always)]
    fn block_of(&self, receiver: u32, sender: u32) -> &AtomicPtr<Block<T>> {
        debug_assert!((sender as usize) < self.n, "sender {sender} out of {} endpoints", self.n);
        &self.rows[receiver as usize * self.row_len + sender as usize / BLOCK]
    }

    /// The channel `sender` opened to `receiver`, if it did.
    #[inline(always)]
    pub fn get(&self, receiver: u32, sender: u32) -> Option<&Channel<T>> {
        let block = self.block_of(receiver, sender).load(Ordering::Acquire);
        if block.is_null() {
            return None;
        }
        // SAFETY: a non-null block pointer points to a block `open` published (release, read
        // with acquire above) and that lives as long as `self`.
        let opened = unsafe { &*block }.slots[sender as usize % BLOCK].load(Ordering::Acquire);
        // SAFETY: likewise for the channel pointer.
        (!opened.is_null()).then(|| unsafe { &(*opened).channel })
    }

    /// The channel from `sender` to `receiver`, opened now if this is its first message.
    #[inline(always)]
    pub fn get_or_open(&self, receiver: u32, sender: u32) -> &Channel<T> {
        match self.get(receiver, sender) {
            Some(channel) => channel,
            None => self.open(receiver, sender),
        }
    }

    /// Opens the channel from `sender` to `receiver` (or finds it opened meanwhile): its block
    /// first if it has none, then the channel, then the channel's place at the end of the
    /// receiver's list. The channel is allocated before the lock is taken.
    #[cold]
    #[inline(never)]
    fn open(&self, receiver: u32, sender: u32) -> &Channel<T> {
        let fresh = Opened { channel: Channel::new(self.cells), next: AtomicPtr::new(null_mut()) };
        let fresh = Box::into_raw(Box::new(fresh));
        let inbox = &self.inboxes[receiver as usize];
        let _opening = inbox.opening.lock();
        let block_ptr = self.block_of(receiver, sender);
        let mut block = block_ptr.load(Ordering::Acquire);
        if block.is_null() {
            block = Box::into_raw(Box::new(Block { slots: std::array::from_fn(|_| AtomicPtr::new(null_mut())) }));
            block_ptr.store(block, Ordering::Release);
        }
        // SAFETY: the block is published (by this call or an earlier one) and lives as long as `self`.
        let slot = &unsafe { &*block }.slots[sender as usize % BLOCK];
        let existing = slot.load(Ordering::Acquire);
        if !existing.is_null() {
            // SAFETY: `fresh` was never published; this is its only owner.
            drop(unsafe { Box::from_raw(fresh) });
            // SAFETY: a published channel lives as long as `self`.
            return unsafe { &(*existing).channel };
        }
        slot.store(fresh, Ordering::Release);
        let last = inbox.last.load(Ordering::Relaxed);
        if last.is_null() {
            inbox.first.store(fresh, Ordering::Release);
        } else {
            // SAFETY: `last` is a published channel of this receiver (written under the lock
            // held here) and lives as long as `self`.
            unsafe { &*last }.next.store(fresh, Ordering::Release);
        }
        inbox.last.store(fresh, Ordering::Relaxed);
        // SAFETY: just published; lives as long as `self`.
        unsafe { &(*fresh).channel }
    }

    /// Calls `each` on every channel opened to `receiver`, in the order they were opened,
    /// stopping at its first error. Channels opened during the walk are visited if the walk
    /// reaches the end of the list after they are linked.
    #[inline(always)]
    pub fn for_each_opened<E>(
        &self,
        receiver: u32,
        mut each: impl FnMut(&Channel<T>) -> Result<(), E>,
    ) -> Result<(), E> {
        let mut p = self.inboxes[receiver as usize].first.load(Ordering::Acquire);
        while !p.is_null() {
            // SAFETY: a published channel (release, read with acquire) that lives as long as `self`.
            let opened = unsafe { &*p };
            each(&opened.channel)?;
            p = opened.next.load(Ordering::Acquire);
        }
        Ok(())
    }

    /// How many channels are opened to `receiver`.
    #[cfg(any(test, loom))]
    pub fn opened(&self, receiver: u32) -> usize {
        let mut count = 0;
        let _ = self.for_each_opened(receiver, |_| {
            count += 1;
            Ok::<(), ()>(())
        });
        count
    }

    /// How many blocks `receiver`'s row has allocated.
    #[cfg(test)]
    pub fn blocks(&self, receiver: u32) -> usize {
        let row = receiver as usize * self.row_len;
        self.rows[row..row + self.row_len].iter().filter(|b| !b.load(Ordering::Relaxed).is_null()).count()
    }
}

impl<T> Drop for Inboxes<T> {
    fn drop(&mut self) {
        for inbox in self.inboxes.iter() {
            let mut p = inbox.first.load(Ordering::Acquire);
            while !p.is_null() {
                // SAFETY: every opened channel is on exactly one list, reached once here, and
                // nothing can reach it any more (`self` is being dropped).
                let opened = unsafe { Box::from_raw(p) };
                p = opened.next.load(Ordering::Acquire);
            }
        }
        for block in self.rows.iter() {
            let b = block.load(Ordering::Acquire);
            if !b.is_null() {
                // SAFETY: each block is in one row entry only, freed once here.
                drop(unsafe { Box::from_raw(b) });
            }
        }
    }
}
