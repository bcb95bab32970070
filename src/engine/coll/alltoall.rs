//! `EP_Alltoall(v)` (MPI 4.1 section 6.8).
//!
//! The leader packs, for each destination process, every local endpoint's blocks for that
//! process's endpoints (sources in local order, destinations in the destination's local
//! order), one host `MPI_Alltoallv` of bytes swaps the chunks, and each endpoint unpacks its
//! block from every rank. With `MPI_IN_PLACE` the blocks come from the receive buffers; all
//! are packed before any is overwritten. Inside one process with contiguous send buffers there
//! is no packing: each endpoint copies its blocks straight from the senders' buffers. Inside one
//! process with few endpoints, small all-to-alls go through the board's exchange and somewhat
//! larger ones through staging buffers, each endpoint's blocks in one input or one stage.

use super::board::{Kind, Scratch, INLINE_BYTES, STAGED_BYTES};
use super::host_bytes::{self, c_bytes, displs_of};
use super::{copies_pay, copy_ballot, exchange_fits, inline_bytes, process_ordered, Blocks, Layout};
use crate::engine::comm::CommShared;
use crate::engine::comm::Endpoint;
use crate::engine::datatype::UserBuf;
use crate::ep_err;
use crate::error::{EpResult, ERR_TRUNCATE};
use crate::host::{check, sys, HOST};

pub struct AlltoallvArgs<'a> {
    /// `None`: `MPI_IN_PLACE` (blocks sent from `recv`).
    pub send: Option<Blocks<'a>>,
    pub recv: Blocks<'a>,
}

pub fn alltoallv(ep: &Endpoint, args: &AlltoallvArgs) -> EpResult<()> {
    let s = &ep.shared;
    if process_ordered(s) {
        let r = &args.recv;
        // SAFETY: the user's all-to-all passed through (`process_ordered`: one endpoint per
        // process, ranked as the host ranks): buffers, counts and displacements are the user's,
        // valid for the call (MPI 4.1 section 6.8); `MPI_IN_PLACE` when the user gave no send side.
        return unsafe {
            match (&args.send, r.layout) {
                (None, Layout::Uniform(rc)) => check(
                    sys::MPI_Alltoall(HOST.in_place, 0, HOST.byte, r.base, rc, r.dtype, s.host.0),
                    "MPI_Alltoall",
                ),
                (Some(sb), Layout::Uniform(rc)) => match sb.layout {
                    Layout::Uniform(sc) => {
                        check(sys::MPI_Alltoall(sb.base, sc, sb.dtype, r.base, rc, r.dtype, s.host.0), "MPI_Alltoall")
                    }
                    Layout::Varied { .. } => unreachable!("alltoall layouts are both uniform or both varied"),
                },
                (send, Layout::Varied { counts: rcounts, displs: rdispls }) => {
                    let (sb, sc, sd, st) = match send {
                        Some(Blocks { base, dtype, layout: Layout::Varied { counts, displs }, .. }) => {
                            (*base as *const _, counts.as_ptr(), displs.as_ptr(), *dtype)
                        }
                        _ => (HOST.in_place as *const _, std::ptr::null(), std::ptr::null(), HOST.byte),
                    };
                    check(
                        sys::MPI_Alltoallv(sb, sc, sd, st, r.base, rcounts.as_ptr(), rdispls.as_ptr(), r.dtype, s.host.0),
                        "MPI_Alltoallv",
                    )
                }
            }
        };
    }
    if let Some(block) = inline_block(s, args) {
        return alltoall_inline(ep, args, block);
    }
    if let Some(block) = staged_block(s, args) {
        return alltoall_staged(ep, args, block);
    }
    let n = s.local_count();
    let leader = |all: &[&AlltoallvArgs], scratch: &mut Scratch| {
        let nprocs = s.map.nprocs() as u32;
        // Send side: chunk per destination process.
        let mut scounts = Vec::with_capacity(nprocs as usize);
        let total: usize = all
            .iter()
            .map(|a| {
                let from = a.send.as_ref().unwrap_or(&a.recv);
                (0..s.map.size() as i32).map(|d| from.bytes(d)).sum::<usize>()
            })
            .sum();
        let data = scratch.bytes2.resize(total);
        let mut at = 0;
        for q in 0..nprocs {
            let start = at;
            for a in all {
                let from = a.send.as_ref().unwrap_or(&a.recv);
                for &d in s.map.ranks_of(q) {
                    let len = from.bytes(d);
                    from.of(d).pack_to(&mut data[at..at + len])?;
                    at += len;
                }
            }
            scounts.push(c_bytes(at - start)?);
        }
        // Receive side: where each (source rank, local destination) block lands.
        scratch.offsets.clear();
        scratch.offsets.resize(s.map.size() * n, 0);
        let mut rcounts = Vec::with_capacity(nprocs as usize);
        let mut at = 0;
        for p in 0..nprocs {
            let start = at;
            for &src in s.map.ranks_of(p) {
                for (d, a) in all.iter().enumerate() {
                    scratch.offsets[src as usize * n + d] = at;
                    at += a.recv.bytes(src);
                }
            }
            rcounts.push(c_bytes(at - start)?);
        }
        if s.is_multi_process() {
            let (sdispls, rdispls) = (displs_of(&scounts)?, displs_of(&rcounts)?);
            let recv = scratch.bytes.resize(at).as_mut_ptr();
            host_bytes::alltoallv(scratch.bytes2.ptr(), &scounts, &sdispls, recv, &rcounts, &rdispls, s.host)?;
        } else {
            if at != total {
                return Err(ep_err!(ERR_TRUNCATE, "send and receive counts describe different amounts of data"));
            }
            std::mem::swap(&mut scratch.bytes, &mut scratch.bytes2);
        }
        Ok(())
    };
    let after = |me: &AlltoallvArgs, scratch: &Scratch| {
        let data = scratch.bytes.as_ref();
        for src in 0..s.map.size() as i32 {
            let at = scratch.offsets[src as usize * n + ep.local as usize];
            let len = me.recv.bytes(src);
            me.recv.of(src).unpack_from(&data[at..at + len])?;
        }
        Ok(())
    };
    if s.is_multi_process() {
        return s.board.run(ep.local as usize, Kind::Alltoallv, args, false, leader, after);
    }
    // One process, contiguous send buffers, no MPI_IN_PLACE (whose blocks are overwritten
    // while others would read them): each endpoint copies its block straight from every
    // sender's buffer, all endpoints at once.
    let sent = args.send.as_ref().map_or(0, |b| (0..s.map.size() as i32).map(|d| b.bytes(d)).sum::<usize>());
    s.board.run_or_copy(
        ep.local as usize,
        Kind::Alltoallv,
        args,
        copy_ballot(sent, args.send.as_ref().is_some_and(|b| b.info.contiguous())),
        |ballot_of| copies_pay(n, ballot_of),
        |me, peer| {
            for (i, &src) in s.map.ranks_of(s.my_proc).iter().enumerate() {
                let a = peer(i);
                let block = a.send.expect("every ballot said contiguous, so no MPI_IN_PLACE").of(ep.rank);
                let len = me.recv.bytes(src);
                if block.bytes() < len {
                    return Err(ep_err!(ERR_TRUNCATE, "send and receive counts describe different amounts of data"));
                }
                // SAFETY: `block` is contiguous (its ballot said so), `bytes()` bytes at
                // `data_ptr()` of its sender's buffer, untouched until the sender returns,
                // which it does only once everyone has copied (`run_or_copy`).
                me.recv.of(src).unpack_from(unsafe { std::slice::from_raw_parts(block.data_ptr(), len) })?;
            }
            Ok(())
        },
        leader,
        after,
    )
}

/// The bytes of every block when an all-to-all goes through the board's leaderless exchange:
/// inside one process, few endpoints, one block size for every rank (the uniform form, whose
/// blocks MPI makes the same size on every rank, so that every endpoint decides alike), and all
/// of an endpoint's blocks within one inline input. `None` otherwise.
fn inline_block(s: &CommShared, args: &AlltoallvArgs) -> Option<usize> {
    let Layout::Uniform(count) = args.recv.layout else { return None };
    let block = args.recv.info.size * count.max(0) as usize;
    let total = block.checked_mul(s.map.size())?;
    (exchange_fits(s, 0) && total <= INLINE_BYTES).then_some(block)
}

/// The bytes of every block when an all-to-all is staged: as [`inline_block`], with all of an
/// endpoint's blocks too long for an inline input but within [`STAGED_ALLTOALL_BYTES`].
/// `None` otherwise.
fn staged_block(s: &CommShared, args: &AlltoallvArgs) -> Option<usize> {
    let Layout::Uniform(count) = args.recv.layout else { return None };
    let block = args.recv.info.size * count.max(0) as usize;
    let total = block.checked_mul(s.map.size())?;
    (exchange_fits(s, 0) && total > INLINE_BYTES && total <= STAGED_ALLTOALL_BYTES).then_some(block)
}

/// Largest input of an all-to-all (an endpoint's blocks for every rank, bytes) that every
/// endpoint stages ([`alltoall_staged`]) instead of taking the straight copies. Staged, each
/// block is copied twice, and nobody waits for the others to finish reading. 1x2 on MPICH and
/// Open MPI, medians of 4 alternated runs, staged against the straight copies: 0.69x-0.71x
/// at 384-byte blocks, 0.74x-0.75x at 512, 0.81x-0.88x at 640, 0.92x-0.97x at 768 (1536
/// bytes in all), 1.15x-1.17x at 1024.
const STAGED_ALLTOALL_BYTES: usize = 1536;
const _: () = assert!(STAGED_ALLTOALL_BYTES <= STAGED_BYTES, "an all-to-all's stage fits a staging buffer");

/// The blocks an endpoint sends to every rank, packed in rank order into `out` (`block`
/// bytes each, `block` > 0); with `MPI_IN_PLACE` from the receive buffer, before anything is
/// written into it.
fn pack_blocks(from: &Blocks, block: usize, out: &mut [u8]) -> EpResult<()> {
    for (r, chunk) in out.chunks_exact_mut(block).enumerate() {
        from.of(r as i32).pack_to(chunk)?;
    }
    Ok(())
}

/// [`alltoallv`] with staged blocks (see [`staged_block`]): each endpoint packs its blocks for
/// every rank into a staging buffer of its own and takes its block out of everyone's, its
/// own included. Nobody waits for the others to finish reading, as they must when blocks are
/// copied straight from the senders' buffers: a staging buffer is rewritten only DEPTH
/// collectives later, once everyone has left this one (`Board::stage_as`).
fn alltoall_staged(ep: &Endpoint, args: &AlltoallvArgs, block: usize) -> EpResult<()> {
    let s = &ep.shared;
    let size = s.map.size();
    let from = args.send.as_ref().unwrap_or(&args.recv);
    // Blocks of another size than the receive count says (erroneous) are staged empty, so
    // that the other endpoints get their error instead of waiting.
    let matches = (0..size as i32).all(|r| from.bytes(r) == block);
    let len = if matches { block * size } else { 0 };
    let (arrival, packed) = s.board.stage_as(ep.local as usize, Kind::Alltoallv, len, |out| pack_blocks(from, block, out));
    packed?;
    if !matches {
        return Err(ep_err!(ERR_TRUNCATE, "this endpoint's blocks differ in size from its receive count: type signatures differ"));
    }
    for r in 0..size as i32 {
        arrival.read_staged(s.location(r).expect("rank").local as usize, |data| take_block(args, ep.rank, r, data, block, size))?;
    }
    arrival.depart();
    Ok(())
}

/// Takes rank `me`'s block out of `data`, the blocks rank `r` handed over for each of the
/// `size` ranks (inline or staged), into the receive buffer. `data` must hold exactly `size`
/// blocks of `block` bytes: when the ranks' blocks differ in size (erroneous) a block at the
/// wrong offset would be taken.
fn take_block(args: &AlltoallvArgs, me: i32, r: i32, data: &[u8], block: usize, size: usize) -> EpResult<()> {
    if data.len() != block * size {
        return Err(ep_err!(ERR_TRUNCATE, "rank {r} sent blocks of another size: type signatures differ"));
    }
    let at = me as usize * block;
    args.recv.of(r).unpack_from(&data[at..at + block])
}

/// [`alltoallv`] through the board's exchange (see [`inline_block`]): each endpoint hands over
/// its blocks for every rank, packed in rank order, in one inline input, and takes its own
/// block out of everyone's. One handoff between threads instead of the leader's two. With
/// `MPI_IN_PLACE` the blocks are packed from the receive buffer before any is overwritten.
fn alltoall_inline(ep: &Endpoint, args: &AlltoallvArgs, block: usize) -> EpResult<()> {
    let s = &ep.shared;
    let size = s.map.size() as i32;
    let from = args.send.as_ref().unwrap_or(&args.recv);
    // Blocks of another size than the receive count says (erroneous) still take part, empty,
    // so that the other endpoints get their error instead of waiting.
    let matches = (0..size).all(|r| from.bytes(r) == block);
    // Blocks of one size for every rank, uniform, lie in rank order already: their whole
    // buffer goes onto the board as one (in place when contiguous; with MPI_IN_PLACE the
    // receive buffer is copied onto the board before anything is written into it). Others are
    // packed block by block.
    let mut packed = None;
    let whole;
    let mine: &[u8] = match from.layout {
        _ if !matches => &[],
        Layout::Uniform(count) => {
            // SAFETY: `from.base` is a user buffer (its `Blocks`' invariant) whose `size`
            // uniform blocks of `count` elements start at element 0 (displacement r * count).
            whole = unsafe { UserBuf::from_parts(from.base, count * size, from.dtype, from.info) };
            inline_bytes(&whole, &mut packed)?
        }
        _ => {
            let buf = &mut packed.insert([0u8; INLINE_BYTES])[..block * size as usize];
            for r in 0..size {
                let at = r as usize * block;
                from.of(r).pack_to(&mut buf[at..at + block])?;
            }
            buf
        }
    };
    s.board.exchange(ep.local as usize, Kind::Alltoallv, mine, |inputs| {
        if !matches {
            return Err(ep_err!(ERR_TRUNCATE, "this endpoint's blocks differ in size from its receive count: type signatures differ"));
        }
        for r in 0..size {
            take_block(args, ep.rank, r, inputs[s.location(r).expect("rank").local as usize], block, size as usize)?;
        }
        Ok(())
    })
}
