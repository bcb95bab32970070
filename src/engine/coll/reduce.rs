//! `EP_Reduce`, `EP_Allreduce`, `EP_Reduce_scatter(_block)` (MPI 4.1 sections 6.9, 6.11).
//!
//! The process's inputs fold in local order (rank order on blocked maps) with
//! `MPI_Reduce_local`, then one host reduction combines the processes. When the op is not
//! commutative and the ranks of the processes interleave, every input is gathered and folded
//! in rank order instead.

use super::board::{Arrival, Kind, Scratch, INLINE_BYTES};
use super::typed::{fold, Elems, HostOp, Reducer};
use super::{all_inputs, copy_ballot, elems_in, exchange_fits, process_ordered, Layout, COPYABLE};
use crate::engine::comm::{CommShared, Endpoint};
use crate::engine::datatype::UserBuf;
use crate::engine::endpoint_team::split;
use crate::ep_err;
use crate::error::{EpResult, ERR_TRUNCATE};
use crate::host::{check, sys, HOST};
use std::os::raw::c_void;

/// Arguments of one endpoint's reduction.
pub struct ReduceArgs<'a> {
    /// This endpoint's input: `sendbuf`, or `recvbuf` with `MPI_IN_PLACE`.
    pub input: Elems,
    pub in_place: bool,
    /// Where the result goes: `recvbuf` of the root (`EP_Reduce`) or of everyone; `None` on
    /// the non-roots of `EP_Reduce`.
    pub recv: Option<UserBuf>,
    pub op: HostOp,
    pub commutative: bool,
    /// `EP_Reduce`: the root rank.
    pub root: Option<i32>,
    /// `EP_Reduce_scatter(_block)`: each rank's share of the result, in elements.
    pub scatter: Option<Layout<'a>>,
}

impl ReduceArgs<'_> {
    fn sendbuf(&self) -> *const c_void {
        if self.in_place {
            HOST.in_place
        } else {
            self.input.base
        }
    }

    fn recvbuf(&self) -> *mut c_void {
        self.recv.map_or(std::ptr::null_mut(), |r| r.addr)
    }
}

/// `EP_Reduce` (with `root`) and `EP_Allreduce` (without).
pub fn reduce(ep: &Endpoint, args: &ReduceArgs) -> EpResult<()> {
    let s = &ep.shared;
    let root_proc = args.root.map(|r| s.location(r).expect("root checked by the caller").proc);
    let a = args;
    if process_ordered(s) {
        let (mut send, recv, n, t) = (a.sendbuf(), a.recvbuf(), a.input.count, a.input.dtype);
        // MPICH 4.0.2 crashes on an in-place MPI_Reduce at a root other than 0 from 4 KiB
        // up: the root hands the host a copy of its input instead.
        let mut copy = super::board::AlignedBuf::default();
        // One endpoint in one process (the teams' Example 1, docs/teams.md): the result is the
        // input, copied with the thread's endpoint team when it has one.
        if let (1, false, Some(recv)) = (s.map.size(), a.in_place, a.recv) {
            if let Some(done) = split::copy_lone_input(&a.input, &recv, a.op) {
                return done;
            }
        }
        if a.in_place && root_proc.is_some() {
            send = a.input.copy_into(&mut copy).base;
        }
        // SAFETY: the user's reduction passed through (`process_ordered`: one endpoint per
        // process, ranked as the host ranks): `send` is the user's input (or its copy in `copy`,
        // alive until the end of the function, or `MPI_IN_PLACE`) and `recv` the user's output, of
        // `count` elements of `dtype`, valid for the call (MPI 4.1 section 6.9).
        return unsafe {
            match root_proc {
                None => check(sys::MPI_Allreduce(send, recv, n, t, a.op.0, s.host.0), "MPI_Allreduce"),
                Some(root) => check(sys::MPI_Reduce(send, recv, n, t, a.op.0, root as i32, s.host.0), "MPI_Reduce"),
            }
        };
    }
    let kind = if a.root.is_some() { Kind::Reduce } else { Kind::Allreduce };
    if let Some(arrival) = arrive_inline(ep, kind, &a.input) {
        if a.recv.is_none() {
            // A reduction's other endpoints give their input and read nobody's: they leave
            // at once, as a broadcast's root does (`Arrival::depart`).
            arrival.depart();
            return Ok(());
        }
        // Looked up while the other endpoints' inputs cross between cores: work done after
        // publishing one's input is free up to about 100 ns (measured: docs/performance.md).
        let reducer = Reducer::new(a.op, &a.input);
        return arrival.meet(|inputs| match a.recv {
            Some(recv) => fold_inline(s, inputs, &a.input, reducer, &recv),
            None => Ok(()),
        });
    }
    let leader = |all: &[&ReduceArgs], scratch: &mut Scratch| reduce_full(s, all, scratch, root_proc).map(|_| ());
    let after = |me: &ReduceArgs, scratch: &Scratch| match me.recv {
        Some(recv) => elems_in(&scratch.bytes, &me.input).store(&recv),
        None => Ok(()),
    };
    match a.recv {
        // Inside one process, small enough that every endpoint folding everything costs less
        // than the leader's fold and release: each endpoint folds straight from the others'
        // input buffers into its own result (`fold_direct`), with the engine's own loops.
        Some(recv) if a.root.is_none() && !s.is_multi_process() && !a.in_place => {
            let n = s.local_count();
            let span = a.input.span();
            let reducer = Reducer::new(a.op, &a.input);
            // The engine's own loops only: a host or user op stays with one thread at a time,
            // as in the leader's fold.
            let direct = a.input.info.contiguous() && recv.info.contiguous() && recv.bytes() == span && reducer.is_native();
            s.board.run_or_copy(
                ep.local as usize,
                kind,
                args,
                copy_ballot(span, direct),
                |ballot_of| {
                    (0..n).all(|i| ballot_of(i) & COPYABLE != 0)
                        && ((ballot_of(0) & !COPYABLE) as usize).saturating_mul(n * n) <= DIRECT_FOLD_MAX_BYTES
                },
                |me, peer| fold_direct(s, me, |i| peer(i).input, reducer, &recv),
                leader,
                after,
            )
        }
        _ => s.board.run(ep.local as usize, kind, args, false, leader, after),
    }
}

/// The most bytes all the endpoints of an allreduce inside one process read when each folds
/// every input by itself ([`fold_direct`]): n endpoints read n inputs each, so n^2 times the
/// input, which the leader's fold (shared in chunks from 128 KiB) and the copies of its result
/// out keep to about 2n times. Measured on 2 endpoints (MPICH, 1x2, medians of 3 alternated
/// runs, ratio to plain MPI): 0.29x against 0.62x through the leader at 256 KiB, 0.46x against
/// 0.57x at 1 MiB; more endpoints than cores were not measured.
const DIRECT_FOLD_MAX_BYTES: usize = 8 << 20;

/// One endpoint's part of an allreduce whose endpoints all fold: the inputs of every rank, read
/// in place from their endpoints' buffers (`input_at`, by local index), folded in rank order into
/// `recv` as [`fold`] does, with `reducer` (made for this endpoint's input), so that every
/// endpoint computes the same result. Every input and `recv` are contiguous and of the same
/// span (the ballots said so).
fn fold_direct(s: &CommShared, me: &ReduceArgs, input_at: impl Fn(usize) -> Elems, reducer: Reducer, recv: &UserBuf) -> EpResult<()> {
    let size = s.map.size() as i32;
    let input_of = |r: i32| input_at(s.location(r).expect("rank").local as usize);
    let span = me.input.span();
    if let Some(r) = (0..size).find(|&r| input_of(r).span() != span) {
        return Err(ep_err!(
            ERR_TRUNCATE,
            "rank {r} reduces {} bytes, this one {span}: the counts or datatypes differ",
            input_of(r).span()
        ));
    }
    let last = input_of(size - 1);
    // SAFETY: the last rank's input holds `span` contiguous bytes from its first byte, and
    // `recv` as many (checked by the ballots, and just above); they do not overlap (another
    // rank's send buffer, or this rank's, which MPI keeps apart from its receive buffer).
    unsafe { std::ptr::copy_nonoverlapping(last.first_byte(), recv.data_ptr(), span) };
    let base = me.input.base_for(recv.data_ptr());
    for r in (0..size - 1).rev() {
        reducer.apply(&input_of(r), base)?;
    }
    Ok(())
}

/// Publishes a small reduction's input on the board when the reduction goes through the
/// leaderless exchange (a communicator inside one process, inputs of at most
/// [`INLINE_BYTES`]); `None` otherwise, and nothing is published.
fn arrive_inline<'a>(ep: &'a Endpoint, kind: Kind, input: &Elems) -> Option<Arrival<'a>> {
    let s = &ep.shared;
    let span = input.span();
    if process_ordered(s) || !exchange_fits(s, span) {
        return None;
    }
    // SAFETY: the input spans `span` bytes from its first byte (the user's buffer); an
    // empty input may have any address, NULL included.
    let mine = if span == 0 { &[][..] } else { unsafe { std::slice::from_raw_parts(input.first_byte(), span) } };
    Some(s.board.arrive(ep.local as usize, kind, mine))
}

/// `EP_Allreduce` in two halves, for the small reductions inside one process, so that the
/// fold's preparation (the op and number type looked up) runs while the endpoints' arrivals
/// cross between cores: in a C model of two threads exchanging 64 bytes, about 100 ns of
/// work placed after the arrival cost nothing, placed before it all of it. The caller must
/// have checked every argument: an endpoint that arrives has entered the collective.
///
/// The first half publishes `input` (`count` elements of its datatype) and returns `None`
/// when the reduction does not take this path (the caller then calls [`reduce`]). Not
/// thread-safe per endpoint: one collective at a time on an endpoint, as MPI requires of a
/// rank (MPI 4.1 section 6.13).
pub fn allreduce_arrive<'a>(ep: &'a Endpoint, input: &Elems) -> Option<Arrival<'a>> {
    arrive_inline(ep, Kind::Allreduce, input)
}

/// The second half of [`allreduce_arrive`]: waits for every endpoint's input and folds them
/// with `op` in rank order into `recv` (MPI 4.1 section 6.9.6). Errors: the host's, for a
/// pair of op and datatype it refuses; `EP_ERR_OTHER` when the process's endpoints called
/// different collectives.
pub fn allreduce_meet(ep: &Endpoint, arrival: Arrival, input: &Elems, op: HostOp, recv: &UserBuf) -> EpResult<()> {
    let reducer = Reducer::new(op, input);
    arrival.meet(|inputs| fold_inline(&ep.shared, inputs, input, reducer, recv))
}

/// `EP_Reduce_scatter` and `EP_Reduce_scatter_block`: the full reduction, then each rank
/// keeps its block (`args.scatter`, `args.recv` = the block's buffer).
pub fn reduce_scatter(ep: &Endpoint, args: &ReduceArgs) -> EpResult<()> {
    let s = &ep.shared;
    let layout = args.scatter.expect("reduce_scatter has a layout");
    if process_ordered(s) {
        let (send, recv, t, op) = (args.sendbuf(), args.recvbuf(), args.input.dtype, args.op.0);
        // SAFETY: the user's reduce-scatter passed through (`process_ordered`): the buffers and
        // `counts` (one per rank) are the user's, valid for the call (MPI 4.1 section 6.10).
        return unsafe {
            match layout {
                Layout::Uniform(n) => check(sys::MPI_Reduce_scatter_block(send, recv, n, t, op, s.host.0), "MPI_Reduce_scatter_block"),
                Layout::Varied { counts, .. } => {
                    check(sys::MPI_Reduce_scatter(send, recv, counts.as_ptr(), t, op, s.host.0), "MPI_Reduce_scatter")
                }
            }
        };
    }
    s.board.run(
        ep.local as usize,
        Kind::ReduceScatter,
        args,
        false,
        |all, scratch| reduce_full(s, all, scratch, None).map(|_| ()),
        |me, scratch| {
            let full = elems_in(&scratch.bytes, &me.input);
            let start: isize = (0..ep.rank).map(|r| layout.count(r) as isize).sum();
            let block = Elems {
                base: (full.base as *const u8).wrapping_offset(start * full.info.extent) as *const c_void,
                count: layout.count(ep.rank),
                ..full
            };
            block.store(&me.recv.expect("every rank receives a block"))
        },
    )
}

/// Folds the inline inputs of a one-process communicator (spans of `template`'s layout, by
/// local index) in rank order into `recv`, with `reducer` (made for `template`). When both
/// layouts are contiguous the fold runs in `recv` itself (the inputs are copies on the board,
/// so `recv` may be any rank's input buffer); otherwise in 16-byte aligned stack memory, then
/// stored. (Returning the stack buffer to the caller cost a copy of all of it: a fifth of the
/// 8-double fold.)
fn fold_inline(s: &CommShared, inputs: &[&[u8]], template: &Elems, reducer: Reducer, recv: &UserBuf) -> EpResult<()> {
    let size = s.map.size() as i32;
    let input_of = |r: i32| inputs[s.location(r).expect("rank").local as usize];
    let span = template.span();
    // Counts that differ between ranks are erroneous (MPI 4.1 section 6.9.1); every endpoint
    // sees every input here, so each one reports it instead of folding bytes that are not there.
    // One pass over the inputs in local order: no rank lookups on the way of every reduction.
    if let Some(other) = inputs.iter().find(|i| i.len() != span) {
        return Err(ep_err!(
            ERR_TRUNCATE,
            "an endpoint of this process reduces {} bytes, this one {span}: the counts or datatypes differ",
            other.len()
        ));
    }
    let in_recv = template.info.contiguous() && recv.info.contiguous() && recv.bytes() == span;
    // Not zeroed: the first `span` bytes are copied in below, and nothing reads past them.
    let mut mem = [std::mem::MaybeUninit::<u128>::uninit(); INLINE_BYTES / 16];
    let first = if in_recv { recv.data_ptr() } else { mem.as_mut_ptr() as *mut u8 };
    // SAFETY: every inline input holds `span` bytes (checked above); `mem` holds INLINE_BYTES
    // >= span, and `recv` holds `span` contiguous bytes from its first byte.
    unsafe { std::ptr::copy_nonoverlapping(input_of(size - 1).as_ptr(), first, span) };
    let base = template.base_for(first);
    for r in (0..size - 1).rev() {
        reducer.apply(&template.at(template.base_for(input_of(r).as_ptr() as *mut u8)), base)?;
    }
    if in_recv {
        Ok(())
    } else {
        template.at(base).store(recv)
    }
}

/// Chunks of a reduction's fold that the leader shares with the endpoints waiting on the board
/// (from two chunks: smaller folds are done by the leader alone).
const BOARD_FOLD_CHUNK_BYTES: usize = 64 * 1024;

/// The reduction of every rank's input into `scratch.bytes` (typed, the inputs' layout), on
/// every process (`root_proc` `None`) or on the root's process only. Runs on the leader.
fn reduce_full(s: &CommShared, all: &[&ReduceArgs], scratch: &mut Scratch, root_proc: Option<u32>) -> EpResult<bool> {
    let a = all[0];
    let inputs: Vec<Elems> = all.iter().map(|x| x.input).collect();
    if a.commutative || s.map.is_blocked() {
        // Shared with the thread's endpoint team, else with the endpoints waiting on the board.
        let shared = match split::fold(&inputs, &mut scratch.bytes, a.op) {
            None if all.len() > 1 => split::fold_on(&s.board.work, &inputs, &mut scratch.bytes, a.op, BOARD_FOLD_CHUNK_BYTES),
            other => other,
        };
        let acc = match shared {
            Some(shared) => shared?,
            None => fold(&inputs, &mut scratch.bytes, a.op)?,
        };
        let base = acc.base as *mut c_void;
        if s.is_multi_process() {
            // SAFETY: `base` is the fold's result in `scratch.bytes`, typed memory for `count`
            // elements of `dtype`; the root's send copy lives in `scratch.bytes2`; the receive buffer
            // is ignored off the root (null there). The leader holds the scratch space alone here.
            unsafe {
                match root_proc {
                    None => check(sys::MPI_Allreduce(HOST.in_place, base, acc.count, acc.dtype, a.op.0, s.host.0), "MPI_Allreduce")?,
                    Some(root) if root == s.my_proc => {
                        // Not MPI_IN_PLACE: MPICH 4.0.2 crashes on an in-place MPI_Reduce at a
                        // root other than 0 from 4 KiB up.
                        let send = acc.copy_into(&mut scratch.bytes2);
                        check(sys::MPI_Reduce(send.base, base, acc.count, acc.dtype, a.op.0, root as i32, s.host.0), "MPI_Reduce")?
                    }
                    Some(root) => check(
                        sys::MPI_Reduce(base, std::ptr::null_mut(), acc.count, acc.dtype, a.op.0, root as i32, s.host.0),
                        "MPI_Reduce",
                    )?,
                }
            }
        }
        return Ok(root_proc.is_none_or(|r| r == s.my_proc));
    }
    // Non-commutative op over interleaved ranks: fold every input in rank order.
    let Some(every) = all_inputs(s, &inputs, root_proc)? else { return Ok(false) };
    let ordered: Vec<Elems> = every.iter().map(|b| elems_in(b, &a.input)).collect();
    fold(&ordered, &mut scratch.bytes, a.op)?;
    Ok(true)
}
