//! Synchronisation (MPI 4.1 section 12.5): fence over all endpoints, passive-target locks
//! through the process's [`LockTable`](super::locks::LockTable)s, flushes, and the
//! attachment of memory to dynamic windows (section 12.2.4).

use super::host::{check_rma, progress_targets, progress_targets_now_and_then, HostWin, DYNAMIC_SERIAL, RMA};
use super::ompi4::{lookup_fixed, HOST_IS_OMPI4};
use super::{WinEndpoint, WinFlavor};
use crate::engine::envelope::PROC_NULL;
use crate::ep_err;
use crate::error::{EpResult, ERR_ARG, ERR_BUFFER, ERR_LOCKTYPE, ERR_RMA_SYNC, ERR_SIZE, ERR_UNSUPPORTED, ERR_WIN};
use crate::host::sys;
use std::os::raw::{c_int, c_void};
use std::sync::atomic::{fence as memory_fence, Ordering};

impl WinEndpoint {
    /// `EP_Win_fence`: collective over the window's endpoints. The process's endpoints meet
    /// (so every operation they issued is in the host's hands), the last one fences each host
    /// window, everyone leaves in the new epoch.
    pub fn fence(&self, assert: c_int) -> EpResult<()> {
        {
            let e = self.epochs.lock();
            if e.in_passive() {
                return Err(ep_err!(ERR_RMA_SYNC, "fence inside a passive-target epoch (unlock first)"));
            }
            if e.in_general_active() {
                return Err(ep_err!(ERR_RMA_SYNC, "fence inside a post or start epoch (complete, wait or test first)"));
            }
        }
        let shared = &self.shared;
        // Loads and stores of shared windows before the fence are visible after it.
        memory_fence(Ordering::SeqCst);
        shared.meeting.meet((), self.local_count(), self.local as usize, (), None, |_| -> EpResult<()> {
            // Every host window is fenced even after an error: the other processes wait in
            // each fence.
            let mut first_error = Ok(());
            for (w, locks) in shared.wins.iter().zip(shared.locks.iter()) {
                let ended = locks.end_epoch(*w);
                // SAFETY: every endpoint of the process is in the fence (the meeting) and the
                // host windows live as long as `shared`; no buffer.
                let fenced = check_rma(unsafe { sys::MPI_Win_fence(assert, w.0) }, "MPI_Win_fence");
                if first_error.is_ok() {
                    first_error = ended.and(fenced);
                }
            }
            first_error
        })?;
        self.epochs.lock().fence = assert & RMA.mode_nosucceed == 0;
        Ok(())
    }

    /// `EP_Win_lock`: starts a passive-target epoch on endpoint `rank` (`lock_type` is the
    /// host's `MPI_LOCK_SHARED` or `MPI_LOCK_EXCLUSIVE`).
    pub fn lock(&self, lock_type: c_int, rank: i32, assert: c_int) -> EpResult<()> {
        let exclusive = match lock_type {
            t if t == RMA.lock_exclusive => true,
            t if t == RMA.lock_shared => false,
            t => return Err(ep_err!(ERR_LOCKTYPE, "lock type {t} is neither MPI_LOCK_SHARED nor MPI_LOCK_EXCLUSIVE")),
        };
        if rank == PROC_NULL {
            return Ok(());
        }
        let (win, loc) = self.target(rank)?;
        {
            let mut e = self.epochs.lock();
            if e.lock_all || e.lock_of(rank).is_some() {
                return Err(ep_err!(ERR_RMA_SYNC, "target rank {rank} is already locked by this endpoint"));
            }
            if e.access.is_some() {
                return Err(ep_err!(ERR_RMA_SYNC, "lock inside the access epoch of a start of this endpoint (complete first)"));
            }
            // A fence that no operation followed started no epoch (MPI 4.1 section 12.5.1).
            e.fence = false;
        }
        self.shared.locks[loc.local as usize].lock(win, loc.proc, exclusive, assert)?;
        // Loads and stores of shared windows in the epoch come after the lock is granted.
        memory_fence(Ordering::SeqCst);
        self.epochs.lock().locked.push((rank, exclusive));
        Ok(())
    }

    /// `EP_Win_unlock`: ends the epoch on `rank`; its operations are complete there.
    pub fn unlock(&self, rank: i32) -> EpResult<()> {
        if rank == PROC_NULL {
            return Ok(());
        }
        let (win, loc) = self.target(rank)?;
        let mut e = self.epochs.lock();
        let Some(at) = e.locked.iter().position(|l| l.0 == rank) else {
            return Err(ep_err!(ERR_RMA_SYNC, "target rank {rank} is not locked by this endpoint"));
        };
        e.locked.swap_remove(at);
        drop(e);
        // Loads and stores of shared windows in the epoch complete before the lock goes.
        memory_fence(Ordering::SeqCst);
        self.shared.locks[loc.local as usize].unlock(win, loc.proc)
    }

    /// `EP_Win_lock_all`: a shared lock on every endpoint of the window.
    pub fn lock_all(&self, assert: c_int) -> EpResult<()> {
        {
            let mut e = self.epochs.lock();
            if e.in_passive() {
                return Err(ep_err!(ERR_RMA_SYNC, "lock_all inside another passive-target epoch of this endpoint"));
            }
            if e.access.is_some() {
                return Err(ep_err!(ERR_RMA_SYNC, "lock_all inside the access epoch of a start of this endpoint (complete first)"));
            }
            e.fence = false;
        }
        for rank in 0..self.shared.map.size() as i32 {
            let (win, loc) = self.target(rank)?;
            if let Err(err) = self.shared.locks[loc.local as usize].lock(win, loc.proc, false, assert) {
                for done in 0..rank {
                    let (win, loc) = self.target(done)?;
                    let _ = self.shared.locks[loc.local as usize].unlock(win, loc.proc);
                }
                return Err(err);
            }
        }
        self.epochs.lock().lock_all = true;
        Ok(())
    }

    /// `EP_Win_unlock_all`: ends the `lock_all` epoch; every operation is complete.
    pub fn unlock_all(&self) -> EpResult<()> {
        if !std::mem::take(&mut self.epochs.lock().lock_all) {
            return Err(ep_err!(ERR_RMA_SYNC, "unlock_all without lock_all"));
        }
        let mut first_error = Ok(());
        for rank in 0..self.shared.map.size() as i32 {
            let (win, loc) = self.target(rank)?;
            let rc = self.shared.locks[loc.local as usize].unlock(win, loc.proc);
            if first_error.is_ok() {
                first_error = rc;
            }
        }
        first_error
    }

    /// `EP_Win_flush` (`local` false) and `EP_Win_flush_local` (`local` true) of `rank`.
    pub fn flush(&self, rank: i32, local: bool) -> EpResult<()> {
        if rank == PROC_NULL {
            return Ok(());
        }
        let (win, loc) = self.target(rank)?;
        self.epochs.lock().check_passive(rank)?;
        self.flush_target(rank, win, loc.proc, local)
    }

    /// `EP_Win_flush_all` (`local` false: every operation of this endpoint complete at every
    /// target) and `EP_Win_flush_local_all` (`local` true: complete at the origin).
    pub fn flush_all(&self, local: bool) -> EpResult<()> {
        let e = self.epochs.lock();
        if e.lock_all {
            drop(e);
            // As in `flush_target`.
            memory_fence(Ordering::SeqCst);
            if !self.issued_to_any() {
                progress_targets_now_and_then();
                return Ok(());
            }
            progress_targets();
            for w in self.shared.wins.iter() {
                // SAFETY: the host windows live as long as `self.shared`, and this endpoint
                // holds a lock-all epoch on each; no buffer.
                unsafe {
                    if local {
                        check_rma(sys::MPI_Win_flush_local_all(w.0), "MPI_Win_flush_local_all")?;
                    } else {
                        check_rma(sys::MPI_Win_flush_all(w.0), "MPI_Win_flush_all")?;
                    }
                }
            }
            if !local {
                self.flushed_all();
            }
            return Ok(());
        }
        if e.locked.is_empty() {
            progress_targets_now_and_then();
        }
        // Under the epochs' lock, which only this endpoint's own calls take: no copy of the
        // locked targets is made per flush.
        for &(rank, _) in e.locked.iter() {
            let (win, loc) = self.target(rank)?;
            self.flush_target(rank, win, loc.proc, local)?;
        }
        Ok(())
    }

    /// Completes this endpoint's operations on `rank` (host window `win`, process `proc`) at
    /// the target, or at the origin only (`local`).
    fn flush_target(&self, rank: i32, win: HostWin, proc: u32, local: bool) -> EpResult<()> {
        // The endpoint's copies into memory of this process (`ops.rs`'s `LocalCopy`) are
        // complete at the target when the flush returns: visible before whatever the endpoint
        // loads or stores after it (a full fence: a store still in the core's buffer is not
        // yet complete), as the host's completion would leave its operations.
        memory_fence(Ordering::SeqCst);
        if !self.issued_to(rank) {
            // Every operation on `rank` since the last flush (not a local one) was a copy,
            // complete when it returned, or there was none: the host has nothing to complete.
            progress_targets_now_and_then();
            return Ok(());
        }
        // The host's calls on this process's own windows do not run its progress engine.
        if proc == self.shared.map.my_proc() {
            progress_targets();
        } else {
            progress_targets_now_and_then();
        }
        // SAFETY: `win` is a live host window and `proc` a process of its group that the
        // caller has an epoch with; no buffer.
        unsafe {
            if local {
                check_rma(sys::MPI_Win_flush_local(proc as c_int, win.0), "MPI_Win_flush_local")
            } else {
                check_rma(sys::MPI_Win_flush(proc as c_int, win.0), "MPI_Win_flush")?;
                self.flushed(rank);
                Ok(())
            }
        }
    }

    /// `EP_Win_sync`: a full memory barrier between this endpoint's loads and stores and the
    /// window's public copy. Both host MPIs have the unified memory model here, where this
    /// is what `MPI_Win_sync` does; it is called on each host window the endpoint holds
    /// locks in, where the host allows it.
    pub fn sync(&self) -> EpResult<()> {
        memory_fence(Ordering::SeqCst);
        progress_targets();
        let e = self.epochs.lock();
        let mut windows: Vec<usize> = if e.lock_all {
            (0..self.shared.wins.len()).collect()
        } else {
            e.locked.iter().filter_map(|&(r, _)| self.shared.map.location(r)).map(|l| l.local as usize).collect()
        };
        windows.sort_unstable();
        windows.dedup();
        for j in windows {
            // SAFETY: `j` indexes `self.shared.wins` (a local index of this communicator);
            // no buffer.
            check_rma(unsafe { sys::MPI_Win_sync(self.shared.wins[j].0) }, "MPI_Win_sync")?;
        }
        Ok(())
    }

    /// `EP_Win_attach`: exposes `size` bytes at `base` through this endpoint's part of a
    /// dynamic window; origins address them with `MPI_Get_address` values.
    pub fn attach(&self, base: *mut c_void, size: i64) -> EpResult<()> {
        self.check_dynamic()?;
        if size < 0 {
            return Err(ep_err!(ERR_SIZE, "size {size} is negative"));
        }
        if base.is_null() && size > 0 {
            return Err(ep_err!(ERR_BUFFER, "base is NULL with size {size}"));
        }
        let mut attached = self.attached.lock();
        // The host window of this endpoint holds exactly the regions in `attached`.
        if HOST_IS_OMPI4 && !lookup_fixed() && attached.iter().all(|&a| a < base as usize) && !attached.is_empty() {
            return Err(ep_err!(
                ERR_UNSUPPORTED,
                "Open MPI 4's osc/ucx corrupts its region table when a region is attached above all attached ones, and this program does not use EPMPI's fix \
                 (link libepmpi.so into the program; README, host limitations): attach regions in decreasing address order"
            ));
        }
        let _one_at_a_time = DYNAMIC_SERIAL.lock();
        // SAFETY: the user's region of `size` bytes at `base` stays valid until it is
        // detached (MPI 4.1 section 12.2.4, the user's contract); the window is this endpoint's live
        // host window; `DYNAMIC_SERIAL` is held as the host needs.
        check_rma(unsafe { sys::MPI_Win_attach(self.my_win().0, base, size as sys::MPI_Aint) }, "MPI_Win_attach")?;
        attached.push(base as usize);
        Ok(())
    }

    /// `EP_Win_detach`: withdraws a region attached by this endpoint.
    pub fn detach(&self, base: *const c_void) -> EpResult<()> {
        self.check_dynamic()?;
        if base.is_null() {
            return Err(ep_err!(ERR_ARG, "base is NULL"));
        }
        // Hosts differ on a region that is not attached (MPICH returns success): check here.
        let mut attached = self.attached.lock();
        let Some(at) = attached.iter().position(|&a| a == base as usize) else {
            return Err(ep_err!(ERR_WIN, "no region attached by this endpoint starts at {base:p}"));
        };
        let _one_at_a_time = DYNAMIC_SERIAL.lock();
        // SAFETY: a region this endpoint attached (checked above) on its live host
        // window; `DYNAMIC_SERIAL` is held as the host needs.
        check_rma(unsafe { sys::MPI_Win_detach(self.my_win().0, base) }, "MPI_Win_detach")?;
        attached.swap_remove(at);
        Ok(())
    }

    fn check_dynamic(&self) -> EpResult<()> {
        if self.shared.flavor != WinFlavor::Dynamic {
            return Err(ep_err!(ERR_WIN, "the window was not made by EP_Win_create_dynamic"));
        }
        Ok(())
    }

    /// The host window that exposes this endpoint's memory.
    fn my_win(&self) -> HostWin {
        self.shared.wins[self.local as usize]
    }
}
