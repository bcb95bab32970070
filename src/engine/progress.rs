//! Progress that no single call owns: endpoints with pending receives that any patient
//! blocked call progresses, whichever thread posted them, and the orphanage of operations
//! whose owners are gone; and the progress of one endpoint.
//!
//! An operation the host still works on owns its host requests together with the memory
//! those requests read or write ([`HostOp`]). When the owner goes first (a request freed
//! while active, a blocking call that returns an error while its host part is in flight, a
//! communicator freed with a nonblocking collective under way), the host operation and its
//! memory move here, and patient blocked calls test them until the host is done, then free
//! both: the scheme of the MPICH ADI2 note for freed requests (the device keeps a freed
//! request until its operation completes). Nothing is cancelled: a cancelled data receive
//! would leave its peer's send waiting forever.

use super::comm::CommShared;
use super::p2p::{drain, Drain, Queues};
use super::request::Request;
use crate::error::EpResult;
use crate::host::{self, check, sys, HostRequest, HOST};
use parking_lot::Mutex;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Weak};

/// Host requests (at most two) and the memory they use, owned together: dropping a
/// `HostOp` whose requests are still live hands it to the orphanage instead of freeing
/// memory the host reads or writes.
pub struct HostOp {
    requests: [HostRequest; 2],
    active: usize,
    keep: Vec<u8>,
}

impl HostOp {
    /// An operation of the `active` (1 or 2) first started requests of `requests`, reading
    /// or writing `keep` (which must not be resized while they are live).
    #[inline]
    pub fn new(requests: [HostRequest; 2], active: usize, keep: Vec<u8>) -> HostOp {
        debug_assert!(active <= 2);
        HostOp { requests, active, keep }
    }

    /// One started request with its memory.
    #[inline]
    pub fn one(request: HostRequest, keep: Vec<u8>) -> HostOp {
        HostOp::new([request, HostRequest(HOST.request_null)], 1, keep)
    }

    /// Adds a second started request using the same memory.
    #[inline]
    pub fn add(&mut self, request: HostRequest) {
        debug_assert!(self.active == 1);
        self.requests[1] = request;
        self.active = 2;
    }

    /// The memory the host requests use.
    pub fn keep(&self) -> &[u8] {
        &self.keep
    }

    /// True once every host request completed (they are then `MPI_REQUEST_NULL`); errors of
    /// `MPI_Testall` (host failures) are the operation's own.
    #[inline]
    pub fn test(&mut self) -> EpResult<bool> {
        let mut flag = 0;
        // SAFETY: `requests` holds the `active` (at most 2) started host requests, contiguous
        // `MPI_Request`s (`HostRequest` is `repr(transparent)`); the host writes them and `flag`,
        // and the statuses are ignored. Completed ones are `MPI_REQUEST_NULL`, which the host
        // skips.
        unsafe {
            check(
                sys::MPI_Testall(
                    self.active as c_int,
                    self.requests.as_mut_ptr() as *mut sys::MPI_Request,
                    &mut flag,
                    HOST.status_ignore,
                ),
                "MPI_Testall",
            )?
        };
        Ok(flag != 0)
    }

    /// True while a host request is still live.
    #[inline]
    fn is_live(&self) -> bool {
        self.requests[..self.active].iter().any(|r| !r.is_null())
    }

    /// Takes the operation out of `self`, leaving nothing live behind.
    fn take(&mut self) -> HostOp {
        let null = HostRequest(HOST.request_null);
        HostOp {
            requests: std::mem::replace(&mut self.requests, [null, null]),
            active: std::mem::take(&mut self.active),
            keep: std::mem::take(&mut self.keep),
        }
    }
}

impl Drop for HostOp {
    fn drop(&mut self) {
        if !self.is_live() {
            return;
        }
        let op = self.take();
        if host::finalizing() || !host::mpi_is_active() {
            // The host can no longer be asked; its memory must not be freed under it.
            std::mem::forget(op);
            return;
        }
        adopt(Orphan::Host(op));
    }
}

/// An operation whose owner is gone, completed by progress.
pub(crate) enum Orphan {
    /// A request freed while active whose endpoint's handle is freed too (see
    /// [`super::request::Request::orphan`]).
    Request(Arc<Request>),
    /// A host operation whose owner was dropped before the host finished.
    Host(HostOp),
}

/// The orphans of the process. An orphaned request holds its endpoint and so its
/// communicator; here they are completed by any thread's `EP_Comm_free` and patient waits,
/// and the communicator goes with the last of them (MPI 4.1 section 6.4.3: a freed
/// communicator goes once its pending operations complete).
static ORPHANAGE: Mutex<Vec<Orphan>> = Mutex::new(Vec::new());
/// `ORPHANAGE`'s length, read without its lock by calls that have nothing to do.
static ORPHANAGE_LEN: AtomicUsize = AtomicUsize::new(0);

/// Hands an orphan to the process's orphanage.
pub(crate) fn adopt(orphan: Orphan) {
    let mut o = ORPHANAGE.lock();
    o.push(orphan);
    ORPHANAGE_LEN.store(o.len(), Ordering::Relaxed);
}

/// Hands freed requests to the orphanage.
pub(crate) fn adopt_requests(requests: Vec<Arc<Request>>) {
    let mut o = ORPHANAGE.lock();
    o.extend(requests.into_iter().map(Orphan::Request));
    ORPHANAGE_LEN.store(o.len(), Ordering::Relaxed);
}

/// Tests the process's orphans once; drops those that completed (and with the last request
/// of a communicator's, the communicator). Callable from any thread.
pub fn progress_orphanage() {
    if ORPHANAGE_LEN.load(Ordering::Relaxed) == 0 {
        return;
    }
    // Tested outside the lock: testing progresses endpoints, whose orphans may come here.
    let mut orphans = std::mem::take(&mut *ORPHANAGE.lock());
    // Errors belong to nobody now (the handles are gone): such an orphan counts as complete.
    orphans.retain_mut(|o| match o {
        Orphan::Request(r) => matches!(r.test(), Ok(None)),
        Orphan::Host(op) => match op.test() {
            Ok(done) => !done,
            Err(_) => {
                // A failed host: what it holds is leaked, never freed under it.
                std::mem::forget(op.take());
                false
            }
        },
    });
    let mut o = ORPHANAGE.lock();
    o.extend(orphans);
    ORPHANAGE_LEN.store(o.len(), Ordering::Relaxed);
}

/// The endpoints of the orphaned requests still waiting (for the withdrawal of host receives
/// before `MPI_Finalize`).
pub fn orphanage_endpoints() -> Vec<Arc<super::comm::Endpoint>> {
    ORPHANAGE
        .lock()
        .iter()
        .filter_map(|o| match o {
            Orphan::Request(r) => r.ep.clone(),
            Orphan::Host(_) => None,
        })
        .collect()
}

/// Progress for one endpoint: pull in its messages (`how`, widened now and then, see
/// [`Drain::now_and_then_all`]), finish its orphaned requests. Errors: only failures of the
/// endpoint itself (the host refusing or failing its pre-posted header receives, a malformed
/// header), which concern every call on it; an error in delivering a message completes that
/// receive instead (see `p2p::deliver_posted`), and an orphan's error has nobody to go to.
/// Thread-safe: works under the endpoint's queue lock.
pub fn progress(shared: &CommShared, local: u32, how: Drain) -> EpResult<()> {
    {
        let mut q = shared.endpoints[local as usize].queues.lock();
        let how = how.now_and_then_all(&mut q.polls);
        drain(shared, local, &mut q, how)?;
        if q.orphans.is_empty() {
            return Ok(());
        }
    }
    progress_orphans(shared, local)
}

/// Tests the requests freed while active; drops those that completed.
pub(crate) fn progress_orphans(shared: &CommShared, local: u32) -> EpResult<()> {
    let mut q = shared.endpoints[local as usize].queues.lock();
    if q.orphans.is_empty() {
        return Ok(());
    }
    let mut orphans = std::mem::take(&mut q.orphans);
    drop(q);
    // An orphan's error has no handle left to report it: it counts as complete.
    orphans.retain(|r| matches!(r.test_without_progress(), Ok(None)));
    shared.endpoints[local as usize]
        .queues
        .lock()
        .orphans
        .extend(orphans);
    Ok(())
}

/// Endpoints with posted receives, registered per process: (communicator, local index).
/// An endpoint is here exactly while its `Queues::registered` is set (both change under its
/// queue lock, or with the list taken by [`progress_pending`]).
static PENDING: Mutex<Vec<(Weak<CommShared>, u32)>> = Mutex::new(Vec::new());
/// `PENDING`'s length (entries taken by a running [`progress_pending`] included), read
/// without its lock by patient calls that have nothing to do.
static PENDING_LEN: AtomicUsize = AtomicUsize::new(0);

/// Registers endpoint `local` of `shared`, which has just posted a receive, with the process,
/// unless it is registered already (`q` is its matching state, locked by the caller): from
/// then on every patient blocked call of the process progresses it, whichever OS thread posted
/// the receive or waits. The common case, an endpoint already registered, reads one flag the
/// caller holds under its lock anyway.
#[inline]
pub(crate) fn register_pending(shared: &Arc<CommShared>, local: u32, q: &mut Queues) {
    if !q.registered {
        q.registered = true;
        register_slow(shared, local);
    }
}

#[cold]
fn register_slow(shared: &Arc<CommShared>, local: u32) {
    PENDING.lock().push((Arc::downgrade(shared), local));
    PENDING_LEN.fetch_add(1, Ordering::Relaxed);
}

/// Progress for every endpoint of the process with posted receives: called by blocked calls
/// once patient, from any thread. Matching is per endpoint and a blocked call drains only its
/// own, so without this an endpoint blocked in, say, a synchronous send on one communicator
/// would never match the large or synchronous message a peer sends it on another against a
/// receive posted there, and two such endpoints would wait for each other forever. MPI's
/// progress rule (MPI 4.1 section 3.5) says a posted receive and its matching send complete
/// whatever else the receiver does, which does not depend on the OS thread that posted it (an
/// OpenMP task may migrate; a thread may post and end). Endpoints in use by another thread
/// (their queue lock held) are left to it; endpoints without posted receives left, and freed
/// communicators, drop out.
pub(crate) fn progress_pending() {
    if PENDING_LEN.load(Ordering::Relaxed) == 0 {
        return;
    }
    let mut entries = std::mem::take(&mut *PENDING.lock());
    if entries.is_empty() {
        return; // another thread is at it
    }
    let before = entries.len();
    entries.retain(|(weak, local)| {
        let Some(shared) = weak.upgrade() else {
            return false;
        };
        let Some(mut q) = shared.endpoints[*local as usize].queues.try_lock() else {
            return true;
        };
        if q.matching.posted_len() > 0 {
            // Errors of deliveries complete their receives; what is left is a failure of that
            // endpoint, which its own calls meet again and report.
            let _ = drain(&shared, *local, &mut q, Drain::All);
        }
        let keep = q.matching.posted_len() > 0;
        q.registered = keep;
        keep
    });
    PENDING_LEN.fetch_sub(before - entries.len(), Ordering::Relaxed);
    PENDING.lock().append(&mut entries);
}
