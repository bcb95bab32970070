//! Host MPI collectives on packed bytes, as the process leaders call them.
//!
//! Packed data lets each process carry all its endpoints' contributions in one host call
//! whatever their datatypes; sizes are in bytes, so one process's share of one call is
//! limited to `2^31 - 1` bytes (the host's `int` counts), which is checked.

use crate::ep_err;
use crate::error::{EpResult, ERR_COUNT};
use crate::host::{check, sys, HostComm, HOST};
use std::os::raw::{c_int, c_void};

/// A real address for a buffer that may be empty: an empty Rust slice points at 0x1, which
/// is Open MPI's `MPI_IN_PLACE`, so empty buffers get the address of a static byte instead.
fn addr(p: *const u8, len: usize) -> *mut c_void {
    static SPARE: u8 = 0;
    if len == 0 {
        &SPARE as *const u8 as *mut c_void
    } else {
        p as *mut c_void
    }
}

/// A byte count as the host's `int`.
pub fn c_bytes(n: usize) -> EpResult<c_int> {
    c_int::try_from(n).map_err(|_| ep_err!(ERR_COUNT, "{n} bytes in one process's share exceeds 2^31-1"))
}

/// Byte displacements from counts (prefix sums).
pub fn displs_of(counts: &[c_int]) -> EpResult<Vec<c_int>> {
    let mut out = Vec::with_capacity(counts.len());
    let mut at: usize = 0;
    for &c in counts {
        out.push(c_bytes(at)?);
        at += c as usize;
    }
    c_bytes(at)?;
    Ok(out)
}

pub fn barrier(comm: HostComm) -> EpResult<()> {
    // SAFETY: a collective on a host communicator the caller holds; no buffer.
    unsafe { check(sys::MPI_Barrier(comm.0), "MPI_Barrier") }
}

/// Broadcasts `len` bytes at `ptr` from host rank `root` (in pieces of 1 GiB, so any length
/// works).
///
/// # Safety
/// `ptr` is valid for `len` bytes (read on the root, written elsewhere) for the call.
pub unsafe fn bcast(ptr: *mut u8, len: usize, root: i32, comm: HostComm) -> EpResult<()> {
    const PIECE: usize = 1 << 30;
    let mut at = 0;
    loop {
        let n = (len - at).min(PIECE);
        // SAFETY: `at + n <= len`, and `ptr` is valid for `len` bytes (this function's
        // contract) on a host communicator the caller holds.
        unsafe { check(sys::MPI_Bcast(ptr.add(at) as *mut c_void, n as c_int, HOST.byte, root, comm.0), "MPI_Bcast")? };
        at += n;
        if at >= len {
            return Ok(());
        }
    }
}

/// Gathers each process's `send` into `recv` on host rank `root` (MPI 4.1 section 6.5).
///
/// # Safety
/// On the root, `recv` is writable at `displs[p]` for `counts[p]` bytes for each process `p`
/// of `comm`, with one entry each in `counts` and `displs` (not read elsewhere).
pub unsafe fn gatherv(send: &[u8], recv: *mut u8, counts: &[c_int], displs: &[c_int], root: i32, comm: HostComm) -> EpResult<()> {
    // SAFETY: `send` is a live slice (or the address of a static byte when empty); `recv`,
    // `counts` and `displs` as this function's contract says.
    unsafe {
        check(
            sys::MPI_Gatherv(
                addr(send.as_ptr(), send.len()),
                c_bytes(send.len())?,
                HOST.byte,
                recv as *mut c_void,
                counts.as_ptr(),
                displs.as_ptr(),
                HOST.byte,
                root,
                comm.0,
            ),
            "MPI_Gatherv",
        )
    }
}

/// Scatters blocks of `send` on host rank `root` into each process's `recv` (MPI 4.1
/// section 6.6).
///
/// # Safety
/// On the root, `send` is readable at `displs[p]` for `counts[p]` bytes for each process `p`
/// of `comm`, with one entry each in `counts` and `displs` (not read elsewhere).
pub unsafe fn scatterv(send: *const u8, counts: &[c_int], displs: &[c_int], recv: &mut [u8], root: i32, comm: HostComm) -> EpResult<()> {
    // SAFETY: `recv` is a live slice (or a static byte when empty); `send`, `counts` and
    // `displs` as this function's contract says.
    unsafe {
        check(
            sys::MPI_Scatterv(
                send as *const c_void,
                counts.as_ptr(),
                displs.as_ptr(),
                HOST.byte,
                addr(recv.as_ptr(), recv.len()),
                c_bytes(recv.len())?,
                HOST.byte,
                root,
                comm.0,
            ),
            "MPI_Scatterv",
        )
    }
}

/// Gathers each process's `send` into every process's `recv` (MPI 4.1 section 6.7).
///
/// # Safety
/// `recv` is writable at `displs[p]` for `counts[p]` bytes for each process `p` of `comm`,
/// with one entry each in `counts` and `displs`.
pub unsafe fn allgatherv(send: &[u8], recv: *mut u8, counts: &[c_int], displs: &[c_int], comm: HostComm) -> EpResult<()> {
    // SAFETY: `send` is a live slice (or a static byte when empty); `recv`, `counts` and
    // `displs` as this function's contract says.
    unsafe {
        check(
            sys::MPI_Allgatherv(
                addr(send.as_ptr(), send.len()),
                c_bytes(send.len())?,
                HOST.byte,
                recv as *mut c_void,
                counts.as_ptr(),
                displs.as_ptr(),
                HOST.byte,
                comm.0,
            ),
            "MPI_Allgatherv",
        )
    }
}

#[allow(clippy::too_many_arguments, reason = "the arguments of MPI_Alltoallv")]
pub fn alltoallv(
    send: *const u8,
    scounts: &[c_int],
    sdispls: &[c_int],
    recv: *mut u8,
    rcounts: &[c_int],
    rdispls: &[c_int],
    comm: HostComm,
) -> EpResult<()> {
    // SAFETY: the caller passes `send` readable and `recv` writable for the blocks its
    // counts and displacements (one entry per process of `comm`) describe.
    unsafe {
        check(
            sys::MPI_Alltoallv(
                send as *const c_void,
                scounts.as_ptr(),
                sdispls.as_ptr(),
                HOST.byte,
                recv as *mut c_void,
                rcounts.as_ptr(),
                rdispls.as_ptr(),
                HOST.byte,
                comm.0,
            ),
            "MPI_Alltoallv",
        )
    }
}
