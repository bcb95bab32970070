//! Direct mode: point-to-point on communicators with exactly one endpoint in each of several
//! processes, through host point-to-point with host matching.
//!
//! Such a communicator is a host communicator in disguise: each endpoint is a process, so
//! every message crosses processes and MPI's matching (source, tag, context, non-overtaking,
//! wildcards, matched probes) can be the host's. Its point-to-point calls therefore go to a
//! host communicator of their own ([`DirectComm`], in `CommShared::direct`) whose rank `r` is
//! endpoint rank `r` (made with `MPI_Comm_split` keyed by the endpoint rank), with the user's
//! tag as the host tag, and no header, no pre-posted receive and no engine matching: the
//! latency of plain MPI plus the C boundary.
//!
//! Only hosts whose semantics match EPMPI's qualify ([`host_supports`]): every `int` tag
//! (`MPI_TAG_UB` = 2^31 - 1) and errors returned through the communicator's handler. Open MPI
//! does; MPICH 4.0 does neither (see `host_shim.c`), so its communicators keep the engine's
//! path. Only user point-to-point travels there, so the host's wildcards see nothing else; the
//! engine's own messages (intercommunicator creation on a peer communicator) and collectives
//! keep the communicator's other host communicators.
//!
//! Receives never hand the user's buffer to the host before the message is known: Open MPI
//! 4.1.4 writes a message longer than the receive buffer past it whenever the message goes by
//! rendezvous (above the eager limit of the path, 4 KiB through shared memory) and the
//! receive datatype is contiguous, with `MPI_Recv`, `MPI_Irecv`, `MPI_Mrecv` and `MPI_Imrecv`
//! alike (measured with plain MPI: a 4,200-byte message into 16 bytes wrote 4,184 bytes past
//! them). So a receive takes its message with a matched probe (`MPI_Improbe`), compares its
//! length with the buffer and receives it (`MPI_Imrecv`) into the user's buffer when it fits,
//! else into a buffer of the message's length whose first part is unpacked into the user's
//! ([`transfer`]). A blocking receive with nothing else pending is that loop alone; a
//! nonblocking one waits in its communicator's queue, which keeps MPI's order among several
//! pending receives ([`queue`]).
//!
//! Blocking calls never block inside the host: they poll with `MPI_Improbe` and `MPI_Test`
//! (or `MPI_Iprobe`). Two reasons:
//! - Progress (MPI 4.1 section 3.5): the host progresses its own requests, but a thread
//!   blocked in a host call does not progress the receives posted on other endpoint
//!   communicators (by any thread) nor the orphaned requests of freed endpoints. A polling thread, once
//!   patient, progresses those as every other blocking call does.
//! - Speed: Open MPI's blocking receive under `MPI_THREAD_MULTIPLE` builds and destroys a
//!   condition variable and two mutexes per call (`ompi_sync_wait_mt`). Measured here (8 B
//!   ping-pong, `MPI_Irecv` + `MPI_Test` loop against `MPI_Recv`, same run): 0.86-0.90x. With
//!   `MPI_Recv` underneath, EPMPI's cross-process latency was 1.07-1.16x plain MPI's; polling
//!   brought it to 0.96-1.04x.
//!
//! The one exception is a standard blocking send of a small packet: `MPI_Send`, which the host
//! completes at once (eager) without any sync object.

mod queue;
mod transfer;

pub use queue::DirectComm;
pub use transfer::DirectMessage;

use super::datatype::UserBuf;
use super::envelope::{Pattern, ANY_SOURCE, ANY_TAG};
use super::message::Completion;
use super::transport::remote::BLOCKING_HOST_SEND_BYTES;
use super::backoff::Backoff;
use crate::error::EpResult;
use crate::host::{check, sys, HostComm, HostMessage, HostRequest, HOST};
use queue::Slot;
use std::os::raw::c_int;
use std::sync::Arc;
use transfer::Transfer;

/// True when the host MPI qualifies for direct mode (see the module notes).
pub fn host_supports() -> EpResult<bool> {
    Ok(HOST.direct_p2p != 0 && crate::host::tag_ub()? == c_int::MAX)
}

/// The pattern that matches every message.
const ANY: Pattern = Pattern {
    source: ANY_SOURCE,
    tag: ANY_TAG,
};

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

/// One `MPI_Improbe` for `pattern` on the direct host communicator `comm`: the message, taken
/// out of the host's matching, if one has arrived.
#[inline]
fn improbe(comm: HostComm, pattern: &Pattern) -> EpResult<Option<DirectMessage>> {
    let (source, tag) = host_pattern(pattern);
    let mut st = empty_status();
    let mut m = HostMessage(HOST.message_null);
    let mut flag = 0;
    // SAFETY: `comm` is a live direct host communicator; the host writes `flag`, `m.0` and
    // `st`, live locals.
    unsafe {
        check(
            sys::MPI_Improbe(source, tag, comm.0, &mut flag, &mut m.0, &mut st),
            "MPI_Improbe",
        )?
    };
    if flag == 0 {
        return Ok(None);
    }
    DirectMessage::new(m, &st).map(Some)
}

/// Polls a host request until it completes (see the module notes: never blocked in the host);
/// returns the host's return code of the completing `MPI_Test`.
fn poll_until_done(req: &mut HostRequest) -> c_int {
    let mut b = Backoff::new();
    loop {
        let mut flag = 0;
        // SAFETY: `req` is a started host request of the caller's (or null, which `MPI_Test`
        // accepts); the host writes it and `flag`, both live; the status is ignored.
        let rc = unsafe { sys::MPI_Test(&mut req.0, &mut flag, HOST.status_ignore) };
        if rc != 0 || flag != 0 {
            return rc;
        }
        b.snooze_after_polling();
    }
}

/// Matches the posted receives of every direct communicator in the process and completes the
/// orphaned transfers (see [`transfer`]): what a patient wait anywhere in the library calls
/// so that no receive waits on its owner's next call (MPI 4.1 section 3.5, progress). Errors
/// stay with the calls they belong to. Thread safety: any thread.
pub fn progress_elsewhere() {
    transfer::progress_orphans();
    queue::progress_waiting();
}

/// Starts a send of `buf` to rank `dest` with `tag` on the direct communicator `comm`: done
/// at once for blocking calls (returns `None`), else the host request to complete.
#[inline(always)]
pub fn start_send(
    comm: &DirectComm,
    dest: c_int,
    tag: c_int,
    buf: &UserBuf,
    sync: bool,
    blocking: bool,
) -> EpResult<Option<HostRequest>> {
    if blocking && !sync && buf.bytes() <= BLOCKING_HOST_SEND_BYTES {
        // SAFETY: a blocking send: the host reads `count` elements of `dtype` at `buf.addr`,
        // the user's buffer, valid by the calling function's contract; `comm.host` is the
        // communicator's direct host communicator, alive while the caller holds its endpoint.
        unsafe {
            check(
                sys::MPI_Send(buf.addr, buf.count, buf.dtype, dest, tag, comm.host.0),
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
            isend(buf.addr, buf.count, buf.dtype, dest, tag, comm.host.0, &mut r.0),
            "MPI_Isend",
        )?
    };
    Ok(Some(r))
}

/// Waits for a send started by [`start_send`].
pub fn wait_send(mut req: HostRequest) -> EpResult<()> {
    check(poll_until_done(&mut req), "MPI_Test (send)")
}

/// Blocking receive into `buf` of a message matching `pattern` (not `EP_PROC_NULL`) on the
/// direct communicator `comm` (MPI 4.1 section 3.2.4). A message longer than `buf` ends with
/// `ERR_TRUNCATE` in the completion and its first part in `buf`; nothing is written past it.
/// Errors: a failed host call. Thread safety: the endpoint's thread.
#[inline(always)]
pub fn recv(comm: &Arc<DirectComm>, pattern: &Pattern, buf: &UserBuf) -> EpResult<Completion> {
    if comm.queued() != 0 {
        return recv_queued(comm, pattern, buf);
    }
    let mut b = Backoff::new();
    let msg = loop {
        if let Some(m) = improbe(comm.host, pattern)? {
            break m;
        }
        b.snooze_after_polling();
    };
    Transfer::start(msg, buf)?.wait()
}

/// [`recv`] behind posted receives or taken messages: in posting order, as a nonblocking
/// receive and its wait.
#[cold]
fn recv_queued(comm: &Arc<DirectComm>, pattern: &Pattern, buf: &UserBuf) -> EpResult<Completion> {
    let mut r = post_recv(comm, pattern, buf);
    let mut b = Backoff::new();
    loop {
        if let Some(c) = r.test()? {
            return Ok(c);
        }
        b.snooze_after_polling();
    }
}

/// Posts a nonblocking receive of a message matching `pattern` (not `EP_PROC_NULL`) into
/// `buf` on the direct communicator `comm` (MPI 4.1 section 3.7.2); complete it through
/// [`DirectRecv::test`]. Thread safety: the endpoint's thread.
pub fn post_recv(comm: &Arc<DirectComm>, pattern: &Pattern, buf: &UserBuf) -> DirectRecv {
    let slot = Arc::new(Slot::posted(*pattern, *buf));
    comm.post(slot.clone());
    DirectRecv {
        comm: Some(comm.clone()),
        slot,
        freed: false,
    }
}

/// Envelope and size of the first message matching `pattern` on the direct communicator
/// `comm`, left in place (`EP_Iprobe`, `EP_Probe` when `blocking`: MPI 4.1 section 3.8.1). A
/// message a pending receive matches is not reported. Errors: a failed host call.
pub fn probe(comm: &DirectComm, pattern: &Pattern, blocking: bool) -> EpResult<Option<Completion>> {
    let mut b = Backoff::new();
    loop {
        let found = if comm.queued() == 0 {
            host_iprobe(comm.host, pattern)?
        } else {
            comm.peek_queued(pattern)?
        };
        if found.is_some() || !blocking {
            return Ok(found);
        }
        b.snooze_after_polling();
    }
}

/// One `MPI_Iprobe` on the host.
fn host_iprobe(comm: HostComm, pattern: &Pattern) -> EpResult<Option<Completion>> {
    let (source, tag) = host_pattern(pattern);
    let mut st = empty_status();
    let mut flag = 0;
    // SAFETY: `comm` is a live direct host communicator; the host writes `flag` and `st`,
    // live locals.
    unsafe {
        check(
            sys::MPI_Iprobe(source, tag, comm.0, &mut flag, &mut st),
            "MPI_Iprobe",
        )?
    };
    if flag == 0 {
        return Ok(None);
    }
    let bytes = transfer::status_bytes(&st)?;
    Ok(Some(Completion {
        source: st.MPI_SOURCE,
        tag: st.MPI_TAG,
        bytes,
        sent_bytes: bytes,
        ..Completion::default()
    }))
}

/// The first message matching `pattern` on the direct communicator `comm`, taken out of
/// matching (`EP_Improbe`, `EP_Mprobe` when `blocking`: MPI 4.1 section 3.8.2); its status is
/// [`DirectMessage::completion`]. A message a pending receive matches is not taken. Errors: a
/// failed host call.
pub fn mprobe(
    comm: &DirectComm,
    pattern: &Pattern,
    blocking: bool,
) -> EpResult<Option<DirectMessage>> {
    let mut b = Backoff::new();
    loop {
        let found = if comm.queued() == 0 {
            improbe(comm.host, pattern)?
        } else {
            comm.take_queued(pattern)?
        };
        if found.is_some() || !blocking {
            return Ok(found);
        }
        b.snooze_after_polling();
    }
}

/// Blocking receive of a message taken by [`mprobe`] into `buf` (MPI 4.1 section 3.8.3); a
/// longer message is truncated as in [`recv`]. Errors: a failed host call.
pub fn mrecv(msg: DirectMessage, buf: &UserBuf) -> EpResult<Completion> {
    Transfer::start(msg, buf)?.wait()
}

/// Nonblocking receive of a message taken by [`mprobe`] into `buf` (MPI 4.1 section 3.8.3).
/// Errors: a failed host call.
pub fn imrecv(msg: DirectMessage, buf: &UserBuf) -> EpResult<DirectRecv> {
    let t = Transfer::start(msg, buf)?;
    Ok(DirectRecv {
        comm: None,
        slot: Arc::new(Slot::receiving(*buf, t)),
        freed: false,
    })
}

/// A nonblocking direct receive. It owns its part of the host: while posted, its place in
/// the communicator's queue; once matched, its transfer (host request and overflow buffer).
/// Dropped while posted, it leaves the queue, unless its request was freed (`EP_Request_free`:
/// it then stays posted and completes into the user's buffer when it matches); dropped while
/// its transfer runs, the transfer goes on by itself (see [`transfer`]).
pub struct DirectRecv {
    /// The communicator whose queue holds the receive until it matches; `None` for a receive
    /// of a taken message (`EP_Imrecv`).
    comm: Option<Arc<DirectComm>>,
    slot: Arc<Slot>,
    freed: bool,
}

impl DirectRecv {
    /// The outcome once the receive is complete (matches it and tests it once otherwise).
    /// Errors: the receive's own failed host call, or a failed host probe of its communicator.
    pub fn test(&mut self) -> EpResult<Option<Completion>> {
        if let Some(c) = self.slot.test()? {
            return Ok(Some(c));
        }
        match &self.comm {
            Some(comm) if self.slot.is_posted() => {
                comm.progress()?;
                self.slot.test()
            }
            _ => Ok(None),
        }
    }

    /// Cancels the receive if it has not matched (`EP_Cancel`, MPI 4.1 section 3.8.4); the
    /// completion then says whether it was.
    pub fn cancel(&mut self) -> EpResult<()> {
        match &self.comm {
            Some(comm) => comm.cancel(&self.slot),
            None => Ok(()),
        }
    }

    /// Lets the receive complete on its own (`EP_Request_free` of an active request, MPI 4.1
    /// section 3.7.3): it stays posted when this is dropped.
    pub fn release(&mut self) {
        self.freed = true;
    }
}

impl Drop for DirectRecv {
    fn drop(&mut self) {
        if let (Some(comm), false) = (&self.comm, self.freed) {
            if self.slot.is_posted() {
                comm.withdraw(&self.slot);
            }
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

/// The direct communicator of an intracommunicator whose `nprocs` processes (several) each
/// have exactly one endpoint, `my_rank` being this process's: a host communicator of its own
/// with host rank = endpoint rank, whose errors are returned. Collective over `host`.
/// Errors: a failed host call.
pub fn create_comm(host: HostComm, my_rank: c_int) -> EpResult<Arc<DirectComm>> {
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
    Ok(Arc::new(DirectComm::new(c)))
}
