//! The board: where the endpoints of one process meet for each blocking collective.
//!
//! Every endpoint pins its arguments on its own slot (sequence number, kind, pointer to its
//! argument struct, which lives on its stack until the collective returns). The leader (local
//! index 0) waits until every slot shows the current sequence number, then does the
//! process's part of the collective with all arguments in local-index order (combine through
//! shared memory, at most one host MPI collective) and releases the others. Then every
//! endpoint runs its own "after" part (copy its result out) in parallel.
//!
//! No lock and no fixed-size array: one slot per endpoint of the communicator, spin-then-
//! yield waiting (endpoints may outnumber cores). The leader's scratch space is reused from
//! one collective to the next without synchronisation beyond the protocol itself: the leader
//! writes it only after every endpoint has arrived at the next collective, that is, after
//! every endpoint has finished reading it in the previous one.
//!
//! Model-checked: `tests/loom` compiles this file with `loom`'s atomics and cells (through
//! [`crate::engine::sync`]) and explores endpoints arriving, the leader's part, the fan-out
//! and the reuse of the board by the next collectives.

use crate::engine::sync::{AtomicPtr, AtomicU32, AtomicU64, Backoff, Ordering, UnsafeCell};
use crate::ep_err;
use crate::error::{EpError, EpResult, ERR_OTHER};

/// Which collective an endpoint called; all endpoints of a collective must call the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u32)]
pub enum Kind {
    Barrier = 1,
    Bcast,
    Reduce,
    Allreduce,
    Gatherv,
    Scatterv,
    Allgatherv,
    Alltoallv,
    ReduceScatter,
    Scan,
    Exscan,
}

/// One endpoint's place on the board. Laid out in order (`repr(C)`, checked by a test) so
/// that everything a peer reads to see an arrival (sequence number, kinds, input lengths)
/// shares the first cache line: a barrier costs one line per peer, a small exchange one more
/// for the data. (Rust's own layout happened to do the same; the 1x2 barrier and allreduce
/// measured alike with both, 0.36-0.38 and 0.68-0.79 us.)
#[repr(C, align(128))]
struct Slot {
    seq: AtomicU64,
    kind: AtomicU32,
    inline_len: [AtomicU32; 2],
    /// Kind of the exchange with each parity (a fast endpoint may already have published
    /// the next one's kind while others still check this one's).
    inline_kind: [AtomicU32; 2],
    args: AtomicPtr<()>,
    /// Sequence number of the last collective whose `after` part this endpoint finished
    /// (written only for collectives that hold).
    finished: AtomicU64,
    /// Small inputs of [`Board::exchange`], double-buffered by sequence parity.
    inline: [UnsafeCell<Inline>; 2],
}

/// Bytes an endpoint can hand over inline in [`Board::exchange`].
pub(crate) const INLINE_BYTES: usize = 512;

/// Most endpoints per process for which [`Board::exchange`] pays (each reads every slot).
pub(crate) const EXCHANGE_MAX_ENDPOINTS: usize = 16;

#[repr(align(64))]
struct Inline([u8; INLINE_BYTES]);

/// Cache-line padded counter.
#[repr(align(128))]
struct Padded(AtomicU64);

/// Scratch memory owned by the leader during its part, read by everyone after the release.
pub struct Scratch {
    /// Packed bytes or typed elements (16-byte aligned, enough for every MPI type).
    pub bytes: AlignedBuf,
    /// A second buffer, for collectives that receive into one and send from another.
    pub bytes2: AlignedBuf,
    /// Byte offsets of each local endpoint's part in `bytes` (or whatever the collective
    /// needs to tell the endpoints).
    pub offsets: Vec<usize>,
    /// Data that endpoints copy from straight out of another endpoint's buffer (null: none).
    pub shared_src: *mut u8,
}

pub struct Board {
    slots: Box<[Slot]>,
    released: Padded,
    error: UnsafeCell<Option<EpError>>,
    scratch: UnsafeCell<Scratch>,
}

// SAFETY: `error` and `scratch` are written by the leader only between the arrival of every
// endpoint and the release, and read by the others only after the release (see module doc).
unsafe impl Sync for Board {}
unsafe impl Send for Board {}

impl Board {
    pub fn new(n: usize) -> Board {
        Board {
            slots: (0..n)
                .map(|_| Slot {
                    seq: AtomicU64::new(0),
                    kind: AtomicU32::new(0),
                    args: AtomicPtr::new(std::ptr::null_mut()),
                    finished: AtomicU64::new(0),
                    inline: [UnsafeCell::new(Inline([0; INLINE_BYTES])), UnsafeCell::new(Inline([0; INLINE_BYTES]))],
                    inline_len: [AtomicU32::new(0), AtomicU32::new(0)],
                    inline_kind: [AtomicU32::new(0), AtomicU32::new(0)],
                })
                .collect(),
            released: Padded(AtomicU64::new(0)),
            error: UnsafeCell::new(None),
            scratch: UnsafeCell::new(Scratch {
                bytes: AlignedBuf::default(),
                bytes2: AlignedBuf::default(),
                offsets: Vec::new(),
                shared_src: std::ptr::null_mut(),
            }),
        }
    }

    /// Number of endpoints meeting here.
    pub fn len(&self) -> usize {
        self.slots.len()
    }

    /// Runs one collective without a leader, for communicators inside one process: every
    /// endpoint copies its small `input` (at most [`INLINE_BYTES`]) into its slot, waits for
    /// all the others, and runs `each` on every input in local order. Latency is one
    /// handoff between threads (the arrivals cross in parallel) instead of two.
    ///
    /// Inputs are double-buffered: an endpoint overwrites the buffer of collective k only in
    /// collective k+2, which it reaches after everyone arrived at k+1, so after everyone is
    /// done reading k.
    pub fn exchange(&self, me: usize, kind: Kind, input: &[u8], each: impl FnOnce(&[&[u8]]) -> EpResult<()>) -> EpResult<()> {
        assert!(input.len() <= INLINE_BYTES);
        let slot = &self.slots[me];
        let seq = slot.seq.load(Ordering::Relaxed) + 1;
        let parity = (seq % 2) as usize;
        // SAFETY: only this endpoint writes its slot, and nobody reads this half now (above).
        slot.inline[parity].with_mut(|p| unsafe { (&mut (*p).0)[..input.len()].copy_from_slice(input) });
        slot.inline_len[parity].store(input.len() as u32, Ordering::Relaxed);
        slot.inline_kind[parity].store(kind as u32, Ordering::Relaxed);
        slot.kind.store(kind as u32, Ordering::Relaxed);
        slot.seq.store(seq, Ordering::Release);
        let mut b = Backoff::new();
        for other in self.slots.iter() {
            while other.seq.load(Ordering::Acquire) < seq {
                b.snooze();
            }
        }
        if let Some(s) = self.slots.iter().find(|s| s.inline_kind[parity].load(Ordering::Relaxed) != kind as u32) {
            return Err(ep_err!(
                ERR_OTHER,
                "endpoints of one process called different collectives at the same point ({kind:?} and kind {}); \
                 every rank must call the same collectives in the same order",
                s.inline_kind[parity].load(Ordering::Relaxed)
            ));
        }
        let mut inputs: [&[u8]; EXCHANGE_MAX_ENDPOINTS] = [&[]; EXCHANGE_MAX_ENDPOINTS];
        for (i, s) in self.slots.iter().enumerate() {
            let len = s.inline_len[parity].load(Ordering::Relaxed) as usize;
            // SAFETY: published before `seq` (Release/Acquire), untouched until k+2. (Under
            // loom the read is checked here, where the slice is taken: `each` reads it before
            // this endpoint's next arrival, so no synchronisation comes in between.)
            inputs[i] = s.inline[parity].with(|p| unsafe { &(&(*p).0)[..len] });
        }
        each(&inputs[..self.slots.len()])
    }

    /// Runs one collective for the endpoint with local index `me`.
    ///
    /// `leader` runs once, on local index 0, with every endpoint's arguments in local order
    /// and the scratch space; `after` runs on every endpoint once the leader is done (not when
    /// the leader failed), with its own arguments and the scratch space. With `hold`, nobody
    /// returns before everyone has finished `after` (for collectives whose `after` reads
    /// another endpoint's user buffer); every endpoint must pass the same `hold`.
    pub fn run<A>(
        &self,
        me: usize,
        kind: Kind,
        args: &A,
        hold: bool,
        leader: impl FnOnce(&[&A], &mut Scratch) -> EpResult<()>,
        after: impl FnOnce(&A, &Scratch) -> EpResult<()>,
    ) -> EpResult<()> {
        let n = self.slots.len();
        let slot = &self.slots[me];
        let seq = slot.seq.load(Ordering::Relaxed) + 1;
        slot.kind.store(kind as u32, Ordering::Relaxed);
        slot.args.store(args as *const A as *mut (), Ordering::Relaxed);
        slot.seq.store(seq, Ordering::Release);
        if me == 0 {
            let mut b = Backoff::new();
            for other in &self.slots[1..] {
                while other.seq.load(Ordering::Acquire) != seq {
                    b.snooze();
                }
            }
            let outcome = match self.slots.iter().find(|s| s.kind.load(Ordering::Relaxed) != kind as u32) {
                Some(s) => Some(ep_err!(
                    ERR_OTHER,
                    "endpoints of one process called different collectives at the same point ({kind:?} and kind {}); \
                     every rank must call the same collectives in the same order",
                    s.kind.load(Ordering::Relaxed)
                )),
                None => {
                    // SAFETY: each pointer is the `&A` of a waiting endpoint (same kind, so
                    // same argument type).
                    // A process with one endpoint (the common shape of a job with one thread per
                    // process) needs no list: an allocation per collective showed in its profile.
                    let many: Vec<&A>;
                    let all: &[&A] = if n == 1 {
                        std::slice::from_ref(&args)
                    } else {
                        many = self.slots.iter().map(|s| unsafe { &*(s.args.load(Ordering::Relaxed) as *const A) }).collect();
                        &many
                    };
                    // SAFETY: every endpoint is waiting for the release; nobody reads it now.
                    self.scratch.with_mut(|scratch| leader(all, unsafe { &mut *scratch })).err()
                }
            };
            // SAFETY: as the scratch space.
            self.error.with_mut(|error| unsafe { *error = outcome });
            self.released.0.store(seq, Ordering::Release);
        } else {
            let mut b = Backoff::new();
            while self.released.0.load(Ordering::Acquire) != seq {
                b.snooze();
            }
        }
        // SAFETY: after the release the leader writes neither until everyone arrives again.
        let result = match self.error.with(|error| unsafe { (*error).clone() }) {
            Some(e) => Err(e),
            None => self.scratch.with(|scratch| after(args, unsafe { &*scratch })),
        };
        if hold && n > 1 {
            // Each endpoint says it is done on its own slot; nobody leaves before all are.
            slot.finished.store(seq, Ordering::Release);
            let mut b = Backoff::new();
            for other in self.slots.iter() {
                while other.finished.load(Ordering::Acquire) < seq {
                    b.snooze();
                }
            }
        }
        result
    }
}

/// A growable byte buffer aligned to 16 bytes, so typed elements of any MPI type fit.
#[derive(Default)]
pub struct AlignedBuf {
    words: Vec<u128>,
    len: usize,
}

impl AlignedBuf {
    /// Makes room for `len` bytes (contents unspecified) and returns them.
    pub fn resize(&mut self, len: usize) -> &mut [u8] {
        let words = len.div_ceil(16);
        if self.words.len() < words {
            self.words.resize(words, 0);
        }
        self.len = len;
        self.as_mut()
    }

    pub fn as_mut(&mut self) -> &mut [u8] {
        // SAFETY: `words` holds at least `len` bytes.
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr() as *mut u8, self.len) }
    }

    pub fn as_ref(&self) -> &[u8] {
        // SAFETY: as above.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr() as *const u8, self.len) }
    }

    pub fn ptr(&self) -> *mut u8 {
        self.words.as_ptr() as *mut u8
    }

    pub fn len(&self) -> usize {
        self.len
    }
}

// Threads of std, not models: tests/loom compiles this file with loom's atomics and has its own.
#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;
    use std::sync::Arc;

    /// Leaderless exchanges and leader rounds interleaved: each round's sum is exact.
    #[test]
    fn exchanges_and_rounds_interleave() {
        let board = Arc::new(Board::new(4));
        let threads: Vec<_> = (0..4usize)
            .map(|me| {
                let board = board.clone();
                std::thread::spawn(move || {
                    for round in 0..3000u64 {
                        let input = round * 4 + me as u64;
                        let mut out = 0u64;
                        if round % 3 != 2 {
                            board
                                .exchange(me, Kind::Allreduce, &input.to_ne_bytes(), |all| {
                                    out = all.iter().map(|b| u64::from_ne_bytes((*b).try_into().unwrap())).sum();
                                    Ok(())
                                })
                                .unwrap();
                        } else {
                            board
                                .run(
                                    me,
                                    Kind::Allgatherv,
                                    &input,
                                    false,
                                    |all, s| {
                                        let sum: u64 = all.iter().map(|x| **x).sum();
                                        s.bytes.resize(8).copy_from_slice(&sum.to_ne_bytes());
                                        Ok(())
                                    },
                                    |_, s| {
                                        out = u64::from_ne_bytes(s.bytes.as_ref().try_into().unwrap());
                                        Ok(())
                                    },
                                )
                                .unwrap();
                        }
                        assert_eq!(out, 16 * round + 6, "round {round}");
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    }

    /// Many rounds of a sum over 4 threads: every round's result is exact, so no round
    /// mixes with the next one.
    #[test]
    fn rounds_stay_apart() {
        let board = Arc::new(Board::new(4));
        let threads: Vec<_> = (0..4usize)
            .map(|me| {
                let board = board.clone();
                std::thread::spawn(move || {
                    for round in 0..2000u64 {
                        let input = round * 4 + me as u64;
                        let mut out = 0u64;
                        board
                            .run(
                                me,
                                Kind::Allreduce,
                                &input,
                                round % 3 == 0,
                                |all, s| {
                                    let sum: u64 = all.iter().map(|x| **x).sum();
                                    s.bytes.resize(8).copy_from_slice(&sum.to_ne_bytes());
                                    Ok(())
                                },
                                |_, s| {
                                    out = u64::from_ne_bytes(s.bytes.as_ref().try_into().unwrap());
                                    Ok(())
                                },
                            )
                            .unwrap();
                        assert_eq!(out, 16 * round + 6);
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
    }

    #[test]
    fn arrival_fields_share_the_first_line() {
        use std::mem::offset_of;
        for end in [offset_of!(Slot, seq) + 8, offset_of!(Slot, inline_len) + 8, offset_of!(Slot, inline_kind) + 8] {
            assert!(end <= 64, "a field a peer reads on arrival ends at byte {end} of the slot");
        }
        assert_eq!(offset_of!(Slot, inline), 64, "the even-parity input starts in the slot's second line");
    }
}
