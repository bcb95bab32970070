//! `EP_Gather(v)`, `EP_Scatter(v)`, `EP_Allgather(v)` (MPI 4.1 sections 6.5-6.7).
//!
//! Each process moves its endpoints' blocks packed, in local order, in one host `MPI_Gatherv`
//! / `MPI_Scatterv` / `MPI_Allgatherv` of bytes; receivers place every rank's block by the
//! rank map, so any map (contiguous or interleaved ranks) gives MPI's rank order.

use super::board::{Kind, Scratch, INLINE_BYTES, STAGED_BYTES};
use super::host_bytes::{self, c_bytes, displs_of};
use super::{copies_pay, copy_ballot, exchange_fits, inline_bytes, process_ordered, Blocks, Layout};
use crate::engine::comm::{CommShared, Endpoint};
use crate::engine::datatype::UserBuf;
use crate::ep_err;
use crate::error::{EpResult, ERR_TRUNCATE};
use crate::host::{check, sys, HOST};
use std::os::raw::{c_int, c_void};

pub struct GathervArgs<'a> {
    /// `None`: `MPI_IN_PLACE` at the root.
    pub send: Option<UserBuf>,
    /// The root's receive blocks (`None` elsewhere).
    pub recv: Option<Blocks<'a>>,
    pub root: i32,
    pub rank: i32,
    /// `EP_Gatherv` rather than `EP_Gather` (every rank knows, unlike the counts).
    pub varied: bool,
}

pub struct ScattervArgs<'a> {
    /// The root's send blocks (`None` elsewhere).
    pub send: Option<Blocks<'a>>,
    /// `None`: `MPI_IN_PLACE` at the root.
    pub recv: Option<UserBuf>,
    pub root: i32,
    /// `EP_Scatterv` rather than `EP_Scatter` (every rank knows, unlike the counts).
    pub varied: bool,
}

pub struct AllgathervArgs<'a> {
    /// `None`: `MPI_IN_PLACE` (the rank's block is already in `recv`).
    pub send: Option<UserBuf>,
    pub recv: Blocks<'a>,
    pub rank: i32,
}

/// (address, count, datatype) of a send buffer for the host call, `MPI_IN_PLACE` for `None`.
fn host_send(b: &Option<UserBuf>) -> (*const c_void, c_int, sys::MPI_Datatype) {
    match b {
        Some(b) => (b.addr, b.count, b.dtype),
        None => (HOST.in_place, 0, HOST.byte),
    }
}

/// (address, count, counts, displs, datatype) of blocks for the host call.
fn host_blocks(b: &Option<Blocks>) -> (*mut c_void, c_int, *const c_int, *const c_int, sys::MPI_Datatype) {
    match b {
        Some(Blocks { base, dtype, layout: Layout::Uniform(n), .. }) => (*base, *n, std::ptr::null(), std::ptr::null(), *dtype),
        Some(Blocks { base, dtype, layout: Layout::Varied { counts, displs }, .. }) => {
            (*base, 0, counts.as_ptr(), displs.as_ptr(), *dtype)
        }
        None => (std::ptr::null_mut(), 0, std::ptr::null(), std::ptr::null(), HOST.byte),
    }
}

/// Packs `bufs` one after the other into `out`, returning each one's byte offset.
fn pack_all<'b>(bufs: impl Iterator<Item = Option<&'b UserBuf>>, out: &mut super::board::AlignedBuf) -> EpResult<usize> {
    let bufs: Vec<Option<&UserBuf>> = bufs.collect();
    let total: usize = bufs.iter().map(|b| b.map_or(0, |b| b.bytes())).sum();
    let data = out.resize(total);
    let mut at = 0;
    for b in bufs.into_iter().flatten() {
        b.pack_to(&mut data[at..at + b.bytes()])?;
        at += b.bytes();
    }
    Ok(total)
}

/// Unpacks `n` bytes at `at` of `data` into `dst`, refusing to read past the data (type
/// signatures of sender and receiver that differ, which MPI makes erroneous).
fn unpack_checked(dst: &UserBuf, data: &[u8], at: usize, n: usize) -> EpResult<()> {
    match data.get(at..at + n) {
        Some(d) => dst.unpack_from(d),
        None => Err(ep_err!(ERR_TRUNCATE, "received fewer bytes than the receive counts say: type signatures of sender and receiver differ")),
    }
}

/// Byte counts per process of blocks laid out by `blocks`, leaving out `skip`'s block.
fn proc_counts(s: &CommShared, blocks: &Blocks, skip: Option<i32>) -> EpResult<Vec<c_int>> {
    (0..s.map.nprocs() as u32)
        .map(|p| c_bytes(s.map.ranks_of(p).iter().filter(|&&r| Some(r) != skip).map(|&r| blocks.bytes(r)).sum()))
        .collect()
}

pub fn gatherv(ep: &Endpoint, args: &GathervArgs) -> EpResult<()> {
    let s = &ep.shared;
    let root_loc = s.location(args.root).expect("root checked by the caller");
    if process_ordered(s) {
        let (sb, sc, st) = host_send(&args.send);
        let (rb, rc, rcounts, rdispls, rt) = host_blocks(&args.recv);
        let root = root_loc.proc as i32;
        // SAFETY: one endpoint per process, ranked as the host ranks (`process_ordered`),
        // so this is the user's gather passed through: the buffers, counts and displacements are
        // the user's, valid for the call as MPI 4.1 section 6.5 requires (the receive side only at
        // the root, null elsewhere, where the host ignores it); `s.host` lives while `s` does.
        return unsafe {
            if args.varied {
                check(sys::MPI_Gatherv(sb, sc, st, rb, rcounts, rdispls, rt, root, s.host.0), "MPI_Gatherv")
            } else {
                check(sys::MPI_Gather(sb, sc, st, rb, rc, rt, root, s.host.0), "MPI_Gather")
            }
        };
    }
    let root_here = root_loc.proc == s.my_proc;
    let root_in_place = |all: &[&GathervArgs]| root_here && all[root_loc.local as usize].send.is_none();
    s.board.run(
        ep.local as usize,
        Kind::Gatherv,
        args,
        false,
        |all, scratch: &mut Scratch| {
            let total = pack_all(all.iter().map(|a| a.send.as_ref()), &mut scratch.bytes2)?;
            scratch.offsets.clear();
            if !root_here {
                // SAFETY: not the root: the receive arguments are not read.
                return unsafe { host_bytes::gatherv(&scratch.bytes2.as_ref()[..total], std::ptr::null_mut(), &[], &[], root_loc.proc as i32, s.host) };
            }
            let blocks = all[root_loc.local as usize].recv.expect("the root has receive blocks");
            let skip = root_in_place(all).then_some(args.root);
            let counts = proc_counts(s, &blocks, skip)?;
            let displs = displs_of(&counts)?;
            if s.is_multi_process() {
                let sum: usize = counts.iter().map(|&c| c as usize).sum();
                let recv = scratch.bytes.resize(sum).as_mut_ptr();
                // SAFETY: `recv` was just resized to the sum of `counts`, which `displs` lays
                // out end to end, one entry per process.
                unsafe { host_bytes::gatherv(&scratch.bytes2.as_ref()[..total], recv, &counts, &displs, root_loc.proc as i32, s.host)? };
            } else {
                std::mem::swap(&mut scratch.bytes, &mut scratch.bytes2);
            }
            scratch.offsets.extend(displs.iter().map(|&d| d as usize));
            Ok(())
        },
        |me, scratch| {
            if me.rank != me.root {
                return Ok(());
            }
            let blocks = me.recv.expect("the root has receive blocks");
            let data = scratch.bytes.as_ref();
            for p in 0..s.map.nprocs() as u32 {
                let mut at = scratch.offsets[p as usize];
                for &r in s.map.ranks_of(p) {
                    if r == me.rank && me.send.is_none() {
                        continue;
                    }
                    unpack_checked(&blocks.of(r), data, at, blocks.bytes(r))?;
                    at += blocks.bytes(r);
                }
            }
            Ok(())
        },
    )
}

pub fn scatterv(ep: &Endpoint, args: &ScattervArgs) -> EpResult<()> {
    let s = &ep.shared;
    let root_loc = s.location(args.root).expect("root checked by the caller");
    if process_ordered(s) {
        let (sb, sc, scounts, sdispls, st) = host_blocks(&args.send);
        let (rb, rc, rt) = match &args.recv {
            Some(b) => (b.addr, b.count, b.dtype),
            None => (HOST.in_place as *mut c_void, 0, HOST.byte),
        };
        let root = root_loc.proc as i32;
        // SAFETY: the user's scatter passed through (`process_ordered`, see `gatherv`): the
        // buffers, counts and displacements are the user's, valid for the call (MPI 4.1 section
        // 6.6), the send side only at the root; `MPI_IN_PLACE` stands for a missing receive buffer.
        return unsafe {
            if args.varied {
                check(sys::MPI_Scatterv(sb, scounts, sdispls, st, rb, rc, rt, root, s.host.0), "MPI_Scatterv")
            } else {
                check(sys::MPI_Scatter(sb, sc, st, rb, rc, rt, root, s.host.0), "MPI_Scatter")
            }
        };
    }
    let root_here = root_loc.proc == s.my_proc;
    s.board.run(
        ep.local as usize,
        Kind::Scatterv,
        args,
        false,
        |all, scratch: &mut Scratch| {
            // This process's share: its endpoints' blocks in local order.
            scratch.offsets.clear();
            let mut mine = 0;
            for a in all {
                scratch.offsets.push(mine);
                mine += a.recv.map_or(0, |b| b.bytes());
            }
            let mut counts = Vec::new();
            let mut displs = Vec::new();
            if root_here {
                let root = all[root_loc.local as usize];
                let blocks = root.send.expect("the root has send blocks");
                let skip = root.recv.is_none().then_some(args.root);
                counts = proc_counts(s, &blocks, skip)?;
                displs = displs_of(&counts)?;
                let order: Vec<UserBuf> = (0..s.map.nprocs() as u32)
                    .flat_map(|p| s.map.ranks_of(p).iter().copied())
                    .filter(|&r| Some(r) != skip)
                    .map(|r| blocks.of(r))
                    .collect();
                pack_all(order.iter().map(Some), &mut scratch.bytes2)?;
            }
            if s.is_multi_process() {
                let recv = scratch.bytes.resize(mine);
                // SAFETY: on the root `bytes2` holds the packed blocks of every process, laid
                // out by `counts` and `displs` (packed just above); elsewhere it is not read.
                unsafe { host_bytes::scatterv(scratch.bytes2.ptr(), &counts, &displs, recv, root_loc.proc as i32, s.host) }
            } else {
                std::mem::swap(&mut scratch.bytes, &mut scratch.bytes2);
                Ok(())
            }
        },
        |me, scratch| match &me.recv {
            Some(b) => unpack_checked(b, scratch.bytes.as_ref(), scratch.offsets[ep.local as usize], b.bytes()),
            None => Ok(()),
        },
    )
}

pub fn allgatherv(ep: &Endpoint, args: &AllgathervArgs) -> EpResult<()> {
    let s = &ep.shared;
    if process_ordered(s) {
        let (sb, sc, st) = host_send(&args.send);
        let (rb, rc, rcounts, rdispls, rt) = host_blocks(&Some(args.recv));
        // SAFETY: the user's allgather passed through (`process_ordered`, see `gatherv`): the
        // buffers, counts and displacements are the user's, valid for the call (MPI 4.1 section 6.7).
        return unsafe {
            match args.recv.layout {
                Layout::Varied { .. } => check(sys::MPI_Allgatherv(sb, sc, st, rb, rcounts, rdispls, rt, s.host.0), "MPI_Allgatherv"),
                Layout::Uniform(_) => check(sys::MPI_Allgather(sb, sc, st, rb, rc, rt, s.host.0), "MPI_Allgather"),
            }
        };
    }
    if exchange_fits(s, 0) && (0..s.map.size() as i32).all(|r| args.recv.bytes(r) <= INLINE_BYTES) {
        return allgatherv_inline(ep, args);
    }
    if exchange_fits(s, 0) && (0..s.map.size() as i32).all(|r| args.recv.bytes(r) <= STAGED_ALLGATHER_BYTES) {
        return allgatherv_staged(ep, args);
    }
    let leader = |all: &[&AllgathervArgs], scratch: &mut Scratch| {
        let own: Vec<UserBuf> = all.iter().map(|a| own_block(a)).collect();
        let total = pack_all(own.iter().map(Some), &mut scratch.bytes2)?;
        let counts = proc_counts(s, &all[0].recv, None)?;
        let displs = displs_of(&counts)?;
        if s.is_multi_process() {
            let sum: usize = counts.iter().map(|&c| c as usize).sum();
            let recv = scratch.bytes.resize(sum).as_mut_ptr();
            // SAFETY: `recv` was just resized to the sum of `counts`, which `displs` lays
            // out end to end, one entry per process.
            unsafe { host_bytes::allgatherv(&scratch.bytes2.as_ref()[..total], recv, &counts, &displs, s.host)? };
        } else {
            std::mem::swap(&mut scratch.bytes, &mut scratch.bytes2);
        }
        scratch.offsets.clear();
        scratch.offsets.extend(displs.iter().map(|&d| d as usize));
        Ok(())
    };
    let after = |me: &AllgathervArgs, scratch: &Scratch| {
        let data = scratch.bytes.as_ref();
        // Process offsets follow the leader's receive counts; each endpoint places blocks
        // by its own, which MPI requires to describe the same bytes.
        for p in 0..s.map.nprocs() as u32 {
            let mut at = scratch.offsets[p as usize];
            for &r in s.map.ranks_of(p) {
                let n = me.recv.bytes(r);
                if !(r == me.rank && me.send.is_none()) {
                    unpack_checked(&me.recv.of(r), data, at, n)?;
                }
                at += n;
            }
        }
        Ok(())
    };
    if s.is_multi_process() {
        return s.board.run(ep.local as usize, Kind::Allgatherv, args, false, leader, after);
    }
    // One process, every block contiguous and more than a few bytes in all: every block is
    // copied straight from its owner's buffer into each receive buffer (one copy per block
    // and reader, all endpoints at once) instead of the leader packing them all first. A block
    // of at least PUSHED_BLOCK_BYTES its owner copies into everyone's receive buffer; a
    // shorter one each reader copies into its own.
    let own = own_block(args);
    let n = s.local_count();
    s.board.run_or_copy(
        ep.local as usize,
        Kind::Allgatherv,
        args,
        copy_ballot(own.bytes(), own.info.contiguous()),
        |ballot_of| copies_pay(n, ballot_of),
        |me, peer| {
            let mine = own_block(me);
            // Contiguous (every ballot said so), and nobody writes it during the collective.
            if let Some(data) = mine.contiguous_data().filter(|d| d.len() >= PUSHED_BLOCK_BYTES) {
                // The others' buffers first, this endpoint's own last.
                for k in 1..=n {
                    let a = peer((ep.local as usize + k) % n);
                    if a.rank == me.rank && me.send.is_none() {
                        continue;
                    }
                    // A block shorter than that receiver's count: the receiver reports it below.
                    if let Some(d) = data.get(..a.recv.bytes(me.rank)) {
                        // The receiver stays in the collective until everyone has copied
                        // (`run_or_copy`), so its buffer stays valid; only this endpoint
                        // writes this block of it.
                        a.recv.of(me.rank).unpack_from(d)?;
                    }
                }
            }
            for i in 0..n {
                let a = peer(i);
                if a.rank == me.rank && me.send.is_none() {
                    continue;
                }
                let block = own_block(a);
                if block.bytes() >= PUSHED_BLOCK_BYTES {
                    // Its owner copies it in (above): only the length is this endpoint's to check.
                    // (A longer block, erroneous too, is cut by the owner: reported here.)
                    if block.bytes() != me.recv.bytes(a.rank) {
                        return Err(ep_err!(
                            ERR_TRUNCATE,
                            "rank {} sent {} bytes where the receive counts say {}: type signatures differ",
                            a.rank,
                            block.bytes(),
                            me.recv.bytes(a.rank)
                        ));
                    }
                    continue;
                }
                // SAFETY: `block` is contiguous (its ballot said so), `bytes()` bytes at
                // `data_ptr()` of its owner's buffer, untouched until the owner returns, which
                // it does only once everyone has copied (`run_or_copy`).
                let data = unsafe { std::slice::from_raw_parts(block.data_ptr(), block.bytes()) };
                unpack_checked(&me.recv.of(a.rank), data, 0, me.recv.bytes(a.rank))?;
            }
            Ok(())
        },
        leader,
        after,
    )
}

/// From this many bytes, an allgather block inside one process is copied by its owner into
/// every receive buffer rather than by each reader into its own. (A likely reason, not
/// checked further: the owner's loads hit its own cache and its stores to other cores' lines
/// overlap, where a reader's loads each wait for a line in another core's cache.) 1x2 on
/// MPICH, medians of 3 to 5 alternated runs, pushed against pulled: `collectives` 0.90x-0.92x
/// at 4 KiB, 0.90x-1.08x at 8 KiB, 0.67x at 16 KiB, 0.95x-1.03x from 32 to 256 KiB, 0.67x at 1
/// MiB; a C model in which every endpoint writes its block before each allgather and reads its
/// result after, 1.13x-1.18x at 2 KiB, 0.95x-1.04x at 4 KiB, 0.81x-0.84x at 8 KiB, 0.67x at 32
/// KiB, 0.78x at 256 KiB, 0.81x at 1 MiB. Against it: a model that reads its result but never
/// changes its input, 1.05x at 1 MiB (docs/performance.md).
const PUSHED_BLOCK_BYTES: usize = 8192;

/// The block a rank contributes to an allgather: its send buffer, or with `MPI_IN_PLACE` its
/// own block of the receive buffer.
fn own_block(a: &AllgathervArgs) -> UserBuf {
    a.send.unwrap_or_else(|| a.recv.of(a.rank))
}

/// Largest block of an allgather (bytes) that every endpoint stages ([`allgatherv_staged`])
/// instead of taking the straight copies. Staged, each block is copied twice (once by its
/// owner), and nobody waits for the others to finish reading. 1x2 on MPICH and Open MPI,
/// medians of 4 alternated runs, staged against the straight copies: 0.79x-0.83x at 640 bytes,
/// 0.89x-0.90x at 768, 0.97x-1.05x at 1024, 1.08x-1.13x at 1536.
const STAGED_ALLGATHER_BYTES: usize = 1024;
const _: () = assert!(STAGED_ALLGATHER_BYTES <= STAGED_BYTES, "an allgather's stage fits a staging buffer");

/// [`allgatherv`] inside one process when every block is too long for an inline input but at
/// most [`STAGED_ALLGATHER_BYTES`] (the test is on the receive counts, which every rank knows
/// alike): each endpoint stages its block in a buffer of its own and places everyone's from
/// there, and nobody waits for the others to finish reading, as they must when blocks are
/// copied straight from their owners' buffers (`Board::stage_as`).
fn allgatherv_staged(ep: &Endpoint, args: &AllgathervArgs) -> EpResult<()> {
    let s = &ep.shared;
    let own = own_block(args);
    // A block larger than the receive counts say (erroneous) is staged empty, so that the
    // other endpoints get their error instead of waiting.
    let too_big = own.bytes() > STAGED_ALLGATHER_BYTES;
    let len = if too_big { 0 } else { own.bytes() };
    let (arrival, packed) = s.board.stage_as(ep.local as usize, Kind::Allgatherv, len, |out| own.pack_to(out));
    packed?;
    if too_big {
        return Err(ep_err!(ERR_TRUNCATE, "this endpoint sends more bytes than the receive counts say: type signatures differ"));
    }
    for r in 0..s.map.size() as i32 {
        if r == args.rank && args.send.is_none() {
            continue;
        }
        arrival.read_staged(s.location(r).expect("rank").local as usize, |data| place_block(args, r, data))?;
    }
    arrival.depart();
    Ok(())
}

/// Places rank `r`'s block `data` (handed over inline or staged) into the receive buffer:
/// exactly the bytes the receive counts say, a longer block (erroneous) an error as a shorter
/// one is, not cut to fit.
fn place_block(args: &AllgathervArgs, r: i32, data: &[u8]) -> EpResult<()> {
    if data.len() != args.recv.bytes(r) {
        return Err(ep_err!(
            ERR_TRUNCATE,
            "rank {r} sent {} bytes where the receive counts say {}: type signatures differ",
            data.len(),
            args.recv.bytes(r)
        ));
    }
    args.recv.of(r).unpack_from(data)
}

/// [`allgatherv`] inside one process when every block is small (the test is on the receive
/// counts, which every rank knows alike): each endpoint hands its block over inline and
/// places everyone's from there. One handoff between threads instead of the leader's two,
/// and no scratch space.
fn allgatherv_inline(ep: &Endpoint, args: &AllgathervArgs) -> EpResult<()> {
    let s = &ep.shared;
    let own = args.send.unwrap_or_else(|| args.recv.of(args.rank));
    // A block larger than the receive counts say (erroneous) still takes part, empty, so
    // that the other endpoints get their error instead of waiting.
    let too_big = own.bytes() > INLINE_BYTES;
    let mut packed = None;
    let mine: &[u8] = if too_big { &[] } else { inline_bytes(&own, &mut packed)? };
    s.board.exchange(ep.local as usize, Kind::Allgatherv, mine, |inputs| {
        if too_big {
            return Err(ep_err!(ERR_TRUNCATE, "this endpoint sends more bytes than the receive counts say: type signatures differ"));
        }
        for r in 0..s.map.size() as i32 {
            if r == args.rank && args.send.is_none() {
                continue;
            }
            place_block(args, r, inputs[s.location(r).expect("rank").local as usize])?;
        }
        Ok(())
    })
}
