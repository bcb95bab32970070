//! Direct mode: point-to-point on communicators with exactly one endpoint in each of several
//! processes, through host point-to-point with host matching.
//!
//! Such a communicator is a host communicator in disguise: each endpoint is a process, so
//! every message crosses processes and MPI's matching (source, tag, context, non-overtaking,
//! wildcards, matched probes) can be the host's. Its point-to-point calls therefore go to a
//! host communicator of their own ([`DirectComm`], in `CommShared::direct`) whose rank `r` is
//! endpoint rank `r` (made with `MPI_Comm_split` keyed by the endpoint rank), with the user's
//! tag as the host tag, and no engine header, no pre-posted receive and no engine matching:
//! the latency of plain MPI plus the C boundary.
//!
//! Only hosts whose semantics match EPMPI's qualify ([`host_supports`]): every `int` tag
//! (`MPI_TAG_UB` = 2^31 - 1) and errors returned through the communicator's handler. Open MPI
//! does; MPICH 4.0 does neither (see `host_shim.c`; its tag range is what keeps it out), so
//! its communicators keep the engine's path. Only user point-to-point travels there, so the host's wildcards see nothing else; the
//! engine's own messages (intercommunicator creation on a peer communicator) and collectives
//! keep the communicator's other host communicators.
//!
//! Receives are the host's `MPI_Irecv`, posted at once (the host's matching is MPI's), but the
//! host must never truncate: Open MPI 4.1.4 writes a message longer than the receive buffer
//! past it whenever the message goes by rendezvous (above the eager limit of the path, 4 KiB
//! through shared memory) and the receive datatype is contiguous, with `MPI_Recv`,
//! `MPI_Irecv`, `MPI_Mrecv` and `MPI_Imrecv` alike (measured with plain MPI: a 4,200-byte
//! message into 16 bytes wrote 4,184 bytes past them). So the senders bound what a receive can
//! meet: a message of at most 4 KiB travels whole, any other as a notice followed by its data
//! on a second host communicator ([`notice`]); a receive offers the host 4 KiB at least (its
//! buffer, or a bounce buffer: [`landing`]) and receives announced data knowing its length
//! ([`transfer`]). The matched probe that would also do it (`MPI_Improbe` + `MPI_Imrecv`)
//! costs 0.403 us at 8 B on plain Open MPI, against 0.208 us for `MPI_Irecv` + `MPI_Test`.
//! Probes see a notice as the data's length ([`comm`]: a probe that meets a notice takes every
//! arrived message out of the host's matching, so as to read the notice, and receives and
//! probes look at those first).
//!
//! Blocking calls never block inside the host: they poll with `MPI_Test` (probes with
//! `MPI_Iprobe` or `MPI_Improbe`). Two reasons:
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
//! The exceptions are a standard blocking send of a small packet and a notice: `MPI_Send`,
//! which the host completes at once (eager) without any sync object; and the receive of a
//! notice a matched probe took (`MPI_Mrecv`), which the host already holds.

mod comm;
mod landing;
mod notice;
mod slot;
mod transfer;

pub use comm::DirectComm;
pub use transfer::DirectMessage;

use super::datatype::{HeldType, UserBuf};
use super::envelope::{Pattern, ANY_SOURCE, ANY_TAG};
use super::message::Completion;
use super::transport::remote::BLOCKING_HOST_SEND_BYTES;
use super::backoff::Backoff;
use crate::error::EpResult;
use crate::host::{check, sys, HostComm, HostMessage, HostRequest, HOST};
use landing::{Bounce, Landed};
use notice::{Notice, NOTICE_BYTES};
use slot::Slot;
use std::mem::MaybeUninit;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{AtomicUsize, Ordering};
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

/// One `MPI_Improbe` for `pattern` on `comm`'s direct host communicator: the message, taken
/// out of the host's matching, if one has arrived (a notice stands for its data).
#[inline]
fn improbe(comm: &DirectComm, pattern: &Pattern) -> EpResult<Option<DirectMessage>> {
    let (source, tag) = host_pattern(pattern);
    let mut st = empty_status();
    let mut m = HostMessage(HOST.message_null);
    let mut flag = 0;
    // SAFETY: `comm.host` is a live direct host communicator; the host writes `flag`, `m.0`
    // and `st`, live locals.
    unsafe {
        check(
            sys::MPI_Improbe(source, tag, comm.host.0, &mut flag, &mut m.0, &mut st),
            "MPI_Improbe",
        )?
    };
    if flag == 0 {
        return Ok(None);
    }
    DirectMessage::taken(m, &st, comm.data).map(Some)
}

/// A message a probe took and `comm` holds that `pattern` matches, if any: it arrived before
/// anything still in the host.
#[inline(always)]
fn take_held(comm: &DirectComm, pattern: &Pattern) -> Option<DirectMessage> {
    if comm.taken_len() == 0 {
        return None;
    }
    comm.take(pattern)
}

/// Polls a host request until it completes (see the module notes: never blocked in the host);
/// returns the host's return code of the completing `MPI_Test` and writes its status.
fn poll_until_done(req: &mut HostRequest, status: *mut sys::MPI_Status) -> c_int {
    let mut b = Backoff::new();
    loop {
        let mut flag = 0;
        // SAFETY: `req` is a started host request of the caller's (or null, which `MPI_Test`
        // accepts); the host writes it and `flag`, both live, and `status`, the caller's
        // live status or `MPI_STATUS_IGNORE`.
        let rc = unsafe { sys::MPI_Test(&mut req.0, &mut flag, status) };
        if rc != 0 || flag != 0 {
            return rc;
        }
        b.snooze_after_polling();
    }
}

/// Matches nothing itself: tests the pending nonblocking receives of every direct
/// communicator (a notice's data receive must not wait for its owner) and completes the
/// orphaned transfers (see [`transfer`]): what a patient wait anywhere in the library calls
/// (MPI 4.1 section 3.5, progress). Errors stay with the calls they belong to. Thread safety:
/// any thread.
pub fn progress_elsewhere() {
    transfer::progress_orphans();
    slot::progress_pending();
}

/// Direct tests and probes that found nothing since the last progress pass.
static IDLE_POLLS: AtomicUsize = AtomicUsize::new(0);
/// At least this many direct tests and probes that find nothing between two progress passes.
const PROGRESS_EVERY_IDLE_POLL: usize = 16;

/// Called by a test or probe that found nothing: makes a pass of [`progress_elsewhere`] once
/// as many such calls as there are pending receives (at least [`PROGRESS_EVERY_IDLE_POLL`])
/// have gone by. A program that waits by testing one request (or probing) must still see its
/// other receives go on: a notice's data is sent by rendezvous, and its sender may hold back
/// the message the program tests for until that data's receive is posted (MPI 4.1 section
/// 3.5, progress). Not every call: a pass tests every pending receive of the process, and a
/// sweep of `EP_Waitall` over n of them would otherwise cost n^2 host tests.
#[inline]
fn now_and_then_progress() {
    let idle = IDLE_POLLS.fetch_add(1, Ordering::Relaxed) + 1;
    if idle >= slot::pending().max(PROGRESS_EVERY_IDLE_POLL) {
        IDLE_POLLS.store(0, Ordering::Relaxed);
        progress_elsewhere();
    }
}

/// Starts a send of `buf` to rank `dest` with `tag` on the direct communicator `comm`: done
/// at once for blocking calls (returns `None`), else the host request to complete. A message
/// that does not travel whole goes as a notice and its data (see [`notice`]). Errors: a failed
/// host call.
#[inline(always)]
pub fn start_send(
    comm: &DirectComm,
    dest: c_int,
    tag: c_int,
    buf: &UserBuf,
    sync: bool,
    blocking: bool,
) -> EpResult<Option<HostRequest>> {
    let bytes = buf.bytes();
    if !notice::travels_whole(bytes) {
        return announce(comm, dest, tag, buf, sync);
    }
    if blocking && !sync && bytes <= BLOCKING_HOST_SEND_BYTES {
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
    isend(buf, dest, tag, comm.host, sync)
}

/// `MPI_Isend` (`MPI_Issend` when `sync`) of the user's buffer on `host`.
#[inline(always)]
fn isend(buf: &UserBuf, dest: c_int, tag: c_int, host: HostComm, sync: bool) -> EpResult<Option<HostRequest>> {
    let mut r = HostRequest(HOST.request_null);
    let isend = if sync {
        sys::MPI_Issend
    } else {
        sys::MPI_Isend
    };
    // SAFETY: the host reads the user's buffer (`count` elements of `dtype` at `buf.addr`)
    // until the returned request completes; the user keeps it valid and unchanged until then
    // (MPI 4.1 section 3.7.2). `host` is one of the communicator's live host communicators.
    // The host writes `r`, a live local.
    unsafe {
        check(
            isend(buf.addr, buf.count, buf.dtype, dest, tag, host.0, &mut r.0),
            "MPI_Isend",
        )?
    };
    Ok(Some(r))
}

/// Sends a message that does not travel whole: its notice on the direct host communicator, in
/// the message's place among the sender's messages, then its data on the data host
/// communicator with the notice's sequence number as tag; the data's request is the send's.
/// Should the data's `MPI_Isend` fail after the notice went, the send fails and its receiver
/// waits for data that never comes: the protocol has no abort message (nor has the engine's
/// rendezvous).
#[cold]
fn announce(comm: &DirectComm, dest: c_int, tag: c_int, buf: &UserBuf, sync: bool) -> EpResult<Option<HostRequest>> {
    let seq = comm.next_seq();
    let raw = Notice { seq, bytes: buf.bytes() as u64 }.encode();
    // SAFETY: the host reads the notice's `NOTICE_BYTES` bytes, a live local, and sends them
    // at once (a message that small goes eagerly on every host path), so `MPI_Send` returns
    // without waiting for the receiver.
    unsafe {
        check(
            sys::MPI_Send(raw.as_ptr() as *const c_void, NOTICE_BYTES as c_int, HOST.byte, dest, tag, comm.host.0),
            "MPI_Send (notice)",
        )?
    };
    isend(buf, dest, seq, comm.data, sync)
}

/// Waits for a send started by [`start_send`].
pub fn wait_send(mut req: HostRequest) -> EpResult<()> {
    check(poll_until_done(&mut req, HOST.status_ignore), "MPI_Test (send)")
}

/// Blocking receive into `buf` of a message matching `pattern` (not `EP_PROC_NULL`) on the
/// direct communicator `comm` (MPI 4.1 section 3.2.4). A message longer than `buf` ends with
/// `ERR_TRUNCATE` in the completion and its first part in `buf`; nothing is written past it.
/// Errors: a failed host call. Thread safety: the endpoint's thread (one thread at a time per
/// endpoint: another thread's probe could take the message between the look at the held
/// messages and the host receive).
#[inline(never)]
pub fn recv(comm: &DirectComm, pattern: &Pattern, buf: &UserBuf) -> EpResult<Completion> {
    if let Some(m) = take_held(comm, pattern) {
        return Transfer::start(m, buf, None)?.wait();
    }
    let mut bounce = MaybeUninit::<Bounce>::uninit();
    // SAFETY: `bounce` stays in this frame until the host receive is over: polled to its
    // end below, or cancelled and waited for by the guard if the wait unwinds.
    let request = unsafe { landing::post(comm.host, pattern, buf, bounce.as_mut_ptr())? };
    let mut posted = Posted(request);
    let mut status = empty_status();
    check(poll_until_done(&mut posted.0, &mut status), "MPI_Test (receive)")?;
    // SAFETY: posted by `landing::post` with this buffer and bounce buffer, and complete.
    match unsafe { landing::landed(&status, buf, bounce.as_ptr(), comm.data)? } {
        Landed::Done(c) => Ok(c),
        Landed::Announced(m) => Transfer::start(m, buf, None)?.wait(),
    }
}

/// A blocking receive's host request while it runs: cancelled and waited for if the wait
/// unwinds, so that the host never writes into a bounce buffer whose frame has gone.
struct Posted(HostRequest);

impl Drop for Posted {
    fn drop(&mut self) {
        if !self.0.is_null() {
            // SAFETY: a started host receive nothing else uses; the host writes the handle.
            unsafe {
                sys::MPI_Cancel(&mut self.0 .0);
                sys::MPI_Wait(&mut self.0 .0, HOST.status_ignore);
            }
        }
    }
}

/// Posts a nonblocking receive of a message matching `pattern` (not `EP_PROC_NULL`) into
/// `buf` on the direct communicator `comm` (MPI 4.1 section 3.7.2); complete it through
/// [`DirectRecv::test`]. With `type_held` false the receive keeps a duplicate of `buf`'s
/// derived datatype (the program may free its own meanwhile, MPI 4.1 section 5.1.9); true
/// when the caller keeps the datatype valid until the receive completes. Errors: a failed host
/// call; `EP_ERR_TYPE` when the host cannot duplicate the datatype. Thread safety: the
/// endpoint's thread (see [`recv`]).
pub fn post_recv(comm: &Arc<DirectComm>, pattern: &Pattern, buf: &UserBuf, type_held: bool) -> EpResult<DirectRecv> {
    let (buf, held) = hold_type(buf, type_held)?;
    let slot = match take_held(comm, pattern) {
        Some(m) => Arc::new(Slot::receiving(m, &buf, held)?),
        None => Slot::post(comm, pattern, &buf, held)?,
    };
    Ok(DirectRecv { slot, freed: false })
}

/// `buf` on a datatype that a pending receive may use after its call returns, and what keeps
/// that datatype valid (see [`HeldType::hold_buf`]); `buf` as it is when `type_held`.
fn hold_type(buf: &UserBuf, type_held: bool) -> EpResult<(UserBuf, Option<Arc<HeldType>>)> {
    if type_held {
        return Ok((*buf, None));
    }
    let (buf, held) = HeldType::hold_buf(*buf)?;
    Ok((buf, held.map(Arc::new)))
}

/// Envelope and size of the first message matching `pattern` on the direct communicator
/// `comm`, left in place (`EP_Iprobe`, `EP_Probe` when `blocking`: MPI 4.1 section 3.8.1); a
/// notice reports its data's length. A message a pending receive matches is not reported.
/// Probes that find nothing progress the pending receives now and then
/// ([`now_and_then_progress`]). Errors: a failed host call. Thread safety: the endpoint's
/// thread (see [`recv`]).
pub fn probe(comm: &DirectComm, pattern: &Pattern, blocking: bool) -> EpResult<Option<Completion>> {
    let mut b = Backoff::new();
    loop {
        let found = match comm.taken_len() {
            0 => None,
            _ => comm.peek(pattern),
        };
        let found = match found {
            Some(c) => Some(c),
            None => host_iprobe(comm, pattern)?,
        };
        if found.is_some() {
            return Ok(found);
        }
        now_and_then_progress();
        if !blocking {
            return Ok(None);
        }
        b.snooze_after_polling();
    }
}

/// One `MPI_Iprobe` on the host. A notice found is reported as its data, whose length only the
/// notice holds: it is taken out of the host's matching with every message that arrived, and
/// held.
fn host_iprobe(comm: &DirectComm, pattern: &Pattern) -> EpResult<Option<Completion>> {
    let (source, tag) = host_pattern(pattern);
    let mut st = empty_status();
    let mut flag = 0;
    // SAFETY: `comm.host` is a live direct host communicator; the host writes `flag` and
    // `st`, live locals.
    unsafe {
        check(
            sys::MPI_Iprobe(source, tag, comm.host.0, &mut flag, &mut st),
            "MPI_Iprobe",
        )?
    };
    if flag == 0 {
        return Ok(None);
    }
    let bytes = transfer::status_bytes(&st)?;
    if bytes == NOTICE_BYTES as u64 {
        // Every arrived message is taken, in the host's order, not only the notice: a message
        // of another tag may have come before it, and held messages must all be older than
        // those left in the host for receives to look at the held ones first.
        while let Some(m) = improbe(comm, &ANY)? {
            comm.hold(m);
        }
        return Ok(comm.peek(pattern));
    }
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
/// [`DirectMessage::completion`]. A message a pending receive matches is not taken. Probes
/// that find nothing progress the pending receives now and then. Errors: a failed host call.
/// Thread safety: the endpoint's thread (see [`recv`]).
pub fn mprobe(
    comm: &DirectComm,
    pattern: &Pattern,
    blocking: bool,
) -> EpResult<Option<DirectMessage>> {
    let mut b = Backoff::new();
    loop {
        let found = match take_held(comm, pattern) {
            Some(m) => Some(m),
            None => improbe(comm, pattern)?,
        };
        if found.is_some() {
            return Ok(found);
        }
        now_and_then_progress();
        if !blocking {
            return Ok(None);
        }
        b.snooze_after_polling();
    }
}

/// Blocking receive of a message taken by [`mprobe`] into `buf` (MPI 4.1 section 3.8.3); a
/// longer message is truncated as in [`recv`]. Errors: a failed host call.
pub fn mrecv(msg: DirectMessage, buf: &UserBuf) -> EpResult<Completion> {
    Transfer::start(msg, buf, None)?.wait()
}

/// Nonblocking receive of a message taken by [`mprobe`] into `buf` (MPI 4.1 section 3.8.3);
/// `held` keeps `buf`'s datatype valid when it is a copy (made by [`HeldType::hold_buf`]
/// before the message was taken from its handle). Errors: a failed host call.
pub fn imrecv(msg: DirectMessage, buf: &UserBuf, held: Option<HeldType>) -> EpResult<DirectRecv> {
    let slot = Slot::receiving(msg, buf, held.map(Arc::new))?;
    Ok(DirectRecv { slot: Arc::new(slot), freed: false })
}

/// A nonblocking direct receive. Dropped unfinished, it asks the host to cancel its receive
/// unless its request was freed (`EP_Request_free`: it then completes into the user's buffer
/// when its message comes); either way its slot stays listed, holding its communicator, until
/// the host is done with it (see [`slot`]). A receive dropped unfreed that had matched (only
/// on an error path, e.g. no handle left for its request) still completes into the buffer.
pub struct DirectRecv {
    slot: Arc<Slot>,
    freed: bool,
}

impl DirectRecv {
    /// The outcome once the receive is complete (tests the host once otherwise, and now and
    /// then the other pending receives). Errors: the receive's own failed host call.
    pub fn test(&mut self) -> EpResult<Option<Completion>> {
        let done = self.slot.test()?;
        if done.is_none() {
            now_and_then_progress();
        }
        Ok(done)
    }

    /// Cancels the receive if it has not matched (`EP_Cancel`, MPI 4.1 section 3.8.4); the
    /// completion then says whether it was. Errors: a failed `MPI_Cancel`.
    pub fn cancel(&mut self) -> EpResult<()> {
        self.slot.cancel()
    }

    /// Lets the receive complete on its own (`EP_Request_free` of an active request, MPI 4.1
    /// section 3.7.3): it stays posted when this is dropped.
    pub fn release(&mut self) {
        self.freed = true;
    }
}

impl Drop for DirectRecv {
    fn drop(&mut self) {
        if !self.freed {
            let _ = self.slot.cancel();
        }
    }
}

/// Tests a direct send's host request once (and now and then the pending receives): true
/// when complete (the request is then null). Errors: a failed host call.
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
    if flag == 0 {
        now_and_then_progress();
    }
    Ok(flag != 0)
}

/// The direct communicator of an intracommunicator whose `nprocs` processes (several) each
/// have exactly one endpoint, `my_rank` being this process's: two host communicators of its
/// own (messages and notices; announced data) with host rank = endpoint rank, whose errors
/// are returned. Collective over `host`.
/// Errors: a failed host call.
pub fn create_comm(host: HostComm, my_rank: c_int) -> EpResult<Arc<DirectComm>> {
    let mut direct = HostComm(HOST.comm_null);
    // SAFETY: `host` is the caller's live host communicator; the host writes `direct.0`, a
    // live local.
    check(unsafe { sys::MPI_Comm_split(host.0, 0, my_rank, &mut direct.0) }, "MPI_Comm_split (direct)")?;
    let mut data = HostComm(HOST.comm_null);
    // SAFETY: `direct` was just made; the host writes `data.0`, a live local. Its ranks are
    // `direct`'s.
    let made = check(unsafe { sys::MPI_Comm_dup(direct.0, &mut data.0) }, "MPI_Comm_dup (direct data)")
        .and_then(|()| returning_errors(direct))
        .and_then(|()| returning_errors(data));
    if let Err(e) = made {
        crate::host::free_comm(direct);
        if !data.is_null() {
            crate::host::free_comm(data);
        }
        return Err(e);
    }
    Ok(Arc::new(DirectComm::new(direct, data)))
}

/// Makes the host return the errors of `c`, a live host communicator, to its callers.
fn returning_errors(c: HostComm) -> EpResult<()> {
    // SAFETY: `c` is a live host communicator of the caller's.
    check(unsafe { sys::MPI_Comm_set_errhandler(c.0, HOST.errors_return) }, "MPI_Comm_set_errhandler")
}
