//! The local transport: endpoints of the same process, no MPI call.
//!
//! Every (sender, receiver) pair of a process's endpoints has its own channel, created on the
//! first message: a single-producer single-consumer ring of cache-line cells plus an
//! overflow list for when the ring is full. The sender writes a cell and publishes it with
//! the cell's sequence number; the receiving endpoint's own thread pops cells while it is in
//! a call and matches them like remote messages. The sender never touches the receiver's
//! matching state and the two sides share nothing but the cells, so a small message costs
//! one cache line handed from one core to another. One channel per pair keeps each pair's
//! messages in order (non-overtaking) and lets a receive naming its source look at one
//! channel only.
//! * up to [`INLINE_BYTES`]: the data travels inside the cell;
//! * up to [`LOCAL_EAGER_BYTES`]: a packed copy travels (the send completes at once);
//! * larger or synchronous: the cell points at the sender's buffer, the receiver copies once
//!   when it matches, and only then does the send complete (rendezvous).

use super::comm::CommShared;
use super::datatype::UserBuf;
use super::envelope::Envelope;
use super::p2p::{arrive, LocalSend, Payload, Queues, SendState};
use crate::error::EpResult;
use parking_lot::Mutex;
use std::cell::UnsafeCell;
use std::collections::VecDeque;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, OnceLock};

/// Local messages up to this size are copied at send time (eager); larger ones wait for the
/// receiver, which copies once from the sender's buffer.
pub(crate) const LOCAL_EAGER_BYTES: usize = 16 * 1024;
/// Data up to this size travels inside the ring cell.
pub(crate) const INLINE_BYTES: usize = 32;
/// Cells per channel ring; a sender that gets this far ahead of its receiver overflows
/// into a list (never blocks).
const RING_CELLS: u64 = 16;

/// A message on its way.
pub struct LocalMessage {
    envelope: Envelope,
    payload: Payload,
}

#[repr(align(64))]
struct Cell {
    /// `i + 1` when the cell holds message `i`; `i + RING_CELLS` once message `i` is taken,
    /// which is the value the sender of message `i + RING_CELLS` waits for.
    seq: AtomicU64,
    message: UnsafeCell<MaybeUninit<LocalMessage>>,
}

#[repr(align(64))]
struct Counter(AtomicU64);

/// One sender's channel to one receiver.
pub struct Channel {
    cells: Box<[Cell]>,
    /// Next message number to send (sender side).
    tail: Counter,
    /// Next message number to take (receiver side).
    head: Counter,
    /// Messages sent while the ring was full, and everything after them until the receiver
    /// empties it; `overflowing` says it is not empty (both change under its lock).
    overflow: Mutex<VecDeque<LocalMessage>>,
    overflowing: AtomicBool,
}

// SAFETY: a cell's message is written only by the sender before it publishes `seq`, read only
// by the receiver after it sees `seq` (release/acquire), and the two never hold the same cell.
unsafe impl Send for Channel {}
unsafe impl Sync for Channel {}

impl Channel {
    fn new() -> Channel {
        Channel {
            cells: (0..RING_CELLS)
                .map(|i| Cell { seq: AtomicU64::new(i), message: UnsafeCell::new(MaybeUninit::uninit()) })
                .collect(),
            tail: Counter(AtomicU64::new(0)),
            head: Counter(AtomicU64::new(0)),
            overflow: Mutex::new(VecDeque::new()),
            overflowing: AtomicBool::new(false),
        }
    }

    fn push(&self, m: LocalMessage) {
        if !self.overflowing.load(Ordering::Acquire) {
            let t = self.tail.0.load(Ordering::Relaxed);
            let cell = &self.cells[(t % RING_CELLS) as usize];
            if cell.seq.load(Ordering::Acquire) == t {
                unsafe { (*cell.message.get()).write(m) };
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

    fn pop(&self) -> Option<LocalMessage> {
        let h = self.head.0.load(Ordering::Relaxed);
        let cell = &self.cells[(h % RING_CELLS) as usize];
        if cell.seq.load(Ordering::Acquire) != h + 1 {
            return None;
        }
        let m = unsafe { (*cell.message.get()).assume_init_read() };
        cell.seq.store(h + RING_CELLS, Ordering::Release);
        self.head.0.store(h + 1, Ordering::Relaxed);
        Some(m)
    }

    /// Takes every message in order. While the overflow is in use the sender leaves the
    /// ring alone, so the ring then holds only messages older than the overflow's: they are
    /// taken first, under the overflow lock, even those the sender wrote after this call's
    /// first look at the ring.
    fn drain(&self, mut each: impl FnMut(LocalMessage) -> EpResult<()>) -> EpResult<()> {
        while let Some(m) = self.pop() {
            each(m)?;
        }
        if self.overflowing.load(Ordering::Acquire) {
            let mut o = self.overflow.lock();
            let mut batch: Vec<LocalMessage> = std::iter::from_fn(|| self.pop()).collect();
            batch.extend(o.drain(..));
            self.overflowing.store(false, Ordering::Release);
            drop(o);
            for m in batch {
                each(m)?;
            }
        }
        Ok(())
    }
}

impl Drop for Channel {
    fn drop(&mut self) {
        while self.pop().is_some() {}
    }
}

/// The channels of one communicator in this process, `[receiver][sender]`, created lazily.
pub struct Channels {
    n: usize,
    table: Box<[OnceLock<Box<Channel>>]>,
}

impl Channels {
    pub fn new(n: usize) -> Channels {
        Channels { n, table: (0..n * n).map(|_| OnceLock::new()).collect() }
    }

    fn get(&self, receiver: u32, sender: u32) -> Option<&Channel> {
        self.table[receiver as usize * self.n + sender as usize].get().map(|b| &**b)
    }

    fn get_or_create(&self, receiver: u32, sender: u32) -> &Channel {
        self.table[receiver as usize * self.n + sender as usize].get_or_init(|| Box::new(Channel::new()))
    }
}

/// Sends from local endpoint `me` to local endpoint `dest`.
pub fn send(shared: &CommShared, me: u32, dest: u32, envelope: Envelope, buf: UserBuf, sync: bool) -> EpResult<SendState> {
    let bytes = buf.bytes();
    let (payload, state) = if !sync && bytes <= INLINE_BYTES && buf.info.contiguous {
        let mut data = [0u8; INLINE_BYTES];
        buf.copy_contiguous_to(&mut data[..bytes]);
        (Payload::Inline { len: bytes as u8, data }, SendState::Done)
    } else if !sync && bytes <= LOCAL_EAGER_BYTES {
        let mut data = Vec::new();
        buf.pack_into(&mut data)?;
        (Payload::Eager(data), SendState::Done)
    } else {
        let ls = Arc::new(LocalSend { buf, done: AtomicBool::new(false) });
        (Payload::Local(ls.clone()), SendState::Local(ls))
    };
    shared.channels.get_or_create(dest, me).push(LocalMessage { envelope, payload });
    Ok(state)
}

/// Moves the messages sent to endpoint `local` (by local endpoint `from`, or by all) into its
/// matching state.
pub fn drain_inbox(shared: &CommShared, local: u32, q: &mut Queues, from: Option<u32>) -> EpResult<()> {
    let senders = match from {
        Some(s) => s..s + 1,
        None => 0..shared.local_count() as u32,
    };
    for s in senders {
        if let Some(ch) = shared.channels.get(local, s) {
            ch.drain(|m| arrive(shared, q, m.envelope, m.payload))?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn msg(tag: i32) -> LocalMessage {
        LocalMessage { envelope: Envelope { source: 0, tag }, payload: Payload::Eager(vec![tag as u8]) }
    }

    fn drain_tags(ch: &Channel) -> Vec<i32> {
        let mut v = Vec::new();
        ch.drain(|m| {
            v.push(m.envelope.tag);
            Ok(())
        })
        .unwrap();
        v
    }

    #[test]
    fn order_kept_through_ring_and_overflow() {
        let ch = Channel::new();
        for t in 0..40 {
            ch.push(msg(t));
        }
        assert!(ch.overflowing.load(Ordering::Relaxed));
        assert_eq!(drain_tags(&ch), (0..40).collect::<Vec<_>>());
        for t in 40..45 {
            ch.push(msg(t));
        }
        assert_eq!(drain_tags(&ch), (40..45).collect::<Vec<_>>());
    }

    #[test]
    fn concurrent_sender_and_receiver_keep_order() {
        let ch = Arc::new(Channel::new());
        let n = 200_000;
        let sender = {
            let ch = ch.clone();
            std::thread::spawn(move || {
                for t in 0..n {
                    ch.push(msg(t));
                }
            })
        };
        let mut got = Vec::with_capacity(n as usize);
        while got.len() < n as usize {
            got.extend(drain_tags(&ch));
        }
        sender.join().unwrap();
        if let Some((i, t)) = got.iter().enumerate().find(|(i, t)| **t != *i as i32) {
            panic!("messages overtook each other: position {i} holds {t}; around: {:?}", &got[i.saturating_sub(3)..(i + 5).min(got.len())]);
        }
    }

    #[test]
    fn undelivered_messages_are_dropped_with_the_channel() {
        let ls = Arc::new(LocalSend { buf: unsafe { std::mem::zeroed() }, done: AtomicBool::new(false) });
        {
            let ch = Channel::new();
            ch.push(LocalMessage { envelope: Envelope { source: 0, tag: 0 }, payload: Payload::Local(ls.clone()) });
            assert_eq!(Arc::strong_count(&ls), 2);
        }
        assert_eq!(Arc::strong_count(&ls), 1);
    }
}
