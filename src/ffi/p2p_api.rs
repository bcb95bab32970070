//! Point-to-point calls (MPI 4.1 chapter 3). Ranks are endpoint ranks of the communicator;
//! counts are in elements of the host datatype; tags go from 0 to `EP_TAG_UB` (2^31 - 1).
//! Communicators with one endpoint per process run in direct mode on Open MPI
//! (`crate::engine::direct`).

use super::boundary::{completion_error, input, out, status_bytes, write_status};
use crate::handles::{endpoint_ref, message, new_request, MessageObj, Taken, MESSAGES};
use super::types::*;
use crate::engine::comm::Endpoint;
use crate::engine::datatype::{type_info, HeldType, UserBuf};
use crate::engine::direct;
use crate::engine::envelope::{Envelope, Pattern};
use crate::engine::p2p::{self, Completion, RecvOp, SendState};
use crate::engine::request::{self, Backoff, Op, Request};
use crate::error::{EpResult, ERR_INTERN, ERR_RANK, ERR_TAG};
use crate::host::sys::MPI_Datatype;
use epmpi_macros::c_export;
use crate::ep_err;
use std::os::raw::{c_int, c_void};
use std::sync::Arc;

#[inline]
pub(super) fn check_send_tag(tag: c_int) -> EpResult<()> {
    if tag < 0 {
        return Err(ep_err!(
            ERR_TAG,
            "send tag {tag} is negative (tags go from 0 to EP_TAG_UB)"
        ));
    }
    Ok(())
}

#[inline(always)]
pub(super) fn check_recv_pattern(ep: &Endpoint, source: c_int, tag: c_int) -> EpResult<Pattern> {
    let size = ep.shared.peer_map(ep.local).size() as c_int;
    let bad_tag = tag < 0 && tag != EP_ANY_TAG;
    let bad_source = source != EP_ANY_SOURCE && source != EP_PROC_NULL && !(0..size).contains(&source);
    if bad_tag || bad_source {
        return Err(bad_recv_pattern(source, tag, size));
    }
    Ok(Pattern { source, tag })
}

/// The error of [`check_recv_pattern`], out of line so that the check inlines.
#[cold]
#[inline(never)]
fn bad_recv_pattern(source: c_int, tag: c_int, size: c_int) -> crate::error::EpError {
    if tag < 0 && tag != EP_ANY_TAG {
        ep_err!(ERR_TAG, "receive tag {tag} is negative and not EP_ANY_TAG")
    } else {
        ep_err!(ERR_RANK, "source rank {source} is outside 0..{size}")
    }
}

/// Starts a send of any mode; the one path behind every send call (inlined into each: the
/// calls' prologues and epilogues were a tenth of a small send's instructions).
///
/// # Safety
/// The buffer arguments are the user's: valid for their counts and datatypes until the
/// operation completes (MPI 4.1 section 3.7.2), as the calling C function's contract says.
#[inline(always)]
#[allow(clippy::too_many_arguments, reason = "MPI's send arguments plus the mode, passed in registers on the hot path")]
pub(super) unsafe fn start_send(
    ep: &Endpoint,
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    sync: bool,
    blocking: bool,
) -> EpResult<SendState> {
    check_send_tag(tag)?;
    let ubuf = UserBuf::new(buf, count, datatype)?;
    if dest == EP_PROC_NULL {
        return Ok(SendState::Done);
    }
    let shared = &ep.shared;
    let loc = shared.peer_location(ep.local, dest).ok_or_else(|| {
        ep_err!(
            ERR_RANK,
            "destination rank {dest} is outside 0..{}",
            shared.peer_map(ep.local).size()
        )
    })?;
    if let Some(h) = &shared.direct {
        return Ok(
            match direct::start_send(h, dest, tag, &ubuf, sync, blocking)? {
                None => SendState::Done,
                Some(r) => SendState::Direct(r),
            },
        );
    }
    p2p::start_send(
        shared,
        ep.local,
        loc,
        Envelope {
            source: ep.rank,
            tag,
        },
        ubuf,
        sync,
        blocking,
    )
}

/// A blocking send of any mode.
///
/// # Safety
/// As for [`start_send`].
#[inline(always)]
pub(super) unsafe fn send_blocking(
    comm: EP_Comm,
    buf: *const c_void,
    count: c_int,
    dt: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    sync: bool,
) -> EpResult<()> {
    let ep = endpoint_ref(comm)?;
    let s = start_send(&ep, buf, count, dt, dest, tag, sync, true)?;
    request::wait_send(&ep, s)
}

/// A nonblocking send of any mode; `req` receives its request.
///
/// # Safety
/// As for [`start_send`].
#[allow(clippy::too_many_arguments, reason = "MPI's nonblocking send arguments plus the mode")]
pub(super) unsafe fn send_nonblocking(
    comm: EP_Comm,
    buf: *const c_void,
    count: c_int,
    dt: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    sync: bool,
    req: *mut EP_Request,
) -> EpResult<()> {
    let ep = endpoint_ref(comm)?;
    let req = out(req, "request")?;
    *req = match start_send(&ep, buf, count, dt, dest, tag, sync, false)? {
        SendState::Done => new_request(Request::complete_from_start(&ep))?,
        s => new_request(Request::new(ep.to_arc(), Op::Send(s)))?,
    };
    Ok(())
}

/// Standard-mode blocking send of `count` elements of `datatype` from `buf` to rank `dest`
/// (or `EP_PROC_NULL`) with `tag` (0..=`EP_TAG_UB`) (MPI 4.1 section 3.2.1). Small messages are
/// buffered (eager); large ones may wait for the matching receive.
/// Errors: `EP_ERR_COMM`, `EP_ERR_COUNT` (negative), `EP_ERR_TYPE`, `EP_ERR_BUFFER` (NULL with
/// count > 0), `EP_ERR_RANK`, `EP_ERR_TAG`. Thread safety: one thread per endpoint at a time.
///
/// # Safety
/// `buf` is readable for `count` elements of `datatype` for the call (MPI 4.1 section 3.2);
/// `datatype` is a valid host datatype.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Send(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: EP_Comm,
) -> c_int {
    send_blocking(comm, buf, count, datatype, dest, tag, false)
}

/// Synchronous-mode blocking send: returns once the matching receive has started (MPI 4.1
/// section 3.4). Arguments and errors as `EP_Send`.
///
/// # Safety
/// `buf` is readable for `count` elements of `datatype` for the call (MPI 4.1 section 3.2);
/// `datatype` is a valid host datatype.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Ssend(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: EP_Comm,
) -> c_int {
    send_blocking(comm, buf, count, datatype, dest, tag, true)
}

/// Nonblocking standard-mode send (MPI 4.1 section 3.7.2): `*request` receives a handle to
/// complete with `EP_Wait`/`EP_Test`...; `buf` must not change until then. The program may
/// free a derived `datatype` meanwhile (MPI 4.1 section 5.1.9): a send that its receiver
/// copies later keeps a copy of it. Arguments and errors as `EP_Send`, plus `EP_ERR_ARG` for a
/// NULL `request`.
///
/// # Safety
/// `buf` is readable for `count` elements of `datatype` and left unchanged until the request
/// completes (MPI 4.1 section 3.7.2); `datatype` is a valid host datatype; `request` points at
/// a writable `EP_Request` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Isend(
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

/// Nonblocking synchronous-mode send: completes once the matching receive has started
/// (MPI 4.1 section 3.7.2). Arguments and errors as `EP_Isend`.
///
/// # Safety
/// `buf` is readable for `count` elements of `datatype` and left unchanged until the request
/// completes (MPI 4.1 section 3.7.2); `datatype` is a valid host datatype; `request` points at
/// a writable `EP_Request` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Issend(
    buf: *const c_void,
    count: c_int,
    datatype: MPI_Datatype,
    dest: c_int,
    tag: c_int,
    comm: EP_Comm,
    request: *mut EP_Request,
) -> c_int {
    send_nonblocking(comm, buf, count, datatype, dest, tag, true, request)
}

/// A blocking receive on either path, its completion written to `out` (read back field by
/// field: see `p2p::catcher::Catcher::out`).
#[inline(always)]
pub(super) fn recv_blocking(
    ep: &Endpoint,
    pattern: Pattern,
    ubuf: UserBuf,
    out: &mut Completion,
) -> EpResult<()> {
    match &ep.shared.direct {
        Some(h) if pattern.source != EP_PROC_NULL => {
            *out = direct::recv(h, &pattern, &ubuf)?;
            Ok(())
        }
        _ => p2p::recv_blocking_into(&ep.shared, ep.local, pattern, ubuf, out),
    }
}

/// Blocking receive of at most `count` elements of `datatype` into `buf` from rank `source`
/// (or `EP_ANY_SOURCE`, `EP_PROC_NULL`) with `tag` (or `EP_ANY_TAG`) (MPI 4.1 section 3.2.4).
/// Messages from one source on one communicator match in the order they were sent.
/// `status` may be `EP_STATUS_IGNORE`.
/// Errors: `EP_ERR_TRUNCATE` when the message is longer than the buffer (the status is filled;
/// the buffer holds the message's first part and nothing past it changes), `EP_ERR_COMM`,
/// `EP_ERR_COUNT`, `EP_ERR_TYPE`, `EP_ERR_BUFFER`, `EP_ERR_RANK`, `EP_ERR_TAG`. Thread safety: one thread per endpoint.
///
/// # Safety
/// `buf` is writable for `count` elements of `datatype` for the call; `datatype` is a valid
/// host datatype; `status` is `EP_STATUS_IGNORE` (NULL) or points at a writable `EP_Status`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Recv(
    buf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    source: c_int,
    tag: c_int,
    comm: EP_Comm,
    status: *mut EP_Status,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    let pattern = check_recv_pattern(&ep, source, tag)?;
    let ubuf = UserBuf::new(buf, count, datatype)?;
    let mut c = Completion::default();
    recv_blocking(&ep, pattern, ubuf, &mut c)?;
    write_status(status, &c);
    completion_error(&c)
}

/// Nonblocking receive (MPI 4.1 section 3.7.2): arguments as `EP_Recv`, `*request` receives
/// the handle; truncation is reported by the completion call. The program may free a derived
/// `datatype` while the receive is pending (MPI 4.1 section 5.1.9): the receive keeps a copy
/// of it (three host calls in all; none for a predefined datatype). Errors as `EP_Recv` (but
/// `EP_ERR_TRUNCATE`), plus `EP_ERR_ARG` for a NULL `request`.
///
/// # Safety
/// `buf` is writable for `count` elements of `datatype` and not accessed by the caller until
/// the request completes (MPI 4.1 section 3.7.2); `datatype` is a valid host datatype;
/// `request` points at a writable `EP_Request` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Irecv(
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
    *req = new_request(Request::new(ep.to_arc(), post_recv(&ep, pattern, ubuf, false)?))?;
    Ok(())
}

/// Posts a nonblocking receive on either path (`EP_Irecv`, a round of `EP_Recv_init`). With
/// `type_held` false the receive keeps a duplicate of a derived datatype, which the program
/// may free while the receive is pending (MPI 4.1 section 5.1.9); true for a persistent
/// request, which holds one for its whole life.
pub(super) fn post_recv(ep: &Endpoint, pattern: Pattern, ubuf: UserBuf, type_held: bool) -> EpResult<Op> {
    Ok(match &ep.shared.direct {
        Some(h) if pattern.source != EP_PROC_NULL => Op::DirectRecv(direct::post_recv(h, &pattern, &ubuf, type_held)?),
        _ => Op::Recv(p2p::post_recv(&ep.shared, ep.local, pattern, ubuf, type_held)?),
    })
}

/// Sends one message and receives one, without deadlock against a matching `EP_Sendrecv`
/// (MPI 4.1 section 3.10). Send and receive buffers must not overlap. Errors: those of
/// `EP_Send` and `EP_Recv`.
///
/// # Safety
/// `sendbuf` is readable for `sendcount` elements of `sendtype` and `recvbuf` writable for
/// `recvcount` elements of `recvtype`, for the call (they must not overlap); both datatypes are
/// valid host datatypes; `status` is `EP_STATUS_IGNORE` (NULL) or points at a writable
/// `EP_Status`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Sendrecv(
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
    status: *mut EP_Status,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    let pattern = check_recv_pattern(&ep, source, recvtag)?;
    let rbuf = UserBuf::new(recvbuf, recvcount, recvtype)?;
    let s = start_send(
        &ep, sendbuf, sendcount, sendtype, dest, sendtag, false, false,
    )?;
    recv_then_wait_send(&ep, pattern, rbuf, s, status)
}

/// The end of a send-receive: the blocking receive, then the started send `s` waited for,
/// the status written.
///
/// # Safety
/// `status` is NULL or points at a writable `EP_Status`.
pub(super) unsafe fn recv_then_wait_send(
    ep: &Endpoint,
    pattern: Pattern,
    rbuf: UserBuf,
    s: SendState,
    status: *mut EP_Status,
) -> EpResult<()> {
    let mut c = Completion::default();
    // The send completes before the call returns, even when the receive failed: the
    // caller may then reuse its send buffer.
    let received = recv_blocking(ep, pattern, rbuf, &mut c);
    let sent = request::wait_send(ep, s);
    received?;
    sent?;
    // SAFETY: this function's contract.
    unsafe { write_status(status, &c) };
    completion_error(&c)
}

/// Fills a probe's optional status.
///
/// # Safety
/// `status` is NULL or points at a writable `EP_Status`.
unsafe fn probe_status(c: &Completion, status: *mut EP_Status) {
    // SAFETY: this function's contract.
    unsafe { write_status(status, c) };
}

/// Nonblocking probe (MPI 4.1 section 3.8.1): `*flag = 1` and `status` filled when a message
/// matching (`source`, `tag`) can be received, the message staying queued; `*flag = 0`
/// otherwise. Errors: `EP_ERR_COMM`, `EP_ERR_RANK`, `EP_ERR_TAG`, `EP_ERR_ARG`.
///
/// # Safety
/// `flag` points at a writable `int` (NULL gives `EP_ERR_ARG`); `status` is `EP_STATUS_IGNORE`
/// (NULL) or points at a writable `EP_Status`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Iprobe(
    source: c_int,
    tag: c_int,
    comm: EP_Comm,
    flag: *mut c_int,
    status: *mut EP_Status,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    let flag = out(flag, "flag")?;
    let pattern = check_recv_pattern(&ep, source, tag)?;
    if source == EP_PROC_NULL {
        *flag = 1;
        probe_status(&Completion::proc_null(), status);
        return Ok(());
    }
    let found = match &ep.shared.direct {
        Some(h) => direct::probe(h, &pattern, false)?,
        None => p2p::iprobe(&ep.shared, ep.local, pattern)?,
    };
    match found {
        Some(c) => {
            *flag = 1;
            probe_status(&c, status);
        }
        None => *flag = 0,
    }
    Ok(())
}

/// Blocking probe: waits for a message matching (`source`, `tag`) and fills `status`
/// without receiving it (MPI 4.1 section 3.8.1). Errors as `EP_Iprobe`.
///
/// # Safety
/// `status` is `EP_STATUS_IGNORE` (NULL) or points at a writable `EP_Status`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Probe(
    source: c_int,
    tag: c_int,
    comm: EP_Comm,
    status: *mut EP_Status,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    let pattern = check_recv_pattern(&ep, source, tag)?;
    if source == EP_PROC_NULL {
        probe_status(&Completion::proc_null(), status);
        return Ok(());
    }
    if let Some(h) = &ep.shared.direct {
        let c = direct::probe(h, &pattern, true)?.expect("a blocking probe finds a message");
        probe_status(&c, status);
        return Ok(());
    }
    let bell = p2p::bell_for(&ep.shared, ep.local, &pattern);
    let mut b = Backoff::new();
    loop {
        if let Some(c) = p2p::iprobe(&ep.shared, ep.local, pattern)? {
            probe_status(&c, status);
            return Ok(());
        }
        request::snooze_for(&mut b, bell);
    }
}

/// The first message matching (`source`, `tag`), taken out of matching into `*msg`
/// (`EP_Improbe`; `EP_Mprobe` when `blocking`).
///
/// # Safety
/// `status` is NULL or points at a writable `EP_Status`.
unsafe fn take_message(
    ep: Arc<Endpoint>,
    source: c_int,
    tag: c_int,
    blocking: bool,
    flag: &mut c_int,
    msg: &mut EP_Message,
    status: *mut EP_Status,
) -> EpResult<()> {
    let pattern = check_recv_pattern(&ep, source, tag)?;
    if source == EP_PROC_NULL {
        *flag = 1;
        *msg = EP_MESSAGE_NO_PROC;
        probe_status(&Completion::proc_null(), status);
        return Ok(());
    }
    let found = match &ep.shared.direct {
        Some(h) => direct::mprobe(h, &pattern, blocking)?.map(|m| {
            let c = m.completion();
            (
                Envelope {
                    source: c.source,
                    tag: c.tag,
                },
                Taken::Host(m),
                c,
            )
        }),
        None => p2p::improbe(&ep.shared, ep.local, pattern)?.map(|(envelope, payload)| {
            let b = payload.bytes();
            let c = Completion {
                source: envelope.source,
                tag: envelope.tag,
                bytes: b,
                sent_bytes: b,
                ..Completion::default()
            };
            (envelope, Taken::Engine(payload), c)
        }),
    };
    match found {
        Some((envelope, taken, c)) => {
            let obj = MessageObj {
                ep,
                envelope,
                taken: parking_lot::Mutex::new(Some(taken)),
            };
            *msg = MESSAGES
                .insert(Arc::new(obj))
                .ok_or_else(|| ep_err!(ERR_INTERN, "too many live messages"))?;
            *flag = 1;
            probe_status(&c, status);
        }
        None => *flag = 0,
    }
    Ok(())
}

/// Nonblocking matched probe (MPI 4.1 section 3.8.2): when a message matches, removes it from
/// matching, sets `*flag = 1`, `*message` to its handle (`EP_MESSAGE_NO_PROC` for
/// `EP_PROC_NULL`) and fills `status`; receive it with `EP_Mrecv`/`EP_Imrecv`.
/// Errors as `EP_Iprobe`.
///
/// # Safety
/// `flag` points at a writable `int` (NULL gives `EP_ERR_ARG`); `message` points at a writable
/// `EP_Message` (NULL gives `EP_ERR_ARG`); `status` is `EP_STATUS_IGNORE` (NULL) or points at a
/// writable `EP_Status`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Improbe(
    source: c_int,
    tag: c_int,
    comm: EP_Comm,
    flag: *mut c_int,
    message: *mut EP_Message,
    status: *mut EP_Status,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    let (flag, message) = (out(flag, "flag")?, out(message, "message")?);
    take_message(ep.to_arc(), source, tag, false, flag, message, status)
}

/// Blocking matched probe (MPI 4.1 section 3.8.2): waits for a matching message, then as
/// `EP_Improbe`. Errors as `EP_Iprobe`.
///
/// # Safety
/// `message` points at a writable `EP_Message` (NULL gives `EP_ERR_ARG`); `status` is
/// `EP_STATUS_IGNORE` (NULL) or points at a writable `EP_Status`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Mprobe(
    source: c_int,
    tag: c_int,
    comm: EP_Comm,
    message: *mut EP_Message,
    status: *mut EP_Status,
) -> c_int {
    let ep = endpoint_ref(comm)?;
    let message = out(message, "message")?;
    let pattern = check_recv_pattern(&ep, source, tag)?;
    let bell = p2p::bell_for(&ep.shared, ep.local, &pattern);
    let mut b = Backoff::new();
    loop {
        let mut flag = 0;
        take_message(ep.to_arc(), source, tag, true, &mut flag, message, status)?;
        if flag != 0 {
            return Ok(());
        }
        request::snooze_for(&mut b, bell);
    }
}

/// A matched message's receive, started.
enum Mrecv {
    /// Through the engine (no endpoint for `EP_MESSAGE_NO_PROC`).
    Engine(Option<Arc<Endpoint>>, Arc<RecvOp>),
    /// A direct-mode message, still in the host: its endpoint, the host message, the buffer
    /// and what keeps its datatype valid when it is a copy.
    Host(Arc<Endpoint>, direct::DirectMessage, UserBuf, Option<HeldType>),
}

/// Starts receiving a matched message into (`buf`, `count`, `datatype`).
///
/// # Safety
/// The buffer arguments are the user's: valid for their counts and datatypes until the
/// operation completes (MPI 4.1 section 3.7.2), as the calling C function's contract says.
unsafe fn start_mrecv(
    buf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    message_h: &mut EP_Message,
    nonblocking: bool,
) -> EpResult<Mrecv> {
    let ubuf = UserBuf::new(buf, count, datatype)?;
    if *message_h == EP_MESSAGE_NO_PROC {
        *message_h = EP_MESSAGE_NULL;
        return Ok(Mrecv::Engine(
            None,
            RecvOp::completed(ubuf, Completion::proc_null()),
        ));
    }
    // A nonblocking receive may unpack after its call returns, when the program may have freed
    // its datatype: a copy is made before the message leaves its handle, so that failing to
    // make one leaves the message to be received.
    let (ubuf, held) = if nonblocking { HeldType::hold_buf(ubuf)? } else { (ubuf, None) };
    let m = message(*message_h)?;
    MESSAGES.remove(*message_h).map_err(|_| {
        ep_err!(
            crate::error::ERR_REQUEST,
            "message handle {} was already received",
            *message_h
        )
    })?;
    *message_h = EP_MESSAGE_NULL;
    let taken = m
        .taken
        .lock()
        .take()
        .ok_or_else(|| ep_err!(ERR_INTERN, "message without payload"))?;
    match taken {
        Taken::Host(hm) => Ok(Mrecv::Host(m.ep.clone(), hm, ubuf, held)),
        Taken::Engine(payload) => {
            let recv = RecvOp::with_held(
                ubuf,
                held,
                Pattern {
                    source: m.envelope.source,
                    tag: m.envelope.tag,
                },
            );
            p2p::deliver(&m.ep.shared, &recv, &m.envelope, payload)?;
            Ok(Mrecv::Engine(Some(m.ep.clone()), recv))
        }
    }
}

/// Receives a message taken by `EP_Mprobe`/`EP_Improbe` (MPI 4.1 section 3.8.3); sets
/// `*message` to `EP_MESSAGE_NULL`. Errors: `EP_ERR_REQUEST` (invalid or already received
/// message), `EP_ERR_TRUNCATE`, `EP_ERR_COUNT`, `EP_ERR_TYPE`, `EP_ERR_BUFFER`.
///
/// # Safety
/// `buf` is writable for `count` elements of `datatype` for the call; `datatype` is a valid
/// host datatype; `message` points at a readable and writable `EP_Message` (NULL gives
/// `EP_ERR_ARG`); `status` is `EP_STATUS_IGNORE` (NULL) or points at a writable `EP_Status`.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Mrecv(
    buf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    message: *mut EP_Message,
    status: *mut EP_Status,
) -> c_int {
    let message = out(message, "message")?;
    let c = match start_mrecv(buf, count, datatype, message, false)? {
        Mrecv::Engine(Some(ep), recv) => {
            request::wait_recv_matched(&ep.shared, ep.local, &recv)?
        }
        Mrecv::Engine(None, recv) => recv.completion(),
        Mrecv::Host(_, hm, ubuf, _) => direct::mrecv(hm, &ubuf)?,
    };
    write_status(status, &c);
    completion_error(&c)
}

/// Nonblocking receive of a matched message (MPI 4.1 section 3.8.3): `*request` receives the
/// handle, `*message` becomes `EP_MESSAGE_NULL`. A derived `datatype` may be freed while the
/// receive is pending, as for `EP_Irecv`. Errors as `EP_Mrecv` (truncation is reported at
/// completion).
///
/// # Safety
/// `buf` is writable for `count` elements of `datatype` and not accessed by the caller until
/// the request completes (MPI 4.1 section 3.7.2); `datatype` is a valid host datatype;
/// `message` points at a readable and writable `EP_Message` and `request` points at a writable
/// `EP_Request` (NULL gives `EP_ERR_ARG`).
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Imrecv(
    buf: *mut c_void,
    count: c_int,
    datatype: MPI_Datatype,
    message: *mut EP_Message,
    request: *mut EP_Request,
) -> c_int {
    let message = out(message, "message")?;
    let req = out(request, "request")?;
    *req = new_request(match start_mrecv(buf, count, datatype, message, true)? {
        Mrecv::Engine(Some(ep), recv) => Request::new(ep, Op::Recv(recv)),
        Mrecv::Engine(None, recv) => Request::completed(Op::Recv(recv)),
        Mrecv::Host(ep, hm, ubuf, held) => {
            Request::new(ep, Op::DirectRecv(direct::imrecv(hm, &ubuf, held)?))
        }
    })?;
    Ok(())
}

/// Number of whole `datatype` elements received, from a status filled by a receive, probe
/// or completion call (MPI 4.1 section 3.2.5). `*count = EP_UNDEFINED` when the bytes are not
/// a whole number of elements. Errors: `EP_ERR_ARG` (NULL pointers), `EP_ERR_TYPE`.
/// Thread safety: any thread.
///
/// # Safety
/// `status` points at a readable `EP_Status` filled by EPMPI (NULL gives `EP_ERR_ARG`)
/// and `count` at a writable `int` (NULL gives `EP_ERR_ARG`); `datatype` is a valid host
/// datatype.
#[no_mangle]
#[c_export]
pub unsafe extern "C" fn EP_Get_count(
    status: *const EP_Status,
    datatype: MPI_Datatype,
    count: *mut c_int,
) -> c_int {
    let st = input(status, "status")?;
    let count = out(count, "count")?;
    let size = type_info(datatype)?.size as u64;
    let bytes = status_bytes(st);
    *count = match (size, bytes) {
        (0, _) => 0,
        (s, b) if b % s != 0 || b / s > c_int::MAX as u64 => EP_UNDEFINED,
        (s, b) => (b / s) as c_int,
    };
    Ok(())
}
