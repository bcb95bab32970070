//! Direct mode: point-to-point on communicators with exactly one endpoint in each of several
//! processes, through host point-to-point with host matching.
//!
//! Such a communicator is a host communicator in disguise: each endpoint is a process, so
//! every message crosses processes and MPI's matching (source, tag, context, non-overtaking,
//! wildcards, truncation, cancel, matched probes) is exactly the host's. Its
//! point-to-point calls therefore go to a host communicator of their own (`CommShared::direct`)
//! whose rank `r` is endpoint rank `r` (made with `MPI_Comm_split` keyed by the endpoint
//! rank), with the user's tag as the host tag, and no header, no pre-posted receive and no
//! engine matching: the latency of plain MPI plus the C boundary.
//!
//! Only hosts whose semantics match EPMPI's qualify ([`host_supports`]): every `int` tag
//! (`MPI_TAG_UB` = 2^31 - 1), and a truncated receive that holds the message's first part,
//! knows its length and returns its error through the communicator's handler. Open MPI does;
//! MPICH 4.0 does none of the three (see `host_shim.c`), so its communicators keep the
//! engine's path. Only user point-to-point travels there, so the host's wildcards see
//! nothing else; the engine's own messages (intercommunicator creation on a peer
//! communicator) and collectives keep the communicator's other host communicators.
//!
//! Blocking calls never block inside the host: they start the nonblocking host call and poll
//! it with `MPI_Test` (or `MPI_Iprobe`, `MPI_Improbe`). Two reasons:
//! - Progress (MPI 4.1 section 3.5): the host progresses its own requests, but a thread
//!   blocked in a host call does not progress the receives it posted on other endpoint
//!   communicators nor the orphaned requests of freed endpoints. A polling thread, once
//!   patient, progresses those as every other blocking call does.
//! - Speed: Open MPI's blocking receive under `MPI_THREAD_MULTIPLE` builds and destroys a
//!   condition variable and two mutexes per call (`ompi_sync_wait_mt`). Measured here (8 B
//!   ping-pong, `MPI_Irecv` + `MPI_Test` loop against `MPI_Recv`, same run): 0.86-0.90x. With
//!   `MPI_Recv` underneath, EPMPI's cross-process latency was 1.07-1.16x plain MPI's; polling
//!   brought it to 0.96-1.04x.
//!
//! The one exception is a standard blocking send of a small packet: `MPI_Send`, which the host
//! completes at once (eager) without any sync object.

use super::datatype::UserBuf;
use super::envelope::{Pattern, ANY_SOURCE, ANY_TAG};
use super::p2p::Completion;
use super::transport::remote::BLOCKING_HOST_SEND_BYTES;
use super::request::Backoff;
use crate::error::{EpResult, ERR_TRUNCATE};
use crate::host::{check, host_failed, sys, HostComm, HostMessage, HostRequest, HOST};
use std::os::raw::c_int;


/// True when the host MPI qualifies for direct mode (see the module notes).
pub fn host_supports() -> EpResult<bool> {
    Ok(HOST.direct_p2p != 0 && crate::host::tag_ub()? == c_int::MAX)
}

/// Host source and tag of a receive pattern (wildcards translated).
#[inline]
fn host_pattern(p: &Pattern) -> (c_int, c_int) {
    let source = if p.source == ANY_SOURCE {
        HOST.any_source
    } else {
        p.source
    };
    let tag = if p.tag == ANY_TAG {
        HOST.any_tag
    } else {
        p.tag
    };
    (source, tag)
}

#[inline]
fn empty_status() -> sys::MPI_Status {
    // SAFETY: MPI_Status is plain integers.
    unsafe { std::mem::zeroed() }
}

/// How a host receive (into `capacity` bytes) or probe (`None`) ended, from its return code
/// and status. The host's source is the endpoint rank (see the module notes); its count is
/// the message's length, truncated or not.
fn completion(
    rc: c_int,
    st: &sys::MPI_Status,
    capacity: Option<usize>,
    what: &str,
) -> EpResult<Completion> {
    let error = if rc == 0 {
        0
    } else {
        truncation_or_fail(rc, what)?
    };
    let mut cancelled = 0;
    let mut bytes: sys::MPI_Count = 0;
    // SAFETY: `st` is a status the host filled for a completed receive or a probe; the host
    // writes `cancelled` and `bytes`, live locals.
    unsafe {
        check(
            sys::MPI_Test_cancelled(st, &mut cancelled),
            "MPI_Test_cancelled",
        )?;
        if cancelled == 0 {
            check(
                sys::MPI_Get_elements_x(st, HOST.byte, &mut bytes),
                "MPI_Get_elements_x",
            )?;
        }
    }
    if cancelled != 0 {
        return Ok(Completion {
            cancelled: true,
            ..Completion::default()
        });
    }
    let sent = bytes.max(0) as u64;
    let received = capacity.map_or(sent, |c| sent.min(c as u64));
    Ok(Completion {
        source: st.MPI_SOURCE,
        tag: st.MPI_TAG,
        bytes: received,
        error,
        sent_bytes: sent,
        cancelled: false,
    })
}

/// `ERR_TRUNCATE` when the host's error is a truncation; any other host error fails the call.
#[cold]
fn truncation_or_fail(rc: c_int, what: &str) -> EpResult<c_int> {
    let mut class = 0;
    // SAFETY: any code the host returned is valid input; the host writes `class`, a live local.
    unsafe { sys::MPI_Error_class(rc, &mut class) };
    if class == HOST.err_truncate {
        Ok(ERR_TRUNCATE)
    } else {
        Err(host_failed(rc, what))
    }
}

/// Polls a host request until it completes (see the module notes: never blocked in the host);
/// returns the host's return code of the completing `MPI_Test`.
fn poll_until_done(req: &mut HostRequest, st: &mut sys::MPI_Status) -> c_int {
    let mut b = Backoff::new();
    loop {
        let mut flag = 0;
        // SAFETY: `req` is a started host request of the caller's (or null, which `MPI_Test`
        // accepts); the host writes it, `flag` and `*st`, all live.
        let rc = unsafe { sys::MPI_Test(&mut req.0, &mut flag, st) };
        if rc != 0 || flag != 0 {
            return rc;
        }
        b.snooze_after_polling();
    }
}

/// Starts a send of `buf` to rank `dest` with `tag` on the direct host communicator `comm`:
/// done at once for blocking calls (returns `None`), else the host request to complete.
#[inline(always)]
pub fn start_send(
    comm: HostComm,
    dest: c_int,
    tag: c_int,
    buf: &UserBuf,
    sync: bool,
    blocking: bool,
) -> EpResult<Option<HostRequest>> {
    if blocking && !sync && buf.bytes() <= BLOCKING_HOST_SEND_BYTES {
        // SAFETY: a blocking send: the host reads `count` elements of `dtype` at `buf.addr`,
        // the user's buffer, valid by the calling function's contract; `comm` is the communicator's
        // direct host communicator, alive while the caller holds its endpoint.
        unsafe {
            check(
                sys::MPI_Send(buf.addr, buf.count, buf.dtype, dest, tag, comm.0),
                "MPI_Send",
            )?
        };
        return Ok(None);
    }
    let mut r = HostRequest(HOST.request_null);
    let isend = if sync {
        sys::MPI_Issend
    } else {
        sys::MPI_Isend
    };
    // SAFETY: the host reads the user's buffer (`count` elements of `dtype` at `buf.addr`)
    // until the returned request completes; the user keeps it valid and unchanged until then
    // (MPI 4.1 section 3.7.2). The host writes `r`, a live local.
    unsafe {
        check(
            isend(buf.addr, buf.count, buf.dtype, dest, tag, comm.0, &mut r.0),
            "MPI_Isend",
        )?
    };
    Ok(Some(r))
}

/// Waits for a send started by [`start_send`].
pub fn wait_send(mut req: HostRequest) -> EpResult<()> {
    let mut st = empty_status();
    check(poll_until_done(&mut req, &mut st), "MPI_Test (send)")
}

/// Blocking receive into `buf` of a message matching `pattern` (not `EP_PROC_NULL`). Without
/// `want_status` a receive that ends well returns an empty completion (reading the host's
/// status costs two host calls).
#[inline(always)]
pub fn recv(
    comm: HostComm,
    pattern: &Pattern,
    buf: &UserBuf,
    want_status: bool,
) -> EpResult<Completion> {
    let (source, tag) = host_pattern(pattern);
    let mut st = empty_status();
    let mut r = start_irecv(comm, source, tag, buf)?;
    let rc = poll_until_done(&mut r, &mut st);
    if rc == 0 && !want_status {
        return Ok(Completion::default());
    }
    completion(rc, &st, Some(buf.bytes()), "MPI_Recv")
}

/// Posts a nonblocking receive; complete it through [`DirectRecv::test`].
pub fn post_recv(comm: HostComm, pattern: &Pattern, buf: &UserBuf) -> EpResult<DirectRecv> {
    let (source, tag) = host_pattern(pattern);
    Ok(DirectRecv {
        request: start_irecv(comm, source, tag, buf)?,
        capacity: buf.bytes(),
        done: None,
    })
}

/// Envelope and size of the first matching message, left in place; `blocking` waits for one.
pub fn probe(comm: HostComm, pattern: &Pattern, blocking: bool) -> EpResult<Option<Completion>> {
    let (source, tag) = host_pattern(pattern);
    let mut st = empty_status();
    let mut b = Backoff::new();
    loop {
        let mut flag = 0;
        // SAFETY: `comm` is a live direct host communicator; the host writes `flag` and `st`,
        // live locals.
        unsafe {
            check(
                sys::MPI_Iprobe(source, tag, comm.0, &mut flag, &mut st),
                "MPI_Iprobe",
            )?
        };
        if flag != 0 {
            return completion(0, &st, None, "MPI_Iprobe").map(Some);
        }
        if !blocking {
            return Ok(None);
        }
        b.snooze_after_polling();
    }
}

/// The first matching message, taken out of matching (`EP_Improbe`, `EP_Mprobe` when
/// `blocking`): the host's message handle and the message's status.
pub fn mprobe(
    comm: HostComm,
    pattern: &Pattern,
    blocking: bool,
) -> EpResult<Option<(HostMessage, Completion)>> {
    let (source, tag) = host_pattern(pattern);
    let mut st = empty_status();
    let mut m = HostMessage(HOST.message_null);
    let mut b = Backoff::new();
    loop {
        let mut flag = 0;
        // SAFETY: `comm` is a live direct host communicator; the host writes `flag`, `m.0` and
        // `st`, live locals.
        unsafe {
            check(
                sys::MPI_Improbe(source, tag, comm.0, &mut flag, &mut m.0, &mut st),
                "MPI_Improbe",
            )?
        };
        if flag != 0 {
            return Ok(Some((m, completion(0, &st, None, "MPI_Improbe")?)));
        }
        if !blocking {
            return Ok(None);
        }
        b.snooze_after_polling();
    }
}

/// Blocking receive of a message taken by [`mprobe`].
pub fn mrecv(mut m: HostMessage, buf: &UserBuf) -> EpResult<Completion> {
    let mut st = empty_status();
    let mut r = start_imrecv(&mut m, buf)?;
    let rc = poll_until_done(&mut r, &mut st);
    completion(rc, &st, Some(buf.bytes()), "MPI_Mrecv")
}

/// Nonblocking receive of a message taken by [`mprobe`].
pub fn imrecv(mut m: HostMessage, buf: &UserBuf) -> EpResult<DirectRecv> {
    Ok(DirectRecv {
        request: start_imrecv(&mut m, buf)?,
        capacity: buf.bytes(),
        done: None,
    })
}

/// `MPI_Irecv` into `buf` from host `source` with host `tag`.
fn start_irecv(comm: HostComm, source: c_int, tag: c_int, buf: &UserBuf) -> EpResult<HostRequest> {
    let mut r = HostRequest(HOST.request_null);
    // SAFETY: the host writes the received message into the user's buffer, valid for `count`
    // elements of `dtype` until the receive completes (MPI 4.1 section 3.7.2), and `r`, a live
    // local. This needs the host to write no more than `count` elements when the message is longer
    // (MPI's rule), which Open MPI 4.1.4 breaks for truncated messages.
    unsafe { check(sys::MPI_Irecv(buf.addr, buf.count, buf.dtype, source, tag, comm.0, &mut r.0), "MPI_Irecv")? };
    Ok(r)
}

/// `MPI_Imrecv` of a taken message into `buf`.
fn start_imrecv(m: &mut HostMessage, buf: &UserBuf) -> EpResult<HostRequest> {
    let mut r = HostRequest(HOST.request_null);
    // SAFETY: as in `start_irecv`: the host writes at most `count` elements of `dtype` into
    // the user's buffer, valid until the receive completes (with the same caveat on Open MPI's
    // truncation), and `m.0` (set to `MPI_MESSAGE_NULL`) and `r`, both live.
    unsafe {
        check(
            sys::MPI_Imrecv(buf.addr, buf.count, buf.dtype, &mut m.0, &mut r.0),
            "MPI_Imrecv",
        )?
    };
    Ok(r)
}

/// A nonblocking direct receive: the host request until it completes, then the outcome.
pub struct DirectRecv {
    request: HostRequest,
    /// The receive buffer's size in bytes.
    capacity: usize,
    done: Option<Completion>,
}

impl DirectRecv {
    /// The outcome once the host has completed the receive (tests it once otherwise).
    pub fn test(&mut self) -> EpResult<Option<Completion>> {
        if let Some(c) = self.done {
            return Ok(Some(c));
        }
        let mut flag = 0;
        let mut st = empty_status();
        // SAFETY: `self.request` is this receive's host request (null once complete, which
        // `MPI_Test` accepts); the host writes it, `flag` and `st`, all live.
        let rc = unsafe { sys::MPI_Test(&mut self.request.0, &mut flag, &mut st) };
        if rc == 0 && flag == 0 {
            return Ok(None);
        }
        let c = completion(rc, &st, Some(self.capacity), "MPI_Test")?;
        self.done = Some(c);
        Ok(Some(c))
    }

    /// Asks the host to cancel the receive if it has not matched (`EP_Cancel`); the
    /// completion then says whether it was.
    pub fn cancel(&mut self) -> EpResult<()> {
        if self.done.is_none() {
            // SAFETY: `self.request` is this receive's active host request (not yet complete).
            unsafe { check(sys::MPI_Cancel(&mut self.request.0), "MPI_Cancel")? };
        }
        Ok(())
    }

    /// Lets the host complete the receive on its own (`EP_Request_free` of an active request).
    pub fn release(&mut self) {
        if self.done.is_none() && !self.request.is_null() {
            // SAFETY: `self.request` is this receive's active host request, which the host completes
            // on its own afterwards; the host sets the handle to `MPI_REQUEST_NULL`.
            unsafe { sys::MPI_Request_free(&mut self.request.0) };
        }
    }
}

/// Tests a direct send's host request once: true when complete (the request is then null).
pub fn test_send(req: &mut HostRequest) -> EpResult<bool> {
    if req.is_null() {
        return Ok(true);
    }
    let mut flag = 0;
    // SAFETY: `req` is a started send request (not null, checked above); the host writes it
    // and `flag`, and the status is ignored.
    unsafe {
        check(
            sys::MPI_Test(&mut req.0, &mut flag, HOST.status_ignore),
            "MPI_Test (send)",
        )?
    };
    Ok(flag != 0)
}

/// A direct host communicator for an intracommunicator whose `nprocs` processes (several)
/// each have exactly one endpoint, `my_rank` being this process's: host rank = endpoint rank,
/// errors returned (truncation is reported to the caller, not fatal). Collective over `host`.
pub fn create_comm(host: HostComm, my_rank: c_int) -> EpResult<HostComm> {
    let mut c = HostComm(HOST.comm_null);
    // SAFETY: `host` is the caller's live host communicator; the host writes `c.0`, a live
    // local, before the second call reads it.
    unsafe {
        check(
            sys::MPI_Comm_split(host.0, 0, my_rank, &mut c.0),
            "MPI_Comm_split (direct)",
        )?;
        if let Err(e) = check(
            sys::MPI_Comm_set_errhandler(c.0, HOST.errors_return),
            "MPI_Comm_set_errhandler",
        ) {
            crate::host::free_comm(c);
            return Err(e);
        }
    }
    Ok(c)
}
