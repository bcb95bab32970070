//! What crosses between the two groups of an intercommunicator in the gather, scatter and
//! all-to-all families (see [`super::inter_gather`]): a group's data gathered at its rank 0 as
//! one "parcel" (a header of byte counts, `u64` each, then the packed data), sent whole over
//! the groups' private host communicator.
//!
//! Every step runs on every endpoint whatever happened before it, so that an error on one
//! endpoint (type signatures that do not match) leaves none of the others waiting: a leader
//! whose gather failed still sends a parcel (empty), and a receiver finds it short and says so.

use super::gather::{gatherv, GathervArgs};
use super::host_bytes::{c_bytes, displs_of};
use super::inter::Groups;
use super::{Blocks, Layout};
use crate::engine::comm::Endpoint;
use crate::engine::datatype::{type_info, UserBuf};
use crate::ep_err;
use crate::error::{EpError, EpResult, ERR_TRUNCATE};
use crate::host::{check, sys, HOST};
use std::os::raw::{c_int, c_void};

/// The address of `len` bytes at `p` for the host: NULL when empty, since an empty `Vec`'s
/// address is 1, which is `MPI_IN_PLACE` in Open MPI.
fn host_addr(p: *mut u8, len: usize) -> *mut c_void {
    if len == 0 {
        std::ptr::null_mut()
    } else {
        p as *mut c_void
    }
}

/// `len` bytes at `p` as a buffer of `MPI_BYTE`.
///
/// # Safety
/// `p` is valid for `len` bytes (writable if the buffer receives) while the buffer is used.
pub(super) unsafe fn byte_buf(p: *mut u8, len: usize) -> EpResult<UserBuf> {
    // SAFETY: the caller's promise (an empty buffer has the valid address NULL).
    unsafe { UserBuf::new(host_addr(p, len), c_bytes(len)?, HOST.byte) }
}

/// `bytes` laid out as consecutive blocks of `counts` bytes, for the intracommunicator
/// collectives (`displs` are `counts`' prefix sums).
pub(super) fn byte_blocks<'a>(bytes: &mut [u8], counts: &'a [c_int], displs: &'a [c_int]) -> EpResult<Blocks<'a>> {
    let base = host_addr(bytes.as_mut_ptr(), bytes.len());
    Ok(Blocks { base, dtype: HOST.byte, info: type_info(HOST.byte)?, layout: Layout::Varied { counts, displs } })
}

/// A group's gathered rows: `k` byte counts per rank (rank-major) and the data, rank after rank.
pub(super) struct Rows {
    pub sizes: Vec<u64>,
    pub data: Vec<u8>,
}

/// Gathers at the view's rank 0 each rank's `sizes` (`k` counts, the same `k` on every rank)
/// and `row` (their sum of bytes): two intracommunicator gathers of the group. `Ok(None)` on
/// the other ranks.
pub(super) fn gather_rows(view: &Endpoint, sizes: &[u64], row: &[u8]) -> EpResult<Option<Rows>> {
    let n = view.shared.map.size();
    let k = sizes.len();
    let leader = view.rank == 0;
    let mut mine = sizes.to_vec();
    let mut all = vec![0u64; if leader { n * k } else { 0 }];
    let byte = type_info(HOST.byte)?;
    // SAFETY: `mine` holds `8k` bytes and `all` `8nk` at the leader; both outlive the
    // blocking gather.
    let first = unsafe { byte_buf(mine.as_mut_ptr() as *mut u8, 8 * k) }.and_then(|send| {
        let layout = Layout::Uniform(c_bytes(8 * k)?);
        let recv =
            leader.then_some(Blocks { base: all.as_mut_ptr() as *mut c_void, dtype: HOST.byte, info: byte, layout });
        gatherv(view, &GathervArgs { send: Some(send), recv, root: 0, rank: view.rank, varied: false })
    });
    // The leader's counts per rank; zeros after a failure, so that the second gather still runs.
    let totals: Vec<usize> =
        (0..n).map(|r| all.get(r * k..(r + 1) * k).map_or(0, |s| s.iter().sum::<u64>() as usize)).collect();
    let counts: EpResult<Vec<c_int>> =
        if leader { totals.iter().map(|&t| c_bytes(t)).collect() } else { Ok(Vec::new()) };
    let (counts, bad_counts) = match counts.and_then(|c| displs_of(&c).map(|d| (c, d))) {
        Ok(cd) => (cd, None),
        Err(e) => ((vec![0; if leader { n } else { 0 }], vec![0; if leader { n } else { 0 }]), Some(e)),
    };
    let mut data = vec![0u8; if bad_counts.is_none() && leader { totals.iter().sum() } else { 0 }];
    // SAFETY: `row` is read only (the buffer sends) and outlives the blocking gather; `data`
    // holds the sum of `counts` at the leader.
    let second = unsafe { byte_buf(row.as_ptr() as *mut u8, row.len()) }.and_then(|send| {
        let recv = if leader { Some(byte_blocks(&mut data, &counts.0, &counts.1)?) } else { None };
        gatherv(view, &GathervArgs { send: Some(send), recv, root: 0, rank: view.rank, varied: true })
    });
    first.and(second)?;
    if let Some(e) = bad_counts {
        return Err(e);
    }
    Ok(leader.then_some(Rows { sizes: all, data }))
}

/// The parcel of `rows` (empty when they failed, or on a rank that has none).
fn parcel_of(rows: &EpResult<Option<Rows>>) -> Vec<u8> {
    match rows {
        Ok(Some(r)) => r.sizes.iter().flat_map(|s| s.to_ne_bytes()).chain(r.data.iter().copied()).collect(),
        _ => Vec::new(),
    }
}

/// A parcel's header of `n` counts and its data, checked to hold what the header says.
pub(super) fn open_parcel<'a>(parcel: &'a [u8], n: usize, whom: &str) -> EpResult<(Vec<u64>, &'a [u8])> {
    let short = || {
        ep_err!(
            ERR_TRUNCATE,
            "{whom} sent {} bytes, not a parcel of {n} counts and their data (an error there?)",
            parcel.len()
        )
    };
    let data = parcel.get(8 * n..).ok_or_else(short)?;
    let sizes: Vec<u64> =
        parcel[..8 * n].chunks_exact(8).map(|c| u64::from_ne_bytes(c.try_into().expect("8 bytes"))).collect();
    if sizes.iter().sum::<u64>() != data.len() as u64 {
        return Err(short());
    }
    Ok((sizes, data))
}

/// Sends `rows` (this rank's gather result) as one parcel to host rank `dest` of `groups.cross`.
pub(super) fn send_rows(groups: &Groups, dest: u32, tag: c_int, rows: &EpResult<Option<Rows>>) -> EpResult<()> {
    let parcel = parcel_of(rows);
    // SAFETY: a blocking send of `parcel`, alive for the call, on `groups.cross`, which lives
    // while the intercommunicator does.
    unsafe {
        check(
            sys::MPI_Send(
                host_addr(parcel.as_ptr() as *mut u8, parcel.len()),
                c_bytes(parcel.len())?,
                HOST.byte,
                dest as c_int,
                tag,
                groups.cross.0,
            ),
            "MPI_Send",
        )
    }
}

/// Receives the next parcel from host rank `source` with `tag`, whatever its length.
pub(super) fn recv_parcel(groups: &Groups, source: u32, tag: c_int) -> EpResult<Vec<u8>> {
    // SAFETY: the host writes `msg`, `status` and `bytes` (live locals; all-zero is a value of
    // these plain C types) and receives the probed message whole into `parcel`, which holds its
    // `bytes`.
    unsafe {
        let mut msg = std::mem::zeroed::<sys::MPI_Message>();
        let mut status = std::mem::zeroed::<sys::MPI_Status>();
        check(sys::MPI_Mprobe(source as c_int, tag, groups.cross.0, &mut msg, &mut status), "MPI_Mprobe")?;
        let mut bytes: c_int = 0;
        check(sys::MPI_Get_count(&status, HOST.byte, &mut bytes), "MPI_Get_count")?;
        let mut parcel = vec![0u8; bytes.max(0) as usize];
        check(
            sys::MPI_Mrecv(
                host_addr(parcel.as_mut_ptr(), parcel.len()),
                bytes,
                HOST.byte,
                &mut msg,
                HOST.status_ignore,
            ),
            "MPI_Mrecv",
        )?;
        Ok(parcel)
    }
}

/// The two leaders swap their groups' parcels: sends `rows` to host rank `peer` with
/// `send_tag` and receives the peer's with `recv_tag` (the send nonblocking, so that two
/// leaders swapping large parcels do not wait for each other).
pub(super) fn swap_rows(
    groups: &Groups,
    peer: u32,
    tags: (c_int, c_int),
    rows: &EpResult<Option<Rows>>,
) -> EpResult<Vec<u8>> {
    let parcel = parcel_of(rows);
    let mut req = HOST.request_null;
    // SAFETY: `parcel` lives until the end of the function, after the `MPI_Wait` below
    // completes the send; the host writes `req`, a live local.
    unsafe {
        check(
            sys::MPI_Isend(
                host_addr(parcel.as_ptr() as *mut u8, parcel.len()),
                c_bytes(parcel.len())?,
                HOST.byte,
                peer as c_int,
                tags.0,
                groups.cross.0,
                &mut req,
            ),
            "MPI_Isend",
        )?
    };
    let received = recv_parcel(groups, peer, tags.1);
    // SAFETY: `req` is the send started above (the host sets it to `MPI_REQUEST_NULL`).
    let sent = unsafe { check(sys::MPI_Wait(&mut req, HOST.status_ignore), "MPI_Wait") };
    sent.and(received)
}

/// Packs `bufs` one after the other: the bytes and each one's size.
pub(super) fn pack_row(bufs: impl Iterator<Item = UserBuf>) -> EpResult<(Vec<u64>, Vec<u8>)> {
    let mut sizes = Vec::new();
    let mut row = Vec::new();
    for b in bufs {
        b.pack_into(&mut row)?;
        sizes.push(b.bytes() as u64);
    }
    Ok((sizes, row))
}

/// [`pack_row`] that leaves the collective to go on after a failure: `n` zero sizes and no
/// data then, with the error to report at the end.
pub(super) fn pack_row_or_nothing(bufs: impl Iterator<Item = UserBuf>, n: usize) -> (Vec<u64>, Vec<u8>, EpResult<()>) {
    match pack_row(bufs) {
        Ok((sizes, row)) => (sizes, row, Ok(())),
        Err(e) => (vec![0; n], Vec::new(), Err(e)),
    }
}

/// Unpacks consecutive blocks of `data` into `blocks.of(r)` for `r` in `0..n`, each of the
/// size the sender reports in `sizes` (when given), which must be what the block holds.
pub(super) fn place(blocks: &Blocks, n: usize, sizes: Option<&[u64]>, data: &[u8], whom: &str) -> EpResult<()> {
    let mut at = 0usize;
    for r in 0..n as i32 {
        let want = blocks.bytes(r);
        let sent = sizes.map_or(want as u64, |s| s[r as usize]);
        if sent != want as u64 || at + want > data.len() {
            return Err(mismatch(whom, r, sent, want));
        }
        blocks.of(r).unpack_from(&data[at..at + want])?;
        at += want;
    }
    Ok(())
}

fn mismatch(whom: &str, r: i32, sent: u64, want: usize) -> EpError {
    ep_err!(
        ERR_TRUNCATE,
        "{whom}: rank {r} sends {sent} bytes, the receive arguments say {want}: type signatures differ"
    )
}
