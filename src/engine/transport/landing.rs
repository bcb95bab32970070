//! Landings: a blocking receive that waits for one sender of its process publishes its buffer,
//! and the sender copies the message straight into it. One copy and no allocation, where the
//! eager path (see [`super::local`]) packs a copy that the receiver then copies again.
//!
//! Each receiving endpoint of a communicator has one landing, one cache line.
//! * The receive posts it while it waits: the source, the tag, the buffer, and how many
//!   messages it had taken from that source's channel. It withdraws the landing before it
//!   takes anything from that channel, and before it returns.
//! * A sender that finds the landing posted for itself, with a matching tag and room for its
//!   message, claims it, copies, and marks it landed. The send is then complete, and so is the
//!   receive.
//!
//! Why MPI's order holds (non-overtaking, MPI 4.1 section 3.5):
//! * A sender claims a landing only when the receiver has taken every message it sent before
//!   on that channel. The sender compares its own count of messages sent with the count the
//!   landing records.
//! * Once it has posted, the receive takes nothing from that channel before withdrawing the
//!   landing. A withdrawal that finds the landing claimed waits for the claimed message,
//!   which was sent first.
//! * The receive posts only when no earlier posted receive of its endpoint could take the
//!   message (the caller's check).
//!
//! A post's fields are atomics that the sender reads before it claims. The state word carries
//! a generation, one per post, so a claim succeeds only for the post whose fields the sender
//! read (a seqlock's check).
//!
//! Depends on nothing but [`crate::engine::sync`] on purpose: `tests/loom` model-checks a
//! sender and a receive racing over a landing.

use crate::engine::sync::{AtomicPtr, AtomicU32, AtomicU64, Backoff, Ordering};

/// The low two bits of the state word; the rest is the post's generation.
const PHASE: u64 = 3;
/// Not posted (never posted, or withdrawn).
const IDLE: u64 = 0;
/// Posted: a sender may claim it.
const POSTED: u64 = 1;
/// Claimed by a sender, which is copying its message in.
const CLAIMED: u64 = 2;
/// The message is in the receive's buffer.
const LANDED: u64 = 3;
/// The tag word of a receive of any tag.
const ANY_TAG: u64 = u64::MAX;

/// A receiving endpoint's landing (see the module notes).
#[repr(align(64))]
pub struct Landing {
    /// `generation << 2 | phase`.
    state: AtomicU64,
    /// The sending endpoint the receive waits for (its local index).
    source: AtomicU32,
    /// The landed message's tag, written by the sender while it holds the claim.
    landed_tag: AtomicU32,
    /// The receive's tag (as `u32`), or [`ANY_TAG`].
    tag: AtomicU64,
    buf: AtomicPtr<u8>,
    /// The receive buffer's size in bytes.
    capacity: AtomicU64,
    /// Messages the receiver had taken from the source's channel when it posted.
    taken: AtomicU64,
    /// The landed message's size in bytes, written by the sender while it holds the claim.
    landed_bytes: AtomicU64,
}

/// A message that landed: its tag and its size in bytes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Landed {
    pub tag: i32,
    pub bytes: usize,
}

impl Default for Landing {
    fn default() -> Self {
        Landing::new()
    }
}

impl Landing {
    /// A landing never posted.
    pub fn new() -> Landing {
        Landing {
            state: AtomicU64::new(IDLE),
            source: AtomicU32::new(0),
            landed_tag: AtomicU32::new(0),
            tag: AtomicU64::new(0),
            buf: AtomicPtr::new(std::ptr::null_mut()),
            capacity: AtomicU64::new(0),
            taken: AtomicU64::new(0),
            landed_bytes: AtomicU64::new(0),
        }
    }

    /// Receiver: posts a receive from local endpoint `source` with `tag` (`None`: any tag)
    /// into the `capacity` bytes at `buf`, after taking `taken` messages from `source`'s
    /// channel. The landing must not be posted or claimed (a fresh one, or one withdrawn or
    /// landed). Called by the receiving endpoint's thread only.
    ///
    /// # Safety
    /// `buf` is writable for `capacity` bytes, and nothing else reads or writes it, until
    /// [`Self::withdraw`] returns or [`Self::landed`] returns `Some`.
    #[inline]
    pub unsafe fn post(&self, source: u32, tag: Option<i32>, buf: *mut u8, capacity: usize, taken: u64) {
        let s = self.state.load(Ordering::Relaxed);
        debug_assert!(s & PHASE == IDLE || s & PHASE == LANDED, "posting a landing still posted");
        self.source.store(source, Ordering::Relaxed);
        self.tag.store(tag.map_or(ANY_TAG, |t| t as u32 as u64), Ordering::Relaxed);
        self.buf.store(buf, Ordering::Relaxed);
        self.capacity.store(capacity as u64, Ordering::Relaxed);
        self.taken.store(taken, Ordering::Relaxed);
        // Release: a sender that sees this post sees its fields.
        self.state.store(((s >> 2) + 1) << 2 | POSTED, Ordering::Release);
    }

    /// Receiver: the message, once one has landed (the receive is then complete). Called by
    /// the receiving endpoint's thread only.
    #[inline]
    pub fn landed(&self) -> Option<Landed> {
        // Acquire: the sender's copy into the buffer and its result fields are visible.
        if self.state.load(Ordering::Acquire) & PHASE != LANDED {
            return None;
        }
        Some(self.result())
    }

    /// The landed message's tag and size (the state was seen `LANDED`, acquire).
    fn result(&self) -> Landed {
        Landed {
            tag: self.landed_tag.load(Ordering::Relaxed) as i32,
            bytes: self.landed_bytes.load(Ordering::Relaxed) as usize,
        }
    }

    /// True while posted and not claimed.
    #[cfg(test)]
    pub fn is_posted(&self) -> bool {
        self.state.load(Ordering::Relaxed) & PHASE == POSTED
    }

    /// Receiver: the count of messages taken from the source's channel that the last post
    /// recorded.
    #[inline]
    pub fn posted_taken(&self) -> u64 {
        self.taken.load(Ordering::Relaxed)
    }

    /// Receiver: withdraws the posted landing. `None` when no sender had claimed it (none will
    /// now); the message when one had, after waiting for its copy to end (a copy of at most
    /// an eager message, but its sender may lose its core meanwhile, hence the backoff).
    /// Called by the receiving endpoint's thread only, on a landing it posted.
    pub fn withdraw(&self) -> Option<Landed> {
        let s = self.state.load(Ordering::Relaxed);
        if s & PHASE == POSTED
            && self.state.compare_exchange(s, s & !PHASE | IDLE, Ordering::Relaxed, Ordering::Relaxed).is_ok()
        {
            return None;
        }
        let mut b = Backoff::new();
        loop {
            if let Some(l) = self.landed() {
                return Some(l);
            }
            b.snooze();
        }
    }

    /// Sender: lands a message of `bytes` bytes with `tag` from local endpoint `me`, if the
    /// landing is posted for it with room for the message and `quiet(taken)` says that the
    /// receiver has taken every message `me` sent before (see the module notes). `copy`
    /// writes the message to the buffer it is given (room for `bytes` bytes). True when the
    /// message landed: the send and its receive are complete. Called by `me`'s thread only.
    #[inline]
    pub fn try_land(&self, me: u32, tag: i32, bytes: usize, quiet: impl FnOnce(u64) -> bool, copy: impl FnOnce(*mut u8)) -> bool {
        // Acquire: the post's fields, written before it, are visible.
        let s = self.state.load(Ordering::Acquire);
        if s & PHASE != POSTED || self.source.load(Ordering::Relaxed) != me {
            return false;
        }
        let want = self.tag.load(Ordering::Relaxed);
        if (want != ANY_TAG && want != tag as u32 as u64) || bytes as u64 > self.capacity.load(Ordering::Relaxed) {
            return false;
        }
        let buf = self.buf.load(Ordering::Relaxed);
        if !quiet(self.taken.load(Ordering::Relaxed)) {
            return false;
        }
        // Release: the fields above are read before the claim, so a claim that succeeds read
        // the fields of the post it claims (a later post needs a withdrawal first, which moves
        // the state off `s`). Acquire: as the load above.
        if self.state.compare_exchange(s, s & !PHASE | CLAIMED, Ordering::AcqRel, Ordering::Relaxed).is_err() {
            return false;
        }
        copy(buf);
        self.landed_tag.store(tag as u32, Ordering::Relaxed);
        self.landed_bytes.store(bytes as u64, Ordering::Relaxed);
        // Release: the copy and the result are visible to the receiver that sees `LANDED`.
        self.state.store(s & !PHASE | LANDED, Ordering::Release);
        true
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    fn post(l: &Landing, source: u32, tag: Option<i32>, buf: &mut [u8], taken: u64) {
        // SAFETY: `buf` outlives every use of the landing in these tests, which end each post
        // with a withdrawal or a landing.
        unsafe { l.post(source, tag, buf.as_mut_ptr(), buf.len(), taken) };
    }

    fn land(l: &Landing, me: u32, tag: i32, data: &[u8], quiet: bool) -> bool {
        l.try_land(me, tag, data.len(), |_| quiet, |dst| {
            // SAFETY: `try_land` gives a buffer with room for `data.len()` bytes.
            unsafe { std::ptr::copy_nonoverlapping(data.as_ptr(), dst, data.len()) }
        })
    }

    /// A sender lands only on a landing posted for it, with its tag (or any), with room, and
    /// when its channel is quiet; the receive then has the bytes, the tag and the size.
    #[test]
    fn lands_only_what_the_receive_would_match() {
        let l = Landing::new();
        let mut buf = [0u8; 8];
        assert!(!land(&l, 1, 5, b"abc", true), "never posted");
        post(&l, 1, Some(5), &mut buf, 0);
        assert!(!land(&l, 2, 5, b"abc", true), "another source");
        assert!(!land(&l, 1, 6, b"abc", true), "another tag");
        assert!(!land(&l, 1, 5, b"123456789", true), "longer than the buffer");
        assert!(!land(&l, 1, 5, b"abc", false), "earlier messages not taken");
        assert_eq!(l.landed(), None);
        assert!(land(&l, 1, 5, b"abc", true));
        assert_eq!(l.landed(), Some(Landed { tag: 5, bytes: 3 }));
        assert_eq!(&buf[..4], b"abc\0");
        assert!(!land(&l, 1, 5, b"xyz", true), "a landed landing takes nothing more");
        post(&l, 1, None, &mut buf, 0);
        assert!(land(&l, 1, 7, b"12345678", true), "any tag, exactly the buffer's size");
        assert_eq!(l.landed(), Some(Landed { tag: 7, bytes: 8 }));
    }

    /// A withdrawn landing takes nothing; a withdrawal after a landing returns the message.
    #[test]
    fn withdrawals_race_with_landings() {
        let l = Landing::new();
        let mut buf = [0u8; 4];
        post(&l, 0, Some(1), &mut buf, 3);
        assert_eq!(l.withdraw(), None);
        assert!(!land(&l, 0, 1, b"ab", true), "withdrawn");
        post(&l, 0, Some(1), &mut buf, 3);
        let mut seen = None;
        let copy = |dst: *mut u8| {
            // SAFETY: `try_land` gives the posted buffer, 4 bytes long.
            unsafe { std::ptr::copy_nonoverlapping(b"ab".as_ptr(), dst, 2) }
        };
        assert!(l.try_land(0, 1, 2, |taken| {
            seen = Some(taken);
            true
        }, copy));
        assert_eq!(seen, Some(3), "the sender compares the count the receive posted");
        assert_eq!(l.withdraw(), Some(Landed { tag: 1, bytes: 2 }));
        assert_eq!(&buf[..2], b"ab");
    }

    /// Threads: a receiver posting and withdrawing while a sender tries to land numbered
    /// messages until 1000 have landed; every message lands once or not at all, and the
    /// receive gets what landed, in order.
    #[test]
    fn a_claim_lands_in_the_post_it_read() {
        let l = Landing::new();
        let landed = std::sync::atomic::AtomicU64::new(0);
        let sent_all = std::sync::atomic::AtomicBool::new(false);
        let mut got = 0u64;
        std::thread::scope(|s| {
            s.spawn(|| {
                let mut i = 0u64;
                while landed.load(Ordering::Relaxed) < 1000 {
                    i += 1;
                    let data = i.to_le_bytes();
                    if land(&l, 0, (i % 3) as i32, &data, true) {
                        landed.fetch_add(1, Ordering::Relaxed);
                    }
                }
                sent_all.store(true, Ordering::Release);
            });
            let mut last = 0u64;
            while !sent_all.load(Ordering::Acquire) {
                let mut buf = [0u8; 8];
                let tag = (got % 3) as i32;
                post(&l, 0, Some(tag), &mut buf, 0);
                let r = match l.landed() {
                    Some(r) => Some(r),
                    None => l.withdraw(),
                };
                if let Some(r) = r {
                    let v = u64::from_le_bytes(buf);
                    assert_eq!((r.tag, r.bytes), (tag, 8));
                    assert_eq!(v % 3, tag as u64, "the message carries the tag it landed with");
                    assert!(v > last, "landed twice, or out of order");
                    last = v;
                    got += 1;
                }
            }
        });
        assert_eq!(got, landed.load(Ordering::Relaxed), "every landed message was received once");
    }
}
