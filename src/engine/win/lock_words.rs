//! Target locks made of host atomics, for a host whose own lock calls are unsafe from several
//! threads on one window.
//!
//! Open MPI 4.x's UCX one-sided component (osc/ucx, the one that makes windows work here;
//! README, host limitations) keeps each window's lock count, access epoch and table of locked
//! targets in plain fields that `MPI_Win_lock` and `MPI_Win_unlock` update with no lock
//! (`ompi_osc_ucx_lock`: `module->lock_count++`, `opal_hash_table_set_value_uint32`), and every
//! operation reads that table (`check_sync_state`). Two endpoints of one process that lock
//! different target processes of one host window at once lose an update: the host then
//! refuses an operation or an unlock inside a lock it granted (`MPI_ERR_RMA_SYNC`). Measured
//! here: 4 processes x 3 endpoints, each locking, putting into and unlocking a different
//! target 2,000 times, fail within seconds.
//!
//! Serialising the host's lock calls would not do: `MPI_Win_lock` waits while another process
//! holds a conflicting lock, and an endpoint of this process that must unlock another target
//! of the window first (a legal program's order) would wait behind it for ever.
//!
//! So on Open MPI 4, in windows where a process has several endpoints (and there is more than
//! one process), the host's lock calls are not used. Each host window is kept in one
//! `MPI_Win_lock_all(MPI_MODE_NOCHECK)` epoch from the first lock of this process to the next
//! fence or the free (opened and closed under the [`LockTable`](super::locks::LockTable)'s
//! mutex), and the lock of a target process is a 64-bit word at that process, in a window of
//! its own that stays in one such epoch from creation to free. The protocol is that of the
//! host's own locks: a shared locker adds 1 and, finding an exclusive lock, takes its 1 back
//! and tries again; an exclusive locker sets the word from 0 to [`EXCLUSIVE`] with a
//! compare-and-swap. An exclusive lock is released by subtracting [`EXCLUSIVE`] (the host
//! stores 0), which keeps the passing 1 of a shared locker about to take it back. No host call
//! involved (atomics, flushes) waits for a thread of another process, only for the short
//! accumulate lock the host takes around each atomic; so a holder that unlocks never waits
//! behind a locker of this process that waits for another process, at most behind one atomic
//! of another thread of this process (the atomics are taken one at a time: [`ATOMICS`]). As
//! with the host's locks, an exclusive locker can wait as long as other processes keep taking
//! shared locks. A host failure inside an atomic leaves the word in an unknown state (the
//! error is returned; other lockers of that target may then wait for ever): the host's own
//! locks have no better answer.
//!
//! Cost: that host makes every atomic three round trips (it takes a per-target accumulate lock
//! around it), so a lock, a put of 8 bytes and an unlock between two processes of 2 endpoints
//! each take 5.0-5.5 us against 2.5-2.6 us with its own lock calls (1.2-1.4 us in plain MPI),
//! measured on the development machine, one locker at a time; every endpoint locking at once,
//! 9-12 us (`benches/rma_sync.rs`, docs/performance.md).

use super::host::{check_rma, progress_targets, HostWin, RMA};
use crate::engine::backoff::Backoff;
use crate::error::EpResult;
use crate::host::{sys, HostComm, HOST};
use std::cell::UnsafeCell;
use std::os::raw::{c_int, c_void};

/// Held around each atomic of a lock word and its flush: one thread of the process at a time
/// drives the host's atomics. Each of them is served by the target's progress engine, and
/// threads of one process that each wait for their own take turns in the host's progress with
/// the threads they wait for (measured with `rma_sync`, 2 processes x 2 endpoints locking at
/// once on 2 cores: 39-56 us per lock epoch with every thread in its own atomic, 22-31 us one
/// at a time, 20-24 us with a lock that yields instead of parking). No wait under it needs
/// another thread of this process: the atomic and its flush complete by the target's
/// progress, and the holder's own flush makes this process's.
static ATOMICS: parking_lot::Mutex<()> = parking_lot::Mutex::new(());

/// The word's value while an exclusive lock holds it (shared lockers count below it).
const EXCLUSIVE: i64 = 1 << 32;

/// The lock words of one endpoint window in this process: word `j` locks host window `j`'s
/// target this process for the window's other processes (and for this one's endpoints, whose
/// [`LockTable`](super::locks::LockTable) takes it once for all of them).
pub struct LockWords {
    /// The host window over `words`, in a lock-all epoch from creation to [`LockWords::free`].
    win: HostWin,
    /// Written only by the host (atomics of any process); never read or written here.
    _words: Box<[UnsafeCell<i64>]>,
}

// SAFETY: the words are touched only by the host's atomics, which are safe from any thread
// under `MPI_THREAD_MULTIPLE` (checked at communicator creation); the handle is a plain value.
unsafe impl Send for LockWords {}
// SAFETY: as for `Send`: shared references only pass the host handle to host calls.
unsafe impl Sync for LockWords {}

impl LockWords {
    /// Creates the words of `count` host windows (8 bytes each, displacement unit 8) over
    /// `comm`, all 0 (unlocked), and opens their epoch. Collective over `comm`'s processes,
    /// called by one thread per process (window creation's leader). Errors: the host's, mapped
    /// by `check_rma` (nothing is left allocated in this process).
    pub fn create(count: usize, comm: HostComm) -> EpResult<LockWords> {
        let words: Box<[UnsafeCell<i64>]> = (0..count.max(1)).map(|_| UnsafeCell::new(0)).collect();
        let mut win = HostWin(RMA.win_null);
        let bytes = (words.len() * 8) as sys::MPI_Aint;
        // SAFETY: `words` is a heap block of `bytes` bytes that lives in the returned value
        // until after the host window is freed (`free` is called before the value drops, or
        // the window leaks with the endpoint window and the block with it); zeroed before any
        // process can reach it. The host writes `win.0`, a live local; `comm` is live.
        unsafe {
            check_rma(
                sys::MPI_Win_create(words.as_ptr() as *mut c_void, bytes, 8, HOST.info_null, comm.0, &mut win.0),
                "MPI_Win_create (lock words)",
            )?;
        }
        let made = LockWords { win, _words: words };
        // SAFETY: the window just made; no buffer.
        let opened = unsafe {
            check_rma(sys::MPI_Win_set_errhandler(win.0, HOST.errors_return), "MPI_Win_set_errhandler (lock words)")
                .and_then(|()| check_rma(sys::MPI_Win_lock_all(RMA.mode_nocheck, win.0), "MPI_Win_lock_all (lock words)"))
        };
        if let Err(err) = opened {
            let mut h = made.win.0;
            // SAFETY: the window made above, freed once (the value is dropped right after).
            unsafe { sys::MPI_Win_free(&mut h) };
            return Err(err);
        }
        Ok(made)
    }

    /// Closes the epoch and frees the host window. Collective over the processes (called by
    /// the endpoint window's free, once per process, with no lock held; MPI 4.1 section
    /// 12.2.5). Errors: the host's; the window is freed even when closing the epoch failed.
    pub fn free(&self) -> EpResult<()> {
        // SAFETY: the window is live (made by `create`, freed only here, once); no buffer.
        let closed = unsafe { check_rma(sys::MPI_Win_unlock_all(self.win.0), "MPI_Win_unlock_all (lock words)") };
        let mut h = self.win.0;
        // SAFETY: as above; `h` is a local copy of the handle.
        let freed = unsafe { check_rma(sys::MPI_Win_free(&mut h), "MPI_Win_free (lock words)") };
        closed.and(freed)
    }

    /// Takes word `index` (a host window's local index) of process `proc` (a rank of the host
    /// communicator) for this process: shared (`exclusive` false) or exclusive, with the
    /// exclusion of MPI 4.1 section 12.5.3. Waits, yielding, while another process holds it in
    /// a conflicting mode. Any thread; the caller's lock table has at most one acquire or
    /// release of a word in flight. Errors: the host's (the word's state is then unknown).
    pub fn acquire(&self, index: u32, proc: u32, exclusive: bool) -> EpResult<()> {
        let mut backoff = Backoff::new();
        loop {
            if exclusive {
                if self.compare_and_swap(index, proc, 0, EXCLUSIVE)? == 0 {
                    return Ok(());
                }
            } else {
                if self.fetch_add(index, proc, 1)? < EXCLUSIVE {
                    return Ok(());
                }
                self.fetch_add(index, proc, -1)?;
            }
            progress_targets();
            backoff.snooze_after_polling();
        }
    }

    /// Gives back what [`LockWords::acquire`] took (same `index`, `proc` and mode); the
    /// release is complete at `proc` on return. Errors: the host's.
    pub fn release(&self, index: u32, proc: u32, exclusive: bool) -> EpResult<()> {
        self.fetch_add(index, proc, if exclusive { -EXCLUSIVE } else { -1 }).map(drop)
    }

    /// Adds `delta` to word `index` of process `proc`; the value before.
    fn fetch_add(&self, index: u32, proc: u32, delta: i64) -> EpResult<i64> {
        let _one_at_a_time = ATOMICS.lock();
        let mut before: i64 = 0;
        // SAFETY: one 8-byte `MPI_AINT` element from and into live locals; `index` is below
        // the word count of every process (the table of host window `index` calls it), so the
        // displacement is in the target's window; the epoch is open. The flush completes the
        // operation, so `before` is written when it returns.
        unsafe {
            check_rma(
                sys::MPI_Fetch_and_op(
                    (&delta as *const i64).cast(),
                    (&mut before as *mut i64).cast(),
                    RMA.aint,
                    proc as c_int,
                    index as sys::MPI_Aint,
                    RMA.op_sum,
                    self.win.0,
                ),
                "MPI_Fetch_and_op (lock word)",
            )?;
            check_rma(sys::MPI_Win_flush(proc as c_int, self.win.0), "MPI_Win_flush (lock word)")?;
        }
        Ok(before)
    }

    /// Sets word `index` of process `proc` to `new` if it holds `expected`; the value before.
    fn compare_and_swap(&self, index: u32, proc: u32, expected: i64, new: i64) -> EpResult<i64> {
        let _one_at_a_time = ATOMICS.lock();
        let mut before: i64 = 0;
        // SAFETY: as in `fetch_add`: 8-byte elements in live locals, a displacement inside
        // the target's window, an open epoch, completed by the flush.
        unsafe {
            check_rma(
                sys::MPI_Compare_and_swap(
                    (&new as *const i64).cast(),
                    (&expected as *const i64).cast(),
                    (&mut before as *mut i64).cast(),
                    RMA.aint,
                    proc as c_int,
                    index as sys::MPI_Aint,
                    self.win.0,
                ),
                "MPI_Compare_and_swap (lock word)",
            )?;
            check_rma(sys::MPI_Win_flush(proc as c_int, self.win.0), "MPI_Win_flush (lock word)")?;
        }
        Ok(before)
    }
}
