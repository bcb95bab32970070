//! Progress that no single call owns: the orphanage of operations whose owners are gone.
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
use super::p2p::{drain, Drain};
use super::request::Request;
use crate::error::EpResult;
use crate::host::{self, check, sys, HostRequest, HOST};
use parking_lot::Mutex;
use std::os::raw::c_int;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

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

/// Number of orphans waiting (for tests and leak checks).
pub fn orphans_waiting() -> usize {
    ORPHANAGE_LEN.load(Ordering::Relaxed)
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
/// [`Drain::now_and_then_all`]), finish its orphaned requests.
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

/// Endpoints on which a thread left posted receives: (communicator, local index).
type PostedList = Vec<(std::sync::Weak<CommShared>, u32)>;

/// A thread's [`PostedList`], counted in [`POSTED_ENTRIES`] until the thread ends.
struct ThreadPosted(std::cell::RefCell<PostedList>);

impl Drop for ThreadPosted {
    fn drop(&mut self) {
        POSTED_ENTRIES.fetch_sub(self.0.borrow().len(), Ordering::Relaxed);
    }
}

/// Entries in all threads' lists: while it is 0 no thread needs to look at its own (one
/// shared load instead of a thread-local access, which costs a call into the dynamic loader).
static POSTED_ENTRIES: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);

thread_local! {
    static POSTED_BY_THIS_THREAD: ThreadPosted = const { ThreadPosted(std::cell::RefCell::new(Vec::new())) };
}

/// Remembers that this thread posted a receive on endpoint `local` of `shared`, so that its
/// blocking calls on other communicators keep that receive progressing.
pub(crate) fn note_posted(shared: &Arc<CommShared>, local: u32) {
    POSTED_BY_THIS_THREAD.with(|list| {
        let mut list = list.0.borrow_mut();
        let known = list
            .iter()
            .any(|(w, l)| *l == local && std::ptr::eq(w.as_ptr(), Arc::as_ptr(shared)));
        if !known {
            list.push((Arc::downgrade(shared), local));
            POSTED_ENTRIES.fetch_add(1, Ordering::Relaxed);
        }
    });
}

/// Progress for the receives this thread posted on any communicator: called by blocking calls
/// while they wait. Matching is per communicator and a blocked call drains only its own, so
/// without this an endpoint blocked in, say, a synchronous send on one communicator would never
/// match the large or synchronous message a peer sends it on another against a receive it
/// posted there, and two such endpoints would wait for each other forever. MPI's progress rule
/// (MPI 4.1 section 3.5) says a posted receive and its matching send complete whatever else the
/// receiver does. Endpoints without posted receives left, and freed communicators, drop out.
pub(crate) fn progress_posted_elsewhere() {
    if POSTED_ENTRIES.load(Ordering::Relaxed) == 0 {
        return;
    }
    let Ok(mut entries) =
        POSTED_BY_THIS_THREAD.try_with(|list| std::mem::take(&mut *list.0.borrow_mut()))
    else {
        return;
    };
    if entries.is_empty() {
        return;
    }
    let before = entries.len();
    entries.retain(|(weak, local)| {
        let Some(shared) = weak.upgrade() else {
            return false;
        };
        let Some(mut q) = shared.endpoints[*local as usize].queues.try_lock() else {
            return true;
        };
        if q.matching.posted_len() == 0 {
            return false;
        }
        // Errors belong to the calls on that communicator, which meet them again themselves.
        let _ = drain(&shared, *local, &mut q, Drain::All);
        q.matching.posted_len() > 0
    });
    POSTED_ENTRIES.fetch_sub(before - entries.len(), Ordering::Relaxed);
    let _ = POSTED_BY_THIS_THREAD.try_with(|list| {
        let mut list = list.0.borrow_mut();
        entries.append(&mut list); // entries noted meanwhile (none expected) are kept too
        *list = entries;
    });
}
