//! Messages as every layer sees them: what an arrived message carries until a receive takes
//! it ([`Payload`], with the inline form of small same-process messages), a local send waiting
//! for its receiver, and how a receive ended ([`Completion`]).
//!
//! Below the transports, which make these, and the matching above them, which consumes them:
//! nothing here knows of communicators or queues.

use super::datatype::{HeldType, UserBuf};
use super::doorbell::Doorbell;
use super::envelope::{ANY_TAG, PROC_NULL};
use super::share::WorkList;
use super::shared_copy::SharedCopy;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// Data up to this size travels inside a local channel's cell (see [`InlineData`]).
pub(crate) const INLINE_BYTES: usize = 32;

/// How a receive ended, before it becomes an `EP_Status`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Completion {
    pub source: i32,
    pub tag: i32,
    /// Bytes received (at most the receive buffer's size).
    pub bytes: u64,
    /// Error class of the operation (0, or `ERR_TRUNCATE` with the bytes of the message sent
    /// in `sent_bytes`).
    pub error: c_int,
    pub sent_bytes: u64,
    pub cancelled: bool,
}

impl Completion {
    /// Status of a receive from `EP_PROC_NULL` (MPI 4.1 section 3.11).
    pub fn proc_null() -> Completion {
        Completion {
            source: PROC_NULL,
            tag: ANY_TAG,
            ..Default::default()
        }
    }
}

/// A local send waiting for its receiver (rendezvous, or synchronous mode).
pub struct LocalSend {
    pub buf: UserBuf,
    /// The duplicate of a derived datatype that `buf` names, when the send made one: the
    /// receiver unpacks with it after the send's call may have returned (a nonblocking send),
    /// and the program may free its own datatype meanwhile (MPI 4.1 section 5.1.9).
    _held: Option<HeldType>,
    pub(crate) done: AtomicBool,
    /// The work list of the sender's endpoint team, if it sent as a member: the receiver's
    /// copy may be shared with that team (docs/teams.md).
    pub helpers: Option<Arc<WorkList>>,
    /// The sending endpoint's doorbell, rung once `done` is set (a sender waiting for its
    /// receiver may be parked, see `engine::doorbell`).
    pub sender_bell: Arc<Doorbell>,
    /// The copy the receiver shares with the waiting sender (large contiguous messages of a
    /// sender in no team, see `engine::shared_copy`).
    pub shared_copy: SharedCopy,
}

impl LocalSend {
    /// A send from `buf` waiting for its receiver, with the sender's team list and doorbell;
    /// `held` keeps `buf`'s datatype valid when it is a duplicate.
    pub fn new(buf: UserBuf, held: Option<HeldType>, helpers: Option<Arc<WorkList>>, sender_bell: Arc<Doorbell>) -> LocalSend {
        LocalSend { buf, _held: held, done: AtomicBool::new(false), helpers, sender_bell, shared_copy: SharedCopy::default() }
    }

    pub fn is_done(&self) -> bool {
        self.done.load(Ordering::Acquire)
    }

    /// Sender side: takes part in the receiver's copy if it has started one to share (see
    /// `engine::shared_copy`). Called by the sending thread while the send is not complete.
    pub fn help_copy(&self) {
        // SAFETY: `buf` is this send's buffer, the one the receiver's copy reads, unchanged
        // until the send completes.
        unsafe { self.shared_copy.help(self.buf.data_ptr()) }
    }
}

/// A message that arrived before its receive, or was taken by `EP_Mprobe`.
pub enum Payload {
    /// Packed data of a small local message, carried inside the inbox cell.
    Inline(InlineData),
    /// Packed data.
    Eager(Vec<u8>),
    /// Data still in a local sender's buffer.
    Local(Arc<LocalSend>),
    /// Data waiting in the host MPI: from process `proc`, on the data communicator, `data_tag`;
    /// striped in parts of `part_bytes` with consecutive data tags when that is not 0
    /// (docs/teams.md).
    Remote {
        proc: c_int,
        data_tag: c_int,
        bytes: u64,
        part_bytes: u32,
    },
}

/// An inline payload, in whole words: a byte-sized length beside an unaligned array made
/// every move of a message read back, at odd offsets, bytes just written in other widths
/// (store-forwarding stalls were a tenth of a same-process message's cost).
#[derive(Clone, Copy)]
pub struct InlineData {
    pub len: usize,
    pub bytes: [u64; INLINE_BYTES / 8],
}

/// The word whose bytes in memory are the `k` (< 8) bytes at `src`, then zeros, read in at
/// most three loads of 4, 2 and 1 bytes (a byte loop became a `memcpy` call through the
/// stack, whose narrow stores the word's load then waited for).
///
/// # Safety
/// `src` is readable for `k` bytes.
#[inline(always)]
unsafe fn read_tail(src: *const u8, k: usize) -> u64 {
    let mut v = 0u64; // byte j of the tail in bits 8j..8j+8
    let mut off = 0;
    if k & 4 != 0 {
        v = u32::from_le((src as *const u32).read_unaligned()) as u64;
        off = 4;
    }
    if k & 2 != 0 {
        v |= (u16::from_le((src.add(off) as *const u16).read_unaligned()) as u64) << (8 * off);
        off += 2;
    }
    if k & 1 != 0 {
        v |= (*src.add(off) as u64) << (8 * off);
    }
    u64::from_ne_bytes(v.to_le_bytes())
}

/// Writes the first `k` (< 8) bytes in memory of `word` to `dst` (see [`read_tail`]).
///
/// # Safety
/// `dst` is writable for `k` bytes.
#[inline(always)]
unsafe fn write_tail(dst: *mut u8, k: usize, word: u64) {
    let v = u64::from_le_bytes(word.to_ne_bytes());
    let mut off = 0;
    if k & 4 != 0 {
        (dst as *mut u32).write_unaligned((v as u32).to_le());
        off = 4;
    }
    if k & 2 != 0 {
        (dst.add(off) as *mut u16).write_unaligned(((v >> (8 * off)) as u16).to_le());
        off += 2;
    }
    if k & 1 != 0 {
        *dst.add(off) = (v >> (8 * off)) as u8;
    }
}

impl InlineData {
    /// The `len` bytes (at most `INLINE_BYTES`) at `src`, read a word at a time into
    /// registers: for the few bytes of a small message a call into `memcpy` cost more than
    /// the copy, and words assembled in memory from narrower stores and then moved stall
    /// the store forwarding (the message is written straight into its channel cell).
    ///
    /// # Safety
    /// `src` is readable for `len` bytes.
    #[inline(always)]
    pub unsafe fn read_from(src: *const u8, len: usize) -> InlineData {
        debug_assert!(len <= INLINE_BYTES);
        let words = len / 8;
        let word = |i: usize| -> u64 {
            if i < words {
                (src.add(8 * i) as *const u64).read_unaligned()
            } else if i == words {
                read_tail(src.add(8 * words), len % 8)
            } else {
                0
            }
        };
        InlineData { len, bytes: [word(0), word(1), word(2), word(3)] }
    }

    /// Writes the first `n` (at most `len`) bytes to `dst`, a word at a time (see
    /// [`Self::read_from`]).
    ///
    /// # Safety
    /// `dst` is writable for `n` bytes.
    #[inline(always)]
    pub unsafe fn write_to(&self, dst: *mut u8, n: usize) {
        debug_assert!(n <= self.len);
        let words = n / 8;
        for (i, w) in self.bytes.iter().enumerate() {
            if i < words {
                (dst.add(8 * i) as *mut u64).write_unaligned(*w);
            }
        }
        if !n.is_multiple_of(8) {
            write_tail(dst.add(8 * words), n % 8, self.bytes[words]);
        }
    }

    /// The payload's `len` bytes.
    #[inline]
    pub fn data(&self) -> &[u8] {
        // SAFETY: `bytes` holds INLINE_BYTES initialised bytes; `len` is at most that.
        unsafe { std::slice::from_raw_parts(self.bytes.as_ptr() as *const u8, self.len) }
    }
}

impl Payload {
    pub fn bytes(&self) -> u64 {
        match self {
            Payload::Inline(d) => d.len as u64,
            Payload::Eager(v) => v.len() as u64,
            Payload::Local(ls) => ls.buf.bytes() as u64,
            Payload::Remote { bytes, .. } => *bytes,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{InlineData, INLINE_BYTES};

    /// Inline payloads keep every length's bytes, write exactly the bytes asked for (a
    /// truncated receive) and never touch the receive buffer beyond them.
    #[test]
    fn inline_data_moves_exactly_its_bytes() {
        let src: Vec<u8> = (1..=INLINE_BYTES as u8 + 7).collect();
        for len in 0..=INLINE_BYTES {
            for offset in [0, 3] {
                // SAFETY: `src` holds `INLINE_BYTES + 7` bytes, so `offset + len` stays inside it.
                let d = unsafe { InlineData::read_from(src.as_ptr().add(offset), len) };
                assert_eq!(d.data(), &src[offset..offset + len], "len {len}, offset {offset}");
                for n in [0, len / 2, len] {
                    let mut dst = vec![0xEEu8; INLINE_BYTES + 2];
                    // SAFETY: `dst` holds `INLINE_BYTES + 2` bytes and `1 + n <= INLINE_BYTES + 1`.
                    unsafe { d.write_to(dst.as_mut_ptr().add(1), n) };
                    assert_eq!(&dst[1..1 + n], &src[offset..offset + n], "len {len}, n {n}");
                    assert!(dst[0] == 0xEE && dst[1 + n..].iter().all(|&b| b == 0xEE), "len {len}, n {n}: wrote past the bytes");
                }
            }
        }
    }
}
