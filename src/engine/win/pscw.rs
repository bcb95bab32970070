//! General active-target synchronisation (MPI 4.1 section 12.5.2): `EP_Win_post`,
//! `EP_Win_start`, `EP_Win_complete`, `EP_Win_wait`, `EP_Win_test`.
//!
//! The host's own post and start cannot carry these epochs: host window `j` has one access and
//! one exposure epoch per process, while every endpoint of a process is a target (in its own
//! host window) and an origin (in all of them) by itself, with groups of its own. So each
//! epoch is made of what the host gives every endpoint apart, passive-target locks and
//! messages:
//! - `post(group)` opens the exposure epoch and sends each origin of `group` a post notice;
//! - `start(group)` waits for the post notice of each target of `group` (MPI lets start wait
//!   for the matching post; under `MPI_MODE_NOCHECK` neither side sends or waits), then opens
//!   the host's access to each target through the process's
//!   [`LockTable`](super::locks::LockTable) (`open_access`: no lock word, and a host lock
//!   that asks the target nothing where the host allows it);
//! - `complete` closes those accesses, which completes every operation of the epoch at its
//!   target (section 12.5.3), then sends each target a complete notice;
//! - `wait` and `test` end the exposure epoch once a complete notice has come from every
//!   origin of the post's group.
//!
//! Notices between processes are zero-byte host messages on the window's own host
//! communicator (a duplicate made with the host windows), so no buffer outlives its send;
//! their requests are tested whenever an endpoint waits for notices. The host's source names
//! the sending process, the tag the kind and both endpoints' local indices. The endpoint that
//! polls takes every notice that has arrived for any endpoint of the process into
//! [`Notices`], counted: the notice of a later epoch may arrive before the current one ends.
//! A notice between endpoints of one process is counted there directly.

use super::host::{check_rma, progress_targets, RMA};
use super::WinEndpoint;
use crate::engine::backoff::Backoff;
use crate::engine::rankmap::RankMap;
use crate::ep_err;
use crate::error::{EpResult, ERR_ARG, ERR_RMA_SYNC, ERR_UNSUPPORTED};
use crate::host::{sys, HostComm, HostRequest, HOST};
use parking_lot::Mutex;
use std::collections::HashMap;
use std::os::raw::c_int;
use std::sync::atomic::{fence as memory_fence, Ordering};

/// A wait for notices within the process alone polls the host one turn in this many.
const HOST_POLL_EVERY: u32 = 64;

/// What a notice announces.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
enum Kind {
    /// From a target's `post` to an origin of its group.
    Post = 0,
    /// From an origin's `complete` to a target of its access epoch.
    Complete = 1,
}

/// Notices counted by (destination local index, source rank, kind).
type Key = (u32, i32, Kind);

#[derive(Default)]
struct Counts {
    /// Arrived and not yet taken.
    arrived: HashMap<Key, u32>,
    /// Given up by an epoch that failed before they came: dropped when they arrive, so that
    /// they do not stand for a later epoch's.
    forfeited: HashMap<Key, u32>,
}

/// Takes one count of `key` from `map`: false when there is none.
fn take_one(map: &mut HashMap<Key, u32>, key: Key) -> bool {
    match map.get_mut(&key) {
        Some(n) => {
            *n -= 1;
            if *n == 0 {
                map.remove(&key);
            }
            true
        }
        None => false,
    }
}

/// The notices of one window in this process: where they travel and those that arrived.
pub struct Notices {
    /// The window's own host communicator (freed with the window's last handle).
    comm: HostComm,
    /// Local indices a process has at most: a notice's tag is
    /// `2 * (source local * stride + destination local) + kind`.
    stride: u32,
    /// The tags fit under the host's `MPI_TAG_UB`.
    fits: bool,
    /// Notices arrived and not yet taken, and notices to drop when they arrive, by
    /// (destination local index, source rank, kind).
    arrived: Mutex<Counts>,
    /// Held by the endpoint that polls the host for notices.
    polling: Mutex<()>,
    /// The notices' sends not known to be complete. Not freed at once with
    /// `MPI_Request_free`: MPICH 4.0.2 then loses the zero-byte messages its process sent itself
    /// (measured: one of 400 arrived).
    sent: Mutex<Vec<HostRequest>>,
}

impl Drop for Notices {
    /// The window is gone: its epochs ended, every notice was received (MPI 4.1 section
    /// 12.5.2) and the sends left are complete in the host, or belong to an erroneous program.
    fn drop(&mut self) {
        if crate::host::mpi_is_active() && !crate::host::finalizing() {
            for req in self.sent.get_mut().iter_mut() {
                // SAFETY: MPI is active (checked above); a live request of `send`, freed once.
                unsafe { sys::MPI_Request_free(&mut req.0) };
            }
        }
        crate::host::free_comm(self.comm);
    }
}

impl Notices {
    /// The notices of a window whose processes have at most `stride` endpoints each, over
    /// `comm` (the window's own duplicate of its communicator's host communicator).
    pub fn new(comm: HostComm, stride: u32, tag_ub: c_int) -> Notices {
        let top = 2 * (stride as u128) * (stride as u128);
        Notices { comm, stride, fits: top <= tag_ub as u128 + 1, arrived: Mutex::new(Counts::default()), polling: Mutex::new(()), sent: Mutex::new(Vec::new()) }
    }

    fn check_fits(&self) -> EpResult<()> {
        if self.fits {
            Ok(())
        } else {
            Err(ep_err!(
                ERR_UNSUPPORTED,
                "post/start/complete/wait need 2 x {}^2 host tags (endpoints per process squared), more than the host's MPI_TAG_UB + 1",
                self.stride
            ))
        }
    }

    /// Sends a notice of `kind` from this process's endpoint of local index `from` to rank
    /// `to`. The host's request is kept until it completes (see `sent`). A notice to an
    /// endpoint of this process is counted at once, without the host: a message to itself
    /// would cost the host's loopback and wait for the next poll.
    fn send(&self, map: &RankMap, from: u32, to: i32, kind: Kind) -> EpResult<()> {
        let loc = map.location(to).ok_or_else(|| ep_err!(ERR_ARG, "rank {to} is not in the window"))?;
        if loc.proc == map.my_proc() {
            self.arrive((loc.local, map.my_rank(from), kind));
            return Ok(());
        }
        self.reap();
        let tag = 2 * (from * self.stride + loc.local) + kind as u32;
        let mut req = HostRequest(HOST.request_null);
        // SAFETY: a zero-byte send from no buffer, so nothing outlives the call; `self.comm`
        // lives as long as the window; the host writes `req.0`, a live local.
        unsafe {
            check_rma(
                sys::MPI_Isend(std::ptr::null(), 0, HOST.byte, loc.proc as c_int, tag as c_int, self.comm.0, &mut req.0),
                "MPI_Isend (window notice)",
            )?;
        }
        self.sent.lock().push(req);
        Ok(())
    }

    /// Forgets the notices' sends that have completed. A send the host reports failed is
    /// forgotten too: its error belongs to the endpoint that sent it, whose `MPI_Isend`
    /// succeeded, and must not fail another endpoint's wait that tests it here.
    fn reap(&self) {
        self.sent.lock().retain_mut(|req| {
            let mut done: c_int = 0;
            // SAFETY: a live request of `send`, which the host sets to `MPI_REQUEST_NULL`
            // once complete; no buffer.
            let rc = unsafe { sys::MPI_Test(&mut req.0, &mut done, HOST.status_ignore) };
            rc == HOST.success && done == 0
        });
    }

    /// Sends a notice of `kind` from local index `from` to every rank of `to`, all of them
    /// even when one fails (a rank left out would wait for it forever); the first error.
    fn tell_all(&self, map: &RankMap, from: u32, to: &[i32], kind: Kind) -> EpResult<()> {
        let mut first_error = Ok(());
        for &rank in to {
            let rc = self.send(map, from, rank, kind);
            if first_error.is_ok() {
                first_error = rc;
            }
        }
        first_error
    }

    /// Takes every notice the host holds for this process's endpoints into `arrived`. One
    /// endpoint of the process polls at a time (the others return at once, and look at
    /// `arrived` again later): a probe and the receive of what it found must not be split
    /// by another thread's receive. Not a matched probe: MPICH 4.0.2 over UCX crashes in
    /// `MPI_Mrecv` of a message its process sent itself.
    fn poll(&self, map: &RankMap) -> EpResult<()> {
        let Some(_polling) = self.polling.try_lock() else { return Ok(()) };
        loop {
            let mut flag: c_int = 0;
            let mut st = std::mem::MaybeUninit::<sys::MPI_Status>::zeroed();
            // SAFETY: a probe on the window's live host communicator, writing `flag` and the
            // status, live locals.
            unsafe {
                check_rma(sys::MPI_Iprobe(HOST.any_source, HOST.any_tag, self.comm.0, &mut flag, st.as_mut_ptr()), "MPI_Iprobe (window notices)")?;
            }
            if flag == 0 {
                return Ok(());
            }
            // SAFETY: the probe found a message, so it wrote the status.
            let st = unsafe { st.assume_init() };
            let mut none = [0u8; 1];
            // SAFETY: the message the probe found (only this thread receives on the
            // communicator, under `polling`), zero bytes into a live local.
            unsafe {
                check_rma(
                    sys::MPI_Recv(none.as_mut_ptr().cast(), 0, HOST.byte, st.MPI_SOURCE, st.MPI_TAG, self.comm.0, HOST.status_ignore),
                    "MPI_Recv (window notice)",
                )?;
            }
            let tag = st.MPI_TAG as u32;
            let kind = if tag & 1 == 0 { Kind::Post } else { Kind::Complete };
            let (from, to) = ((tag >> 1) / self.stride, (tag >> 1) % self.stride);
            let source = map.ranks_of(st.MPI_SOURCE as u32).get(from as usize).copied();
            let Some(source) = source else {
                return Err(ep_err!(ERR_RMA_SYNC, "a window notice from process {} names no endpoint of it", st.MPI_SOURCE));
            };
            self.arrive((to, source, kind));
        }
    }

    /// Counts one notice of `key` that arrived, or drops it when an epoch that failed
    /// forfeited it.
    fn arrive(&self, key: Key) {
        let mut counts = self.arrived.lock();
        if !take_one(&mut counts.forfeited, key) {
            *counts.arrived.entry(key).or_default() += 1;
        }
    }

    /// Removes from `waiting` each rank whose notice of `kind` to local index `me` has
    /// arrived, taking one notice of each.
    fn take(&self, me: u32, waiting: &mut Vec<i32>, kind: Kind) {
        let mut counts = self.arrived.lock();
        if counts.arrived.is_empty() {
            return;
        }
        waiting.retain(|&r| !take_one(&mut counts.arrived, (me, r, kind)));
    }

    /// Gives up the notices of `kind` to local index `me` from the ranks of `waiting`, for an
    /// epoch that failed before they came: one that has arrived is taken, one still to come is
    /// dropped when it does.
    fn forfeit(&self, me: u32, waiting: &[i32], kind: Kind) {
        let mut counts = self.arrived.lock();
        for &r in waiting {
            if !take_one(&mut counts.arrived, (me, r, kind)) {
                *counts.forfeited.entry((me, r, kind)).or_default() += 1;
            }
        }
    }

    /// Polls once and takes what came: true when nothing of `waiting` is left.
    /// With `poll_host` false only the notices within the process are looked at (see
    /// [`Notices::wait_for`]).
    fn ready(&self, map: &RankMap, me: u32, waiting: &mut Vec<i32>, kind: Kind, poll_host: bool) -> EpResult<bool> {
        if poll_host {
            self.reap();
            self.poll(map)?;
        }
        self.take(me, waiting, kind);
        Ok(waiting.is_empty())
    }

    /// Waits until a notice of `kind` from every rank of `waiting` has come. On an error the
    /// notices not taken yet are forfeited (see [`Notices::forfeit`]).
    ///
    /// The host is polled at every turn only while a rank of another process is waited for:
    /// notices within the process arrive without it, and a thread polling in a loop takes the
    /// host's lock from the threads whose host calls it waits for (MPICH 4.0.2: a same-process
    /// epoch of post, start, put, complete and wait took 50 us with every turn polling).
    /// Otherwise one turn in [`HOST_POLL_EVERY`] polls, which keeps the host's progress going
    /// for other processes' requests (MPI 4.1 section 12.7).
    fn wait_for(&self, map: &RankMap, me: u32, mut waiting: Vec<i32>, kind: Kind) -> EpResult<()> {
        let mut b = Backoff::new();
        let mut turn: u32 = 0;
        loop {
            progress_targets();
            let remote = from_other_processes(map, &waiting);
            turn = turn.wrapping_add(1);
            match self.ready(map, me, &mut waiting, kind, remote || turn.is_multiple_of(HOST_POLL_EVERY)) {
                Ok(true) => return Ok(()),
                Ok(false) => {}
                Err(err) => {
                    self.forfeit(me, &waiting, kind);
                    return Err(err);
                }
            }
            if remote {
                b.snooze_after_polling();
            } else {
                b.snooze();
            }
        }
    }
}

impl WinEndpoint {
    /// `EP_Win_post`: opens an exposure epoch for the origins `group` (window ranks); `assert`
    /// a combination of `MPI_MODE_NOCHECK`, `MPI_MODE_NOSTORE` and `MPI_MODE_NOPUT`.
    /// Errors: `EP_ERR_ARG` (other assertion bits), `EP_ERR_UNSUPPORTED` (tags), `EP_ERR_RMA_SYNC`
    /// (already exposed), host failures of a notice (the epoch is open, every other origin
    /// told).
    pub fn post(&self, group: Vec<i32>, assert: c_int) -> EpResult<()> {
        check_assert(assert, RMA.mode_nocheck | RMA.mode_nostore | RMA.mode_noput, "EP_Win_post")?;
        progress_targets();
        let notices = &self.shared.notices;
        notices.check_fits()?;
        {
            let mut e = self.epochs.lock();
            if e.exposure.is_some() {
                return Err(ep_err!(ERR_RMA_SYNC, "post inside an exposure epoch of this endpoint (wait or test first)"));
            }
            e.fence = false;
            e.exposure = Some(group.clone());
        }
        // The endpoint's stores to its memory before the post are visible to the origins.
        memory_fence(Ordering::SeqCst);
        if assert & RMA.mode_nocheck != 0 {
            return Ok(());
        }
        notices.tell_all(&self.shared.map, self.local, &group, Kind::Post)
    }

    /// `EP_Win_start`: opens an access epoch to the targets `group` (window ranks), once each
    /// has posted (at once under `MPI_MODE_NOCHECK`, the only assertion allowed). Errors:
    /// `EP_ERR_ARG`, `EP_ERR_UNSUPPORTED`, `EP_ERR_RMA_SYNC` (inside an access epoch of start,
    /// lock or lock_all), host failures. A start that fails after it began to wait opens no
    /// epoch and ends its targets' exposure as a complete would (each target's wait returns),
    /// posts that had not come yet given up.
    pub fn start(&self, group: Vec<i32>, assert: c_int) -> EpResult<()> {
        check_assert(assert, RMA.mode_nocheck, "EP_Win_start")?;
        let notices = &self.shared.notices;
        notices.check_fits()?;
        {
            let mut e = self.epochs.lock();
            if e.access.is_some() {
                return Err(ep_err!(ERR_RMA_SYNC, "start inside an access epoch of this endpoint (complete first)"));
            }
            if e.in_passive() {
                return Err(ep_err!(ERR_RMA_SYNC, "start inside a passive-target epoch of this endpoint (unlock first)"));
            }
            // A fence that no operation followed started no epoch (MPI 4.1 section 12.5.1).
            e.fence = false;
        }
        let mut opened = Ok(());
        if assert & RMA.mode_nocheck == 0 {
            opened = notices.wait_for(&self.shared.map, self.local, group.clone(), Kind::Post);
        }
        let mut locked = 0;
        while opened.is_ok() && locked < group.len() {
            opened = self.open_access(group[locked]);
            locked += opened.is_ok() as usize;
        }
        if let Err(err) = opened {
            for &done in &group[..locked] {
                let _ = self.close_access(done);
            }
            let _ = notices.tell_all(&self.shared.map, self.local, &group, Kind::Complete);
            return Err(err);
        }
        // Loads and stores of shared windows in the epoch come after the targets posted.
        memory_fence(Ordering::SeqCst);
        let mut sorted = group;
        sorted.sort_unstable();
        self.epochs.lock().access = Some(sorted);
        Ok(())
    }

    /// `EP_Win_complete`: ends the access epoch; every operation of it is complete at the
    /// origin and at its target, and each target is told so. A target whose host access
    /// failed to close is told too (its wait would hang otherwise); the first error is
    /// returned. Errors: `EP_ERR_RMA_SYNC` (no start), host failures.
    pub fn complete(&self) -> EpResult<()> {
        let Some(targets) = self.epochs.lock().access.take() else {
            return Err(ep_err!(ERR_RMA_SYNC, "complete without start"));
        };
        memory_fence(Ordering::SeqCst);
        let mut first_error = Ok(());
        for &rank in &targets {
            let rc = self.close_access(rank);
            if first_error.is_ok() {
                first_error = rc;
            }
        }
        let told = self.shared.notices.tell_all(&self.shared.map, self.local, &targets, Kind::Complete);
        first_error.and(told)
    }

    /// `EP_Win_wait`: ends the exposure epoch once every origin of the post's group has
    /// completed its access epoch; their operations are then visible in this endpoint's
    /// memory. Errors: `EP_ERR_RMA_SYNC` (no post), host failures (the epoch ends, the
    /// complete notices not come yet given up).
    pub fn wait_exposure(&self) -> EpResult<()> {
        let Some(origins) = self.epochs.lock().exposure.take() else {
            return Err(ep_err!(ERR_RMA_SYNC, "wait without post"));
        };
        self.shared.notices.wait_for(&self.shared.map, self.local, origins, Kind::Complete)?;
        memory_fence(Ordering::SeqCst);
        Ok(())
    }

    /// `EP_Win_test`: `EP_Win_wait` when it would return at once (true), else false and the
    /// exposure epoch goes on. Errors: as `EP_Win_wait`.
    pub fn test_exposure(&self) -> EpResult<bool> {
        let mut e = self.epochs.lock();
        let Some(origins) = e.exposure.as_mut() else {
            return Err(ep_err!(ERR_RMA_SYNC, "test without post"));
        };
        progress_targets();
        let notices = &self.shared.notices;
        match notices.ready(&self.shared.map, self.local, origins, Kind::Complete, true) {
            Ok(false) => return Ok(false),
            Ok(true) => {}
            Err(err) => {
                notices.forfeit(self.local, origins, Kind::Complete);
                e.exposure = None;
                return Err(err);
            }
        }
        e.exposure = None;
        memory_fence(Ordering::SeqCst);
        Ok(true)
    }

    /// The host access a start's epoch holds to `rank`, through the process's lock table.
    fn open_access(&self, rank: i32) -> EpResult<()> {
        let (win, loc) = self.target(rank)?;
        self.shared.locks[loc.local as usize].open_access(win, loc.proc)
    }

    fn close_access(&self, rank: i32) -> EpResult<()> {
        let (win, loc) = self.target(rank)?;
        self.shared.locks[loc.local as usize].close_access(win, loc.proc)
    }
}

/// Some rank of `ranks` is an endpoint of another process: its notices come through the host.
fn from_other_processes(map: &RankMap, ranks: &[i32]) -> bool {
    ranks.iter().any(|&r| map.location(r).is_some_and(|l| l.proc != map.my_proc()))
}

fn check_assert(assert: c_int, allowed: c_int, call: &str) -> EpResult<()> {
    if assert & !allowed != 0 {
        return Err(ep_err!(ERR_ARG, "assert {assert:#x} of {call} has bits other than its MPI_MODE_* assertions ({allowed:#x})"));
    }
    Ok(())
}
