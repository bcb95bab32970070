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
//! channel only; a wildcard receive looks at the channels opened to its endpoint, in the order
//! they were opened ([`crate::engine::inbox`]: memory and drains grow with the pairs that talk).
//! * up to [`INLINE_BYTES`]: the data travels inside the cell;
//! * up to `LOCAL_EAGER_BYTES`: a packed copy travels, or, above `LAND_ABOVE_BYTES`, the data
//!   goes straight into the receive's buffer when the receiver waits in a blocking receive for
//!   this sender ([`super::landing`], synchronous sends too); the send completes at once;
//! * larger, or synchronous and not landed: the cell points at the sender's buffer, the
//!   receiver copies once when it matches (sharing the copy with a sender that waits:
//!   `engine::shared_copy`), and only then does the send complete (rendezvous).
//!
//! Below the matching: the receiving side hands each message it pops to a closure of the
//! caller's (see [`drain_inbox`]), which matches it; a send says how it left ([`Sent`]).

use crate::engine::datatype::{HeldType, UserBuf};
use crate::engine::doorbell::Doorbell;
use crate::engine::inbox::Inboxes;
use crate::engine::envelope::Envelope;
use crate::engine::message::{InlineData, LocalSend, Payload, INLINE_BYTES};
use crate::error::EpResult;
use std::sync::Arc;

pub use super::landing::Landed;
use super::landing::Landing;

/// Local messages up to this size are copied at send time (eager); larger ones wait for the
/// receiver, which copies once from the sender's buffer, sharing the copy with the sender
/// when both wait (`engine::shared_copy`). The limit is where two threads' halves start to
/// beat one thread's copy. 1x2 C ping-pong on MPICH, us one way, 5 repetitions of 50,000
/// round trips, rendezvous in halves against the eager path (landed in the waiting receive):
/// 1.54 against 1.51 at 8 KiB, 1.61-1.68 against 2.06-2.07 at 12 KiB, 1.87-1.90 against
/// 2.54-2.68 at 16 KiB; at 24 KiB 2.47-2.53 against 3.51-3.54 for the receiver's copy alone.
/// Plain MPI's own eager limits on this host are 4 KiB (Open MPI's shared memory) to 16 KiB
/// (MPICH).
pub(crate) const LOCAL_EAGER_BYTES: usize = 8 * 1024;
const _: () = assert!(
    crate::engine::shared_copy::SHARED_COPY_ABOVE_BYTES <= LOCAL_EAGER_BYTES,
    "the rendezvous copy of every standard send is shared"
);
/// Messages land only above this size; smaller ones take the eager path even when a landing
/// is posted. Measured (1x2 ping-pong, MPICH, medians of 6 alternated runs, ratio to plain
/// MPI): landing took 0.78x against the eager path's 0.67x at 1 KiB, 0.74x against 0.94x at
/// 2 KiB. At 1 KiB the copy saved is small, and the sender writing the receiver's buffer
/// costs its lines a trip each way, where the receiver's own copy costs one.
pub(crate) const LAND_ABOVE_BYTES: usize = 1024;

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

/// The channels of one communicator in this process, by receiver and sender, each opened by
/// its sender's first message (see [`crate::engine::inbox`]), and each receiver's landing.
pub struct Channels(Inboxes<LocalMessage>, Box<[Landing]>);

impl Channels {
    /// No channels yet between `n` endpoints.
    pub fn new(n: usize) -> Channels {
        Channels(Inboxes::new(n, RING_CELLS), (0..n).map(|_| Landing::new()).collect())
    }

    /// True while endpoint `me`'s landing is posted and not claimed.
    #[cfg(test)]
    pub fn landing_posted(&self, me: u32) -> bool {
        self.1[me as usize].is_posted()
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
///
/// `sender_bell` is `me`'s doorbell, rung by the receiver when it has copied a rendezvous
/// send's data; the caller rings `dest`'s after this returns. `blocking`: the caller waits
/// for the send to complete before its call returns, so its datatype stays valid for the
/// receiver's copy; otherwise a rendezvous send keeps a copy of a derived datatype.
#[inline]
#[allow(clippy::too_many_arguments, reason = "the envelope, the buffer and the send's mode and waiting")]
pub fn send(
    channels: &Channels,
    me: u32,
    dest: u32,
    envelope: Envelope,
    buf: UserBuf,
    sync: bool,
    blocking: bool,
    sender_bell: &Arc<Doorbell>,
) -> EpResult<Sent> {
    let bytes = buf.bytes();
    let channel = channels.0.get_or_open(dest, me);
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
    if bytes > LAND_ABOVE_BYTES && bytes <= LOCAL_EAGER_BYTES && buf.info.contiguous() && crate::engine::fault::delivery(&envelope).is_ok() {
        let src = buf.data_ptr();
        let copy = |dst: *mut u8| {
            // SAFETY: the user's buffer holds `bytes` contiguous bytes; the landing gives a
            // receive buffer with room for them, which nothing else touches until the landing
            // is marked landed, and which cannot overlap the send's (erroneous in MPI).
            unsafe { std::ptr::copy_nonoverlapping(src, dst, bytes) }
        };
        // A synchronous send lands too: the receive has matched it.
        if channels.1[dest as usize].try_land(me, envelope.tag, bytes, |taken| channel.all_taken(taken), copy) {
            return Ok(Sent::Done);
        }
    }
    let (payload, state) = if !sync && bytes <= LOCAL_EAGER_BYTES {
        let mut data = Vec::new();
        buf.pack_into(&mut data)?;
        (Payload::Eager(data), Sent::Done)
    } else {
        // The receiver copies from `buf` later, maybe after a nonblocking send's call has
        // returned and its program has freed the datatype (MPI 4.1 section 5.1.9): a derived
        // one is copied, unless the call waits for the receiver.
        let (buf, held) = if blocking { (buf, None) } else { HeldType::hold_buf(buf)? };
        let ls = Arc::new(LocalSend::new(buf, held, crate::engine::share::current_for(bytes), sender_bell.clone()));
        (Payload::Local(ls.clone()), Sent::Waiting(ls))
    };
    channel.push(LocalMessage { envelope, payload });
    Ok(state)
}

/// How a blocking receive's wait on its landing stands (see [`wait_landing`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Waited {
    /// The message landed: the receive is complete.
    Landed(Landed),
    /// Withdrawn (or never posted) with nothing landed: the receive goes on polling.
    Withdrawn,
    /// Still posted, the caller's patience having run out first: it may yield or park, and
    /// must call [`recheck_landing`] before it takes anything from `from` and before it
    /// returns (a sender may write into the buffer until then).
    Posted,
}

/// Receiver: waits for a message from local endpoint `from` to land in the `capacity` bytes
/// at `buf` (see [`super::landing`]), for a blocking receive of endpoint `me` with `tag`
/// (`None`: any tag). The caller has taken every message `from` sent so far and matched none,
/// holds `me`'s matching state, and no posted receive of `me` could take a message of `from`.
/// Spins for at most `TURNS` turns while `patient` says so and nothing else comes from
/// `from`: [`Waited::Landed`]; [`Waited::Withdrawn`] when something came or the turns
/// passed; [`Waited::Posted`] when `patient` says no. Opens no channel: a sender that has not
/// sent yet has sent nothing that could be left behind.
///
/// # Safety
/// `buf` is writable for `capacity` bytes, and nothing else reads or writes it, until this
/// returns, or, when it returns [`Waited::Posted`], until [`recheck_landing`] returns
/// something else.
#[inline]
pub unsafe fn wait_landing(
    channels: &Channels,
    me: u32,
    from: u32,
    tag: Option<i32>,
    buf: *mut u8,
    capacity: usize,
    mut patient: impl FnMut() -> bool,
) -> Waited {
    /// Turns between the caller's own polls, which check the rest of its endpoint (its
    /// progress rule's widened drain counts these).
    const TURNS: u32 = 16;
    // A receive from itself waits for a send its own thread has not made.
    if from == me {
        return Waited::Withdrawn;
    }
    let landing = &channels.1[me as usize];
    let taken = channels.0.get(me, from).map_or(0, |c| c.taken());
    // SAFETY: the caller's contract.
    unsafe { landing.post(from, tag, buf, capacity, taken) };
    for _ in 0..TURNS {
        if let Some(l) = landing.landed() {
            return Waited::Landed(l);
        }
        if channels.0.get(me, from).is_some_and(|c| c.has_next()) {
            break;
        }
        if !patient() {
            return Waited::Posted;
        }
    }
    withdrawn(landing.withdraw())
}

/// Receiver: after [`wait_landing`] left endpoint `me`'s landing posted for `from`, looks
/// again. [`Waited::Posted`] (still posted) only when `keep` and nothing has come from `from`
/// and nobody has taken anything from its channel meanwhile (another thread's progress may
/// drain it); else withdrawn, or landed.
#[inline]
pub fn recheck_landing(channels: &Channels, me: u32, from: u32, keep: bool) -> Waited {
    let landing = &channels.1[me as usize];
    if let Some(l) = landing.landed() {
        return Waited::Landed(l);
    }
    if keep {
        let channel = channels.0.get(me, from);
        let quiet = channel.is_none_or(|c| !c.has_next() && c.taken() == landing.posted_taken());
        if quiet {
            return Waited::Posted;
        }
    }
    withdrawn(landing.withdraw())
}

/// The outcome of a withdrawal.
#[inline]
fn withdrawn(landed: Option<Landed>) -> Waited {
    landed.map_or(Waited::Withdrawn, Waited::Landed)
}

/// Hands the messages sent to endpoint `local` (by local endpoint `from`, or by every local
/// endpoint that has sent to it, sender after sender in the order their channels were opened),
/// each sender's in order, to `take`, each still in its channel's cell: `take` owns the message
/// from then on (it reads it out, at most once, see `Channel::drain_with`). An error of `take`
/// stops the drain; the later messages stay in their channel, in order.
#[inline(always)]
pub fn drain_inbox<E>(
    channels: &Channels,
    local: u32,
    from: Option<u32>,
    mut take: impl FnMut(*mut LocalMessage) -> Result<(), E>,
) -> Result<(), E> {
    match from {
        Some(s) => match channels.0.get(local, s) {
            Some(ch) => ch.drain_with(&mut take),
            None => Ok(()),
        },
        None => channels.0.for_each_opened(local, |ch: &Channel| ch.drain_with(&mut take)),
    }
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

    /// A rendezvous send whose buffer is never used (its reference count shows whether a
    /// message holding it was dropped).
    fn unused_local_send() -> Arc<LocalSend> {
        // SAFETY: an all-zero `UserBuf` is a valid value (a null address, integers, and a host
        // datatype handle that is an int or a pointer); the tests never use its buffer.
        let buf = unsafe { std::mem::zeroed() };
        Arc::new(LocalSend::new(buf, None, None, Arc::default()))
    }

    /// Sends `tag` from `sender` to `receiver` as `send` does (opening the channel if needed).
    fn push(channels: &Channels, receiver: u32, sender: u32, tag: i32) {
        let m = LocalMessage { envelope: Envelope { source: sender as i32, tag }, payload: Payload::Eager(vec![]) };
        channels.0.get_or_open(receiver, sender).push(m);
    }

    /// (source, tag) of every message a drain of `receiver` (from `from`, or all) hands over.
    fn drain_all(channels: &Channels, receiver: u32, from: Option<u32>) -> Vec<(i32, i32)> {
        let mut got = Vec::new();
        drain_inbox(channels, receiver, from, |m| {
            // SAFETY: the channel hands the message over; it is read once.
            let m = unsafe { m.read() };
            got.push((m.envelope.source, m.envelope.tag));
            Ok::<(), ()>(())
        })
        .unwrap();
        got
    }

    /// A sender's channel is found where it was opened and nowhere else: not by another
    /// receiver, not for another sender of the same block.
    #[test]
    fn channels_are_found_by_receiver_and_sender() {
        let channels = Channels::new(100);
        assert!(channels.0.get(3, 7).is_none());
        let opened: *const Channel = channels.0.get_or_open(3, 7);
        assert_eq!(channels.0.get(3, 7).map(|c| c as *const Channel), Some(opened));
        assert_eq!(channels.0.get_or_open(3, 7) as *const Channel, opened, "opened once");
        assert!(channels.0.get(7, 3).is_none());
        assert!(channels.0.get(3, 8).is_none());
        assert!(channels.0.get(4, 7).is_none());
        let last: *const Channel = channels.0.get_or_open(99, 99);
        assert_ne!(last, opened);
        assert_eq!(channels.0.get(99, 99).map(|c| c as *const Channel), Some(last));
    }

    /// Nothing but the rows is allocated before a message; a block per 64 senders that sent,
    /// and a channel per sender that sent. Checked by mutation: with every block allocated up
    /// front, the block counts fail.
    #[test]
    fn blocks_and_channels_are_allocated_by_the_first_message() {
        let channels = Channels::new(200);
        assert!((0..200).all(|r| channels.0.blocks(r) == 0 && channels.0.opened(r) == 0));
        push(&channels, 0, 5, 1);
        assert_eq!((channels.0.blocks(0), channels.0.opened(0)), (1, 1));
        push(&channels, 0, 6, 1);
        assert_eq!((channels.0.blocks(0), channels.0.opened(0)), (1, 2));
        push(&channels, 0, 199, 1);
        assert_eq!((channels.0.blocks(0), channels.0.opened(0)), (2, 3));
        push(&channels, 0, 5, 2);
        assert_eq!((channels.0.blocks(0), channels.0.opened(0)), (2, 3), "a second message opens nothing");
        assert!((1..200).all(|r| channels.0.blocks(r) == 0 && channels.0.opened(r) == 0));
    }

    /// A wildcard drain takes every sender's messages in that sender's order, visiting the
    /// senders in the order they opened their channels; a drain naming its source takes only
    /// that source's. Checked by mutation: with the list linked at its head instead of its
    /// end, the visiting order fails.
    #[test]
    fn wildcard_drain_keeps_each_senders_order() {
        let channels = Channels::new(130);
        for (sender, tag) in [(70, 0), (3, 0), (129, 0), (3, 1), (70, 1), (3, 2), (129, 1)] {
            push(&channels, 1, sender, tag);
        }
        assert_eq!(drain_all(&channels, 1, Some(3)), vec![(3, 0), (3, 1), (3, 2)]);
        assert_eq!(drain_all(&channels, 1, Some(4)), vec![]);
        assert_eq!(drain_all(&channels, 1, None), vec![(70, 0), (70, 1), (129, 0), (129, 1)]);
        for (sender, tag) in [(3, 3), (0, 0), (70, 2), (0, 1)] {
            push(&channels, 1, sender, tag);
        }
        assert_eq!(drain_all(&channels, 1, None), vec![(70, 2), (3, 3), (0, 0), (0, 1)]);
        assert_eq!(drain_all(&channels, 0, None), vec![]);
    }

    /// Many senders open their channels to one receiver at once (several per block, several
    /// blocks) while it drains with a wildcard: every message arrives once, each sender's in
    /// order, and every sender has one channel.
    #[test]
    fn many_senders_open_channels_to_one_receiver_at_once() {
        const SENDERS: u32 = 200;
        const THREADS: u32 = 8;
        const MESSAGES: i32 = 300;
        let channels = Channels::new(SENDERS as usize + 1);
        let receiver = SENDERS;
        let mut got: Vec<Vec<i32>> = vec![Vec::new(); SENDERS as usize];
        std::thread::scope(|s| {
            for t in 0..THREADS {
                let channels = &channels;
                // Each thread sends for the senders t, t + THREADS, ... in turns (one thread
                // per sender: a channel has one producer at a time).
                s.spawn(move || {
                    for tag in 0..MESSAGES {
                        for sender in (t..SENDERS).step_by(THREADS as usize) {
                            push(channels, receiver, sender, tag);
                        }
                    }
                });
            }
            let total = (SENDERS as usize) * MESSAGES as usize;
            let mut count = 0;
            while count < total {
                for (source, tag) in drain_all(&channels, receiver, None) {
                    got[source as usize].push(tag);
                    count += 1;
                }
            }
        });
        for (sender, tags) in got.iter().enumerate() {
            assert_eq!(*tags, (0..MESSAGES).collect::<Vec<_>>(), "sender {sender}: lost, duplicated or reordered");
        }
        assert_eq!(channels.0.opened(receiver), SENDERS as usize);
        assert_eq!(channels.0.blocks(receiver), (SENDERS as usize).div_ceil(64));
    }

    /// Messages left in the inboxes when the communicator goes are dropped once, whichever
    /// block and list they are in.
    #[test]
    fn undelivered_messages_are_dropped_with_the_inboxes() {
        let ls = unused_local_send();
        {
            let channels = Channels::new(70);
            for (receiver, sender) in [(0, 1), (0, 69), (69, 0), (5, 5)] {
                let m = LocalMessage { envelope: Envelope { source: 0, tag: 0 }, payload: Payload::Local(ls.clone()) };
                channels.0.get_or_open(receiver, sender).push(m);
            }
            assert_eq!(Arc::strong_count(&ls), 5);
        }
        assert_eq!(Arc::strong_count(&ls), 1);
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
        let ls = unused_local_send();
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

    /// The sender's count shows nothing left behind (a landing may be claimed) only once the
    /// receiver has taken every message, the overflow's included: here the sender sends once
    /// more while the receiver delivers the overflow's batch, so that message stays in the
    /// overflow when the drain returns, with the ring's counts equal. Checked by mutation:
    /// without the overflow's term in `all_taken`, this fails.
    #[test]
    fn a_message_left_in_the_overflow_is_not_taken() {
        let ch = Channel::new(RING_CELLS);
        assert!(ch.all_taken(ch.taken()) && !ch.has_next(), "a new channel");
        ch.push(msg(0));
        assert!(!ch.all_taken(ch.taken()) && ch.has_next(), "a message in the ring");
        assert_eq!(drain_tags(&ch), vec![0]);
        assert!(ch.all_taken(ch.taken()));
        let last = RING_CELLS as i32 + 1;
        for t in 1..=last {
            ch.push(msg(t)); // the last one overflows
        }
        ch.drain_with(|m| {
            // SAFETY: the channel hands the message over; it is read once.
            let m = unsafe { m.read() };
            if m.envelope.tag == last {
                ch.push(msg(100)); // the sender, during the overflow's delivery
            }
            Ok::<(), ()>(())
        })
        .unwrap();
        assert!(!ch.all_taken(ch.taken()), "message 100 is still in the overflow");
        assert!(ch.has_next());
        assert_eq!(drain_tags(&ch), vec![100]);
        assert!(ch.all_taken(ch.taken()) && !ch.has_next());
    }

    /// A landing left posted stays posted on a recheck only while its channel is quiet: not
    /// once a message waits there, nor once another thread has drained one meanwhile (the
    /// sender's count then no longer matches, so the message went elsewhere and the receive
    /// must look at its queue). Checked by mutation: without the count's comparison in
    /// `recheck_landing`, the drained case fails.
    #[test]
    fn a_recheck_withdraws_once_the_channel_moved() {
        let channels = Channels::new(2);
        let mut buf = [0u8; 2048];
        let post = |buf: &mut [u8; 2048]| {
            // SAFETY: `buf` outlives the post; each case below withdraws it.
            unsafe { wait_landing(&channels, 0, 1, None, buf.as_mut_ptr(), buf.len(), || false) }
        };
        assert_eq!(post(&mut buf), Waited::Posted);
        assert_eq!(recheck_landing(&channels, 0, 1, true), Waited::Posted, "a quiet channel (not even opened)");
        push(&channels, 0, 1, 5);
        assert_eq!(recheck_landing(&channels, 0, 1, true), Waited::Withdrawn, "a message waits");
        assert_eq!(drain_all(&channels, 0, Some(1)), vec![(1, 5)]);
        assert_eq!(post(&mut buf), Waited::Posted);
        push(&channels, 0, 1, 6);
        assert_eq!(drain_all(&channels, 0, Some(1)), vec![(1, 6)], "another thread's drain");
        assert_eq!(recheck_landing(&channels, 0, 1, true), Waited::Withdrawn, "drained meanwhile");
        assert_eq!(post(&mut buf), Waited::Posted);
        assert_eq!(recheck_landing(&channels, 0, 1, false), Waited::Withdrawn, "not kept");
        assert!(!channels.landing_posted(0));
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
        let ls = unused_local_send();
        {
            let ch = Channel::new(RING_CELLS);
            ch.push(LocalMessage { envelope: Envelope { source: 0, tag: 0 }, payload: Payload::Local(ls.clone()) });
            assert_eq!(Arc::strong_count(&ls), 2);
        }
        assert_eq!(Arc::strong_count(&ls), 1);
    }
}
