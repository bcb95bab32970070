//! Buffered and ready modes (MPI 4.1 sections 3.4, 3.6): `EP_Buffer_attach`,
//! `EP_Buffer_detach`, `EP_Bsend`, `EP_Ibsend`, `EP_Rsend`, `EP_Irsend`.
//!
//! The attached buffer belongs to the process and is shared by all its endpoints (see
//! `crate::engine::bsend` for its scope and accounting). A buffered send packs its data into
//! memory of EPMPI's own and starts a standard send of it, charging the attached buffer until
//! that send completes: the call never waits for the receiver, and the user's buffer is free
//! on return.
//!
//! Ready mode sends as standard mode: MPI allows it (a correct ready-mode program is a correct
//! standard-mode one, MPI 4.1 section 3.4), and a ready send whose receive is not yet posted,
//! erroneous in MPI, then still delivers its message instead of failing.

use super::boundary::out;
use super::p2p_api::{check_send_tag, send_blocking, send_nonblocking, start_send};
use super::types::*;
use crate::engine::bsend;
use crate::engine::comm::Endpoint;
use crate::engine::datatype::UserBuf;
use crate::engine::p2p::SendState;
use crate::engine::request::{Op, Request};
use crate::ep_err;
use crate::error::{EpResult, ERR_COUNT, ERR_RANK};
use crate::handles::{endpoint_ref, new_request};
use crate::host::sys::MPI_Datatype;
use crate::host::HOST;
use epmpi_macros::c_export;
use std::os::raw::{c_int, c_void};

/// A buffered-mode send from endpoint `ep`: checks the arguments, charges the attached
/// buffer, packs the data and starts a standard send of it (as `MPI_PACKED`, which any
/// receive of the same type signature matches, MPI 4.1 section 5.2.2). Nothing is sent when
/// an error is returned.
///
/// # Safety
/// `buf` is readable for `count` elements of `datatype` for the call; `datatype` is a valid
/// host datatype.
pub(super) unsafe fn bsend(
    ep: &Endpoint,
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
) -> EpResult<()> {
    check_send_tag(tag)?;
    // SAFETY: this function's contract.
    let ubuf = unsafe { UserBuf::new(buf, count, datatype)? };
    if dest == EP_PROC_NULL {
        return Ok(());
    }
    if ep.shared.peer_location(ep.local, dest).is_none() {
        return Err(ep_err!(
            ERR_RANK,
            "destination rank {dest} is outside 0..{}",
            ep.shared.peer_map(ep.local).size()
        ));
    }
    let charge = bsend::reserve(ubuf.bytes())?;
    let mut data = Vec::new();
    let started = ubuf
        .pack_into(&mut data)
        .and_then(|()| c_int::try_from(data.len()).map_err(|_| ep_err!(ERR_COUNT, "more than 2^31-1 bytes to send")))
        // SAFETY: `data` holds the packed bytes and stays alive, with the heap memory the send
        // reads, until the send completes: here, or in the buffer's outstanding messages.
        .and_then(|len| unsafe {
            start_send(ep, data.as_ptr() as *const c_void, len, HOST.packed, dest, tag, false, false)
        });
    match started {
        Ok(SendState::Done) => bsend::release(charge),
        Ok(s) => bsend::keep(s, data, charge),
        Err(e) => {
            bsend::release(charge);
            return Err(e);
        }
    }
    Ok(())
}

/// Attaches `size` bytes at `buffer` as the process's buffer for buffered-mode sends (MPI 4.1
/// section 3.6.1). One buffer per process, shared by all its endpoints and communicators;
/// EPMPI never writes into it (it is the budget of the messages buffered at once, see
/// `EP_BSEND_OVERHEAD`). Errors: `EP_ERR_BUFFER` (a buffer is already attached),
/// `EP_ERR_ARG` (negative size, NULL `buffer` with a positive size). Thread safety: any
/// thread.
///
/// # Safety
/// `buffer` is `size` bytes the caller leaves to EPMPI until `EP_Buffer_detach` returns them.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Buffer_attach(buffer: *mut c_void, size: c_int) -> c_int {
    bsend::attach(buffer, size as i64)
}

/// Detaches the process's buffer (MPI 4.1 section 3.6.1): blocks until every message
/// buffered in it has been delivered, then stores its address in `*(void **)buffer_addr` and
/// its size in bytes in `*size`. As in MPI's C binding, `buffer_addr` is declared `void *`
/// but points at a `void *`. Errors: `EP_ERR_BUFFER` (no buffer attached), `EP_ERR_ARG`
/// (NULL pointers). Thread safety: any thread; while one thread detaches, buffered sends of
/// other threads may fail with `EP_ERR_BUFFER`.
///
/// # Safety
/// `buffer_addr` points at a writable `void *` and `size` at a writable `int` (NULL gives
/// `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Buffer_detach(buffer_addr: *mut c_void, size: *mut c_int) -> c_int {
    let addr = out(buffer_addr as *mut *mut c_void, "buffer_addr")?;
    let size = out(size, "size")?;
    let (a, n) = bsend::detach()?;
    *addr = a;
    *size = n as c_int;
    Ok(())
}

/// Buffered-mode blocking send (MPI 4.1 section 3.6): returns once the message is in the
/// attached buffer, whatever the receiver does; the message is then delivered as a standard
/// send. A message that needs no room (delivered at once) gives its room back before the
/// call returns. Arguments as `EP_Send`. Errors: `EP_ERR_BUFFER` (no buffer attached, or
/// the packed message plus `EP_BSEND_OVERHEAD` does not fit in what is free: nothing is sent),
/// and those of `EP_Send`. Thread safety: one thread per endpoint at a time.
///
/// # Safety
/// `buf` is readable for `count` elements of `datatype` for the call; `datatype` is a valid
/// host datatype.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Bsend(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: EP_Comm,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    bsend(&ep, buf, count, datatype, dest, tag)
}

/// Nonblocking buffered-mode send (MPI 4.1 section 3.7.2): buffers the message as `EP_Bsend`
/// does and returns a request that is already complete (the buffer may be reused at once).
/// Errors as `EP_Bsend` (reported by this call, not at completion), plus `EP_ERR_ARG` for a
/// NULL `request`.
///
/// # Safety
/// `buf` is readable for `count` elements of `datatype` for the call; `datatype` is a valid
/// host datatype; `request` points at a writable `EP_Request` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Ibsend(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    let req = out(request, "request")?;
    bsend(&ep, buf, count, datatype, dest, tag)?;
    *req = new_request(Request::new(ep.to_arc(), Op::Send(SendState::Done)))?;
    Ok(())
}

/// Ready-mode blocking send (MPI 4.1 section 3.4): the program promises that the matching
/// receive is already posted. EPMPI sends it as a standard-mode send, so it is delivered
/// even when the promise is broken. Arguments and errors as `EP_Send`.
///
/// # Safety
/// `buf` is readable for `count` elements of `datatype` for the call; `datatype` is a valid
/// host datatype.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Rsend(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: EP_Comm,
) -> c_int {
    send_blocking(comm, buf, count, datatype, dest, tag, false)
}

/// Nonblocking ready-mode send (MPI 4.1 section 3.7.2), sent as `EP_Isend` (see `EP_Rsend`).
/// Arguments and errors as `EP_Isend`.
///
/// # Safety
/// `buf` is readable for `count` elements of `datatype` and left unchanged until the request
/// completes; `datatype` is a valid host datatype; `request` points at a writable
/// `EP_Request` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Irsend(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    send_nonblocking(comm, buf, count, datatype, dest, tag, false, request)
}
