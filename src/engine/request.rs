//! Requests: the objects behind `EP_Request` handles, their completion, and the progress
//! loop of blocking calls.
//!
//! A request belongs to one endpoint; testing it progresses that endpoint. A request freed
//! by `EP_Request_free` before it completes (MPI 4.1 section 3.7.3) keeps its operation
//! going: a receive stays posted and completes into the user's buffer when it matches.
//!
//! Near the top of the engine: a request may hold any operation (point-to-point, collective,
//! one-sided, direct mode) and its test drives [`super::progress`]. Requests whose handles
//! are gone wait in this module's orphanage, which patient blocked calls progress (the
//! function registered with [`super::backoff::on_patience`], see [`patient_progress`]).

use super::coll::nonblocking::CollRequest;
use super::comm::Endpoint;
use super::direct::{self, DirectRecv};
use super::host_op;
use super::orphanage::Orphanage;
use super::doorbell::Doorbell;
use super::p2p::{self, Completion, Drain, RecvOp, SendState};
use super::p2p::queues::Orphan;
use super::progress;
use super::spare::{self, Spares};
use super::topo::neighbor::Exchange;
use crate::error::EpResult;
use crate::host::{check, sys, HostRequest, HOST};
use super::spinlock::SpinMutex;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicPtr, Ordering};
use std::sync::Arc;

pub use super::backoff::Backoff;
pub use super::p2p::wait_recv_matched;

pub enum Op {
    Send(SendState),
    Recv(Arc<RecvOp>),
    /// A nonblocking collective (`EP_Ibarrier` ... `EP_Iexscan`, see [`super::coll::nonblocking`]).
    Coll(CollRequest),
    /// A request-based one-sided operation (`EP_Rput`, `EP_Rget`): the host's request,
    /// `None` once complete. Its window's host progresses it.
    Rma(Option<HostRequest>),
    /// A receive on a direct-mode communicator (see [`super::direct`]): the host matches and
    /// completes it.
    DirectRecv(DirectRecv),
    /// A persistent request (see [`super::persistent`]): its operation and the round in
    /// progress, tested, cancelled and orphaned as that round's operation.
    Persistent(Persistent),
    /// A nonblocking send-receive (`EP_Isendrecv`, `EP_Isendrecv_replace`): complete when
    /// both halves are, with the receive's outcome.
    SendRecv(Box<SendRecvOp>),
    /// A nonblocking neighbourhood collective (`EP_Ineighbor_*`): its test progresses the
    /// topology's private communicator (see [`super::topo::neighbor`]).
    Neighbor(Exchange),
}

/// The two halves of a nonblocking send-receive, and the packed copy of the outgoing data of
/// the in-place form (read by the send until it completes).
pub struct SendRecvOp {
    pub send: Op,
    pub recv: Op,
    pub _packed: Vec<u8>,
}

/// An operation that a persistent request starts once per round (see [`super::persistent`]).
pub trait Startable: Send + Sync {
    /// Begins one round on endpoint `ep`: the operation the request holds until the round
    /// completes. Errors are those of the matching nonblocking call; the request then stays
    /// inactive.
    fn start(&self, ep: &Arc<Endpoint>) -> EpResult<Op>;
}

/// The state behind a persistent request's [`Op::Persistent`].
pub struct Persistent {
    pub(super) spec: Box<dyn Startable>,
    /// The round in progress (`None`: inactive).
    pub(super) round: Option<Box<Op>>,
}

/// The status of a null or inactive request (MPI 4.1 section 3.7.3): source `EP_ANY_SOURCE`,
/// tag `EP_ANY_TAG`, no data, not cancelled.
pub fn inactive_completion() -> Completion {
    Completion {
        source: super::envelope::ANY_SOURCE,
        tag: super::envelope::ANY_TAG,
        ..Completion::default()
    }
}

pub struct Request {
    /// The endpoint whose progress completes the request; `None` for a request that is
    /// complete from the start (`EP_Imrecv` of `EP_MESSAGE_NO_PROC`) or that the host
    /// completes (`EP_Rput`, `EP_Rget`).
    pub ep: Option<Arc<Endpoint>>,
    /// What testing this request pulls in when it is not complete, fixed at creation: a
    /// receive, what its pattern needs; a send through the host, everything (see
    /// [`wait_send`]); a local send, the local channels; a direct-mode operation, nothing
    /// (`None`: the host progresses it).
    drain: Option<Drain>,
    /// True when only threads of this process can complete the request (a receive whose
    /// matches can only come from local endpoints, a local send), so a waiter may park on the
    /// endpoint's doorbell: see [`Request::bell`].
    rung: bool,
    /// The operation, under the engine's spin lock (released by a store): a request is tested
    /// by one thread at a time in a correct program, and `parking_lot`'s unlock would be a
    /// second read-modify-write per test.
    pub(super) op: SpinMutex<Op>,
    /// The receive that `op` holds when it is an `Op::Recv` (null otherwise), so that a test
    /// of a receive still waiting for its message reads two flags without the lock: an
    /// `EP_Waitall` over a window of receives tests every pending one after each progress,
    /// dozens of times per message. `op` keeps the receive alive and is never replaced while
    /// the request is shared (only [`recycle`] empties it, holding the sole reference).
    recv: AtomicPtr<RecvOp>,
    /// Made by [`Request::persistent`]: completion deactivates it instead of freeing it.
    pub(super) persistent: bool,
    /// For a request without endpoint made on one ([`Request::complete_from_start`]): the
    /// error handler and handle of its communicator when it started, which errors of later
    /// calls naming the request go to (MPI 4.1 section 9.3); (0, 0) otherwise.
    pub origin: (c_int, c_int),
    /// Counts the request among the live ones; `None` in a kept allocation (see
    /// [`recycle`]) and in [`Request::complete_from_start`]'s.
    _live: Option<crate::live::Counted>,
}

// SAFETY: nothing downgrades an `Arc<Request>` (requests are held by handles, orphan lists and
// array calls, all strongly).
unsafe impl spare::NeverWeak for Request {}

thread_local! {
    /// This thread's spare request allocations (see [`super::spare`]).
    static SPARE_REQUESTS: Spares<Request> = const { Spares::new() };
}

/// Ends the life of a request whose handle is gone (freed by a completion call): its
/// allocation is kept for the thread's next request when nothing else refers to it, emptied
/// of its endpoint and operation (a receive's state is kept the same way). Any thread.
pub fn recycle(r: Arc<Request>) {
    spare::keep(&SPARE_REQUESTS, r, |r| {
        r.ep = None;
        r._live = None;
        *r.recv.get_mut() = std::ptr::null_mut();
        if let Op::Recv(recv) = std::mem::replace(r.op.get_mut(), Op::Send(SendState::Done)) {
            RecvOp::recycle(recv);
        }
    });
}

impl Request {
    /// A request of endpoint `ep` for `op`, in an allocation the thread kept when there is one
    /// (see [`recycle`]). Any thread.
    pub fn new(ep: Arc<Endpoint>, op: Op) -> Arc<Request> {
        let drain = match &op {
            Op::Recv(r) => Some(Drain::for_pattern(&ep.shared, ep.local, &r.pattern)),
            Op::Send(SendState::Host(_)) => Some(Drain::All),
            Op::Send(SendState::Direct(_)) | Op::DirectRecv(_) => None,
            Op::SendRecv(_) if ep.shared.direct.is_some() => None,
            Op::SendRecv(_) => Some(Drain::All),
            Op::Send(_) | Op::Coll(_) | Op::Rma(_) | Op::Neighbor(_) | Op::Persistent(_) => Some(Drain::Local),
        };
        Request::with_drain(ep, op, drain, false)
    }

    pub(super) fn with_drain(ep: Arc<Endpoint>, op: Op, drain: Option<Drain>, persistent: bool) -> Arc<Request> {
        let rung = match &op {
            Op::Recv(_) => matches!(drain, Some(Drain::Local | Drain::LocalFrom(_))),
            Op::Send(SendState::Local(_)) => true,
            _ => false,
        };
        let recv = match &op {
            Op::Recv(r) => Arc::as_ptr(r) as *mut RecvOp,
            _ => std::ptr::null_mut(),
        };
        spare::wrap(
            &SPARE_REQUESTS,
            Request {
                ep: Some(ep),
                drain,
                rung,
                op: SpinMutex::new(op),
                recv: AtomicPtr::new(recv),
                persistent,
                origin: (0, 0),
                _live: Some(crate::live::Counted::new(&crate::live::REQUESTS)),
            },
        )
    }

    /// A send of endpoint `ep` that is complete from the start (an eager message to an
    /// endpoint of the process, `EP_PROC_NULL`, a direct-mode host send done at once), in an
    /// allocation the thread kept when there is one. It refers to no endpoint, since no
    /// progress can change it, only to its communicator's error handler (`origin`), and is not
    /// counted among the live objects, which are what completion and freeing may still wait
    /// for: a window of such sends then costs no endpoint reference and no live count per
    /// message, two atomic read-modify-writes at its creation and two at its end. Any thread.
    pub fn complete_from_start(ep: &Endpoint) -> Arc<Request> {
        spare::wrap(
            &SPARE_REQUESTS,
            Request {
                ep: None,
                drain: None,
                rung: false,
                op: SpinMutex::new(Op::Send(SendState::Done)),
                recv: AtomicPtr::new(std::ptr::null_mut()),
                persistent: false,
                origin: (ep.errhandler(), ep.handle()),
                _live: None,
            },
        )
    }

    /// A request that is already complete and belongs to no endpoint.
    pub fn completed(op: Op) -> Arc<Request> {
        Arc::new(Request {
            ep: None,
            drain: None,
            rung: false,
            op: SpinMutex::new(op),
            recv: AtomicPtr::new(std::ptr::null_mut()),
            persistent: false,
            origin: (0, 0),
            _live: Some(crate::live::Counted::new(&crate::live::REQUESTS)),
        })
    }

    /// The outcome if the operation is complete, making progress on the endpoint first when
    /// it is not.
    pub fn test(&self) -> EpResult<Option<Completion>> {
        if let Some(c) = self.test_without_progress()? {
            return Ok(Some(c));
        }
        if let (Some(ep), Some(drain)) = (&self.ep, self.drain) {
            progress::progress(&ep.shared, ep.local, drain)?;
        }
        self.test_without_progress()
    }

    /// The doorbell that is rung when this request may have completed, when only threads of
    /// this process can complete it (see `rung`); `None` when the host must (a waiter then
    /// keeps polling).
    pub fn bell(&self) -> Option<&Doorbell> {
        let ep = self.ep.as_ref().filter(|_| self.rung)?;
        Some(&ep.shared.endpoints[ep.local as usize].bell)
    }

    pub(crate) fn test_without_progress(&self) -> EpResult<Option<Completion>> {
        let recv = self.recv.load(Ordering::Relaxed);
        // SAFETY: a non-null `recv` is the receive `self.op` holds, which stays there, alive,
        // while `self` is borrowed (see the field).
        if !recv.is_null() && unsafe { (*recv).awaits_message() } {
            return Ok(None);
        }
        test_op(&mut self.op.lock())
    }

    /// The progress [`Request::test`] makes for each of `reqs` that is not complete, made
    /// once per endpoint and kind of drain however many of `reqs` share them: for callers that
    /// test many requests at once (`EP_Waitall`), which then test each without progress. A
    /// window of 64 receives from one source made 64 identical drains per sweep, each taking
    /// the endpoint's queue lock, where one pulls in the same messages. Errors: those of
    /// [`progress::progress`] (a failure of the endpoint). Thread-safe.
    pub fn progress_each<'a>(reqs: impl Iterator<Item = &'a Request>) -> EpResult<()> {
        // Usually one endpoint and one drain: a short list on the stack, no allocation per
        // sweep. Past its end a key is progressed again, which is only work repeated.
        let mut done = [None::<(*const Endpoint, Drain)>; 8];
        let mut known = 0;
        for r in reqs {
            if let (Some(ep), Some(drain)) = (&r.ep, r.drain) {
                let key = Some((Arc::as_ptr(ep), drain));
                if done[..known].contains(&key) {
                    continue;
                }
                if known < done.len() {
                    done[known] = key;
                    known += 1;
                }
                progress::progress(&ep.shared, ep.local, drain)?;
            }
        }
        Ok(())
    }
}

/// The outcome of operation `op` if it is complete, without making progress.
fn test_op(op: &mut Op) -> EpResult<Option<Completion>> {
    match op {
        Op::Send(s) => Ok(s.test()?.then(Completion::default)),
        Op::Recv(r) => Ok(r.poll_host()?.then(|| r.completion())),
        Op::Coll(c) => Ok(c.test()?.then(Completion::default)),
        Op::Rma(r) => {
            if let Some(h) = r {
                let mut flag = 0;
                check(
                    // SAFETY: `h` is the request's started host RMA request, held under
                    // the op lock; the host writes it and `flag`; the status is ignored.
                    unsafe { sys::MPI_Test(&mut h.0, &mut flag, HOST.status_ignore) },
                    "MPI_Test",
                )?;
                if flag == 0 {
                    return Ok(None);
                }
                *r = None;
            }
            Ok(Some(Completion::default()))
        }
        Op::DirectRecv(r) => r.test(),
        Op::Neighbor(x) => Ok(x.test()?.then(Completion::default)),
        Op::Persistent(p) => match &mut p.round {
            Some(round) => test_op(round),
            None => Ok(Some(inactive_completion())),
        },
        Op::SendRecv(p) => {
            let sent = test_op(&mut p.send)?.is_some();
            let received = test_op(&mut p.recv)?;
            Ok(received.filter(|_| sent))
        }
    }
}

impl Request {
    /// Cancels a receive that has not matched (MPI 4.1 section 3.8.4); sends are not
    /// cancelled (the request then completes normally and `EP_Test_cancelled` says false).
    pub fn cancel(&self) -> EpResult<()> {
        let mut guard = self.op.lock();
        let op = match &mut *guard {
            Op::Persistent(p) => match p.round.as_deref_mut() {
                Some(round) => round,
                None => return Ok(()),
            },
            Op::SendRecv(p) => &mut p.recv,
            op => op,
        };
        match (op, &self.ep) {
            (Op::Recv(r), Some(ep)) if !r.is_done() => {
                p2p::cancel_recv(&ep.shared, ep.local, r);
            }
            (Op::DirectRecv(r), _) => r.cancel()?,
            _ => {}
        }
        Ok(())
    }

    /// Hands an active request whose handle is being freed to its endpoint, whose progress
    /// completes it (host requests tested, buffers released) when nobody waits for it; to
    /// the process's `ORPHANAGE` when the endpoint's handle is already freed.
    pub fn orphan(self: &Arc<Self>) {
        let mut guard = self.op.lock();
        let persistent = matches!(&*guard, Op::Persistent(_));
        let op = match &mut *guard {
            Op::Persistent(p) => match p.round.as_deref_mut() {
                Some(round) => round,
                None => return,
            },
            op => op,
        };
        match op {
            // The host completes a freed request by itself (MPI 4.1 section 3.7.3).
            Op::Rma(Some(h)) | Op::Send(SendState::Direct(h)) => {
                if !h.is_null() {
                    // SAFETY: `h` is a started host request (not null) that nothing else will use: the
                    // host completes it on its own, and the handle becomes `MPI_REQUEST_NULL`.
                    unsafe { sys::MPI_Request_free(&mut h.0) };
                }
                return;
            }
            Op::DirectRecv(r) => {
                r.release();
                // A persistent round's buffer names the request's own duplicate of the
                // datatype, with which a message that landed in a bounce buffer is unpacked:
                // the request stays, as an orphan, until the round completes.
                if !persistent {
                    return;
                }
            }
            _ => {}
        }
        drop(guard);
        if let Some(ep) = &self.ep {
            let mut q = ep.state().queues.lock();
            if ep.is_freed() {
                drop(q);
                ORPHANAGE.adopt([self.clone()]);
            } else {
                q.orphans.push(self.clone() as Arc<dyn Orphan>);
            }
        }
    }
}

impl Orphan for Request {
    fn is_complete(&self) -> bool {
        !matches!(self.test_without_progress(), Ok(None))
    }
}

/// Called when an endpoint's handle is freed: its orphans move to the process's orphanage.
pub fn endpoint_freed(ep: &Endpoint) {
    let orphans = {
        let mut q = ep.state().queues.lock();
        ep.mark_freed();
        std::mem::take(&mut q.orphans)
    };
    if !orphans.is_empty() {
        // An endpoint's orphans are the requests `Request::orphan` put there.
        let requests = orphans.into_iter().map(|o| {
            let any: Arc<dyn std::any::Any + Send + Sync> = o;
            any.downcast::<Request>().unwrap_or_else(|_| unreachable!("an endpoint's orphans are requests"))
        });
        ORPHANAGE.adopt(requests);
    }
    progress_orphanage();
}

/// The requests of the process freed while active whose endpoints' handles are freed too. An
/// orphaned request holds its endpoint and so its communicator; here they are completed by
/// any thread's `EP_Comm_free` and patient waits, and the communicator goes with the last of
/// them (MPI 4.1 section 6.4.3: a freed communicator goes once its pending operations
/// complete).
static ORPHANAGE: Orphanage<Arc<Request>> = Orphanage::new();

/// Tests the process's orphans (requests, and host operations, see [`host_op`]) once; drops
/// those that completed (and with the last request of a communicator's, the communicator).
/// Callable from any thread.
pub fn progress_orphanage() {
    host_op::progress_orphans();
    // Errors belong to nobody now (the handles are gone): such an orphan counts as complete.
    ORPHANAGE.progress(|r| matches!(r.test(), Ok(None)));
}

/// What a patient blocked call progresses before it yields, registered with
/// [`super::backoff::on_patience`] when the process creates its first communicator: the
/// process's posted receives on every endpoint (MPI's progress rule, see
/// [`progress::progress_pending`]), direct-mode receives of other endpoints
/// ([`direct::progress_elsewhere`]) and the orphans.
pub fn patient_progress() {
    progress::progress_pending();
    direct::progress_elsewhere();
    progress_orphanage();
}

/// Blocks until the request completes.
pub fn wait(req: &Request) -> EpResult<Completion> {
    let mut b = Backoff::new();
    loop {
        if let Some(c) = req.test()? {
            return Ok(c);
        }
        snooze_for(&mut b, req.bell());
    }
}

/// One turn of a wait on requests whose common doorbell is `bell` (see [`common_bell`]).
#[inline]
pub fn snooze_for<'a>(b: &mut Backoff<'a>, bell: Option<&'a Doorbell>) {
    match bell {
        Some(bell) => b.snooze_on(bell),
        None => b.snooze(),
    }
}

/// The doorbell a waiter for all of `reqs` may park on: the one they share when each has one
/// (see [`Request::bell`]); `None` when any needs the host or they have different bells.
pub fn common_bell<'a>(mut reqs: impl Iterator<Item = &'a Request>) -> Option<&'a Doorbell> {
    let first = reqs.next()?.bell()?;
    reqs.all(|r| r.bell().is_some_and(|b| std::ptr::eq(b, first))).then_some(first)
}

/// Blocks until a send completes (local rendezvous or host requests).
#[inline(always)]
pub fn wait_send(ep: &Endpoint, s: SendState) -> EpResult<()> {
    if matches!(s, SendState::Done) {
        return Ok(());
    }
    wait_send_pending(ep, s)
}

/// The waiting part of [`wait_send`], out of line so that finished sends stay cheap.
#[inline(never)]
fn wait_send_pending(ep: &Endpoint, mut s: SendState) -> EpResult<()> {
    if let SendState::Direct(r) = s {
        return direct::wait_send(r);
    }
    let mut b = Backoff::new();
    while !s.test()? {
        // Keep our own incoming traffic flowing while we wait: peers blocked in large sends
        // to us need us to pick up their headers, or sends in a cycle would deadlock.
        let drain = if matches!(s, SendState::Host(_)) {
            Drain::All
        } else {
            Drain::Local
        };
        progress::progress(&ep.shared, ep.local, drain)?;
        if matches!(s, SendState::Local(_)) {
            // The receiver rings once it has the data; so do local senders to this endpoint.
            b.snooze_on(&ep.shared.endpoints[ep.local as usize].bell);
        } else {
            b.snooze();
        }
    }
    Ok(())
}
