//! Send-receive in place and nonblocking send-receive (MPI 4.1 section 3.10):
//! `EP_Sendrecv_replace`, `EP_Isendrecv`, `EP_Isendrecv_replace`. The in-place forms pack the
//! outgoing data into a temporary first, so the receive may write the buffer at once and any
//! datatype works; the packed bytes go out as `MPI_PACKED`, which a receive of any datatype
//! with the same signature matches (MPI 4.1 section 5.2.2).

use super::boundary::out;
use super::p2p_api::{check_recv_pattern, check_send_tag, post_recv, recv_then_wait_send, start_send};
use super::types::*;
use crate::engine::comm::Endpoint;
use crate::engine::datatype::UserBuf;
use crate::engine::envelope::Pattern;
use crate::engine::p2p::SendState;
use crate::engine::request::{Op, Request, SendRecvOp};
use crate::ep_err;
use crate::error::{EpResult, ERR_COUNT};
use crate::handles::{endpoint_ref, new_request};
use crate::host::sys::MPI_Datatype;
use crate::host::HOST;
use epmpi_macros::c_export;
use std::os::raw::{c_int, c_void};

/// Checks the arguments of an in-place send-receive, packs the outgoing data (nothing for
/// `EP_PROC_NULL`) and starts its send: the receive's pattern and buffer, the send, and the
/// packed bytes it reads until it completes.
///
/// # Safety
/// `buf` is readable and writable for `count` elements of `datatype` until the operation
/// completes; `datatype` is a valid host datatype.
#[allow(clippy::too_many_arguments, reason = "MPI's send-receive-replace arguments")]
unsafe fn start_replace(
    ep: &Endpoint,
    buf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    sendtag: c_int,
    source: c_int,
    recvtag: c_int,
) -> EpResult<(Pattern, UserBuf, SendState, Vec<u8>)> {
    let pattern = check_recv_pattern(ep, source, recvtag)?;
    check_send_tag(sendtag)?;
    // SAFETY: this function's contract.
    let ubuf = unsafe { UserBuf::new(buf, count, datatype)? };
    let mut packed = Vec::new();
    if dest != EP_PROC_NULL {
        ubuf.pack_into(&mut packed)?;
    }
    let len = c_int::try_from(packed.len()).map_err(|_| ep_err!(ERR_COUNT, "more than 2^31-1 bytes to send"))?;
    // SAFETY: `packed` holds `len` bytes; the caller keeps it (its heap memory does not move
    // with it) until the send completes.
    let s = unsafe { start_send(ep, packed.as_ptr() as *const c_void, len, HOST.packed, dest, sendtag, false, false)? };
    Ok((pattern, ubuf, s, packed))
}

/// Sends the `count` elements of `datatype` in `buf` to `dest` with `sendtag` and receives
/// into the same buffer a message from `source` with `recvtag` (MPI 4.1 section 3.10.2):
/// the data sent is what the buffer held before the call; the message received may be
/// shorter than the buffer, and any datatype works (the outgoing data is packed into a
/// temporary first). `dest` and `source` may be `EP_PROC_NULL` (nothing sent; nothing
/// received, the buffer untouched and the status that of `EP_PROC_NULL`), `source` and
/// `recvtag` the wildcards. `status` may be `EP_STATUS_IGNORE`.
/// Errors: `EP_ERR_TRUNCATE` (the received message is longer than the buffer; the status is
/// filled and the send has completed), `EP_ERR_COMM`, `EP_ERR_COUNT`, `EP_ERR_TYPE`,
/// `EP_ERR_BUFFER`, `EP_ERR_RANK`, `EP_ERR_TAG`; an argument error sends and receives
/// nothing. Thread safety: one thread per endpoint at a time.
///
/// # Safety
/// `buf` is readable and writable for `count` elements of `datatype` for the call;
/// `datatype` is a valid host datatype; `status` is `EP_STATUS_IGNORE` (NULL) or points at a
/// writable `EP_Status`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Sendrecv_replace(
    buf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    sendtag: c_int,
    source: c_int,
    recvtag: c_int,
    comm: EP_Comm,
    status: *mut EP_Status,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    let (pattern, ubuf, s, packed) = start_replace(&ep, buf, count, datatype, dest, sendtag, source, recvtag)?;
    let done = recv_then_wait_send(&ep, pattern, ubuf, s, status);
    drop(packed);
    done
}

/// Nonblocking send-receive (MPI 4.1 section 3.10.1, MPI 4.0): starts the send of
/// `sendcount` elements of `sendtype` from `sendbuf` to `dest` and the receive of at most
/// `recvcount` elements of `recvtype` into `recvbuf` from `source`; `*request` completes when
/// both have, with the receive's status (truncation reported then). Peers may be
/// `EP_PROC_NULL`, `source` and `recvtag` the wildcards; the buffers must not overlap.
/// Errors: those of `EP_Isend` and `EP_Irecv`; an argument error starts nothing.
/// Thread safety: one thread per endpoint at a time.
///
/// # Safety
/// `sendbuf` is readable for `sendcount` elements of `sendtype` and `recvbuf` writable for
/// `recvcount` elements of `recvtype`, both untouched by the caller until the request
/// completes; both datatypes are valid host datatypes; `request` points at a writable
/// `EP_Request` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Isendrecv(
    sendbuf: *const c_void,
    sendcount: c_int,
    sendtype: MPI_Datatype,
    dest: c_int,
    sendtag: c_int,
    recvbuf: *mut c_void,
    recvcount: c_int,
    recvtype: MPI_Datatype,
    source: c_int,
    recvtag: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    let req = out(request, "request")?;
    let pattern = check_recv_pattern(&ep, source, recvtag)?;
    let rbuf = UserBuf::new(recvbuf, recvcount, recvtype)?;
    let s = start_send(&ep, sendbuf, sendcount, sendtype, dest, sendtag, false, false)?;
    let recv = post_recv(&ep, pattern, rbuf, false)?;
    let op = SendRecvOp { send: Op::Send(s), recv, _packed: Vec::new() };
    *req = new_request(Request::new(ep.to_arc(), Op::SendRecv(Box::new(op))))?;
    Ok(())
}

/// Nonblocking send-receive in place (MPI 4.1 section 3.10.2, MPI 4.0): as
/// `EP_Sendrecv_replace` (the data sent is the buffer's at the call), completed by `*request`
/// with the receive's status. Errors: those of `EP_Sendrecv_replace` (truncation reported at
/// completion), `EP_ERR_ARG` for a NULL `request`.
///
/// # Safety
/// `buf` is readable and writable for `count` elements of `datatype` and untouched by the
/// caller until the request completes; `datatype` is a valid host datatype; `request` points
/// at a writable `EP_Request` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Isendrecv_replace(
    buf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    sendtag: c_int,
    source: c_int,
    recvtag: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    let req = out(request, "request")?;
    let (pattern, ubuf, s, packed) = start_replace(&ep, buf, count, datatype, dest, sendtag, source, recvtag)?;
    let recv = post_recv(&ep, pattern, ubuf, false)?;
    let op = SendRecvOp { send: Op::Send(s), recv, _packed: packed };
    *req = new_request(Request::new(ep.to_arc(), Op::SendRecv(Box::new(op))))?;
    Ok(())
}
