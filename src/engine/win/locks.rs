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
//! Host lock calls run without the table's mutex held (they may wait for other processes);
//! `busy` makes the others wait for them.

use super::host::{check_rma, progress_targets, HostWin, RMA};
use crate::error::EpResult;
use crate::host::sys;
use parking_lot::{Condvar, Mutex};
use std::collections::HashMap;
use std::os::raw::c_int;

#[derive(Default)]
struct Target {
    /// Endpoints of this process in a shared lock of the target.
    shared: u32,
    /// One endpoint of this process holds the exclusive lock.
    exclusive: bool,
    /// A host lock or unlock of this target is in flight.
    busy: bool,
}

/// The lock state of one host window's targets, by target process.
#[derive(Default)]
pub struct LockTable {
    targets: Mutex<HashMap<u32, Target>>,
    changed: Condvar,
}

impl LockTable {
    /// Locks target process `proc` of `win` for one endpoint of this process; blocks while
    /// an incompatible lock of another endpoint of this process is held.
    pub fn lock(&self, win: HostWin, proc: u32, exclusive: bool, assert: c_int) -> EpResult<()> {
        progress_targets();
        let mut targets = self.targets.lock();
        loop {
            let t = targets.entry(proc).or_default();
            if t.busy || t.exclusive || (exclusive && t.shared > 0) {
                self.changed.wait(&mut targets);
                continue;
            }
            if !exclusive && t.shared > 0 {
                t.shared += 1;
                return Ok(());
            }
            t.busy = true;
            drop(targets);
            let kind = if exclusive { RMA.lock_exclusive } else { RMA.lock_shared };
            // SAFETY: `win` is a live host window of this window, and `proc` a process of
            // its communicator (the caller found it from a checked rank); no buffer.
            let rc = check_rma(unsafe { sys::MPI_Win_lock(kind, proc as c_int, assert, win.0) }, "MPI_Win_lock");
            let mut targets = self.targets.lock();
            let t = targets.get_mut(&proc).expect("target entry stays while busy");
            t.busy = false;
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
        progress_targets();
        let mut targets = self.targets.lock();
        let t = targets.get_mut(&proc).expect("unlock of a held lock");
        if t.shared > 1 {
            // Others keep the host lock: complete our operations only, then leave.
            drop(targets);
            // SAFETY: as in `lock`: a live host window and a process of its group, locked
            // by this process.
            let flushed = check_rma(unsafe { sys::MPI_Win_flush(proc as c_int, win.0) }, "MPI_Win_flush");
            targets = self.targets.lock();
            let t = targets.get_mut(&proc).expect("held lock");
            t.shared -= 1;
            if t.shared > 0 || t.busy {
                return flushed;
            }
            // The other holders left while we flushed: we release the host lock.
        }
        let t = targets.get_mut(&proc).expect("held lock");
        t.busy = true;
        drop(targets);
        // SAFETY: as in `lock`: a live host window and a process of its group, locked
        // by this process (the entry says so).
        let rc = check_rma(unsafe { sys::MPI_Win_unlock(proc as c_int, win.0) }, "MPI_Win_unlock");
        let mut targets = self.targets.lock();
        targets.remove(&proc);
        self.changed.notify_all();
        rc
    }
}
