//! Passive-target locks of one host window, shared by the endpoints of this process.
//!
//! The host locks per process: one process may hold at most one lock on a target of a
//! window. Endpoints are separate origins, though, so two endpoints of this process may both
//! lock one target. This table stands between them and the host, as a reader-writer lock per
//! target process: the first shared locker takes the host's shared lock and later ones join
//! it; an exclusive locker waits until no endpoint of this process holds the target, then
//! takes the host's exclusive lock. Exclusion between endpoints of this process is thus
//! MPI's (an exclusive lock excludes every other origin), and the host gives it between
//! processes. An endpoint that unlocks while others still share the host lock completes its
//! own operations with `MPI_Win_flush` instead.
//!
//! The host's lock is its `MPI_Win_lock`, or on Open MPI 4 a lock word
//! ([`LockWords`](super::lock_words)) taken inside a lock-all epoch of the host window: that
//! host's lock calls are unsafe from several threads on one window.
//!
//! Host lock calls and lock words are taken without the table's mutex held (they may wait for
//! other processes); `busy` makes the others wait for them. The lock-all epoch is opened under
//! the mutex by the first lock or start (it waits for no other process) and stays open until
//! a fence or the free ([`LockTable::end_epoch`]): closing it flushes every operation of the
//! process, a wait each unlock would otherwise pay.

use super::host::{check_rma, progress_targets, HostWin, RMA};
use super::lock_words::LockWords;
use crate::error::EpResult;
use crate::host::sys;
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::os::raw::c_int;
use std::sync::Arc;

#[derive(Default)]
struct Target {
    /// Endpoints of this process in a shared lock of the target.
    shared: u32,
    /// One endpoint of this process holds the exclusive lock.
    exclusive: bool,
    /// A host lock or unlock of this target is in flight.
    busy: bool,
    /// The host's lock was taken under `MPI_MODE_NOCHECK`: neither it nor its unlock asks
    /// the target anything.
    nocheck: bool,
}

#[derive(Default)]
struct State {
    targets: HashMap<u32, Target>,
    /// The host window's lock-all epoch is open (lock words only).
    epoch_open: bool,
}

/// How this process takes a target's lock from the host.
pub enum HostLocks {
    /// `MPI_Win_lock` and `MPI_Win_unlock`.
    Host,
    /// Word `index` (the host window's local index) of the window's [`LockWords`].
    Words(Arc<LockWords>, u32),
}

/// The lock state of one host window's targets, by target process.
pub struct LockTable {
    state: Mutex<State>,
    changed: Condvar,
    host: HostLocks,
    /// Endpoints of one process may share a lock of this table: a passive-target lock's
    /// `MPI_MODE_NOCHECK` is not passed on (see [`LockTable::lock`]; a start's access is
    /// another matter, [`LockTable::open_access`]).
    shared_by_endpoints: bool,
    /// This process's rank in the host window's group.
    my_proc: u32,
}

impl LockTable {
    /// The table of a host window whose locks are taken through `host`; `shared_by_endpoints`
    /// when a process has several endpoints in the window; `my_proc` is this process's rank
    /// in the window's host group.
    pub fn new(host: HostLocks, shared_by_endpoints: bool, my_proc: u32) -> LockTable {
        LockTable { state: Mutex::new(State::default()), changed: Condvar::new(), host, shared_by_endpoints, my_proc }
    }

    /// Runs the host's progress for other processes' requests (see [`progress_targets`])
    /// unless this lock or unlock of `proc` waits for the target in a host call, which runs
    /// that progress itself: a host lock or unlock of another process not under
    /// `MPI_MODE_NOCHECK`, or a lock word's atomic at another process. A join, a flush, a
    /// NOCHECK lock or a lock of this process may return without it. Two progress calls per
    /// epoch cost 0.6 us of a 3.5 us lock, put and unlock between two processes on Open MPI
    /// (measured, one endpoint per process).
    fn progress_unless_waiting(&self, proc: u32, nocheck: bool) {
        // Calls on this process's own windows do not run that engine (`progress_targets`),
        // lock words' atomics included.
        let waits = proc != self.my_proc
            && match self.host {
                HostLocks::Host => !nocheck,
                HostLocks::Words(..) => true,
            };
        if !waits {
            progress_targets();
        }
    }

    /// Locks target process `proc` of `win` for one endpoint of this process; blocks while
    /// an incompatible lock of another endpoint of this process is held.
    ///
    /// `MPI_MODE_NOCHECK` (no other process holds or asks a conflicting lock while this one is
    /// held) is an assertion of the endpoint that makes it, for its own epoch; another endpoint
    /// that joins the lock and outlives that epoch asserted nothing. So where endpoints share
    /// the table the lock is taken as if the assertion were not made (MPI lets an
    /// implementation ignore it).
    pub fn lock(&self, win: HostWin, proc: u32, exclusive: bool, assert: c_int) -> EpResult<()> {
        let assert = if self.shared_by_endpoints { assert & !RMA.mode_nocheck } else { assert };
        self.lock_asserting(win, proc, exclusive, assert)
    }

    /// Opens the host's access to target process `proc` of `win` for one endpoint's general
    /// active-target epoch (`EP_Win_start`); [`LockTable::close_access`] ends it.
    ///
    /// No lock is needed there for exclusion: during an exposure epoch only the origins of
    /// the post's group access the target, and a lock of an exposed target is erroneous
    /// (MPI 4.1 section 12.5.3). So the host's access is opened as cheaply as it can be:
    /// with lock words, the host window's lock-all epoch, and no word; with the host's
    /// locks, a shared lock under `MPI_MODE_NOCHECK`, which the host takes without asking
    /// the target (a plain shared lock where the host mishandles that assertion). Endpoints
    /// of this process that access the same target join that lock, and none of them can be a
    /// passive-target locker of that target.
    pub fn open_access(&self, win: HostWin, proc: u32) -> EpResult<()> {
        if matches!(self.host, HostLocks::Words(..)) {
            // No host call here waits for the target.
            progress_targets();
            return self.open_epoch(&mut self.state.lock(), win);
        }
        let assert = if RMA.nocheck_lock_reliable != 0 { RMA.mode_nocheck } else { 0 };
        self.lock_asserting(win, proc, false, assert)
    }

    /// Ends an endpoint's access of [`LockTable::open_access`]: its operations on `proc` are
    /// complete at the target when this returns.
    pub fn close_access(&self, win: HostWin, proc: u32) -> EpResult<()> {
        if matches!(self.host, HostLocks::Words(..)) {
            progress_targets();
            // SAFETY: a live host window whose lock-all epoch `open_access` opened (only a
            // fence or the free closes it), and a process of its group.
            return check_rma(unsafe { sys::MPI_Win_flush(proc as c_int, win.0) }, "MPI_Win_flush");
        }
        self.unlock(win, proc)
    }

    /// [`LockTable::lock`] with the assertion the host is given.
    fn lock_asserting(&self, win: HostWin, proc: u32, exclusive: bool, assert: c_int) -> EpResult<()> {
        let nocheck = assert & RMA.mode_nocheck != 0;
        let mut state = self.state.lock();
        loop {
            let t = state.targets.entry(proc).or_default();
            if t.busy || t.exclusive || (exclusive && t.shared > 0) {
                self.changed.wait(&mut state);
                continue;
            }
            if !exclusive && t.shared > 0 {
                t.shared += 1;
                drop(state);
                // A join makes no host call.
                progress_targets();
                return Ok(());
            }
            t.busy = true;
            drop(state);
            self.progress_unless_waiting(proc, nocheck);
            let taken = self.take(win, proc, exclusive, assert);
            let mut state = self.state.lock();
            // A lock word taken for an epoch that would not open is given back (under the
            // mutex: this error path only).
            let rc = taken.and_then(|()| {
                self.open_epoch(&mut state, win).inspect_err(|_| {
                    let _ = self.give_word(proc, exclusive);
                })
            });
            let t = state.targets.get_mut(&proc).expect("target entry stays while busy");
            t.busy = false;
            t.nocheck = nocheck;
            if rc.is_ok() {
                if exclusive {
                    t.exclusive = true;
                } else {
                    t.shared = 1;
                }
            }
            self.changed.notify_all();
            return rc;
        }
    }

    /// Ends one endpoint's lock of target process `proc` (which it holds): its operations
    /// are complete at the target when this returns (MPI 4.1 section 12.5.3).
    pub fn unlock(&self, win: HostWin, proc: u32) -> EpResult<()> {
        let mut state = self.state.lock();
        let t = state.targets.get_mut(&proc).expect("unlock of a held lock");
        if t.shared > 1 {
            // Others keep the host lock: complete our operations only, then leave. A flush
            // may not wait for anything (nothing pending, or memory the host writes directly).
            drop(state);
            progress_targets();
            // SAFETY: as in `lock`: a live host window and a process of its group, locked
            // by this process.
            let flushed = check_rma(unsafe { sys::MPI_Win_flush(proc as c_int, win.0) }, "MPI_Win_flush");
            state = self.state.lock();
            let t = state.targets.get_mut(&proc).expect("held lock");
            t.shared -= 1;
            if t.shared > 0 || t.busy {
                return flushed;
            }
            // The other holders left while we flushed: we release the host lock.
        }
        let t = state.targets.get_mut(&proc).expect("held lock");
        t.busy = true;
        let (exclusive, nocheck) = (t.exclusive, t.nocheck);
        drop(state);
        self.progress_unless_waiting(proc, nocheck);
        let rc = self.give(win, proc, exclusive);
        self.state.lock().targets.remove(&proc);
        self.changed.notify_all();
        rc
    }

    /// Closes the host window's lock-all epoch of lock words, before a fence or the free of
    /// `win` (called once every endpoint of this process is in that call, so none holds a
    /// lock in the table; a no-op with the host's own locks).
    pub fn end_epoch(&self, win: HostWin) -> EpResult<()> {
        let mut state = self.state.lock();
        if !std::mem::take(&mut state.epoch_open) {
            return Ok(());
        }
        // SAFETY: a live host window whose epoch `open_epoch` opened; every endpoint of this
        // process is in the fence or free, so none issues operations on it.
        check_rma(unsafe { sys::MPI_Win_unlock_all(win.0) }, "MPI_Win_unlock_all")
    }

    /// Takes the host's lock of `proc` for this process (see [`HostLocks`]).
    fn take(&self, win: HostWin, proc: u32, exclusive: bool, assert: c_int) -> EpResult<()> {
        match &self.host {
            HostLocks::Host => {
                let kind = if exclusive { RMA.lock_exclusive } else { RMA.lock_shared };
                // SAFETY: `win` is a live host window of this window, and `proc` a process of
                // its communicator (the caller found it from a checked rank); no buffer.
                check_rma(unsafe { sys::MPI_Win_lock(kind, proc as c_int, assert, win.0) }, "MPI_Win_lock")
            }
            // Lock words serve windows shared by endpoints only, where `lock` drops
            // MPI_MODE_NOCHECK: the word is always taken.
            HostLocks::Words(words, index) => words.acquire(*index, proc, exclusive),
        }
    }

    /// Gives back the host's lock of `proc`, every operation of this process on it complete
    /// at the target first.
    fn give(&self, win: HostWin, proc: u32, exclusive: bool) -> EpResult<()> {
        match &self.host {
            // SAFETY: as in `take`: a live host window and a process of its group, locked
            // by this process (the entry says so).
            HostLocks::Host => check_rma(unsafe { sys::MPI_Win_unlock(proc as c_int, win.0) }, "MPI_Win_unlock"),
            HostLocks::Words(..) => {
                // SAFETY: as above; the window's lock-all epoch is open (`open_epoch` ran
                // when this target was taken, and only a fence or the free closes it).
                let flushed = check_rma(unsafe { sys::MPI_Win_flush(proc as c_int, win.0) }, "MPI_Win_flush");
                // The word goes back even when the flush failed: holding it would make every
                // other locker of the target, in every process, wait for ever.
                let given = self.give_word(proc, exclusive);
                flushed.and(given)
            }
        }
    }

    fn give_word(&self, proc: u32, exclusive: bool) -> EpResult<()> {
        match &self.host {
            HostLocks::Words(words, index) => words.release(*index, proc, exclusive),
            _ => Ok(()),
        }
    }

    /// Opens the lock-all epoch of `win` for the first target held through lock words.
    fn open_epoch(&self, state: &mut State, win: HostWin) -> EpResult<()> {
        if !matches!(self.host, HostLocks::Words(..)) || state.epoch_open {
            return Ok(());
        }
        // SAFETY: a live host window; a lock-all under MPI_MODE_NOCHECK marks the epoch in
        // the host and waits for no process; under the table's mutex no other thread of
        // this process opens or closes it at once.
        check_rma(unsafe { sys::MPI_Win_lock_all(RMA.mode_nocheck, win.0) }, "MPI_Win_lock_all")?;
        state.epoch_open = true;
        Ok(())
    }
}
