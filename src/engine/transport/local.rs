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
//! * up to `LOCAL_EAGER_BYTES`: a packed copy travels (the send completes at once);
//! * larger or synchronous: the cell points at the sender's buffer, the receiver copies once
//!   when it matches, and only then does the send complete (rendezvous).
//!
//! Below the matching: the receiving side hands each message it pops to a closure of the
//! caller's (see [`drain_inbox`]), which matches it; a send says how it left ([`Sent`]).

use crate::engine::datatype::UserBuf;
use crate::engine::doorbell::Doorbell;
use crate::engine::envelope::Envelope;
use crate::engine::message::{InlineData, LocalSend, Payload, INLINE_BYTES};
use crate::error::EpResult;
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, OnceLock};

/// Local messages up to this size are copied at send time (eager); larger ones wait for the
/// receiver, which copies once from the sender's buffer.
pub(crate) const LOCAL_EAGER_BYTES: usize = 16 * 1024;
/// Cells per channel ring; a sender that gets this far ahead of its receiver overflows
/// into a list (never blocks).
const RING_CELLS: u64 = 16;

/// One sender's channel to one receiver (the ring is model-checked in `tests/loom`).
pub type Channel = crate::engine::spsc::Channel<LocalMessage>;

/// A message on its way.
pub struct LocalMessage {
    pub(crate) envelope: Envelope,
    pub(crate) payload: Payload,
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
        self.table[receiver as usize * self.n + sender as usize].get_or_init(|| Box::new(Channel::new(RING_CELLS)))
    }
}

/// How a local send left.
pub enum Sent {
    /// Complete: the data travelled inline or as a packed copy.
    Done,
    /// Waiting for the receiver, which copies from the sender's buffer once it matches
    /// (rendezvous, or synchronous mode).
    Waiting(Arc<LocalSend>),
}

/// Sends from local endpoint `me` to local endpoint `dest` through `channels`.
#[inline]
///
/// `sender_bell` is `me`'s doorbell, rung by the receiver when it has copied a rendezvous
/// send's data; the caller rings `dest`'s after this returns.
pub fn send(
    channels: &Channels,
    me: u32,
    dest: u32,
    envelope: Envelope,
    buf: UserBuf,
    sync: bool,
    sender_bell: &Arc<Doorbell>,
) -> EpResult<Sent> {
    let bytes = buf.bytes();
    let channel = channels.get_or_create(dest, me);
    if !sync && bytes <= INLINE_BYTES && buf.info.contiguous() {
        // Written into the ring's cell itself (see `Channel::push_with`).
        channel.push_with(|slot| {
            let m = slot.as_mut_ptr();
            // SAFETY: `m` is the slot's (writable) message; the user's buffer holds `bytes`
            // contiguous bytes from its first byte.
            unsafe {
                // Field by field, and volatile so that the compiler keeps them apart: the
                // two halves are spilled to the stack separately, and a whole-envelope store
                // reloaded them in one wider load, which waited on the forwarding.
                std::ptr::addr_of_mut!((*m).envelope.source).write_volatile(envelope.source);
                std::ptr::addr_of_mut!((*m).envelope.tag).write_volatile(envelope.tag);
                std::ptr::addr_of_mut!((*m).payload).write(Payload::Inline(InlineData::read_from(buf.data_ptr(), bytes)));
            }
        });
        return Ok(Sent::Done);
    }
    let (payload, state) = if !sync && bytes <= LOCAL_EAGER_BYTES {
        let mut data = Vec::new();
        buf.pack_into(&mut data)?;
        (Payload::Eager(data), Sent::Done)
    } else {
        let ls = Arc::new(LocalSend {
            buf,
            done: AtomicBool::new(false),
            helpers: crate::engine::share::current_for(bytes),
            sender_bell: sender_bell.clone(),
        });
        (Payload::Local(ls.clone()), Sent::Waiting(ls))
    };
    channel.push(LocalMessage { envelope, payload });
    Ok(state)
}

/// Hands the messages sent to endpoint `local` (by local endpoint `from`, or by all), in
/// order, to `take`, each still in its channel's cell: `take` owns the message from then on
/// (it reads it out, at most once, see `Channel::drain_with`). An error of `take` stops the
/// drain; the later messages stay in their channel, in order.
#[inline(always)]
pub fn drain_inbox<E>(
    channels: &Channels,
    local: u32,
    from: Option<u32>,
    mut take: impl FnMut(*mut LocalMessage) -> Result<(), E>,
) -> Result<(), E> {
    let senders = match from {
        Some(s) => s..s + 1,
        None => 0..channels.n as u32,
    };
    for s in senders {
        if let Some(ch) = channels.get(local, s) {
            ch.drain_with(&mut take)?;
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
            Ok::<(), ()>(())
        })
        .unwrap();
        v
    }

    #[test]
    fn order_kept_through_ring_and_overflow() {
        let ch = Channel::new(RING_CELLS);
        for t in 0..40 {
            ch.push(msg(t));
        }
        assert!(ch.is_overflowing());
        assert_eq!(drain_tags(&ch), (0..40).collect::<Vec<_>>());
        for t in 40..45 {
            ch.push(msg(t));
        }
        assert_eq!(drain_tags(&ch), (40..45).collect::<Vec<_>>());
    }

    /// A drain that stops at an error (a delivery that failed) leaves every later message
    /// in line, in order, both in the ring and in the overflow, and ahead of what the
    /// sender sends meanwhile. Checked by mutation: with the overflow's remainder dropped
    /// instead of put back, or with the sender let back into the ring while the overflow's
    /// batch is delivered (message 100 then overtakes 26..39), this fails.
    #[test]
    fn a_failed_delivery_keeps_the_later_messages() {
        let ch = Channel::new(RING_CELLS);
        for t in 0..40 {
            ch.push(msg(t));
        }
        let mut got = Vec::new();
        let fail_at = |bad: i32, got: &mut Vec<i32>| {
            ch.drain_with(|m| {
                // SAFETY: the channel hands over an initialised message that nothing else reads; it is read
                // once here.
                let m = unsafe { m.read() };
                if m.envelope.tag == bad {
                    if bad == 25 {
                        ch.push(msg(100)); // the sender, during the overflow's delivery
                    }
                    return Err(());
                }
                got.push(m.envelope.tag);
                Ok(())
            })
        };
        assert_eq!(fail_at(5, &mut got), Err(())); // in the ring
        assert_eq!(fail_at(25, &mut got), Err(())); // in the overflow
        assert_eq!(fail_at(-1, &mut got), Ok(()));
        let expected: Vec<i32> = (0..40).filter(|t| *t != 5 && *t != 25).chain([100]).collect();
        assert_eq!(got, expected);
        ch.push(msg(40));
        assert_eq!(drain_tags(&ch), vec![40]);
    }

    /// A delivery that panics after taking its message (the C boundary catches panics and
    /// the library goes on) leaves the message taken: the next drain starts after it, and
    /// what it owned is dropped once. Checked by mutation: with the cell given back only on
    /// return, the second drain takes the message again and frees it twice (the test aborts).
    #[test]
    fn a_panicking_delivery_takes_its_message_once() {
        // SAFETY: an all-zero `UserBuf` is a valid value (a null address, integers, and a host
        // datatype handle that is an int or a pointer); this test never uses its buffer.
        let ls = Arc::new(LocalSend { buf: unsafe { std::mem::zeroed() }, done: AtomicBool::new(false), helpers: None, sender_bell: Arc::default() });
        let ch = Channel::new(RING_CELLS);
        ch.push(LocalMessage { envelope: Envelope { source: 0, tag: 1 }, payload: Payload::Local(ls.clone()) });
        ch.push(msg(2));
        let panicked = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            ch.drain_with(|m| -> Result<(), ()> {
                // SAFETY: as in `a_failed_delivery_keeps_the_later_messages`: the message is read once.
                let _taken = unsafe { m.read() };
                panic!("delivery failed");
            })
        }));
        assert!(panicked.is_err());
        assert_eq!(Arc::strong_count(&ls), 1, "the panicking delivery's message is dropped once");
        assert_eq!(drain_tags(&ch), vec![2]);
    }

    #[test]
    fn concurrent_sender_and_receiver_keep_order() {
        let ch = Arc::new(Channel::new(RING_CELLS));
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
        // SAFETY: as in `a_panicking_delivery_takes_its_message_once`: an all-zero `UserBuf` is valid
        // and its buffer is never used.
        let ls = Arc::new(LocalSend { buf: unsafe { std::mem::zeroed() }, done: AtomicBool::new(false), helpers: None, sender_bell: Arc::default() });
        {
            let ch = Channel::new(RING_CELLS);
            ch.push(LocalMessage { envelope: Envelope { source: 0, tag: 0 }, payload: Payload::Local(ls.clone()) });
            assert_eq!(Arc::strong_count(&ls), 2);
        }
        assert_eq!(Arc::strong_count(&ls), 1);
    }
}
