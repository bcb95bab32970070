//! `EP_Barrier` and `EP_Bcast` (MPI 4.1 sections 6.3 and 6.4).

use super::board::{Kind, Scratch, STAGED_BYTES};
use super::{copy_ballot, exchange_fits, host_bytes, inline_bytes, process_ordered, COPYABLE, DIRECT_COPY_BYTES};
use crate::ep_err;
use crate::error::ERR_TRUNCATE;
use crate::engine::comm::Endpoint;
use crate::engine::datatype::UserBuf;
use crate::error::EpResult;
use crate::host::{check, sys};

/// Barrier over all endpoints: the process's endpoints meet, the leader joins the host
/// barrier, everyone leaves.
pub fn barrier(ep: &Endpoint) -> EpResult<()> {
    let s = &ep.shared;
    if exchange_fits(s, 0) {
        return s.board.barrier(ep.local as usize);
    }
    s.board.run(
        ep.local as usize,
        Kind::Barrier,
        &(),
        false,
        |_, _| if s.is_multi_process() { host_bytes::barrier(s.host) } else { Ok(()) },
        |_, _| Ok(()),
    )
}

pub struct BcastArgs {
    buf: UserBuf,
    rank: i32,
}

/// Broadcast from rank `root` (checked by the caller) of `buf`.
pub fn bcast(ep: &Endpoint, buf: UserBuf, root: i32) -> EpResult<()> {
    let s = &ep.shared;
    let root_loc = s.location(root).expect("root checked by the caller");
    if process_ordered(s) {
        if !s.is_multi_process() {
            return Ok(());
        }
        // SAFETY: one endpoint per process, ranked as the host ranks (`process_ordered`),
        // so this is the user's broadcast passed through: `buf` is the user's buffer of `count`
        // elements of `dtype`, valid for the call (MPI 4.1 section 6.4); `s.host` lives while `s` does.
        return unsafe { check(sys::MPI_Bcast(buf.addr, buf.count, buf.dtype, root_loc.proc as i32, s.host.0), "MPI_Bcast") };
    }
    let bytes = buf.bytes();
    // A reader's part when the root published its data on the board (inline or staged).
    let from_root = |data: &[u8]| {
        if data.len() != bytes {
            Err(ep_err!(ERR_TRUNCATE, "EP_Bcast: the root sends {} bytes, this endpoint expects {bytes}", data.len()))
        } else {
            buf.unpack_from(data)
        }
    };
    if exchange_fits(s, bytes) {
        // The root publishes its data and returns, as a host's root sends and returns; the
        // others read the root's input alone. The root may go on to further collectives, up to
        // the board's depth ahead of its slowest reader (`Board::catch_up`).
        let (me, from) = (ep.local as usize, root_loc.local as usize);
        if ep.rank == root {
            let mut packed = None;
            s.board.arrive(me, Kind::Bcast, inline_bytes(&buf, &mut packed)?).depart();
            return Ok(());
        }
        return s.board.arrive(me, Kind::Bcast, &[]).meet_one(from, bytes, from_root);
    }
    if exchange_fits(s, 0) && bytes <= STAGED_BYTES {
        // Too long for an input: the root stages its data and returns all the same.
        let (me, from) = (ep.local as usize, root_loc.local as usize);
        if ep.rank == root {
            return s.board.stage(me, bytes, |data| buf.pack_to(data));
        }
        return s.board.arrive(me, Kind::Bcast, &[]).meet_staged(from, from_root);
    }
    let direct = bytes > DIRECT_COPY_BYTES && s.local_count() > 1;
    let root_here = root_loc.proc == s.my_proc;
    let leader = |all: &[&BcastArgs], scratch: &mut Scratch| {
        // Where this process's copy of the data is: a contiguous user buffer when one
        // will do, else packed in the scratch space.
        let source = if root_here {
            let r = all[root_loc.local as usize];
            (direct && r.buf.info.contiguous()).then_some(r)
        } else {
            all.iter().find(|a| direct && a.buf.info.contiguous()).copied()
        };
        match source {
            Some(a) => {
                scratch.shared_src = a.buf.data_ptr();
                if s.is_multi_process() {
                    // SAFETY: `a.buf` is a contiguous user buffer of `bytes` bytes (its
                    // `UserBuf`'s invariant), for the length of this blocking collective.
                    unsafe { host_bytes::bcast(a.buf.data_ptr(), bytes, root_loc.proc as i32, s.host)? };
                }
            }
            None => {
                scratch.shared_src = std::ptr::null_mut();
                let data = scratch.bytes.resize(bytes);
                if root_here {
                    all[root_loc.local as usize].buf.pack_to(data)?;
                }
                if s.is_multi_process() {
                    // SAFETY: `data` was just resized to `bytes` bytes.
                    unsafe { host_bytes::bcast(data.as_mut_ptr(), bytes, root_loc.proc as i32, s.host)? };
                }
            }
        }
        Ok(())
    };
    let after = |me: &BcastArgs, scratch: &Scratch| {
        if me.rank == root || me.buf.data_ptr() == scratch.shared_src {
            return Ok(());
        }
        let data = if scratch.shared_src.is_null() {
            scratch.bytes.as_ref()
        } else {
            // SAFETY: the source endpoint waits (hold) until everyone has copied.
            unsafe { std::slice::from_raw_parts(scratch.shared_src, bytes) }
        };
        me.buf.unpack_from(data)
    };
    let args = BcastArgs { buf, rank: ep.rank };
    if !direct || s.is_multi_process() {
        return s.board.run(ep.local as usize, Kind::Bcast, &args, direct, leader, after);
    }
    // One process, more than a few bytes: every endpoint copies straight from the root's
    // buffer when it is contiguous (the root's ballot says), all at once.
    let root_local = root_loc.local as usize;
    s.board.run_or_copy(
        ep.local as usize,
        Kind::Bcast,
        &args,
        copy_ballot(bytes, buf.info.contiguous()),
        |ballot_of| ballot_of(root_local) & COPYABLE != 0,
        |me, peer| {
            if let Some(copies) = SplitCopies::plan(s.local_count(), root_local, |i| &peer(i).buf) {
                copies.take_share(ep.local as usize);
                return Ok(());
            }
            if me.rank == root {
                return Ok(());
            }
            let from = peer(root_local).buf;
            if from.bytes() != bytes {
                return Err(ep_err!(ERR_TRUNCATE, "EP_Bcast: the root sends {} bytes, this endpoint expects {bytes}", from.bytes()));
            }
            // SAFETY: the root's buffer is contiguous (its ballot said so), `bytes` bytes at
            // `data_ptr()`, untouched until the root returns, which it does only once
            // everyone has copied (`run_or_copy`).
            me.buf.unpack_from(unsafe { std::slice::from_raw_parts(from.data_ptr(), bytes) })
        },
        leader,
        after,
    )
}

/// Above this many bytes, a broadcast inside one process whose buffers are all contiguous has
/// its copies shared by every endpoint, the root included ([`SplitCopies`]). Up to it, a
/// communicator of at most 16 endpoints stages the broadcast ([`STAGED_BYTES`]) and a larger
/// one has each reader copy its own. 1x2 on MPICH, medians of 3 to 5 alternated runs, shared
/// against each reader alone: `collectives` 0.97x-1.16x from 4 to 8 KiB, 0.94x at 16 KiB,
/// 0.59x-0.63x at 32 KiB, 0.50x at 256 KiB, 0.32x at 1 MiB; a C model whose root writes its
/// buffer before each broadcast and whose reader reads its result after, 0.70x-0.84x from 4
/// to 8 KiB, 0.57x at 16 KiB, 0.55x at 32 KiB, 0.62x at 1 MiB. Against it: a model that reads
/// its result but never changes the input, whose source lines thus stay in the reader's cache,
/// 2.0x-4.2x slower from 32 KiB to 1 MiB (docs/performance.md).
const SHARED_BCAST_BYTES: usize = STAGED_BYTES;

/// A broadcast's straight copies split among every endpoint of the process: the readers'
/// copies laid end to end (in local order, the root left out) and cut into one run per
/// endpoint, in local order, at multiples of 64 bytes. The root writes its run into readers'
/// buffers where it would otherwise only wait for them to copy; each byte is copied once.
/// (Unlike a point-to-point `SharedCopy`, whose two threads take chunks from a counter, every
/// endpoint here is in the collective until all have copied, so a fixed cut needs no state.)
struct SplitCopies<F> {
    /// Endpoints of the process (local indices `0..n`), the root among them.
    n: usize,
    root: usize,
    /// The broadcast's bytes: the root's, which every reader's buffer holds too.
    bytes: usize,
    /// Each endpoint's buffer, by local index.
    buf: F,
}

impl<'a, F: Fn(usize) -> &'a UserBuf> SplitCopies<F> {
    /// The shared copies when they pay and are sound: above [`SHARED_BCAST_BYTES`], every
    /// buffer contiguous and of the root's length, no reader's overlapping the root's. Every
    /// endpoint decides alike, from the same arguments. `None` otherwise (each reader then
    /// copies its own and reports its own length mismatch).
    fn plan(n: usize, root: usize, buf: F) -> Option<Self> {
        let from = buf(root);
        let bytes = from.bytes();
        if bytes <= SHARED_BCAST_BYTES || !from.info.contiguous() {
            return None;
        }
        let src = from.data_ptr() as usize;
        let fits = |b: &UserBuf| {
            let dst = b.data_ptr() as usize;
            b.info.contiguous() && b.bytes() == bytes && (dst >= src + bytes || src >= dst + bytes)
        };
        let all_fit = (0..n).filter(|&i| i != root).all(|i| fits(buf(i)));
        all_fit.then_some(SplitCopies { n, root, bytes, buf })
    }

    /// Endpoint `me`'s run of the copies: bytes `[cut(me), cut(me + 1))` of the readers'
    /// copies laid end to end.
    fn take_share(&self, me: usize) {
        let total = (self.n - 1) * self.bytes;
        let cut = |k: usize| if k == self.n { total } else { (total / self.n * k) & !63 };
        let (start, end) = (cut(me), cut(me + 1));
        let src = (self.buf)(self.root).data_ptr();
        for (j, reader) in (0..self.n).filter(|&i| i != self.root).enumerate() {
            let (lo, hi) = (start.max(j * self.bytes), end.min((j + 1) * self.bytes));
            if lo < hi {
                let at = lo - j * self.bytes;
                // SAFETY: the root's and the reader's buffers are contiguous, `bytes` long
                // each and disjoint (`plan`), and `at + (hi - lo) <= bytes`; both stay
                // untouched by their owners until everyone has copied (`run_or_copy`). The runs
                // of different endpoints are disjoint; readers' buffers that overlap each other
                // (erroneous) get the same bytes from two threads, as they would from their
                // owners.
                unsafe { std::ptr::copy_nonoverlapping(src.add(at), (self.buf)(reader).data_ptr().add(at), hi - lo) };
            }
        }
    }
}
