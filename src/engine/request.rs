//! Requests: the objects behind `EP_Request` handles, their completion, and the progress
//! loop of blocking calls.
//!
//! A request belongs to one endpoint; testing it progresses that endpoint. A request freed
//! by `EP_Request_free` before it completes (MPI 4.1 section 3.7.3) keeps its operation
//! going: a receive stays posted and completes into the user's buffer when it matches.

use super::coll::nonblocking::CollRequest;
use super::comm::Endpoint;
use super::direct::DirectRecv;
use super::p2p::{self, Completion, Drain, RecvOp, SendState};
use crate::error::EpResult;
use crate::host::{check, sys, HostRequest, HOST};
pub use super::progress::{orphanage_endpoints, progress_orphanage};
use super::progress::{self, adopt_requests};
use parking_lot::Mutex;
use std::sync::Arc;

pub enum Op {
    Send(SendState),
    Recv(Arc<RecvOp>),
    /// A nonblocking collective (`EP_Ibarrier`, `EP_Ibcast`).
    Coll(CollRequest),
    /// A request-based one-sided operation (`EP_Rput`, `EP_Rget`): the host's request,
    /// `None` once complete. Its window's host progresses it.
    Rma(Option<HostRequest>),
    /// A receive on a direct-mode communicator (see [`super::direct`]): the host matches and
    /// completes it.
    DirectRecv(DirectRecv),
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
    op: Mutex<Op>,
    _live: crate::live::Counted,
}

impl Request {
    pub fn new(ep: Arc<Endpoint>, op: Op) -> Arc<Request> {
        let drain = match &op {
            Op::Recv(r) => Some(Drain::for_pattern(&ep.shared, ep.local, &r.pattern)),
            Op::Send(SendState::Host(_)) => Some(Drain::All),
            Op::Send(SendState::Direct(_)) | Op::DirectRecv(_) => None,
            Op::Send(_) | Op::Coll(_) | Op::Rma(_) => Some(Drain::Local),
        };
        Arc::new(Request {
            ep: Some(ep),
            drain,
            op: Mutex::new(op),
            _live: crate::live::Counted::new(&crate::live::REQUESTS),
        })
    }

    /// A request that is already complete and belongs to no endpoint.
    pub fn completed(op: Op) -> Arc<Request> {
        Arc::new(Request {
            ep: None,
            drain: None,
            op: Mutex::new(op),
            _live: crate::live::Counted::new(&crate::live::REQUESTS),
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

    pub(crate) fn test_without_progress(&self) -> EpResult<Option<Completion>> {
        let mut op = self.op.lock();
        match &mut *op {
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
        }
    }

    /// Cancels a receive that has not matched (MPI 4.1 section 3.8.4); sends are not
    /// cancelled (the request then completes normally and `EP_Test_cancelled` says false).
    pub fn cancel(&self) -> EpResult<()> {
        match (&mut *self.op.lock(), &self.ep) {
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
        match &mut *self.op.lock() {
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
                return;
            }
            _ => {}
        }
        if let Some(ep) = &self.ep {
            let mut q = ep.state().queues.lock();
            if ep.is_freed() {
                drop(q);
                adopt_requests(vec![self.clone()]);
            } else {
                q.orphans.push(self.clone());
            }
        }
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
        adopt_requests(orphans);
    }
    progress_orphanage();
}

/// Spin-then-yield backoff for blocking calls: many endpoints may share few cores, so a
/// waiting thread must let the one it waits for run.
pub struct Backoff(u32);

/// Turns a waiter spins before yielding: after host polls (each long enough by itself)...
const PATIENCE_POLLING: u32 = 1024;
/// ...and on memory alone.
const PATIENCE_SPINNING: u32 = 64;

impl Backoff {
    pub fn new() -> Self {
        Backoff(0)
    }

    /// After a host poll, which takes long enough by itself: only yield once patient.
    #[inline]
    pub fn snooze_after_polling(&mut self) {
        if self.0 < PATIENCE_POLLING {
            self.0 += 1;
        } else {
            Self::yield_now();
        }
    }

    /// One turn of a spin that keeps a lock held: true while still patient (poll again at
    /// once, after a pause hint unless the turn polled the host), false once the caller should
    /// release its locks and `snooze`, which then yields.
    #[inline]
    pub fn keep_spinning(&mut self, polled_host: bool) -> bool {
        let patience = if polled_host {
            PATIENCE_POLLING
        } else {
            PATIENCE_SPINNING
        };
        if self.0 >= patience {
            return false;
        }
        if !polled_host {
            std::hint::spin_loop();
        }
        self.0 += 1;
        true
    }

    #[inline]
    pub fn snooze(&mut self) {
        if self.0 < PATIENCE_SPINNING {
            std::hint::spin_loop();
            self.0 += 1;
        } else {
            Self::yield_now();
        }
    }

    /// Once patient: keep the process's posted receives on every endpoint progressing (MPI's
    /// progress rule, see `progress::progress_pending`), then let others run.
    #[cold]
    fn yield_now() {
        super::progress::progress_pending();
        super::direct::progress_elsewhere();
        progress_orphanage();
        std::thread::yield_now();
    }
}

impl Default for Backoff {
    fn default() -> Self {
        Self::new()
    }
}

/// Blocks until the request completes.
pub fn wait(req: &Request) -> EpResult<Completion> {
    let mut b = Backoff::new();
    loop {
        if let Some(c) = req.test()? {
            return Ok(c);
        }
        b.snooze();
    }
}

/// Blocks until a matched receive has its data (rendezvous data comes through the host).
pub fn wait_recv_matched(
    shared: &super::comm::CommShared,
    local: u32,
    recv: &RecvOp,
) -> EpResult<Completion> {
    let mut b = Backoff::new();
    while !recv.poll_host()? {
        progress::progress(shared, local, Drain::All)?;
        b.snooze_after_polling();
    }
    Ok(recv.completion())
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
        return super::direct::wait_send(r);
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
        b.snooze();
    }
    Ok(())
}
