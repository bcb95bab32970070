//! Work shared by the threads of an endpoint team (docs/teams.md): a job is cut into chunks of
//! memory work (copies, local reductions) or host sends to start (the parts of a striped
//! message) that the thread which published it and every member waiting in the library take
//! one at a time.
//!
//! The rules that keep teams free of deadlock live here:
//! * the publisher takes chunks until none is left unclaimed, then waits only for the chunks
//!   others have claimed, each finished by a running thread without a lock of the engine or a
//!   wait for a communication: a host send is only started (`MPI_Isend` returns without the
//!   receiver), and the publisher owns and tests its request (so a job never waits for a
//!   member to join, leave or be scheduled);
//! * a helper takes a chunk when one is listed and otherwise returns at once (it never waits
//!   for a job).
//!
//! Below the engine: the transports record the sender's list with a same-process message, and
//! every patient waiter ([`super::backoff`]) helps the list of the team its thread is in.

use super::doorbell::Doorbell;
use crate::error::{EpError, EpResult};
use parking_lot::Mutex;
use std::cell::{Cell, RefCell};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

/// Smallest chunk of a shared job, in bytes: large enough that claiming a chunk (one atomic
/// increment) and the cache misses of handing it to another core are noise beside the work,
/// and that two threads copying chunks at once each keep one thread's speed (with 256 and
/// 512 KiB chunks both ran at half speed on MPICH: docs/performance.md, "Endpoint teams").
pub(crate) const CHUNK_BYTES: usize = 1024 * 1024;

/// Spins of [`wait_plainly`] before it yields.
const PLAIN_SPINS: u32 = 256;

/// One turn of a wait that only spins, then yields (after [`PLAIN_SPINS`] turns counted in
/// `spins`): no progress, no team work and no parking, unlike `engine::backoff`. For a thread that
/// waits for a chunk of work another running thread has taken and finishes without any lock,
/// while it may itself hold engine state that a patient waiter's progress would need.
#[inline]
pub fn wait_plainly(spins: &mut u32) {
    *spins += 1;
    if *spins < PLAIN_SPINS {
        std::hint::spin_loop();
    } else {
        std::thread::yield_now();
    }
}

/// The jobs a team's members may take chunks of, and how many members the team has now.
#[derive(Default)]
pub struct WorkList {
    jobs: Mutex<Vec<Arc<Job>>>,
    /// Jobs listed: read without the lock by helpers that find nothing to do.
    listed: AtomicUsize,
    /// Threads currently between join and leave: with one or none, splitting only costs.
    members: AtomicUsize,
    /// Rung when a job is listed, and when a round of leaves is over: members waiting in leave
    /// park on it under the passive wait policy (`engine::doorbell`).
    pub bell: Doorbell,
}

/// One published job: `chunks` calls of `run(ctx, i)`.
struct Job {
    run: unsafe fn(*const (), usize) -> EpResult<()>,
    /// The publisher's arguments, on its stack: read only by a thread that claimed a chunk,
    /// which the publisher waits for before returning.
    ctx: *const (),
    chunks: usize,
    next: AtomicUsize,
    finished: AtomicUsize,
    error: Mutex<Option<EpError>>,
}

// SAFETY: `ctx` is only dereferenced through `run` for a claimed chunk, while the publisher
// (which owns what it points at, and made `run` for it) waits for that chunk; `run` is a plain
// function; the rest is atomics and a mutex.
unsafe impl Send for Job {}
// SAFETY: as for `Send`: shared jobs hand out chunks through atomics only.
unsafe impl Sync for Job {}

/// Counts a claimed chunk as finished even when its work panics (the C boundary catches
/// panics), so the publisher never waits for it forever.
struct Finish<'a>(&'a Job);

impl Drop for Finish<'_> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            let mut e = self.0.error.lock();
            if e.is_none() {
                *e = Some(crate::ep_err!(crate::error::ERR_INTERN, "a team member's share of the work failed"));
            }
        }
        self.0.finished.fetch_add(1, Ordering::Release);
    }
}

impl Job {
    /// Claims and runs one chunk; false when none is left.
    fn work_one(&self) -> bool {
        let i = self.next.fetch_add(1, Ordering::Relaxed);
        if i >= self.chunks {
            return false;
        }
        let _finish = Finish(self);
        // SAFETY: chunk `i` was claimed here (`i < chunks`), so the publisher waits for it
        // before its `ctx` goes (see `WorkList::split`).
        if let Err(e) = unsafe { (self.run)(self.ctx, i) } {
            let mut first = self.error.lock();
            if first.is_none() {
                *first = Some(e);
            }
        }
        true
    }
}

/// The publisher's arguments and its chunk function, type-erased into a [`Job`].
struct Call<'a, T> {
    f: fn(&T, usize) -> EpResult<()>,
    ctx: &'a T,
}

/// Runs chunk `i` of a [`Call`].
///
/// # Safety
/// `p` points at a live `Call<T>`.
unsafe fn call<T>(p: *const (), i: usize) -> EpResult<()> {
    // SAFETY: this function's contract.
    let c = unsafe { &*(p as *const Call<T>) };
    (c.f)(c.ctx, i)
}

impl WorkList {
    pub fn new() -> WorkList {
        WorkList::default()
    }

    /// True when a job published now may get help: another member is in the team.
    pub fn has_helpers(&self) -> bool {
        self.members.load(Ordering::Acquire) > 1
    }

    /// Threads currently between join and leave.
    pub fn members(&self) -> usize {
        self.members.load(Ordering::Acquire)
    }

    /// A thread joined (`true`) or left (`false`) the team.
    pub fn count_member(&self, joined: bool) {
        if joined {
            self.members.fetch_add(1, Ordering::AcqRel);
        } else {
            self.members.fetch_sub(1, Ordering::AcqRel);
        }
    }

    /// Runs `f(ctx, i)` for every `i` in `0..chunks`, on this thread and on the members that
    /// help meanwhile; returns once all have run, with the first error of a chunk. `f` must
    /// finish without waiting on anything: memory work, or starting a host nonblocking
    /// operation; no lock of the engine, no blocking communication (see the module notes).
    pub fn split<T: Sync>(&self, chunks: usize, ctx: &T, f: fn(&T, usize) -> EpResult<()>) -> EpResult<()> {
        let c = Call { f, ctx };
        let job = Arc::new(Job {
            run: call::<T>,
            ctx: &c as *const Call<T> as *const (),
            chunks,
            next: AtomicUsize::new(0),
            finished: AtomicUsize::new(0),
            error: Mutex::new(None),
        });
        {
            let mut jobs = self.jobs.lock();
            jobs.push(job.clone());
            self.listed.store(jobs.len(), Ordering::Release);
        }
        self.bell.ring();
        while job.work_one() {}
        {
            let mut jobs = self.jobs.lock();
            jobs.retain(|j| !Arc::ptr_eq(j, &job));
            self.listed.store(jobs.len(), Ordering::Release);
        }
        // Only claimed chunks are left, each being finished by a running thread.
        let mut spins = 0u32;
        while job.finished.load(Ordering::Acquire) < chunks {
            wait_plainly(&mut spins);
        }
        let first = job.error.lock().take();
        match first {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }

    /// Takes chunks of a listed job while there are some; true when it ran at least one.
    /// Never waits.
    pub fn help(&self) -> bool {
        if self.listed.load(Ordering::Acquire) == 0 {
            return false;
        }
        let jobs: Vec<Arc<Job>> = self.jobs.lock().clone();
        let mut worked = false;
        for job in jobs {
            while job.work_one() {
                worked = true;
            }
        }
        worked
    }
}

thread_local! {
    /// The work list of the team the calling thread is a member of.
    static CURRENT: RefCell<Option<Arc<WorkList>>> = const { RefCell::new(None) };
    /// Set while the thread runs a chunk from a wait, so that a wait inside cannot nest.
    static HELPING: Cell<bool> = const { Cell::new(false) };
}

/// Makes `list` the calling thread's team work list (`None`: the thread is in no team).
pub fn set_current(list: Option<Arc<WorkList>>) {
    CURRENT.with(|c| *c.borrow_mut() = list);
}

/// The calling thread's team work list, if it is a member of a team.
pub fn current() -> Option<Arc<WorkList>> {
    CURRENT.with(|c| c.borrow().clone())
}

/// True when a copy or fold of `bytes` bytes is large enough to share (two chunks at least).
#[inline]
pub fn worth_sharing(bytes: usize) -> bool {
    bytes >= 2 * CHUNK_BYTES
}

/// [`current`] for a job of `bytes` bytes: `None` without a thread-local lookup when the job is
/// too small to share, as most are (every same-process send above the eager size asks).
#[inline]
pub fn current_for(bytes: usize) -> Option<Arc<WorkList>> {
    if worth_sharing(bytes) {
        current()
    } else {
        None
    }
}

/// Helps the calling thread's team once, if it is in one (called by waiters that yield).
pub fn help_current() {
    if HELPING.with(|h| h.replace(true)) {
        return;
    }
    let list = CURRENT.with(|c| c.borrow().clone());
    if let Some(l) = list {
        l.help();
    }
    HELPING.with(|h| h.set(false));
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicBool;

    /// Every chunk runs exactly once, helped or not, and the first error comes back.
    #[test]
    fn chunks_run_once_with_and_without_helpers() {
        let list = Arc::new(WorkList::new());
        let counts: Vec<AtomicUsize> = (0..1000).map(|_| AtomicUsize::new(0)).collect();
        list.split(1000, &counts, |c, i| {
            c[i].fetch_add(1, Ordering::Relaxed);
            Ok(())
        })
        .unwrap();
        assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1));
        let stop = Arc::new(AtomicBool::new(false));
        let helper = {
            let (list, stop) = (list.clone(), stop.clone());
            std::thread::spawn(move || {
                while !stop.load(Ordering::Acquire) {
                    list.help();
                }
            })
        };
        for _ in 0..50 {
            let counts: Vec<AtomicUsize> = (0..200).map(|_| AtomicUsize::new(0)).collect();
            let r = list.split(200, &counts, |c, i| {
                c[i].fetch_add(1, Ordering::Relaxed);
                if i == 7 {
                    return Err(crate::ep_err!(crate::error::ERR_OP, "chunk 7"));
                }
                Ok(())
            });
            assert!(r.is_err());
            assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1));
        }
        stop.store(true, Ordering::Release);
        helper.join().unwrap();
    }
}
