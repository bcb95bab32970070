//! Persistent point-to-point requests (MPI 4.1 section 3.9): `EP_Send_init` and the other
//! modes, `EP_Recv_init`, `EP_Start`, `EP_Startall`.
//!
//! An `_init` call checks its arguments and makes an inactive request (see
//! `crate::engine::persistent`); each `EP_Start` begins one round, the same operation as the
//! nonblocking call of that mode on the same arguments (so rounds match receives in the order
//! they start, like any sends of one endpoint). A completion call ends the round and leaves the
//! request inactive, its handle unchanged; `EP_Request_free` frees it (an active round still
//! completes). The buffer is read (sends) or written (receives) at each round: change its
//! contents between rounds, not during one. A derived datatype is duplicated at init and the
//! duplicate kept by the request, so the caller may free its own (MPI 4.1 section 5.1.9).

use super::boundary::out;
use super::bsend_api::bsend;
use super::p2p_api::{check_recv_pattern, check_send_tag, post_recv, start_send};
use super::types::*;
use crate::engine::comm::Endpoint;
use crate::engine::datatype::{HeldType, UserBuf};
use crate::engine::envelope::Pattern;
use crate::engine::p2p::{Drain, SendState};
use crate::engine::request::{Op, Request, Startable};
use crate::ep_err;
use crate::error::{EpResult, ERR_ARG, ERR_COUNT, ERR_RANK};
use crate::handles::{endpoint_ref, new_request, request};
use crate::host::sys::MPI_Datatype;
use epmpi_macros::c_export;
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

/// The mode of a persistent send.
#[derive(Clone, Copy)]
enum Mode {
    /// `EP_Send_init`, and `EP_Rsend_init` (ready mode sends as standard mode, see
    /// `EP_Rsend`).
    Standard,
    /// `EP_Ssend_init`.
    Synchronous,
    /// `EP_Bsend_init`.
    Buffered,
}

/// A persistent send: its buffer (checked at init) and envelope.
struct SendSpec {
    buf: UserBuf,
    /// The datatype of `buf`, kept for the request's life.
    _type: Option<HeldType>,
    dest: c_int,
    tag: c_int,
    mode: Mode,
}

impl Startable for SendSpec {
    fn start(&self, ep: &Arc<Endpoint>) -> EpResult<Op> {
        let b = &self.buf;
        // SAFETY: the buffer is the one given to the `_init` call, whose contract keeps it
        // valid and readable while the request exists (MPI 4.1 section 3.9).
        let s = unsafe {
            match self.mode {
                Mode::Buffered => {
                    bsend(ep, b.addr, b.count, b.dtype, self.dest, self.tag)?;
                    SendState::Done
                }
                Mode::Standard | Mode::Synchronous => {
                    let sync = matches!(self.mode, Mode::Synchronous);
                    start_send(ep, b.addr, b.count, b.dtype, self.dest, self.tag, sync, false)?
                }
            }
        };
        Ok(Op::Send(s))
    }
}

/// A persistent receive: its buffer (checked at init) and pattern.
struct RecvSpec {
    buf: UserBuf,
    /// The datatype of `buf`, kept for the request's life.
    _type: Option<HeldType>,
    pattern: Pattern,
}

impl Startable for RecvSpec {
    fn start(&self, ep: &Arc<Endpoint>) -> EpResult<Op> {
        // `buf` is on the request's own duplicate of a derived datatype.
        post_recv(ep, self.pattern, self.buf, true)
    }
}

/// Makes a persistent send of `mode` after checking its arguments as the send would.
///
/// # Safety
/// As the calling C function's contract says: `buf` stays valid for `count` elements of
/// `datatype` while the request exists.
#[allow(clippy::too_many_arguments, reason = "MPI's persistent send arguments plus the mode")]
unsafe fn send_init(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
    mode: Mode,
) -> EpResult<()> {
    let ep = endpoint_ref(comm)?;
    let req = out(request, "request")?;
    check_send_tag(tag)?;
    // SAFETY: this function's contract.
    let ubuf = unsafe { UserBuf::new(buf, count, datatype)? };
    let shared = &ep.shared;
    let to = match dest {
        EP_PROC_NULL => None,
        _ => Some(shared.peer_location(ep.local, dest).ok_or_else(|| {
            ep_err!(ERR_RANK, "destination rank {dest} is outside 0..{}", shared.peer_map(ep.local).size())
        })?),
    };
    // What testing a round pulls in: as for the send the round is (see `Request::new`).
    let drain = match to {
        Some(_) if shared.direct.is_some() && !matches!(mode, Mode::Buffered) => None,
        Some(loc) if loc.proc != shared.my_proc && !matches!(mode, Mode::Buffered) => Some(Drain::All),
        _ => Some(Drain::Local),
    };
    let (buf, _type) = HeldType::hold_buf(ubuf)?;
    let spec = SendSpec { buf, _type, dest, tag, mode };
    *req = new_request(Request::persistent(ep.to_arc(), Box::new(spec), drain))?;
    Ok(())
}

/// Makes a persistent standard-mode send request (MPI 4.1 section 3.9.1): inactive until
/// `EP_Start`; each round sends the `count` elements of `datatype` that `buf` holds at that
/// start to `dest` (or `EP_PROC_NULL`) with `tag`, as `EP_Isend` would. Complete each round
/// with `EP_Wait`/`EP_Test`..., which leave the handle set; free it with `EP_Request_free`.
/// Errors (at init, nothing made): `EP_ERR_COMM`, `EP_ERR_COUNT`, `EP_ERR_TYPE`,
/// `EP_ERR_BUFFER`, `EP_ERR_RANK`, `EP_ERR_TAG`, `EP_ERR_ARG` (NULL `request`). Thread
/// safety: one thread per endpoint at a time.
///
/// # Safety
/// `buf` stays readable for `count` elements of `datatype` while the request exists and
/// unchanged while a round is active; `datatype` is a valid host datatype (the request keeps
/// a duplicate: the caller may free it); `request` points at a writable `EP_Request` (NULL
/// gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Send_init(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    send_init(buf, count, datatype, dest, tag, comm, request, Mode::Standard)
}

/// Makes a persistent synchronous-mode send request (MPI 4.1 section 3.9.1): each round is
/// an `EP_Issend`, complete once the matching receive has started. Arguments and errors as
/// `EP_Send_init`.
///
/// # Safety
/// As for `EP_Send_init`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Ssend_init(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    send_init(buf, count, datatype, dest, tag, comm, request, Mode::Synchronous)
}

/// Makes a persistent buffered-mode send request (MPI 4.1 section 3.9.1): each `EP_Start`
/// performs an `EP_Bsend` of the buffer's contents (so the round is complete at once), and
/// fails with `EP_ERR_BUFFER` when the message does not fit in the attached buffer (the
/// request then stays inactive). Arguments and init errors as `EP_Send_init`.
///
/// # Safety
/// As for `EP_Send_init`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Bsend_init(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    send_init(buf, count, datatype, dest, tag, comm, request, Mode::Buffered)
}

/// Makes a persistent ready-mode send request (MPI 4.1 section 3.9.1). Ready mode sends as
/// standard mode here (see `EP_Rsend`). Arguments and errors as `EP_Send_init`.
///
/// # Safety
/// As for `EP_Send_init`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Rsend_init(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    send_init(buf, count, datatype, dest, tag, comm, request, Mode::Standard)
}

/// Makes a persistent receive request (MPI 4.1 section 3.9.1): inactive until `EP_Start`;
/// each round receives, as `EP_Irecv` would, at most `count` elements of `datatype` into
/// `buf` from `source` (or `EP_ANY_SOURCE`, `EP_PROC_NULL`) with `tag` (or `EP_ANY_TAG`);
/// the status of each round's completion says which message came, and truncation is
/// reported there. Errors (at init): `EP_ERR_COMM`, `EP_ERR_COUNT`, `EP_ERR_TYPE`,
/// `EP_ERR_BUFFER`, `EP_ERR_RANK`, `EP_ERR_TAG`, `EP_ERR_ARG`. Thread safety: one thread per
/// endpoint at a time.
///
/// # Safety
/// `buf` stays writable for `count` elements of `datatype` while the request exists and is
/// not accessed by the caller while a round is active; `datatype` is a valid host datatype
/// (the request keeps a duplicate: the caller may free it); `request` points at a writable
/// `EP_Request` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Recv_init(
    buf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    source: c_int,
    tag: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    let req = out(request, "request")?;
    let pattern = check_recv_pattern(&ep, source, tag)?;
    let ubuf = UserBuf::new(buf, count, datatype)?;
    let drain = match &ep.shared.direct {
        Some(_) if source != EP_PROC_NULL => None,
        _ => Some(Drain::for_pattern(&ep.shared, ep.local, &pattern)),
    };
    let (buf, _type) = HeldType::hold_buf(ubuf)?;
    let spec = RecvSpec { buf, _type, pattern };
    *req = new_request(Request::persistent(ep.to_arc(), Box::new(spec), drain))?;
    Ok(())
}

/// Starts one round of an inactive persistent request (MPI 4.1 section 3.9.2); the handle
/// is unchanged. Errors: `EP_ERR_REQUEST` (null, invalid or freed handle, a request that is
/// not persistent, or one already active), `EP_ERR_ARG` (NULL pointer), those of the round's
/// operation (`EP_ERR_BUFFER` for a buffered send that does not fit). A failed start leaves
/// the request inactive. Thread safety: one thread per endpoint at a time.
///
/// # Safety
/// `request` points at a readable `EP_Request` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Start(request: *mut EP_Request) -> c_int {
    let h = out(request, "request")?;
    crate::handles::request(*h)?.start()
}

/// Starts `count` persistent requests, in array order (MPI 4.1 section 3.9.2), as
/// `EP_Start` on each. Every handle is checked before any starts: an invalid, null,
/// nonpersistent or active request gives `EP_ERR_REQUEST` and starts none. A round that fails
/// to start stops the call with its error; the requests before it are started.
/// Errors: `EP_ERR_COUNT` (negative), `EP_ERR_ARG` (NULL array with `count` > 0), and those of
/// `EP_Start`.
///
/// # Safety
/// `array_of_requests` holds `count` readable `EP_Request`s (NULL only when `count` is 0).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Startall(count: c_int, array_of_requests: *mut EP_Request) -> c_int {
    if count < 0 {
        return Err(ep_err!(ERR_COUNT, "count {count} is negative"));
    }
    if count > 0 && array_of_requests.is_null() {
        return Err(ep_err!(ERR_ARG, "array_of_requests is NULL"));
    }
    let rs = (0..count as usize)
        .map(|i| {
            let r = request(*array_of_requests.add(i))?;
            if !r.is_persistent() || r.is_active() {
                return Err(ep_err!(
                    crate::error::ERR_REQUEST,
                    "request {i} of the array is {}",
                    if r.is_persistent() { "already active" } else { "not a persistent request" }
                ));
            }
            Ok(r)
        })
        .collect::<EpResult<Vec<_>>>()?;
    rs.iter().try_for_each(|r| r.start())
}
