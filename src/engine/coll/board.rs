//! The board: where the endpoints of one process meet for each blocking collective.
//!
//! Every endpoint pins its arguments on its own slot (sequence number, kind, pointer to its
//! argument struct, which lives on its stack until the collective returns). The leader (local
//! index 0) waits until every slot shows the current sequence number, then does the
//! process's part of the collective with all arguments in local-index order (combine through
//! shared memory, at most one host MPI collective) and releases the others. Then every
//! endpoint runs its own "after" part (copy its result out) in parallel.
//!
//! Communicators inside one process skip the leader for small data ([`Board::exchange`]):
//! every endpoint stamps its input into its own input lines, waits for everyone's, and reads
//! them all. A stamp (sequence number, kind, length) shares its cache line with 56 bytes of
//! the data, so waiting for a peer and fetching its data are one line transfer. An endpoint
//! that needs nobody's input leaves at once ([`Arrival::depart`]: a broadcast's root, a
//! reduction's other endpoints), and one that needs a single input waits for that one alone
//! ([`Arrival::meet_one`]). [`Board::barrier`] uses the header line alone.
//!
//! No lock and no fixed-size array: one slot per endpoint of the communicator, spin-then-
//! yield waiting (endpoints may outnumber cores; under the passive wait policy a waiter parks
//! on the bell of the slot it waits for, or on the release's, rung by their writers). The leader's scratch space is reused from
//! one collective to the next without synchronisation beyond the protocol itself: the leader
//! writes it only after every endpoint has arrived at the next collective, that is, after
//! every endpoint has finished reading it in the previous one.
//!
//! Why the board is not a [`crate::engine::meeting::MeetingPoint`]: the meeting point takes a
//! mutex, boxes every input, sleeps on a condition variable and hands out an `Arc`ed result,
//! which costs microseconds per meeting; a blocking collective between the endpoints of one
//! process costs a few hundred nanoseconds here (one cache-line transfer per peer), so
//! collectives would run several times slower on their hot path. The board also needs no
//! error agreement of its own: the data collectives check every argument before an endpoint
//! arrives (docs/errors.md), and a mismatch between endpoints is reported on the board.
//!
//! Model-checked: `tests/loom` compiles this file with `loom`'s atomics and cells (through
//! [`crate::engine::sync`]) and explores endpoints arriving, the leader's part, the fan-out
//! and the reuse of the board by the next collectives.

use crate::engine::sync::{AtomicPtr, AtomicU16, AtomicU64, Backoff, Doorbell, Ordering, UnsafeCell, WorkList};
use crate::ep_err;
use crate::error::{EpError, EpResult, ERR_OTHER};
use std::cell::Cell;
#[cfg(not(loom))]
use std::sync::OnceLock;

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

/// Consecutive collectives whose inputs and kinds a slot keeps, each in its own place
/// (collective `seq` in place `seq % DEPTH`): an endpoint may run up to `DEPTH - 1` collectives
/// ahead of the slowest (`Board::catch_up`), which lets a broadcast's root, or a reduction's
/// other endpoints, go on without waiting for the readers each time. 1x2 `EP_Bcast` of 8 B on
/// MPICH, medians of alternated runs: 0.24 us with 2 (double buffering: a root and its reader
/// traded two lines per broadcast), 0.15 with 4, 0.12 with 8. The inputs take 5 KiB per
/// endpoint at 8, and only boards of at most [`EXCHANGE_MAX_ENDPOINTS`] have them.
#[cfg(not(loom))]
const DEPTH: usize = 8;
/// In the model checks, 2: every place is reused as soon as the protocol allows, within the
/// few collectives a model can run. The library's depth runs in the unit tests below, with
/// threads (`broadcasts_run_ahead_and_reuse_places`).
#[cfg(loom)]
const DEPTH: usize = 2;

/// The place of collective `seq` in a slot's inputs and kinds.
#[inline(always)]
fn place(seq: u64) -> usize {
    (seq % DEPTH as u64) as usize
}

/// Consecutive collectives whose ballots a slot keeps (see `Slot::ballot`): fewer than
/// [`DEPTH`], so that the header, ballots included, fits the line a waiter polls (the ballots
/// on a line of their own cost `EP_Bcast`, `EP_Allgather` and `EP_Alltoall` of 4 KiB, which
/// read them, about 0.05 us in 1x2). [`Board::run_or_copy`], the only collective with a
/// ballot, runs at most `BALLOTS - 1` collectives ahead of the slowest.
const BALLOTS: usize = 2;

/// One endpoint's place on the board: a header line for [`Board::run`] (and for telling,
/// when a wait drags on, that a peer entered another collective), in the line waiters poll.
/// Its inputs of [`Board::exchange`] are [`Inputs`], in lines of their own: a reader of an
/// input line must not pull the header along. `repr(C)` so the header keeps its line (checked
/// by a test).
#[repr(C, align(128))]
struct Slot {
    seq: AtomicU64,
    /// Kind of the collective entered in each place, as the header shows it (a `Kind` and
    /// the marks of the path, see [`EXCHANGED`]; a fast endpoint may already have entered
    /// later collectives while others still check this one's).
    kind: [AtomicU16; DEPTH],
    args: AtomicPtr<()>,
    /// Sequence number of the last collective whose `after` part this endpoint finished
    /// (written only for collectives that hold).
    finished: AtomicU64,
    /// What this endpoint tells the others of its arguments in [`Board::run_or_copy`], by
    /// sequence number modulo [`BALLOTS`] (a peer may already have entered the next one).
    ballot: [AtomicU64; BALLOTS],
    /// Rung when this endpoint enters a collective or finishes one: waiters for it may be
    /// parked under the passive wait policy (`engine::doorbell`).
    bell: Doorbell,
    /// The latest collective at which this endpoint knows every endpoint to have arrived (it
    /// waited for them all, or for a release that followed them all, or read every endpoint's
    /// staged data: [`Arrival::depart`]). An endpoint that left
    /// without (a broadcast's root leaves at once, the others wait for the root alone:
    /// [`Arrival::depart`], [`Arrival::meet_one`]; a wait that failed on a mismatch) makes
    /// sure before it reuses a place (`Board::catch_up`). Only the endpoint's own thread
    /// touches it, and it changes with most collectives: on a 128-byte pair of its own, away
    /// from the header that the others poll (whose pair a core's prefetcher fetches whole).
    met: Padded,
}

impl Slot {
    /// Publishes this endpoint's entry into collective `seq` of kind `kind` on the header
    /// (after everything it publishes elsewhere: Release).
    #[inline]
    fn enter(&self, seq: u64, kind: Kind) {
        self.enter_as(seq, kind as u32);
    }

    /// [`Self::enter`] with the kind's number as the header shows it (see [`EXCHANGED`]).
    fn enter_as(&self, seq: u64, kind: u32) {
        const _: () = assert!((EXCHANGED | COPYING | Kind::Exscan as u32) <= u16::MAX as u32, "a header's kind fits 16 bits");
        self.kind[place(seq)].store(kind as u16, Ordering::Relaxed);
        self.seq.store(seq, Ordering::Release);
        self.bell.ring();
    }

    /// The kind of collective `seq`, once the header shows `seq` (or later).
    #[inline]
    fn kind_at(&self, seq: u64) -> u32 {
        self.kind[place(seq)].load(Ordering::Relaxed) as u32
    }

    /// Notes that every endpoint has arrived at collective `seq` (see `met`).
    #[inline]
    fn note_met(&self, seq: u64) {
        self.met.0.store(seq, Ordering::Relaxed);
    }
}

/// Added to the kind in the header of an endpoint that entered through [`Board::exchange`].
const EXCHANGED: u32 = 0x100;

/// Added to the kind in the header of an endpoint that entered through
/// [`Board::run_or_copy`]: a leader of [`Board::run`] that meets it (or the reverse) sees
/// endpoints that chose different paths for one collective, and fails it instead of waiting
/// for copies or a release that never come.
const COPYING: u32 = 0x200;

/// Bytes an endpoint can hand over inline in [`Board::exchange`].
pub(crate) const INLINE_BYTES: usize = 512;

/// Most endpoints per process for which [`Board::exchange`] pays (each reads every slot).
pub(crate) const EXCHANGE_MAX_ENDPOINTS: usize = 16;

/// Data bytes of one input line; its other 8 bytes are the line's stamp.
const LINE_DATA: usize = 56;

/// Lines of one input.
const INPUT_LINES: usize = INLINE_BYTES.div_ceil(LINE_DATA);

/// One exchange input, starting a new 128-byte pair.
#[repr(C, align(128))]
struct Input([Line; INPUT_LINES]);

/// One endpoint's exchange inputs, by place (see [`DEPTH`]).
struct Inputs([Input; DEPTH]);

/// A cache line of an exchange input: 56 bytes of data, then the stamp of the exchange that
/// wrote them. The stamp travels with its data, so a reader's wait brings the data along:
/// a separate arrival line cost one more line transfer (150-200 ns on this machine) before
/// the data could be read. A multi-line input has a stamp in every line, and a reader polls
/// all of them at once, so their transfers overlap instead of queueing.
#[repr(C, align(64))]
struct Line {
    data: UnsafeCell<[u8; LINE_DATA]>,
    stamp: AtomicU64,
}

/// What an input line's stamp says: sequence number (bits 16-63), kind (10-15), input length
/// in bytes (0-9). Sequence numbers start at 1, so a fresh line (0) matches nothing.
#[derive(Clone, Copy, PartialEq, Eq)]
struct Stamp(u64);

impl Stamp {
    fn new(seq: u64, kind: Kind, len: usize) -> Stamp {
        const _: () = assert!(INLINE_BYTES < 1 << 10 && (Kind::Exscan as u64) < 1 << 6, "length or kind outgrows its bits");
        Stamp(seq << 16 | (kind as u64) << 10 | len as u64)
    }

    fn seq(self) -> u64 {
        self.0 >> 16
    }

    fn kind(self) -> u32 {
        (self.0 >> 10 & 0x3f) as u32
    }

    fn len(self) -> usize {
        (self.0 & 0x3ff) as usize
    }
}

/// Lines an input of `len` bytes takes (an empty one still takes one: its stamp).
fn lines_for(len: usize) -> usize {
    len.div_ceil(LINE_DATA).max(1)
}

/// Largest broadcast (bytes) whose root, in a communicator that exchanges, copies its data into
/// a staging buffer of its own and leaves ([`Board::stage`]), as a host's root sends and
/// returns, where a root of the straight copies waits until its readers have copied from its
/// buffer; and a bound on what every endpoint of an allgather or all-to-all stages so
/// ([`Board::stage_as`]; their own limits are lower). 1x2 `EP_Bcast` on MPICH, medians of 3
/// alternated runs, staged against the straight copies: 0.72x at 4 KiB, 0.89x at 6 KiB, 1.19x
/// at 8 KiB; in a C model whose root writes its buffer before each broadcast and whose reader
/// reads its result after, 0.25x at 3 KiB and 0.29x from 4 to 8 KiB (docs/performance.md). It
/// stops at 4 KiB for memory: every endpoint that stages holds `DEPTH` buffers of it.
pub(crate) const STAGED_BYTES: usize = 4096;

/// Bits of a staged stamp below the collective's kind: the length in bytes. The sequence
/// number takes the 44 bits above the kind, compared modulo 2^44 ([`staged_seq`]).
const STAGED_LEN_BITS: u32 = 16;

/// Collective `seq` as a staged stamp holds it: its low 44 bits. Places are reused every
/// `DEPTH` collectives, so the stamps a reader meets differ from `seq` by less than that.
fn staged_seq(seq: u64) -> u64 {
    seq & (u64::MAX >> (STAGED_LEN_BITS + 4))
}

/// An endpoint's staged data in one place: the stamp (sequence number in bits 20-63, the
/// collective's kind in bits 16-19, length in bytes in bits 0-15) is stored after the data,
/// and shares its line with the data's start, so that the reader's wait brings that line
/// along. The kind tells a reader whose peer staged for another collective at the same point
/// (a broadcast against an allgather: arguments that differ) from one whose data it awaits.
#[repr(C, align(128))]
struct Staged {
    stamp: AtomicU64,
    data: UnsafeCell<[u8; STAGED_BYTES]>,
}

impl Staged {
    fn new() -> Staged {
        const _: () = assert!(STAGED_BYTES < 1 << STAGED_LEN_BITS, "a staged length fits its bits");
        const _: () = assert!((Kind::Exscan as u64) < 1 << 4, "a kind fits its 4 bits");
        Staged { stamp: AtomicU64::new(0), data: UnsafeCell::new([0; STAGED_BYTES]) }
    }

    /// One endpoint's staging buffers, one per place.
    fn places() -> Box<[Staged]> {
        (0..DEPTH).map(|_| Staged::new()).collect()
    }
}

/// One endpoint's staging buffers, allocated when it first stages data (a broadcast's root,
/// an allgather or all-to-all of a few hundred bytes to a few KiB): most endpoints never do.
#[cfg(not(loom))]
struct StagedPlaces(OnceLock<Box<[Staged]>>);

#[cfg(not(loom))]
impl StagedPlaces {
    fn new() -> StagedPlaces {
        StagedPlaces(OnceLock::new())
    }

    /// The buffers, allocated now if they were not.
    fn get_or_alloc(&self) -> &[Staged] {
        self.0.get_or_init(Staged::places)
    }

    /// The buffers, if the endpoint ever staged data.
    fn get(&self) -> Option<&[Staged]> {
        self.0.get().map(|b| &**b)
    }
}

/// In the model checks, allocated with the board: loom cannot see the ordering that
/// `OnceLock` gives between the allocating root and a reader (the model checks the protocol
/// above it).
#[cfg(loom)]
struct StagedPlaces(Box<[Staged]>);

#[cfg(loom)]
impl StagedPlaces {
    fn new() -> StagedPlaces {
        StagedPlaces(Staged::places())
    }

    fn get_or_alloc(&self) -> &[Staged] {
        &self.0
    }

    fn get(&self) -> Option<&[Staged]> {
        Some(&self.0)
    }
}

/// Spins of a wait after which it looks at the peer's header for a mismatched collective.
#[cfg(not(loom))]
const MISMATCH_CHECK_SPINS: u32 = 64;
#[cfg(loom)]
const MISMATCH_CHECK_SPINS: u32 = 1;

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
    /// Each endpoint's exchange inputs, by local index; none on a board that never exchanges
    /// (more than [`EXCHANGE_MAX_ENDPOINTS`] endpoints, or several processes).
    inputs: Box<[Inputs]>,
    /// Each endpoint's staged data, by place; allocated when the endpoint first stages some
    /// (a broadcast's root, an all-to-all: [`STAGED_BYTES`] per place), on boards that
    /// exchange only.
    staged: Box<[StagedPlaces]>,
    released: Padded,
    /// Rung with each release, for the endpoints waiting for it.
    release_bell: Doorbell,
    error: UnsafeCell<Option<EpError>>,
    scratch: UnsafeCell<Scratch>,
    /// Work the leader shares with the endpoints waiting for its release (the chunks of a
    /// large reduction's fold): they take chunks while they wait.
    pub work: WorkList,
}

// SAFETY: `error` and `scratch` are written by the leader only between the arrival of every
// endpoint and the release, and read by the others only after the release (see module doc).
unsafe impl Sync for Board {}
// SAFETY: the slots are atomics, and the cells hold owned data (`EpError`, buffers) that
// may move between threads; `shared_src` is only an address, used under the protocol above.
unsafe impl Send for Board {}

impl Board {
    /// The board of `n` endpoints of a communicator inside one process: with exchange inputs
    /// when `n` is at most [`EXCHANGE_MAX_ENDPOINTS`].
    pub fn new(n: usize) -> Board {
        Board::with_inputs(n, n <= EXCHANGE_MAX_ENDPOINTS)
    }

    /// The board of this process's `n` endpoints of a communicator of several processes,
    /// whose collectives never exchange (they go through the leader and the host): no inputs.
    pub fn across_processes(n: usize) -> Board {
        Board::with_inputs(n, false)
    }

    fn with_inputs(n: usize, exchanges: bool) -> Board {
        Board {
            slots: (0..n)
                .map(|_| Slot {
                    seq: AtomicU64::new(0),
                    kind: std::array::from_fn(|_| AtomicU16::new(0)),
                    args: AtomicPtr::new(std::ptr::null_mut()),
                    ballot: std::array::from_fn(|_| AtomicU64::new(0)),
                    finished: AtomicU64::new(0),
                    bell: Doorbell::new(),
                    met: Padded(AtomicU64::new(0)),
                })
                .collect(),
            inputs: if exchanges {
                (0..n).map(|_| Inputs(std::array::from_fn(|_| Input::new()))).collect()
            } else {
                Box::new([])
            },
            staged: (0..if exchanges { n } else { 0 }).map(|_| StagedPlaces::new()).collect(),
            released: Padded(AtomicU64::new(0)),
            release_bell: Doorbell::new(),
            error: UnsafeCell::new(None),
            scratch: UnsafeCell::new(Scratch {
                bytes: AlignedBuf::default(),
                bytes2: AlignedBuf::default(),
                offsets: Vec::new(),
                shared_src: std::ptr::null_mut(),
            }),
            work: WorkList::default(),
        }
    }

    /// The input lines of endpoint `i` for collective `seq` (a board that exchanges: see
    /// `inputs`).
    #[inline(always)]
    fn lines(&self, i: usize, seq: u64) -> &[Line; INPUT_LINES] {
        &self.inputs[i].0[place(seq)].0
    }

    /// Before endpoint `me` enters collective `seq`, which reuses the place of collective
    /// `seq - DEPTH`: unless it already knows every endpoint to have arrived at
    /// `seq + 1 - DEPTH` (see `Slot::met`), waits until every header shows that. Every way
    /// into a collective calls it first, so no endpoint runs more than `DEPTH - 1` collectives
    /// ahead of another: the inputs, kinds and ballots kept by place count on it. Acquire: a
    /// peer's header at `seq + 1 - DEPTH` is stored after it finished collective `seq - DEPTH`
    /// and stopped reading what this endpoint wrote there.
    #[inline]
    fn catch_up(&self, me: usize, seq: u64) {
        self.catch_up_within(me, seq, DEPTH);
    }

    /// [`Board::catch_up`] for a collective that reuses what a slot keeps of the last `depth`
    /// collectives (`depth` at most [`DEPTH`]): every endpoint must have arrived at
    /// `seq + 1 - depth`.
    #[inline]
    fn catch_up_within(&self, me: usize, seq: u64, depth: usize) {
        let slot = &self.slots[me];
        let need = (seq + 1).saturating_sub(depth as u64);
        if slot.met.0.load(Ordering::Relaxed) >= need {
            return;
        }
        self.catch_up_slowly(slot, need);
    }

    /// The wait of [`Board::catch_up`], when it has to look: until every header shows at
    /// least `need`, remembering the least seen (which may be more).
    #[cold]
    fn catch_up_slowly(&self, slot: &Slot, need: u64) {
        let mut b = Backoff::new();
        let mut least = u64::MAX;
        for other in self.slots.iter() {
            let mut at = other.seq.load(Ordering::Acquire);
            while at < need {
                b.snooze_on(&other.bell);
                at = other.seq.load(Ordering::Acquire);
            }
            least = least.min(at);
        }
        slot.note_met(least);
    }

    /// A barrier of the endpoints of one process (no leader, no data): each endpoint
    /// publishes its entry on its header line and waits for everyone's. One line per
    /// endpoint, the same every time: an empty [`Board::exchange`] stamps the input line of
    /// each place in turn and measured 6-9 % slower.
    pub fn barrier(&self, me: usize) -> EpResult<()> {
        let slot = &self.slots[me];
        let seq = slot.seq.load(Ordering::Relaxed) + 1;
        self.catch_up(me, seq);
        slot.enter(seq, Kind::Barrier);
        let mut b = Backoff::new();
        for other in self.slots.iter() {
            while other.seq.load(Ordering::Acquire) < seq {
                b.snooze_on(&other.bell);
            }
        }
        slot.note_met(seq);
        match self.slots.iter().map(|s| s.kind_at(seq)).find(|&k| k != Kind::Barrier as u32) {
            Some(k) => Err(mismatch(Kind::Barrier, k)),
            None => Ok(()),
        }
    }

    /// Runs one collective without a leader, for communicators inside one process: every
    /// endpoint copies its small `input` (at most `INLINE_BYTES`) into its slot, waits for
    /// all the others, and runs `each` on every input in local order. Latency is one
    /// handoff between threads (the arrivals cross in parallel) instead of two.
    /// [`Board::arrive`] followed by [`Arrival::meet`].
    pub fn exchange(&self, me: usize, kind: Kind, input: &[u8], each: impl FnOnce(&[&[u8]]) -> EpResult<()>) -> EpResult<()> {
        self.arrive(me, kind, input).meet(each)
    }

    /// The first half of [`Board::exchange`]: publishes `input` (at most `INLINE_BYTES`)
    /// on this endpoint's slot and returns at once. The caller may do work of its own (the
    /// checks and lookups it does not need for the input) while the arrivals cross between
    /// cores, then must call [`Arrival::meet`] before its next collective on this board, even
    /// when that work failed: an arrival that never met would leave its collective's checks
    /// undone.
    ///
    /// Inputs are kept by place: an endpoint overwrites the input of collective k only in
    /// collective k + DEPTH, once everyone has arrived at k + 1, so after everyone is done
    /// reading k. An endpoint that has not seen everyone arrive since (it departed, or met one
    /// peer) makes sure of it first, waiting on the headers (`catch_up`, as every collective
    /// does): a broadcast's root thereby runs at most `DEPTH - 1` collectives ahead of its
    /// slowest reader.
    #[must_use = "every arrival must meet the others before the next collective"]
    pub fn arrive(&self, me: usize, kind: Kind, input: &[u8]) -> Arrival<'_> {
        assert!(input.len() <= INLINE_BYTES && self.inputs.len() == self.slots.len(), "an exchange fits the board");
        let slot = &self.slots[me];
        let seq = slot.seq.load(Ordering::Relaxed) + 1;
        self.catch_up(me, seq);
        let stamp = Stamp::new(seq, kind, input.len());
        let lines = self.lines(me, seq);
        let write = |(l, line): (usize, &Line)| {
            let piece = &input[(l * LINE_DATA).min(input.len())..((l + 1) * LINE_DATA).min(input.len())];
            // SAFETY: only this endpoint writes its inputs, and nobody reads this place now (above).
            line.data.with_mut(|p| unsafe { (&mut *p)[..piece.len()].copy_from_slice(piece) });
            line.stamp.store(stamp.0, Ordering::Release);
        };
        let used = lines[..lines_for(input.len())].iter().enumerate();
        if kind == Kind::Bcast && used.len() <= POLL_EVERY_LINE_UP_TO {
            // A broadcast's readers poll the first line alone (`Arrival::meet_one`): stamped
            // last, it tells them the others are written.
            used.rev().for_each(write);
        } else {
            used.for_each(write);
        }
        // The header too, for a peer in another collective (see `meet`); no peer reads it
        // while exchanges go well, so the line stays in this core's cache. Marked as an
        // exchange: a leader of `run` that meets it (endpoints that chose different paths for
        // the same collective, from arguments that differ where MPI says they must not) sees
        // another collective and fails, rather than reading arguments nobody published.
        slot.enter_as(seq, kind as u32 | EXCHANGED);
        Arrival { board: self, me, seq, kind, len: input.len(), staged_read: Cell::new(0) }
    }

    /// A broadcast's root `me` on a board that exchanges: writes its `len` bytes (more than
    /// [`INLINE_BYTES`], at most [`STAGED_BYTES`]) into the staging buffer of this collective's
    /// place with `fill`, and leaves at once; the other endpoints arrive with an empty input
    /// and read it ([`Arrival::meet_staged`]). The buffer of collective k is rewritten in
    /// collective k + DEPTH, once everyone has arrived at k + 1 (`catch_up`), as the inputs
    /// are. When `fill` fails the data is published empty (the readers report the length)
    /// and the error returned; that holds for [`Board::stage_as`] too.
    pub fn stage(&self, me: usize, len: usize, fill: impl FnOnce(&mut [u8]) -> EpResult<()>) -> EpResult<()> {
        let (arrival, filled) = self.stage_as(me, Kind::Bcast, len, fill);
        arrival.depart();
        filled
    }

    /// [`Board::stage`] for a collective of any `kind` whose endpoints all stage their data:
    /// the arrival it returns reads theirs ([`Arrival::read_staged`], its own included) and
    /// departs. What `fill` returned comes alongside (on failure the data is published empty).
    pub fn stage_as(
        &self,
        me: usize,
        kind: Kind,
        len: usize,
        fill: impl FnOnce(&mut [u8]) -> EpResult<()>,
    ) -> (Arrival<'_>, EpResult<()>) {
        assert!(len <= STAGED_BYTES && self.staged.len() == self.slots.len(), "staged data fits the board");
        let slot = &self.slots[me];
        let seq = slot.seq.load(Ordering::Relaxed) + 1;
        self.catch_up(me, seq);
        let staged = &self.staged[me].get_or_alloc()[place(seq)];
        // SAFETY: only this endpoint writes its staging buffers, and nobody reads this place
        // now (`catch_up` above).
        let filled = staged.data.with_mut(|p| fill(unsafe { &mut (&mut *p)[..len] }));
        let published = if filled.is_ok() { len } else { 0 };
        staged.stamp.store((staged_seq(seq) << 4 | kind as u64) << STAGED_LEN_BITS | published as u64, Ordering::Release);
        // The header too: a reader that meets another path, or another collective, tells
        // from it (`Arrival::read_staged`).
        slot.enter_as(seq, kind as u32 | EXCHANGED);
        // Its own data counts as read: an allgather in place takes nothing from it.
        (Arrival { board: self, me, seq, kind, len: published, staged_read: Cell::new(1 << me) }, filled)
    }

    /// Runs one collective for the endpoint with local index `me`.
    ///
    /// `leader` runs once, on local index 0, with every endpoint's arguments in local order
    /// and the scratch space; `after` runs on every endpoint once the leader is done (not when
    /// the leader failed), with its own arguments and the scratch space. With `hold`, nobody
    /// returns before everyone has finished `after` (for collectives whose `after` reads
    /// another endpoint's user buffer); every endpoint must pass the same `hold`.
    /// [`Board::run_or_copy`] is the form whose endpoints may skip the leader.
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
        if n == 1 {
            // Nobody to meet (a process with one endpoint, the shape of a job with one thread
            // per process): no sequence number, no release. The slot's sequence number only
            // orders this process's endpoints, so skipping it here leaves nothing behind: the
            // next collective of any kind starts from the same state. The bookkeeping was half
            // of a 2x1 EP_Barrier's instructions besides the host's.
            return self.scratch.with_mut(|scratch| {
                // SAFETY: one thread per endpoint, and no other endpoint uses this board.
                let scratch = unsafe { &mut *scratch };
                leader(std::slice::from_ref(&args), scratch)?;
                after(args, scratch)
            });
        }
        let slot = &self.slots[me];
        let seq = slot.seq.load(Ordering::Relaxed) + 1;
        self.catch_up(me, seq);
        slot.args.store(args as *const A as *mut (), Ordering::Relaxed);
        slot.enter(seq, kind);
        if me == 0 {
            let mut b = Backoff::new();
            for other in &self.slots[1..] {
                // `<`: an endpoint that entered `seq` through the exchange may already have
                // failed it and entered the next collective (whose kind is kept in another place).
                while other.seq.load(Ordering::Acquire) < seq {
                    b.snooze_on(&other.bell);
                }
            }
            slot.note_met(seq);
            self.lead(seq, kind, kind as u32, leader);
        } else {
            self.await_release(slot, seq, kind, kind as u32)?;
        }
        self.finish_run(slot, seq, args, hold, after)
    }

    /// Runs one collective inside one process whose endpoints may copy straight out of each
    /// other's buffers (an allgather, all-to-all or broadcast of contiguous data), without
    /// a leader deciding so. Each endpoint publishes `ballot` (what the decision needs of its
    /// own arguments) with its arrival, waits for everyone's arrival, and applies `decide` to
    /// the ballots (by local index), so that every endpoint decides alike. When `decide` says
    /// so, each runs `copy` with its own arguments and a lookup of everyone's (by local
    /// index), and nobody returns before everyone has copied: one handoff between threads,
    /// the arrivals crossing in parallel, where the leader's release was a second. Otherwise
    /// the leader's path of [`Board::run`] (without hold) follows, `leader` then `after`.
    /// Every endpoint must pass the same `decide`; endpoints that called [`Board::run`] or
    /// another collective at the same point get the mismatch error, as do these.
    #[allow(clippy::too_many_arguments)]
    pub fn run_or_copy<A>(
        &self,
        me: usize,
        kind: Kind,
        args: &A,
        ballot: u64,
        decide: impl FnOnce(&dyn Fn(usize) -> u64) -> bool,
        copy: impl for<'p> FnOnce(&'p A, &'p dyn Fn(usize) -> &'p A) -> EpResult<()>,
        leader: impl FnOnce(&[&A], &mut Scratch) -> EpResult<()>,
        after: impl FnOnce(&A, &Scratch) -> EpResult<()>,
    ) -> EpResult<()> {
        if self.slots.len() == 1 {
            if decide(&|_| ballot) {
                return copy(args, &|_| args);
            }
            return self.run(me, kind, args, false, leader, after);
        }
        let slot = &self.slots[me];
        let seq = slot.seq.load(Ordering::Relaxed) + 1;
        let at = (seq % BALLOTS as u64) as usize;
        self.catch_up_within(me, seq, BALLOTS);
        slot.args.store(args as *const A as *mut (), Ordering::Relaxed);
        slot.ballot[at].store(ballot, Ordering::Relaxed);
        let entered = kind as u32 | COPYING;
        slot.enter_as(seq, entered);
        let mut b = Backoff::new();
        for other in self.slots.iter() {
            // `<`: as in `run`, a peer may have failed `seq` and entered the next collective.
            while other.seq.load(Ordering::Acquire) < seq {
                b.snooze_on(&other.bell);
            }
        }
        slot.note_met(seq);
        if let Some(k) = self.slots.iter().map(|s| s.kind_at(seq)).find(|&k| k != entered) {
            // Endpoints of `run` at this point wait for the leader's release: the leader
            // gives it, with the error. Everyone here has seen everyone arrive (`met`).
            if me == 0 {
                self.lead(seq, kind, entered, |_: &[&A], _: &mut Scratch| Ok(()));
            }
            return Err(mismatch(kind, k));
        }
        // Each ballot was stored before its endpoint's header (Release), which was read above
        // (Acquire); a released endpoint's next ballot goes to the other place, and the one
        // after it waits for this endpoint (`catch_up_within`).
        let ballot_of = |i: usize| self.slots[i].ballot[at].load(Ordering::Relaxed);
        if decide(&ballot_of) {
            // SAFETY: each slot's `args` is the argument struct of an endpoint that entered
            // this collective (stored before its header, read above with Acquire), of the
            // same kind and so of type `A`; it lives until that endpoint returns, which it
            // does only after everyone has copied (the hold below).
            let peer = |i: usize| unsafe { &*(self.slots[i].args.load(Ordering::Relaxed) as *const A) };
            let result = copy(args, &peer);
            self.hold(slot, seq);
            return result;
        }
        if me == 0 {
            self.lead(seq, kind, entered, leader);
        } else {
            self.await_release(slot, seq, kind, entered)?;
        }
        self.finish_run(slot, seq, args, false, after)
    }

    /// The leader's part once every endpoint has arrived at `seq`: checks that every header
    /// shows `entered` (the kind, as the path taken marks it), runs `leader` on everyone's
    /// arguments, and releases the others with its outcome (the mismatch error, or the
    /// leader's).
    fn lead<A>(&self, seq: u64, kind: Kind, entered: u32, leader: impl FnOnce(&[&A], &mut Scratch) -> EpResult<()>) {
        let outcome = match self.slots.iter().map(|s| s.kind_at(seq)).find(|&k| k != entered) {
            Some(k) => Some(mismatch(kind, k)),
            None => {
                // SAFETY: each pointer is the `&A` of a waiting endpoint (same kind, so
                // same argument type).
                let all: Vec<&A> = self.slots.iter().map(|s| unsafe { &*(s.args.load(Ordering::Relaxed) as *const A) }).collect();
                // SAFETY: every endpoint is waiting for the release; nobody reads it now.
                self.scratch.with_mut(|scratch| leader(&all, unsafe { &mut *scratch })).err()
            }
        };
        // SAFETY: as the scratch space.
        self.error.with_mut(|error| unsafe { *error = outcome });
        self.released.0.store(seq, Ordering::Release);
        self.release_bell.ring();
    }

    /// A non-leader's wait for the release of collective `seq`, helping with the work the
    /// leader shares meanwhile. Fails (without the release) when the leader's header shows
    /// that it entered `seq` otherwise than as `entered`: it never releases it then.
    fn await_release(&self, slot: &Slot, seq: u64, kind: Kind, entered: u32) -> EpResult<()> {
        let waited = self.await_release_or_mismatch(seq, kind, entered);
        if waited.is_ok() {
            // The leader released `seq` after it saw every endpoint arrive there.
            slot.note_met(seq);
        }
        waited
    }

    /// [`Board::await_release`]'s wait: `Ok` once released, the mismatch error when the
    /// leader's header shows that it entered `seq` otherwise (without a release: not every
    /// endpoint is then known to have arrived).
    fn await_release_or_mismatch(&self, seq: u64, kind: Kind, entered: u32) -> EpResult<()> {
        let mut b = Backoff::new();
        let mut spins = 0u32;
        let leader = &self.slots[0];
        while self.released.0.load(Ordering::Acquire) != seq {
            // The leader may have listed chunks of its part for the waiting endpoints.
            if !self.work.help() {
                b.snooze_on(&self.release_bell);
            }
            spins += 1;
            if spins >= MISMATCH_CHECK_SPINS {
                spins = 0;
                // A leader that entered another collective (or this one through the
                // exchange) at `seq` never releases it. Its header keeps `seq`'s kind
                // while this endpoint is here: its next collective needs this endpoint.
                if leader.seq.load(Ordering::Acquire) >= seq {
                    let theirs = leader.kind_at(seq);
                    if theirs != entered && self.released.0.load(Ordering::Acquire) != seq {
                        return Err(mismatch(kind, theirs));
                    }
                }
            }
        }
        Ok(())
    }

    /// After the release of `seq`: the leader's error, or this endpoint's `after` part; then,
    /// with `hold`, waits until everyone has finished.
    fn finish_run<A>(&self, slot: &Slot, seq: u64, args: &A, hold: bool, after: impl FnOnce(&A, &Scratch) -> EpResult<()>) -> EpResult<()> {
        // SAFETY: after the release the leader writes neither until everyone arrives again.
        let result = match self.error.with(|error| unsafe { (*error).clone() }) {
            Some(e) => Err(e),
            // SAFETY: as `error` just above: shared reads between the release and the next
            // arrival of every endpoint.
            None => self.scratch.with(|scratch| after(args, unsafe { &*scratch })),
        };
        if hold {
            self.hold(slot, seq);
        }
        result
    }

    /// Says on this endpoint's slot that it is done with collective `seq`, and waits until
    /// everyone is: nobody leaves while another may still read its buffers.
    fn hold(&self, slot: &Slot, seq: u64) {
        slot.finished.store(seq, Ordering::Release);
        slot.bell.ring();
        let mut b = Backoff::new();
        for other in self.slots.iter() {
            while other.finished.load(Ordering::Acquire) < seq {
                b.snooze_on(&other.bell);
            }
        }
    }
}

/// An endpoint's input published by [`Board::arrive`], not yet met with the others'.
pub struct Arrival<'a> {
    board: &'a Board,
    me: usize,
    seq: u64,
    kind: Kind,
    len: usize,
    /// The local indices whose staged data at `seq` this endpoint has read, one bit each
    /// ([`Arrival::read_staged`]; a board that stages has at most
    /// [`EXCHANGE_MAX_ENDPOINTS`]): once every bit is set, [`Arrival::depart`] notes that
    /// everyone arrived, as [`Arrival::meet`] does.
    staged_read: Cell<u32>,
}

const _: () = assert!(EXCHANGE_MAX_ENDPOINTS <= u32::BITS as usize, "a staged read takes one bit per endpoint");

impl Input {
    fn new() -> Input {
        Input(std::array::from_fn(|_| Line { data: UnsafeCell::new([0; LINE_DATA]), stamp: AtomicU64::new(0) }))
    }
}

impl Arrival<'_> {
    /// The second half of [`Board::exchange`]: waits until every endpoint has arrived at
    /// this collective, checks that they all called the same one, and runs `each` on every
    /// input in local order (the slices stay valid until this endpoint's next arrival).
    pub fn meet(self, each: impl FnOnce(&[&[u8]]) -> EpResult<()>) -> EpResult<()> {
        let (slots, seq, kind) = (&self.board.slots, self.seq, self.kind);
        // Where inputs of more than one line are put back together (16-byte aligned).
        let mut joined = [std::mem::MaybeUninit::<u128>::uninit(); EXCHANGE_MAX_ENDPOINTS * INLINE_BYTES / 16];
        let joined = joined.as_mut_ptr() as *mut u8;
        // Not initialised: right after an arrival the store buffer is full of the input's
        // stores waiting for their lines, and 32 more stores here stalled on it (a fifth of
        // the 1x2 allreduce's samples).
        let mut inputs = [std::mem::MaybeUninit::<&[u8]>::uninit(); EXCHANGE_MAX_ENDPOINTS];
        // Every endpoint's arrival is awaited even after a mismatch, so that the endpoint
        // knows everyone to have arrived (see `Slot::met`).
        let mut other_kind = None;
        for (i, other) in slots.iter().enumerate() {
            let lines = self.board.lines(i, seq);
            let stamp = match wait_for_input(other, lines, seq, lines_for(self.len)) {
                Ok(stamp) if stamp.kind() == kind as u32 => stamp,
                Ok(stamp) => {
                    other_kind = other_kind.or(Some(stamp.kind()));
                    continue;
                }
                Err(k) => {
                    other_kind = other_kind.or(Some(k));
                    continue;
                }
            };
            // SAFETY: `joined` has INLINE_BYTES per local index; `each` runs before this
            // endpoint's next arrival.
            inputs[i].write(unsafe { read_input(lines, stamp, joined.add(i * INLINE_BYTES)) });
        }
        // An input at `seq` is stored after its endpoint arrived there; a header at `seq` or
        // later (the mismatch) too.
        slots[self.me].note_met(seq);
        if let Some(k) = other_kind {
            return Err(mismatch(kind, k));
        }
        // SAFETY: without a mismatch every endpoint's entry was written above.
        each(unsafe { std::slice::from_raw_parts(inputs.as_ptr() as *const &[u8], slots.len()) })
    }

    /// Leaves the collective without waiting for anyone: for an endpoint whose input is all
    /// it gives and that reads nobody's (a broadcast's root). Its input stays readable until
    /// everyone has arrived at the next collective, which the collective that reuses its
    /// place waits for (`Board::catch_up`). A peer that entered another collective is not
    /// reported here; the peers that read this input report it.
    ///
    /// An endpoint that read every endpoint's staged data at this collective (an allgather's
    /// or an all-to-all's, [`Arrival::read_staged`]) notes that everyone arrived: each stamp
    /// at `seq` was stored after its endpoint had finished collective `seq - 1`. Its next
    /// collectives then skip `catch_up`'s look at the headers, as after [`Arrival::meet`].
    pub fn depart(self) {
        let everyone = u32::MAX >> (u32::BITS as usize - self.board.slots.len());
        if self.staged_read.get() == everyone {
            self.board.slots[self.me].note_met(self.seq);
        }
    }

    /// Waits for the input of endpoint `from` alone (`expect` bytes expected: up to
    /// [`POLL_EVERY_LINE_UP_TO`] lines by polling the first line, then checking the others'
    /// stamps; more by their first and last lines; a longer input than expected is awaited
    /// whole too), checks that it entered the same collective, and runs `each` on it (valid
    /// until this endpoint's next arrival): a broadcast's other endpoints read the root's
    /// input only. The mismatch error when the root entered another collective or path.
    pub fn meet_one(self, from: usize, expect: usize, each: impl FnOnce(&[u8]) -> EpResult<()>) -> EpResult<()> {
        let (board, seq, kind) = (self.board, self.seq, self.kind);
        let other = &board.slots[from];
        let lines = board.lines(from, seq);
        // A root's input of up to POLL_EVERY_LINE_UP_TO lines is written last line first
        // (`Board::arrive`): its first line, polled alone, comes once the others are written,
        // and they are then checked without waiting. Polling every line of a 64-byte input
        // took its second line from a root still writing it (1x2 `EP_Bcast` of 64 B 0.19-0.20
        // us against 0.11-0.13, docs/performance.md).
        let guess = if lines_for(expect) <= POLL_EVERY_LINE_UP_TO { 1 } else { lines_for(expect) };
        let stamp = match wait_for_input(other, lines, seq, guess) {
            Ok(stamp) if stamp.kind() == kind as u32 => stamp,
            Ok(stamp) => return Err(mismatch(kind, stamp.kind())),
            Err(k) => return Err(mismatch(kind, k)),
        };
        let mut joined = [std::mem::MaybeUninit::<u128>::uninit(); INLINE_BYTES / 16];
        // SAFETY: `joined` holds INLINE_BYTES, at least the stamp's length.
        each(unsafe { read_input(lines, stamp, joined.as_mut_ptr() as *mut u8) })
    }

    /// Waits for the broadcast that endpoint `from`, the root, staged in this collective
    /// ([`Board::stage`]), and runs `each` on its data (valid until this endpoint's next
    /// arrival). A root that staged for another collective is reported at once (the stamp
    /// carries the kind); one that entered the collective another way (the exchange, the
    /// straight copies: arguments that differ) once the wait drags on.
    pub fn meet_staged(self, from: usize, each: impl FnOnce(&[u8]) -> EpResult<()>) -> EpResult<()> {
        self.read_staged(from, each)
    }

    /// [`Arrival::meet_staged`] without departing: the endpoints of an all-to-all read every
    /// endpoint's staged data in turn ([`Board::stage_as`]).
    pub fn read_staged(&self, from: usize, each: impl FnOnce(&[u8]) -> EpResult<()>) -> EpResult<()> {
        let (board, seq, kind) = (self.board, self.seq, self.kind);
        let root = &board.slots[from];
        let staged_at = |seq: u64| {
            let staged = &board.staged[from].get()?[place(seq)];
            let stamp = staged.stamp.load(Ordering::Acquire);
            (stamp >> (STAGED_LEN_BITS + 4) == staged_seq(seq)).then_some((staged, stamp))
        };
        let mut b = Backoff::new();
        let mut spins = 0u32;
        let (staged, len) = loop {
            if let Some((staged, stamp)) = staged_at(seq) {
                let staged_kind = (stamp >> STAGED_LEN_BITS & 0xf) as u32;
                if staged_kind != kind as u32 {
                    return Err(mismatch(kind, staged_kind));
                }
                break (staged, (stamp & ((1 << STAGED_LEN_BITS) - 1)) as usize);
            }
            spins += 1;
            if spins >= MISMATCH_CHECK_SPINS {
                spins = 0;
                // The header is stored after the staged stamp: a header at `seq` or later with
                // nothing staged at `seq` means the root took another path.
                if root.seq.load(Ordering::Acquire) >= seq && staged_at(seq).is_none() {
                    return Err(mismatch(kind, root.kind_at(seq)));
                }
            }
            b.snooze_on(&root.bell);
        };
        self.staged_read.set(self.staged_read.get() | 1 << from);
        // SAFETY: the endpoint that staged them wrote `len` bytes before the stamp
        // (Release/Acquire) and leaves them untouched until its collective seq + DEPTH, which
        // waits for this endpoint's arrival at seq + 1 (`catch_up`).
        staged.data.with(|p| each(unsafe { &(&*p)[..len] }))
    }
}

/// The input of `lines`, published under `stamp` (awaited): in place when it fits one line,
/// else joined into `dst`.
///
/// # Safety
/// `dst` must hold `stamp.len()` bytes; the input stays unwritten until the reader's next
/// arrival (the double buffering), for as long as the slice is used.
#[inline]
unsafe fn read_input(lines: &[Line; INPUT_LINES], stamp: Stamp, dst: *mut u8) -> &[u8] {
    let len = stamp.len();
    if len <= LINE_DATA {
        // SAFETY: written before the stamp (Release/Acquire), untouched until k + DEPTH. (Under loom
        // the read is checked here, where the slice is taken: the caller reads it before its
        // next arrival, so no synchronisation comes in between.)
        lines[0].data.with(|p| unsafe { &(&*p)[..len] })
    } else {
        // SAFETY: as above for each line; `dst` holds `len` bytes (the caller's contract).
        unsafe {
            for (l, line) in lines[..lines_for(len)].iter().enumerate() {
                let n = LINE_DATA.min(len - l * LINE_DATA);
                line.data.with(|p| std::ptr::copy_nonoverlapping(p as *const u8, dst.add(l * LINE_DATA), n));
            }
            std::slice::from_raw_parts(dst, len)
        }
    }
}

/// Inputs of up to this many lines are awaited by polling every line at once; longer ones
/// by polling their first and last lines. A reader that polls a line while the writer is
/// still filling it takes the line away from the writer, which must take it back for its
/// next store: over the ten lines of 512 bytes that cost more than the overlapped transfers
/// gained (1x2 allgather and allreduce of 512 B on MPICH: 0.71x-0.78x of the time when
/// polling all lines; of 256 B 0.86x-0.94x; of 64 and 128 B the same within noise,
/// docs/performance.md).
const POLL_EVERY_LINE_UP_TO: usize = 4;

/// Waits until `other` (whose input lines in this collective's place are `lines`) has published its
/// input of collective `seq`, and returns the stamp; `Err` carries the kind of the other
/// collective the peer entered instead. Polls the first `guess` lines at once (the lines of
/// an input as long as the caller's: usually all of them), so that their transfers overlap,
/// or, past [`POLL_EVERY_LINE_UP_TO`] lines, the first and the last of them; then any further
/// lines of a longer input. Once the wait drags on, it looks at the peer's header: a peer that
/// entered collective `seq` through [`Board::run`] or [`Board::barrier`] is reported instead
/// of awaited forever.
#[inline]
fn wait_for_input(other: &Slot, lines: &[Line; INPUT_LINES], seq: u64, guess: usize) -> Result<Stamp, u32> {
    let mut b = Backoff::new();
    let mut spins = 0u32;
    let stamp = loop {
        let first = Stamp(lines[0].stamp.load(Ordering::Acquire));
        let mut ready = first.seq() == seq;
        let need = lines_for(first.len());
        if guess <= POLL_EVERY_LINE_UP_TO {
            for (l, line) in lines[1..guess].iter().enumerate() {
                let same = line.stamp.load(Ordering::Acquire) == first.0;
                ready &= same || l + 1 >= need;
            }
        } else {
            // The writer stamps its lines in order (a broadcast's input of at most
            // POLL_EVERY_LINE_UP_TO lines in reverse), each stamp a Release store after the
            // line's data (`Board::arrive`): with the first and the last stamps acquired,
            // whichever came last makes every line between them readable too.
            let last = need.min(guess) - 1;
            ready &= lines[last].stamp.load(Ordering::Acquire) == first.0;
        }
        if ready {
            break first;
        }
        spins += 1;
        if spins >= MISMATCH_CHECK_SPINS {
            spins = 0;
            // The header is stored after the input lines: a header at `seq` or later with no
            // input at `seq` means the peer is in another collective.
            if other.seq.load(Ordering::Acquire) >= seq && Stamp(lines[0].stamp.load(Ordering::Acquire)).seq() != seq {
                return Err(other.kind_at(seq));
            }
        }
        b.snooze_on(&other.bell);
    };
    for line in &lines[guess.min(lines_for(stamp.len()))..lines_for(stamp.len())] {
        while line.stamp.load(Ordering::Acquire) != stamp.0 {
            b.snooze_on(&other.bell);
        }
    }
    Ok(stamp)
}

/// The error of endpoints of one process that entered different collectives (`kind` and the
/// kind numbered `other`) at the same point.
#[cold]
fn mismatch(kind: Kind, other: u32) -> EpError {
    if other & !(EXCHANGED | COPYING) == kind as u32 {
        return ep_err!(
            ERR_OTHER,
            "endpoints of one process called {kind:?} with arguments that differ where every rank's must agree \
             (the amount of data or its layout): they took different paths (the inline exchange, staged data, direct copies, the leader)"
        );
    }
    ep_err!(
        ERR_OTHER,
        "endpoints of one process called different collectives at the same point ({kind:?} and kind {other}); \
         every rank must call the same collectives in the same order",
        other = other & !(EXCHANGED | COPYING)
    )
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

    pub fn ptr(&self) -> *mut u8 {
        self.words.as_ptr() as *mut u8
    }

}

impl AsMut<[u8]> for AlignedBuf {
    fn as_mut(&mut self) -> &mut [u8] {
        // SAFETY: `words` holds at least `len` initialised bytes (`resize` keeps it so), and
        // the slice borrows `self` mutably.
        unsafe { std::slice::from_raw_parts_mut(self.words.as_mut_ptr() as *mut u8, self.len) }
    }
}

impl AsRef<[u8]> for AlignedBuf {
    fn as_ref(&self) -> &[u8] {
        // SAFETY: as for `as_mut`, with a shared borrow of `self`.
        unsafe { std::slice::from_raw_parts(self.words.as_ptr() as *const u8, self.len) }
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
                        if round % 5 == 4 {
                            // Direct copies when every endpoint offers (all but one round in
                            // three): the ballots say who does; otherwise the leader's sum.
                            let offers = round % 3 != 0 || me != 2;
                            let ballot = input << 1 | offers as u64;
                            let (mut copied, mut summed) = (0u64, 0u64);
                            board
                                .run_or_copy(
                                    me,
                                    Kind::Allgatherv,
                                    &input,
                                    ballot,
                                    |ballot_of| {
                                        assert!((0..4).all(|i| ballot_of(i) >> 1 == round * 4 + i as u64), "round {round}: a stale ballot");
                                        (0..4).all(|i| ballot_of(i) & 1 == 1)
                                    },
                                    |_, peer| {
                                        copied = (0..4).map(|i| *peer(i)).sum();
                                        Ok(())
                                    },
                                    |all, s| {
                                        let sum: u64 = all.iter().map(|x| **x).sum();
                                        s.bytes.resize(8).copy_from_slice(&sum.to_ne_bytes());
                                        Ok(())
                                    },
                                    |_, s| {
                                        summed = u64::from_ne_bytes(s.bytes.as_ref().try_into().unwrap());
                                        Ok(())
                                    },
                                )
                                .unwrap();
                            assert_eq!(copied != 0, round % 3 != 0, "round {round}: copied or summed as the ballots say");
                            out = copied + summed;
                        } else if round % 3 != 2 {
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

    /// Broadcasts whose root leaves at once and whose readers wait for the root alone, with
    /// rotating roots and lengths of 1 to 512 bytes, mixed with barriers, exchanges and leader
    /// rounds, on 3, 5 and 8 endpoints: every byte arrives, and no correct sequence reports a
    /// mismatch (a fast endpoint two collectives ahead of a slow one would overwrite the kind
    /// the slow one still checks).
    #[test]
    fn early_departures_mix_with_every_collective() {
        for n in [3usize, 5, 8] {
            let board = Arc::new(Board::new(n));
            let byte = |round: usize, j: usize| (round * 13 + j) as u8;
            let threads: Vec<_> = (0..n)
                .map(|me| {
                    let board = board.clone();
                    std::thread::spawn(move || {
                        for round in 0..4000usize {
                            let root = (round / 2) % n;
                            let len = 1 + (round * 37) % INLINE_BYTES;
                            match round % 4 {
                                0 | 2 => {
                                    if me == root {
                                        let data: Vec<u8> = (0..len).map(|j| byte(round, j)).collect();
                                        board.arrive(me, Kind::Bcast, &data).depart();
                                    } else {
                                        board
                                            .arrive(me, Kind::Bcast, &[])
                                            .meet_one(root, len, |data| {
                                                assert_eq!(data.len(), len, "n {n}, round {round}");
                                                for (j, &b) in data.iter().enumerate() {
                                                    assert_eq!(b, byte(round, j), "n {n}, round {round}, byte {j}");
                                                }
                                                Ok(())
                                            })
                                            .unwrap();
                                    }
                                }
                                1 => match round % 3 {
                                    0 => board.barrier(me).unwrap(),
                                    1 => board.exchange(me, Kind::Allreduce, &[me as u8], |all| {
                                        assert_eq!(all.len(), n);
                                        Ok(())
                                    })
                                    .unwrap(),
                                    _ => board.run(me, Kind::Gatherv, &me, false, |_, _| Ok(()), |_, _| Ok(())).unwrap(),
                                },
                                _ => board.run(me, Kind::Scatterv, &me, false, |_, _| Ok(()), |_, _| Ok(())).unwrap(),
                            }
                        }
                    })
                })
                .collect();
            for t in threads {
                t.join().unwrap();
            }
        }
    }

    /// Runs of broadcasts from one root, longer than the board's depth, with readers that fall
    /// behind now and then: the root runs ahead, up to the depth, and reuses places only once
    /// every reader has left them; every byte arrives. Inline and staged broadcasts mixed
    /// (1 byte to `STAGED_BYTES`); a barrier or an exchange between runs.
    #[test]
    fn broadcasts_run_ahead_and_reuse_places() {
        for n in [2usize, 3, 5] {
            let board = Arc::new(Board::new(n));
            let byte = |round: usize, j: usize| (round * 29 + j * 7) as u8;
            let threads: Vec<_> = (0..n)
                .map(|me| {
                    let board = board.clone();
                    std::thread::spawn(move || {
                        let run = 3 * DEPTH + 1;
                        for round in 0..40 * run {
                            let root = (round / run) % n;
                            if round % run == run - 1 {
                                if round % 2 == 0 {
                                    board.barrier(me).unwrap();
                                } else {
                                    board.exchange(me, Kind::Allgatherv, &[me as u8], |all| {
                                        assert!(all.iter().enumerate().all(|(i, x)| x == &[i as u8]), "n {n}, round {round}");
                                        Ok(())
                                    })
                                    .unwrap();
                                }
                                continue;
                            }
                            let len = 1 + (round * 53) % STAGED_BYTES;
                            let staged = len > INLINE_BYTES;
                            if me == root {
                                let data: Vec<u8> = (0..len).map(|j| byte(round, j)).collect();
                                if staged {
                                    board
                                        .stage(me, len, |out| {
                                            out.copy_from_slice(&data);
                                            Ok(())
                                        })
                                        .unwrap();
                                } else {
                                    board.arrive(me, Kind::Bcast, &data).depart();
                                }
                                continue;
                            }
                            if (round + me) % 11 == 0 {
                                // Fall behind: the root may fill every place meanwhile.
                                std::thread::sleep(std::time::Duration::from_micros(50));
                            }
                            let check = |data: &[u8]| {
                                assert_eq!(data.len(), len, "n {n}, round {round}");
                                assert!(data.iter().enumerate().all(|(j, &b)| b == byte(round, j)), "n {n}, round {round}: data");
                                Ok(())
                            };
                            let arrival = board.arrive(me, Kind::Bcast, &[]);
                            if staged {
                                arrival.meet_staged(root, check).unwrap();
                            } else {
                                arrival.meet_one(root, len, check).unwrap();
                            }
                        }
                    })
                })
                .collect();
            for t in threads {
                t.join().unwrap();
            }
        }
    }

    /// An endpoint that read everyone's staged data notes that everyone arrived; one that
    /// did not (a reader that failed, a root that left) keeps looking at the headers before
    /// it reuses a place.
    #[test]
    fn staged_reads_note_who_arrived() {
        let board = Board::new(3);
        let fill = |v: u8| move |data: &mut [u8]| {
            data.fill(v);
            Ok(())
        };
        let arrivals: Vec<_> = (0..3).map(|me| board.stage_as(me, Kind::Allgatherv, 8, fill(me as u8))).collect();
        for (me, (arrival, filled)) in arrivals.into_iter().enumerate() {
            filled.unwrap();
            // Endpoint 2 reads nobody but itself (its own data counts as read).
            for from in (0..3).filter(|&from| me < 2 || from == 2) {
                let read = arrival.read_staged(from, |data| {
                    assert_eq!(data, [from as u8; 8]);
                    Ok(())
                });
                read.unwrap();
            }
            arrival.depart();
        }
        let met = |me: usize| board.slots[me].met.0.load(Ordering::Relaxed);
        assert_eq!((met(0), met(1), met(2)), (1, 1, 0));
    }

    /// Inputs of different lengths in one exchange (as in a small allgatherv): endpoint i
    /// hands over 100 * i + round % 7 bytes, so a reader meets inputs shorter and longer
    /// than its own, of 1 to 6 lines; every byte of every input arrives.
    #[test]
    fn uneven_inputs_arrive_whole() {
        let board = Arc::new(Board::new(4));
        let byte = |me: usize, round: usize, j: usize| (me * 31 + round * 7 + j) as u8;
        let len = |me: usize, round: usize| 100 * me + round % 7;
        let threads: Vec<_> = (0..4usize)
            .map(|me| {
                let board = board.clone();
                std::thread::spawn(move || {
                    for round in 0..3000usize {
                        let mine: Vec<u8> = (0..len(me, round)).map(|j| byte(me, round, j)).collect();
                        board
                            .exchange(me, Kind::Allgatherv, &mine, |all| {
                                for (i, input) in all.iter().enumerate() {
                                    assert_eq!(input.len(), len(i, round), "round {round}: length of input {i}");
                                    for (j, &b) in input.iter().enumerate() {
                                        assert_eq!(b, byte(i, round, j), "round {round}: byte {j} of input {i}");
                                    }
                                }
                                Ok(())
                            })
                            .unwrap();
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
    fn header_and_inputs_keep_their_lines() {
        use std::mem::{offset_of, size_of};
        assert!(offset_of!(Slot, ballot) + size_of::<[AtomicU64; BALLOTS]>() <= 64, "the header fits one line");
        assert_eq!(std::mem::align_of::<Input>(), 128, "each input starts a 128-byte pair");
        assert_eq!(size_of::<Slot>(), 256, "a slot is its header's pair and a pair of the endpoint's own");
        assert_eq!(size_of::<Line>(), 64, "a line of input is one cache line");
        assert_eq!(offset_of!(Line, stamp), LINE_DATA, "the stamp shares the line with its data");
    }
}
